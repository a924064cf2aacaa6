/*
 * access.h - who may run what (src/api/access.c): the role an operation
 * needs, the check mn_api_call makes before every handler, and the
 * authentication of a bearer token for the HTTP server.
 */
#ifndef MN_API_ACCESS_H
#define MN_API_ACCESS_H

#include <stdint.h>

#include "mnemo/access.h"
#include "mnemo/api.h"

#define MN_TOKEN_PREFIX     "mnemo_"
#define MN_TOKEN_SECRET_LEN (6 + 64) /* the prefix and 64 hex digits */
#define MN_TOKEN_NAME_MAX   64
#define MN_PROJECT_NAME_MAX 200

/** Who a request comes from, once authenticated. */
typedef struct {
    char actor[MN_TOKEN_NAME_MAX + 8];     /* "token:<name>", or the local front end's name */
    char project[MN_PROJECT_NAME_MAX + 1]; /* the project it may open */
    mn_role role;
    int64_t token_id; /* 0: no token (local use) */
} mn_principal;

/** "reader", "writer", "admin"; "none" for anything else. */
const char *mn_access_role_name(mn_role role);
/** The role named s; MN_EINVAL names it. */
int mn_access_role_parse(mn_role *out, const char *s);
/** The least role that may run op (the table in access.c). */
mn_role mn_access_op_role(const mn_op *op);
/** 0 when ctx's role may run op, else MN_EDENIED with one line naming both. */
int mn_access_check(const mn_ctx *ctx, const mn_op *op);
/**
 * The principal of a bearer secret, read through ctx's store (any project:
 * tokens are global). MN_EAUTH with a message that says which of unknown,
 * revoked or expired (and nothing of the secret); notes the use
 * (last_used_at) at most once a minute, best effort.
 */
int mn_access_authenticate(mn_ctx *ctx, const char *secret, mn_principal *out);

#endif
