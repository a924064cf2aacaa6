/*
 * pg_same.h - a memory search's hits on a SQLite and a PostgreSQL store,
 * compared: the same ids in the same order, bm25 within 1e-9 (the two
 * back ends must rank alike: docs/internals/store-postgres.md). Shared by
 * test_pg_search.c and test_pg_blocks.c. Include after common.h and test.h.
 */
#ifndef MN_TESTS_PG_SAME_H
#define MN_TESTS_PG_SAME_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/store_search.h"

#define PG_SAME_MAX 32 /* the hits kept of a search (its limit is at most this) */

typedef struct {
    char uid[PG_SAME_MAX][32];
    double score[PG_SAME_MAX];
    size_t n;
} pg_hits;

/* mn_store_search_memories' callback: the hit's id and bm25, in order */
static inline int pg_hits_collect(void *payload, const mn_memory_hit *h)
{
    pg_hits *o = payload;
    if (o->n < PG_SAME_MAX) {
        snprintf(o->uid[o->n], sizeof(o->uid[0]), "%s", h->uid);
        o->score[o->n++] = h->bm25;
    }
    return 0;
}

/* Whether a (SQLite's) and b (PostgreSQL's) are the same; both printed side by side if not. */
static inline bool pg_hits_same(const char *what, const pg_hits *a, const pg_hits *b)
{
    bool same = a->n == b->n;
    for (size_t i = 0; same && i < a->n; i++)
        same = strcmp(a->uid[i], b->uid[i]) == 0 && fabs(a->score[i] - b->score[i]) <= 1e-9;
    if (!same) {
        fprintf(stderr, "%s: sqlite and postgresql differ\n", what);
        for (size_t i = 0; i < a->n || i < b->n; i++)
            fprintf(stderr, "  %-28s %.12f | %-28s %.12f\n", i < a->n ? a->uid[i] : "-",
                    i < a->n ? a->score[i] : 0, i < b->n ? b->uid[i] : "-",
                    i < b->n ? b->score[i] : 0);
    }
    return same;
}

#endif
