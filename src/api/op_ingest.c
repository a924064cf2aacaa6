/*
 * op_ingest.c - the operations of memory that fills itself (ingest/ingest.h):
 * ingest_git, ingest_docs, ingest_issues, capture, record_decision, chain,
 * link_issue, open_doc. Thin adapters: the project's root (canonical) and
 * save settings, config capture.auto_approve, then the ingest.
 */
#include "common.h"
#include <unistd.h>

#include "api/api_internal.h"
#include "api/op_ingest.h"
#include "ingest/ingest.h"

#define AUTO_APPROVE_DEFAULT 0.85

int mn_api__ingest_env(mn_ctx *ctx, mn_ingest_env *env, char **root_out)
{
    const mn_memory_settings *cfg;
    char *v = NULL;
    int rc = mn_api__settings(ctx, &cfg);
    memset(env, 0, sizeof(*env));
    *root_out = NULL;
    if (rc)
        return rc;
    env->settings = cfg;
    env->progress = ctx->progress;
    env->auto_approve = AUTO_APPROVE_DEFAULT;
    /* the value was checked when it was set (config.c: a ratio) */
    rc = mn_store_config_get(ctx->store, &v, "capture.auto_approve");
    if (rc == 0)
        env->auto_approve = strtod(v, NULL);
    else if (rc == MN_ENOTFOUND)
        mn_error_clear();
    else
        return rc;
    free(v);
    if (ctx->root) {
        *root_out = realpath(ctx->root, NULL);
        env->root = *root_out;
        const char *db = mn_ctx_db_path(ctx);
        size_t n = strlen(ctx->root);
        env->store_in_root = db && !strncmp(db, ctx->root, n) && db[n] == '/';
    }
    return 0;
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

int mn_op_ingest_git(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0) {
        mn_git_ingest_opts o = MN_GIT_INGEST_OPTS_INIT;
        o.since = str(args, "since");
        o.max = (size_t)json_integer_value(json_object_get(args, "max"));
        o.incremental = json_is_true(json_object_get(args, "incremental"));
        o.dry_run = json_is_true(json_object_get(args, "dry_run"));
        /* the symbols a commit touched, and whether an API removed then is back, come from the
         * index: make sure there is a fresh one */
        json_t *notes = json_array(), *fresh = json_object();
        /* the hook's run answers from the index as it is (indexed only when it never was):
         * it must not hold the next commit's candidates back for a walk of the tree */
        if (o.incremental)
            json_object_set_new(fresh, "refresh", json_false());
        rc = mn_api__ensure_fresh(ctx, fresh, notes);
        json_decref(fresh);
        if (rc == 0)
            rc = mn_ingest_git(ctx->store, &env, &o, out);
        if (rc == 0 && json_array_size(notes)) { /* the index's notes, then the ingest's */
            json_t *own = json_object_get(*out, "notes");
            if (json_is_array(own))
                json_array_extend(notes, own);
            json_object_set(*out, "notes", notes);
        }
        json_decref(notes);
    }
    free(root);
    return rc;
}

int mn_op_ingest_docs(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0) {
        const json_t *p = json_object_get(args, "paths");
        size_t n = json_array_size(p);
        const char **paths = mn_calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
            paths[i] = json_string_value(json_array_get(p, i));
        rc = mn_ingest_docs(ctx->store, &env, paths, n, out);
        free(paths);
    }
    free(root);
    return rc;
}

int mn_op_open_doc(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0)
        rc = mn_open_doc(ctx->store, &env, args, out);
    free(root);
    return rc;
}

int mn_op_ingest_issues(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    const char *file = str(args, "file");
    const json_t *data = json_object_get(args, "data");
    if (!file == !data)
        return mn_error_set(MN_EINVAL, "give either file (a JSON export) or data (the export "
                                       "itself), not both or neither");
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0)
        rc = mn_ingest_issues(ctx->store, &env, file, data, out);
    free(root);
    return rc;
}

int mn_op_link_issue(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0)
        rc = mn_link_issue(ctx->store, &env, args, out);
    free(root);
    return rc;
}

int mn_op_capture(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0)
        rc = mn_capture(ctx->store, &env, args, out);
    free(root);
    return rc;
}

int mn_op_record_decision(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0)
        rc = mn_decision_record(ctx->store, &env, args, out);
    free(root);
    return rc;
}

int mn_op_chain(mn_ctx *ctx, const json_t *args, json_t **out)
{
    if (!str(args, "id") == !str(args, "query"))
        return mn_error_set(MN_EINVAL, "give either id (a decision to start from) or query (to "
                                       "find the decisions), not both or neither");
    return mn_decision_chain(ctx->store, args, out);
}
