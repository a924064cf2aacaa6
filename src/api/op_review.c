/*
 * op_review.c - the review queue as one operation, `review`: list what
 * waits for a person (memory/review.h: the judge's reasons, how it came,
 * its supersedes/contradicts links and its near neighbours), and decide on
 * it: approve, reject, edit (fields changed, then approved) or merge into
 * another memory.
 *
 * A decision names its memories one of three ways: an id (or unique
 * prefix), a list of ids, or a selection of the queue (all_from: every
 * waiting memory from that source, or all: every one the filters kind,
 * tag, path and since select), at most MAX_BULK. A bulk decision is one
 * transaction: one memory that cannot be decided (a list's id that is
 * not waiting) refuses the whole call and nothing is changed. A memory a
 * selection holds that an earlier decision of the same call took out of
 * the queue (a rejected save's held memory, released) is passed over and
 * named in `skipped`. Each decision writes its audit row with the actor
 * (review.c).
 *
 * Edit is one memory at a time: the fields go through the update
 * pipeline (scrubbed, validated), then the memory is approved; a failed
 * approval leaves the edit in place and the memory still waiting.
 */
#include "common.h"

#include "api/api_internal.h"
#include "memory/consolidate.h"
#include "memory/review.h"

#define MAX_BULK   10000 /* memories one bulk decision may take */
#define LIST_LIMIT 20    /* a page of the queue, unless limit says otherwise */

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* The queue the call reads: pending (default) or quarantined, with the list filters. */
static int queue_filter(mn_memory_filter *f, const json_t *args)
{
    int rc = mn_memory_filter_from_json(f, args, "exclude");
    if (rc)
        return rc;
    f->status = str(args, "status") ? str(args, "status") : "pending";
    f->source = str(args, "all_from");
    f->newest_first = true;
    return 0;
}

static int op_list(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    json_t *lim = json_object_get(args, "limit"), *off = json_object_get(args, "offset");
    int rc = queue_filter(&f, args);
    if (rc)
        return rc;
    f.limit = lim ? json_integer_value(lim) : LIST_LIMIT;
    f.offset = off ? json_integer_value(off) : 0;
    if ((rc = mn_review_list(out, ctx->store, &f)) == 0) {
        json_object_set_new(*out, "action", json_string("list"));
        json_object_set_new(*out, "limit", json_integer(f.limit));
        json_object_set_new(*out, "offset", json_integer(f.offset));
    }
    return rc;
}

static int append_id(void *payload, json_t *mem)
{
    json_array_append(payload, json_object_get(mem, "id"));
    return 0;
}

/*
 * The memories a decision is about, as full ids: the id, the list of ids,
 * or the queue's selection (*selection set: the memories passed over
 * when they left the queue meanwhile).
 */
static int targets(mn_store *s, const json_t *args, json_t *ids, bool *selection)
{
    const json_t *one = json_object_get(args, "id"), *many = json_object_get(args, "ids");
    bool bulk = json_object_get(args, "all_from") || json_is_true(json_object_get(args, "all"));
    int given = (one != NULL) + (json_array_size(many) > 0) + bulk;
    const char *action = str(args, "action");
    char id[MN_ID_LEN + 1];
    int rc = 0;
    *selection = false;
    if (given != 1)
        return mn_error_set(MN_EINVAL,
                            "%s which memories? give one of: an id, ids, all_from SOURCE, or all "
                            "(with kind, tag, path, since)",
                            action);
    if (one) {
        if ((rc = mn_store_memory_resolve(s, id, json_string_value(one))) == 0)
            json_array_append_new(ids, json_string(id));
        return rc;
    }
    if (many) {
        size_t i;
        json_t *v;
        json_array_foreach(many, i, v)
        {
            if ((rc = mn_store_memory_resolve(s, id, json_string_value(v))) != 0)
                return rc;
            json_array_append_new(ids, json_string(id));
        }
        return 0;
    }
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    int64_t total = 0;
    if ((rc = queue_filter(&f, args)) != 0 || (rc = mn_store_memory_count(s, &f, &total)) != 0)
        return rc;
    if (total > MAX_BULK)
        return mn_error_set(MN_EINVAL,
                            "%lld memories are selected: at most %d per call; narrow the "
                            "selection (kind, tag, path, since)",
                            (long long)total, MAX_BULK);
    *selection = true;
    return mn_store_memory_list(s, &f, append_id, ids);
}

/* Still in the queue the selection read (not taken out by a decision of this call)? */
static int still_waiting(mn_store *s, const char *id, const char *status, bool *out)
{
    json_t *mem = NULL;
    int rc = mn_store_memory_get(s, &mem, id);
    if (rc == 0) {
        const char *st = str(mem, "status");
        *out = st && !strcmp(st, status) && !json_object_get(mem, "deleted_at");
    }
    json_decref(mem);
    return rc;
}

