/*
 * op_lifecycle.c - the life cycle as operations: `stale` (memories whose
 * cited code changed, with diffs), `revalidate` (today's code is the
 * truth), `gc` (archive what expired or was superseded long ago, purge on
 * request); and what the other operations share of it: the expiry test of
 * every answer (config memory.ttl.<kind>) and the citation check after an
 * index run (memory/citations.h, memory/lifecycle.h).
 *
 * The check runs where the index changes (op_index.c calls
 * mn_api__citations_after_index after each run). search, context and
 * recall only probe for citations the index marked and nobody checked
 * (an index run by an older mnemo, or stopped half way): one index seek
 * when there are none, which is always but for that case.
 */
#include "common.h"

#include "api/api_internal.h"
#include "memory/citations.h"
#include "memory/lifecycle.h"
#include "store/store_life.h"
#include "util/util.h"

#define STALE_PAGE 20

int mn_api__expiry(mn_ctx *ctx, mn_expiry *out)
{
    memset(out, 0, sizeof(*out));
    if (!ctx->lifecycle_loaded) {
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++) {
            char key[40];
            snprintf(key, sizeof(key), "memory.ttl.%s", mn_memory_kinds[k]);
            int rc = mn_api__config_duration(ctx, &ctx->kind_ttl_ms[k], key);
            if (rc)
                return rc;
        }
        ctx->lifecycle_loaded = true;
    }
    out->at = mn_time_now_ms();
    memcpy(out->kind_ttl_ms, ctx->kind_ttl_ms, sizeof(out->kind_ttl_ms));
    return 0;
}

void mn_api__citations_current(mn_ctx *ctx)
{
    bool dirty = false;
    mn_cite_stats st;
    if (mn_store_read_only_reason(ctx->store) || mn_store_cite_dirty_any(ctx->store, &dirty) != 0 ||
        !dirty || mn_citations_check(ctx->store, ctx->actor, mn_time_now_ms(), &st) != 0) {
        /* an answer from the flags as they are beats no answer */
        mn_error_clear();
    }
}

int mn_api__citations_after_index(mn_ctx *ctx, json_t *out)
{
    mn_cite_stats st;
    int rc = mn_citations_check(ctx->store, ctx->actor, mn_time_now_ms(), &st);
    if (rc == 0 && st.checked && out)
        json_object_set_new(out, "citations",
                            json_pack("{s:I,s:I,s:I,s:I,s:I}", "checked", (json_int_t)st.checked,
                                      "fresh", (json_int_t)st.fresh, "followed",
                                      (json_int_t)st.followed, "stale", (json_int_t)st.stale,
                                      "cleared", (json_int_t)st.cleared));
    return rc;
}

int mn_op_stale(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const json_t *lim = json_object_get(args, "limit"), *off = json_object_get(args, "offset");
    mn_api__citations_current(ctx);
    return mn_citations_stale(ctx->store, lim ? (size_t)json_integer_value(lim) : STALE_PAGE,
                              off ? (size_t)json_integer_value(off) : 0, out);
}

int mn_op_revalidate(mn_ctx *ctx, const json_t *args, json_t **out)
{
    char id[MN_ID_LEN + 1];
    int rc =
        mn_store_memory_resolve(ctx->store, id, json_string_value(json_object_get(args, "id")));
    if (rc)
        return rc;
    mn_api__citations_current(ctx);
    return mn_citations_revalidate(ctx->store, ctx->actor, id, mn_time_now_ms(), out);
}

/* A gc age: a whole number and s, m, h, d, w or y (365 days). */
static int parse_age(int64_t *out, const json_t *args, const char *key)
{
    static const struct {
        char unit;
        int64_t ms;
    } units[] = {{'s', 1000},     {'m', 60000},     {'h', 3600000},
                 {'d', 86400000}, {'w', 604800000}, {'y', 31536000000}};
    const char *v = json_string_value(json_object_get(args, key));
    *out = 0;
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    for (size_t i = 0; i < MN_ARRAY_SIZE(units); i++)
        if (end != v && v[0] >= '0' && v[0] <= '9' && !errno && n > 0 && n <= 100000 &&
            end[0] == units[i].unit && !end[1]) {
            *out = n * units[i].ms;
            return 0;
        }
    return mn_error_set(MN_EINVAL, "%s: '%.40s' is not an age such as 30d, 12w or 1y", key, v);
}

int mn_op_gc(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_gc_options o;
    memset(&o, 0, sizeof(o));
    o.apply = json_is_true(json_object_get(args, "apply"));
    o.actor = ctx->actor;
    int rc = mn_api__expiry(ctx, &o.expiry);
    if (rc == 0)
        rc = mn_api__config_duration(ctx, &o.superseded_after, "memory.gc.superseded_after");
    if (rc == 0)
        rc = parse_age(&o.purge_archived, args, "purge_archived_older_than");
    if (rc == 0)
        rc = parse_age(&o.purge_forgotten, args, "purge_forgotten_older_than");
    if (rc)
        return rc;
    o.now = o.expiry.at;
    return mn_lifecycle_gc(ctx->store, &o, out);
}
