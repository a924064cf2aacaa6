/*
 * bench_scan.c - the secret and personal-data scanner (src/text/scan*.c):
 * detection per kind, false positives on real code and prose, and speed.
 *
 * 1. Detection. Every item of tests/data/secrets/corpus.jsonl is redacted
 *    with the built-in rules; an item is detected when its value is gone
 *    from the result, and named when the marker names the expected rule.
 *    The fixture repository's files (tests/data/secrets/repo, manifest
 *    repo_manifest.json) count the same way. Per kind: items, detected,
 *    named. Target: >= 99% detected overall.
 * 2. False positives. Every hit in text that holds no planted secret: this
 *    repository's src/, docs/ and tests/ (without tests/data/secrets, and
 *    without the three files that hold example secrets on purpose: the
 *    built-in rules, their unit test and their documentation), and the
 *    eval corpora under EVAL_DIR:
 *    LoCoMo's turns, LongMemEval's haystack turns (each distinct text once),
 *    the SWE-bench problem statements (dev and multi_dev). Each hit is
 *    printed (rule, source, matched text, the line around it) for a person
 *    to judge; the count per 100 KB is the figure. Target: <= 1 per 100 KB.
 *    Many hits in the chat corpora are real phone numbers and e-mail
 *    addresses of the businesses and (fictional) people the chats mention.
 * 3. Speed, in CPU time of this thread (the machine is shared: wall time
 *    moves with the load, CPU time much less), best of --runs: mn_scan_find,
 *    mn_scan_any and mn_scan_redact over the source files (one call per
 *    file), over prose (docs and the chat turns, one call per turn), and the
 *    latency of one call on a chat turn (p50/p95, what a save pays). The
 *    baselines run in the same process on the same bytes: XXH3 (a pass that
 *    reads every byte) and one PCRE2 JIT regex (the AWS key id's). Target:
 *    >= 150 MB/s for find on source code.
 * 4. Start-up and first use, what every process pays: each figure is the
 *    median of 15 fresh processes (this program run again with --child,
 *    CPU time of its thread): the built-in scanner ready (and, for
 *    comparison, the same rules read from scan_rules.yaml at run time, as
 *    before they became generated data); a project's file that only
 *    allow-lists and disables, and one that adds a keyword rule; every
 *    built-in pattern compiled and JIT-compiled (the cost of first uses);
 *    the first and second scan of a few texts with the rent-or-buy JIT
 *    policy (scan_internal.h, mn_scan__jit), with JIT on first use, and
 *    with the interpreter only. Target: the built-in scanner ready in
 *    under 100 us (1 million instructions; callgrind says ~4,000).
 *
 * Usage: bench_scan [--root DIR] [--eval DIR] [--runs N] [--quiet] [--strict] [--startup]
 *   --root   the repository (default: the one this file was built from)
 *   --eval   the eval corpora (default: ROOT/../shared/eval; skipped when absent)
 *   --quiet  do not print each false-positive hit (only the counts)
 *   --startup  only part 4
 * Exit status: 0; 1 with --strict when a target is missed; 2 on setup errors.
 */
#include "common.h"
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <sys/wait.h>
#include <unistd.h>

#include "eval/eval.h"
#include "text/scan.h"
#include "text/scan_internal.h"
#include "util/buf.h"
#include "util/util.h"
#include "util/vec.h"

#define PROG "bench_scan"

static const char usage[] =
    "usage: bench_scan [--root DIR] [--eval DIR] [--runs N] [--quiet] [--strict] [--startup]\n";

static uint64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A path built with printf, malloc'd. */
static char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pathf(const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return mn_buf_detach(&b);
}

/* One text to scan, with where it came from. */
typedef struct {
    char *src;
    char *text;
    size_t len;
} doc;
typedef MN_VEC(doc) docs;

static void docs_add(docs *d, const char *src, const char *text, size_t len)
{
    doc x = {mn_strdup(src), mn_malloc(len + 1), len};
    memcpy(x.text, text, len);
    x.text[len] = '\0';
    mn_vec_push(d, x);
}

static void docs_release(docs *d)
{
    for (size_t i = 0; i < d->len; i++) {
        free(d->items[i].src);
        free(d->items[i].text);
    }
    mn_vec_release(d);
}

