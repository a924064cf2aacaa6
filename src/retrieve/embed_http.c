/*
 * embed_http.c - an embedder behind any OpenAI-compatible embeddings
 * endpoint: Ollama (http://localhost:11434/v1), llama.cpp's server, TEI,
 * OpenAI itself.
 *
 * Protocol: POST <url>/embeddings with {"model": M, "input": [texts]} and,
 * when a key is configured, "Authorization: Bearer <key>" (embed.key names
 * it: env:NAME or file:PATH, read when the embedder is made; see
 * mn_embed_key_resolve); the answer is
 * {"data": [{"embedding": [numbers], "index": i}, ...]}. Texts go in
 * batches of o->batch; an empty text is not sent (it gets a zero vector:
 * several servers refuse empty input).
 *
 * Failures. A network error (cannot connect, timeout, connection reset),
 * HTTP 429 and HTTP 5xx are retried, at most o->retries more times, after
 * o->backoff_ms doubled at each attempt (at most 8 s; a Retry-After of at
 * most 8 s is honoured instead). Any other status fails at once with the
 * server's own message when it sends one ({"error": {"message": ...}}). An
 * answer is checked before a vector is used: a JSON object whose data has
 * exactly one embedding per text (placed by `index` when given, each index
 * once), every embedding of one dimension between 1 and MN_EMBED_MAX_DIM,
 * the same as earlier answers, and every number finite. Messages name the
 * endpoint by the configured URL, never the key; the one for a server
 * that cannot be reached reads
 *     embedder 'http://localhost:11434/v1' unreachable: <why> (3 attempts)
 * so that a caller can add what it does instead ("; search continues
 * without semantic signal") and show one line.
 *
 * The curl handle is kept for the embedder's life (connections are reused
 * between batches); an embedder is used by one thread at a time.
 */
#include "common.h"
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "retrieve/embed.h"
#include "util/buf.h"
#include "util/libs.h"
#include "util/util.h"

#define MAX_ANSWER_BYTES (256u << 20)
#define MAX_WAIT_MS      8000

typedef struct {
    mn_embedder base;
    char *endpoint; /* <url>/embeddings */
    char *url;      /* as configured, for messages */
    char *name;     /* the model name sent */
    char *auth;     /* "Authorization: Bearer ..." or NULL */
    char *query_prefix, *document_prefix;
    int64_t timeout_ms, backoff_ms;
    int retries;
    size_t max_text;
    CURL *curl;
} http_embedder;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static const mn_curl_api *curl; /* NULL: libcurl could not be loaded or initialised */
static char curl_error[300];

