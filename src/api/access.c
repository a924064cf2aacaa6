/*
 * access.c - who may run what, in one place for every front end.
 *
 * Every context carries a principal: an actor name (written in audit
 * rows) and a role (mn_role). mn_api_call asks mn_access_check before it
 * runs any handler, so the CLI, MCP tools, MCP resources and prompts (they
 * call list, get, context and recall through mn_api_call) and HTTP are
 * held to the same table. The role an op needs:
 *
 *   admin   the ops in `table` marked so: what changes the project's
 *           settings for everyone (config), moves or rewrites all of it
 *           (import, export, gc, scan), tells who read what (audit), or
 *           reads files on the server's own disk (index, discover, the
 *           ingests, capture of a transcript path)
 *   reader  ops flagged MN_OP_READONLY, and context and recall: they only
 *           record what they served (served rows, audit rows, hit counts)
 *   writer  every other op: save, update, forget, link, feedback, review,
 *           record_decision, ... (an op added later without an entry here
 *           needs a writer, or a reader when it is flagged read-only)
 *
 * Tokens: a secret is "mnemo_" and the hex of 32 bytes from the kernel
 * (mn_random_bytes); the store keeps only its SHA-256 (store_tokens.h).
 * Authentication hashes what the client sent, finds the row by that hash
 * and compares the two hashes in constant time. The message of a refusal
 * says unknown, revoked or expired, never anything of the secret, and is
 * the same for a token of any project.
 */
#include "common.h"
#include <ctype.h>

#include "api/access.h"
#include "api/api_internal.h"
#include "store/store_tokens.h"
#include "util/digest.h"

static const struct {
    const char *op;
    mn_role role;
} table[] = {
    {"config", MN_ROLE_ADMIN},
    {"import", MN_ROLE_ADMIN},
    {"export", MN_ROLE_ADMIN},
    {"audit", MN_ROLE_ADMIN},
    {"gc", MN_ROLE_ADMIN},
    {"scan", MN_ROLE_ADMIN},
    {"index", MN_ROLE_ADMIN},
    {"discover", MN_ROLE_ADMIN},
    {"ingest_git", MN_ROLE_ADMIN},
    {"ingest_docs", MN_ROLE_ADMIN},
    {"ingest_issues", MN_ROLE_ADMIN},
    {"capture", MN_ROLE_ADMIN},
    {"context", MN_ROLE_READER},
    {"recall", MN_ROLE_READER},
};

/* last_used_at is rewritten at most this often: a write per request would
 * serialize every reader of a busy server on the store's write lock */
#define TOUCH_EVERY_MS 60000

const char *mn_access_role_name(mn_role role)
{
    switch (role) {
    case MN_ROLE_READER:
        return "reader";
    case MN_ROLE_WRITER:
        return "writer";
    case MN_ROLE_ADMIN:
        return "admin";
    }
    return "none";
}

int mn_access_role_parse(mn_role *out, const char *s)
{
    for (mn_role r = MN_ROLE_READER; r <= MN_ROLE_ADMIN; r++)
        if (s && strcmp(s, mn_access_role_name(r)) == 0) {
            *out = r;
            return 0;
        }
    return mn_error_set(MN_EINVAL, "role '%.40s' is not one of reader, writer, admin", s ? s : "");
}

mn_role mn_access_op_role(const mn_op *op)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(table); i++)
        if (strcmp(table[i].op, op->name) == 0)
            return table[i].role;
    return (op->flags & MN_OP_READONLY) ? MN_ROLE_READER : MN_ROLE_WRITER;
}

bool mn_api_allowed(const mn_ctx *ctx, const mn_op *op)
{
    return ctx->role >= mn_access_op_role(op);
}

int mn_access_check(const mn_ctx *ctx, const mn_op *op)
{
    mn_role need = mn_access_op_role(op);
    if (ctx->role >= need)
        return 0;
    return mn_error_set(MN_EDENIED, "'%s' needs the %s role, and '%s' is a %s of this project",
                        op->name, mn_access_role_name(need), ctx->actor,
                        mn_access_role_name(ctx->role));
}

/* ---- tokens ---- */

static bool name_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MN_TOKEN_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
            return false;
    return true;
}

static bool project_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MN_PROJECT_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

static int local_only(const mn_ctx *ctx)
{
    if (ctx->local_cli)
        return 0;
    return mn_error_set(MN_EDENIED, "tokens are made, listed and revoked only with the mnemo "
                                    "command on the server's machine (mnemo token ...)");
}

