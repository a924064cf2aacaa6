/*
 * test_embed_http.c - the OpenAI-compatible HTTP embedder (embed_http.c)
 * against a real HTTP server on 127.0.0.1 that this test runs in a thread:
 * a small HTTP/1.1 server on plain sockets that answers POST /v1/embeddings
 * the way OpenAI does, or misbehaves as each case scripts it (500 then
 * success, 429 with Retry-After, 400 with an error message, a malformed
 * body, too few embeddings, a changed dimension, a number out of range, a
 * slow answer). Also: a closed port (unreachable), the key sent as a
 * bearer token and never shown in messages, batching, the order given by
 * `index`, empty texts, and a sync of a store through the embedder.
 */
#include "common.h"
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "retrieve/embed.h"
#include "retrieve/semantic.h"
#include "store/store.h"
#include "store/store_vector.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

#define DIM 8

typedef struct {
    int fd, port;
    pthread_t thread;
    pthread_mutex_t lock;
    const char *script[8]; /* behaviour of request i; the last one repeats */
    size_t nscript;
    size_t requests;
    char auth[256], model[64];
    size_t inputs;
    bool stop;
} server;

static server srv;

/* The vector the server gives a text: a hash spread over DIM values (not unit length). */
static void vector_of(const char *text, size_t len, double *out)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    for (int j = 0; j < DIM; j++) {
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ULL;
        out[j] = (double)(h % 2000) / 1000.0 - 1.0;
    }
}

static void respond(int c, int status, const char *extra, const char *body)
{
    mn_buf r = MN_BUF_INIT;
    mn_buf_printf(&r,
                  "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                  "Connection: close\r\n%s\r\n%s",
                  status, strlen(body), extra ? extra : "", body);
    for (size_t off = 0; off < r.len;) {
        ssize_t w = write(c, r.ptr + off, r.len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    mn_buf_release(&r);
}

static void serve_one(int c)
{
    mn_buf req = MN_BUF_INIT;
    char buf[4096];
    char *end = NULL;
    size_t want = 0;
    for (;;) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0)
            break;
        mn_buf_put(&req, buf, (size_t)n);
        if (!end && (end = strstr(req.ptr, "\r\n\r\n")) != NULL) {
            const char *cl = strcasestr(req.ptr, "content-length:");
            want = (size_t)(end - req.ptr) + 4 + (cl ? strtoul(cl + 15, NULL, 10) : 0);
        }
        if (end && req.len >= want)
            break;
    }
    if (!end) {
        mn_buf_release(&req);
        return;
    }
    pthread_mutex_lock(&srv.lock);
    size_t i = srv.requests++;
    const char *what = srv.script[i < srv.nscript ? i : srv.nscript - 1];
    const char *auth = strcasestr(req.ptr, "\r\nauthorization: ");
    snprintf(srv.auth, sizeof(srv.auth), "%.*s", auth ? (int)strcspn(auth + 17, "\r") : 0,
             auth ? auth + 17 : "");
    json_t *body = json_loads(strstr(req.ptr, "\r\n\r\n") + 4, 0, NULL);
    const json_t *input = json_object_get(body, "input");
    const char *model = json_string_value(json_object_get(body, "model"));
    snprintf(srv.model, sizeof(srv.model), "%s", model ? model : "");
    srv.inputs = json_array_size(input);
    pthread_mutex_unlock(&srv.lock);

    if (!strcmp(what, "slow")) {
        struct timespec ts = {1, 500000000};
        nanosleep(&ts, NULL);
        what = "ok";
    }
    if (!strcmp(what, "500")) {
        respond(c, 500, NULL, "{\"error\":{\"message\":\"model is loading\"}}");
    } else if (!strcmp(what, "429")) {
        respond(c, 429, "Retry-After: 0\r\n", "{\"error\":\"slow down\"}");
    } else if (!strcmp(what, "400")) {
        respond(c, 400, NULL, "{\"error\":{\"message\":\"model 'nope' not found\"}}");
    } else if (!strcmp(what, "malformed")) {
        respond(c, 200, NULL, "{\"data\": [ {\"embedding\": [0.1, ");
    } else {
        /* ok, reverse (data in reverse order, with index), count (one short),
         * wrongdim (one value more), huge (a number out of range) */
        size_t n = json_array_size(input), dim = DIM + (strcmp(what, "wrongdim") == 0);
        if (!strcmp(what, "count") && n > 0)
            n--;
        json_t *data = json_array();
        for (size_t k = 0; k < n; k++) {
            size_t at = strcmp(what, "reverse") == 0 ? n - 1 - k : k;
            const json_t *t = json_array_get(input, at);
            double v[DIM + 1] = {0};
            vector_of(json_string_value(t), json_string_length(t), v);
            json_t *emb = json_array();
            for (size_t j = 0; j < dim; j++)
                json_array_append_new(emb, json_real(v[j % DIM]));
            if (!strcmp(what, "huge"))
                json_array_set_new(emb, 0, json_real(1e40));
            json_array_append_new(data, json_pack("{s:s,s:i,s:o}", "object", "embedding", "index",
                                                  (json_int_t)at, "embedding", emb));
        }
        json_t *ans = json_pack("{s:s,s:o,s:s}", "object", "list", "data", data, "model", "m");
        char *text = json_dumps(ans, JSON_COMPACT);
        respond(c, 200, NULL, text);
        free(text);
        json_decref(ans);
    }
    json_decref(body);
    mn_buf_release(&req);
}

