/*
 * test_speaker.c - the speaker signal of search (speaker.c, fusion.c): an
 * episode written as a transcript turn ("Melanie: ...") whose speaker the
 * question names outranks the other speaker's turn that names her ("Wow,
 * Melanie!"), which BM25 alone prefers; the label is read only from an
 * episode's title, only in its "Name:" shape; the query names it by whole
 * words, case folded. Through mn_api_call on a real store, without an
 * embedder (embed.provider off) so the semantic signal is out of the way.
 */
#include "common.h"
#include <unistd.h>

#include "mnemo/api.h"
#include "retrieve/retrieve_internal.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

static char *save(const char *kind, const char *situation, const char *body)
{
    json_t *args = json_pack("{s:s,s:s,s:{s:s}}", "kind", kind, "body", body, "context",
                             "situation", situation);
    json_t *out = test_call("save", args);
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

static void setup(void)
{
    test_ctx_open("speaker");
}

static void teardown(void)
{
    test_ctx_close();
}

static void test_label(void)
{
    const char *s = NULL;
    CHECK(mn_speaker_label("Melanie: I went camping.", &s) == 7 && strncmp(s, "Melanie", 7) == 0);
    CHECK(mn_speaker_label("  Dr. Jane Smith: hello", &s) == 14 &&
          strncmp(s, "Dr. Jane Smith", 14) == 0);
    CHECK(mn_speaker_label("\xc3\x89mile: salut", &s) == 6); /* a non-ASCII capital */
    CHECK(mn_speaker_label("Melanie:", &s) == 7);            /* the title is the label alone */
    /* not a label: lower case, prose, no space after the colon, four words, too long */
    CHECK(mn_speaker_label("melanie: hi", &s) == 0);
    CHECK(mn_speaker_label("Wow, Melanie! That's great.", &s) == 0);
    CHECK(mn_speaker_label("Note at 10:30 today", &s) == 0);
    CHECK(mn_speaker_label("See https://example.org", &s) == 0);
    CHECK(mn_speaker_label("Meeting:10am", &s) == 0);
    CHECK(mn_speaker_label("One Two Three Four: x", &s) == 0);
    CHECK(mn_speaker_label("Abcdefghijklmnopqrstuvwxyzabcdefghijklmnop: x", &s) == 0);
    CHECK(mn_speaker_label("", &s) == 0);

    const char *q = "What do Melanie's kids like?";
    CHECK(mn_speaker_named("Melanie", 7, q, strlen(q)) == 1.0);
    CHECK(mn_speaker_named("MELANIE", 7, q, strlen(q)) == 1.0);
    CHECK(mn_speaker_named("Mel", 3, q, strlen(q)) == 0); /* whole words only */
    q = "What did John say about the trip?";
    CHECK(mn_speaker_named("John Smith", 10, q, strlen(q)) == 0.5);
    CHECK(mn_speaker_named("Dr. John", 8, q, strlen(q)) == 0.5);
    CHECK(mn_speaker_named("Caroline", 8, q, strlen(q)) == 0);
}

/*
 * Caroline's short turn names Melanie and the pottery; Melanie's longer turn
 * holds the pottery and her label: BM25 prefers Caroline's. The question is
 * about Melanie: her own turn comes first.
 */
static void test_speaker_first(void)
{
    const char *day = "8 May 2023, 1:56 pm";
    char *ids[8];
    size_t n = 0;
    ids[n++] = save("episode", day, "Caroline: Hey Mel, how was your week?");
    ids[n++] = save("episode", day, "Melanie: Busy, the kids had a school play on Friday.");
    ids[n++] = save("episode", day, "Caroline: That sounds lovely, they must be proud.");
    char *hers = ids[n++] =
        save("episode", day,
             "Melanie: I finally signed up for a pottery class on Thursday evenings, it calms me "
             "down after a long week of work and the clay feels great in my hands.");
    ids[n++] = save("episode", day, "Caroline: The weather was great for a walk today.");
    ids[n++] = save("episode", day, "Melanie: We walked to the lake and back after lunch.");
    char *other = ids[n++] = save("episode", day, "Caroline: Wow, Melanie! Pottery, how fun!");
    char *f = ids[n++] = save("fact", day, "Melanie: pottery teacher at the community center");

    json_t *out =
        test_call("search", J("{'query':'What pottery does Melanie do?','kinds':['memory'],"
                              "'k':10}"));
    REQUIRE(out);
    int rh = -1, ro = -1, rf = -1;
    const json_t *h = test_find_item(out, hers, &rh), *o = test_find_item(out, other, &ro),
                 *x = test_find_item(out, f, &rf);
    REQUIRE(h && o && x);
    /* BM25 alone prefers the other speaker's shorter turn ... */
    CHECK(json_number_value(test_signal(o, "lexical")) >
          json_number_value(test_signal(h, "lexical")));
    /* ... but the question is about Melanie: her turn first */
    CHECK(json_number_value(test_signal(h, "speaker")) == 1.0);
    CHECK(json_number_value(test_signal(o, "speaker")) == 0);
    CHECK(rh < ro);
    /* a fact's "Name:" title is not a speaker */
    CHECK(test_signal(x, "speaker") == NULL);
    json_decref(out);

    /* a question that names nobody: no speaker signal, BM25's order */
    out = test_call("search", J("{'query':'pottery class','kinds':['memory'],'k':10}"));
    REQUIRE(out);
    h = test_find_item(out, hers, &rh);
    o = test_find_item(out, other, &ro);
    REQUIRE(h && o);
    CHECK(json_number_value(test_signal(h, "speaker")) == 0);
    json_decref(out);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
}

static void run_all(void)
{
    test_label();
    setup();
    test_speaker_first();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
