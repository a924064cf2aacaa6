/*
 * test_server.c - the MCP server through mn_mcp_handle, on a real store,
 * and the stdio transport on real pipes.
 *
 * The lifecycle (version negotiation, requests before initialize, a second
 * initialize), the tool list per protocol version (every schema valid and
 * free of the CLI's x- keywords, annotations from the op flags), tool
 * calls (each default tool with valid arguments: structuredContent matches
 * its outputSchema and the text content; invalid arguments and failures
 * are isError results naming the field), the JSON-RPC errors with their
 * codes, batches (2025-03-26 only), logging/setLevel and the
 * notifications/message it lets through, cancellation (queued and
 * running), config mcp.tools, and stdio: order, an oversize line, a cancel
 * of a queued request, the end of input.
 */
#include "common.h"
#include <pthread.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/mcp.h"
#include "mcp/stdio.h"
#include "mnemo/api.h"
#include "util/schema.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

static char tmp[64];
static int db_seq;

/* A store of its own (db_seq), opened as MCP opens it; cli: as the mnemo command does. */
static mn_ctx *open_ctx_as(bool cli, bool again)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/db%d/mnemo.db", tmp, again ? db_seq : ++db_seq);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = p.ptr;
    o.start_dir = tmp; /* no repository around: context must not index the one we run in */
    o.actor = cli ? "cli" : "mcp";
    o.front_end = cli ? MN_FRONT_LOCAL_CLI : MN_FRONT_RELAYED;
    mn_ctx *ctx = NULL;
    if (mn_ctx_open(&ctx, &o) != 0)
        fprintf(stderr, "cannot open %s: %s\n", p.ptr, mn_error_last());
    mn_buf_release(&p);
    return ctx;
}

static mn_ctx *open_ctx(void)
{
    return open_ctx_as(false, false);
}

/* What the session's notify callback received, one message per entry. */
typedef struct {
    json_t *messages;
    mn_mcp_session *cancel_in; /* when set: cancel cancel_id from inside the notification */
    const char *cancel_id;
} sink;

static void on_notify(void *arg, const char *json, size_t len)
{
    sink *k = arg;
    json_error_t err;
    json_t *v = json_loadb(json, len, 0, &err);
    CHECK(v != NULL);
    if (v)
        json_array_append_new(k->messages, v);
    if (k->cancel_in)
        mn_mcp_session_cancel(k->cancel_in, k->cancel_id);
}

typedef struct {
    mn_ctx *ctx;
    mn_mcp_server *srv;
    mn_mcp_session *s;
    sink notes;
} fixture;

static bool fx_open(fixture *f)
{
    memset(f, 0, sizeof(*f));
    f->notes.messages = json_array();
    if (!(f->ctx = open_ctx()))
        return false;
    mn_mcp_options o = {"test"};
    if (mn_mcp_server_new(&f->srv, f->ctx, &o) != 0) {
        fprintf(stderr, "server: %s\n", mn_error_last());
        return false;
    }
    return mn_mcp_session_new(&f->s, f->srv, on_notify, &f->notes) == 0;
}

static void fx_close(fixture *f)
{
    mn_mcp_session_free(f->s);
    mn_mcp_server_free(f->srv);
    mn_ctx_free(f->ctx);
    json_decref(f->notes.messages);
}

/* Send text; the parsed reply (new reference) or NULL when none was due. */
static json_t *send_raw(fixture *f, const char *text, size_t len)
{
    char *reply = NULL;
    json_error_t err;
    CHECK_OK(mn_mcp_handle(f->s, f->ctx, text, len, &reply, NULL));
    if (!reply)
        return NULL;
    json_t *v = json_loads(reply, JSON_DECODE_ANY, &err);
    if (!v)
        fprintf(stderr, "reply is not JSON: %s\n", reply);
    CHECK(v != NULL);
    free(reply);
    return v;
}

/* Send a message written with ' for " (test_json.h). */
static json_t *send(fixture *f, const char *msg)
{
    mn_buf b = MN_BUF_INIT;
    for (const char *p = msg; *p; p++)
        mn_buf_putc(&b, *p == '\'' ? '"' : *p);
    json_t *r = send_raw(f, b.ptr, b.len);
    mn_buf_release(&b);
    return r;
}

static json_t *request(fixture *f, int id, const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s,s:i,s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params)
        json_object_set_new(m, "params", params);
    char *text = json_dumps(m, JSON_COMPACT);
    json_t *r = send_raw(f, text, strlen(text));
    free(text);
    json_decref(m);
    return r;
}

static int error_code(const json_t *reply)
{
    return (int)json_integer_value(json_object_get(json_object_get(reply, "error"), "code"));
}

static const char *error_message(const json_t *reply)
{
    const char *m = json_string_value(json_object_get(json_object_get(reply, "error"), "message"));
    return m ? m : "";
}

static const json_t *result(const json_t *reply)
{
    const json_t *r = json_object_get(reply, "result");
    if (!r) {
        char *s = json_dumps(reply, JSON_COMPACT | JSON_ENCODE_ANY);
        fprintf(stderr, "  no result: %s\n", s ? s : "(null)");
        free(s);
    }
    return r;
}

