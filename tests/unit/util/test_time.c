/*
 * test_time.c - RFC 3339 formatting and parsing, relative ages against a
 * fixed clock (MNEMO_NOW_MS), and the refusal of malformed times.
 *
 * Expected millisecond values were computed independently (Python's
 * datetime) so the tests do not just echo the implementation.
 */
#include "common.h"
#include "util/util.h"
#include "test.h"

#define NOW 1795239445123LL /* 2026-11-21T05:37:25.123Z */

static void test_format_known(void)
{
    char t[32];
    mn_time_format(t, 0);
    CHECK_STR(t, "1970-01-01T00:00:00.000Z");
    mn_time_format(t, NOW);
    CHECK_STR(t, "2026-11-21T05:37:25.123Z");
    CHECK(strlen(t) == 24);
    mn_time_format(t, -1);
    CHECK_STR(t, "1969-12-31T23:59:59.999Z");
    mn_time_format(t, -1000);
    CHECK_STR(t, "1969-12-31T23:59:59.000Z");
    mn_time_format(t, -1001);
    CHECK_STR(t, "1969-12-31T23:59:58.999Z");
    mn_time_format(t, 951825600000LL);
    CHECK_STR(t, "2000-02-29T12:00:00.000Z");
    mn_time_format(t, 253402300799999LL);
    CHECK_STR(t, "9999-12-31T23:59:59.999Z");
    mn_time_format(t, -2208988800000LL);
    CHECK_STR(t, "1900-01-01T00:00:00.000Z");
}

static void test_round_trip(void)
{
    static const int64_t values[] = {0,
                                     1,
                                     -1,
                                     999,
                                     1000,
                                     -999,
                                     -1000,
                                     -1001,
                                     NOW,
                                     951825600000LL,
                                     253402300799999LL,
                                     -2208988800000LL,
                                     -2208988800001LL,
                                     86399999,
                                     1700000000000LL};
    for (size_t i = 0; i < MN_ARRAY_SIZE(values); i++) {
        char t[32];
        int64_t back = 12345;
        mn_time_format(t, values[i]);
        CHECK_OK(mn_time_parse(&back, t));
        if (back != values[i])
            fprintf(stderr, "round trip of %lld via %s gave %lld\n", (long long)values[i], t,
                    (long long)back);
        CHECK(back == values[i]);
    }
    /* every millisecond of one second, and steps across a year */
    bool ok = true;
    for (int64_t ms = NOW - 1500; ms < NOW + 1500 && ok; ms++) {
        char t[32];
        int64_t back;
        mn_time_format(t, ms);
        ok = mn_time_parse(&back, t) == 0 && back == ms;
    }
    for (int64_t ms = -86400000LL * 400; ms < 86400000LL * 400 && ok; ms += 86400000LL / 7 + 13) {
        char t[32];
        int64_t back;
        mn_time_format(t, ms);
        ok = mn_time_parse(&back, t) == 0 && back == ms;
    }
    CHECK(ok);
}

static int64_t parse_ok(const char *s)
{
    int64_t v = INT64_MIN;
    int rc = mn_time_parse(&v, s);
    if (rc != 0)
        fprintf(stderr, "parse '%s' failed: %s\n", s, mn_error_last());
    return v;
}

static void test_parse_variants(void)
{
    CHECK(parse_ok("2026-11-21") == 1795219200000LL);
    CHECK(parse_ok("2026-11-21T05:37:25Z") == NOW - 123);
    CHECK(parse_ok("2026-11-21T05:37:25.123Z") == NOW);
    CHECK(parse_ok("2026-11-21t05:37:25.123z") == NOW);
    CHECK(parse_ok("2026-11-21 05:37:25.123Z") == NOW);
    /* fractions: fewer digits scale up, more digits are cut to ms */
    CHECK(parse_ok("2026-11-21T05:37:25.1Z") == NOW - 23);
    CHECK(parse_ok("2026-11-21T05:37:25.12Z") == NOW - 3);
    CHECK(parse_ok("2026-11-21T05:37:25.123999Z") == NOW);
    CHECK(parse_ok("2026-11-21T05:37:25.000000001Z") == NOW - 123);
    /* offsets: local time minus the offset is UTC */
    CHECK(parse_ok("2026-11-21T07:37:25.123+02:00") == NOW);
    CHECK(parse_ok("2026-11-21T00:07:25.123-05:30") == NOW);
    CHECK(parse_ok("2026-11-21T05:37:25.123+00:00") == NOW);
    CHECK(parse_ok("2026-11-21T05:37:25.123-00:00") == NOW);
    /* an offset that crosses midnight and a year */
    CHECK(parse_ok("2026-12-31T23:30:00+01:00") == parse_ok("2026-12-31T22:30:00Z"));
    CHECK(parse_ok("2027-01-01T00:30:00+01:00") == parse_ok("2026-12-31T23:30:00Z"));
    /* before the epoch */
    CHECK(parse_ok("1969-12-31T23:59:59.999Z") == -1);
    CHECK(parse_ok("1970-01-01T00:00:00Z") == 0);
    CHECK(parse_ok("1970-01-01T01:00:00+01:00") == 0);
    /* leap day */
    CHECK(parse_ok("2000-02-29T12:00:00Z") == 951825600000LL);
}

