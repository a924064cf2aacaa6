/*
 * bench_retrieve.c - latency of search and context with N memories
 * (default 100,000) and a repository's code index loaded, against a plain
 * BM25 run in the same process.
 *
 * Set-up (not timed as a figure, but reported): a new store; N memories
 * saved through the operation table (bench/eval/gen_memory.h: the same
 * realistic memories as bench_store); REPO indexed with op index (which
 * also discovers). config index.refresh_age is set to 0 so that context
 * does not index again: the figure is the answer, not a walk. Then
 * mn_ctx_prepare, as a server runs it between requests (vectors loaded,
 * the memories' lengths read): the figures are those of `mnemo mcp`.
 *
 * Queries (--queries Q, default 200, fixed seed): half about memories (3-6
 * words of a saved memory's title and body, reordered, plus an identifier
 * half of the time), half about the code (a symbol name of the index split
 * into words, with "how does ... work"). Each runs once as
 *   search   {query, kinds [memory, code], k 10}
 *   context  {query, max_tokens 3000 (--max-tokens)}
 *   baseline an FTS5 unicode61 table holding the same memories (title,
 *            body) and the repository's indexed chunks (path, text):
 *            bm25(), query = the question's distinct tokens OR-ed, top 10.
 * Reported: p50/p95/p99 of each (of search also per kind of question:
 * where the tail is), and the ratios search/baseline and
 * context/baseline at p95 (the numbers to compare over time); and, so
 * that a faster search is not a worse one, the share of memory questions
 * whose source memory is among the 10 items (search: by title, which the
 * generator may repeat; bm25: by row). Targets of
 * issue 4 on a 2-core machine: search p95 <= 10 ms, context p95 <= 30 ms.
 *
 * Long queries (--long FILE, issue 22): each problem statement of a
 * SWE-bench JSONL file (../shared/eval/swebench/dev.jsonl) as the query,
 * as the hook sends a prompt: search {memory, code}, search {file},
 * context and the same plain BM25, p50/p95/p99, and PASS/FAIL for search
 * p95 <= 50 ms (run_long), and the CPU time of the process for each (on a
 * loaded machine the wall time is mostly waiting). --only-long skips the
 * generated questions; --no-bm25 the baseline of the long queries (seconds
 * a statement), to compare two builds by their CPU times.
 *
 * Usage: bench_retrieve REPO [-n N] [--queries Q] [--max-tokens T] [--store DIR]
 *                       [--long FILE [--only-long] [--no-bm25]] [--json] [--strict] [--verbose]
 * --store DIR keeps the store in DIR and, when DIR holds one already, uses
 * it as it is (no saves, no index: the set-up takes minutes; it must have
 * been made with the same REPO and N). --verbose prints each query with
 * its search and context times (stderr), to find the tail. Without REPO (or $MNEMO_BENCH_REPO)
 * it prints that it skipped and exits 0.
 */
#include "common.h"
#include <sqlite3.h>
#include <time.h>

#include "eval/eval.h"
#include "eval/gen_memory.h"
#include "mnemo/api.h"
#include "util/buf.h"
#include "util/util.h"

#define TARGET_SEARCH_P95_MS  10.0
#define TARGET_CONTEXT_P95_MS 30.0
#define TARGET_LONG_P95_MS    50.0 /* issue 22: a problem statement as the query */

typedef struct {
    const char *repo, *store, *long_file;
    size_t n, queries, max_tokens;
    bool json, strict, verbose, only_long, no_bm25;
} options;

