/*
 * test_id.c - ULIDs: 26 Crockford base32 characters, the first 10 encode
 * the millisecond time, strictly increasing within a process (also within
 * one millisecond and under a frozen clock), and mn_id_is_prefix.
 */
#include "common.h"
#include "util/util.h"
#include "test.h"

static const char crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

static bool all_crockford(const char *s)
{
    for (; *s; s++)
        if (!strchr(crockford, *s))
            return false;
    return true;
}

/* The 48-bit millisecond time in the first 10 characters. */
static int64_t id_time(const char *id)
{
    int64_t v = 0;
    for (int i = 0; i < 10; i++)
        v = v * 32 + (int64_t)(strchr(crockford, id[i]) - crockford);
    return v;
}

static void test_shape(void)
{
    char id[MN_ID_LEN + 1];
    memset(id, 'x', sizeof(id));
    mn_id_new(id);
    CHECK(strlen(id) == 26);
    CHECK(MN_ID_LEN == 26);
    CHECK(all_crockford(id));
    /* 128 bits in 130: the first character holds only 3 bits */
    CHECK(id[0] >= '0' && id[0] <= '7');
    CHECK(mn_id_is_prefix(id));
    for (const char *p = id; *p; p++)
        CHECK(strchr("ILOU", *p) == NULL);
}

static void test_time_part(void)
{
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
    char id[MN_ID_LEN + 1];
    mn_id_new(id);
    /* ids never go back in time, so this holds unless an earlier test ran later */
    CHECK(id_time(id) >= 1795239445123LL);
    unsetenv("MNEMO_NOW_MS");
    char now_id[MN_ID_LEN + 1];
    mn_id_new(now_id);
    /* after the fake future clock, ids keep increasing (they keep the last time) */
    CHECK(strcmp(now_id, id) > 0);
}

static void test_increasing(void)
{
    enum { N = 100000 };
    char prev[MN_ID_LEN + 1], cur[MN_ID_LEN + 1];
    mn_id_new(prev);
    bool ok = true, shape = true;
    for (int i = 0; i < N; i++) {
        mn_id_new(cur);
        if (strcmp(cur, prev) <= 0) {
            fprintf(stderr, "id %d not increasing: %s after %s\n", i, cur, prev);
            ok = false;
            break;
        }
        if (strlen(cur) != MN_ID_LEN || !all_crockford(cur))
            shape = false;
        memcpy(prev, cur, sizeof(cur));
    }
    CHECK(ok);
    CHECK(shape);
}

static void test_frozen_clock(void)
{
    /* every id made at one fixed time (the clock of a test) is still unique
     * and ordered, and keeps the time it was given */
    setenv("MNEMO_NOW_MS", "4102444800000", 1); /* 2100-01-01 */
    char a[MN_ID_LEN + 1], b[MN_ID_LEN + 1];
    mn_id_new(a);
    bool ok = true;
    for (int i = 0; i < 1000; i++) {
        mn_id_new(b);
        if (strcmp(b, a) <= 0 || id_time(b) != 4102444800000LL)
            ok = false;
        memcpy(a, b, sizeof(a));
    }
    CHECK(ok);
    CHECK(id_time(a) == 4102444800000LL);
    unsetenv("MNEMO_NOW_MS");
}

static void test_is_prefix(void)
{
    CHECK(mn_id_is_prefix("0"));
    CHECK(mn_id_is_prefix("01JD"));
    CHECK(mn_id_is_prefix("01jd")); /* Crockford base32 is case-blind */
    CHECK(mn_id_is_prefix("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
    CHECK(!mn_id_is_prefix(""));
    CHECK(!mn_id_is_prefix("01ARZ3NDEKTSV4RRFFQ69G5FAVX")); /* 27 characters */
    CHECK(!mn_id_is_prefix("01I"));                         /* I, L, O, U are not Crockford */
    CHECK(!mn_id_is_prefix("01L"));
    CHECK(!mn_id_is_prefix("01O"));
    CHECK(!mn_id_is_prefix("01U"));
    CHECK(!mn_id_is_prefix("01-A"));
    CHECK(!mn_id_is_prefix("01 A"));
    CHECK(!mn_id_is_prefix("file:src/a.c"));
    CHECK(!mn_id_is_prefix("01\xc3\xa9"));
}

MN_TEST_MAIN(MN_TEST(test_shape), MN_TEST(test_time_part), MN_TEST(test_increasing),
             MN_TEST(test_frozen_clock), MN_TEST(test_is_prefix))
