/*
 * eval_mnemo.c - a throw-away mnemo store for one unit of a dataset (a
 * LoCoMo conversation, a LongMemEval question, a SWE-bench checkout).
 *
 * The store is made as a user makes it: mn_init_at(dir) creates
 * <dir>/.mnemo/mnemo.db, and the context is opened on that database with
 * dir as the start directory, so operations that look for "the repository
 * around the store" (index) find dir. memory.dedup is set off: a
 * conversation repeats short turns ("Thanks!") that are distinct evidence
 * items and must stay distinct memories.
 */
#include "common.h"
#include <ftw.h>
#include <unistd.h>

#include "eval.h"
#include "store/store.h"

char *ev_mkdtemp(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s-XXXXXX", base && *base ? base : "/tmp", prefix);
    if (!mkdtemp(p.ptr)) {
        fprintf(stderr, "bench: mkdtemp %s: %s\n", p.ptr, strerror(errno));
        mn_buf_release(&p);
        return NULL;
    }
    return mn_buf_detach(&p);
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    MN_UNUSED(sb);
    MN_UNUSED(ftw);
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void ev_rm_rf(const char *path)
{
    if (path && *path)
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *store_location; /* --db */
static int store_seq;

void ev_store_location(const char *db)
{
    store_location = db;
}

int ev_store_open(ev_store *s, const char *dir)
{
    return ev_store_open_named(s, dir, NULL);
}

int ev_store_open_named(ev_store *s, const char *dir, const char *name)
{
    mn_ctx_options opts = MN_CTX_OPTIONS_INIT;
    json_t *args = NULL, *out = NULL;
    char project[64];
    int rc;
    memset(s, 0, sizeof(*s));
    s->dir = mn_strdup(dir);
    if (store_location && mn_store_kind_of(store_location) == MN_STORE_POSTGRES) {
        /* a new project of the database: the stores of a run stay apart as files do; a named
         * one (bench_swebench --stores) is the same project in every run, so a later run finds
         * what an earlier one indexed, as it finds the SQLite file in the same directory */
        if (name)
            snprintf(project, sizeof(project), "bench-%s", name);
        else
            snprintf(project, sizeof(project), "bench-%ld-%d", (long)getpid(), ++store_seq);
        s->db = mn_store_redact(store_location);
        opts.db_path = store_location;
        opts.project = project;
    } else {
        if ((rc = mn_init_at(&s->db, dir)) != 0) {
            fprintf(stderr, "bench: cannot create a store in %s: %s\n", dir, mn_error_last());
            return rc;
        }
        opts.db_path = s->db;
    }
    opts.start_dir = s->dir;
    opts.actor = "bench";
    if ((rc = mn_ctx_open(&s->ctx, &opts)) != 0) {
        fprintf(stderr, "bench: cannot open the store %s: %s\n", s->db, mn_error_last());
        return rc;
    }
    args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", "memory.dedup", "value", "false");
    rc = ev_call(s, "config", args, &out);
    json_decref(args);
    json_decref(out);
    /* MNEMO_BENCH_EMBED_PROVIDER: config embed.provider of every store (off: lexical alone,
     * to compare back ends whose vectors differ) */
    const char *provider = getenv("MNEMO_BENCH_EMBED_PROVIDER");
    if (rc == 0 && provider && *provider) {
        out = NULL;
        args =
            json_pack("{s:s,s:s,s:s}", "action", "set", "key", "embed.provider", "value", provider);
        rc = ev_call(s, "config", args, &out);
        json_decref(args);
        json_decref(out);
    }
    return rc;
}

void ev_store_close(ev_store *s, bool remove)
{
    mn_ctx_free(s->ctx);
    s->ctx = NULL;
    if (remove)
        ev_rm_rf(s->dir);
    free(s->dir);
    free(s->db);
    s->dir = s->db = NULL;
}

int ev_call(ev_store *s, const char *op, const json_t *args, json_t **out)
{
    int rc = mn_api_call(s->ctx, op, args, out);
    if (rc)
        fprintf(stderr, "bench: %s: %s\n", op, mn_error_last());
    return rc;
}

bool ev_search_available(void)
{
    return mn_api_find("search") != NULL;
}

size_t ev_search_query_max(size_t fallback)
{
    const mn_op *op = mn_api_find("search");
    const json_t *q =
        op ? json_object_get(json_object_get(mn_api_input_schema(op), "properties"), "query")
           : NULL;
    json_int_t max = json_integer_value(json_object_get(q, "maxLength"));
    return max > 0 ? (size_t)max : fallback;
}

size_t ev_item_bytes(const json_t *item)
{
    return strlen(ev_str(item, "title")) + strlen(ev_str(item, "snippet"));
}

int ev_search(ev_store *s, const json_t *args, json_t **out, double *ms)
{
    uint64_t t0 = ev_now_ns();
    int rc = mn_api_call(s->ctx, "search", args, out);
    *ms = ev_ms_since(t0);
    if (rc)
        fprintf(stderr, "bench: search: %s\n", mn_error_last());
    return rc;
}

size_t ev_items_rank(const json_t *result, const char *member, const mn_map *ids, int64_t *rank,
                     size_t max, size_t tokens_k, size_t *bytes)
{
    const json_t *items = json_object_get(result, "items");
    size_t n = 0, i;
    json_t *it;
    if (bytes)
        *bytes = 0;
    json_array_foreach(items, i, it)
    {
        if (bytes && i < tokens_k)
            *bytes += ev_item_bytes(it);
        if (n < max) {
            uintptr_t v = (uintptr_t)mn_map_get(ids, ev_str(it, member));
            rank[n++] = v ? (int64_t)(v - 1) : -1;
        }
    }
    return n;
}
