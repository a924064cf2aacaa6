/*
 * test_map.c - the string-keyed hash map: set/get/has/del, overwrite
 * returning the old value, keys copied by the map, iteration visiting each
 * live key once, 100k keys, and deletions whose tombstones are reused so
 * that churn does not grow the table without bound.
 */
#include "common.h"
#include "util/map.h"
#include "test.h"

#define V(i) ((void *)(uintptr_t)(i))

static void test_basic(void)
{
    mn_map m = MN_MAP_INIT;
    CHECK(mn_map_get(&m, "a") == NULL);
    CHECK(!mn_map_has(&m, "a"));
    CHECK(mn_map_del(&m, "a") == NULL);

    CHECK(mn_map_set(&m, "a", V(1)) == NULL);
    CHECK(mn_map_set(&m, "b", V(2)) == NULL);
    CHECK(mn_map_get(&m, "a") == V(1));
    CHECK(mn_map_get(&m, "b") == V(2));
    CHECK(mn_map_has(&m, "a"));
    CHECK(!mn_map_has(&m, "c"));
    CHECK(m.len == 2);

    /* overwrite returns the previous value and keeps one entry */
    CHECK(mn_map_set(&m, "a", V(10)) == V(1));
    CHECK(mn_map_get(&m, "a") == V(10));
    CHECK(m.len == 2);

    /* a NULL value is stored: has() tells it from a missing key */
    CHECK(mn_map_set(&m, "null", NULL) == NULL);
    CHECK(mn_map_has(&m, "null"));
    CHECK(mn_map_get(&m, "null") == NULL);

    /* the empty string is a key like any other */
    mn_map_set(&m, "", V(99));
    CHECK(mn_map_get(&m, "") == V(99));

    CHECK(mn_map_del(&m, "a") == V(10));
    CHECK(!mn_map_has(&m, "a"));
    CHECK(mn_map_get(&m, "a") == NULL);
    CHECK(mn_map_del(&m, "a") == NULL);
    CHECK(mn_map_get(&m, "b") == V(2));
    CHECK(m.len == 3);

    /* re-adding a deleted key */
    CHECK(mn_map_set(&m, "a", V(3)) == NULL);
    CHECK(mn_map_get(&m, "a") == V(3));
    mn_map_release(&m);
    CHECK(m.len == 0 && m.cap == 0 && m.slots == NULL);
    /* usable after release */
    mn_map_set(&m, "x", V(1));
    CHECK(mn_map_get(&m, "x") == V(1));
    mn_map_release(&m);
}

static void test_key_is_copied(void)
{
    mn_map m = MN_MAP_INIT;
    char key[16];
    snprintf(key, sizeof(key), "%s", "mutable");
    mn_map_set(&m, key, V(7));
    key[0] = 'X';
    CHECK(mn_map_get(&m, "mutable") == V(7));
    CHECK(mn_map_get(&m, key) == NULL);
    size_t pos = 0;
    const char *k;
    void *v;
    REQUIRE(mn_map_next(&m, &pos, &k, &v));
    CHECK(k != key);
    CHECK_STR(k, "mutable");
    mn_map_release(&m);
}

static void test_iterate(void)
{
    mn_map m = MN_MAP_INIT;
    enum { N = 500 };
    char key[32];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        mn_map_set(&m, key, V(i + 1));
    }
    for (int i = 0; i < N; i += 3) {
        snprintf(key, sizeof(key), "key-%d", i);
        CHECK(mn_map_del(&m, key) == V(i + 1));
    }
    int seen[N] = {0};
    size_t pos = 0, count = 0;
    const char *k;
    void *v;
    while (mn_map_next(&m, &pos, &k, &v)) {
        int i = (int)(uintptr_t)v - 1;
        REQUIRE(i >= 0 && i < N);
        snprintf(key, sizeof(key), "key-%d", i);
        CHECK_STR(k, key);
        seen[i]++;
        count++;
    }
    CHECK(count == m.len);
    bool ok = true;
    for (int i = 0; i < N; i++)
        if (seen[i] != (i % 3 == 0 ? 0 : 1))
            ok = false;
    CHECK(ok);

    /* value may be NULL when only keys are wanted */
    pos = 0;
    count = 0;
    while (mn_map_next(&m, &pos, &k, NULL))
        count++;
    CHECK(count == m.len);
    mn_map_release(&m);

    /* an empty map iterates nothing */
    pos = 0;
    CHECK(!mn_map_next(&m, &pos, &k, &v));
}

static void test_100k(void)
{
    mn_map m = MN_MAP_INIT;
    enum { N = 100000 };
    char key[32];
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        mn_map_set(&m, key, V(i + 1));
    }
    CHECK(m.len == N);
    CHECK(m.cap >= N);
    CHECK((m.cap & (m.cap - 1)) == 0); /* a power of two: probing masks with cap - 1 */
    CHECK(m.used * 10 < m.cap * 7);
    bool ok = true;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        if (mn_map_get(&m, key) != V(i + 1))
            ok = false;
    }
    CHECK(ok);
    CHECK(!mn_map_has(&m, "k100000"));
    CHECK(!mn_map_has(&m, "k-1"));
    for (int i = 0; i < N; i += 2) {
        snprintf(key, sizeof(key), "k%d", i);
        mn_map_del(&m, key);
    }
    CHECK(m.len == N / 2);
    ok = true;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        if (mn_map_has(&m, key) != (i % 2 == 1))
            ok = false;
    }
    CHECK(ok);
    mn_map_release(&m);
}

static void test_tombstone_reuse(void)
{
    mn_map m = MN_MAP_INIT;
    char key[32];
    for (int i = 0; i < 8; i++) {
        snprintf(key, sizeof(key), "stay%d", i);
        mn_map_set(&m, key, V(i + 1));
    }
    /* deleting and re-adding the same key reuses its slot */
    size_t used = m.used, cap = m.cap;
    for (int i = 0; i < 1000; i++) {
        mn_map_set(&m, "flip", V(1));
        mn_map_del(&m, "flip");
    }
    CHECK(m.cap == cap);
    CHECK(m.used <= used + 1);

    /* churn through many distinct short-lived keys: the table must not
     * keep doubling for tombstones while only 8 keys are live */
    for (int i = 0; i < 100000; i++) {
        snprintf(key, sizeof(key), "tmp%d", i);
        mn_map_set(&m, key, V(i + 1));
        if (mn_map_get(&m, key) != V(i + 1)) {
            CHECK(!"lookup after set failed");
            break;
        }
        mn_map_del(&m, key);
    }
    CHECK(m.len == 8);
    CHECK(m.cap <= 256);
    for (int i = 0; i < 8; i++) {
        snprintf(key, sizeof(key), "stay%d", i);
        CHECK(mn_map_get(&m, key) == V(i + 1));
    }
    mn_map_release(&m);
}

MN_TEST_MAIN(MN_TEST(test_basic), MN_TEST(test_key_is_copied), MN_TEST(test_iterate),
             MN_TEST(test_100k), MN_TEST(test_tombstone_reuse))
