/*
 * bench_index.c - speed and footprint of the code index on a real
 * repository, against baselines run on the same tree in the same run.
 *
 * What is measured (each phase in its own child process, so that its peak
 * resident set size is its own: wait4's ru_maxrss):
 *  - full: a new store, mn_index_run (walk, read, hash, classify, parse,
 *    store, resolve) then mn_rank_refresh, as `mnemo index` does. Wall time,
 *    peak RSS, and the store's size per MB of source read.
 *  - no change: the store re-opened, mn_index_run + mn_rank_refresh again with
 *    nothing changed (median of --runs).
 *  - one change: the same after rewriting ONE file with new content (new
 *    size, time and hash, so it is re-read, re-parsed and stored, and its
 *    references resolved again). A Python file gets a new function that
 *    calls another; any other file a comment line. The file is given with
 *    --touch, or is the source file of highest rank (the one most of the
 *    graph points at: the costliest to replace). Median and max of --runs;
 *    the file's bytes and modification time are restored afterwards.
 *    Store open and close are inside the timing, as in a `mnemo index` run.
 *  - baselines, same files (the walk's), same thread count as the index:
 *      io     walk + read + xxh3-128 of every file, on one thread: the I/O
 *             floor of a full index;
 *      ts     walk + read + classify + tree-sitter parse alone (no queries,
 *             no extraction), on the index's worker count;
 *      parse  walk + read + classify + mn_parser_parse (symbols, references,
 *             chunks) without a store, same workers.
 *    Ratios full/io, full/ts, full/parse say where the time goes; they
 *    cancel most of the machine's speed (CONVENTIONS.md).
 * The absolute targets, set for sympy/sympy on a 2-core machine
 * (full index <= 20 s and <= 300 MB peak RSS, one changed file <= 150 ms),
 * are printed as PASS/FAIL for whatever repository is given.
 *
 * Usage: bench_index [REPO] [--threads N] [--runs N] [--touch PATH] [--db PATH]
 *                    [--json] [--strict]
 * REPO may also come from $MNEMO_BENCH_REPO; without one the bench says so
 * and exits 0 (make bench runs it without arguments).
 * Exit status: 0, or 1 with --strict when a target fails, 2 on usage or
 * setup errors.
 */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "mnemo/api.h"

#include "index/classify.h"
#include "index/grammars.h"
#include "index/index.h"
#include "index/parse.h"
#include "index/rank.h"
#include "index/walk.h"
#include "store/store.h"
#include "store/store_index.h"
#include "util/buf.h"
#include "util/util.h"
#include "util/vec.h"

#define TARGET_FULL_S   20.0
#define TARGET_RSS_MB   300.0
#define TARGET_TOUCH_MS 150.0
#define TARGET_EMBED_X  1.3 /* default `index` wall / the same with embed.provider off */
#define MAX_RUNS        64

typedef struct {
    const char *repo, *db, *touch;
    const char *dir; /* the bench's temporary directory (the op phases' stores) */
    int threads, runs;
    bool json, strict;
} options;

/* What a child reports through its pipe (plain data, no pointers). */
typedef struct {
    int ok;
    char error[512];
    double seconds;      /* the phase's main figure */
    double seconds2;     /* full: rank part; runs: max */
    size_t files, bytes; /* files seen and bytes read (parsed, for the index) */
    size_t parsed, symbols;
    double samples[MAX_RUNS];
    int nsamples;
    char touched[1024];
} report;

static volatile uint64_t bench_sink;

static double now_s(void)
{
    return (double)mn_time_mono_ns() / 1e9;
}

static void fail_report(report *r, const char *what)
{
    r->ok = 0;
    snprintf(r->error, sizeof(r->error), "%s: %s", what, mn_error_last());
}

/* ---- baselines ---- */

typedef struct {
    char *path, *full_path;
} entry;

typedef struct {
    MN_VEC(entry) files;
} file_list;

static int collect(void *payload, const mn_walk_entry *e)
{
    file_list *l = payload;
    entry x = {mn_strdup(e->path), mn_strdup(e->full_path)};
    mn_vec_push(&l->files, x);
    return 0;
}

static void file_list_release(file_list *l)
{
    for (size_t i = 0; i < l->files.len; i++) {
        free(l->files.items[i].path);
        free(l->files.items[i].full_path);
    }
    mn_vec_release(&l->files);
}

