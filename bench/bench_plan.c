/*
 * bench_plan.c - `plan` (issue 23) on SWE-bench instances already indexed:
 * the file plan for each problem statement against the search's file
 * ranking (what context's code section and bench_swebench rank by), the
 * legacy plan and a plain BM25, in the same run, on the same stores.
 *
 * Protocol, per instance of DEV_JSONL (instance_id, problem_statement,
 * patch) whose store exists as STORES/<instance_id> (a checkout with its
 * .mnemo/, as bench_swebench --stores leaves them; copy them first, this
 * sets index.refresh_age 0 in each so that no call re-indexes):
 *  - gold files: the a/ paths of the patch's "diff --git" headers;
 *  - plan: op plan_files {task} (graph_first_v1), its selected paths;
 *  - legacy: op plan_files {task, legacy: true};
 *  - search: op search {query, kinds: [file], k: 10} (the query cut to the
 *    search schema's maximum, as bench_swebench does);
 *  - bm25: one FTS5 unicode61 document per indexed file (path, content
 *    read from the checkout, files over 1 MiB left out), the first 256
 *    distinct tokens of the statement OR-ed (eval_bm25.c), top 10.
 * Metrics: file Acc@k (k = 1, 3, 5: every gold file in the top k), the
 * share of tasks with semantic_hit_count > 0, and the infra, marker and
 * lock files in the final sets (plan's selected, legacy's selected): lock
 * = role lock; marker = role marker or a file of at most 5 lines; infra =
 * role config or build. Latency: the plan_files call, p50 and p95.
 *
 * --warm ROOT --repeat N: then N plans for the instances' statements in
 * turn on the store of ROOT (ROOT/.mnemo/mnemo.db, e.g. a sympy checkout),
 * after one call that warms it; p50 and p95 of those.
 *
 * Usage: bench_plan DEV_JSONL --stores DIR [--limit N] [--warm ROOT --repeat N]
 *                   [--weights LEX,SYM,PATH,MENTION,SEM] [--verbose]
 * --weights runs the plan through mn_plan_run with those weights (tier A's
 * noisy-OR and the semantic share of fusion), for the ablations of
 * docs/internals/plan.md.
 */
#include "common.h"
#include <math.h>
#include <strings.h>
#include <time.h>

#include "api/api_internal.h"
#include "eval/eval.h"
#include "retrieve/embed.h"
#include "retrieve/plan.h"
#include "util/map.h"
#include "util/util.h"

#define PROG      "bench_plan"
#define K         10
#define MAX_QUERY 32768

enum { S_PLAN, S_LEGACY, S_SEARCH, S_BM25, NSYS };
static const size_t ks[] = {1, 3, 5};

typedef struct {
    double acc[NSYS][3];
    size_t n, sem_hits, plan_sel, legacy_sel;
    size_t noise[3][3]; /* plan, legacy, bm25 x infra, marker, lock (top K) */
    ev_samples plan_ms, legacy_ms, search_ms;
    bool verbose;
    const double *weights; /* --weights: plan run with these (mn_plan_request.weights) */
} totals;

/* The plan with T->weights, called directly (the op has no weights): its selected paths. */
static json_t *plan_weighted(mn_ctx *ctx, const char *task, const double *weights, double *ms)
{
    mn_plan_request req = {0};
    mn_plan_result res;
    mn_embedder *e = NULL;
    char *note = NULL;
    req.task = task;
    req.root = ctx->root;
    req.min_final_score = -1;
    req.weights = weights;
    if (mn_api__embedder(ctx, true, &e, &note) != 0)
        mn_error_clear();
    req.search_embedder = e;
    uint64_t t0 = ev_now_ns();
    int rc = mn_plan_run(ctx->store, &req, &res);
    *ms = ev_ms_since(t0);
    json_t *out =
        json_pack("{s:[],s:i,s:s}", "selected", "semantic_hit_count", (int)res.semantic_hit_count,
                  "pipeline_version", rc ? "failed" : res.pipeline_version);
    for (size_t i = 0; rc == 0 && i < res.nselected; i++)
        json_array_append_new(json_object_get(out, "selected"),
                              json_pack("{s:s}", "path", res.files[res.selected[i]].path));
    json_object_set_new(out, "semantic_backend_used",
                        json_string(res.backend ? res.backend : "none"));
    mn_plan_result_release(&res);
    mn_embedder_free(e);
    free(note);
    mn_error_clear();
    return out;
}

typedef MN_VEC(char *) str_vec;

