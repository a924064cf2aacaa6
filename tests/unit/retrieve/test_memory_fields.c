/*
 * test_memory_fields.c - how search weighs a memory's fields (the store's
 * memory query, search_store.c): a memory saved without a title, whose
 * title is then the first line of its body and whose keywords are words of
 * its text, is ranked by its body and context alone, so the words of its
 * first line do not count three times over those of the rest; a title of
 * its own still counts as a title. Through mn_api_call on a real store, without an embedder.
 */
#include "common.h"
#include <unistd.h>

#include "mnemo/api.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

static char *save(const char *kind, const char *title, const char *body)
{
    json_t *args = json_pack("{s:s,s:s,s:{s:s}}", "kind", kind, "body", body, "context",
                             "situation", "8 May 2023");
    if (title)
        json_object_set_new(args, "title", json_string(title));
    json_t *out = test_call("save", args);
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

static void setup(void)
{
    test_ctx_open("fields");
}

static void teardown(void)
{
    test_ctx_close();
}

static double lexical(const json_t *it)
{
    return json_number_value(test_signal(it, "lexical"));
}

/*
 * Two turns of two lines, of the same length: the first names the pottery
 * once, in its first line (its title); the second twice, in its second
 * line. Counted once each, the second holds the word more and comes first;
 * with the first line counted again as the title (and its words as
 * keywords), the first came first.
 */
static void test_derived_title(void)
{
    static const char *const filler[] = {
        "Busy week, the kids had a school play on Friday.",
        "The weather was great for a walk today.",
        "We walked to the lake and back after lunch.",
        "Dinner was pasta again, nobody complained.",
    };
    char *ids[8];
    size_t n = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(filler); i++)
        ids[n++] = save("episode", NULL, filler[i]);
    char *first = ids[n++] =
        save("episode", NULL,
             "Thursday evenings I go to a pottery class near the station.\n"
             "The teacher is patient and the room smells of wet clay and tea.");
    char *twice = ids[n++] = save("episode", NULL,
                                  "Thursday evenings I go to a class near the old train station.\n"
                                  "The pottery teacher liked the pottery bowl I glazed in blue.");
    json_t *out = test_call("search", J("{'query':'pottery','kinds':['memory'],'k':10}"));
    REQUIRE(out);
    int rf = -1, rt = -1;
    const json_t *f = test_find_item(out, first, &rf), *t = test_find_item(out, twice, &rt);
    REQUIRE(f && t);
    CHECK(rt == 0 && rf == 1);
    CHECK(lexical(t) == 1.0 && lexical(f) < 1.0);
    json_decref(out);

    /* a title of its own is a title: a word only there still matches, above the body's */
    char *titled = ids[n++] = save("fact", "Kiln firing schedule", "Cone 6, slow cool.");
    char *plain = ids[n++] = save("fact", NULL, "The kiln in the garage needs a new element.");
    out = test_call("search", J("{'query':'kiln','kinds':['memory'],'k':10}"));
    REQUIRE(out);
    int rtt = -1, rp = -1;
    const json_t *tt = test_find_item(out, titled, &rtt), *p = test_find_item(out, plain, &rp);
    REQUIRE(tt && p);
    CHECK(lexical(tt) > 0);
    CHECK(rtt < rp);
    json_decref(out);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
}

static void run_all(void)
{
    setup();
    test_derived_title();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