static void *server_main(void *arg)
{
    MN_UNUSED(arg);
    while (!srv.stop) {
        struct pollfd p = {srv.fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int c = accept(srv.fd, NULL, NULL);
        if (c >= 0) {
            serve_one(c);
            close(c);
        }
    }
    return NULL;
}

/* A listening socket on a free port of 127.0.0.1; its port in *port. */
static int listen_any(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    *port = ntohs(a.sin_port);
    return fd;
}

static void script(const char *a, const char *b)
{
    pthread_mutex_lock(&srv.lock);
    srv.script[0] = a;
    srv.script[1] = b;
    srv.nscript = b ? 2 : 1;
    srv.requests = 0;
    pthread_mutex_unlock(&srv.lock);
}

static char url[64];

static mn_embed_options options(void)
{
    mn_embed_options o = MN_EMBED_OPTIONS_INIT;
    o.provider = "http";
    o.url = url;
    o.model = "test-model";
    o.timeout_ms = 5000;
    o.backoff_ms = 10;
    o.retries = 2;
    return o;
}

static mn_embedder *open_http(const mn_embed_options *o)
{
    mn_embedder *e = NULL;
    if (mn_embedder_http_new(&e, o) != 0)
        fprintf(stderr, "http embedder: %s\n", mn_error_last());
    return e;
}

/* The unit vector the server's answer for text should become. */
static void expected(const char *text, float *out)
{
    double v[DIM];
    vector_of(text, strlen(text), v);
    for (int j = 0; j < DIM; j++)
        out[j] = (float)v[j];
    mn_embed_normalize(out, DIM);
}

static bool close_to(const float *a, const float *b)
{
    for (int j = 0; j < DIM; j++)
        if (fabsf(a[j] - b[j]) > 1e-5f)
            return false;
    return true;
}

static void test_setup(void)
{
    pthread_mutex_init(&srv.lock, NULL);
    srv.fd = listen_any(&srv.port);
    REQUIRE(srv.fd >= 0);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/", srv.port);
    REQUIRE(pthread_create(&srv.thread, NULL, server_main, NULL) == 0);
}

static void test_embeds_in_batches(void)
{
    mn_embed_options o = options();
    o.batch = 2;
    o.key = "sk-test-0123456789abcdef";
    o.document_prefix = "doc: ";
    o.query_prefix = "query: ";
    mn_embedder *e = open_http(&o);
    REQUIRE(e);
    CHECK_STR(e->model, "http:test-model");
    CHECK(e->dim == 0);

    script("ok", NULL);
    const char *texts[5] = {"alpha", "beta", "", "gamma", "delta"};
    float *v = NULL;
    REQUIRE_OK(mn_embedder_embed(e, &v, texts, 5, 0));
    CHECK(e->dim == DIM);
    CHECK(srv.requests == 2); /* 4 non-empty texts in batches of 2; the empty one not sent */
    CHECK_STR(srv.auth, "Bearer sk-test-0123456789abcdef");
    CHECK_STR(srv.model, "test-model");
    float want[DIM];
    expected("doc: alpha", want);
    CHECK(close_to(v, want));
    expected("doc: delta", want);
    CHECK(close_to(v + 4 * DIM, want));
    for (int j = 0; j < DIM; j++)
        CHECK(v[2 * DIM + j] == 0);
    free(v);

    /* queries get the query prefix; answers are placed by their index */
    script("reverse", NULL);
    const char *q[3] = {"one", "two", "three"};
    o.batch = 8;
    mn_embedder_free(e);
    e = open_http(&o);
    REQUIRE(e);
    REQUIRE_OK(mn_embedder_embed(e, &v, q, 3, MN_EMBED_QUERY));
    CHECK(srv.requests == 1 && srv.inputs == 3);
    expected("query: one", want);
    CHECK(close_to(v, want));
    expected("query: three", want);
    CHECK(close_to(v + 2 * DIM, want));
    free(v);
    mn_embedder_free(e);
}

static void test_retries(void)
{
    mn_embed_options o = options();
    mn_embedder *e = open_http(&o);
    REQUIRE(e);
    const char *texts[2] = {"alpha", "beta"};
    float *v = NULL, want[DIM];

    /* a 500, then success */
    script("500", "ok");
    REQUIRE_OK(mn_embedder_embed(e, &v, texts, 2, 0));
    CHECK(srv.requests == 2);
    expected("beta", want);
    CHECK(close_to(v + DIM, want));
    free(v);

    /* 429 with Retry-After: 0, then success */
    script("429", "ok");
    REQUIRE_OK(mn_embedder_embed(e, &v, texts, 2, 0));
    CHECK(srv.requests == 2);
    free(v);

    /* a 5xx that lasts: 1 + retries attempts, one message */
    script("500", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_EIO);
    CHECK(v == NULL);
    CHECK(srv.requests == 3);
    mn_buf want_msg = MN_BUF_INIT;
    mn_buf_printf(&want_msg,
                  "embedder 'http://127.0.0.1:%d/v1' failed: HTTP 500: model is loading "
                  "(3 attempts)",
                  srv.port);
    CHECK_STR(mn_error_last(), want_msg.ptr);

    /* a 4xx is not retried, and says what the server said */
    script("400", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_ERROR);
    CHECK(srv.requests == 1);
    mn_buf_clear(&want_msg);
    mn_buf_printf(&want_msg,
                  "embedder 'http://127.0.0.1:%d/v1' failed: HTTP 400: model 'nope' not found "
                  "(1 attempt)",
                  srv.port);
    CHECK_STR(mn_error_last(), want_msg.ptr);
    mn_buf_release(&want_msg);
    mn_embedder_free(e);
}

static void test_bad_answers(void)
{
    mn_embed_options o = options();
    mn_embedder *e = open_http(&o);
    REQUIRE(e);
    const char *texts[2] = {"alpha", "beta"};
    float *v = NULL;

    script("malformed", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "not an embeddings list") != NULL);
    CHECK(srv.requests == 1); /* a bad answer is not retried */

    script("count", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "sent 1 embeddings for 2 texts") != NULL);

    script("huge", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "not a finite number") != NULL);

    /* the dimension is learnt once: a later answer of another one is refused */
    script("ok", NULL);
    REQUIRE_OK(mn_embedder_embed(e, &v, texts, 2, 0));
    free(v);
    v = NULL;
    script("wrongdim", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 2, 0) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "9 dimensions where earlier ones had 8") != NULL);
    CHECK(v == NULL);
    mn_embedder_free(e);
}

