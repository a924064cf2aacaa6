/*
 * bench_load.c - the load test of `mnemo serve` (issue 24, "Load" and
 * "Faults"): N concurrent HTTP clients x M mixed operations through the
 * REST API, against one or more servers, then a check that no save the
 * servers acknowledged is lost.
 *
 * How it works. Each client is a thread with its own libcurl handle (its
 * own kept-alive connections) and its own random stream (seeded from
 * --seed and the client's number, so a run's texts are repeatable; the
 * default seed is new each run). Before each
 * operation it draws one from the mix (default context 35, search 35,
 * save 20, feedback 10: 70% reads, 30% writes) and POSTs it to
 * /v1/<op> of the next URL in round robin (client i's op j goes to URL
 * (i + j) mod U: two `mnemo serve` processes on one database are
 * `--url A --url B`), with `Authorization: Bearer` when a token is given
 * (by the name of an environment variable, never on the command line).
 *
 * - save: a memory of random words from a fixed vocabulary (so that the
 *   reads find them) whose title carries a tag unique to the run, the
 *   client and the op ("lt<run>c<client>n<op>"): no two saves merge.
 *   A 2xx answer is an acknowledged save; its id and title are kept.
 * - context / search / recall: a query of 2-4 words of the vocabulary.
 *   The answer's "served" number and first item are kept for feedback.
 * - feedback: "used" on the item of the client's last answer, "refined"
 *   when that answer served nothing; a client that has had no answer yet
 *   saves instead (counted as a save).
 * - get: one of the client's acknowledged saves (list when it has none).
 *
 * Every request is timed (CLOCK_MONOTONIC, the whole round trip). The
 * baseline, measured in the same run by the same clients (one before every
 * tenth op, so under the same load), is GET /healthz: the HTTP round trip
 * with no store work, so the ratios op p50 / healthz p50 cancel some of
 * the machine's speed (CONVENTIONS.md).
 *
 * Verification: every acknowledged save is read back by id through
 * /v1/get (split over the clients, round robin over the URLs); a save that
 * is not found, or whose title differs, is lost. `--acked FILE` writes the
 * acknowledged saves (id, tab, title) and `--verify FILE` reads such a
 * file back against the URLs without any load: the SIGKILL test saves
 * through a server that is killed and verifies through a new one.
 * `--unacked FILE` writes the titles of the saves that failed, for a test
 * to check that none is half-written.
 *
 * Errors: any answer but 2xx, and any transport failure, is an error,
 * counted by op, status and error code. Two exceptions for fault tests:
 * --tolerate unavailable counts a 503 whose code is "unavailable" or
 * "busy" (the retryable errors) as "retryable", not an error;
 * --tolerate down counts a transport failure (connection refused or
 * reset: the server is gone) as "down". After any failure the client
 * pauses 10 ms before its next op, as a retrying client would.
 *
 * Usage: bench_load --url URL [--url URL...] [--clients N] [--ops M]
 *          [--seconds S] [--mix op=w,...] [--token-env VAR] [--seed N]
 *          [--tolerate unavailable|down] [--acked FILE] [--unacked FILE]
 *          [--no-verify] [--slow MS]
 *        bench_load --url URL... --verify FILE [--token-env VAR]
 * Without --url it prints that it skipped and exits 0 (make bench runs
 * every bench_* program). Exit status: 0, 1 on any error or lost save,
 * 2 on usage or setup errors.
 */
#include "common.h"
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"

enum { OP_CONTEXT, OP_SEARCH, OP_RECALL, OP_GET, OP_LIST, OP_SAVE, OP_FEEDBACK, OP_N };
static const char *const op_names[OP_N] = {"context", "search", "recall",  "get",
                                           "list",    "save",   "feedback"};

#define MAX_URLS     16
#define MAX_CLIENTS  256
#define MAX_ERR_KEYS 64

