/*
 * test_text.c - strict number parsing (bounds, garbage, overflow) and the
 * UTF-8 checks: well-formed sequences of every length, and the malformed
 * ones a validator must refuse (overlongs, surrogates, beyond U+10FFFF,
 * stray continuation bytes, truncated sequences, NUL).
 */
#include "common.h"
#include "util/util.h"
#include "test.h"

static void test_int64(void)
{
    int64_t v = -7;
    CHECK_OK(mn_parse_int64(&v, "42", 0, 100, "limit"));
    CHECK(v == 42);
    CHECK_OK(mn_parse_int64(&v, "-5", -10, 10, "n"));
    CHECK(v == -5);
    CHECK_OK(mn_parse_int64(&v, "0", 0, 0, "n"));
    CHECK(v == 0);
    CHECK_OK(mn_parse_int64(&v, "100", 0, 100, "n")); /* bounds are inclusive */
    CHECK(v == 100);
    CHECK_OK(mn_parse_int64(&v, "007", 0, 100, "n"));
    CHECK(v == 7);
    CHECK_OK(mn_parse_int64(&v, "9223372036854775807", 0, INT64_MAX, "n"));
    CHECK(v == INT64_MAX);
    CHECK_OK(mn_parse_int64(&v, "-9223372036854775808", INT64_MIN, 0, "n"));
    CHECK(v == INT64_MIN);

    static const char *const bad[] = {"",
                                      " ",
                                      "abc",
                                      "12abc",
                                      "1.5",
                                      "1e3",
                                      "0x10",
                                      "101",
                                      "-1",
                                      "--1",
                                      "1 ",
                                      " 1",
                                      "\t1",
                                      "+-1",
                                      "1,000",
                                      "9223372036854775808",
                                      "-9223372036854775809",
                                      "99999999999999999999999"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        v = 12345;
        mn_error_clear();
        int rc = mn_parse_int64(&v, bad[i], 0, 100, "memory.excerpt_cap");
        if (rc != MN_EINVAL)
            fprintf(stderr, "int '%s' accepted\n", bad[i]);
        CHECK(rc == MN_EINVAL);
        CHECK(v == 12345); /* untouched on failure */
        CHECK(strstr(mn_error_last(), "memory.excerpt_cap") != NULL);
    }
    CHECK(mn_parse_int64(&v, "7", 0, 5, "n") == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "from 0 to 5") != NULL);
    CHECK(strstr(mn_error_last(), "'7'") != NULL);
}

static void test_double(void)
{
    double d = -1;
    CHECK_OK(mn_parse_double(&d, "0.5", 0, 1, "ratio"));
    CHECK(d == 0.5);
    CHECK_OK(mn_parse_double(&d, "1", 0, 1, "ratio"));
    CHECK(d == 1.0);
    CHECK_OK(mn_parse_double(&d, "0", 0, 1, "ratio"));
    CHECK(d == 0.0);
    CHECK_OK(mn_parse_double(&d, "1e-3", 0, 1, "ratio"));
    CHECK(d == 0.001);
    CHECK_OK(mn_parse_double(&d, "-2.25", -3, 0, "x"));
    CHECK(d == -2.25);
    CHECK_OK(mn_parse_double(&d, ".25", 0, 1, "x"));
    CHECK(d == 0.25);

    static const char *const bad[] = {"",     "abc", "0.5x", "1.0000001", "-0.1",  "nan",
                                      "NaN",  "inf", "-inf", "infinity",  "1e999", " 0.5",
                                      "0.5 ", "0,5", ".",    "e5",        "--1"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        d = 42;
        mn_error_clear();
        int rc = mn_parse_double(&d, bad[i], 0, 1, "memory.review_threshold");
        if (rc != MN_EINVAL)
            fprintf(stderr, "double '%s' accepted\n", bad[i]);
        CHECK(rc == MN_EINVAL);
        CHECK(d == 42);
        CHECK(strstr(mn_error_last(), "memory.review_threshold") != NULL);
    }
}

static bool valid(const char *s)
{
    return mn_utf8_valid(s, strlen(s));
}

