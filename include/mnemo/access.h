/*
 * mnemo/access.h - the access tokens of the team server, for the mnemo
 * command only (`mnemo token create|list|revoke`).
 *
 * These are no operations of the table: an agent (MCP, HTTP) must not mint
 * or list tokens, so every function here refuses a context that was not
 * opened by the local command line (MN_FRONT_LOCAL_CLI) with MN_EDENIED.
 * A secret is "mnemo_" and 64 hex digits (32 random bytes); it is returned
 * once, by mn_token_create, and only its SHA-256 is stored.
 * docs/http.md (Authentication) says how a client sends it.
 */
#ifndef MNEMO_ACCESS_H
#define MNEMO_ACCESS_H

#include <jansson.h>

#include "mnemo/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *project; /* the project it opens (required) */
    const char *role;    /* "reader", "writer" or "admin" (required) */
    const char *name;    /* unique name; NULL: "<project>-<role>-<8 hex>" */
    const char *expires; /* "90d", "12h", ... from now, or a future RFC 3339 date; NULL: never */
} mn_token_spec;

/**
 * Make a token. *out: {id, name, project, role, created_at, expires_at
 * (null: never), secret}. MN_EINVAL names a bad field, MN_EEXISTS a name
 * in use.
 */
int mn_token_create(mn_ctx *ctx, const mn_token_spec *spec, json_t **out);
/** {tokens: [{id, name, project, role, created_at, expires_at, revoked_at, last_used_at, state}]}.
 */
int mn_token_list(mn_ctx *ctx, json_t **out);
/** Revoke a token by name or id; *out is its row as in the list. */
int mn_token_revoke(mn_ctx *ctx, const char *which, json_t **out);

#ifdef __cplusplus
}
#endif

#endif
