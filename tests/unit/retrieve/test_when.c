/*
 * test_when.c - the time a question names (when.c): the windows of the
 * English forms, the expressions that are not times ("may I", "the last
 * day"), and through mn_api_call on a real store: a memory saved with the
 * created_at of the day "last Saturday" means gets the when signal and
 * joins the results though it shares no word with the question; a window
 * crowded with memories only reorders; as_of and created_at are checked,
 * and a refused save stores nothing. A memory whose own words date what it
 * tells ("today", "last Saturday", counted from when it was saved) inside
 * the window gets the other half of the signal, and a long text is read
 * whole.
 */
#include "common.h"

#include "mnemo/api.h"
#include "retrieve/retrieve_internal.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

#define DAY  86400000LL
#define HALF (DAY / 2)

static int64_t at(const char *rfc3339)
{
    int64_t ms = 0;
    if (mn_time_parse(&ms, rfc3339) != 0)
        abort();
    return ms;
}

/* the window of q asked at `now` is [from, to) widened by half a day each side */
static bool window_is(const char *q, const char *now, const char *from, const char *to)
{
    int64_t f = 0, t = 0;
    bool ok = mn_when_window(q, at(now), &f, &t);
    if (!ok || f != at(from) - HALF || t != at(to) + HALF) {
        fprintf(stderr, "%s: got %s [%lld, %lld), want [%lld, %lld)\n", q, ok ? "a window" : "none",
                (long long)f, (long long)t, (long long)(at(from) - HALF),
                (long long)(at(to) + HALF));
        return false;
    }
    return true;
}

static bool no_window(const char *q)
{
    int64_t f, t;
    return !mn_when_window(q, at("2023-03-09T15:47:00Z"), &f, &t);
}

static void test_windows(void)
{
    const char *thu = "2023-03-09T15:47:00Z"; /* a Thursday */
    CHECK(window_is("I received a piece of jewelry last Saturday from whom?", thu,
                    "2023-03-04T00:00:00Z", "2023-03-05T00:00:00Z"));
    CHECK(window_is("what did I cook on Thursday", thu, "2023-03-02T00:00:00Z",
                    "2023-03-03T00:00:00Z")); /* today is Thursday: the one before */
    CHECK(
        window_is("the bug we saw yesterday", thu, "2023-03-08T00:00:00Z", "2023-03-09T00:00:00Z"));
    CHECK(window_is("what did we decide today", thu, "2023-03-09T00:00:00Z", thu));
    CHECK(window_is("three days ago I fixed it", thu, "2023-03-05T00:00:00Z",
                    "2023-03-08T00:00:00Z"));
    CHECK(window_is("2 weeks ago", thu, "2023-02-19T12:00:00Z", "2023-02-27T12:00:00Z"));
    CHECK(window_is("a couple of weeks ago", thu, "2023-02-19T12:00:00Z", "2023-02-27T12:00:00Z"));
    CHECK(window_is("a few days ago", thu, "2023-03-05T00:00:00Z", "2023-03-08T00:00:00Z"));
    CHECK(window_is("in March", thu, "2023-03-01T00:00:00Z", "2023-04-01T00:00:00Z"));
    CHECK(window_is("in May", thu, "2022-05-01T00:00:00Z", "2022-06-01T00:00:00Z"));
    CHECK(window_is("on March 4th", thu, "2023-03-04T00:00:00Z", "2023-03-05T00:00:00Z"));
    CHECK(window_is("the 4 March meeting", thu, "2023-03-04T00:00:00Z", "2023-03-05T00:00:00Z"));
    CHECK(window_is("December 2021", thu, "2021-12-01T00:00:00Z", "2022-01-01T00:00:00Z"));
    CHECK(
        window_is("the deploy of 2023-02-10", thu, "2023-02-10T00:00:00Z", "2023-02-11T00:00:00Z"));
    CHECK(window_is("past 3 days", thu, "2023-03-06T00:00:00Z", thu));
    CHECK(window_is("this month", thu, "2023-02-07T00:00:00Z", thu));
    CHECK(window_is("last week", thu, "2023-02-23T00:00:00Z", "2023-03-07T06:00:00Z"));
    CHECK(window_is("what did we do last weekend", thu, "2023-03-04T00:00:00Z",
                    "2023-03-06T00:00:00Z"));
    /* two times: the window holding both */
    CHECK(window_is("between last Saturday and yesterday", thu, "2023-03-04T00:00:00Z",
                    "2023-03-09T00:00:00Z"));
    /* not times */
    CHECK(no_window("How may I help with the parser?"));
    CHECK(no_window("they march in step"));
    CHECK(no_window("What did April say about the move?"));
    CHECK(no_window("the last day of the sprint"));
    CHECK(no_window("Which trip did I take first, Europe or Thailand?"));
    CHECK(no_window("a few of the tests fail"));
    CHECK(no_window("Saturday is a weekday name"));
    CHECK(no_window(""));
    CHECK(no_window("2023-13-40 is no date"));
}