typedef struct {
    const char *urls[MAX_URLS];
    int nurls;
    int clients;
    long ops;       /* per client; <= 0 with --seconds: until the time is up */
    double seconds; /* 0: no time limit */
    int mix[OP_N];  /* weights */
    int mix_total;
    char *auth; /* "Authorization: Bearer ..." or NULL */
    uint64_t seed;
    bool tolerate_unavailable, tolerate_down, verify_saves;
    long slow_ms; /* print each request that takes this long (0: none) */
    double start; /* when the run started (now_s) */
    const char *acked_path, *unacked_path, *verify_path;
    char run[16]; /* the run's tag */
} config;

typedef struct {
    double *v;
    size_t n, cap;
} samples;

typedef struct {
    char key[96]; /* "op status code" */
    long n;
    char first[240]; /* the first message seen */
} err_count;

typedef struct {
    char *id, *title;
} saved;

typedef struct {
    const config *c;
    int no;
    CURL *h;
    struct curl_slist *headers;
    uint64_t rng;
    mn_buf resp;
    samples lat[OP_N], healthz;
    long ok[OP_N], retryable[OP_N], down[OP_N];
    err_count errs[MAX_ERR_KEYS];
    int nerrs;
    long errors;
    saved *acked;
    size_t nacked, acked_cap;
    char **unacked;
    size_t nunacked, unacked_cap;
    int64_t last_served;
    char last_item[64];
    /* verification: the slice [vfrom, vto) of the run's acknowledged saves */
    const saved *vall;
    size_t vfrom, vto;
    long lost;
    long seq;
} client;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* splitmix64: small, fast, good enough to pick words and ops */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t pick(uint64_t *s, size_t n)
{
    return (size_t)(next_rand(s) % n);
}

static void sample_add(samples *s, double v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = mn_realloc(s->v, s->cap * sizeof(*s->v));
    }
    s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values: the value at rank ceil(p * n). */
static double percentile(const samples *s, double p)
{
    if (!s->n)
        return 0;
    size_t rank = (size_t)(p * (double)s->n + 0.999999);
    if (rank < 1)
        rank = 1;
    return s->v[(rank > s->n ? s->n : rank) - 1];
}

/* The words memories and queries are made of: a shop's code base, so that queries find them. */
/* No word a secret rule matches (a "password" followed by a word is redacted: the title would
 * change and the save look lost). */
static const char *const vocab[] = {
    "cart",     "session",  "checkout",  "payment", "invoice",  "refund",  "currency", "cents",
    "rounding", "tax",      "discount",  "coupon",  "shipping", "address", "customer", "account",
    "login",    "tenant",   "profile",   "cache",   "redis",    "queue",   "worker",   "retry",
    "timeout",  "deadline", "webhook",   "stripe",  "ledger",   "balance", "report",   "export",
    "import",   "schema",   "migration", "index",   "query",    "latency", "lock",     "deadlock",
    "replica",  "backup",   "restore",   "deploy",  "rollback", "feature", "flag",     "config",
    "logging",  "metrics",  "alert",     "test",    "fixture",  "mock",    "parser",   "encoder",
    "decimal",  "float",    "string",    "unicode", "locale",   "timezone"};

static void words(client *cl, mn_buf *b, int n)
{
    for (int i = 0; i < n; i++)
        mn_buf_printf(b, "%s%s", i ? " " : "", vocab[pick(&cl->rng, MN_ARRAY_SIZE(vocab))]);
}

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
    mn_buf_put(userdata, data, size * n);
    return size * n;
}

static void count_error(client *cl, int op, long status, const char *code, const char *msg)
{
    char key[96];
    snprintf(key, sizeof(key), "%s %ld %s", op_names[op], status, code);
    int i;
    for (i = 0; i < cl->nerrs && strcmp(cl->errs[i].key, key) != 0; i++)
        ;
    if (i == cl->nerrs) {
        if (cl->nerrs == MAX_ERR_KEYS)
            i = MAX_ERR_KEYS - 1; /* the last slot takes the rest */
        else {
            cl->nerrs++;
            snprintf(cl->errs[i].key, sizeof(cl->errs[i].key), "%s", key);
            snprintf(cl->errs[i].first, sizeof(cl->errs[i].first), "%s", msg ? msg : "");
            /* at once, not only in the summary: a run that goes wrong may take long to end */
            fprintf(stderr, "bench_load: client %d: %s: %s\n", cl->no, key, cl->errs[i].first);
        }
    }
    cl->errs[i].n++;
}