static int parse(options *o, int argc, char **argv)
{
    o->repo = getenv("MNEMO_BENCH_REPO");
    o->n = 100000;
    o->queries = 200;
    o->max_tokens = 3000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-n") || !strcmp(a, "--queries") || !strcmp(a, "--max-tokens")) &&
            i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || v == 0) {
                fprintf(stderr, "bench_retrieve: %s wants a positive number\n", a);
                return 2;
            }
            *(a[1] == 'n' ? &o->n : a[2] == 'q' ? &o->queries : &o->max_tokens) = v;
        } else if (!strcmp(a, "--store") && i + 1 < argc) {
            o->store = argv[++i];
        } else if (!strcmp(a, "--long") && i + 1 < argc) {
            o->long_file = argv[++i];
        } else if (!strcmp(a, "--only-long")) {
            o->only_long = true;
        } else if (!strcmp(a, "--no-bm25")) {
            o->no_bm25 = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--strict")) {
            o->strict = true;
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if (a[0] != '-') {
            o->repo = a;
        } else {
            fprintf(
                stderr,
                "usage: bench_retrieve REPO [-n N] [--queries Q] [--max-tokens T] [--store DIR] "
                "[--long FILE [--only-long] [--no-bm25]] [--json] [--strict] [--verbose]\n");
            return 2;
        }
    }
    if (o->only_long && !o->long_file) {
        fprintf(stderr, "bench_retrieve: --only-long wants --long FILE\n");
        return 2;
    }
    if (!o->repo || !*o->repo) {
        printf("bench_retrieve: skipped (give a repository to index: bench_retrieve REPO)\n");
        return 1;
    }
    return 0;
}

/* Every chunk of the store's index into the baseline (path, text). */
static int baseline_chunks(const char *db, ev_bm25 *b, size_t *count)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h,
                           "SELECT c.id, f.path, c.text FROM chunks c JOIN files f ON "
                           "f.id = c.file_id",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_retrieve: cannot read the chunks: %s\n", sqlite3_errmsg(h));
        rc = -1;
    }
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *cols[2] = {(const char *)sqlite3_column_text(st, 1),
                               (const char *)sqlite3_column_text(st, 2)};
        /* rowids above the memories' */
        rc = ev_bm25_add(b, 1000000000LL + sqlite3_column_int64(st, 0), cols);
        (*count)++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}

/* Symbol names of the index, for code questions. */
static json_t *symbol_names(ev_store *s)
{
    json_t *out = NULL, *args = json_pack("{s:s,s:i}", "kind", "function", "limit", 5000);
    json_t *names = json_array();
    if (ev_call(s, "symbols", args, &out) == 0) {
        size_t i;
        json_t *y;
        json_array_foreach(json_object_get(out, "symbols"), i, y)
            json_array_append(names, json_object_get(y, "name"));
    }
    json_decref(out);
    json_decref(args);
    return names;
}

/* "parse_http_header" / "parseHttpHeader" -> "parse http header". */
static void put_words(mn_buf *b, const char *name)
{
    for (const char *p = name; *p; p++) {
        if (*p == '_') {
            mn_buf_putc(b, ' ');
        } else if (*p >= 'A' && *p <= 'Z' && p > name && p[-1] >= 'a' && p[-1] <= 'z') {
            mn_buf_putc(b, ' ');
            mn_buf_putc(b, (char)(*p - 'A' + 'a'));
        } else {
            mn_buf_putc(b, *p);
        }
    }
}

/* *source: the memory a memory question is made from (its number), else SIZE_MAX */
static char *make_query(size_t i, size_t n, const json_t *names, size_t *source)
{
    uint64_t s = GEN_SEED ^ (0x71756572ULL + i * 0x9e3779b97f4a7c15ULL);
    mn_buf q = MN_BUF_INIT;
    *source = SIZE_MAX;
    if (i % 2 == 0 || !json_array_size(names)) {
        memory_text m;
        memset(&m, 0, sizeof(m));
        *source = gen_pick(&s, n);
        memory_text_make(&m, *source);
        /* words of the memory's title and body, a few of them */
        mn_buf text = MN_BUF_INIT;
        mn_buf_printf(&text, "%s %s", m.title.ptr, m.body.ptr);
        char *save = NULL, *w = text.ptr;
        const char *picked[64];
        size_t nw = 0;
        for (char *t = strtok_r(w, " .,", &save); t && nw < 64; t = strtok_r(NULL, " .,", &save))
            if (strlen(t) > 3)
                picked[nw++] = t;
        size_t want = 3 + gen_pick(&s, 4);
        for (size_t k = 0; k < want && nw; k++)
            mn_buf_printf(&q, "%s%s", q.len ? " " : "", picked[gen_pick(&s, nw)]);
        if (gen_pick(&s, 2) && m.nkeywords)
            mn_buf_printf(&q, " %s", m.keywords[0]);
        mn_buf_release(&text);
        memory_text_release(&m);
    } else {
        const char *name =
            json_string_value(json_array_get(names, gen_pick(&s, json_array_size(names))));
        mn_buf_puts(&q, "how does ");
        put_words(&q, name ? name : "x");
        mn_buf_puts(&q, " work");
    }
    return mn_buf_detach(&q);
}

