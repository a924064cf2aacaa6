/*
 * bench_store.c - latency of save and get through the operation table, on a
 * store filled to N memories (default 100,000), against plain SQLite.
 *
 * What is measured, in one process on temporary files:
 *  - save: N calls of mn_api_call("save") with realistic memories (title,
 *    200-600 character body, context with situation, solution and 3-6
 *    trigger keywords, scope tags and paths, provenance agent). Every call
 *    is timed; percentiles and throughput are reported over all N and over
 *    the last N/10 (90k-100k memories at the default N: "at 100k").
 *  - get: N calls of mn_api_call("get") by full id, ids drawn uniformly at
 *    random from the saved ones.
 *  - baseline: a plain SQLite table with the same text fields (TEXT primary
 *    key, same PRAGMAs: WAL, synchronous=NORMAL), one INSERT per
 *    BEGIN IMMEDIATE/COMMIT transaction, and SELECT by primary key reading
 *    every column. Same memories, same order, same random ids.
 * Project rule (CONVENTIONS.md): the numbers to compare over time are the
 * ratios mnemo/baseline, which cancel most of the machine's speed. The
 * absolute targets of the issue (p95 save <= 2 ms at 100k memories, p95 get
 * <= 0.2 ms, on a 2-core machine) are printed as PASS/FAIL as well.
 *
 * Timing covers only the call (mn_api_call, or the baseline's statements);
 * building the input JSON and freeing the result are outside it. Throughput
 * is calls per second of timed time (1 / mean latency).
 *
 * Memories are generated from a fixed seed, one independent stream per
 * index, so both sides get the same text without keeping it all in memory.
 *
 * Usage: bench_store [-n N] [--json] [--db PATH] [--strict]
 * Exit status: 0, or 1 with --strict when a target fails, 2 on usage or
 * setup errors.
 */
#include "common.h"
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "util/buf.h"
#include "util/util.h"

#define TARGET_SAVE_P95_MS 2.0
#define TARGET_GET_P95_MS  0.2

#include "eval/gen_memory.h"

/* ---- statistics ---- */

typedef struct {
    double p50, p95, p99, max, ops; /* ms, ms, ms, ms, calls per second */
    size_t count;
} stats;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Percentiles of ns[0..n) in ms: the sorted sample at index round(p * (n - 1)). */
static stats summarize(const uint64_t *ns, size_t n)
{
    stats st = {0};
    if (n == 0)
        return st;
    uint64_t *v = mn_malloc(n * sizeof(*v));
    memcpy(v, ns, n * sizeof(*v));
    qsort(v, n, sizeof(*v), cmp_u64);
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)v[i];
#define RANK(p) v[(size_t)((p) * (double)(n - 1) + 0.5)]
    st.p50 = (double)RANK(0.50) / 1e6;
    st.p95 = (double)RANK(0.95) / 1e6;
    st.p99 = (double)RANK(0.99) / 1e6;
#undef RANK
    st.max = (double)v[n - 1] / 1e6;
    st.ops = total > 0 ? (double)n * 1e9 / total : 0;
    st.count = n;
    free(v);
    return st;
}

/* ---- the baseline: plain SQLite ---- */

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *insert, *select;
} baseline;

static int baseline_fail(baseline *b, const char *what)
{
    fprintf(stderr, "bench_store: baseline: %s: %s\n", what, sqlite3_errmsg(b->db));
    return -1;
}

