/*
 * test_rest.c - the REST request reader (src/http/rest_parse.c), the push
 * webhook's signature check (webhook.c), the OpenAPI document (openapi.c)
 * and the metrics' exposition (metrics.c), each without a socket.
 */
#include "common.h"

#include "http/rest.h"
#include "util/digest.h"
#include "test.h"

static const char *real_ops(void *payload, const char *name)
{
    const mn_op *op = mn_api_find(name);
    MN_UNUSED(payload);
    return op ? op->name : NULL;
}

/* parse METHOD PATH CT BODY: the route (released by the caller) */
static mn_rest_route parse(const char *method, const char *path, const char *ct, const char *body)
{
    mn_rest_route r;
    mn_rest_request req = {method, path, ct, body, body ? strlen(body) : 0, false};
    mn_http__rest_parse(&r, &req, real_ops, NULL);
    return r;
}

static void expect_refused(const char *method, const char *path, const char *ct, const char *body,
                           unsigned status, const char *code)
{
    mn_rest_route r = parse(method, path, ct, body);
    if (r.kind != MN_REST_REFUSED || r.status != status || strcmp(r.code, code) != 0 ||
        !r.message[0]) {
        fprintf(stderr, "%s %s (%s): kind %d status %u code %s, not %u %s\n", method, path,
                body ? body : "", (int)r.kind, r.status, r.code ? r.code : "-", status, code);
        CHECK(false);
    }
    CHECK(r.args == NULL);
    mn_http__rest_route_release(&r);
}

static void test_routes(void)
{
    const char *json = "application/json";
    mn_rest_route r = parse("POST", "/v1/search", json, "{\"query\":\"cart\"}");
    CHECK(r.kind == MN_REST_OP);
    CHECK_STR(r.op, "search");
    CHECK_STR(json_string_value(json_object_get(r.args, "query")), "cart");
    mn_http__rest_route_release(&r);

    /* the seed's alias, and '-' for '_' */
    r = parse("POST", "/v1/plan-context", json, "{\"task\":\"x\",\"legacy\":true,\"trace\":true}");
    CHECK(r.kind == MN_REST_OP);
    CHECK_STR(r.op, "plan_files");
    CHECK(json_is_true(json_object_get(r.args, "legacy")));
    mn_http__rest_route_release(&r);
    r = parse("POST", "/v1/search-code", "application/json; charset=utf-8", "{}");
    CHECK(r.kind == MN_REST_OP);
    CHECK_STR(r.op, "search_code");
    mn_http__rest_route_release(&r);

    /* no body: {} (and no Content-Type needed) */
    r = parse("POST", "/v1/status", NULL, NULL);
    CHECK(r.kind == MN_REST_OP);
    CHECK(json_is_object(r.args) && json_object_size(r.args) == 0);
    mn_http__rest_route_release(&r);

    /* every op of the table has its route */
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    for (size_t i = 0; i < n; i++) {
        char path[96];
        snprintf(path, sizeof(path), "/v1/%s", ops[i].name);
        r = parse("POST", path, json, "{}");
        CHECK(r.kind == MN_REST_OP && r.op == ops[i].name);
        mn_http__rest_route_release(&r);
    }

    r = parse("GET", "/v1/openapi.json", NULL, NULL);
    CHECK(r.kind == MN_REST_OPENAPI);
    r = parse("HEAD", "/metrics", NULL, NULL);
    CHECK(r.kind == MN_REST_METRICS);
    r = parse("POST", "/v1/ingest/git", json, "not json: read after the signature");
    CHECK(r.kind == MN_REST_WEBHOOK && !r.args);
    r = parse("OPTIONS", "/v1/save", NULL, NULL);
    CHECK(r.kind == MN_REST_PREFLIGHT);
    CHECK_STR(r.allow, "POST");

    CHECK(mn_http__rest_path("/v1/save") && mn_http__rest_path("/metrics") &&
          mn_http__rest_path("/v1"));
    CHECK(!mn_http__rest_path("/mcp") && !mn_http__rest_path("/v10/save") &&
          !mn_http__rest_path("/metricsx"));
}