static size_t docs_bytes(const docs *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->len; i++)
        n += d->items[i].len;
    return n;
}

/* ---- 1. detection ---- */

typedef struct {
    char kind[64];
    char cls[8];
    size_t items, detected, named;
} kind_row;
typedef MN_VEC(kind_row) kind_rows;

static kind_row *row_for(kind_rows *rows, const char *kind, const char *cls)
{
    for (size_t i = 0; i < rows->len; i++)
        if (strcmp(rows->items[i].kind, kind) == 0)
            return &rows->items[i];
    kind_row r;
    memset(&r, 0, sizeof(r));
    snprintf(r.kind, sizeof(r.kind), "%s", kind);
    snprintf(r.cls, sizeof(r.cls), "%s", cls);
    mn_vec_push(rows, r);
    return &rows->items[rows->len - 1];
}

/* Redact text and score one expected value. */
static void score(kind_row *row, const mn_scanner *s, const char *text, size_t len,
                  const char *value, const char *rule, const char *id)
{
    mn_buf out = MN_BUF_INIT;
    row->items++;
    if (mn_scan_redact(&out, s, text, len, MN_SCAN_ALL, NULL) != 0) {
        printf("  MISS %s: %s\n", id, mn_error_last());
        return;
    }
    char marker[160];
    snprintf(marker, sizeof(marker), "[REDACTED:%s]", rule);
    bool gone = strstr(out.ptr, value) == NULL;
    bool named = strstr(out.ptr, marker) != NULL;
    row->detected += gone;
    row->named += gone && named;
    if (!gone)
        printf("  MISS %s (%s): '%.60s' survives\n", id, rule, value);
    else if (!named)
        printf("  NAME %s: redacted, but not as %s\n", id, rule);
    mn_buf_release(&out);
}

static int detection(const mn_scanner *s, const char *root, bool *pass)
{
    kind_rows rows = MN_VEC_INIT;
    char *path = pathf("%s/tests/data/secrets/corpus.jsonl", root);
    json_t *corpus = ev_load_jsonl(path);
    if (!corpus) {
        free(path);
        return 2;
    }
    printf("== detection: %s\n", path);
    free(path);
    size_t i;
    json_t *it;
    json_array_foreach(corpus, i, it)
    {
        const char *text = ev_str(it, "text");
        score(row_for(&rows, ev_str(it, "kind"), ev_str(it, "class")), s, text, strlen(text),
              ev_str(it, "value"), ev_str(it, "rule"), ev_str(it, "id"));
    }
    json_decref(corpus);

    /* the fixture repository, as a project commits it */
    path = pathf("%s/tests/data/secrets/repo_manifest.json", root);
    json_t *man = ev_load_json(path);
    free(path);
    kind_row repo;
    memset(&repo, 0, sizeof(repo));
    snprintf(repo.kind, sizeof(repo.kind), "(fixture repository files)");
    snprintf(repo.cls, sizeof(repo.cls), "both");
    json_t *f;
    json_array_foreach(man, i, f)
    {
        char *fp = pathf("%s/tests/data/secrets/repo/%s", root, ev_str(f, "file"));
        mn_buf text = MN_BUF_INIT;
        int rc = mn_fs_read(&text, fp, 1 << 20);
        free(fp);
        if (rc != 0) {
            fprintf(stderr, "%s\n", mn_error_last());
            json_decref(man);
            return 2;
        }
        size_t k;
        json_t *x;
        json_array_foreach(json_object_get(f, "secrets"), k, x)
        {
            score(&repo, s, text.ptr, text.len, ev_str(x, "value"), ev_str(x, "rule"),
                  ev_str(f, "file"));
        }
        mn_buf_release(&text);
    }
    json_decref(man);

    size_t items = 0, det = 0, named = 0, kinds[2] = {0, 0};
    printf("%-28s %-6s %5s %8s %6s\n", "kind", "class", "items", "detected", "named");
    for (size_t r = 0; r < rows.len; r++) {
        kind_row *x = &rows.items[r];
        printf("%-28s %-6s %5zu %7.1f%% %5.1f%%\n", x->kind, x->cls, x->items,
               100.0 * (double)x->detected / (double)x->items,
               100.0 * (double)x->named / (double)x->items);
        items += x->items;
        det += x->detected;
        named += x->named;
        kinds[strcmp(x->cls, "pii") == 0]++;
    }
    printf("%-28s %-6s %5zu %7.1f%% %5.1f%%\n", repo.kind, repo.cls, repo.items,
           100.0 * (double)repo.detected / (double)(repo.items ? repo.items : 1),
           100.0 * (double)repo.named / (double)(repo.items ? repo.items : 1));
    double rate = 100.0 * (double)(det + repo.detected) / (double)(items + repo.items);
    printf("corpus: %zu items of %zu secret and %zu personal-data kinds; repository: %zu values\n",
           items, kinds[0], kinds[1], repo.items);
    printf("detected %.2f%% (%zu of %zu), named by the expected rule %.2f%%  [target >= 99%%: "
           "%s]\n\n",
           rate, det + repo.detected, items + repo.items,
           100.0 * (double)(named + repo.named) / (double)(items + repo.items),
           rate >= 99.0 ? "PASS" : "FAIL");
    *pass &= rate >= 99.0;
    mn_vec_release(&rows);
    return 0;
}

