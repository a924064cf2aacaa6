/*
 * common.h - the first include of every .c file in src/.
 *
 * It pulls in the standard headers almost every file needs, the public
 * error model, and banned.h last, so that the banned functions are already
 * declared by the system headers and any later use fails to compile. A file
 * that needs more system headers includes them before this one.
 */
#ifndef MN_COMMON_H
#define MN_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mnemo/errors.h"

#define MN_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MN_UNUSED(x)     ((void)(x))

/*
 * Programming errors: abort in debug builds, return an error in release
 * builds so a library caller is never killed by a broken invariant.
 */
#ifdef NDEBUG
#define MN_ASSERT_OR(cond, ret)                                                                  \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            mn_error_set(MN_EINTERNAL, "internal error: %s (%s:%d)", #cond, __FILE__, __LINE__); \
            return (ret);                                                                        \
        }                                                                                        \
    } while (0)
#else
#include <assert.h>
#define MN_ASSERT_OR(cond, ret) assert(cond)
#endif

/* Allocation of small, internal sizes: abort through one handler on OOM. */
void *mn_malloc(size_t size);
void *mn_calloc(size_t n, size_t size);
void *mn_realloc(void *ptr, size_t size);
char *mn_strdup(const char *s);
char *mn_strndup(const char *s, size_t n);

#include "banned.h"

#endif