static void gold_files(const char *patch, str_vec *out)
{
    for (const char *p = patch; p && (p = strstr(p, "diff --git a/")) != NULL;) {
        p += strlen("diff --git a/");
        const char *e = strstr(p, " b/");
        if (!e)
            break;
        mn_vec_push(out, mn_strndup(p, (size_t)(e - p)));
    }
}

/* Acc@k: every gold path among the first k of paths. */
static double acc_at(char **paths, size_t n, size_t k, char **gold, size_t ngold)
{
    if (!ngold)
        return 0;
    for (size_t g = 0; g < ngold; g++) {
        bool found = false;
        for (size_t i = 0; i < n && i < k && !found; i++)
            found = !strcmp(paths[i], gold[g]);
        if (!found)
            return 0;
    }
    return 1;
}

static size_t paths_of(const json_t *arr, const char *member, char **out, size_t max)
{
    size_t i, n = 0;
    const json_t *x;
    json_array_foreach(arr, i, x)
    {
        const char *p = json_string_value(json_object_get(x, member));
        if (p && n < max)
            out[n++] = (char *)p;
    }
    return n;
}

/* the noise among a system's top files; --verbose names each: "IID SYSTEM noise: PATH (role,
 * N lines)" on stderr */
static void count_noise(char **paths, size_t n, const json_t *files_by_path, size_t *noise,
                        const char *verbose_label)
{
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_object_get(files_by_path, paths[i]);
        const char *role = json_string_value(json_object_get(f, "role"));
        json_int_t lines = json_integer_value(json_object_get(f, "lines"));
        if (!role)
            continue;
        bool infra = !strcmp(role, "config") || !strcmp(role, "build");
        bool marker = !strcmp(role, "marker") || lines <= 5, lock = !strcmp(role, "lock");
        noise[0] += infra;
        noise[1] += marker;
        noise[2] += lock;
        if (verbose_label && (infra || marker || lock))
            fprintf(stderr, "%s noise: %s (%s, %lld lines)\n", verbose_label, paths[i], role,
                    (long long)lines);
    }
}

/* the CPU time of the whole process (the semantic stage scans on a second thread), in ms:
 * on a loaded machine the wall time is mostly waiting, the CPU time is the work */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double last_cpu_ms; /* the CPU time of the last call */

static int call(mn_ctx *ctx, const char *op, json_t *args, json_t **out, double *ms)
{
    uint64_t t0 = ev_now_ns();
    double c0 = cpu_ms();
    int rc = mn_api_call(ctx, op, args, out);
    last_cpu_ms = cpu_ms() - c0;
    if (ms)
        *ms = ev_ms_since(t0);
    json_decref(args);
    if (rc)
        fprintf(stderr, PROG ": %s: %s\n", op, mn_error_last());
    return rc;
}

static int open_ctx(mn_ctx **ctx, const char *dir)
{
    /* found from dir as the CLI finds it (the nearest .mnemo/), so that the context has the
     * project root the semantic stage reads files below: an explicit db path takes the root
     * from a .git, which a bare copy of a checkout (the warm sympy) lacks */
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.start_dir = dir;
    o.actor = "bench";
    o.create = false;
    int rc = mn_ctx_open(ctx, &o);
    if (rc == 0 && !mn_ctx_root(*ctx))
        fprintf(stderr, PROG ": %s: no project root: the semantic stage will not run\n", dir);
    if (rc)
        return rc;
    json_t *r = NULL;
    rc = call(*ctx, "config",
              json_pack("{s:s,s:s,s:s}", "action", "set", "key", "index.refresh_age", "value", "0"),
              &r, NULL);
    json_decref(r);
    return rc;
}

static int bm25_rank(mn_ctx *ctx, const char *dir, const json_t *files, const char *ps,
                     char **paths, size_t *n)
{
    ev_bm25 *b = NULL;
    int rc = ev_bm25_open(&b, 2);
    size_t i;
    const json_t *f;
    const char **names = mn_calloc(json_array_size(files) + 1, sizeof(*names));
    (void)ctx;
    json_array_foreach(files, i, f)
    {
        const char *p = json_string_value(json_object_get(f, "path"));
        names[i] = p;
        mn_buf path = MN_BUF_INIT, text = MN_BUF_INIT;
        mn_buf_printf(&path, "%s/%s", dir, p);
        if (mn_fs_read_regular(&text, path.ptr, 1u << 20) == 0) {
            const char *cols[2] = {p, text.ptr ? text.ptr : ""};
            if (rc == 0)
                rc = ev_bm25_add(b, (int64_t)i, cols);
        }
        mn_error_clear();
        mn_buf_release(&path);
        mn_buf_release(&text);
    }
    int64_t ids[K];
    size_t got = 0;
    if (rc == 0)
        rc = ev_bm25_search(b, ps, 256, K, ids, &got);
    *n = 0;
    for (size_t j = 0; j < got; j++)
        paths[(*n)++] = (char *)names[ids[j]];
    free(names);
    ev_bm25_close(b);
    return rc;
}

