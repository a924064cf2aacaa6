/*
 * test_jsonrpc.c - the JSON-RPC reader and writers (src/mcp/jsonrpc.c).
 *
 * Parsing refuses what is not one JSON text (bad UTF-8, NUL, duplicate
 * keys, trailing bytes); classification sorts requests, notifications,
 * responses and invalid messages by the rules of JSON-RPC 2.0 and MCP
 * (string or number ids, never null; params an object), keeping an id that
 * can be echoed in the error. The writers produce the envelopes exactly.
 */
#include "common.h"

#include "mcp/jsonrpc.h"
#include "test.h"
#include "test_json.h"

static json_t *parse(const char *text)
{
    char reason[160];
    return mn_rpc_parse(text, strlen(text), reason, sizeof(reason));
}

static mn_rpc_kind kind_of(const char *text, char *reason_out, size_t size)
{
    mn_rpc_msg m;
    json_t *v = J(text);
    mn_rpc_classify(&m, v);
    if (reason_out)
        snprintf(reason_out, size, "%s", m.reason);
    json_decref(v);
    return m.kind;
}

static void test_parse(void)
{
    char reason[160];
    json_t *v = parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    CHECK(json_is_object(v));
    json_decref(v);
    /* arrays (batches) and scalars parse; classification deals with them */
    v = parse("[1]");
    CHECK(json_is_array(v));
    json_decref(v);

    static const char *const bad[] = {
        "",
        "{",
        "{\"a\":1}x",
        "{\"a\":1,\"a\":2}",                      /* duplicate key */
        "{\"a\":\"\\u0000\"}",                    /* NUL in a string */
        "{\"a\":\"\xff\xfe\"}",                   /* not UTF-8 */
        "{\"id\":1,\"id\":2}",                    /* two ids: which one to answer? */
        "{\"a\":123456789012345678901234567890}", /* integer overflow */
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        reason[0] = '\0';
        v = mn_rpc_parse(bad[i], strlen(bad[i]), reason, sizeof(reason));
        if (v)
            fprintf(stderr, "  parsed: %s\n", bad[i]);
        CHECK(v == NULL);
        CHECK(reason[0] != '\0');
        json_decref(v);
    }
    /* bytes after a NUL are not silently ignored */
    v = mn_rpc_parse("{}\0{}", 5, reason, sizeof(reason));
    CHECK(v == NULL);
    CHECK(mn_rpc_parse(NULL, 0, reason, sizeof(reason)) == NULL);
}