/*
 * Whether the memory a question was made from is among the memory items of
 * a search answer: by title (the generated titles may repeat; a memory of
 * the same title answers as well).
 */
static bool found_in(const json_t *res, size_t source)
{
    memory_text m;
    memset(&m, 0, sizeof(m));
    memory_text_make(&m, source);
    bool found = false;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(res, "items"), i, it)
    {
        const char *title = json_string_value(json_object_get(it, "title"));
        found = found || (title && strcmp(title, m.title.ptr) == 0);
    }
    memory_text_release(&m);
    return found;
}

/*
 * Long queries (--long FILE, issue 22): each problem statement of a
 * SWE-bench JSONL file as the query, as the hook sends a prompt (cut at
 * the search schema's query.maxLength, as bench_swebench does), against
 * the store's index: search {memory, code} k 10 (the target: p95 <= 50
 * ms), search {file} k 10 (what bench_swebench ranks), context, and the
 * plain BM25 of the set-up over all the statement's distinct tokens.
 */
typedef struct {
    ev_samples search, files, context, base;
    ev_samples search_cpu, files_cpu, context_cpu; /* CPU time of the process, ms */
    size_t n, cut;
} long_run;

/* the process's CPU time in ms: on a loaded machine a wall time is mostly waiting */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void long_release(long_run *r)
{
    mn_vec_release(&r->search);
    mn_vec_release(&r->files);
    mn_vec_release(&r->context);
    mn_vec_release(&r->base);
    mn_vec_release(&r->search_cpu);
    mn_vec_release(&r->files_cpu);
    mn_vec_release(&r->context_cpu);
}

static int run_long(ev_store *s, ev_bm25 *b, const options *o, long_run *r)
{
    json_t *data = ev_load_jsonl(o->long_file);
    if (!data)
        return -1;
    size_t max = ev_search_query_max(32768), i;
    json_t *inst;
    int rc = 0;
    json_array_foreach(data, i, inst)
    {
        const char *ps = json_string_value(json_object_get(inst, "problem_statement"));
        if (!ps || !*ps)
            continue;
        size_t len = strlen(ps);
        if (len > max) {
            r->cut++;
            len = mn_utf8_floor(ps, len, max);
        }
        char *q = mn_strndup(ps, len);
        json_t *sa = json_pack("{s:s,s:[s,s],s:i}", "query", q, "kinds", "memory", "code", "k", 10);
        json_t *fa = json_pack("{s:s,s:[s],s:i}", "query", q, "kinds", "file", "k", 10);
        json_t *ca = json_pack("{s:s,s:i}", "query", q, "max_tokens", (int)o->max_tokens);
        json_t *res = NULL;
        double ms = 0, fms = 0, cms = 0, bms = 0, c0 = cpu_ms();
        if ((rc = ev_search(s, sa, &res, &ms)) == 0) {
            mn_vec_push(&r->search, ms);
            mn_vec_push(&r->search_cpu, cpu_ms() - c0);
        }
        json_decref(res);
        res = NULL;
        c0 = cpu_ms();
        if (rc == 0 && (rc = ev_search(s, fa, &res, &fms)) == 0) {
            mn_vec_push(&r->files, fms);
            mn_vec_push(&r->files_cpu, cpu_ms() - c0);
        }
        json_decref(res);
        res = NULL;
        uint64_t t0 = ev_now_ns();
        c0 = cpu_ms();
        if (rc == 0 && (rc = ev_call(s, "context", ca, &res)) == 0) {
            cms = ev_ms_since(t0);
            mn_vec_push(&r->context, cms);
            mn_vec_push(&r->context_cpu, cpu_ms() - c0);
        }
        json_decref(res);
        int64_t ids[10];
        size_t n = 0;
        t0 = ev_now_ns();
        if (rc == 0 && !o->no_bm25 && (rc = ev_bm25_search(b, q, 0, 10, ids, &n)) == 0) {
            bms = ev_ms_since(t0);
            mn_vec_push(&r->base, bms);
        }
        if (rc == 0 && o->verbose)
            fprintf(
                stderr, "long %-32s %5zu B  search %7.2f  files %7.2f  context %7.2f  bm25 %8.2f\n",
                json_string_value(json_object_get(inst, "instance_id")), len, ms, fms, cms, bms);
        r->n += rc == 0;
        json_decref(sa);
        json_decref(fa);
        json_decref(ca);
        free(q);
        if (rc)
            break;
    }
    json_decref(data);
    return rc;
}