static void one(totals *T, const char *stores, const json_t *inst)
{
    const char *iid = ev_str(inst, "instance_id"), *ps = ev_str(inst, "problem_statement"),
               *patch = ev_str(inst, "patch");
    str_vec gold = MN_VEC_INIT;
    mn_ctx *ctx = NULL;
    json_t *files = NULL, *byp = json_object(), *rp = NULL, *rl = NULL, *rs = NULL;
    char *query = NULL;
    mn_buf dir = MN_BUF_INIT, db = MN_BUF_INIT;
    mn_buf_printf(&dir, "%s/%s", stores, iid ? iid : "");
    mn_buf_printf(&db, "%s/.mnemo/mnemo.db", dir.ptr);
    if (!iid || !ps || !patch || !mn_fs_exists(db.ptr))
        goto out;
    gold_files(patch, &gold);
    if (!gold.len || open_ctx(&ctx, dir.ptr) != 0)
        goto out;
    if (call(ctx, "files", json_pack("{s:i}", "limit", 1000000), &files, NULL) != 0)
        goto out;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(files, "files"), i, f)
        json_object_set(byp, json_string_value(json_object_get(f, "path")), f);
    size_t len = strlen(ps), max = ev_search_query_max(MAX_QUERY);
    if (len > max)
        len = mn_utf8_floor(ps, len, max);
    query = mn_strndup(ps, len);
    double ms_plan = 0, ms_legacy = 0, ms_search = 0;
    if (T->weights)
        rp = plan_weighted(ctx, query, T->weights, &ms_plan);
    if ((!rp && call(ctx, "plan_files", json_pack("{s:s}", "task", query), &rp, &ms_plan) != 0) ||
        call(ctx, "plan_files", json_pack("{s:s,s:b}", "task", query, "legacy", 1), &rl,
             &ms_legacy) != 0 ||
        call(ctx, "search", json_pack("{s:s,s:[s],s:i}", "query", query, "kinds", "file", "k", K),
             &rs, &ms_search) != 0)
        goto out;
    mn_vec_push(&T->plan_ms, ms_plan);
    mn_vec_push(&T->legacy_ms, ms_legacy);
    mn_vec_push(&T->search_ms, ms_search);
    char *ranks[NSYS][K];
    size_t n[NSYS];
    n[S_PLAN] = paths_of(json_object_get(rp, "selected"), "path", ranks[S_PLAN], K);
    n[S_LEGACY] = paths_of(json_object_get(rl, "selected"), "path", ranks[S_LEGACY], K);
    n[S_SEARCH] = paths_of(json_object_get(rs, "items"), "path", ranks[S_SEARCH], K);
    if (bm25_rank(ctx, dir.ptr, json_object_get(files, "files"), query, ranks[S_BM25],
                  &n[S_BM25]) != 0)
        n[S_BM25] = 0;
    for (int s = 0; s < NSYS; s++)
        for (size_t k = 0; k < 3; k++)
            T->acc[s][k] += acc_at(ranks[s], n[s], ks[k], gold.items, gold.len);
    if (json_integer_value(json_object_get(rp, "semantic_hit_count")) > 0)
        T->sem_hits++;
    T->plan_sel += json_array_size(json_object_get(rp, "selected"));
    T->legacy_sel += json_array_size(json_object_get(rl, "selected"));
    static const int noisy[3] = {S_PLAN, S_LEGACY, S_BM25};
    static const char *const noisy_names[3] = {"plan", "legacy", "bm25"};
    for (int s = 0; s < 3; s++) {
        mn_buf label = MN_BUF_INIT;
        mn_buf_printf(&label, "%s %s", iid, noisy_names[s]);
        count_noise(ranks[noisy[s]], n[noisy[s]], byp, T->noise[s], T->verbose ? label.ptr : NULL);
        mn_buf_release(&label);
    }
    T->n++;
    if (T->verbose) {
        fprintf(stderr, "%s gold", iid);
        for (size_t g = 0; g < gold.len; g++)
            fprintf(stderr, " %s", gold.items[g]);
        fprintf(stderr, " | plan %s (%s) %.0f ms:",
                json_string_value(json_object_get(rp, "pipeline_version")),
                json_string_value(json_object_get(rp, "semantic_backend_used")), ms_plan);
        for (size_t j = 0; j < n[S_PLAN] && j < 5; j++)
            fprintf(stderr, " %s", ranks[S_PLAN][j]);
        fprintf(stderr, " | search:");
        for (size_t j = 0; j < n[S_SEARCH] && j < 5; j++)
            fprintf(stderr, " %s", ranks[S_SEARCH][j]);
        fputc('\n', stderr);
    }