static void init_curl(void)
{
    const mn_curl_api *api = mn_libs_curl();
    CURLcode rc = api ? api->global_init(CURL_GLOBAL_DEFAULT) : CURLE_FAILED_INIT;
    if (api && rc == CURLE_OK)
        curl = api;
    else if (api)
        snprintf(curl_error, sizeof(curl_error), "cannot initialise libcurl: %s",
                 api->easy_strerror(rc));
    else
        snprintf(curl_error, sizeof(curl_error), "%s", mn_error_last());
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- one request ---- */

typedef struct {
    mn_buf body;
    bool too_big;
    int64_t retry_after_ms; /* from a Retry-After header in seconds; -1 when none */
} answer;

static size_t on_body(char *data, size_t size, size_t n, void *payload)
{
    answer *a = payload;
    size_t len = size * n;
    if (a->body.len + len > MAX_ANSWER_BYTES) {
        a->too_big = true;
        return 0; /* curl stops with CURLE_WRITE_ERROR */
    }
    mn_buf_put(&a->body, data, len);
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *payload)
{
    answer *a = payload;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    if (len > sizeof(name) - 1 && strncasecmp(data, name, sizeof(name) - 1) == 0) {
        char tmp[32];
        size_t vlen = len - (sizeof(name) - 1);
        snprintf(tmp, sizeof(tmp), "%.*s", (int)(vlen < 31 ? vlen : 31), data + sizeof(name) - 1);
        char *end;
        long secs = strtol(tmp, &end, 10);
        if (end != tmp && secs >= 0)
            a->retry_after_ms = secs * 1000L;
    }
    return len;
}

/* The server's own message in an error answer, if it sent one (malloc'd, one line, capped). */
static char *server_message(const mn_buf *body)
{
    json_t *j = json_loadb(body->ptr, body->len, 0, NULL);
    const json_t *err = json_object_get(j, "error");
    const char *msg = json_is_string(err) ? json_string_value(err)
                                          : json_string_value(json_object_get(err, "message"));
    if (!msg)
        msg = json_string_value(json_object_get(j, "message"));
    mn_buf out = MN_BUF_INIT;
    if (msg) {
        for (const char *p = msg; *p && out.len < 200; p++)
            mn_buf_putc(&out, *p == '\n' || *p == '\r' ? ' ' : *p);
    }
    json_decref(j);
    return out.len ? mn_buf_detach(&out) : (mn_buf_release(&out), NULL);
}

/* Lower-case the first letter of a library message, to read as one of ours. */
static void lower_first(char *s)
{
    if (s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z'))
        s[0] = (char)(s[0] - 'A' + 'a');
}

/*
 * POST body and read the answer into a: 0 with *status set (any HTTP
 * status), or MN_EIO with *why set to a network error (malloc'd).
 */
static int post(http_embedder *h, const char *body, answer *a, long *status, char **why)
{
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = NULL;
    headers = curl->slist_append(headers, "Content-Type: application/json");
    headers = curl->slist_append(headers, "Accept: application/json");
    headers = curl->slist_append(headers, "Expect:"); /* no 100-continue round trip */
    if (h->auth)
        headers = curl->slist_append(headers, h->auth);
    CURL *c = h->curl;
    curl->easy_reset(c);
    curl->easy_setopt(c, CURLOPT_URL, h->endpoint);
    curl->easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl->easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl->easy_setopt(c, CURLOPT_WRITEDATA, a);
    curl->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl->easy_setopt(c, CURLOPT_HEADERDATA, a);
    curl->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
    curl->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                      (long)(h->timeout_ms < 10000 ? h->timeout_ms : 10000));
    curl->easy_setopt(c, CURLOPT_USERAGENT, "mnemo/" MNEMO_VERSION);
    curl->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode rc = curl->easy_perform(c);
    curl->slist_free_all(headers);
    if (rc != CURLE_OK) {
        mn_buf w = MN_BUF_INIT;
        if (a->too_big)
            mn_buf_printf(&w, "answer larger than %u MB", MAX_ANSWER_BYTES >> 20);
        else
            mn_buf_puts(&w, errbuf[0] ? errbuf : curl->easy_strerror(rc));
        lower_first(w.ptr);
        *why = mn_buf_detach(&w);
        return MN_EIO;
    }
    curl->easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

/* ---- one batch ---- */

/* Check an answer and copy its vectors into out (n rows of e->dim, set from the answer). */
static int parse_answer(http_embedder *h, const mn_buf *body, size_t n, float **out)
{
    json_error_t jerr;
    json_t *j = json_loadb(body->ptr, body->len, 0, &jerr);
    const json_t *data = json_object_get(j, "data");
    float *vecs = NULL;
    bool *seen = NULL;
    int rc = 0;
    if (!j || !json_is_array(data)) {
        rc = mn_error_set(MN_ERROR,
                          "embedder '%s' sent an answer that is not an embeddings list%s%s", h->url,
                          j ? "" : ": ", j ? "" : jerr.text);
        goto out;
    }
    if (json_array_size(data) != n) {
        rc = mn_error_set(MN_ERROR, "embedder '%s' sent %zu embeddings for %zu texts", h->url,
                          json_array_size(data), n);
        goto out;
    }
    seen = mn_calloc(n, sizeof(bool));
    for (size_t i = 0; i < n; i++) {
        const json_t *item = json_array_get(data, i), *emb = json_object_get(item, "embedding");
        const json_t *index = json_object_get(item, "index");
        size_t dim = json_array_size(emb), at = i;
        if (!json_is_array(emb) || dim < 1 || dim > MN_EMBED_MAX_DIM) {
            rc = mn_error_set(MN_ERROR,
                              "embedder '%s' sent an embedding that is not a list of 1 to %d "
                              "numbers",
                              h->url, MN_EMBED_MAX_DIM);
            goto out;
        }
        if (index) {
            json_int_t x = json_is_integer(index) ? json_integer_value(index) : -1;
            if (x < 0 || (size_t)x >= n || seen[x]) {
                rc = mn_error_set(MN_ERROR, "embedder '%s' sent a wrong or repeated index", h->url);
                goto out;
            }
            at = (size_t)x;
        }
        seen[at] = true;
        if (h->base.dim == 0)
            h->base.dim = dim;
        if (dim != h->base.dim) {
            rc = mn_error_set(MN_ERROR,
                              "embedder '%s' sent an embedding of %zu dimensions where earlier "
                              "ones had %zu",
                              h->url, dim, h->base.dim);
            goto out;
        }
        if (!vecs)
            vecs = mn_calloc(n * dim, sizeof(float));
        float *row = vecs + at * dim;
        for (size_t c = 0; c < dim; c++) {
            const json_t *v = json_array_get(emb, c);
            double x = json_number_value(v);
            if (!json_is_number(v) || !isfinite(x) || fabs(x) > 1e30) {
                rc = mn_error_set(MN_ERROR,
                                  "embedder '%s' sent a value that is not a finite number", h->url);
                goto out;
            }
            row[c] = (float)x;
        }
        mn_embed_normalize(row, dim);
    }
    *out = vecs;
    vecs = NULL;
out:
    free(vecs);
    free(seen);
    json_decref(j);
    return rc;
}

/* Embed texts[0..n) (none empty) with retries: *out gets n rows. */
static int embed_batch(http_embedder *h, const char *const *texts, size_t n, const char *prefix,
                       float **out)
{
    json_t *input = json_array();
    for (size_t i = 0; i < n; i++) {
        mn_buf t = MN_BUF_INIT;
        size_t len = strlen(texts[i]);
        mn_buf_puts(&t, prefix ? prefix : "");
        mn_buf_put(&t, texts[i], mn_utf8_floor(texts[i], len, h->max_text));
        /* jansson refuses invalid UTF-8: send what it can carry */
        json_t *s = json_stringn(t.ptr, t.len);
        if (!s) {
            mn_buf c = MN_BUF_INIT;
            for (size_t k = 0; k < t.len; k++)
                mn_buf_putc(&c, (unsigned char)t.ptr[k] < 0x80 ? t.ptr[k] : '?');
            s = json_stringn(c.ptr, c.len);
            mn_buf_release(&c);
        }
        json_array_append_new(input, s);
        mn_buf_release(&t);
    }
    json_t *req = json_pack("{s:s,s:o}", "model", h->name, "input", input);
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);

    int rc = 0, attempts = 0;
    int64_t wait = h->backoff_ms;
    char *why = NULL;
    for (;;) {
        answer a = {MN_BUF_INIT, false, -1};
        long status = 0;
        free(why);
        why = NULL;
        attempts++;
        rc = post(h, body, &a, &status, &why);
        bool retry = rc != 0;
        if (rc == 0 && status >= 200 && status < 300) {
            rc = parse_answer(h, &a.body, n, out);
            mn_buf_release(&a.body);
            break;
        }
        if (rc == 0) {
            char *msg = server_message(&a.body);
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "HTTP %ld%s%s", status, msg ? ": " : "", msg ? msg : "");
            why = mn_buf_detach(&w);
            free(msg);
            retry = status == 429 || status >= 500;
            rc = retry ? MN_EIO : MN_ERROR;
        }
        int64_t after = a.retry_after_ms;
        mn_buf_release(&a.body);
        if (!retry || attempts > h->retries)
            break;
        sleep_ms(after >= 0 && after <= MAX_WAIT_MS ? after : wait);
        wait = wait * 2 > MAX_WAIT_MS ? MAX_WAIT_MS : wait * 2;
    }
    if (rc != 0 && why) {
        bool network = strncmp(why, "HTTP ", 5) != 0;
        rc = mn_error_set(rc, "embedder '%s' %s: %s (%d attempt%s)", h->url,
                          network ? "unreachable" : "failed", why, attempts,
                          attempts == 1 ? "" : "s");
    }
    free(why);
    free(body);
    return rc;
}

