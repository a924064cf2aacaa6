/*
 * branch.h - memories and branches: a memory learnt on a branch is served
 * on that branch, and on another only once the commit it was learnt at is
 * an ancestor of HEAD (merged); asked for all branches, the others are
 * served marked "from branch X (not merged)".
 *
 * A memory's branch is scope.branch and its commit provenance.commit (the
 * save operation fills both in from HEAD when not given: api/op_branch.c).
 * The rule, for a memory with either (one with neither is served
 * everywhere, as before):
 *   its branch is HEAD's branch                      served
 *   its commit is HEAD or an ancestor of HEAD        served (merged)
 *   its commit is unknown to this clone, no branch   served (nothing to go by)
 *   otherwise                                        not served (or marked)
 *
 * Cost: HEAD is read from .git's files (no libgit2) on first need; the
 * answers "is C an ancestor of H" are cached per HEAD in the store
 * (store_ingest.h: ancestry), filled by the git ingest (every commit it
 * read is an ancestor of the HEAD it walked from), by post-checkout
 * (mn_branch_warm, run by the hook in the background) and by the searches
 * that had to ask git. An answer for an earlier HEAD that HEAD descends
 * from still holds for "merged". Only what none of these knows costs a
 * libgit2 call: graph_descendant_of per commit, or one walk of HEAD's
 * history when more than WALK_ABOVE commits are unknown.
 */
#ifndef MN_RETRIEVE_BRANCH_H
#define MN_RETRIEVE_BRANCH_H

#include <stdbool.h>

#include "store/store.h"

typedef struct mn_branch_view mn_branch_view;

/**
 * A view of the repository at root (NULL: none, nothing is filtered);
 * all_branches: serve the memories of other branches too, marked.
 * Nothing is read until a search needs it. Free with mn_branch_view_free.
 */
mn_branch_view *mn_branch_view_new(const char *root, bool all_branches);
/** Write the answers git gave into the store's cache (best effort), then free. */
void mn_branch_view_free(mn_branch_view *v, mn_store *s);

/**
 * HEAD of the repository at root: its sha (sha[0] = '\0' when unborn) and
 * its branch's short name (*branch malloc'd, NULL when detached). MN_ENOTFOUND
 * outside a git work tree. Reads .git's files; libgit2 only for what they
 * cannot say (a reftable).
 */
int mn_branch_head(const char *root, char sha[41], char **branch);

/**
 * Whether a memory with this branch and commit (either may be NULL) is
 * served at the view's HEAD; *marked (may be NULL) gets "from branch X (not
 * merged)" when it is not but the view serves all branches (static until
 * the next call). Fails only on a store error.
 */
int mn_branch_visible(mn_branch_view *v, mn_store *s, const char *branch, const char *commit,
                      bool *visible);

/** The note for a memory of another branch, not merged ("from branch X (not merged)"). */
const char *mn_branch_mark(mn_branch_view *v, const char *branch);

/** Whether the view serves all branches (and marks). */
bool mn_branch_view_all(const mn_branch_view *v);

/** Answer many commits at once (the search's batch): caches, then one walk of HEAD's history. */
int mn_branch__prefetch(mn_branch_view *v, mn_store *s, const char *const *commits, size_t n);

/**
 * Cache, for HEAD of root, whether each memory's commit is an ancestor
 * (post-checkout, in the background). *checked: commits answered.
 */
int mn_branch_warm(mn_store *s, const char *root, size_t *checked);

#endif