static bool initialize(fixture *f, const char *version)
{
    json_t *r = request(f, 0, "initialize",
                        json_pack("{s:s,s:{},s:{s:s,s:s}}", "protocolVersion", version,
                                  "capabilities", "clientInfo", "name", "test", "version", "1"));
    bool ok = result(r) != NULL;
    json_decref(r);
    json_decref(send(f, "{'jsonrpc':'2.0','method':'notifications/initialized'}"));
    return ok;
}

static json_t *call_tool(fixture *f, int id, const char *name, json_t *args)
{
    json_t *params = json_pack("{s:s}", "name", name);
    if (args)
        json_object_set_new(params, "arguments", args);
    return request(f, id, "tools/call", params);
}

static const json_t *tool_def(const json_t *list_reply, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(
        json_object_get(result(list_reply), "tools"), i,
        t) if (!strcmp(json_string_value(json_object_get(t, "name")), name)) return t;
    return NULL;
}

/* No key starting with x- anywhere in v. */
static bool no_x_keys(const json_t *v)
{
    const char *key;
    json_t *sub;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, sub)
        {
            if (!strncmp(key, "x-", 2) || !no_x_keys(sub))
                return false;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, sub) if (!no_x_keys(sub)) return false;
    }
    return true;
}

/* ---- tests ---- */

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-mcp-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    unsetenv("MNEMO_NOW_MS");
    setenv("USER", "tester", 1);
}

static void test_lifecycle(void)
{
    fixture f;
    json_t *r;
    REQUIRE(fx_open(&f));
    CHECK(mn_mcp_session_version(f.s) == NULL);

    /* before initialize: ping works, other requests are refused */
    r = request(&f, 1, "ping", NULL);
    CHECK(json_is_object(result(r)) && json_object_size(result(r)) == 0);
    json_decref(r);
    r = request(&f, 2, "tools/list", NULL);
    CHECK(error_code(r) == -32600);
    CHECK(strstr(error_message(r), "initialize") != NULL);
    json_decref(r);

    /* initialize needs a protocolVersion */
    r = request(&f, 3, "initialize", json_pack("{s:{}}", "capabilities"));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    CHECK(mn_mcp_session_version(f.s) == NULL);

    mn_mcp_info info;
    char *text = NULL;
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\",\"params\":{"
                       "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
                       "\"name\":\"t\",\"version\":\"1\"}}}";
    CHECK_OK(mn_mcp_handle(f.s, f.ctx, init, strlen(init), &text, &info));
    CHECK(info.initialized && info.had_requests);
    r = json_loads(text, 0, NULL);
    free(text);
    const json_t *res = result(r);
    CHECK_STR(json_string_value(json_object_get(r, "id")), "i");
    CHECK_STR(json_string_value(json_object_get(res, "protocolVersion")), "2025-11-25");
    CHECK_STR(json_string_value(json_object_get(json_object_get(res, "serverInfo"), "name")),
              "mnemo");
    CHECK_STR(json_string_value(json_object_get(json_object_get(res, "serverInfo"), "version")),
              MNEMO_VERSION);
    const json_t *caps = json_object_get(res, "capabilities");
    CHECK(json_is_false(json_object_get(json_object_get(caps, "tools"), "listChanged")));
    CHECK(json_is_object(json_object_get(caps, "resources")));
    CHECK(json_is_object(json_object_get(caps, "prompts")));
    CHECK(json_is_object(json_object_get(caps, "logging")));
    CHECK(strstr(json_string_value(json_object_get(res, "instructions")), "context") != NULL);
    json_decref(r);
    CHECK_STR(mn_mcp_session_version(f.s), "2025-11-25");

    /* once only */
    r = request(&f, 4, "initialize", json_pack("{s:s}", "protocolVersion", "2025-11-25"));
    CHECK(error_code(r) == -32600);
    json_decref(r);
    /* notifications get no reply */
    text = (char *)"x";
    const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    CHECK_OK(mn_mcp_handle(f.s, f.ctx, note, strlen(note), &text, &info));
    CHECK(text == NULL && !info.had_requests && !info.initialized);
    fx_close(&f);
}

static void test_versions(void)
{
    static const struct {
        const char *asked, *got;
    } cases[] = {{"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"},
                 {"2025-03-26", "2025-03-26"}, {"2024-11-05", "2024-11-05"},
                 {"2099-01-01", "2025-11-25"}, {"1.0", "2025-11-25"}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        fixture f;
        REQUIRE(fx_open(&f));
        json_t *r =
            request(&f, 1, "initialize",
                    json_pack("{s:s,s:{}}", "protocolVersion", cases[i].asked, "capabilities"));
        CHECK_STR(json_string_value(json_object_get(result(r), "protocolVersion")), cases[i].got);
        CHECK_STR(mn_mcp_session_version(f.s), cases[i].got);
        json_decref(r);

        /* the tool list has what the negotiated revision defines */
        r = request(&f, 2, "tools/list", NULL);
        const json_t *save = tool_def(r, "save");
        REQUIRE(save != NULL);
        bool structured = strcmp(cases[i].got, "2025-06-18") >= 0;
        bool annotated = strcmp(cases[i].got, "2025-03-26") >= 0;
        CHECK((json_object_get(save, "outputSchema") != NULL) == structured);
        CHECK((json_object_get(save, "title") != NULL) == structured);
        CHECK((json_object_get(save, "annotations") != NULL) == annotated);
        json_decref(r);

        /* structuredContent only where outputSchema exists */
        r = call_tool(&f, 3, "search", json_pack("{s:s}", "query", "anything"));
        CHECK((json_object_get(result(r), "structuredContent") != NULL) == structured);
        json_decref(r);
        CHECK(mn_mcp_version_supported(cases[i].got));
        fx_close(&f);
    }
    CHECK(!mn_mcp_version_supported("2099-01-01"));
    CHECK(!mn_mcp_version_supported(NULL));
}