/* ---- 2. false positives ---- */

static bool skip_path(const char *rel)
{
    static const char *const skipped[] = {
        "tests/data/secrets",          /* the corpus and the fixture repository */
        "src/text/scan_rules.yaml",    /* the rules: patterns that look like what they find */
        "tests/unit/text/test_scan.c", /* the rules' unit test: fake secrets on purpose */
        "docs/internals/scan.md"       /* the rules' documentation: their examples */
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(skipped); i++)
        if (strncmp(rel, skipped[i], strlen(skipped[i])) == 0)
            return true;
    return false;
}

static void walk(docs *out, const char *root, const char *rel)
{
    char *path = pathf("%s/%s", root, rel);
    DIR *d = opendir(path);
    free(path);
    if (!d)
        return;
    struct dirent *e;
    /* a sorted listing, so that runs print hits in the same order */
    MN_VEC(char *) names = MN_VEC_INIT;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            mn_vec_push(&names, mn_strdup(e->d_name));
    closedir(d);
    for (size_t i = 1; i < names.len; i++)
        for (size_t j = i; j > 0 && strcmp(names.items[j - 1], names.items[j]) > 0; j--) {
            char *t = names.items[j];
            names.items[j] = names.items[j - 1];
            names.items[j - 1] = t;
        }
    for (size_t i = 0; i < names.len; i++) {
        char *sub = pathf("%s/%s", rel, names.items[i]);
        char *full = pathf("%s/%s", root, sub);
        free(names.items[i]);
        struct stat st;
        if (skip_path(sub) || lstat(full, &st) != 0) {
            free(sub);
            free(full);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            walk(out, root, sub);
        } else if (S_ISREG(st.st_mode)) {
            mn_buf text = MN_BUF_INIT;
            if (mn_fs_read(&text, full, 64 << 20) == 0)
                docs_add(out, sub, text.ptr, text.len);
            mn_buf_release(&text);
        }
        free(sub);
        free(full);
    }
    mn_vec_release(&names);
}

/* The eval corpora's texts: LoCoMo turns, LongMemEval turns (distinct),
 * SWE-bench problem statements. */
static void load_eval(docs *out, const char *dir)
{
    char *path = pathf("%s/locomo/locomo10.json", dir);
    json_t *lo = ev_load_json(path);
    free(path);
    size_t i;
    json_t *conv;
    json_array_foreach(lo, i, conv)
    {
        const char *key;
        json_t *sess;
        json_object_foreach(json_object_get(conv, "conversation"), key, sess)
        {
            if (!json_is_array(sess))
                continue;
            size_t k;
            json_t *turn;
            json_array_foreach(sess, k, turn)
            {
                const char *t = ev_str(turn, "text");
                docs_add(out, "locomo", t, strlen(t));
            }
        }
    }
    json_decref(lo);

    path = pathf("%s/longmemeval/longmemeval_s_dev.json", dir);
    json_t *lm = ev_load_json(path);
    free(path);
    mn_map seen = MN_MAP_INIT;
    json_t *q;
    json_array_foreach(lm, i, q)
    {
        size_t k;
        json_t *sess;
        json_array_foreach(json_object_get(q, "haystack_sessions"), k, sess)
        {
            size_t m;
            json_t *turn;
            json_array_foreach(sess, m, turn)
            {
                const char *t = ev_str(turn, "content");
                char h[32];
                snprintf(h, sizeof(h), "%016llx", (unsigned long long)XXH3_64bits(t, strlen(t)));
                if (mn_map_has(&seen, h))
                    continue;
                mn_map_set(&seen, h, (void *)1);
                docs_add(out, "longmemeval", t, strlen(t));
            }
        }
    }
    mn_map_release(&seen);
    json_decref(lm);

    static const char *const swe[] = {"swebench/dev.jsonl", "swebench/multi_dev.jsonl"};
    for (size_t f = 0; f < MN_ARRAY_SIZE(swe); f++) {
        path = pathf("%s/%s", dir, swe[f]);
        json_t *all = ev_load_jsonl(path);
        free(path);
        json_t *inst;
        json_array_foreach(all, i, inst)
        {
            char src[256];
            snprintf(src, sizeof(src), "swebench:%s", ev_str(inst, "instance_id"));
            const char *t = ev_str(inst, "problem_statement");
            docs_add(out, src, t, strlen(t));
        }
        json_decref(all);
    }
}