static int http_embed(mn_embedder *e, float **out, const char *const *texts, size_t n,
                      unsigned flags)
{
    http_embedder *h = (http_embedder *)e;
    const char *prefix = flags & MN_EMBED_QUERY ? h->query_prefix : h->document_prefix;
    /* the non-empty texts, sent in batches; the empty ones keep a zero row */
    size_t *which = mn_malloc((n + 1) * sizeof(size_t)), m = 0;
    const char **send = mn_malloc((n + 1) * sizeof(*send));
    for (size_t i = 0; i < n; i++)
        if (texts[i][0]) {
            which[m] = i;
            send[m++] = texts[i];
        }
    float *all = NULL;
    int rc = 0;
    for (size_t start = 0; start < m && rc == 0; start += h->base.batch) {
        size_t count = m - start < h->base.batch ? m - start : h->base.batch;
        float *part = NULL;
        rc = embed_batch(h, send + start, count, prefix, &part);
        if (rc)
            break;
        if (!all)
            all = mn_calloc(n * e->dim, sizeof(float));
        for (size_t i = 0; i < count; i++)
            memcpy(all + which[start + i] * e->dim, part + i * e->dim, e->dim * sizeof(float));
        free(part);
    }
    if (rc == 0 && !all) {
        /* nothing to send: zero rows, once the dimension is known */
        if (e->dim == 0) {
            const char *probe[1] = {"dimension probe"};
            float *part = NULL;
            rc = embed_batch(h, probe, 1, NULL, &part);
            free(part);
        }
        if (rc == 0)
            all = mn_calloc(n * e->dim, sizeof(float));
    }
    free(which);
    free(send);
    if (rc) {
        free(all);
        return rc;
    }
    *out = all;
    return 0;
}