/* q without its time words (mn_when_strip) is want; want NULL: nothing is taken out */
static bool strips_to(const char *q, const char *want)
{
    mn_buf b = MN_BUF_INIT;
    bool ok = mn_when_strip(q, at("2023-06-01T03:56:00Z"), &b);
    bool same = want ? ok && !strcmp(b.ptr, want) : !ok;
    if (!same)
        fprintf(stderr, "strip '%s': got %s '%s', want '%s'\n", q, ok ? "true" : "false",
                ok ? b.ptr : "", want ? want : "(none)");
    mn_buf_release(&b);
    return same;
}

/* the words of a time counted from now are taken out of the query; dates and the rest stay */
static void test_strip(void)
{
    CHECK(strips_to("What is the order of the three trips I took in the past three months?",
                    "What is the order of the three trips I took in the?"));
    CHECK(strips_to("Who did I go with to the music event last Saturday?",
                    "Who did I go with to the music event?"));
    CHECK(
        strips_to("What milestone did I mention four weeks ago?", "What milestone did I mention?"));
    CHECK(
        strips_to("how many weddings this year and a couple of days ago", "how many weddings and"));
    CHECK(strips_to("what did we decide this morning about the parser",
                    "what did we decide about the parser"));
    /* a date is written the same in what it dates: kept */
    CHECK(strips_to("what did I paint on March 4th, 2023", NULL));
    CHECK(strips_to("notes of 2023-03-04", NULL));
    /* no time; or nothing left but the time */
    CHECK(strips_to("How may I help with the parser?", NULL));
    CHECK(strips_to("the last day of the sprint", NULL));
    CHECK(strips_to("yesterday?", NULL));
}

/*
 * A real small conversation: two sessions of the same week. Asked about
 * the trips of "the past three months", the session about a trip comes
 * first, not the one that says "for three months now" about stamps (the
 * time words are the when signal's, which both sessions share).
 */