typedef enum { RES_OK, RES_RETRYABLE, RES_DOWN, RES_ERROR } outcome;

/* POST body to /v1/<op> of the next URL; *out gets the answer's JSON on success. */
static outcome request(client *cl, int op, const char *body, json_t **out, double *elapsed)
{
    const config *c = cl->c;
    const char *base = c->urls[(cl->no + cl->seq++) % c->nurls];
    char url[600];
    long status = 0;
    *out = NULL;
    snprintf(url, sizeof(url), "%s/%s", base, op_names[op]);
    mn_buf_clear(&cl->resp);
    curl_easy_setopt(cl->h, CURLOPT_URL, url);
    curl_easy_setopt(cl->h, CURLOPT_POSTFIELDS, body);
    double t0 = now_s();
    CURLcode rc = curl_easy_perform(cl->h);
    *elapsed = now_s() - t0;
    if (c->slow_ms > 0 && *elapsed * 1e3 >= c->slow_ms) {
        long st = 0;
        curl_easy_getinfo(cl->h, CURLINFO_RESPONSE_CODE, &st);
        fprintf(stderr, "bench_load: slow: client %d %s %s -> %ld (%s) in %.0f ms at +%.1f s\n",
                cl->no, op_names[op], base, st, curl_easy_strerror(rc), *elapsed * 1e3,
                t0 - c->start);
    }
    if (rc != CURLE_OK) {
        if (c->tolerate_down)
            return RES_DOWN;
        count_error(cl, op, 0, "transport", curl_easy_strerror(rc));
        return RES_ERROR;
    }
    curl_easy_getinfo(cl->h, CURLINFO_RESPONSE_CODE, &status);
    json_t *j = json_loadb(cl->resp.ptr, cl->resp.len, 0, NULL);
    if (status >= 200 && status < 300) {
        *out = j;
        return RES_OK;
    }
    json_t *err = json_object_get(j, "error");
    const char *code = json_string_value(json_object_get(err, "code"));
    const char *msg = json_string_value(json_object_get(err, "message"));
    outcome o = RES_ERROR;
    if (status == 503 && c->tolerate_unavailable && code &&
        (!strcmp(code, "unavailable") || !strcmp(code, "busy")))
        o = RES_RETRYABLE;
    else
        count_error(cl, op, status, code ? code : "?", msg ? msg : cl->resp.ptr);
    json_decref(j);
    return o;
}

/* The compact text of j, which it frees. */
static char *dump(json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return text;
}

static char *save_body(client *cl, char *title, size_t title_n)
{
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    words(cl, &t, 4);
    mn_buf_printf(&t, " lt%sc%dn%ld", cl->c->run, cl->no, cl->seq);
    snprintf(title, title_n, "%s", t.ptr);
    words(cl, &b, 24);
    json_t *kw = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(kw, json_string(vocab[pick(&cl->rng, MN_ARRAY_SIZE(vocab))]));
    mn_buf sit = MN_BUF_INIT, sol = MN_BUF_INIT;
    words(cl, &sit, 8);
    words(cl, &sol, 8);
    json_t *j =
        json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:o}}", "kind", "fact", "title", t.ptr, "body", b.ptr,
                  "context", "situation", sit.ptr, "solution", sol.ptr, "trigger_keywords", kw);
    char *text = dump(j);
    mn_buf_release(&t);
    mn_buf_release(&b);
    mn_buf_release(&sit);
    mn_buf_release(&sol);
    return text;
}

/* Keeps an answer's served number and first item for a later feedback. */
static void remember_served(client *cl, json_t *ans, const char *list)
{
    json_t *served = json_object_get(ans, "served");
    if (!json_is_integer(served))
        return;
    cl->last_served = json_integer_value(served);
    const char *id =
        json_string_value(json_object_get(json_array_get(json_object_get(ans, list), 0), "id"));
    snprintf(cl->last_item, sizeof(cl->last_item), "%s", id ? id : "");
}

