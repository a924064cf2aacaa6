/*
 * eval_common.c - input, timing, metrics, report and options of the
 * dataset benches (eval.h).
 *
 * Metrics, for one question with the distinct gold ids G and a ranking R
 * (R_1 first; -1 entries are returned items that match nothing):
 *   hits@k       = |G ∩ {R_1..R_k}|
 *   recall@k     = hits@k / |G|           (LoCoMo evidence recall)
 *   recall_any@k = [hits@k > 0]           (LongMemEval)
 *   recall_all@k = [hits@k = |G|]         (LongMemEval; SWE-bench Acc@k)
 *   NDCG@k       = DCG@k / IDCG@k, binary relevance, IDCG over min(|G|, k)
 *                  relevant items first, with the discount of the protocol:
 *                  standard 1 / log2(i + 1), or LongMemEval's own
 *                  (position 1 weighs 1, position i >= 2 weighs 1 / log2 i).
 * Percentiles are nearest-rank on the sorted samples: index round(p (n-1)).
 *
 * The report accumulates sums and counts per (group, metric, system); a
 * value added to a group is added to "all" too, so "all" is the mean over
 * every question of every group (micro average), not a mean of groups.
 */
#include "common.h"
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "eval.h"
#include "store/store.h"
#include "util/util.h"

/* ---- input ---- */

json_t *ev_load_json(const char *path)
{
    json_error_t err;
    json_t *v = json_load_file(path, JSON_DECODE_ANY, &err);
    if (!v)
        fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
    return v;
}

json_t *ev_load_jsonl(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return NULL;
    }
    json_t *all = json_array();
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        size_t i = 0;
        while (i < (size_t)len &&
               (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r'))
            i++;
        if (i == (size_t)len)
            continue;
        json_error_t err;
        json_t *v = json_loadb(line, (size_t)len, 0, &err);
        if (!v) {
            fprintf(stderr, "%s:%zu: %s\n", path, lineno, err.text);
            json_decref(all);
            all = NULL;
            break;
        }
        json_array_append_new(all, v);
    }
    free(line);
    fclose(f);
    return all;
}

const char *ev_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* ---- time ---- */

uint64_t ev_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double ev_percentile(const ev_samples *s, double p)
{
    if (s->len == 0)
        return 0;
    double *v = mn_malloc(s->len * sizeof(*v));
    memcpy(v, s->items, s->len * sizeof(*v));
    qsort(v, s->len, sizeof(*v), cmp_double);
    double r = v[(size_t)(p * (double)(s->len - 1) + 0.5)];
    free(v);
    return r;
}

double ev_sum(const ev_samples *s)
{
    double t = 0;
    for (size_t i = 0; i < s->len; i++)
        t += s->items[i];
    return t;
}

double ev_mean(const ev_samples *s)
{
    return s->len ? ev_sum(s) / (double)s->len : 0;
}

/* ---- metrics ---- */

static bool in_set(int64_t id, const int64_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == id)
            return true;
    return false;
}

size_t ev_hits(const int64_t *rank, size_t n, size_t k, const int64_t *gold, size_t ngold)
{
    size_t hits = 0;
    if (k > n)
        k = n;
    for (size_t i = 0; i < k; i++)
        if (rank[i] >= 0 && in_set(rank[i], gold, ngold) && !in_set(rank[i], rank, i))
            hits++;
    return hits;
}

static double discount(size_t pos /* 1-based */, ev_dcg style)
{
    if (style == EV_DCG_LME)
        return pos == 1 ? 1.0 : 1.0 / log2((double)pos);
    return 1.0 / log2((double)pos + 1.0);
}

double ev_ndcg(const int64_t *rank, size_t n, size_t k, const int64_t *gold, size_t ngold,
               ev_dcg style)
{
    double dcg = 0, idcg = 0;
    if (ngold == 0)
        return 0;
    for (size_t i = 0; i < k && i < n; i++)
        if (rank[i] >= 0 && in_set(rank[i], gold, ngold) && !in_set(rank[i], rank, i))
            dcg += discount(i + 1, style);
    for (size_t i = 0; i < k && i < ngold; i++)
        idcg += discount(i + 1, style);
    return dcg / idcg;
}