/* Print the hits in a set of texts; returns their count. */
static size_t false_positives(const mn_scanner *s, const docs *d, const char *name, bool quiet,
                              bool *pass)
{
    size_t hits = 0, bytes = docs_bytes(d);
    for (size_t i = 0; i < d->len; i++) {
        const doc *x = &d->items[i];
        mn_scan_hit *h = NULL;
        size_t n = 0;
        if (mn_scan_find(&h, &n, s, x->text, x->len, MN_SCAN_ALL) != 0)
            continue;
        for (size_t k = 0; k < n && !quiet; k++) {
            size_t lo = h[k].start > 40 ? h[k].start - 40 : 0;
            size_t hi = h[k].end + 40 < x->len ? h[k].end + 40 : x->len;
            printf("  %s\t%s\t%.*s\t| ", h[k].rule, x->src, (int)(h[k].end - h[k].start),
                   x->text + h[k].start);
            for (size_t c = lo; c < hi; c++)
                putchar(x->text[c] == '\n' || x->text[c] == '\t' ? ' ' : x->text[c]);
            putchar('\n');
        }
        hits += n;
        free(h);
    }
    double per100k = (double)hits / ((double)bytes / 102400.0);
    printf("%s: %zu hits in %.2f MB (%zu texts): %.2f per 100 KB  [target <= 1: %s]\n\n", name,
           hits, (double)bytes / 1e6, d->len, per100k, per100k <= 1.0 ? "PASS" : "FAIL");
    *pass &= per100k <= 1.0;
    return hits;
}

/* ---- 3. speed ---- */

typedef enum { OP_FIND, OP_ANY, OP_REDACT, OP_XXH3, OP_REGEX } op_kind;

static double run_op(op_kind op, const mn_scanner *s, const docs *d, pcre2_code *re,
                     pcre2_match_data *md)
{
    uint64_t t0 = cpu_ns();
    volatile size_t sink = 0;
    for (size_t i = 0; i < d->len; i++) {
        const doc *x = &d->items[i];
        switch (op) {
        case OP_FIND: {
            mn_scan_hit *h = NULL;
            size_t n = 0;
            mn_scan_find(&h, &n, s, x->text, x->len, MN_SCAN_ALL);
            sink += n;
            free(h);
            break;
        }
        case OP_ANY:
            sink += mn_scan_any(s, x->text, x->len, MN_SCAN_ALL);
            break;
        case OP_REDACT: {
            mn_buf out = MN_BUF_INIT;
            mn_scan_redact(&out, s, x->text, x->len, MN_SCAN_ALL, NULL);
            sink += out.len;
            mn_buf_release(&out);
            break;
        }
        case OP_XXH3:
            sink += (size_t)XXH3_64bits(x->text, x->len);
            break;
        case OP_REGEX:
            sink += pcre2_match(re, (PCRE2_SPTR)x->text, x->len, 0, 0, md, NULL) >= 0;
            break;
        }
    }
    (void)sink;
    return (double)(cpu_ns() - t0) / 1e9;
}

static double best(op_kind op, const mn_scanner *s, const docs *d, pcre2_code *re,
                   pcre2_match_data *md, int runs)
{
    double b = 1e30;
    for (int r = 0; r < runs; r++) {
        double t = run_op(op, s, d, re, md);
        if (t < b)
            b = t;
    }
    return b;
}