static void http_free(mn_embedder *e)
{
    http_embedder *h = (http_embedder *)e;
    if (h->curl)
        curl->easy_cleanup(h->curl);
    free(h->endpoint);
    free(h->url);
    free(h->name);
    if (h->auth) {
        /* the key does not outlive the embedder in freed memory */
        memset(h->auth, 0, strlen(h->auth));
        free(h->auth);
    }
    free(h->query_prefix);
    free(h->document_prefix);
    free(e->model);
    free(h);
}

static const mn_embedder_ops http_ops = {"http", http_embed, http_free};

/* Free a key without leaving it in freed memory. */
static void wipe(char *key)
{
    if (key) {
        volatile char *p = key;
        while (*p)
            *p++ = '\0';
        free(key);
    }
}

/* A key read from a file or the environment: one line of printable characters. */
static int check_key(const char *key, size_t len, const char *where)
{
    if (!len)
        return mn_error_set(MN_EINVAL, "embed.key: %s is empty", where);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return mn_error_set(MN_EINVAL, "embed.key: %s must hold the key on one line", where);
    return 0;
}

/*
 * file:PATH. The checks are made on the file opened (fstat), so a file
 * swapped between a check and the read is checked itself. A key file that
 * others may read has already leaked; refusing it says so while it can
 * still be fixed (chmod 600).
 */