static int draw_op(client *cl)
{
    long r = (long)pick(&cl->rng, (size_t)cl->c->mix_total);
    for (int op = 0; op < OP_N; op++)
        if ((r -= cl->c->mix[op]) < 0)
            return op;
    return OP_SAVE;
}

static void one_op(client *cl)
{
    int op = draw_op(cl);
    char title[256] = "";
    char *body = NULL;
    mn_buf q = MN_BUF_INIT;
    json_t *ans = NULL;
    double t;
    if (op == OP_FEEDBACK && !cl->last_served)
        op = OP_SAVE; /* nothing served to rate yet */
    if (op == OP_GET && !cl->nacked)
        op = OP_LIST;
    switch (op) {
    case OP_CONTEXT:
    case OP_SEARCH:
    case OP_RECALL:
        words(cl, &q, 2 + (int)pick(&cl->rng, 3));
        body = dump(json_pack("{s:s}", "query", q.ptr));
        break;
    case OP_GET:
        body = dump(json_pack("{s:s}", "id", cl->acked[pick(&cl->rng, cl->nacked)].id));
        break;
    case OP_LIST:
        body = mn_strdup("{\"limit\":20}");
        break;
    case OP_SAVE:
        body = save_body(cl, title, sizeof(title));
        break;
    case OP_FEEDBACK:
        if (cl->last_item[0])
            body = dump(json_pack("{s:s,s:[s],s:I}", "signal", "used", "items", cl->last_item,
                                  "served", (json_int_t)cl->last_served));
        else {
            words(cl, &q, 3);
            body = dump(json_pack("{s:s,s:I,s:s}", "signal", "refined", "served",
                                  (json_int_t)cl->last_served, "query", q.ptr));
        }
        break;
    }
    outcome o = request(cl, op, body, &ans, &t);
    if (o == RES_OK) {
        cl->ok[op]++;
        sample_add(&cl->lat[op], t);
        if (op == OP_SAVE) {
            const char *id = json_string_value(json_object_get(ans, "id"));
            if (!id) {
                count_error(cl, op, 200, "no_id", "a save's answer has no id");
                cl->errors++;
            } else {
                if (cl->nacked == cl->acked_cap) {
                    cl->acked_cap = cl->acked_cap ? 2 * cl->acked_cap : 64;
                    cl->acked = mn_realloc(cl->acked, cl->acked_cap * sizeof(*cl->acked));
                }
                /* merged into an earlier memory (a near copy of a former run's: the same seed):
                 * that memory keeps its title, so only its presence is checked */
                const char *action = json_string_value(json_object_get(ans, "action"));
                bool merged = action && !strcmp(action, "merged");
                cl->acked[cl->nacked].id = mn_strdup(id);
                cl->acked[cl->nacked].title = mn_strdup(merged ? "" : title);
                cl->nacked++;
            }
        } else if (op == OP_CONTEXT || op == OP_SEARCH) {
            remember_served(cl, ans, "items");
        } else if (op == OP_RECALL) {
            remember_served(cl, ans, "facts");
        }
    } else {
        if (o == RES_RETRYABLE)
            cl->retryable[op]++;
        else if (o == RES_DOWN)
            cl->down[op]++;
        else
            cl->errors++;
        /* a short pause, as a client retrying would make (no busy loop) */
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
        if (op == OP_SAVE) {
            if (cl->nunacked == cl->unacked_cap) {
                cl->unacked_cap = cl->unacked_cap ? 2 * cl->unacked_cap : 16;
                cl->unacked = mn_realloc(cl->unacked, cl->unacked_cap * sizeof(*cl->unacked));
            }
            cl->unacked[cl->nunacked++] = mn_strdup(title);
        }
    }
    json_decref(ans);
    free(body);
    mn_buf_release(&q);
}

/* One timed GET /healthz of the next URL: the baseline, taken among the ops so that it meets
 * the same load of the machine and of the servers. */