static void test_refusals(void)
{
    const char *json = "application/json";
    expect_refused("POST", "/v1/nosuch", json, "{}", 404, "not_found");
    expect_refused("POST", "/v1/", json, "{}", 404, "not_found");
    expect_refused("POST", "/v1", json, "{}", 404, "not_found");
    expect_refused("POST", "/v1/Save", json, "{}", 404, "not_found");
    expect_refused("POST", "/v1/save/x", json, "{}", 404, "not_found");
    expect_refused("POST", "/v1/../v1/save", json, "{}", 404, "not_found");
    expect_refused("GET", "/v1/save", NULL, NULL, 405, "method_not_allowed");
    expect_refused("POST", "/metrics", NULL, NULL, 405, "method_not_allowed");
    expect_refused("DELETE", "/v1/openapi.json", NULL, NULL, 405, "method_not_allowed");
    expect_refused("GET", "/v1/ingest/git", NULL, NULL, 405, "method_not_allowed");
    expect_refused("POST", "/v1/save", "text/plain", "{}", 415, "unsupported_media_type");
    expect_refused("POST", "/v1/save", NULL, "{}", 415, "unsupported_media_type");
    expect_refused("POST", "/v1/ingest/git", "application/x-www-form-urlencoded", "payload=%7B%7D",
                   415, "unsupported_media_type");
    expect_refused("POST", "/v1/save", json, "{\"kind\":", 400, "invalid");
    expect_refused("POST", "/v1/save", json, "[{}]", 400, "invalid");
    expect_refused("POST", "/v1/save", json, "\"fact\"", 400, "invalid");
    expect_refused("POST", "/v1/save", json, "{} {}", 400, "invalid");

    mn_rest_route r = parse("GET", "/v1/save", NULL, NULL);
    CHECK_STR(r.allow, "POST");
    CHECK(strstr(r.message, "GET") && strstr(r.message, "/v1/save"));

    /* too big: refused before the body matters */
    mn_rest_request big = {"POST", "/v1/import", "application/json", NULL, 0, true};
    mn_http__rest_parse(&r, &big, real_ops, NULL);
    CHECK(r.kind == MN_REST_REFUSED && r.status == 413);
    CHECK(strstr(r.message, "4194304") != NULL);

    /* a path with control characters is quoted without them */
    r = parse("POST", "/v1/a\x01\x1b[31m", json, "{}");
    CHECK(r.status == 404 && !strchr(r.message, '\x1b') && !strchr(r.message, '\x01'));
}

static void test_status(void)
{
    CHECK(mn_http__rest_status(MN_EINVAL) == 400);
    CHECK(mn_http__rest_status(MN_EAMBIGUOUS) == 400);
    CHECK(mn_http__rest_status(MN_EAUTH) == 401);
    CHECK(mn_http__rest_status(MN_EDENIED) == 403);
    CHECK(mn_http__rest_status(MN_ENOTFOUND) == 404);
    CHECK(mn_http__rest_status(MN_ETOOBIG) == 413);
    CHECK(mn_http__rest_status(MN_EBUSY) == 503);
    CHECK(mn_http__rest_status(MN_EUNAVAILABLE) == 503);
    CHECK(mn_http__rest_status(MN_EIO) == 500);
    CHECK(mn_http__rest_status(MN_EINTERNAL) == 500);

    char *body = mn_http__rest_error_body("invalid", "bad \xff byte");
    json_t *e = body ? json_loads(body, 0, NULL) : NULL;
    CHECK(e != NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(e, "error"), "code")), "invalid");
    json_decref(e);
    free(body);
}

