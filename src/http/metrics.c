/*
 * metrics.c - what `mnemo serve` counts, and GET /metrics, its Prometheus
 * text exposition (format 0.0.4).
 *
 * Operations are counted where every front end meets: mn_api_call tells
 * an observer (mn_api_observer_set) of each call with its op, result, time,
 * input and answer. A front end marks the calls it makes on a worker
 * thread (mn_http__metrics_front_begin/end: rest.c around an op,
 * mcp_endpoint.c around a JSON-RPC message); calls outside such a span
 * (the server reading its config, /metrics reading the store's sizes) are
 * not counted. What is kept, process-wide (a server is one per process):
 *
 *   per front end (rest, mcp) and op:
 *     a latency histogram: counts per bucket, upper bounds in seconds
 *       0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 +Inf
 *       (each call adds 1 to the first bucket >= its time; the exposition
 *       sums them, so _count and requests are the +Inf bucket and always
 *       agree), and the sum of the times
 *     errors by code (mn_error_name of the result)
 *   per op: items served (context, search, search_code: items; recall:
 *     facts, few_shots, decisions, links; plan_files: selected)
 *   feedback recorded, by signal (used, ignored, refined)
 *   captures by op (capture, ingest_git, ingest_docs, ingest_issues) and
 *     outcome: saved (saved or created), queued, merged
 *   HTTP responses by path family (/mcp, /v1, /metrics, /healthz, other)
 *     and status; built-in models trained (api/embedder.c counts them)
 *
 * Every series but the HTTP responses is per project (label project="...",
 * first): each project the server has run an op for gets a block of
 * counters on its first call (at most MAX_PROJECTS; later ones are counted
 * under project="" , the server admin's only), published with an atomic
 * pointer so that counting never takes a lock. The calling thread names
 * its project in mn_http__metrics_front_begin.
 *
 * Who sees what (docs/http.md): the server's admin (the local user of a
 * loopback server, or an admin token of the server's own project) sees
 * every project and the HTTP responses; any other token sees its own
 * project's series only, so that a token of A learns nothing of B, not
 * even that it exists.
 *
 * Every counter is a relaxed C11 atomic: the workers never wait on each
 * other to count, and a scrape reads each counter once (a scrape during
 * calls may see a call's count without its time; the next one agrees).
 * Only series that have counted something are printed. Store sizes are
 * gauges read at the scrape through the ops list and files (memories by
 * status, indexed files), for each project shown.
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

#include "api/api_internal.h"
#include "http/rest.h"
#include "util/buf.h"

#define MAX_OPS  64 /* the table has ~35; a larger one is counted up to here */
#define NBUCKETS 14 /* 13 bounds and +Inf */
#define NCODES   17 /* -MN_EUNSUPPORTED + 1 */

static const double bucket_le[NBUCKETS - 1] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                               0.25,  0.5,    1,     2.5,  5,     10};

typedef struct {
    atomic_uint_fast64_t buckets[NBUCKETS];
    atomic_uint_fast64_t sum_ns;
    atomic_uint_fast64_t errors[NCODES];
} op_stats;

static const char *const front_names[MN_METRICS_FRONTS] = {"rest", "mcp"};
static const char *const signals[] = {"used", "ignored", "refined"};
static const char *const capture_ops[] = {"capture", "ingest_git", "ingest_docs", "ingest_issues"};
static const char *const outcomes[] = {"saved", "queued", "merged"};

#define MAX_PROJECTS 256 /* projects counted apart; more are counted under "" */

/* One project's counters. */
typedef struct {
    char *name;
    op_stats stats[MN_METRICS_FRONTS][MAX_OPS];
    atomic_uint_fast64_t served[MAX_OPS];
    atomic_uint_fast64_t feedback[MN_ARRAY_SIZE(signals)];
    atomic_uint_fast64_t captured[MN_ARRAY_SIZE(capture_ops)][MN_ARRAY_SIZE(outcomes)];
} project_stats;

/* projects[0] is "", the overflow; the others in order of first use (never freed: a
 * server's projects are few, and a scrape may read a block at any time) */
static _Atomic(project_stats *) projects[MAX_PROJECTS + 1];
static atomic_size_t nprojects;
static pthread_mutex_t projects_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const families[] = {"/mcp", "/v1", "/metrics", "/healthz", "other"};
static const unsigned statuses[] = {200, 202, 204, 400, 401, 403, 404, 405,
                                    406, 409, 413, 415, 500, 503, 0 /* any other */};