/*
 * --expires: an age from now ("90d", "12h": digits and one unit letter,
 * read by mn_time_parse as that long ago and turned around) or a date
 * (RFC 3339) that must be in the future.
 */
static int parse_expires(int64_t *out, const char *s, int64_t now)
{
    int64_t t;
    size_t digits = strspn(s, "0123456789");
    bool age = digits > 0 && s[digits] && !s[digits + 1];
    if (mn_time_parse(&t, s) != 0)
        return mn_error_set(MN_EINVAL,
                            "--expires '%.40s' is neither an age like 90d, 12h, 2w nor a date "
                            "like 2027-01-31",
                            s);
    *out = age ? now + (now - t) : t;
    if (*out <= now)
        return mn_error_set(MN_EINVAL, "--expires '%.40s' is not in the future", s);
    return 0;
}

static json_t *time_or_null(int64_t ms)
{
    char buf[32];
    if (ms <= 0)
        return json_null();
    mn_time_format(buf, ms);
    return json_string(buf);
}

static const char *token_state(const mn_token *t, int64_t now)
{
    if (t->revoked_at)
        return "revoked";
    if (t->expires_at && t->expires_at <= now)
        return "expired";
    return "active";
}

static json_t *token_json(const mn_token *t, int64_t now)
{
    json_t *o = json_pack("{s:I,s:s,s:s,s:s}", "id", (json_int_t)t->id, "name", t->name, "project",
                          t->project, "role", t->role);
    json_object_set_new(o, "created_at", time_or_null(t->created_at));
    json_object_set_new(o, "expires_at", time_or_null(t->expires_at));
    json_object_set_new(o, "revoked_at", time_or_null(t->revoked_at));
    json_object_set_new(o, "last_used_at", time_or_null(t->last_used_at));
    json_object_set_new(o, "state", json_string(token_state(t, now)));
    return o;
}

int mn_token_create(mn_ctx *ctx, const mn_token_spec *spec, json_t **out)
{
    uint8_t raw[32], tag[4];
    char hex[65], taghex[9], secret[MN_TOKEN_SECRET_LEN + 1], hash[MN_SHA256_HEX];
    char name[MN_TOKEN_NAME_MAX + 1];
    mn_token t = {0};
    mn_role role = MN_ROLE_READER;
    int64_t now = mn_time_now_ms(), id = 0;
    int rc;

    *out = NULL;
    if ((rc = local_only(ctx)) != 0)
        return rc;
    if (!spec || !spec->project || !project_valid(spec->project))
        return mn_error_set(MN_EINVAL,
                            "--project must name a project (1 to %d characters, no "
                            "control characters)",
                            MN_PROJECT_NAME_MAX);
    if ((rc = mn_access_role_parse(&role, spec->role)) != 0)
        return rc;
    if (spec->name && !name_valid(spec->name))
        return mn_error_set(MN_EINVAL,
                            "--name '%.80s' must be 1 to %d letters, digits, '.', '_' or '-'",
                            spec->name, MN_TOKEN_NAME_MAX);
    if (spec->expires && (rc = parse_expires(&t.expires_at, spec->expires, now)) != 0)
        return rc;
    if ((rc = mn_random_bytes(raw, sizeof(raw))) != 0 ||
        (!spec->name && (rc = mn_random_bytes(tag, sizeof(tag))) != 0))
        return rc;
    mn_hex(hex, raw, sizeof(raw));
    snprintf(secret, sizeof(secret), MN_TOKEN_PREFIX "%s", hex);
    mn_sha256_hex(hash, secret, strlen(secret));
    if (spec->name) {
        snprintf(name, sizeof(name), "%s", spec->name);
    } else {
        /* a name from the project's first characters that name_valid accepts */
        size_t k = 0;
        for (const char *p = spec->project; *p && k < 40; p++)
            name[k++] = (isalnum((unsigned char)*p) || strchr("._-", *p)) ? *p : '_';
        mn_hex(taghex, tag, sizeof(tag));
        snprintf(name + k, sizeof(name) - k, "-%s-%s", mn_access_role_name(role), taghex);
    }
    t.name = name;
    t.project = (char *)spec->project;
    t.role = (char *)mn_access_role_name(role);
    t.created_at = now;
    if ((rc = mn_store_begin(ctx->store)) != 0)
        goto out;
    if ((rc = mn_store_token_add(ctx->store, &t, hash, &id)) == 0) {
        json_t *d = json_pack("{s:s,s:s}", "project", spec->project, "role", t.role);
        rc = mn_store_audit(ctx->store, ctx->actor, "token_create", name, d);
        json_decref(d);
    }
    if (rc == 0)
        rc = mn_store_commit(ctx->store);
    else
        mn_store_rollback(ctx->store);
    if (rc == 0) {
        t.id = id;
        *out = token_json(&t, now);
        json_object_del(*out, "revoked_at");
        json_object_del(*out, "last_used_at");
        json_object_set_new(*out, "secret", json_string(secret));
    }
out:
    memset(raw, 0, sizeof(raw));
    memset(secret, 0, sizeof(secret));
    memset(hex, 0, sizeof(hex));
    return rc;
}

