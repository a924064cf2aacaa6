/*
 * citations.h - the code a memory talks about, checked against the index.
 *
 * A citation names a span of code: a symbol of a file (its qualified name,
 * lines, the index's content hash of the symbol), lines of a file (the
 * hash of their text), or a whole file (its content hash: the file must
 * exist; its content may change). It keeps the span's text as the index
 * had it (scrubbed of secrets when the file was indexed) so that a later
 * change can be shown as a diff.
 *
 *   mn_citations_fill     at save, update and merge: resolve the citations
 *                         given, cite the files and symbols the memory
 *                         names that the index knows (title, body,
 *                         context, scope), drop duplicates. Reads only.
 *   mn_citations_check    after an index run: each citation whose file
 *                         changed (schema v10 marks it dirty) is fresh,
 *                         follows its code (moved lines, another file, a
 *                         renamed symbol with the same body) or goes
 *                         stale (changed, gone). Hash comparisons and the
 *                         index's chunk text; no file is read.
 *   mn_citations_stale    the stale memories with a diff of each stale
 *                         span: its text when cited against today's.
 *   mn_citations_revalidate  today's span becomes the citation (a gone one
 *                         is dropped): the memory is served as current
 *                         again.
 *
 * docs/internals/memory.md ("Life cycle") has the rules and their reasons.
 */
#ifndef MN_MEMORY_CITATIONS_H
#define MN_MEMORY_CITATIONS_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

#define MN_CITE_AUTO_MAX 16 /* citations a save gets from the names it mentions */

/**
 * Resolve and complete mem's citations against the index (in place):
 * given ones get their hash, lines, text and checked_at; the files and
 * symbols the memory names get citations of their own (at most
 * MN_CITE_AUTO_MAX, a name defined in more than one place is left out
 * unless one of them is in a path the memory names); duplicates go.
 * Code the index does not know yet is kept as given (checked when it
 * appears). Reads the store, in or outside a transaction.
 */
int mn_citations_fill(mn_store *s, json_t *mem, int64_t now);

typedef struct {
    size_t checked;  /* dirty citations looked at */
    size_t fresh;    /* the same code (lines may have moved) */
    size_t followed; /* to another file or a renamed symbol */
    size_t stale;    /* newly stale: changed or gone */
    size_t cleared;  /* stale ones whose code came back as it was */
} mn_cite_stats;

/**
 * Check the citations the index marked dirty, in transactions of its own
 * (call it outside one); audit rows (actor) for each memory that goes
 * stale, comes back, or whose citation follows its code.
 */
int mn_citations_check(mn_store *s, const char *actor, int64_t now, mn_cite_stats *st);

/**
 * The stale memories, most recently changed first: *out = {memories:
 * [{id, kind, title, status, citations: [{path, symbol?, start_line?,
 * end_line?, stale, now?: {path, symbol?, start_line, end_line}, diff}]}],
 * total}. Reads only.
 */
int mn_citations_stale(mn_store *s, size_t limit, size_t offset, json_t **out);

/**
 * Take today's code as the truth of memory `id` (full id): each stale
 * citation gets today's span, hash and text (a gone one is removed), the
 * memory's updated_at moves, an audit row says so. *out = {id, action
 * (revalidated | unchanged), citations, dropped}. In its own transaction.
 */
int mn_citations_revalidate(mn_store *s, const char *actor, const char *id, int64_t now,
                            json_t **out);

#endif