static double speed(const mn_scanner *s, const docs *d, const char *name, int runs)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR) "(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|"
                                                "ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])",
                                   PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    double mb = (double)docs_bytes(d) / 1e6;
    double tf = best(OP_FIND, s, d, re, md, runs), ta = best(OP_ANY, s, d, re, md, runs),
           tr = best(OP_REDACT, s, d, re, md, runs), tx = best(OP_XXH3, s, d, re, md, runs),
           tg = best(OP_REGEX, s, d, re, md, runs);
    printf("%s (%.2f MB, %zu texts, CPU time, best of %d):\n", name, mb, d->len, runs);
    printf("  find   %8.1f MB/s   (%.2fx the time of XXH3, %.2fx one JIT regex)\n", mb / tf,
           tf / tx, tf / tg);
    printf("  any    %8.1f MB/s   (%.2fx find)\n", mb / ta, ta / tf);
    printf("  redact %8.1f MB/s\n", mb / tr);
    printf("  baselines: XXH3 %.1f MB/s, one PCRE2 JIT regex %.1f MB/s\n", mb / tx, mb / tg);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return mb / tf;
}

/* Latency of one redaction per text (what a save pays for the scan). */
static void latency(const mn_scanner *s, const docs *d, const char *name)
{
    ev_samples us = MN_VEC_INIT;
    size_t maxlen = 0;
    for (size_t i = 0; i < d->len && i < 20000; i++) {
        const doc *x = &d->items[i];
        uint64_t t0 = cpu_ns();
        mn_buf out = MN_BUF_INIT;
        mn_scan_redact(&out, s, x->text, x->len, MN_SCAN_ALL, NULL);
        mn_buf_release(&out);
        mn_vec_push(&us, (double)(cpu_ns() - t0) / 1e3);
        if (x->len > maxlen)
            maxlen = x->len;
    }
    printf("  one redaction per %s text (%zu texts, up to %zu bytes): p50 %.1f us, p95 %.1f "
           "us, p99 %.1f us\n",
           name, us.len, maxlen, ev_percentile(&us, 0.5), ev_percentile(&us, 0.95),
           ev_percentile(&us, 0.99));
    mn_vec_release(&us);
}

/* ---- 4. start-up and first use ---- */

/* A list answer as `mnemo list --json` prints it: its dates wake two digit rules. */
static const char list_answer[] =
    "{\"memories\":[{\"id\":\"01M8FKJ5BF6SKXJ0SG9APVY833\",\"kind\":\"fact\",\"level\":"
    "\"L1\",\"status\":\"active\",\"title\":\"hello\",\"confidence\":0.9,\"updated_at\":"
    "\"2026-11-27T22:56:04.463Z\"}],\"total\":1,\"limit\":50,\"offset\":0}";

/* In a fresh process (bench_scan --child MODE ARG...): one figure, or two,
 * in nanoseconds of this thread's CPU time, printed on stdout. */