static void test_webhook(void)
{
    const char *secret = "s3cret-webhook-key-0123";
    const char *body = "{\"ref\":\"refs/heads/main\"}";
    uint8_t mac[MN_SHA256_LEN];
    char hex[MN_SHA256_HEX], sig[80];
    mn_webhook_event ev;

    mn_hmac_sha256(mac, secret, strlen(secret), body, strlen(body));
    mn_hex(hex, mac, MN_SHA256_LEN);
    snprintf(sig, sizeof(sig), "sha256=%s", hex);
    mn_webhook_headers gh = {sig, "push", NULL, NULL};
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, body, strlen(body)));
    CHECK(ev == MN_WEBHOOK_PUSH);
    gh.github_event = "ping";
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, body, strlen(body)));
    CHECK(ev == MN_WEBHOOK_PING);
    gh.github_event = "issues";
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, body, strlen(body)));
    CHECK(ev == MN_WEBHOOK_IGNORED);
    gh.github_event = NULL;
    CHECK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, body, strlen(body)) ==
          MN_EINVAL);
    gh.github_event = "push";

    /* upper-case hex is the same signature */
    for (char *p = sig + 7; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, body, strlen(body)));

    /* a changed body, another secret, a bad header: 401, the secret never in the message */
    CHECK(mn_http__webhook_check(&ev, secret, strlen(secret), &gh, "{}", 2) == MN_EAUTH);
    CHECK(strstr(mn_error_last(), secret) == NULL);
    CHECK(mn_http__webhook_check(&ev, "another-secret-entirely", 23, &gh, body, strlen(body)) ==
          MN_EAUTH);
    const char *bad[] = {"", "sha256=", "sha1=0123", "sha256=zz", "sha256=00"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        mn_webhook_headers h = {bad[i], "push", NULL, NULL};
        CHECK(mn_http__webhook_check(&ev, secret, strlen(secret), &h, body, strlen(body)) ==
              MN_EAUTH);
    }
    mn_webhook_headers none = {NULL, "push", NULL, NULL};
    CHECK(mn_http__webhook_check(&ev, secret, strlen(secret), &none, body, strlen(body)) ==
          MN_EAUTH);
    CHECK(mn_http__webhook_check(&ev, NULL, 0, &gh, body, strlen(body)) == MN_EAUTH);

    /* GitLab: the token is the secret */
    mn_webhook_headers gl = {NULL, NULL, secret, "Push Hook"};
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gl, body, strlen(body)));
    CHECK(ev == MN_WEBHOOK_PUSH);
    gl.gitlab_event = "Merge Request Hook";
    CHECK_OK(mn_http__webhook_check(&ev, secret, strlen(secret), &gl, body, strlen(body)));
    CHECK(ev == MN_WEBHOOK_IGNORED);
    gl.gitlab_token = "s3cret-webhook-key-012"; /* a prefix of it */
    CHECK(mn_http__webhook_check(&ev, secret, strlen(secret), &gl, body, strlen(body)) == MN_EAUTH);
}

static void test_openapi(void)
{
    size_t len, n;
    char *text = mn_http__openapi_document(&len);
    json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
    const mn_op *ops = mn_api_ops(&n);
    REQUIRE(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
    json_t *paths = json_object_get(doc, "paths");
    json_t *schemas = json_object_get(json_object_get(doc, "components"), "schemas");
    for (size_t i = 0; i < n; i++) {
        char key[96];
        snprintf(key, sizeof(key), "/v1/%s", ops[i].name);
        json_t *post = json_object_get(json_object_get(paths, key), "post");
        CHECK_STR(json_string_value(json_object_get(post, "operationId")), ops[i].name);
        snprintf(key, sizeof(key), "%s.input", ops[i].name);
        json_t *in = json_object_get(schemas, key);
        CHECK(json_is_object(in));
        /* the CLI's keywords are gone, the rest is the op's schema */
        char *dump = json_dumps(in, 0);
        CHECK(dump && !strstr(dump, "\"x-cli"));
        free(dump);
        CHECK(json_equal(json_object_get(in, "type"),
                         json_object_get(mn_api_input_schema(&ops[i]), "type")));
    }
    CHECK(json_object_get(paths, "/v1/plan-context") != NULL);
    CHECK(json_object_get(paths, "/v1/ingest/git") != NULL);
    json_decref(doc);
    free(text);
}

static void test_metrics_text(void)
{
    size_t len;
    char *text = mn_http__metrics_text(NULL, NULL, &len);
    REQUIRE(text != NULL);
    CHECK(strlen(text) == len);
    /* every metric has its HELP and TYPE */
    CHECK(strstr(text, "# TYPE mnemo_requests_total counter\n") != NULL);
    CHECK(strstr(text, "# TYPE mnemo_op_duration_seconds histogram\n") != NULL);
    CHECK(strstr(text, "# TYPE mnemo_http_responses_total counter\n") != NULL);
    free(text);
    /* a project's view: its feedback signals (always printed), nothing of the server's */
    mn_http__metrics_front_begin(MN_METRICS_REST, "alpha \"quoted\"");
    mn_http__metrics_front_end();
    text = mn_http__metrics_text("alpha \"quoted\"", NULL, &len);
    REQUIRE(text != NULL);
    CHECK(strstr(text,
                 "mnemo_feedback_total{project=\"alpha \\\"quoted\\\"\",signal=\"used\"} 0\n") !=
          NULL);
    CHECK(strstr(text, "mnemo_http_responses_total") == NULL);
    free(text);
    text = mn_http__metrics_text("beta", NULL, &len);
    REQUIRE(text != NULL);
    CHECK(strstr(text, "alpha") == NULL);
    free(text);
}

MN_TEST_MAIN(MN_TEST(test_routes), MN_TEST(test_refusals), MN_TEST(test_status),
             MN_TEST(test_webhook), MN_TEST(test_openapi), MN_TEST(test_metrics_text))
