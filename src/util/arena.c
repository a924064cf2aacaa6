/*
 * arena.c - see arena.h.
 */
#include "common.h"
#include "util/arena.h"

struct mn_arena_block {
    mn_arena_block *next;
    size_t used, size;
    max_align_t data[];
};

void mn_arena_init(mn_arena *a)
{
    a->head = NULL;
    a->next_size = 4096;
}

void mn_arena_release(mn_arena *a)
{
    mn_arena_block *b = a->head;
    while (b) {
        mn_arena_block *next = b->next;
        free(b);
        b = next;
    }
    mn_arena_init(a);
}

void *mn_arena_alloc(mn_arena *a, size_t size)
{
    const size_t align = sizeof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
#ifdef MN_SANITIZE
    mn_arena_block *own = mn_malloc(sizeof(*own) + size);
    own->next = a->head;
    own->used = own->size = size;
    a->head = own;
    return own->data;
#else
    mn_arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t bs = size > a->next_size / 2 ? size : a->next_size;
        if (a->next_size < (1u << 20))
            a->next_size *= 2;
        b = mn_malloc(sizeof(*b) + bs);
        b->used = 0;
        b->size = bs;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
#endif
}

char *mn_arena_strndup(mn_arena *a, const char *s, size_t n)
{
    char *p = mn_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *mn_arena_strdup(mn_arena *a, const char *s)
{
    return mn_arena_strndup(a, s, strlen(s));
}
