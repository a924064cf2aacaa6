/*
 * op_memory.c - handlers of the memory operations: thin adapters from the
 * operation's JSON to memory/ and store/.
 */
#include "common.h"

#include "api/api_internal.h"
#include "remote/remote.h"

typedef int (*memory_fn)(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                         const json_t *in);

/* The memory operations need the project's settings, loaded once per context. */
static int with_settings(mn_ctx *ctx, memory_fn fn, const json_t *args, json_t **out)
{
    const mn_memory_settings *cfg;
    int rc = mn_api__settings(ctx, &cfg);
    return rc ? rc : fn(out, ctx->store, cfg, args);
}

int mn_op_save(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *token = mn_api__token_name(ctx);
    if (!token)
        return with_settings(ctx, mn_memory_save, args, out);
    /* a save over a token is its holder's: provenance.author cannot name someone else */
    json_t *own = json_deep_copy(args), *prov = json_object_get(own, "provenance");
    if (!json_is_object(prov))
        json_object_set_new(own, "provenance", prov = json_object());
    json_object_set_new(prov, "author", json_string(token));
    int rc = with_settings(ctx, mn_memory_save, own, out);
    json_decref(own);
    return rc;
}

int mn_op_update(mn_ctx *ctx, const json_t *args, json_t **out)
{
    return with_settings(ctx, mn_memory_update, args, out);
}

int mn_op_forget(mn_ctx *ctx, const json_t *args, json_t **out)
{
    return with_settings(ctx, mn_memory_forget, args, out);
}

int mn_op_link(mn_ctx *ctx, const json_t *args, json_t **out)
{
    return with_settings(ctx, mn_memory_link, args, out);
}

int mn_op_import(mn_ctx *ctx, const json_t *args, json_t **out)
{
    return with_settings(ctx, mn_memory_import, args, out);
}

int mn_op_get(mn_ctx *ctx, const json_t *args, json_t **out)
{
    char id[MN_ID_LEN + 1];
    json_t *mem = NULL, *back = NULL;
    const char *want = json_string_value(json_object_get(args, "id"));
    int rc = 0;
    if (strchr(want, ':')) /* NAME:ID, a memory of the team's server NAME (mnemo remote) */
        return mn_remote_get(ctx, want, out);
    if (strlen(want) > MN_ID_LEN) /* the schema's bound is NAME:ID's */
        return mn_error_set(MN_EINVAL, "field 'id': longer than %d characters", MN_ID_LEN);
    /* A full id needs no prefix lookup (a quarter of a get's time):
     * mn_store_memory_get says "not found" itself. */
    if (strlen(want) == MN_ID_LEN && mn_id_is_prefix(want))
        memcpy(id, want, sizeof(id));
    else
        rc = mn_store_memory_resolve(ctx->store, id, want);
    if (rc == 0)
        rc = mn_store_memory_get(ctx->store, &mem, id);
    if (rc == 0)
        rc = mn_store_memory_backlinks(ctx->store, &back, id);
    if (rc) {
        json_decref(mem);
        return rc;
    }
    *out = json_pack("{s:o,s:o}", "memory", mem, "linked_from", back);
    return 0;
}

static int append_summary(void *payload, json_t *mem)
{
    static const char *const keys[] = {"id",    "kind",       "level",      "status",
                                       "title", "confidence", "updated_at", "deleted_at"};
    json_t *sum = json_object();
    for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++) {
        json_t *v = json_object_get(mem, keys[i]);
        if (v)
            json_object_set(sum, keys[i], v);
        if (i == 4) {
            json_t *tags = json_object_get(json_object_get(mem, "scope"), "tags");
            if (tags)
                json_object_set(sum, "tags", tags);
        }
    }
    json_array_append_new(payload, sum);
    return 0;
}

int mn_op_list(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    int64_t total = 0;
    int rc = mn_memory_filter_from_json(&f, args, "exclude");
    if (rc)
        return rc;
    /* expired: include (default, a listing is for people managing memories), exclude, only */
    const char *expired = json_string_value(json_object_get(args, "expired"));
    if (expired && strcmp(expired, "include") != 0) {
        if ((rc = mn_api__expiry(ctx, &f.expiry)) != 0)
            return rc;
        f.expiry.only = strcmp(expired, "only") == 0;
    }
    json_t *lim = json_object_get(args, "limit"), *off = json_object_get(args, "offset");
    f.limit = lim ? json_integer_value(lim) : 50;
    f.offset = off ? json_integer_value(off) : 0;
    f.newest_first = true; /* what was just saved or changed comes first */
    json_t *arr = json_array();
    /* one snapshot, so that total and the page agree while another process saves */
    if ((rc = mn_store_begin_read(ctx->store)) == 0) {
        rc = mn_store_memory_count(ctx->store, &f, &total);
        if (rc == 0)
            rc = mn_store_memory_list(ctx->store, &f, append_summary, arr);
        if (rc)
            mn_store_rollback(ctx->store);
        else
            rc = mn_store_commit(ctx->store);
    }
    if (rc) {
        json_decref(arr);
        return rc;
    }
    *out = json_pack("{s:o,s:I,s:I,s:I}", "memories", arr, "total", (json_int_t)total, "limit",
                     (json_int_t)f.limit, "offset", (json_int_t)f.offset);
    return 0;
}

static int append_memory(void *payload, json_t *mem)
{
    json_array_append(payload, mem);
    return 0;
}

int mn_op_export(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    int rc = mn_memory_filter_from_json(&f, args, "include");
    if (rc)
        return rc;
    /* the audit log only when asked: an export of memories is the same bytes for the same
     * memories (an imported store exports what it imported), which a log that every read
     * and every export itself adds to could never be */
    bool with_audit = json_is_true(json_object_get(args, "audit"));
    mn_audit_filter af = {0};
    json_t *arr = json_array(), *audit = NULL;
    int64_t naudit = 0;
    /* one snapshot, so a concurrent writer cannot tear the export */
    if ((rc = mn_store_begin_read(ctx->store)) == 0) {
        rc = mn_store_memory_list(ctx->store, &f, append_memory, arr);
        if (rc == 0 && with_audit)
            rc = mn_store_audit_list(ctx->store, &af, &audit, &naudit);
        if (rc)
            mn_store_rollback(ctx->store);
        else
            rc = mn_store_commit(ctx->store);
    }
    if (rc) {
        json_decref(arr);
        json_decref(audit);
        return rc;
    }
    size_t count = json_array_size(arr);
    *out = json_pack("{s:o,s:I}", "memories", arr, "count", (json_int_t)count);
    if (audit)
        json_object_set_new(*out, "audit", audit);
    /* the export itself is audited after its snapshot (it is not in it) */
    json_t *detail = json_pack("{s:I,s:I}", "count", (json_int_t)count, "audit",
                               (json_int_t)json_array_size(audit));
    mn_api__audit_read(ctx, "export", NULL, detail);
    json_decref(detail);
    return 0;
}