static void test_utf8_valid(void)
{
    CHECK(mn_utf8_valid("", 0));
    CHECK(valid("plain ascii\t\n"));
    CHECK(valid("\xc2\x80"));         /* U+0080, smallest 2-byte */
    CHECK(valid("caf\xc3\xa9"));      /* é */
    CHECK(valid("\xdf\xbf"));         /* U+07FF */
    CHECK(valid("\xe0\xa0\x80"));     /* U+0800, smallest 3-byte */
    CHECK(valid("\xe2\x82\xac"));     /* € */
    CHECK(valid("\xed\x9f\xbf"));     /* U+D7FF, just below the surrogates */
    CHECK(valid("\xee\x80\x80"));     /* U+E000, just above them */
    CHECK(valid("\xef\xbf\xbf"));     /* U+FFFF */
    CHECK(valid("\xf0\x90\x80\x80")); /* U+10000, smallest 4-byte */
    CHECK(valid("\xf0\x9f\x98\x80")); /* an emoji */
    CHECK(valid("\xf4\x8f\xbf\xbf")); /* U+10FFFF, the last code point */
    CHECK(valid("a\xc3\xa9z\xe2\x82\xac\xf0\x9f\x98\x80!"));

    /* overlong encodings */
    CHECK(!valid("\xc0\x80"));
    CHECK(!valid("\xc1\xbf"));
    CHECK(!valid("\xe0\x80\x80"));
    CHECK(!valid("\xe0\x9f\xbf"));
    CHECK(!valid("\xf0\x80\x80\x80"));
    CHECK(!valid("\xf0\x8f\xbf\xbf"));
    /* UTF-16 surrogates */
    CHECK(!valid("\xed\xa0\x80"));
    CHECK(!valid("\xed\xbf\xbf"));
    CHECK(!valid("\xed\xa0\xbd\xed\xb8\x80")); /* a surrogate pair in CESU-8 */
    /* beyond U+10FFFF, and bytes that never occur */
    CHECK(!valid("\xf4\x90\x80\x80"));
    CHECK(!valid("\xf5\x80\x80\x80"));
    CHECK(!valid("\xf8\x88\x80\x80\x80"));
    CHECK(!valid("\xfe"));
    CHECK(!valid("\xff"));
    /* stray continuation bytes and bad continuations */
    CHECK(!valid("\x80"));
    CHECK(!valid("a\xbf"));
    CHECK(!valid("\xc3\x28"));
    CHECK(!valid("\xe2\x28\xa1"));
    CHECK(!valid("\xe2\x82\x28"));
    CHECK(!valid("\xf0\x9f\x98\x28"));
    /* truncated sequences, at the end of the input */
    CHECK(!valid("\xc3"));
    CHECK(!valid("\xe2\x82"));
    CHECK(!valid("\xf0\x9f\x98"));
    CHECK(!valid("ok\xf0"));
    /* a length that cuts a valid sequence */
    CHECK(!mn_utf8_valid("\xe2\x82\xac", 2));
    CHECK(mn_utf8_valid("\xe2\x82\xac", 3));
    /* NUL is refused inside the given length */
    CHECK(!mn_utf8_valid("a\0b", 3));
    CHECK(mn_utf8_valid("a\0b", 1));
}

static void test_utf8_len_floor(void)
{
    const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"; /* a é € 😀: 1+2+3+4 bytes */
    size_t n = strlen(s);
    CHECK(n == 10);
    CHECK(mn_utf8_len(s, n) == 4);
    CHECK(mn_utf8_len("", 0) == 0);

    CHECK(mn_utf8_floor(s, n, 100) == n);
    CHECK(mn_utf8_floor(s, n, 10) == 10);
    CHECK(mn_utf8_floor(s, n, 9) == 6); /* inside the emoji: back to its start */
    CHECK(mn_utf8_floor(s, n, 8) == 6);
    CHECK(mn_utf8_floor(s, n, 7) == 6);
    CHECK(mn_utf8_floor(s, n, 6) == 6);
    CHECK(mn_utf8_floor(s, n, 5) == 3); /* inside the euro sign */
    CHECK(mn_utf8_floor(s, n, 4) == 3);
    CHECK(mn_utf8_floor(s, n, 3) == 3);
    CHECK(mn_utf8_floor(s, n, 2) == 1); /* inside é */
    CHECK(mn_utf8_floor(s, n, 1) == 1);
    CHECK(mn_utf8_floor(s, n, 0) == 0);
    /* every floor ends on a boundary, so the prefix is valid UTF-8 */
    for (size_t m = 0; m <= n; m++)
        CHECK(mn_utf8_valid(s, mn_utf8_floor(s, n, m)));
}