size_t ev_rank_map(int64_t *out, const int64_t *rank, size_t n, const int64_t *map, size_t nmap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = rank[i] >= 0 && (size_t)rank[i] < nmap ? map[rank[i]] : -1;
        if (v >= 0 && in_set(v, out, m))
            continue;
        out[m++] = v;
    }
    return m;
}

size_t ev_rank_dedup(int64_t *rank, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (rank[i] >= 0 && in_set(rank[i], rank, m))
            continue;
        rank[m++] = rank[i];
    }
    return m;
}

/* ---- report ---- */

static char *vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *vformat(const char *fmt, va_list ap)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_vprintf(&b, fmt, ap);
    return mn_buf_detach(&b);
}

static size_t group_index(ev_report *r, const char *label)
{
    for (size_t i = 0; i < r->groups.len; i++)
        if (strcmp(r->groups.items[i].label, label) == 0)
            return i;
    /* "all" first, then the groups in label order */
    ev_group g = {mn_strdup(label), 0, mn_calloc(r->nmetrics, sizeof(ev_cell))};
    size_t pos = r->groups.len;
    while (pos > 1 && strcmp(r->groups.items[pos - 1].label, label) > 0)
        pos--;
    mn_vec_push(&r->groups, g);
    memmove(&r->groups.items[pos + 1], &r->groups.items[pos],
            (r->groups.len - 1 - pos) * sizeof(ev_group));
    r->groups.items[pos] = g;
    return pos;
}

static size_t metric_index(const ev_report *r, const char *metric)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i], metric) == 0)
            return i;
    fprintf(stderr, "bench: bug: unknown metric '%s'\n", metric);
    abort();
}

void ev_report_init(ev_report *r, const char *bench, const char *dataset,
                    const char *const *metrics, size_t nmetrics)
{
    memset(r, 0, sizeof(*r));
    r->bench = bench;
    r->dataset = dataset;
    r->nmetrics = nmetrics;
    r->metrics = mn_calloc(nmetrics, sizeof(char *));
    for (size_t i = 0; i < nmetrics; i++)
        r->metrics[i] = mn_strdup(metrics[i]);
    r->extra = json_object();
    r->tokens_k = 10;
    group_index(r, "all");
}

void ev_report_release(ev_report *r)
{
    for (size_t i = 0; i < r->groups.len; i++) {
        free(r->groups.items[i].label);
        free(r->groups.items[i].cells);
    }
    mn_vec_release(&r->groups);
    for (size_t i = 0; i < r->nmetrics; i++)
        free(r->metrics[i]);
    free(r->metrics);
    for (int s = 0; s < EV_NSYS; s++) {
        mn_vec_release(&r->latency[s]);
        mn_vec_release(&r->tokens[s]);
    }
    for (size_t i = 0; i < r->lines.len; i++)
        free(r->lines.items[i]);
    mn_vec_release(&r->lines);
    for (size_t i = 0; i < r->notes.len; i++)
        free(r->notes.items[i]);
    mn_vec_release(&r->notes);
    for (size_t i = 0; i < r->unscored.len; i++)
        free(r->unscored.items[i]);
    mn_vec_release(&r->unscored);
    json_decref(r->extra);
}

void ev_report_question(ev_report *r, const char *group)
{
    r->groups.items[0].questions++;
    if (strcmp(group, "all") != 0) {
        size_t g = group_index(r, group); /* may grow (move) the array: index it after */
        r->groups.items[g].questions++;
    }
}

void ev_report_add(ev_report *r, const char *group, const char *metric, int sys, double v)
{
    size_t m = metric_index(r, metric);
    size_t g = group_index(r, group);
    r->groups.items[g].cells[m].sum[sys] += v;
    r->groups.items[g].cells[m].n[sys]++;
    if (g != 0) {
        r->groups.items[0].cells[m].sum[sys] += v;
        r->groups.items[0].cells[m].n[sys]++;
    }
}

