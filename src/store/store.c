/*
 * store.c - the public store functions: the back end a location names, and
 * one wrapper per function of the back-end table.
 *
 * A location is a file path (the SQLite back end), or a PostgreSQL database:
 * a URL postgres://... or postgresql://..., or a libpq conninfo of
 * keyword=value pairs ("service=team", "host=db dbname=mnemo"), known by
 * its first keyword being one of libpq's. Anything else of the form
 * scheme://... is refused, so that no URL ever becomes a file or directory
 * named like it; a file whose name looks like a conninfo is named ./host=x.
 *
 * Each wrapper calls s->backend-><name>(args) (store_fns.h lists them); a
 * slot a back end leaves NULL fails with MN_EUNSUPPORTED naming the back end
 * and the function, so a back end under construction says exactly what it
 * lacks. The cost is one indirect call per store call.
 *
 * A location is never shown with its password: mn_store_redact is what
 * messages, status and logs print (the head's path of a URL store is it).
 */
#include "common.h"
#include <ctype.h>

#include "store/store_backend.h"
#include "store/postgres/pg_internal.h"
#include "store/sqlite/sqlite_internal.h"

/* ---- what a location names ---- */

/* libpq's connection keywords (PostgreSQL 15, "Parameter Key Words"): a
 * conninfo starts with one of them. */
static const char *const conninfo_keywords[] = {
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "replication",
    "gssencmode",
    "sslmode",
    "requiressl",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "krbsrvname",
    "gsslib",
    "service",
    "target_session_attrs",
};

/* Length of the URL scheme before "://" (RFC 3986 letters), or 0. */
static size_t scheme_len(const char *loc)
{
    size_t n = 0;
    if (!isalpha((unsigned char)loc[0]))
        return 0;
    while (isalnum((unsigned char)loc[n]) || loc[n] == '+' || loc[n] == '-' || loc[n] == '.')
        n++;
    return strncmp(loc + n, "://", 3) == 0 ? n : 0;
}

static bool is_conninfo(const char *loc)
{
    const char *p = loc, *k;
    while (isspace((unsigned char)*p))
        p++;
    k = p;
    while (islower((unsigned char)*p) || *p == '_')
        p++;
    size_t klen = (size_t)(p - k);
    while (*p == ' ' || *p == '\t')
        p++;
    if (klen == 0 || *p != '=')
        return false;
    for (size_t i = 0; i < MN_ARRAY_SIZE(conninfo_keywords); i++)
        if (strlen(conninfo_keywords[i]) == klen && strncmp(conninfo_keywords[i], k, klen) == 0)
            return true;
    return false;
}

mn_store_kind mn_store_kind_of(const char *location)
{
    size_t n = scheme_len(location);
    if (n) {
        if ((n == 8 && strncasecmp(location, "postgres", 8) == 0) ||
            (n == 10 && strncasecmp(location, "postgresql", 10) == 0))
            return MN_STORE_POSTGRES;
        return MN_STORE_URL;
    }
    return is_conninfo(location) ? MN_STORE_POSTGRES : MN_STORE_FILE;
}

/* ---- a location without its password ---- */

static const char redacted[] = "***";

/* URL: postgres://user:PASS@host/db?password=PASS&... */
static void redact_url(mn_buf *out, const char *url, size_t scheme)
{
    const char *auth = url + scheme + 3;
    const char *query = strchr(auth, '?');
    const char *end = query ? query : auth + strlen(auth);
    /* the last '@' before the query ends the user info: a password with an
     * unescaped '/' or '@' is still all hidden */
    const char *at = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == '@')
            at = p;
    mn_buf_put(out, url, (size_t)(auth - url));
    if (at) {
        const char *colon = memchr(auth, ':', (size_t)(at - auth));
        if (colon) {
            mn_buf_put(out, auth, (size_t)(colon - auth) + 1);
            mn_buf_puts(out, redacted);
            mn_buf_put(out, at, (size_t)(end - at));
        } else {
            mn_buf_put(out, auth, (size_t)(end - auth));
        }
    } else {
        mn_buf_put(out, auth, (size_t)(end - auth));
    }
    if (!query)
        return;
    /* parameters: password=... (and sslpassword) lose their value */
    const char *p = query;
    while (*p) {
        const char *amp = strchr(p + 1, '&');
        const char *pend = amp ? amp : p + strlen(p);
        const char *key = p + 1, *eq = memchr(key, '=', (size_t)(pend - key));
        size_t klen = eq ? (size_t)(eq - key) : 0;
        if (eq && ((klen == 8 && strncasecmp(key, "password", 8) == 0) ||
                   (klen == 11 && strncasecmp(key, "sslpassword", 11) == 0))) {
            mn_buf_put(out, p, (size_t)(eq + 1 - p));
            mn_buf_puts(out, redacted);
        } else {
            mn_buf_put(out, p, (size_t)(pend - p));
        }
        p = pend;
    }
}

/*
 * conninfo: keyword = value pairs separated by white space, a value either
 * bare (up to white space) or in single quotes with \' and \\ escapes.
 * Every value of password and sslpassword becomes ***; the rest is copied.
 */
