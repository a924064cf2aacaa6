/*
 * bench_pg_search.c - memory search on PostgreSQL against SQLite, with N
 * memories (default 100,000) in each, in the same process (issue 24:
 * search p95 <= 30 ms with 100k memories on PostgreSQL; both back ends
 * rank alike).
 *
 * Set-up (reported, not a figure): a SQLite store in a temporary
 * directory, and a new project of the PostgreSQL database --db names
 * (give a fresh database: the project stays); the same N memories
 * (bench/eval/gen_memory.h, bench_store's and bench_retrieve's) written
 * into both through the store (mn_store_memory_insert, 1,000 to a
 * transaction: saving through the op runs the near-duplicate check per
 * memory, which is not what is measured), then mn_ctx_prepare on each, as
 * a server runs it. Config embed.provider = off on both: the lexical
 * path, the one this back end's postings serve (vectors are another
 * part).
 *
 * Queries (--queries Q, default 200, fixed seed): 3-6 words of a saved
 * memory's title and body, plus one of its keywords half of the time
 * (bench_retrieve's memory questions). Each runs as op search {query,
 * kinds [memory], k 10} on SQLite, then on PostgreSQL. Reported: p50, p95,
 * p99 of each, the ratio PostgreSQL/SQLite at p95 (the number to compare
 * over time), the share of questions whose source memory is in the 10
 * items, and how many answers differ between the back ends (ids in
 * order). PASS/FAIL: PostgreSQL p95 <= 30 ms, and no answer differs.
 *
 * --keep DIR keeps both stores for the next run (100k memories take
 * minutes to write into PostgreSQL): the SQLite store in DIR, the
 * project's name and its ids' prefix in DIR/bench.txt with N; a later run
 * with the same DIR and N (and --db) searches them without writing.
 *
 * Usage: bench_pg_search --db URL [-n N] [--queries Q] [--keep DIR] [--strict]
 * Exit status: 0, 1 with --strict when a target fails, 2 on usage or
 * setup errors.
 */
#include "common.h"
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "eval/eval.h"
#include "eval/gen_memory.h"
#include "mnemo/api.h"
#include "store/store.h"
#include "util/util.h"

#define TARGET_P95_MS 30.0

typedef struct {
    const char *db, *keep;
    size_t n, queries;
    bool strict;
} options;

static int usage(FILE *f)
{
    fprintf(f, "usage: bench_pg_search --db URL [-n N] [--queries Q] [--keep DIR] [--strict]\n"
               "  --db URL     a PostgreSQL database (a new project is made in it)\n"
               "  -n N         memories in each store (default 100000)\n"
               "  --queries Q  questions (default 200)\n"
               "  --keep DIR   keep both stores in DIR and reuse them when they hold N\n"
               "  --strict     exit 1 when a target fails\n");
    return 2;
}

static int config_set(mn_ctx *ctx, const char *key, const char *value)
{
    json_t *out = NULL,
           *args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", key, "value", value);
    int rc = mn_api_call(ctx, "config", args, &out);
    json_decref(args);
    json_decref(out);
    return rc;
}

/* The ids' prefix: the run's own (ids are unique in a database), or the kept stores'. */
static long id_tag;

/* Memory i as the store keeps it: the save input plus what save would add. */
static json_t *stored_memory(size_t i, memory_text *m)
{
    char id[32];
    memory_text_make(m, i);
    json_t *j = memory_text_json(m);
    /* a ULID-shaped id, increasing with i (the run's own: ids are unique in a database) */
    snprintf(id, sizeof(id), "01J%05ld%018zu", id_tag, i);
    json_object_set_new(j, "id", json_string(id));
    json_object_set_new(j, "level", json_string("L1"));
    json_object_set_new(j, "status", json_string("active"));
    json_object_set_new(j, "confidence", json_real(0.8));
    json_object_set_new(j, "created_at", json_string("2026-01-01T00:00:00.000Z"));
    json_object_set_new(j, "updated_at", json_string("2026-01-01T00:00:00.000Z"));
    json_object_set_new(j, "counters",
                        json_pack("{s:i,s:i,s:i}", "hits", 0, "used", 0, "ignored", 0));
    return j;
}