enum { BASE_IO, BASE_TS, BASE_PARSE };

typedef struct {
    file_list *list;
    int kind;
    pthread_mutex_t lock;
    size_t next;
    size_t bytes, symbols, parsed;
    uint64_t sink;
} base_job;

static const TSLanguage *grammar_of(const char *language)
{
    if (!language)
        return NULL;
    const mn_grammar *g = mn_grammar_find(strcmp(language, "csharp") ? language : "c_sharp");
    return g ? g->language() : NULL;
}

static void *base_worker(void *arg)
{
    base_job *b = arg;
    mn_parser *mp = NULL;
    TSParser *tp = NULL;
    size_t bytes = 0, symbols = 0, parsed = 0;
    uint64_t sink = 0;
    mn_buf data = MN_BUF_INIT;
    if (b->kind == BASE_PARSE && mn_parser_new(&mp) != 0)
        return NULL;
    if (b->kind == BASE_TS)
        tp = ts_parser_new();
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->list->files.len)
            break;
        const entry *e = &b->list->files.items[i];
        mn_buf_clear(&data);
        if (mn_fs_read(&data, e->full_path, (size_t)1 << 20) != 0)
            continue;
        bytes += data.len;
        XXH128_hash_t h = XXH3_128bits(data.ptr, data.len);
        sink += h.low64;
        if (b->kind == BASE_IO)
            continue;
        mn_file_class cls;
        mn_classify(&cls, e->path, data.ptr,
                    data.len < MN_CLASSIFY_HEAD_MAX ? data.len : MN_CLASSIFY_HEAD_MAX, data.len);
        if (cls.binary)
            continue;
        if (b->kind == BASE_TS) {
            const TSLanguage *lang = grammar_of(cls.language);
            if (lang && ts_parser_set_language(tp, lang)) {
                TSTree *t = ts_parser_parse_string(tp, NULL, data.ptr, (uint32_t)data.len);
                if (t) {
                    sink += ts_node_child_count(ts_tree_root_node(t));
                    ts_tree_delete(t);
                    parsed++;
                }
            }
        } else {
            mn_parse_result r = MN_PARSE_RESULT_INIT;
            if (mn_parser_parse(mp, &r, cls.language, e->path, data.ptr, data.len) == 0) {
                symbols += r.symbols.len;
                parsed++;
            }
            mn_parse_result_release(&r);
        }
    }
    mn_buf_release(&data);
    mn_parser_free(mp);
    if (tp)
        ts_parser_delete(tp);
    pthread_mutex_lock(&b->lock);
    b->bytes += bytes;
    b->symbols += symbols;
    b->parsed += parsed;
    b->sink += sink;
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

static void phase_baseline(const options *o, int kind, report *r)
{
    file_list list;
    memset(&list, 0, sizeof(list));
    mn_walk_options wo = MN_WALK_OPTIONS_INIT;
    mn_walk_stats ws;
    base_job b;
    memset(&b, 0, sizeof(b));
    pthread_mutex_init(&b.lock, NULL);
    double t0 = now_s();
    if (mn_walk(o->repo, &wo, collect, &list, &ws) != 0) {
        fail_report(r, "walk");
        goto out;
    }
    b.list = &list;
    b.kind = kind;
    int n = kind == BASE_IO ? 1 : o->threads;
    pthread_t th[8];
    int started = 0;
    for (int i = 0; i < n && i < 8; i++)
        if (pthread_create(&th[i], NULL, base_worker, &b) == 0)
            started++;
    if (!started)
        base_worker(&b);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    r->seconds = now_s() - t0;
    r->files = list.files.len;
    r->bytes = b.bytes;
    r->parsed = b.parsed;
    r->symbols = b.symbols;
    r->ok = 1;
    bench_sink = b.sink; /* the hashes and trees are used: not optimised away */
out:
    pthread_mutex_destroy(&b.lock);
    file_list_release(&list);
}

/* ---- index phases ---- */

static int open_store(mn_store **s, const char *db, const char *repo)
{
    mn_store_options so = MN_STORE_OPTIONS_INIT;
    so.root_path = repo;
    return mn_store_open(s, db, &so);
}

