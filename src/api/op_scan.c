/*
 * op_scan.c - `scan`: look for secrets and personal data in everything a
 * store holds, and with `fix` redact them in place.
 *
 * For stores made before the scanner existed (or before a rule was added):
 * new writes are scrubbed on the way in (memory/scrub.h, the indexer) and
 * every answer on the way out (api.c), but rows already stored keep their
 * text until this runs. Memories are read and rewritten whole, so their
 * content hash and full-text rows follow; every other text (code chunks,
 * signatures, commit subjects, served queries, audit details, notes) goes
 * through store_scan.h. After a fix the full-text indexes are rebuilt, the
 * file is vacuumed with secure_delete and the WAL truncated
 * (mn_store_purge_freed), and the built-in embedding model, whose
 * vocabulary was learned from the old text, is dropped to be learned again.
 */
#include "common.h"

#include "api/api_internal.h"
#include "memory/scrub.h"
#include "store/store_scan.h"
#include "store/store_search.h"
#include "store/store_vector.h"

typedef struct {
    const mn_memory_settings *cfg;
    bool fix;
    json_t *rules;    /* rule id -> hits */
    json_t *tables;   /* "table.column" -> {scanned, with_hits} */
    json_t *to_fix;   /* memories to rewrite (fix) */
    int64_t memories; /* scanned */
    int64_t memories_hit;
    int64_t cells_hit;
} scan_state;

static void count_rules(scan_state *st, const mn_scan_hit *hits, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_object_get(st->rules, hits[i].rule);
        json_object_set_new(st->rules, hits[i].rule, json_integer(json_integer_value(c) + 1));
    }
}

/* Hits of every string inside v, counted by rule. */
static int count_json(scan_state *st, const json_t *v, size_t *hits_out)
{
    size_t i;
    json_t *x;
    const char *key;
    int rc = 0;
    switch (json_typeof(v)) {
    case JSON_STRING: {
        mn_scan_hit *hits = NULL;
        size_t n = 0;
        const char *text = json_string_value(v);
        size_t len = json_string_length(v);
        if (len && mn_scan_any(st->cfg->scanner, text, len, st->cfg->redact) &&
            (rc = mn_scan_find(&hits, &n, st->cfg->scanner, text, len, st->cfg->redact)) == 0) {
            count_rules(st, hits, n);
            *hits_out += n;
        }
        free(hits);
        return rc;
    }
    case JSON_ARRAY:
        json_array_foreach(v, i, x) if ((rc = count_json(st, x, hits_out)) != 0) return rc;
        return 0;
    case JSON_OBJECT:
        json_object_foreach((json_t *)v, key,
                            x) if ((rc = count_json(st, x, hits_out)) != 0) return rc;
        return 0;
    default:
        return 0;
    }
}

static int scan_memory(void *payload, json_t *mem)
{
    scan_state *st = payload;
    size_t hits = 0;
    int rc = count_json(st, mem, &hits);
    st->memories++;
    if (rc == 0 && hits) {
        st->memories_hit++;
        if (st->fix)
            json_array_append(st->to_fix, mem);
    }
    return rc;
}

static int scan_cell(void *payload, const mn_text_cell *c, const char *text, size_t len,
                     char **replace)
{
    scan_state *st = payload;
    mn_buf key = MN_BUF_INIT;
    mn_buf_printf(&key, "%s.%s", c->table, c->column);
    json_t *t = json_object_get(st->tables, key.ptr);
    if (!t) {
        t = json_pack("{s:I,s:I}", "scanned", (json_int_t)0, "with_hits", (json_int_t)0);
        json_object_set_new(st->tables, key.ptr, t);
    }
    mn_buf_release(&key);
    json_object_set_new(t, "scanned",
                        json_integer(json_integer_value(json_object_get(t, "scanned")) + 1));
    if (!mn_scan_any(st->cfg->scanner, text, len, st->cfg->redact))
        return 0;
    mn_scan_hit *hits = NULL;
    size_t n = 0;
    int rc = mn_scan_find(&hits, &n, st->cfg->scanner, text, len, st->cfg->redact);
    if (rc == 0 && n) {
        count_rules(st, hits, n);
        st->cells_hit++;
        json_object_set_new(t, "with_hits",
                            json_integer(json_integer_value(json_object_get(t, "with_hits")) + 1));
        if (st->fix) {
            mn_buf out = MN_BUF_INIT;
            if ((rc = mn_scan_redact(&out, st->cfg->scanner, text, len, st->cfg->redact, NULL)) ==
                0)
                *replace = mn_buf_detach(&out);
            mn_buf_release(&out);
        }
    }
    free(hits);
    return rc;
}