double ev_report_mean(const ev_report *r, const char *group, const char *metric, int sys)
{
    size_t m = metric_index(r, metric);
    for (size_t g = 0; g < r->groups.len; g++) {
        if (strcmp(r->groups.items[g].label, group) != 0)
            continue;
        const ev_cell *c = &r->groups.items[g].cells[m];
        return c->n[sys] ? c->sum[sys] / (double)c->n[sys] : NAN;
    }
    return NAN;
}

void ev_report_line(ev_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    mn_vec_push(&r->lines, s);
}

void ev_report_note(ev_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    mn_vec_push(&r->notes, s);
}

void ev_report_unscored(ev_report *r, const char *unit, const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    mn_buf_printf(&b, "%s: ", unit);
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    fprintf(stderr, "bench_%s: not scored: %s\n", r->bench, b.ptr);
    mn_vec_push(&r->unscored, mn_buf_detach(&b));
}

static void put_value(FILE *f, const ev_cell *c, int sys, int width)
{
    if (c->n[sys])
        fprintf(f, "%*.3f", width, c->sum[sys] / (double)c->n[sys]);
    else
        fprintf(f, "%*s", width, "-");
}

/* Groups side by side, at most 4 per block so that a line stays under ~100 columns. */
void ev_report_print_table(const ev_report *r, FILE *f)
{
    enum { PER_BLOCK = 4, VALUE_W = 7 };
    int name_w = 6;
    for (size_t m = 0; m < r->nmetrics; m++)
        if ((int)strlen(r->metrics[m]) > name_w)
            name_w = (int)strlen(r->metrics[m]);
    for (size_t g0 = 0; g0 < r->groups.len; g0 += PER_BLOCK) {
        size_t g1 = g0 + PER_BLOCK < r->groups.len ? g0 + PER_BLOCK : r->groups.len;
        int width[PER_BLOCK];
        char label[PER_BLOCK][96];
        for (size_t g = g0; g < g1; g++) {
            snprintf(label[g - g0], sizeof(label[0]), "%s (%zu)", r->groups.items[g].label,
                     r->groups.items[g].questions);
            int w = (int)strlen(label[g - g0]);
            width[g - g0] = w > 2 * VALUE_W + 1 ? w : 2 * VALUE_W + 1;
        }
        fprintf(f, "%-*s", name_w, "");
        for (size_t g = g0; g < g1; g++)
            fprintf(f, " | %-*s", width[g - g0], label[g - g0]);
        fprintf(f, "\n%-*s", name_w, "metric");
        for (size_t g = g0; g < g1; g++)
            fprintf(f, " | %*s %*s%*s", VALUE_W, "mnemo", VALUE_W, "bm25",
                    width[g - g0] - 2 * VALUE_W - 1, "");
        fputc('\n', f);
        for (size_t m = 0; m < r->nmetrics; m++) {
            fprintf(f, "%-*s", name_w, r->metrics[m]);
            for (size_t g = g0; g < g1; g++) {
                const ev_cell *c = &r->groups.items[g].cells[m];
                fputs(" | ", f);
                put_value(f, c, EV_MNEMO, VALUE_W);
                fputc(' ', f);
                put_value(f, c, EV_BM25, VALUE_W);
                fprintf(f, "%*s", width[g - g0] - 2 * VALUE_W - 1, "");
            }
            fputc('\n', f);
        }
        if (g1 < r->groups.len)
            fputc('\n', f);
    }
}

