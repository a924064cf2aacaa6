/*
 * test_conversation.c - the conversation signal of search (fusion.c): the
 * turns of a session saved as episodes rank as parts of one document, so a
 * turn whose session also holds the question's other words outranks an
 * equal or better match in a session that holds nothing else; the session
 * is the provenance's session, else the situation; forgotten turns no
 * longer count for their session. Facts have no conversation. Through
 * mn_api_call on a real store, without an embedder (embed.provider off)
 * so the lexical and conversation signals are alone.
 */
#include "common.h"
#include <unistd.h>

#include "mnemo/api.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

/* Save an episode in a session (or, with session NULL, in a situation) and return its id. */
static char *episode(const char *session, const char *situation, const char *body)
{
    json_t *args = json_pack("{s:s,s:s}", "kind", "episode", "body", body);
    if (session)
        json_object_set_new(args, "provenance", json_pack("{s:s}", "session", session));
    if (situation)
        json_object_set_new(args, "context", json_pack("{s:s}", "situation", situation));
    json_t *out = test_call("save", args);
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

static const json_t *find_item(const json_t *out, const char *id)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "id")), id) == 0)
            return it;
    }
    return NULL;
}

static int rank_of(const json_t *out, const char *id)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "id")), id) == 0)
            return (int)i;
    }
    return -1;
}

static double signal(const json_t *it, const char *name)
{
    return json_number_value(json_object_get(json_object_get(it, "signals"), name));
}

static void setup(void)
{
    test_ctx_open("conv");
}

static void teardown(void)
{
    test_ctx_close();
}

static const char *const filler[] = {
    "The weather stayed warm all week.", "We walked a lot and slept early.",
    "Nothing else happened that day.",   "Tomorrow is another long day.",
    "Coffee was good but expensive.",    "The train was late again.",
};

static char *fact(const char *body)
{
    json_t *out = test_call("save", json_pack("{s:s,s:s}", "kind", "fact", "body", body));
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

/*
 * One session (the trip) names the city once, its hotel and its food each
 * in a turn of its own, far apart (no episode neighbours); another session
 * (the family) names the city in a shorter turn, which BM25 alone prefers.
 * by_session: sessions are the provenance's session; else the situation.
 */
static void session_as_document(bool by_session, const char *city, const char *hotel,
                                const char *food)
{
    const char *s1 = by_session ? "family" : NULL, *s2 = by_session ? "trip" : NULL;
    const char *d1 = by_session ? NULL : "2023-05-01, evening call";
    const char *d2 = by_session ? NULL : "2023-06-12, after the trip";
    mn_buf b = MN_BUF_INIT;
    char *ids[12];
    size_t n = 0;
    mn_buf_printf(&b, "My cousin moved to %s.", city);
    char *family = ids[n++] = episode(s1, d1, b.ptr);
    ids[n++] = episode(s1, d1, filler[0]);
    ids[n++] = episode(s1, d1, filler[1]);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "We flew to %s on a rainy Friday morning.", city);
    char *trip = ids[n++] = episode(s2, d2, b.ptr);
    ids[n++] = episode(s2, d2, filler[2]);
    ids[n++] = episode(s2, d2, filler[3]);
    ids[n++] = episode(s2, d2, filler[4]);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "The %s had a rooftop pool.", hotel);
    char *hotel_turn = ids[n++] = episode(s2, d2, b.ptr);
    ids[n++] = episode(s2, d2, filler[5]);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "Grilled %s by the river for dinner.", food);
    char *food_turn = ids[n++] = episode(s2, d2, b.ptr);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "The %s office of the company is small.", city);
    char *f = ids[n++] = fact(b.ptr);

    mn_buf_clear(&b);
    mn_buf_printf(&b, "%s %s %s", city, hotel, food);
    json_t *out = test_call(
        "search", json_pack("{s:s,s:[s],s:i}", "query", b.ptr, "kinds", "memory", "k", 20));
    REQUIRE(out);
    const json_t *a = find_item(out, trip), *o = find_item(out, family), *x = find_item(out, f);
    REQUIRE(a && o && x);
    /* BM25 alone prefers the shorter family turn ... */
    CHECK(signal(o, "lexical") > signal(a, "lexical"));
    /* ... but the trip's other turns hold the other words: its turn comes first */
    CHECK(rank_of(out, trip) < rank_of(out, family));
    CHECK(signal(a, "conversation") == 1.0);
    CHECK(signal(o, "conversation") > 0 && signal(o, "conversation") < 0.75);
    CHECK(signal(a, "graph") == 0); /* not the episode neighbours' doing */
    /* a fact belongs to no conversation */
    CHECK(json_object_get(json_object_get(x, "signals"), "conversation") == NULL);
    json_decref(out);

    /* forgotten turns no longer speak for their session: both sessions hold the city only */
    json_decref(test_call("forget", json_pack("{s:s}", "id", hotel_turn)));
    json_decref(test_call("forget", json_pack("{s:s}", "id", food_turn)));
    mn_buf_clear(&b);
    mn_buf_printf(&b, "%s %s %s", city, hotel, food);
    out = test_call("search",
                    json_pack("{s:s,s:[s],s:i}", "query", b.ptr, "kinds", "memory", "k", 20));
    REQUIRE(out);
    a = find_item(out, trip);
    o = find_item(out, family);
    REQUIRE(a && o);
    CHECK(signal(a, "conversation") == signal(o, "conversation"));
    CHECK(rank_of(out, family) < rank_of(out, trip));
    json_decref(out);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    mn_buf_release(&b);
}

static void test_by_session(void)
{
    session_as_document(true, "Lisbon", "hotel", "sardines");
}

static void test_by_situation(void)
{
    session_as_document(false, "Berlin", "hostel", "pretzels");
}

/* An episode with neither a session nor a situation is no conversation (nor are all of them). */
static void test_no_session(void)
{
    char *a = episode(NULL, NULL, "Porto has steep streets.");
    char *b = episode(NULL, "", "Porto trams are old.");
    json_t *out = test_call("search", J("{'query':'Porto streets','kinds':['memory'],'k':5}"));
    REQUIRE(out);
    const json_t *x = find_item(out, a), *y = find_item(out, b);
    REQUIRE(x && y);
    CHECK(json_object_get(json_object_get(x, "signals"), "conversation") == NULL);
    CHECK(json_object_get(json_object_get(y, "signals"), "conversation") == NULL);
    CHECK(rank_of(out, a) == 0);
    json_decref(out);
    free(a);
    free(b);
}

static void run_all(void)
{
    setup();
    test_by_session();
    test_by_situation();
    test_no_session();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
