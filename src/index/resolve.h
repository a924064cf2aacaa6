/*
 * resolve.h - point the index's references at what they name.
 *
 * Imports resolve to files, by the rules of each language (relative paths
 * from the importing file, then the longest path suffix among the
 * repository's files: a monorepo's packages need no configuration). Calls
 * and base classes resolve to symbols when the name is unambiguous: one
 * definition in the repository, or one in the calling file, or one among
 * the files the calling file imports. What stays ambiguous or names
 * something outside the repository stays unresolved, never guessed.
 */
#ifndef MN_INDEX_RESOLVE_H
#define MN_INDEX_RESOLVE_H

#include <stddef.h>

#include "store/store.h"

typedef struct {
    size_t imports, imports_resolved, calls, calls_resolved, inherits, inherits_resolved;
} mn_resolve_stats;

/** Resolve every unresolved edge of the project; runs its own transaction. */
int mn_resolve_all(mn_store *s, mn_resolve_stats *stats);

/**
 * The candidate repository paths an import names, most likely first, for a
 * file at src_path in language. Exposed for tests. Returns the count written.
 */
size_t mn_resolve_import_candidates(char **out, size_t max, const char *language,
                                    const char *src_path, const char *target);

#endif