/* One `mnemo index`: open, index, rank when due, close. *rank_s gets the rank part. */
static int index_once(const options *o, mn_index_stats *st, double *rank_s)
{
    mn_store *s = NULL;
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    io.threads = o->threads;
    int rc = open_store(&s, o->db, o->repo);
    if (rc == 0)
        rc = mn_index_run(s, o->repo, &io, st);
    double t = now_s();
    if (rc == 0)
        rc = mn_rank_refresh(s, st->changed, st->seen, false, NULL);
    if (rank_s)
        *rank_s = now_s() - t;
    mn_store_free(s);
    return rc;
}

static void phase_full(const options *o, report *r)
{
    mn_index_stats st;
    double t0 = now_s(), rank_s = 0;
    if (index_once(o, &st, &rank_s) != 0) {
        fail_report(r, "full index");
        return;
    }
    r->seconds = now_s() - t0;
    r->seconds2 = rank_s;
    r->files = st.seen;
    r->parsed = st.parsed;
    r->bytes = st.bytes;
    mn_store *s = NULL;
    mn_index_counts c = {0};
    if (open_store(&s, o->db, o->repo) == 0 && mn_store_index_counts(s, &c) == 0)
        r->symbols = (size_t)c.symbols;
    mn_store_free(s);
    r->ok = 1;
}

/*
 * The `index` operation as `mnemo index` runs it (index, rank, tidy, train
 * the built-in model when due and embed what has no vector, discovery), on a
 * new store of its own: with the default configuration, or with
 * embed.provider off. The ratio of the two is what the built-in model costs.
 */
static void phase_op(const options *o, report *r, bool embed)
{
    mn_buf path = MN_BUF_INIT;
    mn_ctx *ctx = NULL;
    json_t *out = NULL, *args = NULL;
    mn_buf_printf(&path, "%s/op-%s.db", o->dir, embed ? "default" : "off");
    mn_ctx_options co = MN_CTX_OPTIONS_INIT;
    co.db_path = path.ptr;
    co.start_dir = o->repo;
    co.actor = "bench";
    if (mn_ctx_open(&ctx, &co) != 0) {
        fail_report(r, "open the store");
        goto out;
    }
    if (!embed) {
        args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", "embed.provider", "value", "off");
        if (mn_api_call(ctx, "config", args, &out) != 0) {
            fail_report(r, "config set embed.provider off");
            goto out;
        }
        json_decref(out);
        json_decref(args);
        out = NULL;
    }
    args = json_pack("{s:s}", "path", o->repo);
    double t0 = now_s();
    if (mn_api_call(ctx, "index", args, &out) != 0) {
        fail_report(r, "index");
        goto out;
    }
    r->seconds = now_s() - t0;
    r->files = (size_t)json_integer_value(json_object_get(out, "files"));
    r->ok = 1;
out:
    json_decref(out);
    json_decref(args);
    mn_ctx_free(ctx);
    mn_buf_release(&path);
}

static void phase_op_default(const options *o, report *r)
{
    phase_op(o, r, true);
}