static int read_key_file(char **out, const char *path)
{
    struct stat st;
    char buf[4097];
    ssize_t n = 0;
    int rc = 0, fd;
    if (path[0] != '/')
        return mn_error_set(MN_EINVAL, "embed.key: file:%.200s must be an absolute path", path);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
        return mn_error_set(MN_EINVAL, "embed.key: cannot read the key file '%.200s': %s", path,
                            strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = mn_error_set(MN_EINVAL, "embed.key: '%.200s' is not a regular file", path);
    } else if (st.st_uid != geteuid()) {
        rc = mn_error_set(MN_EINVAL, "embed.key: the key file '%.200s' must be owned by you", path);
    } else if (st.st_mode & 077) {
        rc = mn_error_set(MN_EINVAL,
                          "embed.key: others may read the key file '%.200s' (mode %04o): make it "
                          "yours alone with chmod 600 '%.200s'",
                          path, (unsigned)(st.st_mode & 07777), path);
    } else {
        size_t got = 0;
        while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
            got += (size_t)n;
        if (n < 0)
            rc = mn_error_set(MN_EINVAL, "embed.key: cannot read the key file '%.200s': %s", path,
                              strerror(errno));
        else if (got == sizeof(buf) - 1)
            rc = mn_error_set(MN_EINVAL, "embed.key: the key file '%.200s' is over 4 KiB", path);
        else {
            /* the first line, without the spaces and line end an editor leaves */
            size_t len = 0;
            while (len < got && buf[len] != '\n')
                len++;
            while (len && (buf[len - 1] == '\r' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
                len--;
            char where[260];
            snprintf(where, sizeof(where), "the key file '%.200s'", path);
            if ((rc = check_key(buf, len, where)) == 0)
                *out = mn_strndup(buf, len);
        }
        memset(buf, 0, sizeof(buf));
    }
    close(fd);
    return rc;
}

int mn_embed_key_resolve(char **out, const char *ref)
{
    *out = NULL;
    if (!ref || !*ref)
        return 0;
    if (strncmp(ref, "file:", 5) == 0)
        return read_key_file(out, ref + 5);
    if (strncmp(ref, "env:", 4) == 0) {
        const char *v = getenv(ref + 4);
        char where[160];
        if (!v || !*v)
            return mn_error_set(MN_EINVAL, "embed.key names $%.100s, which is not set", ref + 4);
        snprintf(where, sizeof(where), "$%.100s", ref + 4);
        int rc = check_key(v, strlen(v), where);
        if (rc == 0)
            *out = mn_strdup(v);
        return rc;
    }
    /* a key stored as it is by an older mnemo: still used (config list says to move it) */
    int rc = check_key(ref, strlen(ref), "the stored key");
    if (rc == 0)
        *out = mn_strdup(ref);
    return rc;
}

int mn_embedder_http_new(mn_embedder **out, const mn_embed_options *o)
{
    *out = NULL;
    const char *url = o->url ? o->url : "";
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return mn_error_set(MN_EINVAL,
                            "embed.url must be an http:// or https:// URL such as "
                            "http://localhost:11434/v1 (got '%.80s')",
                            url);
    if (!o->model || !*o->model)
        return mn_error_set(MN_EINVAL, "embed.model must name the embedding model to ask '%s' for",
                            url);
    char *key = NULL;
    int rc = mn_embed_key_resolve(&key, o->key);
    if (rc)
        return rc;
    pthread_once(&curl_once, init_curl);
    if (!curl) {
        wipe(key);
        return mn_error_set(MN_ERROR, "%s", curl_error);
    }
    http_embedder *h = mn_calloc(1, sizeof(*h));
    h->curl = curl->easy_init();
    if (!h->curl) {
        free(h);
        wipe(key);
        return mn_error_set(MN_ERROR, "cannot initialise libcurl");
    }
    size_t len = strlen(url);
    while (len > 0 && url[len - 1] == '/')
        len--;
    h->url = mn_strndup(url, len);
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s/embeddings", h->url);
    h->endpoint = mn_buf_detach(&b);
    h->name = mn_strdup(o->model);
    if (key) {
        mn_buf_printf(&b, "Authorization: Bearer %s", key);
        h->auth = mn_buf_detach(&b);
        wipe(key);
    }
    h->query_prefix = o->query_prefix && *o->query_prefix ? mn_strdup(o->query_prefix) : NULL;
    h->document_prefix =
        o->document_prefix && *o->document_prefix ? mn_strdup(o->document_prefix) : NULL;
    h->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
    h->backoff_ms = o->backoff_ms > 0 ? o->backoff_ms : 250;
    h->retries = o->retries >= 0 ? (o->retries > 10 ? 10 : o->retries) : 0;
    h->max_text = o->max_text_bytes ? o->max_text_bytes : 8192;
    h->base.ops = &http_ops;
    h->base.batch = o->batch ? (o->batch > 2048 ? 2048 : o->batch) : 32;
    mn_buf_printf(&b, "http:%s", o->model);
    h->base.model = mn_buf_detach(&b);
    *out = &h->base;
    return 0;
}
