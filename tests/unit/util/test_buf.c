/*
 * test_buf.c - the growable buffer: the invariants written in buf.h
 * (ptr never NULL, ptr[len] == '\0', asize > len when owning), growth
 * through many appends and large printf output, truncate, detach and
 * release back to the shared empty state.
 */
#include "common.h"
#include "util/buf.h"
#include "test.h"

/* The invariants of buf.h, checked after every operation. */
static bool buf_ok(const mn_buf *b)
{
    if (!b->ptr)
        return false;
    if (b->ptr[b->len] != '\0')
        return false;
    if (b->asize == 0)
        return b->ptr == mn_buf__empty && b->len == 0;
    return b->asize > b->len;
}

static void test_empty(void)
{
    mn_buf b = MN_BUF_INIT;
    CHECK(buf_ok(&b));
    CHECK_STR(b.ptr, "");
    CHECK(b.len == 0 && b.asize == 0);
    mn_buf_clear(&b);
    mn_buf_truncate(&b, 5);
    CHECK(buf_ok(&b));
    CHECK(b.asize == 0); /* clearing an empty buffer allocates nothing */
    mn_buf_put(&b, "x", 0);
    CHECK(b.asize == 0);
    mn_buf_release(&b);
    CHECK(buf_ok(&b));

    mn_buf c;
    c.ptr = NULL;
    c.len = 7;
    c.asize = 3;
    mn_buf_init(&c);
    CHECK(buf_ok(&c));
    CHECK(c.ptr == mn_buf__empty);
}

static void test_put_and_grow(void)
{
    mn_buf b = MN_BUF_INIT;
    size_t total = 0;
    for (int i = 0; i < 10000; i++) {
        mn_buf_putc(&b, (char)('a' + i % 26));
        total++;
        if (!buf_ok(&b)) {
            CHECK(buf_ok(&b));
            break;
        }
    }
    CHECK(b.len == total);
    CHECK(strlen(b.ptr) == total);
    for (size_t i = 0; i < total; i++) {
        if (b.ptr[i] != (char)('a' + i % 26)) {
            CHECK(!"content differs");
            break;
        }
    }
    mn_buf_puts(&b, "END");
    CHECK(b.len == total + 3);
    CHECK(memcmp(b.ptr + total, "END", 4) == 0);
    CHECK(buf_ok(&b));
    mn_buf_release(&b);
    CHECK(buf_ok(&b));
    CHECK(b.len == 0 && b.asize == 0);
}

static void test_embedded_nul(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_put(&b, "a\0b", 3);
    CHECK(b.len == 3);
    CHECK(memcmp(b.ptr, "a\0b", 4) == 0);
    CHECK(buf_ok(&b));
    mn_buf_release(&b);
}

static void test_grow_reserves(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_grow(&b, 1000);
    CHECK(b.asize >= 1001);
    CHECK(b.len == 0);
    CHECK(buf_ok(&b));
    char *before = b.ptr;
    for (int i = 0; i < 1000; i++)
        mn_buf_putc(&b, 'z');
    CHECK(b.ptr == before); /* no reallocation within the reserved size */
    CHECK(buf_ok(&b));
    mn_buf_release(&b);
}

static void test_printf(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%d-%s", 42, "x");
    CHECK_STR(b.ptr, "42-x");
    CHECK(b.len == 4);
    mn_buf_printf(&b, "%s", "");
    CHECK(b.len == 4);
    CHECK(buf_ok(&b));

    /* one printf much larger than the current allocation */
    char big[5000];
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    mn_buf_printf(&b, "[%s]%05d", big, 7);
    CHECK(b.len == 4 + 1 + 4999 + 1 + 5);
    CHECK(buf_ok(&b));
    CHECK(memcmp(b.ptr, "42-x[qqq", 8) == 0);
    CHECK(strcmp(b.ptr + b.len - 6, "]00007") == 0);

    /* many small ones */
    mn_buf_clear(&b);
    for (int i = 0; i < 1000; i++)
        mn_buf_printf(&b, "%d,", i);
    CHECK(buf_ok(&b));
    CHECK(strncmp(b.ptr, "0,1,2,3,", 8) == 0);
    CHECK(strcmp(b.ptr + b.len - 4, "999,") == 0);
    mn_buf_release(&b);
}

static void test_truncate_clear(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "hello world");
    mn_buf_truncate(&b, 5);
    CHECK_STR(b.ptr, "hello");
    CHECK(b.len == 5);
    CHECK(buf_ok(&b));
    mn_buf_truncate(&b, 50); /* longer than len: no change */
    CHECK_STR(b.ptr, "hello");
    CHECK(b.len == 5);
    size_t asize = b.asize;
    mn_buf_clear(&b);
    CHECK_STR(b.ptr, "");
    CHECK(b.len == 0);
    CHECK(b.asize == asize); /* clear keeps the allocation */
    CHECK(buf_ok(&b));
    mn_buf_puts(&b, "again");
    CHECK_STR(b.ptr, "again");
    mn_buf_release(&b);
}

static void test_detach(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "owned text");
    char *p = mn_buf_detach(&b);
    CHECK_STR(p, "owned text");
    CHECK(buf_ok(&b));
    CHECK(b.len == 0 && b.asize == 0 && b.ptr == mn_buf__empty);
    free(p);

    /* detaching an empty buffer still gives a malloc'd "" */
    char *e = mn_buf_detach(&b);
    REQUIRE(e != NULL);
    CHECK(e != mn_buf__empty);
    CHECK_STR(e, "");
    free(e);
    CHECK(buf_ok(&b));

    /* the buffer is usable after detach */
    mn_buf_puts(&b, "next");
    CHECK_STR(b.ptr, "next");
    mn_buf_release(&b);
}

static void test_slice(void)
{
    const char *s = "abcdef";
    mn_slice sl = mn_slice_of(s + 2, 3);
    CHECK(sl.ptr == s + 2);
    CHECK(sl.len == 3);
    CHECK(memcmp(sl.ptr, "cde", 3) == 0);
}

MN_TEST_MAIN(MN_TEST(test_empty), MN_TEST(test_put_and_grow), MN_TEST(test_embedded_nul),
             MN_TEST(test_grow_reserves), MN_TEST(test_printf), MN_TEST(test_truncate_clear),
             MN_TEST(test_detach), MN_TEST(test_slice))