static void phase_op_off(const options *o, report *r)
{
    phase_op(o, r, false);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void finish_samples(report *r)
{
    double sorted[MAX_RUNS];
    memcpy(sorted, r->samples, sizeof(double) * (size_t)r->nsamples);
    qsort(sorted, (size_t)r->nsamples, sizeof(double), cmp_double);
    r->seconds = sorted[r->nsamples / 2];
    r->seconds2 = sorted[r->nsamples - 1];
}

static void phase_nochange(const options *o, report *r)
{
    for (int i = 0; i < o->runs; i++) {
        mn_index_stats st;
        double t0 = now_s();
        if (index_once(o, &st, NULL) != 0) {
            fail_report(r, "re-index");
            return;
        }
        r->samples[r->nsamples++] = now_s() - t0;
        r->parsed += st.parsed;
    }
    finish_samples(r);
    r->ok = 1;
}

typedef struct {
    char *best;
    double rank;
} pick_ctx;

static int pick_file(void *payload, const mn_file_rec *f)
{
    pick_ctx *p = payload;
    if (!f->role || strcmp(f->role, "source") != 0 || !f->language)
        return 0;
    if (!p->best || f->rank > p->rank) {
        free(p->best);
        p->best = mn_strdup(f->path);
        p->rank = f->rank;
    }
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The original content plus an edit that differs for every run i. */
static void edited(mn_buf *out, const mn_buf *orig, const char *path, int i)
{
    mn_buf_clear(out);
    mn_buf_put(out, orig->ptr, orig->len);
    if (orig->len && orig->ptr[orig->len - 1] != '\n')
        mn_buf_putc(out, '\n');
    if (ends_with(path, ".py"))
        mn_buf_printf(out, "\n\ndef _mnemo_bench_edit_%d(x):\n    return len(x) + %d\n", i, i);
    else if (ends_with(path, ".rb") || ends_with(path, ".sh") || ends_with(path, ".toml") ||
             ends_with(path, ".yml") || ends_with(path, ".yaml"))
        mn_buf_printf(out, "# mnemo bench edit %d\n", i);
    else
        mn_buf_printf(out, "// mnemo bench edit %d\n", i);
}

static int write_file(const char *path, const mn_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(b->ptr, 1, b->len, f);
    return fclose(f) == 0 && n == b->len ? 0 : -1;
}

static void phase_touch(const options *o, report *r)
{
    mn_buf orig = MN_BUF_INIT, next = MN_BUF_INIT, full = MN_BUF_INIT;
    struct stat sb;
    char *rel = NULL;
    bool modified = false;

    if (o->touch) {
        rel = mn_strdup(o->touch);
    } else {
        mn_store *s = NULL;
        pick_ctx p = {NULL, 0};
        if (open_store(&s, o->db, o->repo) == 0)
            mn_store_files_each(s, NULL, pick_file, &p);
        mn_store_free(s);
        rel = p.best;
    }
    if (!rel) {
        snprintf(r->error, sizeof(r->error), "no source file to edit");
        goto out;
    }
    snprintf(r->touched, sizeof(r->touched), "%s", rel);
    mn_buf_printf(&full, "%s/%s", o->repo, rel);
    if (stat(full.ptr, &sb) != 0 || mn_fs_read(&orig, full.ptr, (size_t)64 << 20) != 0) {
        snprintf(r->error, sizeof(r->error), "cannot read '%s'", full.ptr);
        goto out;
    }
    for (int i = 0; i < o->runs; i++) {
        mn_index_stats st;
        edited(&next, &orig, rel, i);
        if (write_file(full.ptr, &next) != 0) {
            snprintf(r->error, sizeof(r->error), "cannot write '%s'", full.ptr);
            goto out;
        }
        modified = true;
        double t0 = now_s();
        if (index_once(o, &st, NULL) != 0) {
            fail_report(r, "re-index after an edit");
            goto out;
        }
        r->samples[r->nsamples++] = now_s() - t0;
        r->parsed += st.parsed;
    }
    finish_samples(r);
    r->ok = 1;
out:
    if (modified) { /* the tree as it was, and the store with it */
        struct timespec ts[2] = {sb.st_atim, sb.st_mtim};
        mn_index_stats st;
        if (write_file(full.ptr, &orig) != 0 || utimensat(AT_FDCWD, full.ptr, ts, 0) != 0)
            fprintf(stderr, "bench_index: could not restore '%s'\n", full.ptr);
        else
            index_once(o, &st, NULL);
    }
    free(rel);
    mn_buf_release(&orig);
    mn_buf_release(&next);
    mn_buf_release(&full);
}

/* ---- running a phase in a child ---- */

typedef void (*phase_fn)(const options *o, report *r);

typedef struct {
    report r;
    long maxrss_kb;
    double
        cpu_s; /* the child's user + system time (wait4): the figure a loaded machine moves least */
} result;

static int run_child(const options *o, phase_fn fn, int kind, result *out)
{
    int fds[2];
    memset(out, 0, sizeof(*out));
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        report *r = mn_calloc(1, sizeof(*r));
        close(fds[0]);
        if (fn)
            fn(o, r);
        else
            phase_baseline(o, kind, r);
        const char *p = (const char *)r;
        size_t left = sizeof(*r);
        while (left) {
            ssize_t n = write(fds[1], p, left);
            if (n <= 0)
                break;
            p += n;
            left -= (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    char *p = (char *)&out->r;
    size_t got = 0;
    while (got < sizeof(out->r)) {
        ssize_t n = read(fds[0], p + got, sizeof(out->r) - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    out->maxrss_kb = ru.ru_maxrss;
    out->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (got != sizeof(out->r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(out->r.error, sizeof(out->r.error), "the child process died (status %d)", status);
        out->r.ok = 0;
    }
    return 0;
}

/* ---- the run ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_index [REPO] [--threads N] [--runs N] [--touch PATH] [--db PATH]\n"
               "                   [--json] [--strict]\n"
               "  REPO          the repository to index (or $MNEMO_BENCH_REPO); none: skip\n"
               "  --threads N   index workers (default: one per online core)\n"
               "  --runs N      re-index runs to take the median of (default 5)\n"
               "  --touch PATH  the file to edit, relative to REPO (default: the source file\n"
               "                of highest rank); restored afterwards\n"
               "  --db PATH     keep the store at PATH (must not exist)\n"
               "  --json        print one JSON line on stdout (the table goes to stderr)\n"
               "  --strict      exit 1 when a target fails\n");
}

static int parse_args(options *o, int argc, char **argv)
{
    o->runs = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int64_t v;
        if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            if (mn_parse_int64(&v, argv[++i], 0, 8, "--threads") != 0)
                goto bad_value;
            o->threads = (int)v;
        } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
            if (mn_parse_int64(&v, argv[++i], 1, MAX_RUNS, "--runs") != 0)
                goto bad_value;
            o->runs = (int)v;
        } else if (strcmp(a, "--touch") == 0 && i + 1 < argc) {
            o->touch = argv[++i];
        } else if (strcmp(a, "--db") == 0 && i + 1 < argc) {
            o->db = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--strict") == 0) {
            o->strict = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (a[0] != '-' && !o->repo) {
            o->repo = a;
        } else {
            fprintf(stderr, "bench_index: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return -1;
        }
    }
    return 0;
bad_value:
    fprintf(stderr, "bench_index: %s\n", mn_error_last());
    return -1;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static double mb(double bytes)
{
    return bytes / (1024.0 * 1024.0);
}

static off_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_size : 0;
}

int main(int argc, char **argv)
{
    options o = {0};
    char tmpl[4096];
    mn_buf db = MN_BUF_INIT, wal = MN_BUF_INIT;
    char *repo = NULL;
    int status = 2;
    result base_io, base_ts, base_parse, full, nochange, touch, op_off, op_default;
    double db_bytes = 0;

    if (parse_args(&o, argc, argv))
        return 2;
    if (!o.repo && getenv("MNEMO_BENCH_REPO") && *getenv("MNEMO_BENCH_REPO"))
        o.repo = getenv("MNEMO_BENCH_REPO");
    if (!o.repo) {
        printf("bench_index: no repository given (bench_index REPO, or MNEMO_BENCH_REPO): "
               "skipped\n");
        return 0;
    }
    if (!mn_fs_is_dir(o.repo)) {
        fprintf(stderr, "bench_index: '%s' is not a directory\n", o.repo);
        return 2;
    }
    repo = mn_fs_abspath(o.repo);
    o.repo = repo;
    if (o.threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = n < 1 ? 1 : n > 8 ? 8 : (int)n;
    }
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(tmpl, sizeof(tmpl), "%s/mnemo-bench-XXXXXX", tmpdir);
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "bench_index: cannot create a directory in '%s': %s\n", tmpdir,
                strerror(errno));
        free(repo);
        return 2;
    }
    if (o.db) {
        if (mn_fs_exists(o.db)) {
            fprintf(stderr, "bench_index: '%s' exists already: give a new path to --db\n", o.db);
            goto out;
        }
        mn_buf_puts(&db, o.db);
    } else {
        mn_buf_printf(&db, "%s/mnemo.db", tmpl);
    }
    o.db = db.ptr;
    o.dir = tmpl;
    mn_buf_printf(&wal, "%s-wal", db.ptr);

    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    FILE *tf = o.json ? stderr : stdout;
    fprintf(tf, "bench_index: %s, %d worker thread%s, %d run%s per re-index figure\n", o.repo,
            o.threads, o.threads == 1 ? "" : "s", o.runs, o.runs == 1 ? "" : "s");

    /* baselines first: they warm the page cache for the index as well */
    struct {
        const char *name;
        phase_fn fn;
        int kind;
        result *res;
    } phases[] = {
        {"baseline io", NULL, BASE_IO, &base_io},
        {"baseline ts", NULL, BASE_TS, &base_ts},
        {"baseline parse", NULL, BASE_PARSE, &base_parse},
        {"full index", phase_full, 0, &full},
        {"no change", phase_nochange, 0, &nochange},
        {"one change", phase_touch, 0, &touch},
        {"index, embed off", phase_op_off, 0, &op_off},
        {"index, default", phase_op_default, 0, &op_default},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(phases); i++) {
        if (isatty(2))
            fprintf(stderr, "\r%-20s", phases[i].name);
        if (run_child(&o, phases[i].fn, phases[i].kind, phases[i].res) != 0 ||
            !phases[i].res->r.ok) {
            if (isatty(2))
                fputc('\n', stderr);
            fprintf(stderr, "bench_index: %s: %s\n", phases[i].name,
                    phases[i].res->r.error[0] ? phases[i].res->r.error : strerror(errno));
            goto out;
        }
        if (phases[i].res == &full) /* the store as the full index left it, closed */
            db_bytes = (double)file_size(db.ptr) + (double)file_size(wal.ptr);
    }
    if (isatty(2))
        fputc('\n', stderr);

    double src_mb = mb((double)full.r.bytes);
    double full_s = full.r.seconds, rss_mb = (double)full.maxrss_kb / 1024.0;
    double touch_ms = touch.r.seconds * 1e3, nochange_ms = nochange.r.seconds * 1e3;
    bool ok_full = full_s <= TARGET_FULL_S, ok_rss = rss_mb <= TARGET_RSS_MB,
         ok_touch = touch_ms <= TARGET_TOUCH_MS;
    double off_mb = (double)op_off.maxrss_kb / 1024.0,
           def_mb = (double)op_default.maxrss_kb / 1024.0;
    double embed_x = ratio(op_default.r.seconds, op_off.r.seconds);
    bool ok_embed_x = embed_x <= TARGET_EMBED_X, ok_embed_rss = def_mb <= TARGET_RSS_MB;

    fprintf(tf, "  files %zu (parsed %zu), source read %.1f MB, symbols %zu\n", full.r.files,
            full.r.parsed, src_mb, full.r.symbols);
    fprintf(tf, "  %-38s %10s %10s %12s\n", "phase", "wall", "peak RSS", "mnemo/base");
    fprintf(tf, "  %-38s %8.3f s %7.1f MB\n", "baseline io (walk+read+xxh3, 1 thread)",
            base_io.r.seconds, (double)base_io.maxrss_kb / 1024.0);
    fprintf(tf, "  %-38s %8.3f s %7.1f MB\n", "baseline ts (+tree-sitter parse)", base_ts.r.seconds,
            (double)base_ts.maxrss_kb / 1024.0);
    fprintf(tf, "  %-38s %8.3f s %7.1f MB\n", "baseline parse (+mnemo extraction)",
            base_parse.r.seconds, (double)base_parse.maxrss_kb / 1024.0);
    fprintf(tf, "  %-38s %8.3f s %7.1f MB   /io %.1f  /ts %.2f  /parse %.2f\n", "full index + rank",
            full_s, rss_mb, ratio(full_s, base_io.r.seconds), ratio(full_s, base_ts.r.seconds),
            ratio(full_s, base_parse.r.seconds));
    fprintf(tf, "  %-38s %8.3f s\n", "  of which rank", full.r.seconds2);
    fprintf(tf, "  %-38s %7.1f ms %7.1f MB   (max %.1f ms)\n", "re-index, no change (median)",
            nochange_ms, (double)nochange.maxrss_kb / 1024.0, nochange.r.seconds2 * 1e3);
    fprintf(tf, "  %-38s %7.1f ms %7.1f MB   (max %.1f ms) /no-change %.2f\n",
            "re-index, one file edited (median)", touch_ms, (double)touch.maxrss_kb / 1024.0,
            touch.r.seconds2 * 1e3, ratio(touch_ms, nochange_ms));
    fprintf(tf, "    edited: %s\n", touch.r.touched);
    fprintf(tf, "  store %.1f MB for %.1f MB of source: %.2f MB per MB\n", mb(db_bytes), src_mb,
            ratio(mb(db_bytes), src_mb));
    fprintf(tf, "  `index` op (index, rank, embed, discovery), a new store each:\n");
    fprintf(tf, "  %-38s %8.3f s %7.1f MB   cpu %.2f s\n", "embed.provider off", op_off.r.seconds,
            off_mb, op_off.cpu_s);
    fprintf(tf, "  %-38s %8.3f s %7.1f MB   cpu %.2f s\n", "default (built-in model trained)",
            op_default.r.seconds, def_mb, op_default.cpu_s);
    fprintf(tf, "  %-38s %9.2fx %9.2fx   cpu %.2fx\n", "default / off", embed_x,
            ratio(def_mb, off_mb), ratio(op_default.cpu_s, op_off.cpu_s));
    fprintf(
        tf,
        "  target (issue 22): default wall <= %.1fx embed-off %s, default peak RSS <= %.0f MB %s\n",
        TARGET_EMBED_X, ok_embed_x ? "PASS" : "FAIL", TARGET_RSS_MB,
        ok_embed_rss ? "PASS" : "FAIL");
    fprintf(tf, "  (bench process before the phases: %.1f MB RSS; each phase is a fork of it)\n",
            (double)self.ru_maxrss / 1024.0);
    fprintf(tf,
            "  targets (issue, for sympy/sympy on 2 cores): full <= %.0f s %s, peak RSS <= "
            "%.0f MB %s, one edit <= %.0f ms %s\n",
            TARGET_FULL_S, ok_full ? "PASS" : "FAIL", TARGET_RSS_MB, ok_rss ? "PASS" : "FAIL",
            TARGET_TOUCH_MS, ok_touch ? "PASS" : "FAIL");

    if (o.json) {
        json_t *j = json_pack(
            "{s:s,s:i,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:s,s:f,s:f,"
            "s:b}",
            "repo", o.repo, "threads", o.threads, "files", (json_int_t)full.r.files, "symbols",
            (json_int_t)full.r.symbols, "source_mb", src_mb, "baseline_io_s", base_io.r.seconds,
            "baseline_ts_s", base_ts.r.seconds, "baseline_parse_s", base_parse.r.seconds, "full_s",
            full_s, "full_rank_s", full.r.seconds2, "full_rss_mb", rss_mb, "ratio_full_io",
            ratio(full_s, base_io.r.seconds), "ratio_full_ts", ratio(full_s, base_ts.r.seconds),
            "ratio_full_parse", ratio(full_s, base_parse.r.seconds), "nochange_ms", nochange_ms,
            "touch_ms", touch_ms, "touch_max_ms", touch.r.seconds2 * 1e3, "touched",
            touch.r.touched, "db_mb", mb(db_bytes), "db_mb_per_source_mb",
            ratio(mb(db_bytes), src_mb), "targets_met",
            ok_full && ok_rss && ok_touch && ok_embed_x && ok_embed_rss);
        json_object_set_new(j, "index_off_s", json_real(op_off.r.seconds));
        json_object_set_new(j, "index_off_rss_mb", json_real(off_mb));
        json_object_set_new(j, "index_default_s", json_real(op_default.r.seconds));
        json_object_set_new(j, "index_default_rss_mb", json_real(def_mb));
        json_object_set_new(j, "index_default_over_off", json_real(embed_x));
        json_object_set_new(j, "index_off_cpu_s", json_real(op_off.cpu_s));
        json_object_set_new(j, "index_default_cpu_s", json_real(op_default.cpu_s));
        char *s = json_dumps(j, JSON_COMPACT);
        printf("%s\n", s);
        free(s);
        json_decref(j);
    }
    status = o.strict && !(ok_full && ok_rss && ok_touch && ok_embed_x && ok_embed_rss) ? 1 : 0;
out:
    for (const char *const *ext = (const char *const[]){"", "-wal", "-shm", NULL}; *ext; ext++)
        for (const char *const *name = (const char *const[]){"mnemo", "op-default", "op-off", NULL};
             *name; name++) {
            mn_buf p = MN_BUF_INIT; /* the temporary stores; one given with --db stays */
            mn_buf_printf(&p, "%s/%s.db%s", tmpl, *name, *ext);
            unlink(p.ptr);
            mn_buf_release(&p);
        }
    rmdir(tmpl);
    mn_buf_release(&db);
    mn_buf_release(&wal);
    free(repo);
    return status;
}