static void test_tools_list(void)
{
    fixture f;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));
    json_t *r = request(&f, 1, "tools/list", NULL);
    const json_t *tools = json_object_get(result(r), "tools");
    static const char *const expected[] = {"save",     "forget",  "search", "search_code",
                                           "feedback", "context", "recall"};
    CHECK(json_array_size(tools) == MN_ARRAY_SIZE(expected));
    for (size_t i = 0; i < MN_ARRAY_SIZE(expected); i++)
        CHECK(tool_def(r, expected[i]) != NULL);
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        const mn_op *op = mn_api_find(name);
        REQUIRE(op != NULL);
        const char *desc = json_string_value(json_object_get(t, "description"));
        CHECK(desc && strstr(desc, op->summary) == desc && strstr(desc, op->description));
        const json_t *in = json_object_get(t, "inputSchema");
        const json_t *out = json_object_get(t, "outputSchema");
        CHECK_STR(json_string_value(json_object_get(in, "type")), "object");
        CHECK_STR(json_string_value(json_object_get(out, "type")), "object");
        CHECK(mn_schema_check(in) == 0 && mn_schema_check(out) == 0);
        CHECK(no_x_keys(in) && no_x_keys(out));
        const json_t *ann = json_object_get(t, "annotations");
        CHECK(json_is_true(json_object_get(ann, "readOnlyHint")) ==
              ((op->flags & MN_OP_READONLY) != 0));
        CHECK(json_is_true(json_object_get(ann, "destructiveHint")) ==
              ((op->flags & MN_OP_DESTRUCTIVE) != 0));
        CHECK(json_is_true(json_object_get(ann, "idempotentHint")) ==
              ((op->flags & MN_OP_IDEMPOTENT) != 0));
        CHECK(json_is_false(json_object_get(ann, "openWorldHint")));
    }
    CHECK(json_is_true(
        json_object_get(json_object_get(tool_def(r, "forget"), "annotations"), "destructiveHint")));
    CHECK(json_is_true(
        json_object_get(json_object_get(tool_def(r, "search"), "annotations"), "readOnlyHint")));
    CHECK_STR(json_string_value(json_object_get(tool_def(r, "search_code"), "title")),
              "Search code");
    json_decref(r);

    /* one page: a cursor we never gave is refused */
    r = request(&f, 2, "tools/list", json_pack("{s:s}", "cursor", "abc"));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    fx_close(&f);
}

/* A successful tool result: not isError, structuredContent matches the outputSchema and the text.
 */
static const json_t *check_ok_result(const json_t *r, const json_t *list, const char *name)
{
    const json_t *res = result(r);
    const json_t *sc = json_object_get(res, "structuredContent");
    const json_t *content = json_object_get(res, "content");
    const json_t *def = tool_def(list, name);
    CHECK(!json_is_true(json_object_get(res, "isError")));
    if (json_is_true(json_object_get(res, "isError")))
        fprintf(stderr, "  %s: %s\n", name,
                json_string_value(json_object_get(json_array_get(content, 0), "text")));
    CHECK(json_is_object(sc));
    CHECK(json_array_size(content) == 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(content, 0), "type")), "text");
    if (def && sc && mn_schema_validate(json_object_get(def, "outputSchema"), sc) != 0) {
        char *dump = json_dumps(sc, JSON_COMPACT);
        fprintf(stderr, "  %s: structuredContent does not match outputSchema: %s\n  %.3000s\n",
                name, mn_error_last(), dump ? dump : "");
        free(dump);
        CHECK(false);
    }
    const char *text = json_string_value(json_object_get(json_array_get(content, 0), "text"));
    if (!strcmp(name, "context")) {
        CHECK_STR(text, json_string_value(json_object_get(sc, "markdown")));
    } else if (text) {
        json_t *parsed = json_loads(text, 0, NULL);
        CHECK(parsed && json_equal(parsed, sc));
        json_decref(parsed);
    }
    return sc;
}

