/*
 * consolidate.h - episodic memory made semantic: clusters of similar
 * episodes and gotchas become one pattern (docs/internals/memory.md,
 * "Consolidation").
 *
 * mn_consolidate finds clusters of at least min_size similar memories of
 * the given kinds (active ones; text/neardup.h: mn_neardup_cluster over
 * their stored fingerprints, estimated Jaccard >= 0.3 or SimHash within 12
 * bits: looser than a duplicate) and proposes one pattern per cluster with
 * a `generalize` suggestion made of what the members share, without a
 * model (mn_consolidate_generalize). A dry run writes nothing. Applied, a
 * new cluster's pattern is saved through the save pipeline (scrub, judge,
 * dedup: an agent's pattern waits for review as any agent's pattern does)
 * linked derived_from each member; a cluster whose members are partly
 * sources of a pattern already extends it (derived_from links to the new
 * members); one whose members all are is left alone. The members and
 * their contexts are never changed.
 */
#ifndef MN_MEMORY_CONSOLIDATE_H
#define MN_MEMORY_CONSOLIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "memory/memory.h"
#include "store/store.h"

typedef struct {
    const char *const *kinds; /* NULL: episode and gotcha */
    size_t nkinds;
    size_t min_size; /* members a cluster needs (0: 3) */
    int64_t since;   /* only memories updated since (ms); 0: all */
    int64_t limit;   /* the newest this many are clustered (0: 20,000) */
    bool apply;      /* false: a dry run */
} mn_consolidate_options;

/**
 * Find the clusters and, with o->apply, write their patterns: *out =
 * {dry_run, examined, clusters: [{action: create | extend | none, pattern,
 * members: [{id, kind, title, status}], generalize: {...}, result}],
 * created, extended}.
 */
int mn_consolidate(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                   const mn_consolidate_options *o);

/**
 * What n memories (canonical JSON) share, deterministic: {title, situation,
 * solution, shared_terms, shared_phrases, paths, tags, error_messages}.
 * medoid is the index of the member most similar to the others: its words
 * win ties and lend their spelling. A new object.
 */
json_t *mn_consolidate_generalize(json_t *const *members, size_t n, size_t medoid);

#endif