static void test_classify(void)
{
    char reason[160];
    mn_rpc_msg m;
    json_t *v = J("{'jsonrpc':'2.0','id':'a1','method':'tools/call','params':{'name':'x'}}");
    mn_rpc_classify(&m, v);
    CHECK(m.kind == MN_RPC_REQUEST);
    CHECK_STR(m.method, "tools/call");
    CHECK_STR(json_string_value(m.id), "a1");
    CHECK(json_is_object(m.params));
    json_decref(v);

    CHECK(kind_of("{'jsonrpc':'2.0','id':7,'method':'ping'}", NULL, 0) == MN_RPC_REQUEST);
    CHECK(kind_of("{'jsonrpc':'2.0','id':1.5,'method':'ping'}", NULL, 0) == MN_RPC_INVALID);
    CHECK(kind_of("{'jsonrpc':'2.0','method':'notifications/initialized'}", NULL, 0) ==
          MN_RPC_NOTIFICATION);
    CHECK(kind_of("{'jsonrpc':'2.0','id':3,'result':{}}", NULL, 0) == MN_RPC_RESPONSE);
    CHECK(kind_of("{'jsonrpc':'2.0','id':3,'error':{'code':1,'message':'x'}}", NULL, 0) ==
          MN_RPC_RESPONSE);

    static const struct {
        const char *msg, *why;
    } invalid[] = {
        {"[]", "object"},
        {"'text'", "object"},
        {"{'id':1,'method':'ping'}", "jsonrpc"},
        {"{'jsonrpc':'1.0','id':1,'method':'ping'}", "jsonrpc"},
        {"{'jsonrpc':2,'id':1,'method':'ping'}", "jsonrpc"},
        {"{'jsonrpc':'2.0','id':null,'method':'ping'}", "null"},
        {"{'jsonrpc':'2.0','id':{},'method':'ping'}", "id"},
        {"{'jsonrpc':'2.0','id':true,'method':'ping'}", "id"},
        {"{'jsonrpc':'2.0','id':1,'method':5}", "method"},
        {"{'jsonrpc':'2.0','id':1,'method':''}", "method"},
        {"{'jsonrpc':'2.0','id':1,'method':'x','params':[1]}", "params"},
        {"{'jsonrpc':'2.0','id':1,'method':'x','params':'p'}", "params"},
        {"{'jsonrpc':'2.0','id':1}", "method"},
        {"{'jsonrpc':'2.0'}", "method"},
        {"{'jsonrpc':'2.0','id':1,'result':{},'error':{}}", "method"},
        {"{'jsonrpc':'2.0','result':{}}", "method"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(invalid); i++) {
        mn_rpc_kind k = kind_of(invalid[i].msg, reason, sizeof(reason));
        if (k != MN_RPC_INVALID || !strstr(reason, invalid[i].why))
            fprintf(stderr, "  %s -> kind %d, '%s'\n", invalid[i].msg, (int)k, reason);
        CHECK(k == MN_RPC_INVALID);
        CHECK(strstr(reason, invalid[i].why) != NULL);
    }

    /* an invalid request keeps its id for the error, when the id itself is fine */
    v = J("{'jsonrpc':'2.0','id':9,'method':'x','params':[1]}");
    mn_rpc_classify(&m, v);
    CHECK(m.kind == MN_RPC_INVALID && m.code == MN_RPC_INVALID_REQUEST);
    CHECK(json_integer_value(m.id) == 9);
    json_decref(v);
    v = J("{'jsonrpc':'2.0','id':[9],'method':'x'}");
    mn_rpc_classify(&m, v);
    CHECK(m.kind == MN_RPC_INVALID && m.id == NULL);
    json_decref(v);
}

static void test_writers(void)
{
    json_t *id = json_string("r-1");
    json_t *r = mn_rpc_result(id, json_pack("{s:i}", "x", 1));
    char *s = mn_rpc_dump(r);
    CHECK_STR(s, "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{\"x\":1}}");
    free(s);
    json_decref(r);
    json_decref(id);

    r = mn_rpc_error(NULL, MN_RPC_PARSE_ERROR, "parse error: %s", "oops");
    s = mn_rpc_dump(r);
    CHECK_STR(s, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":"
                 "\"parse error: oops\"}}");
    free(s);
    json_decref(r);

    /* a message quoting bytes that are not UTF-8 still makes a reply */
    id = json_integer(4);
    r = mn_rpc_error(id, MN_RPC_METHOD_NOT_FOUND, "method '%s' not found", "\xff");
    CHECK(json_integer_value(json_object_get(r, "id")) == 4);
    CHECK(json_integer_value(json_object_get(json_object_get(r, "error"), "code")) == -32601);
    CHECK(json_is_string(json_object_get(json_object_get(r, "error"), "message")));
    json_decref(r);

    s = mn_rpc_id_text(id);
    CHECK_STR(s, "4");
    free(s);
    json_decref(id);
    id = json_string("a\"b");
    s = mn_rpc_id_text(id);
    CHECK_STR(s, "\"a\\\"b\"");
    free(s);
    json_decref(id);
    CHECK(mn_rpc_id_text(NULL) == NULL);
    id = json_null();
    CHECK(mn_rpc_id_text(id) == NULL);
    json_decref(id);

    r = mn_rpc_notification("notifications/message", json_pack("{s:s}", "level", "info"));
    s = mn_rpc_dump(r);
    CHECK_STR(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":"
                 "\"info\"}}");
    free(s);
    json_decref(r);
}

MN_TEST_MAIN(MN_TEST(test_parse), MN_TEST(test_classify), MN_TEST(test_writers))