static const char *error_text(const json_t *r)
{
    const json_t *res = result(r);
    if (!json_is_true(json_object_get(res, "isError")))
        return "";
    const char *t = json_string_value(
        json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    return t ? t : "";
}

static void test_tools_call(void)
{
    fixture f;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));
    json_t *list = request(&f, 1, "tools/list", NULL), *r;

    r = call_tool(&f, 2, "save",
                  J("{'kind':'gotcha','title':'Cart sessions expire when delay is None',"
                    "'body':'Session.refresh treats delay=None as 0.','context':{'situation':"
                    "'checkout returned 401 after idle','error_messages':['SessionExpired: "
                    "delay=None'],'solution':'default delay to 30s','trigger_keywords':['cart',"
                    "'session','delay']},'scope':{'paths':['cart/session.py']}}"));
    const json_t *saved = check_ok_result(r, list, "save");
    char id[MN_ID_LEN + 1] = "";
    snprintf(id, sizeof(id), "%s", json_string_value(json_object_get(saved, "id")));
    CHECK(strlen(id) == MN_ID_LEN);
    json_decref(r);

    r = call_tool(&f, 3, "search", json_pack("{s:s}", "query", "cart session delay"));
    const json_t *sc = check_ok_result(r, list, "search");
    CHECK(json_array_size(json_object_get(sc, "items")) >= 1);
    CHECK_STR(
        json_string_value(json_object_get(json_array_get(json_object_get(sc, "items"), 0), "id")),
        id);
    json_int_t served = json_integer_value(json_object_get(sc, "served"));
    json_decref(r);

    r = call_tool(&f, 4, "search_code", json_pack("{s:s}", "query", "cart session delay"));
    sc = check_ok_result(r, list, "search_code");
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(sc, "items"), i, item)
        CHECK(strcmp(json_string_value(json_object_get(item, "type")), "memory") != 0);
    json_decref(r);
    /* search_code cannot be asked for memories */
    r = call_tool(&f, 5, "search_code", J("{'query':'cart','kinds':['memory']}"));
    CHECK(strstr(error_text(r), "kinds") != NULL);
    json_decref(r);

    r = call_tool(&f, 6, "context", J("{'query':'checkout returns 401 after idle'}"));
    sc = check_ok_result(r, list, "context");
    CHECK(strstr(json_string_value(json_object_get(sc, "markdown")), "Cart sessions") != NULL);
    json_decref(r);

    r = call_tool(&f, 7, "recall", J("{'query':'cart session delay'}"));
    check_ok_result(r, list, "recall");
    json_decref(r);

    r = call_tool(&f, 8, "feedback",
                  json_pack("{s:s,s:[s],s:I}", "signal", "used", "items", id, "served", served));
    check_ok_result(r, list, "feedback");
    json_decref(r);

    r = call_tool(&f, 9, "forget", json_pack("{s:s}", "id", id));
    sc = check_ok_result(r, list, "forget");
    json_decref(r);

    /* an MCP client is an agent: its saves say so, and the agent rule applies */
    json_t *got = NULL, *get_args = json_pack("{s:s}", "id", id);
    CHECK_OK(mn_api_call(f.ctx, "get", get_args, &got));
    CHECK_STR(json_string_value(json_object_get(
                  json_object_get(json_object_get(got, "memory"), "provenance"), "source")),
              "agent");
    json_decref(got);
    json_decref(get_args);
    r = call_tool(&f, 20, "save", J("{'kind':'fact','body':'the ledger rounds half up'}"));
    CHECK(strstr(error_text(r), "trigger_keywords") != NULL);
    json_decref(r);
    /* an MCP client is an agent whatever provenance it claims */
    r = call_tool(&f, 21, "save",
                  J("{'kind':'fact','body':'the ledger rounds half up','provenance':{'source':"
                    "'manual'}}"));
    CHECK(strstr(error_text(r), "trigger_keywords") != NULL);
    json_decref(r);

    /* invalid arguments: a result with isError that names the field */
    r = call_tool(&f, 10, "save", J("{'body':'x','colour':'red'}"));
    CHECK(strstr(error_text(r), "colour") != NULL);
    CHECK(strstr(error_text(r), "invalid arguments") != NULL);
    CHECK(json_object_get(result(r), "structuredContent") == NULL);
    json_decref(r);
    r = call_tool(&f, 11, "search", NULL); /* no arguments: query is required */
    CHECK(strstr(error_text(r), "query") != NULL);
    json_decref(r);
    r = call_tool(&f, 12, "context", J("{'query':'x','max_tokens':'many'}"));
    CHECK(strstr(error_text(r), "max_tokens") != NULL);
    json_decref(r);
    /* a failure of the op: an id that does not exist */
    r = call_tool(&f, 13, "forget", J("{'id':'01ZZZZZZZZZZZZZZZZZZZZZZZZ'}"));
    CHECK(strstr(error_text(r), "not found") != NULL);
    json_decref(r);

    /* protocol errors: unknown tool, malformed params */
    r = call_tool(&f, 14, "index", NULL); /* an op, but not a default tool */
    CHECK(error_code(r) == -32602);
    CHECK(strstr(error_message(r), "unknown tool 'index'") != NULL);
    json_decref(r);
    r = request(&f, 15, "tools/call", json_pack("{s:i}", "name", 3));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    r = request(&f, 16, "tools/call", NULL);
    CHECK(error_code(r) == -32602);
    json_decref(r);
    r = request(&f, 17, "tools/call", json_pack("{s:s,s:[]}", "name", "search", "arguments"));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    json_decref(list);
    fx_close(&f);
}