static void test_unreachable(void)
{
    /* a port nobody listens on */
    int port = 0, fd = listen_any(&port);
    REQUIRE(fd >= 0);
    close(fd);
    char closed[64];
    snprintf(closed, sizeof(closed), "http://127.0.0.1:%d/v1", port);
    mn_embed_options o = options();
    o.url = closed;
    o.retries = 1;
    o.key = "sk-secret-never-shown";
    mn_embedder *e = open_http(&o);
    REQUIRE(e);
    const char *texts[1] = {"alpha"};
    float *v = NULL;
    CHECK(mn_embedder_embed(e, &v, texts, 1, 0) == MN_EIO);
    mn_buf want = MN_BUF_INIT;
    mn_buf_printf(&want, "embedder '%s' unreachable: ", closed);
    const char *msg = mn_error_last();
    CHECK(strncmp(msg, want.ptr, want.len) == 0);
    CHECK(strstr(msg, "(2 attempts)") != NULL);
    CHECK(strstr(msg, "secret") == NULL);
    CHECK(strchr(msg, '\n') == NULL);
    mn_buf_release(&want);
    mn_embedder_free(e);

    /* a server that answers too late (1.5 s): the timeout, no retry. The server's
     * answer would be a good one, so the error shows the client did not wait for it
     * (no wall-clock bound: the machine's load is not what is tested). */
    mn_embed_options slow = options();
    slow.timeout_ms = 300;
    slow.retries = 0;
    e = open_http(&slow);
    REQUIRE(e);
    script("slow", NULL);
    CHECK(mn_embedder_embed(e, &v, texts, 1, 0) == MN_EIO);
    CHECK(strstr(mn_error_last(), "unreachable: ") && strstr(mn_error_last(), "timed out"));
    mn_embedder_free(e);
}

static void test_options(void)
{
    mn_embedder *e = NULL;
    mn_embed_options o = options();
    o.url = "localhost:11434";
    CHECK(mn_embedder_http_new(&e, &o) == MN_EINVAL);
    o.url = NULL;
    CHECK(mn_embedder_http_new(&e, &o) == MN_EINVAL);
    o = options();
    o.model = "";
    CHECK(mn_embedder_http_new(&e, &o) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "embed.model") != NULL);
    o = options();
    o.key = "env:MNEMO_TEST_EMBED_KEY";
    unsetenv("MNEMO_TEST_EMBED_KEY");
    CHECK(mn_embedder_http_new(&e, &o) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "$MNEMO_TEST_EMBED_KEY") != NULL);
    setenv("MNEMO_TEST_EMBED_KEY", "from-the-environment", 1);
    e = open_http(&o);
    REQUIRE(e);
    script("ok", NULL);
    const char *texts[1] = {"alpha"};
    float *v = NULL;
    CHECK_OK(mn_embedder_embed(e, &v, texts, 1, 0));
    CHECK_STR(srv.auth, "Bearer from-the-environment");
    free(v);
    mn_embedder_free(e);
    unsetenv("MNEMO_TEST_EMBED_KEY");
}

