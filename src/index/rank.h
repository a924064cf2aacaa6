/*
 * rank.h - how central each file and symbol is: PageRank over the graph.
 *
 * Files: the graph of resolved imports plus calls and inherits lifted to
 * files; symbols: the graph of resolved calls and inherits. Damping 0.85,
 * a dangling node's rank spread evenly, iterated until the ranks move by
 * less than 1e-9 in total or 100 rounds. Stored ranks are scaled by the
 * node count, so 1.0 is the average and 5.0 five times as central.
 */
#ifndef MN_INDEX_RANK_H
#define MN_INDEX_RANK_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

/** Compute and store the ranks of every file and symbol; runs its own transaction. */
int mn_rank_all(mn_store *s);

/*
 * Ranks only order things, and one edited file barely moves them, while
 * PageRank over a large graph costs more than the edit's whole re-index
 * (sympy/sympy: 130 ms). So after an index run, ranks are recomputed only
 * when the files changed since the last ranking (stored under the internal
 * config key index.rank_lag) exceed 1% of the files, or when forced; in
 * between, a replaced file keeps its ranks (store_index.h) and a new symbol
 * or file starts at 0.
 */
#define MN_RANK_KEY_LAG "index.rank_lag"

/**
 * Account for `changed` files (of `files` in the index) since the last
 * ranking and rank again when due (or when force). *ranked, when not NULL,
 * says whether it did.
 */
int mn_rank_refresh(mn_store *s, size_t changed, size_t files, bool force, bool *ranked);

#endif