static char *say(const char *body, const char *session, const char *created_at)
{
    json_t *args = json_pack("{s:s,s:s,s:s,s:{s:s},s:{s:s,s:s}}", "kind", "episode", "body", body,
                             "created_at", created_at, "context", "situation", created_at,
                             "provenance", "source", "import", "session", session);
    json_t *out = test_call("save", args);
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

static void test_time_words_not_topic(void)
{
    test_ctx_open("when-strip");
    char *stamps = say("I've been collecting stamps for three months now, and I have over 200 "
                       "unique stamps from different countries.",
                       "s1", "2023-05-15T09:54:00Z");
    free(say("Do you know how to store old stamps so they do not fade?", "s1",
             "2023-05-15T09:58:00Z"));
    char *trip = say("I just got back from a solo camping trip to Yosemite and I want to plan "
                     "the next one.",
                     "s2", "2023-05-16T10:00:00Z");
    free(say("Which tent is best for the Eastern Sierra?", "s2", "2023-05-16T10:05:00Z"));
    json_t *out =
        test_call("search", json_pack("{s:s,s:[s],s:s}", "query",
                                      "What trips did I take in the past three months?", "kinds",
                                      "memory", "as_of", "2023-06-01T03:56:00Z"));
    REQUIRE(out);
    int rt = -1, rs = -1;
    const json_t *t = test_find_item(out, trip, &rt), *st = test_find_item(out, stamps, &rs);
    REQUIRE(t);
    if (rt != 0 || (st && rs < rt))
        fprintf(stderr, "stamps ranked %d, the trip %d: %s\n", rs, rt,
                json_dumps(json_object_get(out, "items"), JSON_COMPACT));
    CHECK(rt == 0);
    CHECK(!st || rs > rt);
    CHECK(json_number_value(test_signal(t, "when")) >= 0.5);
    json_decref(out);
    free(stamps);
    free(trip);
    test_ctx_close();
}

/* told: whether text said at `said` dates something inside the window q names, asked at now */
static bool told(const char *text, const char *said, const char *q, const char *now)
{
    int64_t f = 0, t = 0;
    if (!mn_when_window(q, at(now), &f, &t))
        return false;
    return mn_when_told(text, at(said), f, t);
}

static void test_told(void)
{
    const char *thu = "2023-03-09T15:47:00Z", *q = "what did I get last Saturday?";
    const char *sat = "2023-03-04T16:45:00Z";
    CHECK(told("I also got a crystal chandelier from my aunt today", sat, q, thu));
    CHECK(told("we went hiking this morning", sat, q, thu));
    /* said on another day, of that Saturday */
    CHECK(told("Last Saturday my aunt gave me a chandelier", "2023-03-06T09:00:00Z", q, thu));
    CHECK(told("on March 4th I got a chandelier", "2023-03-08T09:00:00Z", q, thu));
    /* said that Saturday, of another day; or of no day */
    CHECK(!told("yesterday my aunt gave me a chandelier", sat, q, thu));
    CHECK(!told("two weeks ago I got a chandelier", sat, q, thu));
    CHECK(!told("a crystal chandelier from my aunt", sat, q, thu));
    CHECK(!told("today I got a chandelier", "2023-03-05T10:00:00Z", q, thu));
    /* a long text is read whole, an expression across the seam of two batches included */
    for (int lead = 80; lead <= 200; lead++) {
        mn_buf b = MN_BUF_INIT;
        for (int i = 0; i < lead; i++)
            mn_buf_puts(&b, "word ");
        mn_buf_puts(&b, "and last Saturday my aunt gave me a chandelier. More words follow.");
        bool ok = told(b.ptr, "2023-03-08T09:00:00Z", q, thu);
        if (!ok)
            fprintf(stderr, "last Saturday after %d words: not read\n", lead);
        CHECK(ok);
        mn_buf_release(&b);
    }
    /* the question itself is read to its 96th word only, as before */
    mn_buf b = MN_BUF_INIT;
    for (int i = 0; i < 120; i++)
        mn_buf_puts(&b, "word ");
    mn_buf_puts(&b, "last Saturday");
    CHECK(no_window(b.ptr));
    mn_buf_release(&b);
}

/* facts: episodes would bring their neighbours along (graph.c), hiding what the window brings */
static char *save(const char *body, const char *created_at)
{
    json_t *args =
        json_pack("{s:s,s:s,s:s}", "kind", "fact", "body", body, "created_at", created_at);
    json_t *out = test_call("save", args);
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

static void test_signal_and_candidates(void)
{
    test_ctx_open("when");
    char *gift =
        save("I also got a stunning crystal chandelier from my aunt today", "2023-03-04T16:45:00Z");
    char *box = save("I bought a jewelry box for my sister at the mall", "2023-02-10T10:00:00Z");
    const char *q = "I received a piece of jewelry last Saturday from whom?";

    json_t *out = test_call("search", json_pack("{s:s,s:[s],s:s}", "query", q, "kinds", "memory",
                                                "as_of", "2023-03-09T15:47:00Z"));
    REQUIRE(out);
    int rg = -1, rb = -1;
    const json_t *g = test_find_item(out, gift, &rg), *b = test_find_item(out, box, &rb);
    REQUIRE(g && b);
    CHECK(json_number_value(test_signal(g, "when")) == 1.0);
    CHECK(json_number_value(test_signal(g, "lexical")) == 0); /* found by its day alone */
    CHECK(json_number_value(test_signal(b, "when")) == 0);
    json_decref(out);

    /* the same question without a time: no when signal, and no word brings the gift */
    out = test_call("search", json_pack("{s:s,s:[s],s:s}", "query",
                                        "I received a piece of jewelry from whom?", "kinds",
                                        "memory", "as_of", "2023-03-09T15:47:00Z"));
    REQUIRE(out);
    CHECK(test_find_item(out, gift, &rg) == NULL);
    b = test_find_item(out, box, &rb);
    REQUIRE(b);
    CHECK(test_signal(b, "when") == NULL);
    json_decref(out);

    /* asked a year later, "last Saturday" is another day */
    out = test_call("search", json_pack("{s:s,s:[s],s:s}", "query", q, "kinds", "memory", "as_of",
                                        "2024-03-09T15:47:00Z"));
    REQUIRE(out);
    CHECK(test_find_item(out, gift, &rg) == NULL);
    json_decref(out);

    /* a crowded day: 60 more memories that Saturday; the window only reorders */
    for (int i = 0; i < 60; i++) {
        char body[64];
        snprintf(body, sizeof(body), "note %d about the garden fence", i);
        free(save(body, "2023-03-04T09:00:00Z"));
    }
    out = test_call("search", json_pack("{s:s,s:[s],s:s}", "query", q, "kinds", "memory", "as_of",
                                        "2023-03-09T15:47:00Z"));
    REQUIRE(out);
    CHECK(test_find_item(out, gift, &rg) == NULL);
    CHECK(test_find_item(out, box, &rb) != NULL);
    json_decref(out);
    free(gift);
    free(box);
    test_ctx_close();
}

/*
 * Of two memories of that Saturday, the one that tells of that day
 * ("today") comes before the one only saved then, though its words match
 * less; one saved two days later of "last Saturday" has the signal too.
 */
static void test_told_ranks(void)
{
    test_ctx_open("when-told");
    char *fair = save("received jewelry at the fair, nothing for me", "2023-03-04T10:00:00Z");
    char *gift = save("today my uncle gave me his old jewelry", "2023-03-04T18:00:00Z");
    char *later = save("last Saturday my cousin gave me jewelry", "2023-03-06T09:00:00Z");
    char *old = save("jewelry received from the market stall", "2023-02-01T10:00:00Z");
    json_t *out =
        test_call("search", json_pack("{s:s,s:[s],s:s}", "query",
                                      "I received a piece of jewelry last Saturday from "
                                      "whom?",
                                      "kinds", "memory", "as_of", "2023-03-09T15:47:00Z"));
    REQUIRE(out);
    int rf = -1, rg = -1, rl = -1, ro = -1;
    const json_t *f = test_find_item(out, fair, &rf), *g = test_find_item(out, gift, &rg),
                 *l = test_find_item(out, later, &rl), *o = test_find_item(out, old, &ro);
    REQUIRE(f && g && l && o);
    CHECK(json_number_value(test_signal(f, "when")) == 0.5); /* saved then */
    CHECK(json_number_value(test_signal(g, "when")) == 1.0); /* saved then, of then */
    CHECK(json_number_value(test_signal(l, "when")) == 0.5); /* of then */
    CHECK(json_number_value(test_signal(o, "when")) == 0);
    CHECK(json_number_value(test_signal(f, "lexical")) >
          json_number_value(test_signal(g, "lexical")));
    CHECK(rg < rf);
    CHECK(rl < ro);
    json_decref(out);
    free(fair);
    free(gift);
    free(later);
    free(old);
    test_ctx_close();
}

static void test_validation(void)
{
    test_ctx_open("when-bad");
    json_t *out = NULL;
    json_t *list = test_call("list", J("{}"));
    REQUIRE(list);
    size_t before = json_array_size(json_object_get(list, "memories"));
    json_decref(list);

    /* a created_at in the future, or not a date-time: refused, nothing stored */
    json_t *args = J("{'body':'from the future','created_at':'2099-01-01T00:00:00Z'}");
    CHECK(mn_api_call(test_ctx, "save", args, &out) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "future") != NULL);
    json_decref(args);
    args = J("{'body':'when?','created_at':'last tuesday'}");
    CHECK(mn_api_call(test_ctx, "save", args, &out) != 0);
    CHECK(strstr(mn_error_last(), "created_at") != NULL);
    json_decref(args);
    list = test_call("list", J("{}"));
    REQUIRE(list);
    CHECK(json_array_size(json_object_get(list, "memories")) == before);
    json_decref(list);

    /* as_of must be a moment */
    args = J("{'query':'anything','as_of':'soon'}");
    CHECK(mn_api_call(test_ctx, "search", args, &out) != 0);
    CHECK(strstr(mn_error_last(), "as_of") != NULL);
    json_decref(args);
    args = J("{'query':'anything','as_of':'2023-03-09'}");
    CHECK(mn_api_call(test_ctx, "context", args, &out) != 0);
    json_decref(args);
    test_ctx_close();
}

static void run_all(void)
{
    test_windows();
    test_strip();
    test_told();
    test_time_words_not_topic();
    test_signal_and_candidates();
    test_told_ranks();
    test_validation();
}

MN_TEST_MAIN(MN_TEST(run_all))