static int first_hit(void *payload, int64_t id, double score)
{
    int64_t *out = payload;
    if (!*out && score > 0.999)
        *out = id;
    return 0;
}

static void test_sync_store(void)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/tmp/mnemo-test-embed-http-XXXXXX");
    REQUIRE(mkdtemp(dir));
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/db.sqlite", dir);
    mn_store *s = NULL;
    REQUIRE_OK(mn_store_open(&s, path.ptr, NULL));
    static const char *const bodies[3] = {"the deploy needs a vpn", "tests run with make test",
                                          "the cache lives in redis"};
    CHECK_OK(mn_store_begin(s));
    for (int i = 0; i < 3; i++) {
        char id[MN_ID_LEN + 1];
        mn_id_new(id);
        json_t *m = J("{'id':'','kind':'fact','level':'L1','title':'','body':'',"
                      "'provenance':{'source':'manual'},'status':'active','confidence':0.9,"
                      "'created_at':'2026-01-01T00:00:00.000Z',"
                      "'updated_at':'2026-01-01T00:00:00.000Z',"
                      "'counters':{'hits':0,'used':0,'ignored':0}}");
        json_object_set_new(m, "id", json_string(id));
        json_object_set_new(m, "title", json_string(bodies[i]));
        json_object_set_new(m, "body", json_string(bodies[i]));
        CHECK_OK(mn_store_memory_insert(s, m));
        json_decref(m);
    }
    CHECK_OK(mn_store_commit(s));

    mn_embed_options o = options();
    mn_embedder *e = NULL;
    mn_embed_sync_stats st;
    memset(&st, 0, sizeof(st));
    REQUIRE_OK(mn_embedder_open(&e, s, &o, MN_EMBED_MAY_TRAIN, &st));
    REQUIRE(e);
    script("ok", NULL);
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 3 && srv.requests == 1);
    /* the query with the same text as a memory gets that memory's vector back */
    int64_t id = 0;
    CHECK_OK(mn_semantic_search(s, e, "tests run with make test", "memory", 3, first_hit, &id));
    CHECK(id == 2);
    /* nothing new: no request */
    script("ok", NULL);
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 0 && srv.requests == 0);
    /* the server goes wrong: the sync says so, what was stored stays */
    CHECK_OK(mn_store_begin(s));
    json_t *m = J("{'id':'01JD3Q7Y8Z00000000000000Z9','kind':'fact','level':'L1',"
                  "'title':'new fact','body':'','provenance':{'source':'manual'},"
                  "'status':'active','confidence':0.9,'created_at':'2026-01-01T00:00:00.000Z',"
                  "'updated_at':'2026-01-01T00:00:00.000Z','counters':{'hits':0,'used':0,"
                  "'ignored':0}}");
    CHECK_OK(mn_store_memory_insert(s, m));
    json_decref(m);
    CHECK_OK(mn_store_commit(s));
    script("400", NULL);
    memset(&st, 0, sizeof(st));
    CHECK(mn_embed_sync(s, e, 0, &st) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "HTTP 400") != NULL);
    int64_t have = 0, missing = 0;
    CHECK_OK(mn_store_vectors_count(s, "http:test-model", "memory", &have, &missing));
    CHECK(have == 3 && missing == 1);
    mn_embedder_free(e);

    /* another model: its vectors replace these at the next sync */
    o.model = "other-model";
    REQUIRE_OK(mn_embedder_open(&e, s, &o, 0, NULL));
    script("ok", NULL);
    memset(&st, 0, sizeof(st));
    CHECK_OK(mn_embed_sync(s, e, 0, &st));
    CHECK(st.embedded == 4 && st.dropped == 3);
    mn_embedder_free(e);
    mn_store_free(s);
    mn_buf_release(&path);
    rm_rf(dir);
}

static void test_teardown(void)
{
    srv.stop = true;
    pthread_join(srv.thread, NULL);
    close(srv.fd);
    pthread_mutex_destroy(&srv.lock);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_embeds_in_batches), MN_TEST(test_retries),
             MN_TEST(test_bad_answers), MN_TEST(test_unreachable), MN_TEST(test_options),
             MN_TEST(test_sync_store), MN_TEST(test_teardown))