static atomic_uint_fast64_t responses[MN_ARRAY_SIZE(families)][MN_ARRAY_SIZE(statuses)];

static _Thread_local int current_front = -1;
static _Thread_local project_stats *current_project;

/* The counters of a project, made on its first use; the overflow's past MAX_PROJECTS. */
static project_stats *project_of(const char *name)
{
    size_t n = atomic_load_explicit(&nprojects, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        project_stats *p = atomic_load_explicit(&projects[i], memory_order_acquire);
        if (p && strcmp(p->name, name) == 0)
            return p;
    }
    pthread_mutex_lock(&projects_lock);
    n = atomic_load_explicit(&nprojects, memory_order_relaxed);
    project_stats *found = NULL;
    if (n == 0) { /* the overflow first */
        project_stats *o = mn_calloc(1, sizeof(*o));
        o->name = mn_strdup("");
        atomic_store_explicit(&projects[0], o, memory_order_release);
        atomic_store_explicit(&nprojects, n = 1, memory_order_release);
    }
    for (size_t i = 0; i < n && !found; i++) {
        project_stats *p = atomic_load_explicit(&projects[i], memory_order_relaxed);
        if (strcmp(p->name, name) == 0)
            found = p;
    }
    if (!found && n <= MAX_PROJECTS) {
        found = mn_calloc(1, sizeof(*found));
        found->name = mn_strdup(name);
        atomic_store_explicit(&projects[n], found, memory_order_release);
        atomic_store_explicit(&nprojects, n + 1, memory_order_release);
    } else if (!found) {
        found = atomic_load_explicit(&projects[0], memory_order_relaxed);
    }
    pthread_mutex_unlock(&projects_lock);
    return found;
}

void mn_http__metrics_front_begin(mn_metrics_front front, const char *project)
{
    current_front = (int)front;
    current_project = project_of(project ? project : "");
}

void mn_http__metrics_front_end(void)
{
    current_front = -1;
    current_project = NULL;
}