static void healthz(client *cl, long i)
{
    char url[600];
    snprintf(url, sizeof(url), "%s", cl->c->urls[(cl->no + i) % cl->c->nurls]);
    char *slash = strstr(url, "/v1");
    if (slash)
        snprintf(slash, sizeof(url) - (size_t)(slash - url), "/healthz");
    mn_buf_clear(&cl->resp);
    curl_easy_setopt(cl->h, CURLOPT_URL, url);
    curl_easy_setopt(cl->h, CURLOPT_HTTPGET, 1L);
    double t0 = now_s();
    if (curl_easy_perform(cl->h) == CURLE_OK)
        sample_add(&cl->healthz, now_s() - t0);
}

static void *run_client(void *arg)
{
    client *cl = arg;
    double end = cl->c->seconds > 0 ? now_s() + cl->c->seconds : 0;
    for (long i = 0; cl->c->ops <= 0 || i < cl->c->ops; i++) {
        if (end && now_s() >= end)
            break;
        if (i % 10 == 0) /* the baseline: one /healthz per 10 ops, not counted as an op */
            healthz(cl, i / 10);
        one_op(cl);
    }
    return NULL;
}

/* Reads each acknowledged save of the slice back; a missing one or another title is lost. */
static void *run_verify(void *arg)
{
    client *cl = arg;
    for (size_t i = cl->vfrom; i < cl->vto; i++) {
        const saved *s = &cl->vall[i];
        json_t *ans = NULL;
        double t;
        char *body = dump(json_pack("{s:s}", "id", s->id));
        outcome o = request(cl, OP_GET, body, &ans, &t);
        free(body);
        const char *title =
            json_string_value(json_object_get(json_object_get(ans, "memory"), "title"));
        if (o != RES_OK || !title || (s->title[0] && strcmp(title, s->title) != 0)) {
            cl->lost++;
            if (cl->lost <= 3)
                fprintf(stderr, "bench_load: lost save %s (%s)%s%s\n", s->id, s->title,
                        title ? ": title now " : "", title ? title : "");
        }
        json_decref(ans);
    }
    return NULL;
}

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "bench_load: %s\n", msg);
    fprintf(stderr,
            "usage: bench_load --url URL [--url URL...] [--clients N] [--ops M] [--seconds S]\n"
            "         [--mix op=w,...] [--token-env VAR] [--seed N] [--tolerate unavailable|down]\n"
            "         [--acked FILE] [--unacked FILE] [--no-verify] [--slow MS]\n"
            "       bench_load --url URL... --verify FILE [--token-env VAR]\n"
            "URL is a server's REST base, e.g. http://127.0.0.1:7077/v1; ops of the mix:\n"
            "context, search, recall, get, list, save, feedback\n");
    return 2;
}

static int parse_mix(config *c, const char *spec)
{
    char *copy = mn_strdup(spec), *save = NULL;
    memset(c->mix, 0, sizeof(c->mix));
    c->mix_total = 0;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        char *end = NULL;
        int op;
        if (!eq)
            goto bad;
        *eq = '\0';
        for (op = 0; op < OP_N && strcmp(op_names[op], tok) != 0; op++)
            ;
        long w = strtol(eq + 1, &end, 10);
        if (op == OP_N || !*(eq + 1) || *end || w < 0 || w > 1000)
            goto bad;
        c->mix[op] = (int)w;
        c->mix_total += (int)w;
    }
    if (c->mix_total > 0)
        goto out;
bad:
    rc = -1;
out:
    free(copy);
    return rc;
}

static long parse_long(const char *s, long lo, long hi)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < lo || v > hi)
        return LONG_MIN;
    return v;
}

static int write_acked(const char *path, client *cls, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < cls[i].nacked; k++)
            fprintf(f, "%s\t%s\n", cls[i].acked[k].id, cls[i].acked[k].title);
    return fclose(f);
}

static int write_unacked(const char *path, client *cls, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < cls[i].nunacked; k++)
            fprintf(f, "%s\n", cls[i].unacked[k]);
    return fclose(f);
}