static void test_relative(void)
{
    char now[32];
    snprintf(now, sizeof(now), "%lld", (long long)NOW);
    setenv("MNEMO_NOW_MS", now, 1);
    CHECK(mn_time_now_ms() == NOW);
    CHECK(parse_ok("90s") == NOW - 90 * 1000LL);
    CHECK(parse_ok("15m") == NOW - 15 * 60000LL);
    CHECK(parse_ok("12h") == NOW - 12 * 3600000LL);
    CHECK(parse_ok("7d") == NOW - 7 * 86400000LL);
    CHECK(parse_ok("2w") == NOW - 14 * 86400000LL);
    CHECK(parse_ok("0d") == NOW);
    CHECK(parse_ok("100000d") == NOW - 100000 * 86400000LL);

    /* the clock follows the variable */
    setenv("MNEMO_NOW_MS", "86400000", 1);
    CHECK(parse_ok("1d") == 0);
    CHECK(parse_ok("2d") == -86400000LL);

    /* a bad override is ignored: the real clock is used */
    setenv("MNEMO_NOW_MS", "soon", 1);
    int64_t real = mn_time_now_ms();
    CHECK(real > 1700000000000LL);
    unsetenv("MNEMO_NOW_MS");
    int64_t real2 = mn_time_now_ms();
    CHECK(real2 >= real && real2 - real < 60000);
}

static void test_invalid(void)
{
    static const char *const bad[] = {
        "",
        "now",
        "7",
        "d",
        "7x",
        "7dd",
        "-7d",
        "+7d",
        "7 d",
        " 7d",
        "100001d",
        "99999999999999999999d",
        "2026",
        "2026-11",
        "26-11-21",
        "2026-1-21",
        "2026/11/21",
        "2026-13-01",
        "2026-00-10",
        "2026-11-00",
        "2026-11-32",
        "2026-02-30",
        "2025-02-29",
        "2026-04-31",
        "2026-11-21x",
        "2026-11-21T",
        "2026-11-21T05:37:25",
        "2026-11-21T05:37Z",
        "2026-11-21T5:37:25Z",
        "2026-11-21T24:00:00Z",
        "2026-11-21T05:60:00Z",
        "2026-11-21T05:37:61Z",
        "2026-11-21T05:37:25.Z",
        "2026-11-21T05:37:25.123",
        "2026-11-21T05:37:25+0200",
        "2026-11-21T05:37:25+02",
        "2026-11-21T05:37:25+24:00",
        "2026-11-21T05:37:25+02:60",
        "2026-11-21T05:37:25Z ",
        "2026-11-21T05:37:25ZZ",
        "2026-11-21T05:37:25.123Zjunk",
    };
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        int64_t v = 42;
        mn_error_clear();
        int rc = mn_time_parse(&v, bad[i]);
        if (rc != MN_EINVAL)
            fprintf(stderr, "'%s' was accepted as %lld\n", bad[i], (long long)v);
        CHECK(rc == MN_EINVAL);
        CHECK(mn_error_last_code() == MN_EINVAL);
        CHECK(strstr(mn_error_last(), "invalid time") != NULL);
    }
    /* the message quotes the input */
    int64_t v;
    CHECK(mn_time_parse(&v, "2026-13-01") == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "'2026-13-01'") != NULL);
    unsetenv("MNEMO_NOW_MS");
}

static void test_mono(void)
{
    uint64_t a = mn_time_mono_ns(), b = mn_time_mono_ns();
    CHECK(b >= a);
    CHECK(a > 0);
}

MN_TEST_MAIN(MN_TEST(test_format_known), MN_TEST(test_round_trip), MN_TEST(test_parse_variants),
             MN_TEST(test_relative), MN_TEST(test_invalid), MN_TEST(test_mono))