static void test_errors(void)
{
    fixture f;
    json_t *r;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));

    r = send(&f, "{'jsonrpc':'2.0','id':1,'method':'tools/lis'}");
    CHECK(error_code(r) == -32601);
    CHECK(json_integer_value(json_object_get(r, "id")) == 1);
    json_decref(r);

    r = send(&f, "{'jsonrpc':'2.0','id':2,'method'");
    CHECK(error_code(r) == -32700);
    CHECK(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    r = send_raw(&f, "", 0);
    CHECK(error_code(r) == -32700);
    json_decref(r);

    r = send(&f, "{'jsonrpc':'2.0','id':3,'method':'ping','params':[1]}");
    CHECK(error_code(r) == -32600);
    CHECK(json_integer_value(json_object_get(r, "id")) == 3);
    json_decref(r);
    r = send(&f, "{'jsonrpc':'2.0','id':null,'method':'ping'}");
    CHECK(error_code(r) == -32600);
    CHECK(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    r = send(&f, "{'id':4,'method':'ping'}");
    CHECK(error_code(r) == -32600);
    json_decref(r);
    r = send(&f, "17");
    CHECK(error_code(r) == -32600);
    json_decref(r);

    /* batches exist only in 2025-03-26 */
    r = send(&f, "[{'jsonrpc':'2.0','id':5,'method':'ping'}]");
    CHECK(error_code(r) == -32600);
    CHECK(strstr(error_message(r), "batch") != NULL);
    json_decref(r);

    /* a response from the client, and unknown notifications: nothing back */
    CHECK(send(&f, "{'jsonrpc':'2.0','id':9,'result':{}}") == NULL);
    CHECK(send(&f, "{'jsonrpc':'2.0','method':'notifications/whatever'}") == NULL);

    /* over the size limit: one error, nothing parsed */
    size_t big = MN_MCP_MAX_MESSAGE + 1;
    char *huge = mn_malloc(big);
    memset(huge, ' ', big);
    memcpy(huge, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}", 40);
    r = send_raw(&f, huge, big);
    CHECK(error_code(r) == -32600);
    CHECK(strstr(error_message(r), "limit") != NULL);
    json_decref(r);
    /* just under it is fine */
    r = send_raw(&f, huge, MN_MCP_MAX_MESSAGE);
    CHECK(json_is_object(result(r)));
    json_decref(r);
    free(huge);

    /* resources/read of a memory that does not exist: -32002 */
    r = request(&f, 7, "resources/read",
                json_pack("{s:s}", "uri", "mnemo://memory/01ZZZZZZZZZZZZZZZZZZZZZZZZ"));
    CHECK(error_code(r) == -32002);
    json_decref(r);
    r = request(&f, 8, "prompts/get", json_pack("{s:s}", "name", "no-such-prompt"));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    fx_close(&f);
}

static void test_batch(void)
{
    fixture f;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-03-26"));
    mn_mcp_info info;
    char *text = NULL;
    const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
                        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"},"
                        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{"
                        "\"protocolVersion\":\"2025-03-26\"}}]";
    CHECK_OK(mn_mcp_handle(f.s, f.ctx, batch, strlen(batch), &text, &info));
    CHECK(info.had_requests);
    json_t *r = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    REQUIRE(json_is_array(r));
    CHECK(json_array_size(r) == 3);
    CHECK(json_integer_value(json_object_get(json_array_get(r, 0), "id")) == 1);
    CHECK(json_is_object(json_object_get(json_array_get(r, 0), "result")));
    CHECK(error_code(json_array_get(r, 1)) == -32601);
    CHECK(error_code(json_array_get(r, 2)) == -32600);
    json_decref(r);

    /* only notifications: no reply at all */
    const char *notes = "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]";
    text = (char *)"x";
    CHECK_OK(mn_mcp_handle(f.s, f.ctx, notes, strlen(notes), &text, &info));
    CHECK(text == NULL && !info.had_requests);
    r = send(&f, "[]");
    CHECK(error_code(r) == -32600);
    json_decref(r);
    fx_close(&f);
}

static void test_logging(void)
{
    fixture f;
    json_t *r;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));

    r = request(&f, 1, "logging/setLevel", json_pack("{s:s}", "level", "verbose"));
    CHECK(error_code(r) == -32602);
    json_decref(r);
    r = request(&f, 2, "logging/setLevel", NULL);
    CHECK(error_code(r) == -32602);
    json_decref(r);

    /* the default level (warning) lets no info note through */
    r = call_tool(&f, 3, "search", J("{'query':'anything'}"));
    CHECK(json_array_size(
              json_object_get(json_object_get(result(r), "structuredContent"), "notes")) >= 1);
    json_decref(r);
    CHECK(json_array_size(f.notes.messages) == 0);

    r = request(&f, 4, "logging/setLevel", json_pack("{s:s}", "level", "info"));
    CHECK(json_is_object(result(r)));
    json_decref(r);
    r = call_tool(&f, 5, "search", J("{'query':'anything'}"));
    json_decref(r);
    REQUIRE(json_array_size(f.notes.messages) >= 1);
    json_t *n = json_array_get(f.notes.messages, 0);
    CHECK_STR(json_string_value(json_object_get(n, "method")), "notifications/message");
    CHECK(json_object_get(n, "id") == NULL);
    json_t *p = json_object_get(n, "params");
    CHECK_STR(json_string_value(json_object_get(p, "level")), "info");
    CHECK(strstr(json_string_value(json_object_get(p, "data")), "semantic") != NULL);

    /* above info again: nothing more */
    json_array_clear(f.notes.messages);
    r = request(&f, 6, "logging/setLevel", json_pack("{s:s}", "level", "error"));
    json_decref(r);
    r = call_tool(&f, 7, "search", J("{'query':'anything'}"));
    json_decref(r);
    CHECK(json_array_size(f.notes.messages) == 0);
    fx_close(&f);
}