void ev_report_print(const ev_report *r, FILE *f)
{
    static const char *const names[EV_NSYS] = {"mnemo", "bm25"};
    ev_report_print_table(r, f);
    fprintf(f, "\nquery latency ms:");
    for (int s = 0; s < EV_NSYS; s++) {
        if (!r->available[s] || r->latency[s].len == 0)
            fprintf(f, "%s %s -", s ? "  |" : "", names[s]);
        else
            fprintf(f, "%s %s p50 %.3f p95 %.3f max %.3f (n=%zu)", s ? "  |" : "", names[s],
                    ev_percentile(&r->latency[s], 0.5), ev_percentile(&r->latency[s], 0.95),
                    ev_percentile(&r->latency[s], 1.0), r->latency[s].len);
    }
    fprintf(f, "\ntokens of the first %zu items (mean, bytes/4):", r->tokens_k);
    for (int s = 0; s < EV_NSYS; s++) {
        if (!r->available[s] || r->tokens[s].len == 0)
            fprintf(f, "%s %s -", s ? "  |" : "", names[s]);
        else
            fprintf(f, "%s %s %.0f (p95 %.0f)", s ? "  |" : "", names[s], ev_mean(&r->tokens[s]),
                    ev_percentile(&r->tokens[s], 0.95));
    }
    fputc('\n', f);
    for (size_t i = 0; i < r->lines.len; i++)
        fprintf(f, "%s\n", r->lines.items[i]);
    for (size_t i = 0; i < r->notes.len; i++)
        fprintf(f, "note: %s\n", r->notes.items[i]);
    fprintf(f, "not scored: %zu%s\n", r->unscored.len, r->unscored.len ? ":" : "");
    for (size_t i = 0; i < r->unscored.len; i++)
        fprintf(f, "  %s\n", r->unscored.items[i]);
}

static json_t *mean_or_null(const ev_cell *c, int s)
{
    return c->n[s] ? json_real(c->sum[s] / (double)c->n[s]) : json_null();
}

json_t *ev_report_json(const ev_report *r)
{
    static const char *const names[EV_NSYS] = {"mnemo", "bm25"};
    json_t *out = json_object(), *groups = json_array();
    json_object_set_new(out, "bench", json_string(r->bench));
    json_object_set_new(out, "dataset", json_string(r->dataset));
    json_object_set_new(out, "search_available", json_boolean(r->available[EV_MNEMO]));
    for (size_t g = 0; g < r->groups.len; g++) {
        json_t *metrics = json_object();
        for (size_t m = 0; m < r->nmetrics; m++) {
            const ev_cell *c = &r->groups.items[g].cells[m];
            json_object_set_new(metrics, r->metrics[m],
                                json_pack("{s:o,s:o,s:I,s:I}", "mnemo", mean_or_null(c, EV_MNEMO),
                                          "bm25", mean_or_null(c, EV_BM25), "n_mnemo",
                                          (json_int_t)c->n[EV_MNEMO], "n_bm25",
                                          (json_int_t)c->n[EV_BM25]));
        }
        json_array_append_new(
            groups, json_pack("{s:s,s:I,s:o}", "label", r->groups.items[g].label, "questions",
                              (json_int_t)r->groups.items[g].questions, "metrics", metrics));
    }
    json_object_set_new(out, "groups", groups);
    json_t *lat = json_object(), *tok = json_object();
    for (int s = 0; s < EV_NSYS; s++) {
        const ev_samples *l = &r->latency[s], *t = &r->tokens[s];
        json_object_set_new(lat, names[s],
                            l->len ? json_pack("{s:f,s:f,s:f,s:I}", "p50", ev_percentile(l, 0.5),
                                               "p95", ev_percentile(l, 0.95), "max",
                                               ev_percentile(l, 1.0), "n", (json_int_t)l->len)
                                   : json_null());
        json_object_set_new(
            tok, names[s],
            t->len ? json_pack("{s:f,s:f}", "mean", ev_mean(t), "p95", ev_percentile(t, 0.95))
                   : json_null());
    }
    json_object_set_new(out, "latency_ms", lat);
    json_object_set_new(out, "tokens_k", json_integer((json_int_t)r->tokens_k));
    json_object_set_new(out, "tokens", tok);
    json_object_set_new(out, "mnemo_errors", json_integer((json_int_t)r->errors));
    json_t *notes = json_array();
    for (size_t i = 0; i < r->notes.len; i++)
        json_array_append_new(notes, json_string(r->notes.items[i]));
    json_object_set_new(out, "notes", notes);
    json_t *un = json_array();
    for (size_t i = 0; i < r->unscored.len; i++)
        json_array_append_new(un, json_string(r->unscored.items[i]));
    json_object_set_new(out, "not_scored", un);
    json_object_update(out, r->extra);
    return out;
}

