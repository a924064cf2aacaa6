/*
 * remote.h - the team servers a local store asks for memories (`mnemo
 * remote add NAME URL --token-env VAR`; docs/cli.md, docs/http.md).
 *
 * A remote is a row of the project's config, key "remote:NAME", value
 * {"url": URL, "token_env": VAR} (compact JSON): never the token, only the
 * name of the variable that holds it, read when a request is sent. The
 * "remote:" keys are not settings (config.c lists those), so no front end
 * can set them through `config`; only the command line adds or removes
 * them (mnemo/remote.h).
 */
#ifndef MN_REMOTE_H
#define MN_REMOTE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "retrieve/tokens.h"
#include "mnemo/api.h"
#include "store/store.h"

#define MN_REMOTE_KEY_PREFIX "remote:"
#define MN_REMOTE_NAME_MAX   32

/**
 * Check a remote's URL and token variable: https://HOST..., or http://
 * for a loopback host (localhost, 127.0.0.0/8, [::1]; *loopback says which);
 * no credentials, spaces, quotes or $ in the URL; var (may be NULL only for
 * a loopback host) a variable name. One message naming what is wrong.
 */
int mn_remote_url_check(const char *url, const char *var, bool *loopback);
/** NAME: 1 to 32 of a-z, 0-9, _ and -. */
int mn_remote_name_check(const char *name);

/* What the remotes added to one answer. */
typedef struct {
    json_t *items;  /* [{type: "memory", id, remote, title, kind?, level?, status?, snippet?,
                       score}], each remote's in its server's order, strings on one line */
    char *markdown; /* the section, "" when no remote gave anything or none was asked (malloc'd) */
    size_t tokens;  /* its tokens in the answer's encoding */
} mn_remote_answer;

/* What to ask the remotes. */
typedef struct {
    const char *query;
    const json_t *filters; /* the caller's search filters, passed on as they are (NULL: none) */
    const json_t *as_of;   /* the caller's as_of, passed on (NULL: now) */
    size_t k;              /* memories asked of each remote (at most 50) */
    size_t max_tokens;     /* the Markdown section's budget; 0: no section, up to k items each */
    const mn_token_counter *counter; /* counts the section (needed when max_tokens > 0) */
} mn_remote_query;

void mn_remote_answer_release(mn_remote_answer *a);

/**
 * Ask every remote of ctx's project for the memories matching q->query
 * (POST URL/v1/search, kinds memory, q's filters and as_of, with
 * "Authorization: Bearer $VAR"), each within config remote.timeout_ms, and
 * gather them: as items, and when q->max_tokens > 0 as one Markdown section
 * of at most that many tokens. A remote that fails, times out, refuses the
 * token or answers nonsense costs one line in notes, never an error. A
 * context of `mnemo serve` (MN_FRONT_NETWORK) asks no remote: the loop
 * guard (a server asking a server that asks it back) and no host reached
 * on behalf of a network caller. 0, or a failure to read the config.
 */
int mn_remote_gather(mn_remote_answer *out, mn_ctx *ctx, const mn_remote_query *q, json_t *notes);

/**
 * `get` of NAME:ID, the reference context and search give a remote's memory: POST
 * URL/v1/get {"id": ID} to the remote NAME, its answer as get's ({memory, linked_from}) with
 * "remote": NAME, every string without control characters but line breaks and tabs. One
 * error naming the remote: no such remote (MN_ENOTFOUND), its token unset (MN_EAUTH), the
 * server's 404 (MN_ENOTFOUND), 401/403 (MN_EAUTH), anything else MN_EUNAVAILABLE. A context
 * of `mnemo serve` refuses (MN_EINVAL): a server never asks remotes.
 */
int mn_remote_get(mn_ctx *ctx, const char *ref, json_t **out);

#endif