static int fill(mn_ctx *ctx, size_t n, double *secs)
{
    memory_text m;
    memset(&m, 0, sizeof(m));
    uint64_t t0 = ev_now_ns();
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i += 1000) {
        if ((rc = mn_store_begin(ctx->store)) != 0)
            break;
        for (size_t k = i; k < n && k < i + 1000 && rc == 0; k++) {
            json_t *j = stored_memory(k, &m);
            rc = mn_store_memory_insert(ctx->store, j);
            json_decref(j);
        }
        if (rc == 0)
            rc = mn_store_commit(ctx->store);
        else
            mn_store_rollback(ctx->store);
    }
    memory_text_release(&m);
    *secs = ev_ms_since(t0) / 1000.0;
    return rc;
}

/*
 * DIR/bench.txt of --keep: "N TAG PROJECT" of the stores kept there. *kept:
 * they hold o->n memories (else they are made again: DIR must then be new).
 */
static int read_kept(const options *o, char *project, size_t size, bool *kept)
{
    char path[4096], name[64];
    unsigned long long n;
    long tag;
    *kept = false;
    snprintf(path, sizeof(path), "%s/bench.txt", o->keep);
    FILE *f = fopen(path, "r");
    if (!f)
        return mkdir(o->keep, 0700) == 0 || errno == EEXIST ? 0 : -1;
    int got = fscanf(f, "%llu %ld %63s", &n, &tag, name);
    fclose(f);
    if (got != 3 || n != o->n) {
        fprintf(stderr, "bench_pg_search: %s holds other stores than -n %zu: give a new --keep\n",
                path, o->n);
        return -1;
    }
    id_tag = tag;
    snprintf(project, size, "%s", name);
    *kept = true;
    return 0;
}