static void row(FILE *f, const char *name, ev_samples *v)
{
    fprintf(f, "  %-10s %9.2f %9.2f %9.2f\n", name, ev_percentile(v, 0.5), ev_percentile(v, 0.95),
            ev_percentile(v, 0.99));
}

int main(int argc, char **argv)
{
    options o = {0};
    int rc = parse(&o, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    char *dir = o.store ? mn_strdup(o.store) : ev_mkdtemp("mnemo-bench-retrieve");
    bool reuse = false;
    if (o.store) {
        mn_buf db = MN_BUF_INIT;
        mn_buf_printf(&db, "%s/.mnemo/mnemo.db", o.store);
        reuse = mn_fs_exists(db.ptr);
        mn_buf_release(&db);
    }
    ev_store s;
    ev_bm25 *b = NULL;
    json_t *names = NULL;
    ev_samples search = MN_VEC_INIT, context = MN_VEC_INIT, base = MN_VEC_INIT;
    ev_samples search_memory = MN_VEC_INIT, search_code = MN_VEC_INIT; /* the same, by question */
    long_run lr = {MN_VEC_INIT, MN_VEC_INIT, MN_VEC_INIT,
                   MN_VEC_INIT, MN_VEC_INIT, MN_VEC_INIT,
                   MN_VEC_INIT, 0,           0};
    if (!dir || ev_store_open(&s, dir) != 0)
        return 2;
    if ((rc = ev_bm25_open(&b, 2)) != 0)
        goto out;

    /* set-up: memories, then the index */
    uint64_t t0 = ev_now_ns();
    memory_text m;
    memset(&m, 0, sizeof(m));
    for (size_t i = 0; i < o.n && rc == 0; i++) {
        memory_text_make(&m, i);
        json_t *args = memory_text_json(&m), *res = NULL;
        if (!reuse)
            rc = ev_call(&s, "save", args, &res);
        const char *cols[2] = {m.title.ptr, m.body.ptr};
        if (rc == 0)
            rc = ev_bm25_add(b, (int64_t)i + 1, cols);
        json_decref(res);
        json_decref(args);
        if (i % 10000 == 9999)
            fprintf(stderr, "\rbench_retrieve: %zu memories saved", i + 1);
    }
    memory_text_release(&m);
    fprintf(stderr, "\n");
    double save_s = ev_ms_since(t0) / 1000;
    t0 = ev_now_ns();
    json_t *args = json_pack("{s:s}", "path", o.repo), *res = NULL;
    if (rc == 0 && !reuse)
        rc = ev_call(&s, "index", args, &res);
    json_decref(args);
    json_decref(res);
    double index_s = ev_ms_since(t0) / 1000;
    args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", "index.refresh_age", "value", "0");
    res = NULL;
    if (rc == 0)
        rc = ev_call(&s, "config", args, &res);
    json_decref(args);
    json_decref(res);
    size_t nchunks = 0;
    if (rc == 0)
        rc = baseline_chunks(s.db, b, &nchunks);
    if (rc)
        goto out;
    names = symbol_names(&s);
    /* what a server does between requests (mcp/stdio.c, http/server.c): the
     * figures are a long-lived process's, as `mnemo mcp` answers them */
    if ((rc = mn_ctx_prepare(s.ctx)) != 0)
        goto out;

    /* the queries */
    size_t asked = 0, found = 0, base_found = 0, answer_bytes = 0;
    for (size_t i = 0; i < o.queries && rc == 0 && !o.only_long; i++) {
        size_t source;
        char *q = make_query(i, o.n, names, &source);
        json_t *sa = json_pack("{s:s,s:[s,s],s:i}", "query", q, "kinds", "memory", "code", "k", 10);
        json_t *ca = json_pack("{s:s,s:i}", "query", q, "max_tokens", (int)o.max_tokens);
        double ms = 0;
        res = NULL;
        if ((rc = ev_search(&s, sa, &res, &ms)) == 0) {
            mn_vec_push(&search, ms);
            if (source != SIZE_MAX)
                mn_vec_push(&search_memory, ms);
            else
                mn_vec_push(&search_code, ms);
        }
        if (rc == 0 && source != SIZE_MAX) {
            asked++;
            found += found_in(res, source);
        }
        json_decref(res);
        res = NULL;
        uint64_t c0 = ev_now_ns();
        if (rc == 0 && (rc = ev_call(&s, "context", ca, &res)) == 0) {
            mn_vec_push(&context, ev_ms_since(c0));
            const char *md = json_string_value(json_object_get(res, "markdown"));
            answer_bytes += md ? strlen(md) : 0;
        }
        json_decref(res);
        int64_t ids[10];
        size_t n = 0;
        c0 = ev_now_ns();
        if (rc == 0 && (rc = ev_bm25_search(b, q, 0, 10, ids, &n)) == 0)
            mn_vec_push(&base, ev_ms_since(c0));
        for (size_t k = 0; rc == 0 && source != SIZE_MAX && k < n; k++)
            if (ids[k] == (int64_t)source + 1) {
                base_found++;
                break;
            }
        if (rc == 0 && o.verbose)
            fprintf(stderr, "search %7.2f  context %7.2f  %s\n", ms, context.items[context.len - 1],
                    q);
        json_decref(sa);
        json_decref(ca);
        free(q);
    }
    if (rc)
        goto out;
    if (o.long_file && (rc = run_long(&s, b, &o, &lr)) != 0)
        goto out;

    double sp95 = ev_percentile(&search, 0.95), cp95 = ev_percentile(&context, 0.95),
           bp95 = ev_percentile(&base, 0.95);
    FILE *f = o.json ? stderr : stdout;
    fprintf(f, "bench_retrieve: %zu memories, %s (%zu chunks), %zu queries\n", o.n, o.repo, nchunks,
            o.queries);
    fprintf(f, "  set-up: saves %.1f s, index %.1f s\n", save_s, index_s);
    bool ok_s = true, ok_c = true, ok_l = true;
    double fr = 0, bfr = 0;
    if (!o.only_long) {
        fprintf(f, "  %-10s %9s %9s %9s   (ms)\n", "", "p50", "p95", "p99");
        row(f, "search", &search);
        row(f, " memory q.", &search_memory);
        row(f, " code q.", &search_code);
        row(f, "context", &context);
        row(f, "bm25", &base);
        fprintf(f, "  ratios at p95: search/bm25 %.3f, context/bm25 %.3f\n", sp95 / bp95,
                cp95 / bp95);
        fprintf(f, "  context answers (max_tokens %zu): mean %.0f bytes of Markdown\n",
                o.max_tokens, context.len ? (double)answer_bytes / (double)context.len : 0.0);
        fr = asked ? (double)found / (double)asked : 0;
        bfr = asked ? (double)base_found / (double)asked : 0;
        fprintf(f,
                "  memory questions whose source memory is in the top 10: search %.3f, bm25 %.3f "
                "(%zu)\n",
                fr, bfr, asked);
        ok_s = sp95 <= TARGET_SEARCH_P95_MS;
        ok_c = cp95 <= TARGET_CONTEXT_P95_MS;
        fprintf(
            f,
            "  targets (issue 4, 2 cores): search p95 <= %.0f ms %s, context p95 <= %.0f ms %s\n",
            TARGET_SEARCH_P95_MS, ok_s ? "PASS" : "FAIL", TARGET_CONTEXT_P95_MS,
            ok_c ? "PASS" : "FAIL");
    }
    double lp95 = ev_percentile(&lr.search, 0.95), lbp95 = ev_percentile(&lr.base, 0.95);
    if (o.long_file) {
        fprintf(f, "long queries: %zu problem statements of %s (%zu cut at the query limit)\n",
                lr.n, o.long_file, lr.cut);
        fprintf(f, "  %-10s %9s %9s %9s   (ms)\n", "", "p50", "p95", "p99");
        row(f, "search", &lr.search);
        row(f, " files", &lr.files);
        row(f, "context", &lr.context);
        if (!o.no_bm25) {
            row(f, "bm25", &lr.base);
            fprintf(f, "  ratios at p95: search/bm25 %.3f, files/bm25 %.3f, context/bm25 %.3f\n",
                    lp95 / lbp95, ev_percentile(&lr.files, 0.95) / lbp95,
                    ev_percentile(&lr.context, 0.95) / lbp95);
        }
        fprintf(f, "  CPU time of the process (ms; the work, whatever the load):\n");
        row(f, "search", &lr.search_cpu);
        row(f, " files", &lr.files_cpu);
        row(f, "context", &lr.context_cpu);
        ok_l = lp95 <= TARGET_LONG_P95_MS;
        fprintf(f, "  target (issue 22, 2 cores): long search p95 <= %.0f ms %s\n",
                TARGET_LONG_P95_MS, ok_l ? "PASS" : "FAIL");
    }
    if (o.json) {
        json_t *j = json_pack("{s:I,s:I,s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f},s:f,s:f,s:{s:f,s:f}}",
                              "memories", (json_int_t)o.n, "queries", (json_int_t)o.queries,
                              "search", "p50", ev_percentile(&search, 0.5), "p95", sp95, "context",
                              "p50", ev_percentile(&context, 0.5), "p95", cp95, "bm25", "p50",
                              ev_percentile(&base, 0.5), "p95", bp95, "save_s", save_s, "index_s",
                              index_s, "found_at_10", "search", fr, "bm25", bfr);
        if (o.long_file)
            json_object_set_new(
                j, "long",
                json_pack("{s:I,s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f},s:{s:f,s:f}}", "queries",
                          (json_int_t)lr.n, "search", "p50", ev_percentile(&lr.search, 0.5), "p95",
                          lp95, "files", "p50", ev_percentile(&lr.files, 0.5), "p95",
                          ev_percentile(&lr.files, 0.95), "context", "p50",
                          ev_percentile(&lr.context, 0.5), "p95", ev_percentile(&lr.context, 0.95),
                          "bm25", "p50", ev_percentile(&lr.base, 0.5), "p95", lbp95));
        char *txt = json_dumps(j, JSON_COMPACT);
        puts(txt);
        free(txt);
        json_decref(j);
    }
    if (o.strict && (!ok_s || !ok_c || !ok_l))
        rc = 1;
out:
    json_decref(names);
    ev_bm25_close(b);
    ev_store_close(&s, !o.store);
    free(dir);
    mn_vec_release(&search);
    mn_vec_release(&search_memory);
    mn_vec_release(&search_code);
    mn_vec_release(&context);
    mn_vec_release(&base);
    long_release(&lr);
    return rc < 0 ? 2 : rc;
}