/* approve | reject | merge, one memory or many, in one transaction. */
static int decide(mn_ctx *ctx, const mn_memory_settings *cfg, mn_review_decision d,
                  const json_t *args, json_t *decided, json_t *skipped)
{
    mn_store *s = ctx->store;
    json_t *ids = json_array();
    char into[MN_ID_LEN + 1] = "";
    const char *status = str(args, "status") ? str(args, "status") : "pending";
    bool selection = false;
    int rc = mn_store_begin(s);
    if (rc) {
        json_decref(ids);
        return rc;
    }
    if (d == MN_REVIEW_MERGE) {
        if (!str(args, "into"))
            rc = mn_error_set(MN_EINVAL, "merge needs the memory to merge into (into)");
        else
            rc = mn_store_memory_resolve(s, into, str(args, "into"));
    }
    if (rc == 0)
        rc = targets(s, args, ids, &selection);
    size_t i;
    json_t *v;
    json_array_foreach(ids, i, v)
    {
        const char *id = json_string_value(v);
        bool waiting = true;
        if (rc)
            break;
        if (selection && (rc = still_waiting(s, id, status, &waiting)) == 0 && !waiting) {
            json_array_append(skipped, v);
            continue;
        }
        if (rc == 0 && d == MN_REVIEW_MERGE && !strcmp(id, into) && selection) {
            json_array_append(skipped, v); /* the selection holds the memory merged into */
            continue;
        }
        if (rc == 0)
            rc = mn_review_decide(s, cfg, d, id, into[0] ? into : NULL, str(args, "note"), decided);
    }
    json_decref(ids);
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    return rc;
}

/* Edit: the fields through update, then approve. One memory. */
static int edit(mn_ctx *ctx, const mn_memory_settings *cfg, const json_t *args, json_t *decided)
{
    static const char *const fields[] = {"title", "body", "context", "scope"};
    char id[MN_ID_LEN + 1];
    json_t *mem = NULL, *upd = NULL, *res = NULL;
    int rc;
    if (!json_object_get(args, "id") || json_object_get(args, "ids") ||
        json_object_get(args, "all_from") || json_object_get(args, "all"))
        return mn_error_set(MN_EINVAL, "edit takes one memory: give its id");
    if ((rc = mn_store_memory_resolve(ctx->store, id, str(args, "id"))) != 0 ||
        (rc = mn_store_memory_get(ctx->store, &mem, id)) != 0)
        return rc;
    const char *st = str(mem, "status");
    if (strcmp(st, "pending") && strcmp(st, "quarantined")) {
        rc = mn_error_set(MN_EINVAL,
                          "memory '%s' is %s, not waiting for review: change it with mnemo edit",
                          id, st);
        goto out;
    }
    upd = json_pack("{s:s}", "id", id);
    for (size_t i = 0; i < MN_ARRAY_SIZE(fields); i++)
        if (json_object_get(args, fields[i]))
            json_object_set(upd, fields[i], json_object_get(args, fields[i]));
    if (json_object_size(upd) == 1) {
        rc = mn_error_set(MN_EINVAL, "edit what: give title, body, context or scope "
                                     "(or approve it as it is)");
        goto out;
    }
    if ((rc = mn_memory_update(&res, ctx->store, cfg, upd)) != 0)
        goto out;
    if ((rc = mn_store_begin(ctx->store)) != 0)
        goto out;
    rc = mn_review_decide(ctx->store, cfg, MN_REVIEW_APPROVE, id, NULL, str(args, "note"), decided);
    if (rc) {
        mn_store_rollback(ctx->store);
        goto out;
    }
    if ((rc = mn_store_commit(ctx->store)) != 0)
        goto out;
    json_t *last = json_array_get(decided, json_array_size(decided) - 1);
    json_object_set(last, "changed", json_object_get(res, "changed"));
out:
    json_decref(mem);
    json_decref(upd);
    json_decref(res);
    return rc;
}

int mn_op_review(mn_ctx *ctx, const json_t *args, json_t **out)
{
    static const struct {
        const char *name;
        mn_review_decision d;
    } decisions[] = {
        {"approve", MN_REVIEW_APPROVE}, {"reject", MN_REVIEW_REJECT}, {"merge", MN_REVIEW_MERGE}};
    const char *action = str(args, "action") ? str(args, "action") : "list";
    const mn_memory_settings *cfg;
    int rc;
    if (!strcmp(action, "list"))
        return op_list(ctx, args, out);
    if ((rc = mn_api__settings(ctx, &cfg)) != 0)
        return rc;
    json_t *decided = json_array(), *skipped = json_array();
    if (!strcmp(action, "edit")) {
        rc = edit(ctx, cfg, args, decided);
    } else {
        rc = MN_EINVAL;
        for (size_t i = 0; i < MN_ARRAY_SIZE(decisions); i++)
            if (!strcmp(action, decisions[i].name))
                rc = decide(ctx, cfg, decisions[i].d, args, decided, skipped);
    }
    if (rc) {
        json_decref(decided);
        json_decref(skipped);
        return rc;
    }
    *out = json_pack("{s:s,s:I,s:o,s:o}", "action", action, "count",
                     (json_int_t)json_array_size(decided), "decided", decided, "skipped", skipped);
    return 0;
}

/* ---- consolidation: memory/consolidate.h ---- */

int mn_op_consolidate(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const json_t *kinds = json_object_get(args, "kinds");
    const char *k[MN_MEMORY_KINDS];
    mn_consolidate_options o;
    const mn_memory_settings *cfg;
    memset(&o, 0, sizeof(o));
    size_t i, n = 0;
    json_t *v;
    json_array_foreach(kinds, i, v) if (n < MN_ARRAY_SIZE(k)) k[n++] = json_string_value(v);
    if (n) {
        o.kinds = k;
        o.nkinds = n;
    }
    o.min_size = (size_t)json_integer_value(json_object_get(args, "min_size"));
    o.limit = json_integer_value(json_object_get(args, "limit"));
    o.apply = json_is_true(json_object_get(args, "apply"));
    int rc = 0;
    if (str(args, "since") && (rc = mn_time_parse(&o.since, str(args, "since"))) != 0)
        return mn_error_prefix("field 'since'");
    if ((rc = mn_api__settings(ctx, &cfg)) != 0)
        return rc;
    return mn_consolidate(out, ctx->store, cfg, &o);
}