/* mn_parse_finite: any finite number; NaN and the infinities strtod reads are refused */
static void test_finite(void)
{
    double d = -1;
    CHECK_OK(mn_parse_finite(&d, "1e300", "x"));
    CHECK(d == 1e300);
    CHECK_OK(mn_parse_finite(&d, "-0.5", "x"));
    CHECK(d == -0.5);
    static const char *const bad[] = {"nan", "NaN",   "-nan",   "nan(1)", "inf", "-inf", "Infinity",
                                      "INF", "1e999", "-1e999", "",       " 1",  "1 ",   "0.5x"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        d = 42;
        int rc = mn_parse_finite(&d, bad[i], "option --confidence");
        if (rc != MN_EINVAL)
            fprintf(stderr, "finite '%s' accepted\n", bad[i]);
        CHECK(rc == MN_EINVAL && d == 42);
        CHECK(strstr(mn_error_last(), "option --confidence must be a finite number") != NULL);
    }
    /* the bounded parser refuses them too, whatever its bounds */
    CHECK(mn_parse_double(&d, "inf", -1e308, 1e308, "x") == MN_EINVAL);
    CHECK(mn_parse_double(&d, "nan", 0, 1, "x") == MN_EINVAL);
}

static char *escaped(const char *s, size_t len, bool multiline)
{
    mn_buf b = MN_BUF_INIT;
    mn_text_escape(&b, s, len, multiline);
    CHECK(mn_text_needs_escape(s, len, multiline) == (b.len != len || memcmp(b.ptr, s, len) != 0));
    return mn_buf_detach(&b);
}

/* mn_text_escape: what a terminal would act on is made visible, nothing else changes */
static void test_escape(void)
{
    static const struct {
        const char *in;
        size_t len; /* 0: strlen */
        bool multiline;
        const char *want;
    } cases[] = {
        {"plain text, caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, false,
         "plain text, caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"a\\b C:\\x", 0, false, "a\\b C:\\x"}, /* backslashes are not doubled */
        {"red \x1b[31mRED\x1b[0m", 0, false, "red \\x1b[31mRED\\x1b[0m"},
        {"title\x1b]0;owned\x07", 0, false, "title\\x1b]0;owned\\x07"},
        {"two\nlines\tand\rcr", 0, false, "two\\nlines\\tand\\rcr"},
        {"two\nlines\tand\rcr", 0, true, "two\nlines\tand\\rcr"},
        {"del\x7f bell\x07 bs\x08", 0, true, "del\\x7f bell\\x07 bs\\x08"},
        /* C1 in UTF-8: U+009B (CSI), U+0085 (NEL), U+0080; U+00A0 is no control */
        {"csi\xc2\x9b"
         "2J nel\xc2\x85 pad\xc2\x80 nbsp\xc2\xa0",
         0, false, "csi\\u009b2J nel\\u0085 pad\\u0080 nbsp\xc2\xa0"},
        /* bytes outside UTF-8: a lone CSI byte, a cut sequence, an overlong '/', a surrogate */
        {"lone\x9b[2J cut\xe2\x82 over\xc0\xaf sur\xed\xa0\x80", 0, false,
         "lone\\x9b[2J cut\\xe2\\x82 over\\xc0\\xaf sur\\xed\\xa0\\x80"},
        {"nul\0byte", 8, false, "nul\\x00byte"},
        {"", 0, false, ""},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
        char *got = escaped(cases[i].in, len, cases[i].multiline);
        CHECK_STR(got, cases[i].want);
        free(got);
    }
}

MN_TEST_MAIN(MN_TEST(test_int64), MN_TEST(test_double), MN_TEST(test_utf8_valid),
             MN_TEST(test_utf8_len_floor), MN_TEST(test_finite), MN_TEST(test_escape))