out:
    json_decref(files);
    json_decref(byp);
    json_decref(rp);
    json_decref(rl);
    json_decref(rs);
    free(query);
    for (size_t g = 0; g < gold.len; g++)
        free(gold.items[g]);
    mn_vec_release(&gold);
    mn_buf_release(&dir);
    mn_buf_release(&db);
    if (ctx)
        mn_ctx_free(ctx);
}

/* The plan's own stage times: its trace's "time: <stage> X ms" lines, summed per stage. */
typedef struct {
    char name[64];
    double total;
} stage_time;

static void stage_times(const json_t *out, stage_time *st, size_t *nst, size_t max)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(out, "trace"), i, x)
    {
        const char *line = json_string_value(x);
        if (!line || strncmp(line, "time: ", 6) != 0)
            continue;
        /* "time: a %.1f ms" or "time: a %.1f ms, b %.1f ms" */
        for (const char *s = line + 6; *s;) {
            const char *e = strstr(s, " ms");
            if (!e)
                break;
            const char *num = e;
            while (num > s && num[-1] != ' ')
                num--;
            size_t nlen = num > s ? (size_t)(num - s - 1) : 0;
            double v = strtod(num, NULL);
            size_t k = 0;
            while (k < *nst && (strlen(st[k].name) != nlen || strncmp(st[k].name, s, nlen)))
                k++;
            if (k == *nst && *nst < max && nlen < sizeof(st[k].name)) {
                memcpy(st[k].name, s, nlen);
                st[k].name[nlen] = '\0';
                st[k].total = 0;
                (*nst)++;
            }
            if (k < *nst)
                st[k].total += v;
            s = e + 3;
            while (*s == ',' || *s == ' ')
                s++;
        }
    }
}

