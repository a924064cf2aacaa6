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
    json_t *items;  /* [{type: "memory", id, remote, title, kind?, score}] */
    char *markdown; /* the section, "" when no remote gave anything (malloc'd) */
    size_t tokens;  /* its tokens in the answer's encoding */
} mn_remote_answer;

void mn_remote_answer_release(mn_remote_answer *a);

/**
 * Ask every remote of the project (s's config) for the memories matching
 * query (POST URL/v1/search, kinds memory, with "Authorization: Bearer
 * $VAR"), each within timeout_ms, and write the best of them as one
 * Markdown section of at most max_tokens (counted with counter). A remote
 * that fails, times out, refuses the token or answers nonsense costs one
 * line in notes, never an error. 0, or a failure to read the config.
 */
int mn_remote_gather(mn_remote_answer *out, mn_store *s, const char *query, size_t max_tokens,
                     const mn_token_counter *counter, int64_t timeout_ms, json_t *notes);

#endif
