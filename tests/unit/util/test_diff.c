/*
 * test_diff.c - the line diff `mnemo stale` shows (util/diff.h): kept,
 * removed and added lines in order, long unchanged runs folded, inputs
 * past the table's cap shown whole, no trailing newline needed.
 */
#include "common.h"

#include "util/diff.h"
#include "test.h"

static char *diff(const char *a, const char *b, size_t context, size_t *changed)
{
    mn_buf out = MN_BUF_INIT;
    *changed = mn_diff_lines(&out, a, b, context);
    return mn_buf_detach(&out);
}

static void test_one_line_changed(void)
{
    size_t n;
    char *d = diff("def f(x):\n    if x is None:\n        x = 0\n    return x\n",
                   "def f(x):\n    if x is None:\n        x = 30\n    return x\n", 3, &n);
    CHECK_STR(d,
              " def f(x):\n     if x is None:\n-        x = 0\n+        x = 30\n     return x\n");
    CHECK(n == 2);
    free(d);
}

static void test_same_and_empty(void)
{
    size_t n;
    char *d = diff("a\nb", "a\nb\n", 3, &n); /* a last line without its newline is the same */
    CHECK_STR(d, " a\n b\n");
    CHECK(n == 0);
    free(d);
    d = diff("", "x\ny\n", 3, &n);
    CHECK_STR(d, "+x\n+y\n");
    CHECK(n == 2);
    free(d);
    d = diff("gone\n", "", 3, &n);
    CHECK_STR(d, "-gone\n");
    CHECK(n == 1);
    free(d);
    d = diff(NULL, NULL, 3, &n);
    CHECK_STR(d, "");
    free(d);
}

static void test_insert_and_delete(void)
{
    size_t n;
    char *d = diff("a\nb\nc\nd\n", "a\nc\nd\nd2\n", 3, &n);
    CHECK_STR(d, " a\n-b\n c\n d\n+d2\n");
    CHECK(n == 2);
    free(d);
}

static void test_long_runs_folded(void)
{
    mn_buf a = MN_BUF_INIT, b = MN_BUF_INIT;
    for (int i = 0; i < 40; i++) {
        mn_buf_printf(&a, "line %d\n", i);
        mn_buf_printf(&b, "line %d%s\n", i, i == 20 ? " changed" : "");
    }
    size_t n;
    char *d = diff(a.ptr, b.ptr, 2, &n);
    CHECK_STR(d, "@@ 18 unchanged lines @@\n line 18\n line 19\n-line 20\n+line 20 changed\n"
                 " line 21\n line 22\n@@ 17 unchanged lines @@\n");
    CHECK(n == 2);
    free(d);
    mn_buf_release(&a);
    mn_buf_release(&b);
}

static void test_over_the_cap(void)
{
    mn_buf a = MN_BUF_INIT, b = MN_BUF_INIT;
    for (int i = 0; i < MN_DIFF_MAX_LINES + 50; i++) {
        mn_buf_printf(&a, "old %d\n", i);
        mn_buf_printf(&b, "new %d\n", i);
    }
    size_t n;
    char *d = diff(a.ptr, b.ptr, 3, &n);
    CHECK(n == 2 * (MN_DIFF_MAX_LINES + 50)); /* every line, none lost past the table */
    CHECK(strstr(d, "-old 649\n") != NULL && strstr(d, "+new 649\n") != NULL);
    free(d);
    mn_buf_release(&a);
    mn_buf_release(&b);
}

MN_TEST_MAIN(MN_TEST(test_one_line_changed), MN_TEST(test_same_and_empty),
             MN_TEST(test_insert_and_delete), MN_TEST(test_long_runs_folded),
             MN_TEST(test_over_the_cap))