static void test_cancel(void)
{
    fixture f;
    json_t *r;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));

    /* a cancel for a request not started yet: that request is skipped, the next is not */
    mn_mcp_session_cancel(f.s, "\"q1\"");
    CHECK(send(&f, "{'jsonrpc':'2.0','id':'q1','method':'ping'}") == NULL);
    r = send(&f, "{'jsonrpc':'2.0','id':'q1','method':'ping'}");
    CHECK(json_is_object(result(r)));
    json_decref(r);
    /* the notification does the same as the call */
    CHECK(send(&f, "{'jsonrpc':'2.0','method':'notifications/cancelled','params':{'requestId':5,"
                   "'reason':'user'}}") == NULL);
    CHECK(send(&f, "{'jsonrpc':'2.0','id':5,'method':'ping'}") == NULL);
    r = send(&f, "{'jsonrpc':'2.0','id':'5','method':'ping'}"); /* "5" is not 5 */
    CHECK(json_is_object(result(r)));
    json_decref(r);

    /* a cancel while the request runs (from its own log notification): the reply is dropped */
    json_decref(request(&f, 6, "logging/setLevel", json_pack("{s:s}", "level", "debug")));
    f.notes.cancel_in = f.s;
    f.notes.cancel_id = "7";
    r = call_tool(&f, 7, "search", J("{'query':'anything'}"));
    CHECK(r == NULL);
    json_decref(r);
    CHECK(json_array_size(f.notes.messages) >= 1);
    f.notes.cancel_in = NULL;
    r = call_tool(&f, 8, "search", J("{'query':'anything'}"));
    CHECK(json_is_object(result(r)));
    json_decref(r);

    /* mn_mcp_cancel_target finds the id for transports */
    char *id = NULL;
    const char *c = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                    "\"params\":{\"requestId\":\"a b\"}}";
    CHECK(mn_mcp_cancel_target(c, strlen(c), &id));
    CHECK_STR(id, "\"a b\"");
    free(id);
    c = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    CHECK(!mn_mcp_cancel_target(c, strlen(c), &id) && id == NULL);
    c = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}";
    CHECK(!mn_mcp_cancel_target(c, strlen(c), &id) && id == NULL);
    fx_close(&f);
}

static void test_config_tools(void)
{
    mn_ctx *ctx = open_ctx();
    json_t *out = NULL;
    REQUIRE(ctx != NULL);
    /* through MCP, config cannot choose the tools (src/api/config.c: cli_only) */
    json_t *all = J("{'action':'set','key':'mcp.tools','value':'all'}");
    CHECK(mn_api_call(ctx, "config", all, &out) == MN_ERROR);
    CHECK(strstr(mn_error_last(), "command line") != NULL);
    json_decref(all);
    /* the user at the command line can: the sets below go through a CLI context */
    mn_ctx *cli = open_ctx_as(true, true);
    REQUIRE(cli != NULL);
    /* a name that is no op is refused when set, and nothing changes */
    json_t *bad = J("{'action':'set','key':'mcp.tools','value':'save,nope'}");
    CHECK(mn_api_call(cli, "config", bad, &out) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "nope") != NULL);
    json_decref(bad);
    json_t *get = J("{'action':'get','key':'mcp.tools'}");
    CHECK_OK(mn_api_call(ctx, "config", get, &out));
    CHECK_STR(json_string_value(json_object_get(out, "value")), "default");
    json_decref(get);
    json_decref(out);
    out = NULL;

    size_t nops;
    mn_api_ops(&nops);
    static const struct {
        const char *value;
        size_t count;
    } cases[] = {{"search, save", 2}, {"all", 0}, {"default", 7}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        json_t *args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", "mcp.tools", "value",
                                 cases[i].value);
        CHECK_OK(mn_api_call(cli, "config", args, &out));
        json_decref(args);
        json_decref(out);
        out = NULL;
        mn_mcp_server *srv = NULL;
        mn_mcp_session *s = NULL;
        mn_mcp_options o = {"test"};
        REQUIRE_OK(mn_mcp_server_new(&srv, ctx, &o));
        REQUIRE_OK(mn_mcp_session_new(&s, srv, NULL, NULL));
        fixture f = {ctx, srv, s, {NULL, NULL, NULL}};
        REQUIRE(initialize(&f, "2025-06-18"));
        json_t *r = request(&f, 1, "tools/list", NULL);
        size_t want = cases[i].count ? cases[i].count : nops;
        CHECK(json_array_size(json_object_get(result(r), "tools")) == want);
        if (i == 0) {
            CHECK(tool_def(r, "search") && tool_def(r, "save") && !tool_def(r, "context"));
        }
        if (i == 1) {
            /* every op's output schema is an object: each has an outputSchema */
            size_t j;
            json_t *t;
            json_array_foreach(json_object_get(result(r), "tools"), j, t)
                CHECK(json_is_object(json_object_get(t, "outputSchema")));
        }
        json_decref(r);
        mn_mcp_session_free(s);
        mn_mcp_server_free(srv);
    }
    mn_ctx_free(cli);
    mn_ctx_free(ctx);
}

