/*
 * jsonrpc.c - the JSON-RPC 2.0 reader and writers (see jsonrpc.h).
 *
 * The reader is the part of the server that sees raw bytes from outside,
 * and is fuzzed (fuzz/fuzz_jsonrpc.c). jansson checks UTF-8, refuses NUL
 * in strings (no JSON_ALLOW_NUL) and limits nesting depth; the reader adds
 * duplicate-key refusal (two "id"s would make the reply ambiguous) and the
 * MCP shape rules.
 */
#include "common.h"

#include "mcp/jsonrpc.h"
#include "util/util.h"

json_t *mn_rpc_parse(const char *text, size_t len, char *reason, size_t reason_size)
{
    json_error_t err;
    json_t *v;
    if (len == 0 || !text) {
        snprintf(reason, reason_size, "empty message");
        return NULL;
    }
    v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    if (!v)
        snprintf(reason, reason_size, "not JSON: %s at line %d, column %d", err.text, err.line,
                 err.column);
    return v;
}

/* MCP narrows JSON-RPC's ids to strings and integers (no null, no fractions). */
static bool valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

static void invalid(mn_rpc_msg *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void invalid(mn_rpc_msg *out, const char *fmt, ...)
{
    va_list ap;
    out->kind = MN_RPC_INVALID;
    out->code = MN_RPC_INVALID_REQUEST;
    out->method = NULL;
    out->params = NULL;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
}

void mn_rpc_classify(mn_rpc_msg *out, const json_t *msg)
{
    const json_t *version, *id, *method, *params;
    bool has_id;
    memset(out, 0, sizeof(*out));
    if (!json_is_object(msg)) {
        invalid(out, "a message must be a JSON object");
        return;
    }
    version = json_object_get(msg, "jsonrpc");
    id = json_object_get(msg, "id");
    method = json_object_get(msg, "method");
    params = json_object_get(msg, "params");
    has_id = id != NULL;
    /* an id worth echoing in the error, even when the rest is wrong */
    if (has_id && valid_id(id))
        out->id = id;
    if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
        invalid(out, "\"jsonrpc\" must be \"2.0\"");
        return;
    }
    if (has_id && !valid_id(id)) {
        invalid(out, "\"id\" must be a string or an integer%s",
                json_is_null(id) ? " (MCP forbids null ids)" : "");
        return;
    }
    if (!method) {
        const json_t *result = json_object_get(msg, "result");
        const json_t *error = json_object_get(msg, "error");
        if (has_id && (result != NULL) != (error != NULL)) {
            out->kind = MN_RPC_RESPONSE;
            return;
        }
        invalid(out, "a message needs a \"method\" (request or notification) or an \"id\" "
                     "with \"result\" or \"error\" (response)");
        return;
    }
    if (!json_is_string(method) || json_string_length(method) == 0) {
        invalid(out, "\"method\" must be a non-empty string");
        return;
    }
    if (params && !json_is_object(params)) {
        invalid(out, "\"params\" must be an object");
        return;
    }
    out->kind = has_id ? MN_RPC_REQUEST : MN_RPC_NOTIFICATION;
    out->method = json_string_value(method);
    out->params = params;
}

static json_t *envelope(const json_t *id)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set_new(m, "id", id ? json_deep_copy(id) : json_null());
    return m;
}

json_t *mn_rpc_result(const json_t *id, json_t *result)
{
    json_t *m = envelope(id);
    json_object_set_new(m, "result", result ? result : json_object());
    return m;
}

json_t *mn_rpc_error(const json_t *id, int code, const char *fmt, ...)
{
    json_t *m = envelope(id);
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    /* a message quoting input may hold bytes that are not UTF-8: never drop the reply for it */
    json_t *msg = json_string(b.ptr);
    if (!msg)
        msg = json_string("invalid request (the error message was not valid UTF-8)");
    json_object_set_new(m, "error", json_pack("{s:i,s:o}", "code", code, "message", msg));
    mn_buf_release(&b);
    return m;
}

json_t *mn_rpc_notification(const char *method, json_t *params)
{
    json_t *m = json_object();
    json_object_set_new(m, "jsonrpc", json_string("2.0"));
    json_object_set_new(m, "method", json_string(method));
    if (params)
        json_object_set_new(m, "params", params);
    return m;
}

char *mn_rpc_dump(const json_t *msg)
{
    return json_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY);
}

char *mn_rpc_id_text(const json_t *id)
{
    if (!valid_id(id))
        return NULL;
    return json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
}
