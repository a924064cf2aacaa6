/*
 * test_arena.c - the bump allocator: many allocations keep their content,
 * every pointer is aligned for any type, strdup/strndup copy, large
 * allocations get room of their own, and release leaves an arena that can
 * be used again (the sanitizer run checks nothing leaks).
 */
#include "common.h"
#include "util/arena.h"
#include "test.h"

static bool aligned(const void *p)
{
    return ((uintptr_t)p % _Alignof(max_align_t)) == 0;
}

static void test_many_allocs(void)
{
    mn_arena a = MN_ARENA_INIT;
    enum { N = 20000 };
    unsigned char **ptrs = mn_calloc(N, sizeof(*ptrs));
    size_t *sizes = mn_calloc(N, sizeof(*sizes));
    bool all_aligned = true;
    for (size_t i = 0; i < N; i++) {
        sizes[i] = 1 + (i * 37) % 300;
        ptrs[i] = mn_arena_alloc(&a, sizes[i]);
        if (!aligned(ptrs[i]))
            all_aligned = false;
        memset(ptrs[i], (int)(i & 0xff), sizes[i]);
    }
    CHECK(all_aligned);
    /* nothing overlapped: every allocation still holds its own byte */
    bool intact = true;
    for (size_t i = 0; i < N && intact; i++)
        for (size_t j = 0; j < sizes[i]; j++)
            if (ptrs[i][j] != (unsigned char)(i & 0xff)) {
                intact = false;
                break;
            }
    CHECK(intact);
    free(ptrs);
    free(sizes);
    mn_arena_release(&a);
    CHECK(a.head == NULL);
}

static void test_alignment_odd_sizes(void)
{
    mn_arena a = MN_ARENA_INIT;
    for (size_t size = 1; size < 200; size++) {
        void *p = mn_arena_alloc(&a, size);
        if (!aligned(p)) {
            CHECK(aligned(p));
            break;
        }
        /* a double and a long double fit and can be written */
        if (size >= sizeof(long double)) {
            long double *ld = p;
            *ld = 1.5L;
            CHECK(*ld == 1.5L);
        }
    }
    void *z = mn_arena_alloc(&a, 0);
    CHECK(z != NULL);
    CHECK(aligned(z));
    mn_arena_release(&a);
}

static void test_large(void)
{
    mn_arena a = MN_ARENA_INIT;
    char *small = mn_arena_strdup(&a, "small");
    size_t big_size = 1u << 20;
    char *big = mn_arena_alloc(&a, big_size);
    REQUIRE(big != NULL);
    CHECK(aligned(big));
    memset(big, 'B', big_size);
    char *after = mn_arena_strdup(&a, "after");
    CHECK_STR(small, "small");
    CHECK_STR(after, "after");
    CHECK(big[0] == 'B' && big[big_size - 1] == 'B');
    mn_arena_release(&a);
}

static void test_strdup(void)
{
    mn_arena a;
    mn_arena_init(&a);
    const char *src = "hello, arena";
    char *d = mn_arena_strdup(&a, src);
    CHECK_STR(d, src);
    CHECK(d != src);
    char *n = mn_arena_strndup(&a, src, 5);
    CHECK_STR(n, "hello");
    char *e = mn_arena_strdup(&a, "");
    CHECK_STR(e, "");
    /* strndup copies exactly n bytes even past a NUL-free prefix */
    char *part = mn_arena_strndup(&a, "abc\0def", 7);
    CHECK(memcmp(part, "abc\0def", 8) == 0);
    mn_arena_release(&a);
}

static void test_release_reuse(void)
{
    mn_arena a = MN_ARENA_INIT;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 1000; i++) {
            char *s = mn_arena_strdup(&a, "reused");
            if (strcmp(s, "reused") != 0) {
                CHECK_STR(s, "reused");
                break;
            }
        }
        CHECK(a.head != NULL);
        mn_arena_release(&a);
        CHECK(a.head == NULL);
        CHECK(a.next_size == 4096);
    }
    /* releasing an empty arena is fine */
    mn_arena_release(&a);
    CHECK(a.head == NULL);
}

MN_TEST_MAIN(MN_TEST(test_many_allocs), MN_TEST(test_alignment_odd_sizes), MN_TEST(test_large),
             MN_TEST(test_strdup), MN_TEST(test_release_reuse))
