/*
 * why.h - "why is this code like this?": for the files, symbols and line
 * ranges a caller names, the commits that made those lines what they are
 * (git blame through libgit2, limited and cached), newest first, each
 * with its subject, date and author and the decisions and facts learnt
 * from it (memories linked to commit:<sha>), with their reasons.
 *
 * Targets: "path" (the commits the git ingest saw touching it, else a
 * blame of its first lines), "path:10-20" or "path#L10-L20" (a blame of
 * those lines), and symbols by name (their lines in the index). At most
 * WHY_TARGETS targets, WHY_COMMITS commits each, WHY_LINES lines blamed per
 * target. A blame is cached in the store per (path, the blob the path has
 * at HEAD, lines): it stays valid until the file changes.
 *
 * The Markdown comes under the heading "## Why the code is like this",
 * never over the budget given; context puts it after what the packer
 * wrote, recall returns the same as data ("history").
 */
#ifndef MN_RETRIEVE_WHY_H
#define MN_RETRIEVE_WHY_H

#include <jansson.h>
#include <stddef.h>

#include "store/store.h"

#define WHY_TARGETS 4
#define WHY_COMMITS 6
#define WHY_LINES   400

typedef struct {
    const char *root; /* the repository's work tree (NULL: nothing to say) */
    const char *const *files;
    size_t nfiles;
    const char *const *symbols;
    size_t nsymbols;
    size_t max_tokens; /* for the Markdown */
} mn_why_request;

/**
 * *out = {markdown, tokens, items: [{section: "history", type: commit|memory,
 * id, title, score, why, tokens, path?, start_line?, end_line?}], history:
 * [{target, path, start_line?, end_line?, commits: [{sha, date, author,
 * subject, memories: [{id, kind, title, reason?, status?}]}]}], notes}.
 * markdown is "" when nothing was found. Reads the store (and writes its
 * blame cache, best effort).
 */
int mn_why_build(mn_store *s, const mn_why_request *req, json_t **out);

#endif
