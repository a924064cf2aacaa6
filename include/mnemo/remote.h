/*
 * mnemo/remote.h - the team servers whose memories `context` merges into
 * its answers (`mnemo remote add|list|remove`; src/remote/remote.h says
 * where they are kept). Command line only: an agent that could add a
 * remote could send every question of the project to a server of its
 * choosing, so these are no operation of the table.
 */
#ifndef MNEMO_REMOTE_H
#define MNEMO_REMOTE_H

#include <jansson.h>

#include "mnemo/api.h"

/**
 * Add (or change) remote NAME ([a-z0-9_-]{1,32}) at URL (https://, or
 * http:// on this machine) whose bearer token is in $token_env (only the
 * name is stored; NULL only for a loopback URL). Audited. *out: {name,
 * url, token_env, action: "added"|"changed"}.
 */
int mn_remote_add(mn_ctx *ctx, const char *name, const char *url, const char *token_env,
                  json_t **out);
/** Remove remote NAME (MN_ENOTFOUND when there is none). Audited. *out: {name, action}. */
int mn_remote_remove(mn_ctx *ctx, const char *name, json_t **out);
/** *out: {remotes: [{name, url, token_env, token_set}]} by name; token_set: $VAR is set. */
int mn_remote_list(mn_ctx *ctx, json_t **out);

#endif
