/*
 * fuzz_rest.c - libFuzzer target for the REST request reader
 * (src/http/rest_parse.c), the function every /v1 request passes first.
 *
 * The input is a request as lines: the method, the path, the Content-Type
 * ("-" for none), then the body, any bytes; the first byte's low bit also
 * marks the body as over the limit, as server.c does when it dropped one.
 * Beyond crashes and sanitizer reports it checks the reader's promises: an
 * op route has a JSON object as arguments and an op of the table; a
 * refusal has a 4xx status of the documented set, a code and a message,
 * and its error body is JSON that says the same code; a 405 or a preflight
 * says which methods the route takes; the route's name is a C string.
 */
#include "common.h"

#include "http/rest.h"

static const char *const table[] = {"save", "search",     "search_code", "plan_files", "status",
                                    "get",  "ingest_git", "feedback",    "recall",     "review"};

static const char *lookup(void *payload, const char *name)
{
    (void)payload;
    for (size_t i = 0; i < MN_ARRAY_SIZE(table); i++)
        if (strcmp(table[i], name) == 0)
            return table[i];
    return NULL;
}

/* The next line of [*p, end) as a C string (malloc'd), *p past its newline. */
static char *line(const char **p, const char *end)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    char *s = mn_strndup(*p, n);
    *p += n + (nl != NULL);
    return s;
}

static void check(const mn_rest_route *r)
{
    if (memchr(r->route_name, '\0', sizeof(r->route_name)) == NULL ||
        memchr(r->message, '\0', sizeof(r->message)) == NULL)
        abort();
    switch (r->kind) {
    case MN_REST_OP:
        if (!json_is_object(r->args) || !r->op || lookup(NULL, r->op) != r->op)
            abort();
        break;
    case MN_REST_REFUSED: {
        static const unsigned ok[] = {400, 404, 405, 413, 415};
        bool known = false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(ok); i++)
            known |= r->status == ok[i];
        if (!known || !r->code || !r->message[0] || r->args || (r->status == 405 && !r->allow))
            abort();
        char *body = mn_http__rest_error_body(r->code, r->message);
        json_t *e = body ? json_loads(body, 0, NULL) : NULL;
        const char *code = json_string_value(json_object_get(json_object_get(e, "error"), "code"));
        if (!e || !code || strcmp(code, r->code) != 0)
            abort();
        json_decref(e);
        free(body);
        break;
    }
    case MN_REST_PREFLIGHT:
        if (!r->allow)
            abort();
        break;
    case MN_REST_OPENAPI:
    case MN_REST_METRICS:
    case MN_REST_WEBHOOK:
        if (r->args)
            abort();
        break;
    default:
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    char *method = line(&p, end), *path = line(&p, end), *ct = line(&p, end);
    mn_rest_request req = {method,
                           path,
                           strcmp(ct, "-") == 0 ? NULL : ct,
                           p,
                           (size_t)(end - p),
                           size > 0 && (data[0] & 1)};
    mn_rest_route r;
    if (req.too_big) /* server.c keeps no body it found too big */
        req.body = NULL, req.len = 0;
    mn_http__rest_parse(&r, &req, lookup, NULL);
    check(&r);
    if (mn_http__rest_path(path) != (strcmp(path, "/metrics") == 0 || strcmp(path, "/v1") == 0 ||
                                     strncmp(path, "/v1/", 4) == 0))
        abort();
    mn_http__rest_route_release(&r);
    free(method);
    free(path);
    free(ct);
    return 0;
}
