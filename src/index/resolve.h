/*
 * resolve.h - point the index's references at what they name.
 *
 * Imports resolve to files, by the rules of each language (relative paths
 * from the importing file, then the longest path suffix among the
 * repository's files: a monorepo's packages need no configuration). Calls
 * and base classes resolve to symbols when the name is unambiguous: one
 * definition in the repository, or one in the calling file, or one among
 * the files the calling file imports; a call through a receiver of a known
 * type, among that class's methods and its bases'. What stays ambiguous or
 * names something outside the repository stays unresolved, never guessed.
 */
#ifndef MN_INDEX_RESOLVE_H
#define MN_INDEX_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct {
    size_t imports, imports_resolved, calls, calls_resolved, inherits, inherits_resolved;
} mn_resolve_stats;

/* What changed since the last resolution (index.c fills it in). */
typedef struct {
    bool everything;             /* first index or --full: every unresolved edge */
    bool files_added_or_removed; /* then every import is looked at again */
    const int64_t *files;        /* files stored this run (new or changed) */
    size_t nfiles;
    const int64_t *edges; /* edges that pointed into a replaced or removed file */
    size_t nedges;
    const char *const *names; /* names the change defines more or fewer times than before */
    size_t nnames;
} mn_resolve_scope;

/**
 * Bring the edges in line with the index after a change (scope NULL: every
 * unresolved edge). Only edges the change can affect are read, and each ends
 * with the target a fresh resolution would give it. Runs its own
 * transactions. Stats count the edges looked at and those resolved.
 */
int mn_resolve_run(mn_store *s, const mn_resolve_scope *scope, mn_resolve_stats *stats);

/** Resolve every unresolved edge of the project (mn_resolve_run with no scope). */
int mn_resolve_all(mn_store *s, mn_resolve_stats *stats);

/**
 * The candidate repository paths an import names, most likely first, for a
 * file at src_path in language. Exposed for tests. Returns the count written.
 */
size_t mn_resolve_import_candidates(char **out, size_t max, const char *language,
                                    const char *src_path, const char *target);

#endif