static int write_kept(const options *o, const char *project)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/bench.txt", o->keep);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%zu %ld %s\n", o->n, id_tag, project) < 0) {
        fprintf(stderr, "bench_pg_search: cannot write %s\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

static char *make_query(size_t i, size_t n, size_t *source)
{
    uint64_t s = GEN_SEED ^ (0x71756572ULL + i * 0x9e3779b97f4a7c15ULL);
    mn_buf q = MN_BUF_INIT, text = MN_BUF_INIT;
    memory_text m;
    memset(&m, 0, sizeof(m));
    *source = gen_pick(&s, n);
    memory_text_make(&m, *source);
    mn_buf_printf(&text, "%s %s", m.title.ptr, m.body.ptr);
    char *save = NULL;
    const char *picked[64];
    size_t nw = 0;
    for (char *t = strtok_r(text.ptr, " .,", &save); t && nw < 64; t = strtok_r(NULL, " .,", &save))
        if (strlen(t) > 3)
            picked[nw++] = t;
    size_t want = 3 + gen_pick(&s, 4);
    for (size_t k = 0; k < want && nw; k++)
        mn_buf_printf(&q, "%s%s", q.len ? " " : "", picked[gen_pick(&s, nw)]);
    if (gen_pick(&s, 2) && m.nkeywords)
        mn_buf_printf(&q, " %s", m.keywords[0]);
    mn_buf_release(&text);
    memory_text_release(&m);
    return mn_buf_detach(&q);
}

/* The items' ids in order, joined; whether the source memory's id is among them. */
static char *answer_ids(const json_t *res, const char *source_id, bool *found)
{
    mn_buf b = MN_BUF_INIT;
    size_t i;
    json_t *it;
    *found = false;
    json_array_foreach(json_object_get(res, "items"), i, it)
    {
        const char *id = json_string_value(json_object_get(it, "id"));
        mn_buf_printf(&b, "%s ", id ? id : "?");
        if (id && !strcmp(id, source_id))
            *found = true;
    }
    return mn_buf_detach(&b);
}

int main(int argc, char **argv)
{
    options o = {NULL, NULL, 100000, 200, false};
    for (int i = 1; i < argc; i++) {
        int64_t v;
        if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "--queries")) && i + 1 < argc) {
            if (mn_parse_int64(&v, argv[i + 1], 1, 100000000, argv[i]) != 0) {
                fprintf(stderr, "bench_pg_search: %s\n", mn_error_last());
                return 2;
            }
            *(!strcmp(argv[i], "-n") ? &o.n : &o.queries) = (size_t)v;
            i++;
        } else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            o.db = argv[++i];
        } else if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
            o.keep = argv[++i];
        } else if (!strcmp(argv[i], "--strict")) {
            o.strict = true;
        } else {
            return usage(stderr);
        }
    }
    if (!o.db || mn_store_kind_of(o.db) != MN_STORE_POSTGRES) {
        fprintf(stderr, "bench_pg_search: --db must name a PostgreSQL database\n");
        return usage(stderr);
    }
    int rc = 2;
    char project[64], *dir = ev_mkdtemp("mnemo-pgsearch"), *lite = NULL;
    mn_ctx *ctx[2] = {NULL, NULL};
    const char *names[2] = {"sqlite", "postgresql"};
    ev_samples ms[2] = {MN_VEC_INIT, MN_VEC_INIT};
    size_t found[2] = {0, 0}, differ = 0;
    bool kept = false;
    id_tag = (long)getpid() % 100000;
    snprintf(project, sizeof(project), "bench-search-%ld", (long)getpid());
    if (o.keep && read_kept(&o, project, sizeof(project), &kept) != 0)
        goto out;
    if (!dir || mn_init_at(&lite, o.keep ? o.keep : dir) != 0)
        goto out;
    mn_ctx_options opts[2] = {MN_CTX_OPTIONS_INIT, MN_CTX_OPTIONS_INIT};
    opts[0].db_path = lite;
    opts[0].start_dir = dir;
    opts[1].db_path = o.db;
    opts[1].start_dir = dir;
    opts[1].project = project;
    for (int k = 0; k < 2; k++) {
        double secs = 0;
        opts[k].actor = "bench";
        if (mn_ctx_open(&ctx[k], &opts[k]) != 0 || config_set(ctx[k], "embed.provider", "off") ||
            (!kept && fill(ctx[k], o.n, &secs) != 0) || mn_ctx_prepare(ctx[k]) != 0) {
            fprintf(stderr, "bench_pg_search: %s: %s\n", names[k], mn_error_last());
            goto out;
        }
        if (!kept)
            fprintf(stderr, "%s: %zu memories written in %.1f s\n", names[k], o.n, secs);
    }
    if (o.keep && !kept && write_kept(&o, project) != 0)
        goto out;
    for (size_t i = 0; i < o.queries; i++) {
        size_t source;
        char *q = make_query(i, o.n, &source), sid[32], *ids[2] = {NULL, NULL};
        snprintf(sid, sizeof(sid), "01J%05ld%018zu", id_tag, source);
        json_t *args = json_pack("{s:s,s:[s],s:i}", "query", q, "kinds", "memory", "k", 10);
        for (int k = 0; k < 2; k++) {
            json_t *res = NULL;
            uint64_t t0 = ev_now_ns();
            int e = mn_api_call(ctx[k], "search", args, &res);
            mn_vec_push(&ms[k], ev_ms_since(t0));
            if (e) {
                fprintf(stderr, "bench_pg_search: %s: search: %s\n", names[k], mn_error_last());
                json_decref(args);
                free(q);
                goto out;
            }
            bool hit;
            ids[k] = answer_ids(res, sid, &hit);
            found[k] += hit;
            json_decref(res);
        }
        differ += strcmp(ids[0], ids[1]) != 0;
        free(ids[0]);
        free(ids[1]);
        json_decref(args);
        free(q);
    }
    double p95[2];
    printf("memory search, %zu memories, %zu questions (op search, kinds memory, k 10, "
           "embed.provider off)\n",
           o.n, o.queries);
    for (int k = 0; k < 2; k++) {
        p95[k] = ev_percentile(&ms[k], 0.95);
        printf("  %-10s p50 %7.3f ms  p95 %7.3f ms  p99 %7.3f ms  source in top 10: %.3f\n",
               names[k], ev_percentile(&ms[k], 0.50), p95[k], ev_percentile(&ms[k], 0.99),
               (double)found[k] / (double)o.queries);
    }
    printf("  ratio postgresql/sqlite at p95: %.2f\n", p95[0] > 0 ? p95[1] / p95[0] : 0);
    printf("  answers that differ between the back ends: %zu of %zu\n", differ, o.queries);
    bool pass = p95[1] <= TARGET_P95_MS && differ == 0;
    printf("target postgresql search p95 <= %.0f ms: %.3f %s\n", TARGET_P95_MS, p95[1],
           p95[1] <= TARGET_P95_MS ? "PASS" : "FAIL");
    printf("target same answers on both: %zu differ %s\n", differ, differ == 0 ? "PASS" : "FAIL");
    rc = o.strict && !pass ? 1 : 0;
out:
    for (int k = 0; k < 2; k++) {
        mn_ctx_free(ctx[k]);
        mn_vec_release(&ms[k]);
    }
    if (dir)
        ev_rm_rf(dir);
    free(dir);
    free(lite);
    return rc;
}
