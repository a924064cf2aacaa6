/*
 * memory_internal.h - what the files of src/memory/ share: the steps of the
 * save pipeline that live in files of their own (docs/internals/memory.md).
 */
#ifndef MN_MEMORY_INTERNAL_H
#define MN_MEMORY_INTERNAL_H

#include <jansson.h>

#include "memory/memory.h"
#include "store/store.h"

/* nearby.c: the memory a new one repeats or contradicts, if any */
typedef struct {
    mn_neardup_kind kind;   /* DISTINCT: none (the save goes on as new) */
    mn_neardup_newer newer; /* which one the words say is newer (A: the new memory) */
    double similarity;      /* the verdict's similarity */
    double nearest;         /* the best estimated Jaccard of a current memory of its kind */
    char id[MN_ID_LEN + 1]; /* the memory judged duplicate or conflicting */
    json_t *reasons;        /* the verdict's reasons (array of strings) or NULL */
} mn_nearby;

int mn_memory__nearby(mn_nearby *out, mn_store *s, const json_t *mem);
void mn_memory__nearby_release(mn_nearby *n);

#endif
