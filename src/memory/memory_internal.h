/*
 * memory_internal.h - what the files of src/memory/ share: the steps of the
 * save pipeline that live in files of their own (docs/internals/memory.md).
 */
#ifndef MN_MEMORY_INTERNAL_H
#define MN_MEMORY_INTERNAL_H

#include <jansson.h>

#include "memory/memory.h"
#include "store/store.h"

/* Archived memories a save's near-duplicate check keeps (review.c: rejected ones stay out). */
#define MN_NEARBY_ARCHIVED 2

/* nearby.c: the memory a new one repeats or contradicts, if any */
typedef struct {
    mn_neardup_kind kind;   /* DISTINCT: none (the save goes on as new) */
    mn_neardup_newer newer; /* which one the words say is newer (A: the new memory) */
    double similarity;      /* the verdict's similarity */
    double nearest;         /* the best estimated Jaccard of a current memory of its kind */
    char id[MN_ID_LEN + 1]; /* the memory judged duplicate or conflicting */
    json_t *reasons;        /* the verdict's reasons (array of strings) or NULL */
    /* archived memories of its kind the verdict calls duplicates of it */
    char archived[MN_NEARBY_ARCHIVED][MN_ID_LEN + 1];
    size_t n_archived;
} mn_nearby;

int mn_memory__nearby(mn_nearby *out, mn_store *s, const json_t *mem);
void mn_memory__nearby_release(mn_nearby *n);

/* memory.c: the pipeline's merge of a duplicate into a memory (review.c merges with it too) */
void mn_memory__merge_into(json_t *old, const json_t *mem, double threshold, int64_t now);
/* memory.c: the commit and task of a merged memory kept as links of the one it went into */
int mn_memory__keep_provenance(mn_store *s, const char *id, const json_t *old, const json_t *mem,
                               int64_t now);

/*
 * review.c, inside the save's transaction: when the save would store a new
 * memory (no live exact duplicate, no near one) and it repeats a memory a
 * reviewer rejected (exact_id, the exact duplicate found, or one of
 * near->archived), an audit row 'skip' is written and *out says what and
 * why: 1. 0 when it goes on, < 0 on error.
 */
int mn_review__skip_rejected(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                             const json_t *mem, const char *exact_id, const mn_nearby *near);
/* review.c: mem (an active memory sent back to review by a save conflicting with it) is held by
 * that save's memory, by_id: rejected, it comes back active. */
void mn_review__hold(json_t *mem, const char *by_id);

#endif
