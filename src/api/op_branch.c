/*
 * op_branch.c - where a memory was learnt: `save` fills in the branch
 * (scope.branch) and the commit (provenance.commit) from the repository's
 * HEAD when the caller gives neither, so that retrieval can serve it on
 * its branch and elsewhere once merged (retrieve/branch.h).
 *
 * Only a store inside the repository's work tree (.mnemo/) is placed: one
 * named by --db or MNEMO_DB elsewhere may serve several repositories, in
 * which a branch's name means nothing.
 *
 * Only what a person or an agent learns while working is placed so: a
 * save whose provenance names another source (git, document, issue,
 * discovery, import) says where it comes from itself. Outside a git work
 * tree, or on an unborn HEAD, nothing is added. A detached HEAD gives the
 * commit alone. The caller's own values always win; "" for scope.branch
 * says "no branch" and is dropped by the pipeline as an empty value.
 */
#include "common.h"

#include "api/op_ingest.h"
#include "mnemo/hooks.h"
#include "retrieve/branch.h"

static bool learnt_here(const json_t *args)
{
    const char *source =
        json_string_value(json_object_get(json_object_get(args, "provenance"), "source"));
    return !source || !strcmp(source, "manual") || !strcmp(source, "agent");
}

/*
 * An agent's rule or pattern waits for review unless it cites evidence, and
 * the pipeline counts provenance.commit as evidence (memory.c:
 * has_evidence): a commit filled in here is where it was learnt, not
 * evidence, so such a save gets the branch alone.
 */
static bool commit_would_be_evidence(mn_ctx *ctx, const json_t *args)
{
    const char *kind = json_string_value(json_object_get(args, "kind"));
    const char *source =
        json_string_value(json_object_get(json_object_get(args, "provenance"), "source"));
    bool agent = !ctx->local_cli || (source && !strcmp(source, "agent"));
    return agent && kind && (!strcmp(kind, "rule") || !strcmp(kind, "pattern"));
}

/*
 * A branch and a commit name something in one repository: only a store that
 * belongs to the repository (its .mnemo/ inside the work tree) is placed so.
 * A store named by --db or MNEMO_DB elsewhere may serve several.
 */
static bool repository_store(mn_ctx *ctx)
{
    const char *db = mn_ctx_db_path(ctx);
    size_t n = ctx->root ? strlen(ctx->root) : 0;
    return n && db && !strncmp(db, ctx->root, n) && db[n] == '/';
}

int mn_op_save_here(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const json_t *scope = json_object_get(args, "scope");
    const json_t *prov = json_object_get(args, "provenance");
    bool need_branch = !json_object_get(scope, "branch");
    bool need_commit = !json_object_get(prov, "commit") && !commit_would_be_evidence(ctx, args);
    if (!repository_store(ctx) || !learnt_here(args) || (!need_branch && !need_commit))
        return mn_op_save(ctx, args, out);
    char sha[41], *branch = NULL;
    if (mn_branch_head(ctx->root, sha, &branch) != 0 || !sha[0]) {
        mn_error_clear();
        free(branch);
        return mn_op_save(ctx, args, out);
    }
    json_t *a = json_deep_copy(args);
    if (need_branch && branch) {
        json_t *sc = json_object_get(a, "scope");
        if (!sc) {
            sc = json_object();
            json_object_set_new(a, "scope", sc);
        }
        json_object_set_new(sc, "branch", json_string(branch));
    }
    if (need_commit) {
        json_t *pv = json_object_get(a, "provenance");
        if (!pv) {
            pv = json_object();
            json_object_set_new(a, "provenance", pv);
        }
        json_object_set_new(pv, "commit", json_string(sha));
    }
    int rc = mn_op_save(ctx, a, out);
    json_decref(a);
    free(branch);
    return rc;
}

int mn_ctx_branch_warm(mn_ctx *ctx, size_t *checked)
{
    *checked = 0;
    if (!ctx->root)
        return 0;
    return mn_branch_warm(ctx->store, ctx->root, checked);
}
