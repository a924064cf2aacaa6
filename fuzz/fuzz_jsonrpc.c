/*
 * fuzz_jsonrpc.c - libFuzzer target for the JSON-RPC reader (src/mcp/jsonrpc.c).
 *
 * The input is one message exactly as a transport hands it over: any
 * bytes. Every message is parsed and, when it parses, sorted (each element
 * of a batch too); then the reply the dispatch would build for it is
 * written: an error echoing the id and quoting the reason, or a result.
 * Beyond crashes and sanitizer reports it checks the reader's promises:
 * a request has a method and a string or number id, an invalid message
 * has a reason, and every reply serializes to JSON that parses back.
 */
#include "common.h"

#include "mcp/jsonrpc.h"

static void check_reply(json_t *reply)
{
    char *text = mn_rpc_dump(reply);
    json_t *back;
    if (!text)
        abort();
    back = json_loads(text, 0, NULL);
    if (!back || !json_equal(back, reply))
        abort();
    json_decref(back);
    free(text);
    json_decref(reply);
}

static void one(const json_t *msg)
{
    mn_rpc_msg m;
    char *id;
    mn_rpc_classify(&m, msg);
    switch (m.kind) {
    case MN_RPC_REQUEST:
        if (!m.method || !*m.method || !m.id || (m.params && !json_is_object(m.params)))
            abort();
        id = mn_rpc_id_text(m.id);
        if (!id)
            abort();
        free(id);
        check_reply(
            mn_rpc_error(m.id, MN_RPC_METHOD_NOT_FOUND, "method '%.80s' not found", m.method));
        check_reply(mn_rpc_result(m.id, json_deep_copy(m.params)));
        break;
    case MN_RPC_NOTIFICATION:
        if (!m.method || m.id)
            abort();
        break;
    case MN_RPC_RESPONSE:
        if (!m.id)
            abort();
        break;
    case MN_RPC_INVALID:
        if (!m.reason[0] || m.code != MN_RPC_INVALID_REQUEST)
            abort();
        check_reply(mn_rpc_error(m.id, m.code, "invalid request: %s", m.reason));
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char reason[160];
    json_t *v = mn_rpc_parse((const char *)data, size, reason, sizeof(reason));
    if (!v) {
        if (!reason[0])
            abort();
        check_reply(mn_rpc_error(NULL, MN_RPC_PARSE_ERROR, "parse error: %s", reason));
        return 0;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) one(item);
    } else {
        one(v);
    }
    json_decref(v);
    return 0;
}