static int child(int argc, char **argv)
{
    const char *mode = argv[0];
    const mn_scanner *b = NULL;
    uint64_t t0 = cpu_ns();
    if (strcmp(mode, "builtin") == 0) {
        if (mn_scanner_builtin(&b) != 0)
            return 2;
        printf("%llu\n", (unsigned long long)(cpu_ns() - t0));
        return 0;
    }
    if (strcmp(mode, "yaml") == 0) {
        mn_scanner *y = NULL;
        if (mn_scan__from_yaml(&y, mn_text_scan_rules, strlen(mn_text_scan_rules), "built-in"))
            return 2;
        printf("%llu\n", (unsigned long long)(cpu_ns() - t0));
        mn_scanner_free(y);
        return 0;
    }
    if (strcmp(mode, "project") == 0 && argc == 2) {
        mn_scanner *p = NULL;
        if (mn_scanner_new(&p, argv[1]) != 0)
            return 2;
        printf("%llu\n", (unsigned long long)(cpu_ns() - t0));
        mn_scanner_free(p);
        return 0;
    }
    if (strcmp(mode, "rules") == 0) {
        /* every pattern compiled as scan_rules.c compiles it, then JIT-compiled */
        if (mn_scanner_builtin(&b) != 0)
            return 2;
        for (size_t i = 0; i < b->nrules; i++) {
            const mn_scan__rule *r = &b->rules[i];
            mn_buf w = MN_BUF_INIT;
            mn_buf_puts(&w, "(?:");
            mn_buf_put(&w, r->pattern, r->pattern_len);
            mn_buf_puts(&w, ")(?C1)");
            int err;
            PCRE2_SIZE off;
            uint64_t c0 = cpu_ns();
            pcre2_code *re =
                pcre2_compile((PCRE2_SPTR)w.ptr, w.len, PCRE2_MULTILINE | PCRE2_USE_OFFSET_LIMIT,
                              &err, &off, NULL);
            uint64_t c1 = cpu_ns();
            if (!re)
                return 2;
            pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
            printf("%llu %llu\n", (unsigned long long)(c1 - c0),
                   (unsigned long long)(cpu_ns() - c1));
            pcre2_code_free(re);
            mn_buf_release(&w);
        }
        return 0;
    }
    if (strcmp(mode, "first") == 0 && argc == 3) {
        /* the first and the second scan of a text, under a JIT policy */
        if (strcmp(argv[2], "jit") == 0)
            mn_scan__jit = (mn_scan__jit_policy){0, 0};
        else if (strcmp(argv[2], "interp") == 0)
            mn_scan__jit = (mn_scan__jit_policy){UINT64_MAX, SIZE_MAX};
        mn_buf text = MN_BUF_INIT;
        if (strcmp(argv[1], "-") == 0)
            mn_buf_puts(&text, list_answer);
        else if (mn_fs_read(&text, argv[1], 1 << 24) != 0)
            return 2;
        if (mn_scanner_builtin(&b) != 0)
            return 2;
        uint64_t t[2];
        for (int k = 0; k < 2; k++) {
            uint64_t s0 = cpu_ns();
            mn_buf out = MN_BUF_INIT;
            mn_scan_hit *h = NULL;
            size_t n = 0;
            if (mn_scan_find_redact(&h, &n, &out, b, text.ptr, text.len, MN_SCAN_ALL, NULL) != 0)
                return 2;
            t[k] = cpu_ns() - s0;
            free(h);
            mn_buf_release(&out);
        }
        size_t woken = 0;
        for (size_t i = 0; i < b->nrules; i++)
            woken += atomic_load(&b->rules[i].lazy->code) != NULL;
        printf("%llu %llu %zu %zu\n", (unsigned long long)t[0], (unsigned long long)t[1], woken,
               text.len);
        mn_buf_release(&text);
        return 0;
    }
    return 2;
}

#define FRESH_RUNS 15

/* Run `bench_scan --child args...` FRESH_RUNS times; per run, the numbers
 * of the first line it prints (up to 4), or every line's for "rules"
 * (summed by column). out[k] is the median of column k over the runs. */
static int fresh(double out[4], const char *const *args, size_t nargs)
{
    ev_samples col[4] = {MN_VEC_INIT, MN_VEC_INIT, MN_VEC_INIT, MN_VEC_INIT};
    int rc = 0;
    for (int run = 0; run < FRESH_RUNS && rc == 0; run++) {
        int fd[2];
        if (pipe(fd) != 0)
            return -1;
        pid_t pid = fork();
        if (pid == 0) {
            const char *argv[8] = {"bench_scan", "--child"};
            for (size_t i = 0; i < nargs && i < 5; i++)
                argv[2 + i] = args[i];
            dup2(fd[1], 1);
            close(fd[0]);
            execv("/proc/self/exe", (char *const *)argv);
            _exit(127);
        }
        close(fd[1]);
        FILE *f = fdopen(fd[0], "r");
        double sum[4] = {0};
        char line[256];
        while (f && fgets(line, sizeof(line), f)) {
            double v[4] = {0};
            int got = sscanf(line, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]);
            for (int k = 0; k < got && k < 4; k++)
                sum[k] += v[k];
        }
        if (f)
            fclose(f);
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            rc = -1;
        for (int k = 0; k < 4; k++)
            mn_vec_push(&col[k], sum[k]);
    }
    for (int k = 0; k < 4; k++) {
        out[k] = rc == 0 ? ev_percentile(&col[k], 0.5) : 0;
        mn_vec_release(&col[k]);
    }
    return rc;
}

