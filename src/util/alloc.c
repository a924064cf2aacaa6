/*
 * alloc.c - the one out-of-memory handler.
 *
 * Small, internal allocations abort on failure: there is no sensible way to
 * continue, and checking every one would hide the real error paths. Sizes
 * that come from outside (a request body, a file) are checked against caps
 * before they reach these functions.
 */
#include "common.h"

static void oom(size_t size)
{
    fprintf(stderr, "mnemo: out of memory allocating %zu bytes\n", size);
    abort();
}

void *mn_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

void *mn_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *mn_realloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        oom(size);
    return p;
}

char *mn_strdup(const char *s)
{
    return mn_strndup(s, strlen(s));
}

char *mn_strndup(const char *s, size_t n)
{
    char *p = mn_malloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