/* Reads "id<TAB>title" lines into *out. */
static int read_acked(const char *path, saved **out, size_t *n)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, have = 0;
    ssize_t len;
    if (!f)
        return -1;
    *out = NULL;
    *n = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!*line)
            continue;
        if (*n == have) {
            have = have ? 2 * have : 256;
            *out = mn_realloc(*out, have * sizeof(**out));
        }
        if (tab)
            *tab = '\0';
        (*out)[*n].id = mn_strdup(line);
        (*out)[*n].title = mn_strdup(tab ? tab + 1 : "");
        (*n)++;
    }
    free(line);
    fclose(f);
    return 0;
}

static int client_init(client *cl, const config *c, int no)
{
    memset(cl, 0, sizeof(*cl));
    cl->c = c;
    cl->no = no;
    cl->rng = c->seed * 1000003ULL + (uint64_t)no;
    mn_buf_init(&cl->resp);
    if (!(cl->h = curl_easy_init()))
        return -1;
    cl->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (c->auth)
        cl->headers = curl_slist_append(cl->headers, c->auth);
    curl_easy_setopt(cl->h, CURLOPT_HTTPHEADER, cl->headers);
    curl_easy_setopt(cl->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(cl->h, CURLOPT_WRITEDATA, &cl->resp);
    curl_easy_setopt(cl->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(cl->h, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(cl->h, CURLOPT_CONNECTTIMEOUT, 10L);
    return 0;
}

static void client_release(client *cl)
{
    curl_easy_cleanup(cl->h);
    curl_slist_free_all(cl->headers);
    mn_buf_release(&cl->resp);
    for (int op = 0; op < OP_N; op++)
        free(cl->lat[op].v);
    free(cl->healthz.v);
    for (size_t i = 0; i < cl->nacked; i++) {
        free(cl->acked[i].id);
        free(cl->acked[i].title);
    }
    free(cl->acked);
    for (size_t i = 0; i < cl->nunacked; i++)
        free(cl->unacked[i]);
    free(cl->unacked);
}

/* Runs fn on every client at once. */
static int run_all(client *cls, int n, void *(*fn)(void *))
{
    pthread_t th[MAX_CLIENTS];
    int started = 0, rc = 0;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, fn, &cls[started]) != 0) {
            rc = -1;
            break;
        }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    return rc;
}

/* Verifies the acknowledged saves in all[0..n) with every client; returns the lost count. */
static long verify(client *cls, int nclients, const saved *all, size_t n)
{
    long lost = 0;
    for (int i = 0; i < nclients; i++) {
        cls[i].vall = all;
        cls[i].vfrom = n * (size_t)i / (size_t)nclients;
        cls[i].vto = n * (size_t)(i + 1) / (size_t)nclients;
        cls[i].lost = 0;
    }
    if (run_all(cls, nclients, run_verify) != 0)
        return -1;
    for (int i = 0; i < nclients; i++)
        lost += cls[i].lost;
    return lost;
}

static void report(const config *c, client *cls, int n, double wall)
{
    samples all[OP_N] = {{0}}, hz = {0};
    long ok[OP_N] = {0}, retry[OP_N] = {0}, down[OP_N] = {0}, total = 0;
    for (int i = 0; i < n; i++) {
        for (int op = 0; op < OP_N; op++) {
            for (size_t k = 0; k < cls[i].lat[op].n; k++)
                sample_add(&all[op], cls[i].lat[op].v[k]);
            ok[op] += cls[i].ok[op];
            retry[op] += cls[i].retryable[op];
            down[op] += cls[i].down[op];
        }
        for (size_t k = 0; k < cls[i].healthz.n; k++)
            sample_add(&hz, cls[i].healthz.v[k]);
    }
    qsort(hz.v, hz.n, sizeof(double), cmp_double);
    double base = percentile(&hz, 0.5);
    printf("bench_load: %d clients, %d server URL(s), run tag lt%s, seed %llu, %.1f s\n",
           c->clients, c->nurls, c->run, (unsigned long long)c->seed, wall);
    printf("%-9s %7s %7s %7s %9s %9s %9s %8s\n", "op", "ok", "retry", "down", "p50 ms", "p95 ms",
           "max ms", "p50/hz");
    printf("%-9s %7zu %7s %7s %9.2f %9.2f %9.2f %8s\n", "healthz", hz.n, "-", "-", 1e3 * base,
           1e3 * percentile(&hz, 0.95), hz.n ? 1e3 * hz.v[hz.n - 1] : 0, "1.0");
    for (int op = 0; op < OP_N; op++) {
        samples *s = &all[op];
        if (!ok[op] && !retry[op] && !down[op] && !c->mix[op])
            continue;
        qsort(s->v, s->n, sizeof(double), cmp_double);
        double p50 = percentile(s, 0.5);
        printf("%-9s %7ld %7ld %7ld %9.2f %9.2f %9.2f %8.1f\n", op_names[op], ok[op], retry[op],
               down[op], 1e3 * p50, 1e3 * percentile(s, 0.95), s->n ? 1e3 * s->v[s->n - 1] : 0,
               base > 0 ? p50 / base : 0);
        total += ok[op];
        free(s->v);
    }
    free(hz.v);
    long nretry = 0, ndown = 0;
    for (int op = 0; op < OP_N; op++) {
        nretry += retry[op];
        ndown += down[op];
    }
    printf("throughput %.0f ops/s\n", wall > 0 ? (double)total / wall : 0);
    printf("retryable %ld, down %ld\n", nretry, ndown);
}

int main(int argc, char **argv)
{
    config c = {.clients = 10, .ops = 1000, .verify_saves = true};
    bool seed_given = false;
    const char *token_env = NULL;
    client *cls = NULL;
    saved *vs = NULL;
    size_t nvs = 0;
    int rc = 2;
    long lost = 0, errors = 0;
    bool ops_given = false;
    parse_mix(&c, "context=35,search=35,save=20,feedback=10");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(NULL);
            return 0;
        } else if (!strcmp(a, "--no-verify")) {
            c.verify_saves = false;
            continue;
        }
        if (!v)
            return usage("an option is missing its value");
        i++;
        if (!strcmp(a, "--url")) {
            if (c.nurls == MAX_URLS)
                return usage("at most 16 --url");
            if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)
                return usage("--url takes http://HOST:PORT/v1");
            c.urls[c.nurls++] = v;
        } else if (!strcmp(a, "--clients")) {
            if ((n = parse_long(v, 1, MAX_CLIENTS)) == LONG_MIN)
                return usage("--clients takes 1 to 256");
            c.clients = (int)n;
        } else if (!strcmp(a, "--ops")) {
            if ((n = parse_long(v, 1, 100000000)) == LONG_MIN)
                return usage("--ops takes a positive count");
            c.ops = n;
            ops_given = true;
        } else if (!strcmp(a, "--seconds")) {
            if ((n = parse_long(v, 1, 86400)) == LONG_MIN)
                return usage("--seconds takes 1 to 86400");
            c.seconds = (double)n;
        } else if (!strcmp(a, "--seed")) {
            if ((n = parse_long(v, 0, LONG_MAX)) == LONG_MIN)
                return usage("--seed takes a number");
            c.seed = (uint64_t)n;
            seed_given = true;
        } else if (!strcmp(a, "--mix")) {
            if (parse_mix(&c, v) != 0)
                return usage("--mix takes op=weight,... (weights 0-1000, one > 0)");
        } else if (!strcmp(a, "--token-env")) {
            token_env = v;
        } else if (!strcmp(a, "--tolerate")) {
            if (!strcmp(v, "unavailable"))
                c.tolerate_unavailable = true;
            else if (!strcmp(v, "down"))
                c.tolerate_down = true;
            else
                return usage("--tolerate takes unavailable or down");
        } else if (!strcmp(a, "--slow")) {
            if ((n = parse_long(v, 1, 3600000)) == LONG_MIN)
                return usage("--slow takes milliseconds");
            c.slow_ms = n;
        } else if (!strcmp(a, "--acked")) {
            c.acked_path = v;
        } else if (!strcmp(a, "--unacked")) {
            c.unacked_path = v;
        } else if (!strcmp(a, "--verify")) {
            c.verify_path = v;
        } else {
            return usage("unknown option");
        }
    }
    if (!c.nurls) {
        printf("bench_load: skipped (no --url: start `mnemo serve` and give its /v1 URL)\n");
        return 0;
    }
    if (c.seconds > 0 && !ops_given)
        c.ops = 0; /* until the time is up */
    if (token_env) {
        const char *t = getenv(token_env);
        if (!t || !*t)
            return usage("the variable of --token-env is not set");
        size_t len = strlen(t) + 32;
        c.auth = mn_malloc(len);
        snprintf(c.auth, len, "Authorization: Bearer %s", t);
    }
    uint64_t run = ((uint64_t)time(NULL) * 65599u + (uint64_t)getpid()) & 0xffffffffULL;
    snprintf(c.run, sizeof(c.run), "%llx", (unsigned long long)run);
    if (!seed_given) /* a new text every run; --seed repeats one */
        c.seed = run;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "bench_load: cannot initialise libcurl\n");
        goto out;
    }
    cls = mn_calloc((size_t)c.clients, sizeof(*cls));
    for (int i = 0; i < c.clients; i++)
        if (client_init(&cls[i], &c, i) != 0) {
            fprintf(stderr, "bench_load: cannot make a libcurl handle\n");
            goto out;
        }
    if (c.verify_path) {
        if (read_acked(c.verify_path, &vs, &nvs) != 0) {
            fprintf(stderr, "bench_load: cannot read '%s': %s\n", c.verify_path, strerror(errno));
            goto out;
        }
        lost = verify(cls, c.clients, vs, nvs);
        printf("verified %zu acknowledged saves: lost saves %ld\n", nvs, lost);
        rc = lost == 0 ? 0 : 1;
        goto out;
    }
    double t0 = c.start = now_s();
    if (run_all(cls, c.clients, run_client) != 0) {
        fprintf(stderr, "bench_load: cannot start the client threads\n");
        goto out;
    }
    double wall = now_s() - t0;
    report(&c, cls, c.clients, wall);
    size_t nacked = 0;
    /* the errors of every client by op, status and code, with the first message of each */
    err_count all[MAX_ERR_KEYS];
    int nall = 0;
    for (int i = 0; i < c.clients; i++) {
        errors += cls[i].errors;
        nacked += cls[i].nacked;
        for (int k = 0; k < cls[i].nerrs; k++) {
            int j;
            for (j = 0; j < nall && strcmp(all[j].key, cls[i].errs[k].key) != 0; j++)
                ;
            if (j == nall && nall < MAX_ERR_KEYS)
                all[nall++] = cls[i].errs[k];
            else if (j < nall)
                all[j].n += cls[i].errs[k].n;
        }
    }
    for (int j = 0; j < nall; j++)
        printf("error: %ld x %s: %s\n", all[j].n, all[j].key, all[j].first);
    printf("errors %ld\n", errors);
    if (c.acked_path && write_acked(c.acked_path, cls, c.clients) != 0) {
        fprintf(stderr, "bench_load: cannot write '%s'\n", c.acked_path);
        errors++;
    }
    if (c.unacked_path && write_unacked(c.unacked_path, cls, c.clients) != 0) {
        fprintf(stderr, "bench_load: cannot write '%s'\n", c.unacked_path);
        errors++;
    }
    if (c.verify_saves) {
        vs = mn_calloc(nacked ? nacked : 1, sizeof(*vs));
        for (int i = 0; i < c.clients; i++)
            for (size_t k = 0; k < cls[i].nacked; k++) {
                vs[nvs].id = mn_strdup(cls[i].acked[k].id);
                vs[nvs].title = mn_strdup(cls[i].acked[k].title);
                nvs++;
            }
        lost = verify(cls, c.clients, vs, nvs);
        printf("acknowledged saves %zu, lost saves %ld\n", nvs, lost);
    }
    rc = errors == 0 && lost == 0 ? 0 : 1;
out:
    for (size_t i = 0; i < nvs; i++) {
        free(vs[i].id);
        free(vs[i].title);
    }
    free(vs);
    for (int i = 0; cls && i < c.clients; i++)
        client_release(&cls[i]);
    free(cls);
    free(c.auth);
    curl_global_cleanup();
    return rc;
}