static void warm(const char *root, const json_t *insts, size_t repeat, FILE *dump)
{
    mn_ctx *ctx = NULL;
    ev_samples ms = MN_VEC_INIT, sms = MN_VEC_INIT, cms = MN_VEC_INIT, scms = MN_VEC_INIT;
    stage_time st[16];
    size_t nst = 0;
    if (open_ctx(&ctx, root) != 0)
        return;
    size_t ninst = json_array_size(insts);
    for (size_t r = 0; r <= repeat && ninst; r++) {
        const char *ps = ev_str(json_array_get(insts, r % ninst), "problem_statement");
        size_t len = strlen(ps), max = ev_search_query_max(MAX_QUERY);
        char *q = mn_strndup(ps, len > max ? mn_utf8_floor(ps, len, max) : len);
        json_t *out = NULL;
        double t = 0, ts = 0;
        if (call(ctx, "plan_files", json_pack("{s:s,s:b}", "task", q, "trace", 1), &out, &t) == 0 &&
            r > 0) {
            mn_vec_push(&ms, t);
            mn_vec_push(&cms, last_cpu_ms);
            stage_times(out, st, &nst, MN_ARRAY_SIZE(st));
            if (dump) {
                /* the answer without its trace (the trace has times) */
                json_object_del(out, "trace");
                char *d = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
                fprintf(dump, "%s\n", d ? d : "null");
                free(d);
            }
        }
        json_decref(out);
        out = NULL;
        if (call(ctx, "search", json_pack("{s:s,s:[s],s:i}", "query", q, "kinds", "file", "k", K),
                 &out, &ts) == 0 &&
            r > 0) {
            mn_vec_push(&sms, ts);
            mn_vec_push(&scms, last_cpu_ms);
        }
        json_decref(out);
        free(q);
    }
    printf("warm %s: plan p50 %.1f ms p95 %.1f ms | search (file) p50 %.1f ms p95 %.1f ms "
           "(n=%zu)\n",
           root, ev_percentile(&ms, 0.5), ev_percentile(&ms, 0.95), ev_percentile(&sms, 0.5),
           ev_percentile(&sms, 0.95), ms.len);
    printf("warm CPU (process): plan p50 %.1f ms p95 %.1f ms | search (file) p50 %.1f ms p95 "
           "%.1f ms\n",
           ev_percentile(&cms, 0.5), ev_percentile(&cms, 0.95), ev_percentile(&scms, 0.5),
           ev_percentile(&scms, 0.95));
    printf("plan stages (mean ms):");
    for (size_t k = 0; k < nst; k++)
        printf("%s %s %.1f", k ? "," : "", st[k].name, st[k].total / (double)(ms.len ? ms.len : 1));
    printf("\n");
    mn_vec_release(&ms);
    mn_vec_release(&sms);
    mn_vec_release(&cms);
    mn_vec_release(&scms);
    mn_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    const char *input = NULL, *stores = NULL, *warm_root = NULL, *dump_path = NULL;
    size_t limit = 0, repeat = 0;
    double weights[5] = {0};
    totals T;
    memset(&T, 0, sizeof(T));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stores") && i + 1 < argc)
            stores = argv[++i];
        else if (!strcmp(argv[i], "--limit") && i + 1 < argc)
            limit = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--warm") && i + 1 < argc)
            warm_root = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump_path = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--weights") && i + 1 < argc) {
            char *p = argv[++i];
            for (int w = 0; w < 5; w++) {
                weights[w] = strtod(p, &p);
                if (*p == ',')
                    p++;
            }
            T.weights = weights;
        } else if (!strcmp(argv[i], "--verbose"))
            T.verbose = true;
        else if (argv[i][0] != '-' && !input)
            input = argv[i];
        else {
            fprintf(stderr,
                    "usage: " PROG " DEV_JSONL --stores DIR [--limit N] [--warm ROOT --repeat N "
                    "[--dump FILE]] [--verbose]\n");
            return 2;
        }
    }
    if (!input) {
        printf(PROG ": no DEV_JSONL given: skipped\n");
        return 0;
    }
    json_t *insts = ev_load_jsonl(input);
    if (!insts) {
        fprintf(stderr, PROG ": cannot read %s\n", input);
        return 2;
    }
    size_t total = json_array_size(insts);
    for (size_t i = 0; stores && i < total && (!limit || i < limit); i++)
        one(&T, stores, json_array_get(insts, i));
    if (T.n) {
        printf("bench_plan on %s: %zu instances scored (stores in %s)\n", input, T.n, stores);
        printf("            |   plan  legacy  search    bm25\n");
        for (size_t k = 0; k < 3; k++) {
            printf("file_acc@%zu  |", ks[k]);
            for (int s = 0; s < NSYS; s++)
                printf(" %7.3f", T.acc[s][k] / (double)T.n);
            printf("\n");
        }
        printf("semantic_hit_count > 0: %.1f%% of tasks\n",
               100.0 * (double)T.sem_hits / (double)T.n);
        printf("final sets: plan %zu files, legacy %zu files (bm25: its top %d)\n", T.plan_sel,
               T.legacy_sel, K);
        static const char *const what[3] = {"infra (config, build)",
                                            "marker (role marker or <= 5 lines)", "lock"};
        size_t all[3] = {0, 0, 0};
        for (int w = 0; w < 3; w++) {
            printf("  %s: plan %zu, legacy %zu, bm25 %zu\n", what[w], T.noise[0][w], T.noise[1][w],
                   T.noise[2][w]);
            for (int s = 0; s < 3; s++)
                all[s] += T.noise[s][w];
        }
        printf("  infra+marker+lock: plan %zu, legacy %zu (%.0f%% fewer), bm25 %zu (%.0f%% "
               "fewer)\n",
               all[0], all[1], all[1] ? 100.0 * (1 - (double)all[0] / (double)all[1]) : 0.0, all[2],
               all[2] ? 100.0 * (1 - (double)all[0] / (double)all[2]) : 0.0);
        printf("latency ms: plan p50 %.1f p95 %.1f | legacy p50 %.1f p95 %.1f | search p50 %.1f "
               "p95 %.1f\n",
               ev_percentile(&T.plan_ms, 0.5), ev_percentile(&T.plan_ms, 0.95),
               ev_percentile(&T.legacy_ms, 0.5), ev_percentile(&T.legacy_ms, 0.95),
               ev_percentile(&T.search_ms, 0.5), ev_percentile(&T.search_ms, 0.95));
    }
    if (warm_root) {
        FILE *dump = dump_path ? fopen(dump_path, "w") : NULL;
        if (dump_path && !dump)
            fprintf(stderr, PROG ": cannot write %s\n", dump_path);
        warm(warm_root, insts, repeat ? repeat : 50, dump);
        if (dump)
            fclose(dump);
    }
    mn_vec_release(&T.plan_ms);
    mn_vec_release(&T.legacy_ms);
    mn_vec_release(&T.search_ms);
    json_decref(insts);
    return 0;
}
