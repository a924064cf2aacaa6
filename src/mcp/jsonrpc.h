/*
 * jsonrpc.h - reading and writing JSON-RPC 2.0 messages, as MCP uses them.
 *
 * The reader turns the bytes of one message into a parsed JSON value and
 * sorts each message object into request, notification, response or
 * invalid, with the JSON-RPC error code and a one-line reason for an
 * invalid one. It never fails on bad input: every outcome is a value the
 * dispatch can answer. MCP's rules on top of JSON-RPC are applied here: an
 * id is a string or an integer (never null), params is an object when
 * present (MCP has no positional params), the method is a string.
 *
 * The writers build reply objects; the id is copied, so the message the
 * reply answers may be freed first.
 */
#ifndef MN_MCP_JSONRPC_H
#define MN_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

#define MN_RPC_PARSE_ERROR      (-32700)
#define MN_RPC_INVALID_REQUEST  (-32600)
#define MN_RPC_METHOD_NOT_FOUND (-32601)
#define MN_RPC_INVALID_PARAMS   (-32602)
#define MN_RPC_INTERNAL_ERROR   (-32603)
/* MCP: resources/read of a resource that does not exist */
#define MN_RPC_RESOURCE_NOT_FOUND (-32002)

typedef enum {
    MN_RPC_REQUEST,      /* method and id: a reply is due */
    MN_RPC_NOTIFICATION, /* method, no id: nothing is sent back */
    MN_RPC_RESPONSE,     /* result or error with an id: a reply to the server (ignored) */
    MN_RPC_INVALID       /* not a JSON-RPC 2.0 message: code and reason say why */
} mn_rpc_kind;

typedef struct {
    mn_rpc_kind kind;
    const json_t *id;     /* request, response; invalid when a usable id was found; borrowed */
    const char *method;   /* request, notification; borrowed */
    const json_t *params; /* object or NULL; borrowed */
    int code;             /* invalid: MN_RPC_INVALID_REQUEST */
    char reason[160];     /* invalid: why, lower case */
} mn_rpc_msg;

/**
 * Parse the text of one message. Returns the value (new reference) or NULL
 * with a one-line reason in `reason` (a parse error: answer -32700 with id
 * null). Invalid UTF-8, NUL characters, duplicate object keys and trailing
 * text are parse errors.
 */
json_t *mn_rpc_parse(const char *text, size_t len, char *reason, size_t reason_size);

/** Sort one message value (an element of a batch, or the whole message). */
void mn_rpc_classify(mn_rpc_msg *out, const json_t *msg);

/** {"jsonrpc":"2.0","id":id,"result":result}; steals result; id NULL: null. */
json_t *mn_rpc_result(const json_t *id, json_t *result);
/** {"jsonrpc":"2.0","id":id,"error":{"code","message"}}; id NULL: null. */
json_t *mn_rpc_error(const json_t *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** A notification {"jsonrpc":"2.0","method":method,"params":params}; steals params. */
json_t *mn_rpc_notification(const char *method, json_t *params);

/** Compact text of a message (malloc'd), or NULL when out of memory. */
char *mn_rpc_dump(const json_t *msg);

/** The compact JSON text of an id (malloc'd): "\"a\"" or "7"; NULL for a bad id. */
char *mn_rpc_id_text(const json_t *id);

#endif
