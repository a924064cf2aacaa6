/*
 * map.h - a string-keyed hash map (open addressing, linear probing, xxh3).
 *
 * Keys are copied and owned by the map; values are opaque pointers owned by
 * the caller. The table doubles when it is 70% full, so lookups stay O(1)
 * on average. Deletion uses tombstones.
 */
#ifndef MN_MAP_H
#define MN_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mn_map_entry mn_map_entry;

typedef struct {
    mn_map_entry *slots;
    size_t cap, len, used; /* used counts tombstones too */
} mn_map;

#define MN_MAP_INIT   \
    {                 \
        NULL, 0, 0, 0 \
    }

void mn_map_release(mn_map *m);
/** Insert or replace; returns the previous value or NULL. */
void *mn_map_set(mn_map *m, const char *key, void *value);
void *mn_map_get(const mn_map *m, const char *key);
bool mn_map_has(const mn_map *m, const char *key);
/** Remove; returns the value or NULL. */
void *mn_map_del(mn_map *m, const char *key);
/** Iterate: start with *pos = 0; returns false at the end. */
bool mn_map_next(const mn_map *m, size_t *pos, const char **key, void **value);

#endif