static int baseline_open(baseline *b, const char *path)
{
    static const char *const schema =
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
        "PRAGMA temp_store=MEMORY; "
        "CREATE TABLE mem (uid TEXT PRIMARY KEY, kind TEXT NOT NULL, level INTEGER NOT NULL, "
        "title TEXT NOT NULL, body TEXT NOT NULL, situation TEXT, solution TEXT, "
        "trigger_keywords TEXT, tags TEXT, scope_paths TEXT, source TEXT NOT NULL, "
        "session_ref TEXT, status TEXT NOT NULL, confidence REAL NOT NULL, "
        "created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)";
    memset(b, 0, sizeof(*b));
    if (sqlite3_open_v2(path, &b->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(b->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        return baseline_fail(b, "cannot create the table");
    struct {
        sqlite3_stmt **st;
        const char *sql;
    } stmts[] = {
        {&b->begin, "BEGIN IMMEDIATE"},
        {&b->commit, "COMMIT"},
        {&b->insert, "INSERT INTO mem VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                     "?13, ?14, ?15, ?16)"},
        {&b->select, "SELECT * FROM mem WHERE uid = ?1"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(stmts); i++)
        if (sqlite3_prepare_v3(b->db, stmts[i].sql, -1, SQLITE_PREPARE_PERSISTENT, stmts[i].st,
                               NULL) != SQLITE_OK)
            return baseline_fail(b, "cannot prepare a statement");
    return 0;
}

static void baseline_close(baseline *b)
{
    sqlite3_finalize(b->begin);
    sqlite3_finalize(b->commit);
    sqlite3_finalize(b->insert);
    sqlite3_finalize(b->select);
    sqlite3_close(b->db);
}

static int step_reset(baseline *b, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : baseline_fail(b, "step");
}

/* One save: an id, one row, one transaction (the shape of a mnemo save minus the pipeline). */
static int baseline_save(baseline *b, const memory_text *m, char id[MN_ID_LEN + 1])
{
    sqlite3_stmt *st = b->insert;
    int64_t now = mn_time_now_ms();
    mn_id_new(id);
    if (step_reset(b, b->begin))
        return -1;
    sqlite3_bind_text(st, 1, id, MN_ID_LEN, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, 2);
    sqlite3_bind_text(st, 4, m->title.ptr, (int)m->title.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, m->body.ptr, (int)m->body.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, m->situation.ptr, (int)m->situation.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, m->solution.ptr, (int)m->solution.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, m->keywords_json.ptr, (int)m->keywords_json.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, m->tags_json.ptr, (int)m->tags_json.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 10, m->paths_json.ptr, (int)m->paths_json.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, "agent", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, m->session.ptr, (int)m->session.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, "active", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 14, 0.7);
    sqlite3_bind_int64(st, 15, now);
    sqlite3_bind_int64(st, 16, now);
    if (step_reset(b, st) || step_reset(b, b->commit))
        return -1;
    return 0;
}

/* One get: the row by primary key, every column read out. */
static int baseline_get(baseline *b, const char *id, uint64_t *sink)
{
    sqlite3_stmt *st = b->select;
    sqlite3_bind_text(st, 1, id, MN_ID_LEN, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        int n = sqlite3_column_count(st);
        for (int i = 0; i < n; i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            *sink += (uint64_t)sqlite3_column_bytes(st, i) + (t ? t[0] : 0);
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : baseline_fail(b, "row not found");
}

/* ---- the run ---- */

typedef struct {
    size_t n;
    bool json, strict;
    const char *db;
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_store [-n N] [--json] [--db PATH] [--strict]\n"
               "  -n N       memories to save, and gets to run (default 100000)\n"
               "  --json     print one JSON line on stdout (the table goes to stderr)\n"
               "  --db PATH  keep the mnemo store at PATH (must not exist)\n"
               "  --strict   exit 1 when a target fails\n");
}

static int parse_args(options *o, int argc, char **argv)
{
    o->n = 100000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-n") == 0 && i + 1 < argc) {
            int64_t v;
            if (mn_parse_int64(&v, argv[++i], 10, 100000000, "-n") != 0) {
                fprintf(stderr, "bench_store: %s\n", mn_error_last());
                return -1;
            }
            o->n = (size_t)v;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = true;
        } else if (strcmp(a, "--db") == 0 && i + 1 < argc) {
            o->db = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "bench_store: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return -1;
        }
    }
    return 0;
}

static void progress(const char *phase, size_t done, size_t n)
{
    if (isatty(2) && (done % 5000 == 0 || done == n))
        fprintf(stderr, "\r%-14s %zu/%zu", phase, done, n);
    if (isatty(2) && done == n)
        fputc('\n', stderr);
}

static void remove_db_files(const char *path)
{
    mn_buf p = MN_BUF_INIT;
    unlink(path);
    mn_buf_printf(&p, "%s-wal", path);
    unlink(p.ptr);
    mn_buf_clear(&p);
    mn_buf_printf(&p, "%s-shm", path);
    unlink(p.ptr);
    mn_buf_release(&p);
}

static void print_row(FILE *f, const char *name, const stats *s)
{
    fprintf(f, "  %-34s %9.3f %9.3f %9.3f %9.3f %10.0f\n", name, s->p50, s->p95, s->p99, s->max,
            s->ops);
}

static json_t *stats_json(const stats *s)
{
    return json_pack("{s:I,s:f,s:f,s:f,s:f,s:f}", "count", (json_int_t)s->count, "p50_ms", s->p50,
                     "p95_ms", s->p95, "p99_ms", s->p99, "max_ms", s->max, "ops_per_s", s->ops);
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

int main(int argc, char **argv)
{
    options o = {0};
    char tmpl[4096];
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    mn_buf store_path = MN_BUF_INIT, base_path = MN_BUF_INIT;
    mn_ctx *ctx = NULL;
    baseline base = {0};
    memory_text m = {0};
    uint64_t *save_ns = NULL, *get_ns = NULL, *bsave_ns = NULL, *bget_ns = NULL;
    char(*ids)[MN_ID_LEN + 1] = NULL, (*bids)[MN_ID_LEN + 1] = NULL;
    size_t *order = NULL;
    uint64_t sink = 0;
    size_t merged = 0;
    int status = 2;

    if (parse_args(&o, argc, argv))
        return 2;
    snprintf(tmpl, sizeof(tmpl), "%s/mnemo-bench-XXXXXX", tmpdir);
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "bench_store: cannot create a directory in '%s': %s\n", tmpdir,
                strerror(errno));
        return 2;
    }
    if (o.db) {
        if (mn_fs_exists(o.db)) {
            fprintf(stderr, "bench_store: '%s' exists already: give a new path to --db\n", o.db);
            goto out;
        }
        mn_buf_puts(&store_path, o.db);
    } else {
        mn_buf_printf(&store_path, "%s/mnemo.db", tmpl);
    }
    mn_buf_printf(&base_path, "%s/baseline.db", tmpl);

    mn_ctx_options co = MN_CTX_OPTIONS_INIT;
    co.db_path = store_path.ptr;
    co.start_dir = tmpl; /* no repository: the bench must not touch the caller's */
    co.actor = "bench";
    if (mn_ctx_open(&ctx, &co) != 0) {
        fprintf(stderr, "bench_store: %s\n", mn_error_last());
        goto out;
    }
    if (baseline_open(&base, base_path.ptr) != 0)
        goto out;

    size_t n = o.n, window = n / 10 ? n / 10 : 1;
    save_ns = mn_calloc(n, sizeof(*save_ns));
    get_ns = mn_calloc(n, sizeof(*get_ns));
    bsave_ns = mn_calloc(n, sizeof(*bsave_ns));
    bget_ns = mn_calloc(n, sizeof(*bget_ns));
    ids = mn_calloc(n, sizeof(*ids));
    bids = mn_calloc(n, sizeof(*bids));
    order = mn_calloc(n, sizeof(*order));

    /* save: mnemo */
    for (size_t i = 0; i < n; i++) {
        json_t *args, *res = NULL;
        memory_text_make(&m, i);
        args = memory_text_json(&m);
        uint64_t t0 = mn_time_mono_ns();
        int rc = mn_api_call(ctx, "save", args, &res);
        save_ns[i] = mn_time_mono_ns() - t0;
        json_decref(args);
        if (rc != 0) {
            fprintf(stderr, "bench_store: save %zu: %s\n", i, mn_error_last());
            goto out;
        }
        const char *id = json_string_value(json_object_get(res, "id"));
        if (strcmp(json_string_value(json_object_get(res, "action")), "created") != 0)
            merged++;
        snprintf(ids[i], sizeof(ids[i]), "%s", id ? id : "");
        json_decref(res);
        progress("save", i + 1, n);
    }

    /* save: baseline, same memories */
    for (size_t i = 0; i < n; i++) {
        memory_text_make(&m, i);
        uint64_t t0 = mn_time_mono_ns();
        int rc = baseline_save(&base, &m, bids[i]);
        bsave_ns[i] = mn_time_mono_ns() - t0;
        if (rc != 0)
            goto out;
        progress("baseline save", i + 1, n);
    }

    /* get: the same random sequence of indices on both sides */
    uint64_t rs = GEN_SEED ^ 0x67657473ULL;
    for (size_t i = 0; i < n; i++)
        order[i] = gen_pick(&rs, n);
    for (size_t i = 0; i < n; i++) {
        json_t *args = json_pack("{s:s}", "id", ids[order[i]]), *res = NULL;
        uint64_t t0 = mn_time_mono_ns();
        int rc = mn_api_call(ctx, "get", args, &res);
        get_ns[i] = mn_time_mono_ns() - t0;
        json_decref(args);
        if (rc != 0) {
            fprintf(stderr, "bench_store: get '%s': %s\n", ids[order[i]], mn_error_last());
            goto out;
        }
        sink += json_string_length(json_object_get(json_object_get(res, "memory"), "body"));
        json_decref(res);
        progress("get", i + 1, n);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = mn_time_mono_ns();
        int rc = baseline_get(&base, bids[order[i]], &sink);
        bget_ns[i] = mn_time_mono_ns() - t0;
        if (rc != 0)
            goto out;
        progress("baseline get", i + 1, n);
    }

    stats save_all = summarize(save_ns, n), save_last = summarize(save_ns + n - window, window);
    stats bsave_all = summarize(bsave_ns, n), bsave_last = summarize(bsave_ns + n - window, window);
    stats get = summarize(get_ns, n), bget = summarize(bget_ns, n);
    bool save_ok = save_last.p95 <= TARGET_SAVE_P95_MS, get_ok = get.p95 <= TARGET_GET_P95_MS;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    FILE *f = o.json ? stderr : stdout;
    char last_label[64], save_label[64];
    snprintf(save_label, sizeof(save_label), "save, all %zu", n);
    snprintf(last_label, sizeof(last_label), "save, last %zu (%zu-%zu)", window, n - window, n);
    fprintf(f, "bench_store: n=%zu, sqlite %s, %ld cpus, store '%s'\n", n, sqlite3_libversion(),
            cpus, store_path.ptr);
    fprintf(f, "  %-34s %9s %9s %9s %9s %10s\n", "latency (ms)", "p50", "p95", "p99", "max",
            "ops/s");
    fprintf(f, "  mnemo\n");
    print_row(f, save_label, &save_all);
    print_row(f, last_label, &save_last);
    print_row(f, "get by id", &get);
    fprintf(f, "  baseline (plain sqlite)\n");
    print_row(f, save_label, &bsave_all);
    print_row(f, last_label, &bsave_last);
    print_row(f, "get by id", &bget);
    fprintf(f, "  ratio mnemo/baseline       p50       p95\n");
    fprintf(f, "  %-22s %9.2f %9.2f\n", "save, all", ratio(save_all.p50, bsave_all.p50),
            ratio(save_all.p95, bsave_all.p95));
    fprintf(f, "  %-22s %9.2f %9.2f\n", "save, last", ratio(save_last.p50, bsave_last.p50),
            ratio(save_last.p95, bsave_last.p95));
    fprintf(f, "  %-22s %9.2f %9.2f\n", "get", ratio(get.p50, bget.p50), ratio(get.p95, bget.p95));
    fprintf(f, "  targets (issue; 2-core machine)\n");
    fprintf(f, "  save p95 at %zu memories <= %.1f ms: %.3f ms  %s\n", n, TARGET_SAVE_P95_MS,
            save_last.p95, save_ok ? "PASS" : "FAIL");
    fprintf(f, "  get p95 <= %.1f ms: %.3f ms  %s\n", TARGET_GET_P95_MS, get.p95,
            get_ok ? "PASS" : "FAIL");
    if (merged)
        fprintf(f, "  note: %zu saves were merged as duplicates\n", merged);

    if (o.json) {
        json_t *j =
            json_pack("{s:s,s:I,s:s,s:I,s:{s:o,s:o,s:o},s:{s:o,s:o,s:o},"
                      "s:{s:f,s:f,s:f,s:f,s:f,s:f},s:[{s:s,s:f,s:f,s:b},{s:s,s:f,s:f,s:b}]}",
                      "bench", "store", "n", (json_int_t)n, "sqlite", sqlite3_libversion(), "cpus",
                      (json_int_t)cpus, "mnemo", "save", stats_json(&save_all), "save_last",
                      stats_json(&save_last), "get", stats_json(&get), "baseline", "save",
                      stats_json(&bsave_all), "save_last", stats_json(&bsave_last), "get",
                      stats_json(&bget), "ratio", "save_p50", ratio(save_all.p50, bsave_all.p50),
                      "save_p95", ratio(save_all.p95, bsave_all.p95), "save_last_p50",
                      ratio(save_last.p50, bsave_last.p50), "save_last_p95",
                      ratio(save_last.p95, bsave_last.p95), "get_p50", ratio(get.p50, bget.p50),
                      "get_p95", ratio(get.p95, bget.p95), "targets", "name", "save_p95_ms",
                      "limit", TARGET_SAVE_P95_MS, "value", save_last.p95, "pass", save_ok, "name",
                      "get_p95_ms", "limit", TARGET_GET_P95_MS, "value", get.p95, "pass", get_ok);
        char *txt = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
        printf("%s\n", txt);
        free(txt);
        json_decref(j);
    }
    status = o.strict && !(save_ok && get_ok) ? 1 : 0;
    if (sink == 0)
        fprintf(stderr, "bench_store: nothing was read back\n");

out:
    mn_ctx_free(ctx);
    if (base.db)
        baseline_close(&base);
    memory_text_release(&m);
    free(save_ns);
    free(get_ns);
    free(bsave_ns);
    free(bget_ns);
    free(ids);
    free(bids);
    free(order);
    if (!o.db)
        remove_db_files(store_path.ptr);
    remove_db_files(base_path.ptr);
    rmdir(tmpl);
    mn_buf_release(&store_path);
    mn_buf_release(&base_path);
    return status;
}
