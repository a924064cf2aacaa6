/*
 * server.c - the MCP dispatch: one message in, the reply out (mcp.h).
 *
 * mn_mcp_handle() parses the message (jsonrpc.c), sorts it, and answers:
 *
 *   initialize                 negotiates the version (ours is 2025-11-25;
 *                              2025-06-18, 2025-03-26 and 2024-11-05 when
 *                              asked; anything else gets ours), states the
 *                              capabilities, serverInfo and instructions
 *   ping                       {} (also before initialize)
 *   tools/list, tools/call     tools.c
 *   resources/..., prompts/... resources.c, prompts.c (mcp_internal.h)
 *   logging/setLevel           the session's level for notifications/message
 *   notifications/initialized  noted; other notifications are ignored
 *   notifications/cancelled    the request's reply is dropped (see below)
 *
 * Error codes: parse error -32700 (id null), invalid request -32600
 * (also: over MN_MCP_MAX_MESSAGE, a batch outside 2025-03-26, a request
 * before initialize), unknown method -32601, bad params and unknown tool
 * -32602, resource not found -32002, a failure inside mnemo -32603. A
 * failing tool is not a protocol error: tools.c returns isError results.
 *
 * Cancellation: a request runs to its end (an operation cannot be
 * interrupted halfway through a transaction), but when a cancel for it
 * arrives meanwhile (mn_mcp_session_cancel, from another thread) its reply
 * is dropped; a cancel for a request not yet started is remembered (a few,
 * the newest) so that request is skipped when it comes.
 *
 * Logging: notes an operation returns (its "notes" array: no embedder, the
 * index was refreshed...) are sent as notifications/message at level info
 * when the client asked for info or below with logging/setLevel; until it
 * asks, only warning and above would be sent.
 */
#include "common.h"
#include <pthread.h>

#include "mcp/jsonrpc.h"
#include "mcp/mcp.h"
#include "mcp/mcp_internal.h"
#include "mcp/tools.h"
#include "util/util.h"

#define LATEST_VERSION "2025-11-25"
#define CANCEL_RING    32

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/* RFC 5424 severities, as MCP names them, lowest first. */
static const char *const levels[] = {"debug", "info",     "notice", "warning",
                                     "error", "critical", "alert",  "emergency"};
#define LEVEL_INFO    1
#define LEVEL_WARNING 3

static const char instructions[] =
    "mnemo is this project's long-term memory: facts, decisions, gotchas and conventions the "
    "team and earlier sessions learned, plus an index of the code. Call `context` with your task "
    "before you start working on it. When you solve a bug, make a decision or find a trap, call "
    "`save` with a structured context so the next session knows. Rate what helped with "
    "`feedback` (the `served` id of the answer).";

struct mn_mcp_server {
    char *transport;
    mn_mcp_tool *tools;
    size_t ntools;
};

struct mn_mcp_session {
    mn_mcp_server *srv;
    mn_mcp_notify_fn notify;
    void *notify_arg;
    char version[16]; /* "" until initialize succeeds */
    bool client_ready;
    int level; /* index into levels */

    pthread_mutex_t lock; /* guards what follows: cancel comes from other threads */
    char *running;        /* id text of the request being handled */
    bool running_cancelled;
    char *cancelled[CANCEL_RING]; /* cancels for requests not started yet */
    size_t next_cancel;
};

bool mn_mcp_version_supported(const char *version)
{
    for (size_t i = 0; version && i < MN_ARRAY_SIZE(versions); i++)
        if (!strcmp(version, versions[i]))
            return true;
    return false;
}

/* ---- server and session ---- */

int mn_mcp_server_new(mn_mcp_server **out, mn_ctx *ctx, const mn_mcp_options *opts)
{
    mn_mcp_server *srv = mn_calloc(1, sizeof(*srv));
    int rc;
    *out = NULL;
    srv->transport = mn_strdup(opts && opts->transport ? opts->transport : "stdio");
    if ((rc = mn_mcp_tools_build(&srv->tools, &srv->ntools, ctx)) != 0) {
        mn_mcp_server_free(srv);
        return rc;
    }
    *out = srv;
    return 0;
}