/* every built-in pattern compiled, then JIT-compiled, in one fresh process */
static void rule_costs(void)
{
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[] = {"bench_scan", "--child", "rules", NULL};
        dup2(fd[1], 1);
        close(fd[0]);
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    ev_samples comp = MN_VEC_INIT, jit = MN_VEC_INIT;
    double tc = 0, tj = 0;
    char line[128];
    while (f && fgets(line, sizeof(line), f)) {
        double c, j;
        if (sscanf(line, "%lf %lf", &c, &j) == 2) {
            mn_vec_push(&comp, c / 1e3);
            mn_vec_push(&jit, j / 1e3);
            tc += c / 1e3;
            tj += j / 1e3;
        }
    }
    if (f)
        fclose(f);
    waitpid(pid, NULL, 0);
    if (comp.len)
        printf("  first uses: %zu patterns compiled in %.0f us (median %.1f us, max %.0f us); "
               "JIT-compiled in %.0f us (median %.1f us, max %.0f us)\n",
               comp.len, tc, ev_percentile(&comp, 0.5), ev_percentile(&comp, 1.0), tj,
               ev_percentile(&jit, 0.5), ev_percentile(&jit, 1.0));
    mn_vec_release(&comp);
    mn_vec_release(&jit);
}

static bool startup(const char *root)
{
    double v[4], y[4];
    printf("== start-up and first use (a fresh process per figure: CPU time of its thread, "
           "median of %d)\n",
           FRESH_RUNS);
    const char *a_builtin[] = {"builtin"}, *a_yaml[] = {"yaml"};
    if (fresh(v, a_builtin, 1) != 0 || fresh(y, a_yaml, 1) != 0) {
        printf("  (the child processes failed)\n\n");
        return false;
    }
    bool ok = v[0] < 100e3;
    printf("  built-in scanner ready: %.1f us  (the same rules read from scan_rules.yaml at run "
           "time: %.2f ms)  [target < 100 us: %s]\n",
           v[0] / 1e3, y[0] / 1e6, ok ? "PASS" : "FAIL");
    char dir[] = "/tmp/bench-scan-XXXXXX";
    if (mkdtemp(dir)) {
        char *pa = pathf("%s/allow.yaml", dir), *pk = pathf("%s/rules.yaml", dir);
        static const char allow[] =
            "disable: [phone-context]\nallow:\n  values: [AKIAIOSFODNN7EXAMPLE]\n"
            "  paths: ['tests/fixtures/']\n";
        static const char rules[] = "rules:\n  - id: acme-token\n    class: secret\n"
                                    "    prefixes: [acme_]\n    window: [0, 0]\n"
                                    "    pattern: 'acme_[A-Za-z0-9]{24}'\n";
        if (mn_fs_write_atomic(pa, allow, strlen(allow)) == 0 &&
            mn_fs_write_atomic(pk, rules, strlen(rules)) == 0) {
            const char *a1[] = {"project", pa}, *a2[] = {"project", pk};
            double p1[4], p2[4];
            if (fresh(p1, a1, 2) == 0 && fresh(p2, a2, 2) == 0)
                printf("  with a project's file: allow and disable only %.1f us (the built-in "
                       "automaton shared); a keyword rule added %.2f ms (an automaton of every "
                       "keyword built)\n",
                       p1[0] / 1e3, p2[0] / 1e6);
        }
        unlink(pa);
        unlink(pk);
        rmdir(dir);
        free(pa);
        free(pk);
    }
    rule_costs();
    char *page = pathf("%s/docs/internals/scan.md", root), *src = pathf("%s/src/text/scan.c", root);
    const char *files[] = {"-", page, src};
    const char *names[] = {"a list answer", "docs/internals/scan.md", "src/text/scan.c"};
    const char *policies[] = {"lazy", "jit", "interp"};
    printf("  %-48s %-19s %-19s %-19s\n", "first scan / second scan, us", "rent-or-buy JIT",
           "JIT on first use", "interpreter only");
    for (size_t i = 0; i < MN_ARRAY_SIZE(files); i++) {
        double r[3][4];
        bool good = true;
        for (size_t p = 0; p < 3; p++) {
            const char *args[] = {"first", files[i], policies[p]};
            good &= fresh(r[p], args, 3) == 0;
        }
        if (!good)
            continue;
        char what[96];
        snprintf(what, sizeof(what), "%s (%.0f bytes, %.0f rules)", names[i], r[0][3], r[0][2]);
        printf("  %-48s", what);
        for (size_t p = 0; p < 3; p++) {
            char cell[32];
            snprintf(cell, sizeof(cell), "%.0f / %.0f", r[p][0] / 1e3, r[p][1] / 1e3);
            printf(" %-19s", cell);
        }
        printf("\n");
    }
    printf("\n");
    free(page);
    free(src);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return child(argc - 2, argv + 2);

    char root[2048], eval[2048];
    bool quiet = false, strict = false, only_startup = false, pass = true;
    int runs = 5;
    /* the repository this file was built from: bench/bench_scan.c -> .. */
    snprintf(root, sizeof(root), "%s", __FILE__);
    char *slash = strrchr(root, '/');
    if (slash)
        *slash = '\0';
    slash = strrchr(root, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(root, sizeof(root), ".");
    eval[0] = '\0';
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
            snprintf(root, sizeof(root), "%.2000s", argv[++i]);
        else if (strcmp(argv[i], "--eval") == 0 && i + 1 < argc)
            snprintf(eval, sizeof(eval), "%.2000s", argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            int64_t v;
            if (mn_parse_int64(&v, argv[++i], 1, 100, "--runs") != 0) {
                fprintf(stderr, PROG ": %s\n", mn_error_last());
                return 2;
            }
            runs = (int)v;
        } else if (strcmp(argv[i], "--quiet") == 0)
            quiet = true;
        else if (strcmp(argv[i], "--strict") == 0)
            strict = true;
        else if (strcmp(argv[i], "--startup") == 0)
            only_startup = true;
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (!eval[0])
        snprintf(eval, sizeof(eval), "%.2000s/../shared/eval", root);

    const mn_scanner *s = NULL;
    uint64_t t0 = cpu_ns();
    if (mn_scanner_builtin(&s) != 0) {
        fprintf(stderr, PROG ": %s\n", mn_error_last());
        return 2;
    }
    double build_ms = (double)(cpu_ns() - t0) / 1e6;
    size_t nrules = 0;
    mn_scanner_rules(s, &nrules);
    printf(PROG ": %zu built-in rules, ready in %.3f ms of CPU (once per process); "
                "repository %s\n\n",
           nrules, build_ms, root);

    if (only_startup) {
        pass &= startup(root);
        return strict && !pass ? 1 : 0;
    }
    if (detection(s, root, &pass) != 0)
        return 2;

    docs code = MN_VEC_INIT, prose = MN_VEC_INIT, evals = MN_VEC_INIT;
    walk(&code, root, "src");
    walk(&code, root, "tests");
    walk(&prose, root, "docs");
    printf("== false positives (every hit is printed: rule, source, matched text, context)\n");
    docs repo = MN_VEC_INIT;
    for (size_t i = 0; i < code.len; i++)
        docs_add(&repo, code.items[i].src, code.items[i].text, code.items[i].len);
    for (size_t i = 0; i < prose.len; i++)
        docs_add(&repo, prose.items[i].src, prose.items[i].text, prose.items[i].len);
    false_positives(s, &repo, "repository src/ tests/ docs/", quiet, &pass);
    docs_release(&repo);
    if (mn_fs_is_dir(eval)) {
        load_eval(&evals, eval);
        false_positives(s, &evals, "eval corpora (LoCoMo, LongMemEval, SWE-bench)", quiet, &pass);
    } else {
        printf("eval corpora: %s not found, skipped\n\n", eval);
    }

    printf("== speed\n");
    double code_mbs = speed(s, &code, "source code: src/ and tests/, one call per file", runs);
    printf("  [target >= 150 MB/s for find on source code: %s]\n",
           code_mbs >= 150 ? "PASS" : "FAIL");
    pass &= code_mbs >= 150;
    speed(s, &prose, "docs/, one call per file", runs);
    if (evals.len) {
        speed(s, &evals, "eval texts, one call per turn or statement", runs);
        latency(s, &evals, "eval");
    }
    docs_release(&code);
    docs_release(&prose);
    docs_release(&evals);
    printf("\n");
    pass &= startup(root);
    return strict && !pass ? 1 : 0;
}
