/*
 * store_tokens.h - the access tokens of the team server (schema v15), kept
 * apart from store.h: they belong to the whole store, not to one project,
 * and the HTTP server reads them before it knows which project a request
 * opens (src/api/access.c makes and checks them; docs/internals/access.md).
 *
 * Only a secret's SHA-256 (64 lower-case hex digits) ever reaches the
 * store. Times are ms since 1970; 0 means "none" (never expires, not
 * revoked, never used). Writes go between mn_store_begin and
 * mn_store_commit like every write of store.h.
 */
#ifndef MN_STORE_TOKENS_H
#define MN_STORE_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct {
    int64_t id;
    char *name;    /* unique in the store */
    char *project; /* the project it opens, by name */
    char *role;    /* "reader", "writer" or "admin" */
    int64_t created_at, expires_at, revoked_at, last_used_at;
} mn_token;

/** Free what a token row holds (not t itself). */
void mn_token_release(mn_token *t);
/** Free n rows read by mn_store_token_list and the array. */
void mn_tokens_free(mn_token *v, size_t n);

/**
 * Add a token: t's name, project, role, created_at and expires_at, and the
 * hex SHA-256 of its secret. *id is its row id. MN_EEXISTS when the name is
 * taken (message names it).
 */
int mn_store_token_add(mn_store *s, const mn_token *t, const char *hash_hex, int64_t *id);
/**
 * The token whose secret hashes to hash_hex, revoked or expired ones
 * included (the caller decides), with *stored_hash (64 hex + NUL) for a
 * constant-time comparison. MN_ENOTFOUND when there is none.
 */
int mn_store_token_find(mn_store *s, const char *hash_hex, mn_token *out, char stored_hash[65]);
/** Every token, oldest first (never a hash). */
int mn_store_token_list(mn_store *s, mn_token **out, size_t *n);
/**
 * Revoke the token named `which`, or whose id is `which` when it is all
 * digits and no token has that name; *out is the row as it is now. A
 * revoked token stays revoked (its first revocation time is kept).
 * MN_ENOTFOUND names `which`.
 */
int mn_store_token_revoke(mn_store *s, const char *which, int64_t now_ms, mn_token *out);
/** Set last_used_at (its own short write transaction; the caller holds none). */
int mn_store_token_touch(mn_store *s, int64_t id, int64_t now_ms);

#endif