void mn_mcp_server_free(mn_mcp_server *srv)
{
    if (!srv)
        return;
    mn_mcp_tools_free(srv->tools, srv->ntools);
    free(srv->transport);
    free(srv);
}

int mn_mcp_session_new(mn_mcp_session **out, mn_mcp_server *srv, mn_mcp_notify_fn notify,
                       void *notify_arg)
{
    mn_mcp_session *s = mn_calloc(1, sizeof(*s));
    s->srv = srv;
    s->notify = notify;
    s->notify_arg = notify_arg;
    s->level = LEVEL_WARNING;
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return 0;
}

void mn_mcp_session_free(mn_mcp_session *s)
{
    if (!s)
        return;
    free(s->running);
    for (size_t i = 0; i < CANCEL_RING; i++)
        free(s->cancelled[i]);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const char *mn_mcp_session_version(const mn_mcp_session *s)
{
    return s->version[0] ? s->version : NULL;
}

/* ---- cancellation ---- */

void mn_mcp_session_cancel(mn_mcp_session *s, const char *id_json)
{
    if (!s || !id_json)
        return;
    pthread_mutex_lock(&s->lock);
    if (s->running && !strcmp(s->running, id_json)) {
        s->running_cancelled = true;
    } else {
        bool known = false;
        for (size_t i = 0; i < CANCEL_RING && !known; i++)
            known = s->cancelled[i] && !strcmp(s->cancelled[i], id_json);
        if (!known) {
            free(s->cancelled[s->next_cancel]);
            s->cancelled[s->next_cancel] = mn_strdup(id_json);
            s->next_cancel = (s->next_cancel + 1) % CANCEL_RING;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* Start a request: false when it was cancelled before it started. */
static bool request_begin(mn_mcp_session *s, const char *id)
{
    bool go = true;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < CANCEL_RING; i++)
        if (s->cancelled[i] && !strcmp(s->cancelled[i], id)) {
            free(s->cancelled[i]);
            s->cancelled[i] = NULL;
            go = false;
        }
    if (go) {
        free(s->running);
        s->running = mn_strdup(id);
        s->running_cancelled = false;
    }
    pthread_mutex_unlock(&s->lock);
    return go;
}

/* End a request: true when its reply must be dropped. */
static bool request_end(mn_mcp_session *s)
{
    bool drop;
    pthread_mutex_lock(&s->lock);
    drop = s->running_cancelled;
    free(s->running);
    s->running = NULL;
    s->running_cancelled = false;
    pthread_mutex_unlock(&s->lock);
    return drop;
}

bool mn_mcp_cancel_target(const char *msg, size_t len, char **id_json)
{
    char reason[160];
    mn_rpc_msg m;
    json_t *v;
    *id_json = NULL;
    if (len > MN_MCP_MAX_MESSAGE || !(v = mn_rpc_parse(msg, len, reason, sizeof(reason))))
        return false;
    mn_rpc_classify(&m, v);
    if (m.kind == MN_RPC_NOTIFICATION && !strcmp(m.method, "notifications/cancelled"))
        *id_json = mn_rpc_id_text(json_object_get(m.params, "requestId"));
    json_decref(v);
    return *id_json != NULL;
}

/* ---- logging ---- */

static void notify_log(mn_mcp_session *s, int level, const char *logger, const char *text)
{
    if (!s->notify || level < s->level)
        return;
    json_t *data = json_string(text);
    if (!data)
        return;
    json_t *n = mn_rpc_notification(
        "notifications/message",
        json_pack("{s:s,s:s,s:o}", "level", levels[level], "logger", logger, "data", data));
    char *text_json = mn_rpc_dump(n);
    if (text_json)
        s->notify(s->notify_arg, text_json, strlen(text_json));
    free(text_json);
    json_decref(n);
}

/* ---- methods ---- */

typedef struct {
    json_t *result; /* success */
    int code;       /* failure: JSON-RPC error code ... */
    mn_buf message; /* ... and message */
} answer;

static void fail(answer *a, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(answer *a, int code, const char *fmt, ...)
{
    va_list ap;
    a->code = code;
    mn_buf_clear(&a->message);
    va_start(ap, fmt);
    mn_buf_vprintf(&a->message, fmt, ap);
    va_end(ap);
}

static void initialize(mn_mcp_session *s, const json_t *params, answer *a, mn_mcp_info *info)
{
    const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
    const char *v;
    if (s->version[0]) {
        fail(a, MN_RPC_INVALID_REQUEST, "the session is initialized already");
        return;
    }
    if (!asked) {
        fail(a, MN_RPC_INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
        return;
    }
    if (json_object_get(params, "capabilities") &&
        !json_is_object(json_object_get(params, "capabilities"))) {
        fail(a, MN_RPC_INVALID_PARAMS, "initialize: params.capabilities must be an object");
        return;
    }
    /* the spec: a version we do not speak is answered with the one we prefer */
    v = mn_mcp_version_supported(asked) ? asked : LATEST_VERSION;
    snprintf(s->version, sizeof(s->version), "%s", v);
    json_t *caps =
        json_pack("{s:{s:b},s:{s:b,s:b},s:{s:b},s:{}}", "tools", "listChanged", 0, "resources",
                  "subscribe", 0, "listChanged", 0, "prompts", "listChanged", 0, "logging");
    json_t *info_obj =
        json_pack("{s:s,s:s,s:s,s:s}", "name", "mnemo", "title", "mnemo", "version", MNEMO_VERSION,
                  "description",
                  "The long-term memory of a software project: facts, decisions, gotchas and "
                  "conventions, and an index of its code.");
    a->result = json_pack("{s:s,s:o,s:o}", "protocolVersion", v, "capabilities", caps, "serverInfo",
                          info_obj);
    if (strcmp(v, "2025-03-26") >= 0)
        json_object_set_new(a->result, "instructions", json_string(instructions));
    if (info)
        info->initialized = true;
}

static const mn_mcp_tool *find_tool(const mn_mcp_server *srv, const char *name)
{
    for (size_t i = 0; i < srv->ntools; i++)
        if (!strcmp(srv->tools[i].op->name, name))
            return &srv->tools[i];
    return NULL;
}

static void tools_call(mn_mcp_session *s, mn_ctx *ctx, const json_t *params, answer *a,
                       mn_mcp_info *info)
{
    const json_t *name = json_object_get(params, "name");
    const json_t *args = json_object_get(params, "arguments");
    const mn_mcp_tool *tool;
    json_t *output = NULL;
    if (!json_is_string(name)) {
        fail(a, MN_RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
        return;
    }
    if (args && !json_is_object(args) && !json_is_null(args)) {
        fail(a, MN_RPC_INVALID_PARAMS, "tools/call: params.arguments must be an object");
        return;
    }
    if (!(tool = find_tool(s->srv, json_string_value(name)))) {
        mn_buf names = MN_BUF_INIT;
        for (size_t i = 0; i < s->srv->ntools; i++)
            mn_buf_printf(&names, "%s%s", i ? ", " : "", s->srv->tools[i].op->name);
        fail(a, MN_RPC_INVALID_PARAMS, "unknown tool '%.60s' (tools: %s)", json_string_value(name),
             names.len ? names.ptr : "none");
        mn_buf_release(&names);
        return;
    }
    if (info && !(tool->op->flags & MN_OP_READONLY))
        info->may_have_written = true;
    mn_error_clear();
    a->result =
        mn_mcp_tool_call(tool, ctx, json_is_object(args) ? args : NULL, s->version, &output);
    /* the role check of mn_api_call (src/api/access.c) refused it: HTTP answers 403 */
    if (info && mn_error_last_code() == MN_EDENIED)
        info->denied = true;
    size_t i;
    json_t *note;
    json_array_foreach(json_object_get(output, "notes"), i, note) if (json_is_string(note))
        notify_log(s, LEVEL_INFO, "mnemo", json_string_value(note));
    json_decref(output);
}

static void set_level(mn_mcp_session *s, const json_t *params, answer *a)
{
    const char *level = json_string_value(json_object_get(params, "level"));
    for (size_t i = 0; level && i < MN_ARRAY_SIZE(levels); i++)
        if (!strcmp(level, levels[i])) {
            s->level = (int)i;
            a->result = json_object();
            return;
        }
    fail(a, MN_RPC_INVALID_PARAMS,
         "logging/setLevel needs params.level: debug, info, notice, warning, error, critical, "
         "alert or emergency");
}

typedef int (*internal_fn)(mn_ctx *ctx, const json_t *params, json_t **result);

static void call_internal(internal_fn fn, bool resource, mn_ctx *ctx, const json_t *params,
                          answer *a)
{
    json_t *result = NULL;
    int rc;
    mn_error_clear();
    rc = fn(ctx, params, &result);
    if (rc == 0 && json_is_object(result)) {
        a->result = result;
        return;
    }
    json_decref(result);
    const char *msg = *mn_error_last() ? mn_error_last() : mn_error_name(rc);
    if (rc == 0)
        fail(a, MN_RPC_INTERNAL_ERROR, "internal error: no result (a bug in mnemo)");
    else if (rc == MN_EINVAL)
        fail(a, MN_RPC_INVALID_PARAMS, "%s", msg);
    else if (rc == MN_ENOTFOUND)
        fail(a, resource ? MN_RPC_RESOURCE_NOT_FOUND : MN_RPC_INVALID_PARAMS, "%s", msg);
    else
        fail(a, MN_RPC_INTERNAL_ERROR, "%s", msg);
}

static void dispatch(mn_mcp_session *s, mn_ctx *ctx, const char *method, const json_t *params,
                     bool in_batch, answer *a, mn_mcp_info *info)
{
    if (!strcmp(method, "initialize")) {
        if (in_batch)
            fail(a, MN_RPC_INVALID_REQUEST, "initialize cannot be part of a batch");
        else
            initialize(s, params, a, info);
        return;
    }
    if (!strcmp(method, "ping")) {
        a->result = json_object();
        return;
    }
    if (!s->version[0]) {
        fail(a, MN_RPC_INVALID_REQUEST,
             "the session is not initialized: send initialize first (method '%.60s')", method);
        return;
    }
    if (!strcmp(method, "tools/list")) {
        if (json_object_get(params, "cursor"))
            fail(a, MN_RPC_INVALID_PARAMS, "tools/list: unknown cursor (the list has one page)");
        else
            a->result = mn_mcp_tools_list(s->srv->tools, s->srv->ntools, s->version, ctx);
    } else if (!strcmp(method, "tools/call")) {
        tools_call(s, ctx, params, a, info);
    } else if (!strcmp(method, "logging/setLevel")) {
        set_level(s, params, a);
    } else if (!strcmp(method, "resources/list")) {
        call_internal(mn_mcp_resources_list, true, ctx, params, a);
    } else if (!strcmp(method, "resources/templates/list")) {
        call_internal(mn_mcp_resource_templates_list, true, ctx, params, a);
    } else if (!strcmp(method, "resources/read")) {
        call_internal(mn_mcp_resources_read, true, ctx, params, a);
    } else if (!strcmp(method, "prompts/list")) {
        call_internal(mn_mcp_prompts_list, false, ctx, params, a);
    } else if (!strcmp(method, "prompts/get")) {
        call_internal(mn_mcp_prompts_get, false, ctx, params, a);
    } else {
        fail(a, MN_RPC_METHOD_NOT_FOUND, "method '%.80s' not found", method);
    }
}

static void notification(mn_mcp_session *s, const char *method, const json_t *params)
{
    if (!strcmp(method, "notifications/initialized")) {
        s->client_ready = true;
    } else if (!strcmp(method, "notifications/cancelled")) {
        char *id = mn_rpc_id_text(json_object_get(params, "requestId"));
        mn_mcp_session_cancel(s, id);
        free(id);
    }
    /* others (progress, roots/list_changed...) need nothing from us */
}

/* One message object: *reply is the response or NULL. */
static void handle_one(mn_mcp_session *s, mn_ctx *ctx, const json_t *msg, bool in_batch,
                       json_t **reply, mn_mcp_info *info)
{
    mn_rpc_msg m;
    answer a = {NULL, 0, MN_BUF_INIT};
    char *id = NULL;

    *reply = NULL;
    mn_rpc_classify(&m, msg);
    switch (m.kind) {
    case MN_RPC_INVALID:
        if (info)
            info->had_requests = true;
        *reply = mn_rpc_error(m.id, m.code, "invalid request: %s", m.reason);
        return;
    case MN_RPC_RESPONSE: /* we send no requests, so there is nothing to match it with */
        return;
    case MN_RPC_NOTIFICATION:
        notification(s, m.method, m.params);
        return;
    case MN_RPC_REQUEST:
        break;
    }
    if (info)
        info->had_requests = true;
    id = mn_rpc_id_text(m.id);
    if (!request_begin(s, id)) {
        free(id);
        return;
    }
    dispatch(s, ctx, m.method, m.params, in_batch, &a, info);
    if (!request_end(s)) {
        if (a.result) {
            *reply = mn_rpc_result(m.id, a.result);
            a.result = NULL;
        } else {
            *reply = mn_rpc_error(m.id, a.code, "%s", a.message.ptr ? a.message.ptr : "error");
        }
    }
    json_decref(a.result);
    mn_buf_release(&a.message);
    free(id);
}

int mn_mcp_handle(mn_mcp_session *s, mn_ctx *ctx, const char *msg, size_t len, char **reply,
                  mn_mcp_info *info)
{
    char reason[160];
    json_t *v, *out = NULL;

    *reply = NULL;
    if (info)
        memset(info, 0, sizeof(*info));
    if (len > MN_MCP_MAX_MESSAGE) {
        if (info)
            info->had_requests = true;
        out = mn_rpc_error(NULL, MN_RPC_INVALID_REQUEST,
                           "invalid request: the message has %zu bytes, more than the limit of %u",
                           len, MN_MCP_MAX_MESSAGE);
    } else if (!(v = mn_rpc_parse(msg, len, reason, sizeof(reason)))) {
        if (info)
            info->had_requests = true;
        out = mn_rpc_error(NULL, MN_RPC_PARSE_ERROR, "parse error: %s", reason);
    } else if (json_is_array(v)) {
        /* batches exist in 2025-03-26 only (added then, removed in 2025-06-18) */
        if (strcmp(s->version, "2025-03-26") != 0) {
            if (info)
                info->had_requests = true;
            out = mn_rpc_error(NULL, MN_RPC_INVALID_REQUEST,
                               "invalid request: JSON-RPC batches are not supported in protocol "
                               "version %s; send one message at a time",
                               s->version[0] ? s->version : "(not initialized)");
        } else if (json_array_size(v) == 0) {
            if (info)
                info->had_requests = true;
            out = mn_rpc_error(NULL, MN_RPC_INVALID_REQUEST, "invalid request: empty batch");
        } else {
            size_t i;
            json_t *item;
            out = json_array();
            json_array_foreach(v, i, item)
            {
                json_t *r = NULL;
                handle_one(s, ctx, item, true, &r, info);
                if (r)
                    json_array_append_new(out, r);
            }
            if (json_array_size(out) == 0) {
                json_decref(out);
                out = NULL;
            }
        }
        json_decref(v);
    } else {
        handle_one(s, ctx, v, false, &out, info);
        json_decref(v);
    }
    if (out) {
        *reply = mn_rpc_dump(out);
        json_decref(out);
        if (!*reply)
            return mn_error_set(MN_ENOMEM, "out of memory writing a reply");
    }
    return 0;
}
