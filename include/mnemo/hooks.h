/*
 * mnemo/hooks.h - mnemo's git hooks (`mnemo hooks install|uninstall|status`)
 * and the work they start in the background (`mnemo hooks run NAME`).
 *
 * post-commit reads the new commit's candidates (ingest_git, incremental);
 * post-merge and post-checkout index what changed and warm the branch
 * filter's answers for the new HEAD. The hooks are sh scripts that start
 * mnemo detached and exit with the status of the hook that was there
 * before (kept as NAME.mnemo-chained and run first), so git never waits
 * for mnemo nor sees its failures. docs/hooks.md.
 *
 * json_t through `out` are new references (json_decref()).
 */
#ifndef MNEMO_HOOKS_H
#define MNEMO_HOOKS_H

#include <jansson.h>
#include <stddef.h>

#include "mnemo/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** post-commit, post-merge, post-checkout. */
extern const char *const mn_git_hooks[];
extern const size_t mn_git_hooks_count;

/**
 * Install the hooks in the repository at root, each running the mnemo
 * binary exe (absolute): {dir, binary, hooks: [{name, action, chained?}]}.
 */
int mn_hooks_install(const char *root, const char *exe, json_t **out);
/** Remove them and put back the hooks they chained: {dir, hooks: [{name, action}]}. */
int mn_hooks_uninstall(const char *root, json_t **out);
/** {dir, hooks: [{name, state: installed|missing|foreign, chained?, binary?, binary_ok?}]}. */
int mn_hooks_status(const char *root, json_t **out);

/**
 * After a checkout or a merge: cache, for the repository's HEAD, whether
 * each memory's commit is an ancestor of it (retrieve/branch.h), so that
 * the next context pays nothing for branches. *checked: commits answered.
 */
int mn_ctx_branch_warm(mn_ctx *ctx, size_t *checked);

#ifdef __cplusplus
}
#endif

#endif
