/*
 * op_audit.c - the audit operation (who did what to which memory, and who
 * read which answer, when) and the audit rows of reads that record no
 * served answer (an MCP resource, an export).
 *
 * The log is written where each change happens (memory/, lifecycle.c,
 * config.c...: mn_store_audit in the change's own transaction) and, for
 * context, recall, search and search_code, in the transaction that records
 * the served answer (op_search.c: mn_api__record_served). The other reads
 * that show memories or files (get, list, chain, open_doc, plan_files)
 * record no served answer: mn_api_call writes their row once the answer is
 * made (mn_api__audit_answer, with the ids it shows). A row names the
 * actor (the front end: cli, mcp, http, hook...), the op, the ids it
 * touched or served and the time; never a question's text nor a memory's
 * text (a detail holds ids, counts, keys, and config values as config
 * shows them).
 *
 * audit reads the log newest first: since (an RFC 3339 time or an age such
 * as 7d), op and actor filter it, limit and offset page it. A store that
 * cannot be written answers; its reads are simply not logged (as served).
 */
#include "common.h"

#include "api/api_internal.h"

int mn_op_audit(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_audit_filter f = {0};
    const char *since = json_string_value(json_object_get(args, "since"));
    json_t *lim = json_object_get(args, "limit"), *off = json_object_get(args, "offset");
    json_t *rows = NULL;
    int64_t total = 0;
    int rc;
    if (since && (mn_time_parse(&f.since_ms, since) != 0 || f.since_ms <= 0))
        return mn_error_set(
            MN_EINVAL,
            "since: '%s' is neither a date-time after 1970 like 2026-11-21T15:47:00Z "
            "nor an age like 7d, 12h or 30m",
            since);
    f.action = json_string_value(json_object_get(args, "op"));
    f.actor = json_string_value(json_object_get(args, "actor"));
    f.limit = lim ? json_integer_value(lim) : 50;
    f.offset = off ? json_integer_value(off) : 0;
    /* one snapshot, so that total and the page agree while another process writes */
    if ((rc = mn_store_begin_read(ctx->store)) != 0)
        return rc;
    rc = mn_store_audit_list(ctx->store, &f, &rows, &total);
    if (rc)
        mn_store_rollback(ctx->store);
    else
        rc = mn_store_commit(ctx->store);
    if (rc) {
        json_decref(rows);
        return rc;
    }
    *out = json_pack("{s:o,s:I,s:I,s:I}", "entries", rows, "total", (json_int_t)total, "limit",
                     (json_int_t)f.limit, "offset", (json_int_t)f.offset);
    return 0;
}

void mn_api__audit_read(mn_ctx *ctx, const char *op, const char *target, const json_t *detail)
{
    int64_t max_age = 0, max_rows = 0, now = mn_time_now_ms();
    if (mn_store_read_only_reason(ctx->store))
        return; /* as served: a store that cannot be written still answers */
    int rc = 0;
    if (mn_store_audit_is_read(op))
        rc = mn_api__served_limits(ctx, &max_age, &max_rows);
    /* a log transaction: on PostgreSQL a read's audit row waits for no writer of the project */
    if (rc == 0 && (rc = mn_store_begin_log(ctx->store)) == 0) {
        rc = mn_store_audit(ctx->store, ctx->actor, op, target, detail);
        /* no served id to space the row cap out with: the clock does (one add in
         * max_rows / 256 on average, as served's) */
        if (rc == 0 && mn_store_audit_is_read(op))
            rc = mn_store_audit_prune_reads(ctx->store, now, max_age, max_rows, now);
        if (rc)
            mn_store_rollback(ctx->store);
        else
            rc = mn_store_commit(ctx->store);
    }
    if (rc) {
        /* the read stands; only its record is lost (a full disk, a lock held too long) */
        mn_log(MN_LOG_WARN, "the audit row of %s was not written: %s", op, mn_error_last());
        mn_error_clear();
    }
}

void mn_api_audit_resource(mn_ctx *ctx, const char *uri, const json_t *ids)
{
    json_t *detail = json_object();
    json_object_set_new(detail, "ids", ids ? json_deep_copy(ids) : json_array());
    mn_api__audit_read(ctx, "resource", uri, detail);
    json_decref(detail);
}

/*
 * The reads audited from their answer, and where the answer names what it
 * shows: `one` an object's "id", `many` an array of objects with `field`,
 * or every `field` of the tree under `many` (chain's roots nest).
 */
static const struct {
    const char *op, *one, *many, *field, *detail_key, *target;
    bool nested;
} answer_reads[] = {
    {"get", "memory", "linked_from", "from", "ids", NULL, false},
    {"list", NULL, "memories", "id", "ids", NULL, false},
    {"chain", NULL, "roots", "id", "ids", NULL, true},
    {"open_doc", NULL, "memories", "id", "ids", "path", false},
    {"plan_files", NULL, "selected", "path", "files", NULL, false},
};

#define ANSWER_IDS_MAX 200 /* a row names at most this many; "more" counts the rest */

static void add_id(json_t *ids, size_t *more, const json_t *v)
{
    if (!json_is_string(v))
        return;
    if (json_array_size(ids) < ANSWER_IDS_MAX)
        json_array_append(ids, (json_t *)v);
    else
        (*more)++;
}

static void collect_nested(json_t *ids, size_t *more, const json_t *v, const char *field, int depth)
{
    size_t i;
    const char *k;
    json_t *x;
    if (depth > 32)
        return;
    if (json_is_array(v))
        json_array_foreach(v, i, x) collect_nested(ids, more, x, field, depth + 1);
    else if (json_is_object(v))
        json_object_foreach((json_t *)v, k, x)
        {
            if (strcmp(k, field) == 0)
                add_id(ids, more, x);
            else
                collect_nested(ids, more, x, field, depth + 1);
        }
}

void mn_api__audit_answer(mn_ctx *ctx, const char *op, const json_t *out)
{
    size_t a = 0, i, more = 0;
    json_t *x;
    while (a < MN_ARRAY_SIZE(answer_reads) && strcmp(answer_reads[a].op, op) != 0)
        a++;
    if (a == MN_ARRAY_SIZE(answer_reads) || ctx->own_reads || !out)
        return;
    json_t *ids = json_array();
    if (answer_reads[a].one)
        add_id(ids, &more, json_object_get(json_object_get(out, answer_reads[a].one), "id"));
    if (answer_reads[a].nested)
        collect_nested(ids, &more, json_object_get(out, answer_reads[a].many),
                       answer_reads[a].field, 0);
    else
        json_array_foreach(json_object_get(out, answer_reads[a].many), i, x)
            add_id(ids, &more, json_object_get(x, answer_reads[a].field));
    json_t *detail = json_object();
    json_object_set_new(detail, answer_reads[a].detail_key, ids);
    if (more)
        json_object_set_new(detail, "more", json_integer((json_int_t)more));
    const char *target = answer_reads[a].target
                             ? json_string_value(json_object_get(out, answer_reads[a].target))
                             : NULL;
    mn_api__audit_read(ctx, op, target, detail);
    json_decref(detail);
}