/* ---- stdio ---- */

typedef struct {
    int fd;
    const char *data;
    size_t len;
} writer_arg;

static void *writer(void *arg)
{
    writer_arg *w = arg;
    size_t off = 0;
    while (off < w->len) {
        ssize_t n = write(w->fd, w->data + off, w->len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

typedef struct {
    mn_mcp_server *srv;
    mn_ctx *ctx;
    int in, out, rc;
} serve_arg;

static void *serve(void *arg)
{
    serve_arg *a = arg;
    a->rc = mn_mcp_stdio_serve(a->srv, a->ctx, a->in, a->out);
    close(a->out);
    return NULL;
}

static void test_stdio(void)
{
    mn_ctx *ctx = open_ctx();
    mn_mcp_server *srv = NULL;
    mn_mcp_options o = {"stdio"};
    int in[2], out[2];
    REQUIRE(ctx != NULL);
    REQUIRE_OK(mn_mcp_server_new(&srv, ctx, &o));
    REQUIRE(pipe(in) == 0 && pipe(out) == 0);

    mn_buf input = MN_BUF_INIT;
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                        "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}\r\n");
    mn_buf_puts(&input, "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    mn_buf_puts(&input, "  \t \r\n"); /* blank lines are no messages */
    /* a line over the limit: one error, and the line after it is read normally */
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"params\":{\"x\":\"");
    for (size_t i = 0; i < MN_MCP_MAX_MESSAGE / 64 + 1; i++)
        mn_buf_puts(&input, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    mn_buf_puts(&input, "\"}}\n");
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    /* cancelled before it is handled: skipped */
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                        "\"requestId\":3}}\n");
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n");
    mn_buf_puts(&input, "not json\n");
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
                        "\"name\":\"search\",\"arguments\":{\"query\":\"x\"}}}\n");
    /* the last message may lack its newline */
    mn_buf_puts(&input, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");

    writer_arg w = {in[1], input.ptr, input.len};
    serve_arg s = {srv, ctx, in[0], out[1], -1};
    pthread_t wt, st;
    REQUIRE(pthread_create(&wt, NULL, writer, &w) == 0);
    REQUIRE(pthread_create(&st, NULL, serve, &s) == 0);
    mn_buf output = MN_BUF_INIT;
    char chunk[4096];
    ssize_t n;
    while ((n = read(out[0], chunk, sizeof(chunk))) > 0)
        mn_buf_put(&output, chunk, (size_t)n);
    pthread_join(wt, NULL);
    pthread_join(st, NULL);
    close(in[0]);
    close(out[0]);
    CHECK(s.rc == 0);

    /* every line is one JSON-RPC message; in order: 1, the size error, 2, parse error, 4, 5 */
    const char *expect_ids[] = {"1", "null", "2", "null", "4", "5"};
    size_t k = 0;
    char *save = NULL;
    for (char *l = strtok_r(output.ptr, "\n", &save); l; l = strtok_r(NULL, "\n", &save), k++) {
        json_t *v = json_loads(l, 0, NULL);
        CHECK(v != NULL);
        if (k < MN_ARRAY_SIZE(expect_ids)) {
            char *id = json_dumps(json_object_get(v, "id"), JSON_ENCODE_ANY);
            CHECK_STR(id, expect_ids[k]);
            free(id);
        }
        if (k == 1) {
            CHECK(error_code(v) == -32600);
        }
        if (k == 3) {
            CHECK(error_code(v) == -32700);
        }
        if (k == 4) {
            CHECK(
                json_is_object(json_object_get(json_object_get(v, "result"), "structuredContent")));
        }
        json_decref(v);
    }
    CHECK(k == MN_ARRAY_SIZE(expect_ids));
    mn_buf_release(&output);
    mn_buf_release(&input);
    mn_mcp_server_free(srv);
    mn_ctx_free(ctx);
}

/* A reply is one JSON-RPC response: jsonrpc 2.0, an id, a result or an error. */
static bool is_response(const json_t *r)
{
    const json_t *err = json_object_get(r, "error");
    return json_is_object(r) && json_is_string(json_object_get(r, "jsonrpc")) &&
           json_object_get(r, "id") != NULL &&
           (json_object_get(r, "result") != NULL) != (err != NULL) &&
           (!err || (json_is_integer(json_object_get(err, "code")) &&
                     json_is_string(json_object_get(err, "message"))));
}

/*
 * Mangled messages (bytes changed, cut, repeated; a fixed seed) through
 * the whole dispatch on a real store: the call never fails, every reply is
 * a well-formed response, and one is sent exactly when a request (or
 * something that is not a notification) came in. Under ASan this is a
 * small fuzzer for the dispatch behind the reader that fuzz/ covers.
 */
static void test_mangled(void)
{
    static const char *const seeds[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"search\",\"arguments\":{\"query\":\"cart session\",\"k\":3}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"save\",\"arguments\":{\"kind\":\"fact\",\"body\":\"b\",\"context\":{"
        "\"trigger_keywords\":[\"k\"]}}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":{\"level\":"
        "\"info\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":"
        "\"mnemo://overview\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{\"name\":"
        "\"bugfix\",\"arguments\":{\"task\":\"fix it\"}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
        "\"requestId\":9}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}",
    };
    fixture f;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    int replies = 0;
    REQUIRE(fx_open(&f));
    REQUIRE(initialize(&f, "2025-11-25"));
    for (int round = 0; round < 1500; round++) {
        const char *seed = seeds[round % MN_ARRAY_SIZE(seeds)];
        mn_buf m = MN_BUF_INIT;
        mn_buf_puts(&m, seed);
        for (int k = 0; k < 1 + round % 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (size_t)(x >> 8) % m.len;
            switch (x % 5) {
            case 0: /* a byte, any byte */
                m.ptr[at] = (char)(x >> 40);
                break;
            case 1: /* a structural character */
                m.ptr[at] = "{}[]\":,0-ex\\"[(x >> 40) % 13];
                break;
            case 2: /* cut */
                mn_buf_truncate(&m, at ? at : 1);
                break;
            case 3: { /* repeat a stretch */
                size_t len = (size_t)(x >> 20) % 16 + 1;
                if (at + len > m.len)
                    len = m.len - at;
                char *copy = mn_strndup(m.ptr + at, len);
                mn_buf_put(&m, copy, len);
                free(copy);
                break;
            }
            default: /* swap two bytes */
            {
                size_t b = (size_t)(x >> 30) % m.len;
                char t = m.ptr[at];
                m.ptr[at] = m.ptr[b];
                m.ptr[b] = t;
            }
            }
        }
        /* what the message is, by the reader's own rules */
        char reason[160];
        bool due = true;
        json_t *v = mn_rpc_parse(m.ptr, m.len, reason, sizeof(reason));
        if (json_is_object(v)) {
            mn_rpc_msg k;
            mn_rpc_classify(&k, v);
            due = k.kind == MN_RPC_REQUEST || k.kind == MN_RPC_INVALID;
        }
        json_decref(v);

        char *reply = NULL;
        int rc = mn_mcp_handle(f.s, f.ctx, m.ptr, m.len, &reply, NULL);
        CHECK(rc == 0);
        json_t *r = reply ? json_loads(reply, 0, NULL) : NULL;
        bool ok = reply ? is_response(r) : !due;
        /* a request whose id was cancelled earlier in the run is skipped: allowed */
        if (!ok && !reply && due)
            ok = strstr(m.ptr, "\"id\":9") != NULL;
        if (!ok)
            fprintf(stderr, "  round %d: %.300s\n  -> %.300s\n", round, m.ptr,
                    reply ? reply : "(no reply)");
        CHECK(ok);
        replies += reply != NULL;
        json_decref(r);
        free(reply);
        mn_buf_release(&m);
        if (!ok)
            break;
    }
    CHECK(replies > 1000);
    fx_close(&f);
}

/* The examples in tool descriptions are valid input: an agent copies them. */
static void test_examples(void)
{
    size_t n, found = 0;
    const mn_op *ops = mn_api_ops(&n);
    for (size_t i = 0; i < n; i++) {
        const char *ex = strstr(ops[i].description, "Example: {");
        if (!ex)
            continue;
        json_error_t err;
        json_t *v = json_loads(ex + 9, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &err);
        if (!v)
            fprintf(stderr, "  %s: example is not JSON: %s\n", ops[i].name, err.text);
        CHECK(v != NULL);
        if (v && mn_schema_validate(mn_api_input_schema(&ops[i]), v) != 0) {
            fprintf(stderr, "  %s: example does not match the input schema: %s\n", ops[i].name,
                    mn_error_last());
            CHECK(false);
        }
        json_decref(v);
        found++;
    }
    CHECK(found >= 5); /* save, search, search_code, context, recall at least */
    /* save's example shows the whole structured context */
    const char *save = strstr(mn_api_find("save")->description, "Example: ");
    REQUIRE(save != NULL);
    static const char *const fields[] = {"situation", "what_failed",      "error_messages",
                                         "solution",  "trigger_keywords", "scope"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(fields); i++)
        CHECK(strstr(save, fields[i]) != NULL);
}

static void test_cleanup(void)
{
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_lifecycle), MN_TEST(test_versions),
             MN_TEST(test_tools_list), MN_TEST(test_tools_call), MN_TEST(test_errors),
             MN_TEST(test_batch), MN_TEST(test_logging), MN_TEST(test_cancel),
             MN_TEST(test_config_tools), MN_TEST(test_stdio), MN_TEST(test_examples),
             MN_TEST(test_mangled), MN_TEST(test_cleanup))