static void redact_conninfo(mn_buf *out, const char *ci)
{
    const char *p = ci;
    while (*p) {
        if (isspace((unsigned char)*p)) {
            mn_buf_put(out, p++, 1);
            continue;
        }
        const char *k = p;
        while (*p && *p != '=' && !isspace((unsigned char)*p))
            p++;
        size_t klen = (size_t)(p - k);
        bool secret = (klen == 8 && strncmp(k, "password", 8) == 0) ||
                      (klen == 11 && strncmp(k, "sslpassword", 11) == 0);
        mn_buf_put(out, k, klen);
        while (*p == ' ' || *p == '\t')
            mn_buf_put(out, p++, 1);
        if (*p != '=')
            continue;
        mn_buf_put(out, p++, 1);
        while (*p == ' ' || *p == '\t')
            mn_buf_put(out, p++, 1);
        const char *v = p;
        if (*p == '\'') {
            p++;
            while (*p && *p != '\'') {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
            if (*p == '\'')
                p++;
        } else {
            while (*p && !isspace((unsigned char)*p)) {
                if (*p == '\\' && p[1])
                    p++;
                p++;
            }
        }
        if (secret)
            mn_buf_puts(out, redacted);
        else
            mn_buf_put(out, v, (size_t)(p - v));
    }
}

char *mn_store_redact(const char *location)
{
    mn_buf out = MN_BUF_INIT;
    size_t n = scheme_len(location);
    if (n)
        redact_url(&out, location, n);
    else if (is_conninfo(location))
        redact_conninfo(&out, location);
    else
        mn_buf_puts(&out, location);
    return mn_buf_detach(&out);
}

/* ---- opening: the back end for the location ---- */

/* The back end of each kind of location in this build; NULL: none yet. */
static const mn_store_backend *backend_of(mn_store_kind kind)
{
    switch (kind) {
    case MN_STORE_FILE:
        return &mn_sqlite_backend;
    case MN_STORE_POSTGRES:
        return &mn_postgres_backend;
    case MN_STORE_URL:
        break;
    }
    return NULL;
}

int mn_store_open(mn_store **out, const char *location, const mn_store_options *opts)
{
    mn_store_kind kind = mn_store_kind_of(location);
    const mn_store_backend *be = backend_of(kind);
    char *shown = NULL;
    int rc;
    *out = NULL;
    if (!be) {
        shown = mn_store_redact(location);
        if (kind == MN_STORE_POSTGRES)
            rc = mn_error_set(MN_EUNSUPPORTED,
                              "cannot open store '%s': it names a PostgreSQL database, and this "
                              "mnemo has no PostgreSQL back end yet; give the path of a SQLite "
                              "store file (or no --db: the repository's .mnemo/mnemo.db)",
                              shown);
        else
            rc = mn_error_set(MN_EINVAL,
                              "cannot open store '%s': a store is a SQLite file (a path) or a "
                              "PostgreSQL database (postgres://... or a conninfo such as "
                              "'service=team'); name a file with a URL-like name as ./NAME",
                              shown);
        goto out;
    }
    rc = be->open(out, location, opts);
    MN_ASSERT_OR(rc != 0 || (*out && (*out)->backend == be), MN_EINTERNAL);
out:
    free(shown);
    return rc;
}

void mn_store_free(mn_store *s)
{
    if (s)
        s->backend->close(s);
}

void mn_store_rollback(mn_store *s)
{
    if (s->backend->rollback)
        s->backend->rollback(s);
}

/* ---- what the common head answers ---- */

const char *mn_store_read_only_reason(const mn_store *s)
{
    return s->read_only_why;
}

bool mn_store_read_only(const mn_store *s)
{
    return s->read_only;
}

const char *mn_store_path(const mn_store *s)
{
    return s->path;
}

int mn_store_schema_version(const mn_store *s)
{
    return s->schema_version;
}

const char *mn_store_backend_name(const mn_store *s)
{
    return s->backend->name;
}

int mn_store_map_drop(mn_store *s, bool *dropped)
{
    int rc = mn_store_map_set(s, false);
    *dropped = rc == 0;
    if (rc == MN_EUNSUPPORTED) {
        mn_error_clear();
        rc = 0;
    }
    return rc;
}

/* ---- the wrappers ---- */

static int unsupported(const mn_store *s, const char *fn)
{
    return mn_error_set(MN_EUNSUPPORTED,
                        "the %s back end cannot do %s yet (store '%s'): use a SQLite store "
                        "(a file path) for this",
                        s->backend->name, fn, s->path);
}

#define MN_STORE_WRAPPER(name, params, args)               \
    int mn_store_##name params                             \
    {                                                      \
        if (!s->backend->name)                             \
            return unsupported(s, "mn_store_" #name "()"); \
        return s->backend->name args;                      \
    }
MN_STORE_FUNCTIONS(MN_STORE_WRAPPER)
#undef MN_STORE_WRAPPER
