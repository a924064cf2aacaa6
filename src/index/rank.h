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

#include "store/store.h"

/** Compute and store the ranks of every file and symbol; runs its own transaction. */
int mn_rank_all(mn_store *s);

#endif