static void add(atomic_uint_fast64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static uint64_t get(atomic_uint_fast64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static uint64_t array_size_of(const json_t *out, const char *key)
{
    return json_array_size(json_object_get(out, key));
}

static void count_served(project_stats *p, size_t i, const char *op, const json_t *out)
{
    static const char *const keys[] = {"items",     "facts", "few_shots",
                                       "decisions", "links", "selected"};
    static const char *const reads[] = {"context", "search", "search_code", "recall", "plan_files"};
    bool is_read = false;
    uint64_t n = 0;
    for (size_t k = 0; k < MN_ARRAY_SIZE(reads); k++)
        is_read |= strcmp(op, reads[k]) == 0;
    if (!is_read)
        return;
    for (size_t k = 0; k < MN_ARRAY_SIZE(keys); k++)
        n += array_size_of(out, keys[k]);
    add(&p->served[i], n);
}

static void count_feedback(project_stats *p, const json_t *args, const json_t *out)
{
    const char *signal = json_string_value(json_object_get(args, "signal"));
    json_int_t n = json_integer_value(json_object_get(out, "recorded"));
    for (size_t k = 0; signal && n > 0 && k < MN_ARRAY_SIZE(signals); k++)
        if (strcmp(signal, signals[k]) == 0)
            add(&p->feedback[k], (uint64_t)n);
}

static void count_capture(project_stats *p, const char *op, const json_t *out)
{
    for (size_t c = 0; c < MN_ARRAY_SIZE(capture_ops); c++) {
        if (strcmp(op, capture_ops[c]) != 0)
            continue;
        json_int_t saved = json_integer_value(json_object_get(out, "saved")) +
                           json_integer_value(json_object_get(out, "created"));
        json_int_t queued = json_integer_value(json_object_get(out, "queued"));
        json_int_t merged = json_integer_value(json_object_get(out, "merged"));
        if (saved > 0)
            add(&p->captured[c][0], (uint64_t)saved);
        if (queued > 0)
            add(&p->captured[c][1], (uint64_t)queued);
        if (merged > 0)
            add(&p->captured[c][2], (uint64_t)merged);
    }
}

static void observe(const char *op, int rc, const json_t *args, const json_t *out, uint64_t ns)
{
    int front = current_front;
    project_stats *p = current_project;
    size_t n, i, b = 0;
    const mn_op *ops = mn_api_ops(&n), *found;
    if (front < 0 || front >= MN_METRICS_FRONTS || !p || !(found = mn_api_find(op)))
        return;
    i = (size_t)(found - ops);
    if (i >= MAX_OPS)
        return;
    op_stats *s = &p->stats[front][i];
    while (b < NBUCKETS - 1 && (double)ns / 1e9 > bucket_le[b])
        b++;
    add(&s->buckets[b], 1);
    add(&s->sum_ns, ns);
    if (rc) {
        int code = -rc;
        add(&s->errors[code > 0 && code < NCODES ? code : 1], 1);
        return;
    }
    count_served(p, i, op, out);
    if (strcmp(op, "feedback") == 0)
        count_feedback(p, args, out);
    count_capture(p, op, out);
}

void mn_http__metrics_init(void)
{
    mn_api_observer_set(observe);
}

void mn_http__metrics_response(const char *path, unsigned status)
{
    size_t f = MN_ARRAY_SIZE(families) - 1, s = MN_ARRAY_SIZE(statuses) - 1;
    if (strcmp(path, "/mcp") == 0)
        f = 0;
    else if (strcmp(path, "/v1") == 0 || strncmp(path, "/v1/", 4) == 0)
        f = 1;
    else if (strcmp(path, "/metrics") == 0)
        f = 2;
    else if (strcmp(path, "/healthz") == 0)
        f = 3;
    for (size_t k = 0; k + 1 < MN_ARRAY_SIZE(statuses); k++)
        if (statuses[k] == status)
            s = k;
    add(&responses[f][s], 1);
}

void mn_http__metrics_label(mn_buf *b, const char *value)
{
    /* the exposition format's escapes inside a label value: backslash, quote, newline */
    for (const char *c = value; *c; c++)
        if (*c == '\\' || *c == '"')
            mn_buf_printf(b, "\\%c", *c);
        else if (*c == '\n')
            mn_buf_puts(b, "\\n");
        else
            mn_buf_put(b, c, 1);
}

static void help(mn_buf *b, const char *name, const char *type, const char *text)
{
    mn_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* NAME{project="P" and a comma when more labels follow */
static void open_series(mn_buf *b, const char *name, const project_stats *p, bool more)
{
    mn_buf_printf(b, "%s{project=\"", name);
    mn_http__metrics_label(b, p->name);
    mn_buf_puts(b, more ? "\"," : "\"");
}

/* Whether a project's block counted any operation. */
static bool counted_any(project_stats *p)
{
    for (int f = 0; f < MN_METRICS_FRONTS; f++)
        for (size_t i = 0; i < MAX_OPS; i++)
            for (int k = 0; k < NBUCKETS; k++)
                if (get(&p->stats[f][i].buckets[k]))
                    return true;
    return false;
}

/* The projects a scrape shows: one (only), or every one counted (the overflow when it
 * counted anything). */
static size_t shown(project_stats **out, const char *only)
{
    size_t n = atomic_load_explicit(&nprojects, memory_order_acquire), k = 0;
    for (size_t i = 0; i < n; i++) {
        project_stats *p = atomic_load_explicit(&projects[i], memory_order_acquire);
        if (!p)
            continue;
        if (only ? i > 0 && strcmp(p->name, only) == 0 : i > 0 || counted_any(p))
            out[k++] = p;
    }
    return k;
}

static void ops_section(mn_buf *b, const mn_op *ops, size_t n, project_stats **ps, size_t np)
{
    help(b, "mnemo_requests_total", "counter", "Operations run, by project, front end and op.");
    for (size_t j = 0; j < np; j++)
        for (int f = 0; f < MN_METRICS_FRONTS; f++)
            for (size_t i = 0; i < n; i++) {
                uint64_t total = 0;
                for (int k = 0; k < NBUCKETS; k++)
                    total += get(&ps[j]->stats[f][i].buckets[k]);
                if (!total)
                    continue;
                open_series(b, "mnemo_requests_total", ps[j], true);
                mn_buf_printf(b, "front=\"%s\",op=\"%s\"} %llu\n", front_names[f], ops[i].name,
                              (unsigned long long)total);
            }
    help(b, "mnemo_errors_total", "counter",
         "Operations that failed, by project, front end, op and code.");
    for (size_t j = 0; j < np; j++)
        for (int f = 0; f < MN_METRICS_FRONTS; f++)
            for (size_t i = 0; i < n; i++)
                for (int c = 1; c < NCODES; c++) {
                    uint64_t e = get(&ps[j]->stats[f][i].errors[c]);
                    if (!e)
                        continue;
                    open_series(b, "mnemo_errors_total", ps[j], true);
                    mn_buf_printf(b, "front=\"%s\",op=\"%s\",code=\"%s\"} %llu\n", front_names[f],
                                  ops[i].name, mn_error_name(-c), (unsigned long long)e);
                }
    help(b, "mnemo_op_duration_seconds", "histogram",
         "Time an operation took inside mnemo, by project, front end and op.");
    for (size_t j = 0; j < np; j++)
        for (int f = 0; f < MN_METRICS_FRONTS; f++)
            for (size_t i = 0; i < n; i++) {
                op_stats *st = &ps[j]->stats[f][i];
                uint64_t counts[NBUCKETS], total = 0;
                for (int k = 0; k < NBUCKETS; k++)
                    total += counts[k] = get(&st->buckets[k]);
                if (!total)
                    continue;
                uint64_t cum = 0;
                for (int k = 0; k < NBUCKETS; k++) {
                    cum += counts[k];
                    open_series(b, "mnemo_op_duration_seconds_bucket", ps[j], true);
                    if (k < NBUCKETS - 1)
                        mn_buf_printf(b, "front=\"%s\",op=\"%s\",le=\"%g\"} %llu\n", front_names[f],
                                      ops[i].name, bucket_le[k], (unsigned long long)cum);
                    else
                        mn_buf_printf(b, "front=\"%s\",op=\"%s\",le=\"+Inf\"} %llu\n",
                                      front_names[f], ops[i].name, (unsigned long long)cum);
                }
                open_series(b, "mnemo_op_duration_seconds_sum", ps[j], true);
                mn_buf_printf(b, "front=\"%s\",op=\"%s\"} %.6f\n", front_names[f], ops[i].name,
                              (double)get(&st->sum_ns) / 1e9);
                open_series(b, "mnemo_op_duration_seconds_count", ps[j], true);
                mn_buf_printf(b, "front=\"%s\",op=\"%s\"} %llu\n", front_names[f], ops[i].name,
                              (unsigned long long)total);
            }
}

static void usage_section(mn_buf *b, const mn_op *ops, size_t n, project_stats **ps, size_t np)
{
    help(b, "mnemo_served_items_total", "counter",
         "Items answers served (context, search, search_code, recall, plan_files), by project "
         "and op.");
    for (size_t j = 0; j < np; j++)
        for (size_t i = 0; i < n; i++)
            if (get(&ps[j]->served[i])) {
                open_series(b, "mnemo_served_items_total", ps[j], true);
                mn_buf_printf(b, "op=\"%s\"} %llu\n", ops[i].name,
                              (unsigned long long)get(&ps[j]->served[i]));
            }
    help(b, "mnemo_feedback_total", "counter", "Feedback rows recorded, by project and signal.");
    for (size_t j = 0; j < np; j++)
        for (size_t k = 0; k < MN_ARRAY_SIZE(signals); k++) {
            open_series(b, "mnemo_feedback_total", ps[j], true);
            mn_buf_printf(b, "signal=\"%s\"} %llu\n", signals[k],
                          (unsigned long long)get(&ps[j]->feedback[k]));
        }
    help(b, "mnemo_captured_total", "counter",
         "Memories the ingests and captures made, by project, op and outcome (saved active, "
         "queued for review, merged).");
    for (size_t j = 0; j < np; j++)
        for (size_t c = 0; c < MN_ARRAY_SIZE(capture_ops); c++)
            for (size_t o = 0; o < MN_ARRAY_SIZE(outcomes); o++)
                if (get(&ps[j]->captured[c][o])) {
                    open_series(b, "mnemo_captured_total", ps[j], true);
                    mn_buf_printf(b, "op=\"%s\",outcome=\"%s\"} %llu\n", capture_ops[c],
                                  outcomes[o], (unsigned long long)get(&ps[j]->captured[c][o]));
                }
}

static void http_section(mn_buf *b)
{
    help(b, "mnemo_http_responses_total", "counter", "HTTP responses, by path family and status.");
    for (size_t f = 0; f < MN_ARRAY_SIZE(families); f++)
        for (size_t s = 0; s < MN_ARRAY_SIZE(statuses); s++) {
            uint64_t v = get(&responses[f][s]);
            char st[16];
            if (!v)
                continue;
            if (statuses[s])
                snprintf(st, sizeof(st), "%u", statuses[s]);
            else
                snprintf(st, sizeof(st), "other");
            mn_buf_printf(b, "mnemo_http_responses_total{path=\"%s\",status=\"%s\"} %llu\n",
                          families[f], st, (unsigned long long)v);
        }
    /* one per project at a time in the process (api/embedder.c): many at once was the
     * stall of every client under load (docs/internals/load.md) */
    help(b, "mnemo_embed_trainings_total", "counter",
         "Built-in embedding models this server trained (all projects).");
    mn_buf_printf(b, "mnemo_embed_trainings_total %llu\n",
                  (unsigned long long)mn_api__embed_trainings());
}

/* total of an op's answer (list, files); -1 when it fails. */
static long long total_of(mn_ctx *ctx, const char *op, json_t *args)
{
    json_t *out = NULL;
    long long v = -1;
    if (mn_api_call(ctx, op, args, &out) == 0)
        v = (long long)json_integer_value(json_object_get(out, "total"));
    json_decref(out);
    json_decref(args);
    return v;
}

static void store_section(mn_buf *b, const char *const *names, size_t nn,
                          const mn_metrics_stores *stores)
{
    static const char *const status_names[] = {"active", "pending", "quarantined", "superseded",
                                               "archived"};
    long long v;
    mn_buf files = MN_BUF_INIT;
    help(b, "mnemo_memories", "gauge", "Memories in the store, by project and status.");
    help(&files, "mnemo_files", "gauge", "Files in the code index, by project.");
    for (size_t j = 0; j < nn; j++) {
        mn_ctx *ctx = stores->ctx_of(stores->payload, names[j]);
        if (!ctx)
            continue;
        ctx->own_reads = true; /* the server counting, not a reader reading: no audit rows */
        project_stats label = {.name = (char *)names[j]};
        for (size_t k = 0; k < MN_ARRAY_SIZE(status_names); k++)
            if ((v = total_of(ctx, "list",
                              json_pack("{s:s,s:i}", "status", status_names[k], "limit", 1))) >=
                0) {
                open_series(b, "mnemo_memories", &label, true);
                mn_buf_printf(b, "status=\"%s\"} %lld\n", status_names[k], v);
            }
        if ((v = total_of(ctx, "files", json_pack("{s:i}", "limit", 1))) >= 0) {
            open_series(&files, "mnemo_files", &label, false);
            mn_buf_printf(&files, "} %lld\n", v);
        }
        ctx->own_reads = false;
        mn_error_clear();
    }
    mn_buf_put(b, files.ptr, files.len);
    mn_buf_release(&files);
}

char *mn_http__metrics_text(const char *only_project, const mn_metrics_stores *stores, size_t *len)
{
    mn_buf b = MN_BUF_INIT;
    size_t n, np;
    const mn_op *ops = mn_api_ops(&n);
    project_stats **ps = mn_calloc(MAX_PROJECTS + 1, sizeof(*ps));
    if (n > MAX_OPS)
        n = MAX_OPS;
    np = shown(ps, only_project);
    ops_section(&b, ops, n, ps, np);
    usage_section(&b, ops, n, ps, np);
    if (!only_project)
        http_section(&b); /* the server's, not a project's */
    if (stores) {
        /* the projects shown, and the asker's own even before its first op */
        const char **names = mn_calloc(np + 1, sizeof(*names));
        size_t nn = 0;
        bool own = false;
        for (size_t j = 0; j < np; j++)
            if (ps[j]->name[0]) {
                names[nn++] = ps[j]->name;
                own |= stores->project && strcmp(ps[j]->name, stores->project) == 0;
            }
        if (!own && stores->project)
            names[nn++] = stores->project;
        store_section(&b, names, nn, stores);
        free(names);
    }
    free(ps);
    *len = b.len;
    return mn_buf_detach(&b);
}