bool ev_report_target(const ev_report *r, FILE *f, const char *group, const char *metric,
                      double min)
{
    double m = ev_report_mean(r, group, metric, EV_MNEMO);
    double b = ev_report_mean(r, group, metric, EV_BM25);
    char label[128];
    snprintf(label, sizeof(label), "%s%s%s", metric, strcmp(group, "all") ? " in " : "",
             strcmp(group, "all") ? group : "");
    if (isnan(m)) {
        fprintf(f, "target %s >= %.2f: mnemo - (bm25 %.3f)\n", label, min, b);
        return true;
    }
    bool ok = m >= min;
    fprintf(f, "target %s >= %.2f: mnemo %.3f (bm25 %.3f) %s\n", label, min, m, b,
            ok ? "PASS" : "FAIL");
    return ok;
}

/* ---- command line ---- */

int ev_take_option(int *argc, char **argv, const char *name, const char **value, const char *prog,
                   const char *usage)
{
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        if (i > 0 && !strcmp(argv[i], name)) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "%s: %s needs a file name\n%s", prog, name, usage);
                return -1;
            }
            *value = argv[++i];
            continue;
        }
        argv[n++] = argv[i];
    }
    *argc = n;
    return 0;
}

int ev_parse_args(ev_options *o, int argc, char **argv, const char *prog, const char *usage,
                  const char *env_input)
{
    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int64_t v;
        if ((!strcmp(a, "--limit") || !strcmp(a, "--k") || !strcmp(a, "--sample") ||
             !strcmp(a, "--min-free")) &&
            i + 1 < argc) {
            if (mn_parse_int64(&v, argv[++i], strcmp(a, "--limit") ? 1 : 0, 1000000, a) != 0) {
                fprintf(stderr, "%s: %s\n", prog, mn_error_last());
                return 2;
            }
            *(!strcmp(a, "--k")          ? &o->k
              : !strcmp(a, "--limit")    ? &o->limit
              : !strcmp(a, "--min-free") ? &o->min_free_gb
                                         : &o->sample) = (size_t)v;
        } else if (!strcmp(a, "--repos") && i + 1 < argc) {
            o->repos = argv[++i];
        } else if (!strcmp(a, "--stores") && i + 1 < argc) {
            o->stores = argv[++i];
        } else if (!strcmp(a, "--db") && i + 1 < argc) {
            o->db = argv[++i];
            if (mn_store_kind_of(o->db) != MN_STORE_POSTGRES) {
                fprintf(stderr,
                        "%s: --db takes a PostgreSQL URL or conninfo, not '%s' (SQLite stores "
                        "are the default)\n",
                        prog, o->db);
                return 2;
            }
            ev_store_location(o->db);
        } else if (!strcmp(a, "--only-baseline")) {
            o->only_baseline = true;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            o->verbose = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--strict")) {
            o->strict = true;
        } else if (!strcmp(a, "--keep")) {
            o->keep = true;
        } else if (!strcmp(a, "--bm25-files") && i + 1 < argc) {
            const char *set = argv[++i];
            if (strcmp(set, "all") != 0 && strcmp(set, "code") != 0) {
                fprintf(stderr, "%s: --bm25-files takes code or all, not '%s'\n", prog, set);
                return 2;
            }
            o->all_files = !strcmp(set, "all");
        } else if (!strcmp(a, "--no-captions")) {
            o->no_captions = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: unknown option '%s'\n%s", prog, a, usage);
            return 2;
        } else if (!o->input) {
            o->input = a;
        } else {
            fprintf(stderr, "%s: one dataset path only ('%s' is extra)\n%s", prog, a, usage);
            return 2;
        }
    }
    if (!o->input && env_input && getenv(env_input) && *getenv(env_input))
        o->input = getenv(env_input);
    if (!o->input) {
        printf("%s: skipped (no dataset given; usage: see --help or bench/README.md)\n", prog);
        return 1;
    }
    return 0;
}
