/*
 * test.h - the unit-test harness: one executable per tests/unit/<module>/test_<x>.c.
 *
 * A test file defines `static void test_<name>(void)` functions and lists them
 * in MN_TEST_MAIN(...). CHECK records a failure and continues; REQUIRE
 * returns from the test. The program prints one line per failure and the
 * plain closing line "N passed, N failed", and exits non-zero on failure.
 */
#ifndef MN_TEST_H
#define MN_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mn_test__failed_checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            mn_test__failed_checks++;                                                \
        }                                                                            \
    } while (0)

#define REQUIRE(cond)                                                            \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__, #cond); \
            mn_test__failed_checks++;                                            \
            return;                                                              \
        }                                                                        \
    } while (0)

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        int mn_test__rc = (expr);                                                                  \
        if (mn_test__rc != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #expr, mn_test__rc, \
                    mn_error_last());                                                              \
            mn_test__failed_checks++;                                                              \
        }                                                                                          \
    } while (0)

#define REQUIRE_OK(expr)                                                                           \
    do {                                                                                           \
        int mn_test__rc = (expr);                                                                  \
        if (mn_test__rc != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #expr, mn_test__rc, \
                    mn_error_last());                                                              \
            mn_test__failed_checks++;                                                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                      \
    do {                                                                                     \
        const char *mn_test__a = (a), *mn_test__b = (b);                                     \
        if (!mn_test__a || !mn_test__b || strcmp(mn_test__a, mn_test__b) != 0) {             \
            fprintf(stderr, "%s:%d: %s == %s: '%s' != '%s'\n", __FILE__, __LINE__, #a, #b,   \
                    mn_test__a ? mn_test__a : "(null)", mn_test__b ? mn_test__b : "(null)"); \
            mn_test__failed_checks++;                                                        \
        }                                                                                    \
    } while (0)

typedef struct {
    const char *name;
    void (*fn)(void);
} mn_test__case;

#define MN_TEST(fn) \
    {               \
#fn, fn     \
    }

#define MN_TEST_MAIN(...)                                               \
    int main(void)                                                      \
    {                                                                   \
        mn_test__case cases[] = {__VA_ARGS__};                          \
        int passed = 0, failed = 0;                                     \
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) { \
            int before = mn_test__failed_checks;                        \
            cases[i].fn();                                              \
            if (mn_test__failed_checks == before) {                     \
                passed++;                                               \
            } else {                                                    \
                failed++;                                               \
                fprintf(stderr, "FAIL %s\n", cases[i].name);            \
            }                                                           \
        }                                                               \
        printf("%d passed, %d failed\n", passed, failed);               \
        return failed ? 1 : 0;                                          \
    }

#endif