/* Rewrite the memories that held a hit, each with an audit row naming the rules. */
static int fix_memories(mn_ctx *ctx, scan_state *st)
{
    size_t i;
    json_t *mem;
    int rc = 0;
    json_array_foreach(st->to_fix, i, mem)
    {
        mn_scrub_report rep = MN_SCRUB_REPORT_INIT;
        if ((rc = mn_scrub_json(mem, st->cfg->scanner, st->cfg->redact, &rep)) == 0)
            rc = mn_store_memory_replace(ctx->store, mem);
        if (rc == 0) {
            json_t *detail =
                json_pack("{s:O,s:I,s:I,s:s}", "rules", rep.rules, "secrets",
                          (json_int_t)rep.secrets, "pii", (json_int_t)rep.pii, "by", "scan");
            rc = mn_store_audit(ctx->store, ctx->actor, "redact",
                                json_string_value(json_object_get(mem, "id")), detail);
            json_decref(detail);
        }
        mn_scrub_report_release(&rep);
        if (rc)
            return rc;
    }
    return 0;
}

int mn_op_scan(mn_ctx *ctx, const json_t *args, json_t **out)
{
    scan_state st = {0};
    int rc;
    bool in_tx = false;
    st.fix = json_is_true(json_object_get(args, "fix"));
    if ((rc = mn_api__settings(ctx, &st.cfg)) != 0)
        return rc;
    if (!st.cfg->scanner)
        return mn_error_set(MN_EINTERNAL, "no scanner loaded");
    if (st.fix && mn_store_read_only(ctx->store))
        return mn_error_set(MN_EINVAL, "the store '%s' is read-only: scan --fix cannot rewrite it",
                            mn_ctx_db_shown(ctx));
    st.rules = json_object();
    st.tables = json_object();
    st.to_fix = json_array();
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.include_deleted = true;
    if ((rc = st.fix ? mn_store_begin(ctx->store) : mn_store_begin_read(ctx->store)) != 0)
        goto out;
    in_tx = true;
    if ((rc = mn_store_memory_list(ctx->store, &f, scan_memory, &st)) != 0 ||
        (rc = mn_store_texts_each(ctx->store, scan_cell, &st)) != 0)
        goto out;
    bool changed = st.memories_hit || st.cells_hit;
    if (st.fix && changed) {
        int64_t dropped = 0;
        if ((rc = fix_memories(ctx, &st)) != 0 ||
            (rc = mn_store_embed_models_drop(ctx->store, NULL, &dropped)) != 0)
            goto out;
    }
    if ((rc = mn_store_commit(ctx->store)) != 0)
        goto out;
    in_tx = false;
    /* even with nothing found a fix purges: a memory purged or forgotten before may have
     * left its text in free pages or the WAL */
    if (st.fix && (rc = mn_store_purge_freed(ctx->store)) != 0)
        goto out;
    *out = json_pack("{s:b,s:{s:I,s:I},s:O,s:O}", "fixed", st.fix && rc == 0, "memories", "scanned",
                     (json_int_t)st.memories, "with_hits", (json_int_t)st.memories_hit, "texts",
                     st.tables, "rules", st.rules);
out:
    if (in_tx)
        mn_store_rollback(ctx->store);
    json_decref(st.rules);
    json_decref(st.tables);
    json_decref(st.to_fix);
    return rc;
}
