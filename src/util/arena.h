/*
 * arena.h - a bump allocator for per-request memory, freed in one go.
 *
 * Each request (an MCP call, an HTTP request, a query) allocates from one
 * arena and releases it at the end. Blocks grow geometrically; a large
 * allocation gets a block of its own. In sanitizer builds (MN_SANITIZE)
 * every allocation is a separate malloc so ASan still sees overflows.
 */
#ifndef MN_ARENA_H
#define MN_ARENA_H

#include <stddef.h>

typedef struct mn_arena_block mn_arena_block;

typedef struct {
    mn_arena_block *head;
    size_t next_size;
} mn_arena;

#define MN_ARENA_INIT \
    {                 \
        NULL, 4096    \
    }

void mn_arena_init(mn_arena *a);
/** Free everything allocated from the arena; it can be used again after. */
void mn_arena_release(mn_arena *a);
/** size bytes aligned for any type; never NULL (aborts on OOM). */
void *mn_arena_alloc(mn_arena *a, size_t size);
char *mn_arena_strdup(mn_arena *a, const char *s);
char *mn_arena_strndup(mn_arena *a, const char *s, size_t n);

#endif
