/*
 * store_review.h - what consolidation reads from the store
 * (sqlite/review_store.c): the stored fingerprints of many memories at
 * once (docs/internals/memory.md, "Consolidation").
 */
#ifndef MN_STORE_REVIEW_H
#define MN_STORE_REVIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* ---- fingerprints of many memories (consolidation) ---- */

typedef struct {
    const char *const *kinds; /* memories of these kinds */
    size_t nkinds;
    const char *const *statuses; /* in these statuses */
    size_t nstatuses;
    int64_t since; /* updated at or after (ms); 0: any */
    int64_t limit; /* the newest this many (by updated_at); 0: all */
} mn_fingerprint_filter;

/**
 * The stored fingerprint of every live (not forgotten) memory of this
 * project matching f, newest first (updated_at, then id); cb gets each
 * memory's id and fingerprint, valid during the call. A memory without a
 * stored fingerprint is left out. A non-zero return of cb stops and is
 * returned.
 */
int mn_store_fingerprints_each(mn_store *s, const mn_fingerprint_filter *f,
                               int (*cb)(void *payload, const char *uid, const mn_fingerprint *fp),
                               void *payload);

#endif