int mn_token_list(mn_ctx *ctx, json_t **out)
{
    mn_token *v = NULL;
    size_t n = 0;
    int64_t now = mn_time_now_ms();
    int rc;
    *out = NULL;
    if ((rc = local_only(ctx)) != 0 || (rc = mn_store_token_list(ctx->store, &v, &n)) != 0)
        return rc;
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, token_json(&v[i], now));
    mn_tokens_free(v, n);
    *out = json_pack("{s:o}", "tokens", arr);
    return 0;
}

int mn_token_revoke(mn_ctx *ctx, const char *which, json_t **out)
{
    mn_token t = {0};
    int64_t now = mn_time_now_ms();
    int rc;
    *out = NULL;
    if ((rc = local_only(ctx)) != 0)
        return rc;
    if (!which || !*which)
        return mn_error_set(MN_EINVAL, "name the token to revoke (its name or id)");
    if ((rc = mn_store_begin(ctx->store)) != 0)
        return rc;
    if ((rc = mn_store_token_revoke(ctx->store, which, now, &t)) == 0) {
        json_t *d = json_pack("{s:s}", "project", t.project);
        rc = mn_store_audit(ctx->store, ctx->actor, "token_revoke", t.name, d);
        json_decref(d);
    }
    if (rc == 0)
        rc = mn_store_commit(ctx->store);
    else
        mn_store_rollback(ctx->store);
    if (rc == 0)
        *out = token_json(&t, now);
    mn_token_release(&t);
    return rc;
}

int mn_access_authenticate(mn_ctx *ctx, const char *secret, mn_principal *out)
{
    char hash[MN_SHA256_HEX], stored[65];
    mn_token t = {0};
    int64_t now = mn_time_now_ms();
    mn_role role = MN_ROLE_READER; /* set by mn_access_role_parse; -O3 cannot see it */
    int rc;

    memset(out, 0, sizeof(*out));
    if (!secret || strncmp(secret, MN_TOKEN_PREFIX, strlen(MN_TOKEN_PREFIX)) != 0 ||
        strlen(secret) != MN_TOKEN_SECRET_LEN)
        return mn_error_set(MN_EAUTH, "unknown token: send 'Authorization: Bearer mnemo_...' "
                                      "with a token from `mnemo token create`");
    mn_sha256_hex(hash, secret, strlen(secret));
    rc = mn_store_token_find(ctx->store, hash, &t, stored);
    if (rc == MN_ENOTFOUND || (rc == 0 && !mn_equal_const_time(hash, stored, 64))) {
        rc = mn_error_set(MN_EAUTH, "unknown token: send 'Authorization: Bearer mnemo_...' "
                                    "with a token from `mnemo token create`");
        goto out;
    }
    if (rc)
        goto out;
    if (t.revoked_at) {
        rc = mn_error_set(MN_EAUTH, "token '%s' was revoked: ask for a new one", t.name);
        goto out;
    }
    if (t.expires_at && t.expires_at <= now) {
        rc = mn_error_set(MN_EAUTH, "token '%s' has expired: ask for a new one", t.name);
        goto out;
    }
    if ((rc = mn_access_role_parse(&role, t.role)) != 0 ||
        strlen(t.project) > MN_PROJECT_NAME_MAX || strlen(t.name) > MN_TOKEN_NAME_MAX) {
        rc = mn_error_set(MN_ECORRUPT, "token %lld in '%s' is damaged: revoke it", (long long)t.id,
                          mn_store_path(ctx->store));
        goto out;
    }
    snprintf(out->actor, sizeof(out->actor), "token:%s", t.name);
    snprintf(out->project, sizeof(out->project), "%s", t.project);
    out->role = role;
    out->token_id = t.id;
    if (now - t.last_used_at >= TOUCH_EVERY_MS && !mn_store_read_only_reason(ctx->store) &&
        mn_store_token_touch(ctx->store, t.id, now) != 0) {
        mn_log(MN_LOG_WARN, "access: %s", mn_error_last()); /* the request stands */
        mn_error_clear();
    }
out:
    mn_token_release(&t);
    return rc;
}
