/*
 * map.c - see map.h.
 */
#include "common.h"
#include <xxhash.h>

#include "util/map.h"

struct mn_map_entry {
    char *key; /* NULL: empty; TOMBSTONE: deleted */
    void *value;
    uint64_t hash;
};

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

static uint64_t hash_key(const char *key)
{
    return XXH3_64bits(key, strlen(key));
}

void mn_map_release(mn_map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key && m->slots[i].key != TOMBSTONE)
            free(m->slots[i].key);
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = m->used = 0;
}

static mn_map_entry *find(const mn_map *m, const char *key, uint64_t h, mn_map_entry **free_slot)
{
    *free_slot = NULL;
    if (!m->cap)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        mn_map_entry *e = &m->slots[i];
        if (!e->key) {
            if (!*free_slot)
                *free_slot = e;
            return NULL;
        }
        if (e->key == TOMBSTONE) {
            if (!*free_slot)
                *free_slot = e;
            continue;
        }
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    }
}

static void grow(mn_map *m)
{
    mn_map old = *m;
    /* mostly tombstones: rehash at the same size rather than doubling, so
     * churn through short-lived keys does not grow the table forever */
    m->cap = !old.cap ? 16 : old.len * 2 < old.used ? old.cap : old.cap * 2;
    m->slots = mn_calloc(m->cap, sizeof(mn_map_entry));
    m->len = m->used = 0;
    for (size_t i = 0; i < old.cap; i++) {
        mn_map_entry *e = &old.slots[i];
        if (e->key && e->key != TOMBSTONE) {
            mn_map_entry *slot;
            find(m, e->key, e->hash, &slot);
            *slot = *e;
            m->len++;
            m->used++;
        }
    }
    free(old.slots);
}

void *mn_map_set(mn_map *m, const char *key, void *value)
{
    if ((m->used + 1) * 10 >= m->cap * 7)
        grow(m);
    uint64_t h = hash_key(key);
    mn_map_entry *slot, *e = find(m, key, h, &slot);
    if (e) {
        void *old = e->value;
        e->value = value;
        return old;
    }
    if (!slot->key)
        m->used++;
    slot->key = mn_strdup(key);
    slot->value = value;
    slot->hash = h;
    m->len++;
    return NULL;
}

void *mn_map_get(const mn_map *m, const char *key)
{
    mn_map_entry *slot, *e = find(m, key, hash_key(key), &slot);
    return e ? e->value : NULL;
}

bool mn_map_has(const mn_map *m, const char *key)
{
    mn_map_entry *slot;
    return find(m, key, hash_key(key), &slot) != NULL;
}

void *mn_map_del(mn_map *m, const char *key)
{
    mn_map_entry *slot, *e = find(m, key, hash_key(key), &slot);
    if (!e)
        return NULL;
    void *v = e->value;
    free(e->key);
    e->key = TOMBSTONE;
    e->value = NULL;
    m->len--;
    return v;
}

bool mn_map_next(const mn_map *m, size_t *pos, const char **key, void **value)
{
    for (; *pos < m->cap; (*pos)++) {
        mn_map_entry *e = &m->slots[*pos];
        if (e->key && e->key != TOMBSTONE) {
            *key = e->key;
            if (value)
                *value = e->value;
            (*pos)++;
            return true;
        }
    }
    return false;
}
