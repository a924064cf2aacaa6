/*
 * auth.c - who a request to `mnemo serve` comes from.
 *
 * Every request but /healthz (and CORS preflights, which run nothing and
 * which browsers send without credentials) passes here before it is
 * routed (server.c). An `Authorization: Bearer mnemo_...` header is
 * checked against the store's tokens on every request (access.c: by the
 * secret's SHA-256, compared in constant time), so a token revoked with
 * `mnemo token revoke` is refused at the server's next request, and one
 * that expired is refused from that moment. Its principal is the token's
 * project, role and actor "token:<name>".
 *
 * Without the header, the request is the local user's only when both hold:
 * the server is bound to a loopback address (peer.c has already refused
 * any other user of this machine) and config serve.auth is "local" (the
 * default). It then runs as the admin of the server's own project, actor
 * "mcp", as before tokens existed. A server bound to any other address
 * demands a token whatever serve.auth says. A refusal is MN_EAUTH, which
 * server.c answers with 401 and `WWW-Authenticate: Bearer`.
 *
 * Tokens are global rows, read through the worker's connection to the
 * server's own project (mn_http__thread_ctx with no principal).
 */
#include "common.h"
#include <strings.h>

#include "http/http_internal.h"

int mn_http__authenticate(mn_http_server *srv, const char *authorization, mn_principal *out)
{
    memset(out, 0, sizeof(*out));
    if (!authorization) {
        if (srv->loopback && srv->auth_local) {
            snprintf(out->actor, sizeof(out->actor), "mcp");
            snprintf(out->project, sizeof(out->project), "%s", srv->project);
            out->role = MN_ROLE_ADMIN;
            return 0;
        }
        return mn_error_set(MN_EAUTH, "this server needs a token: send 'Authorization: Bearer "
                                      "mnemo_...' (made with `mnemo token create`)");
    }
    /* RFC 6750: the scheme is case-insensitive, one or more spaces, then the token */
    if (strncasecmp(authorization, "Bearer ", 7) != 0)
        return mn_error_set(MN_EAUTH, "the Authorization header must be 'Bearer mnemo_...'");
    const char *secret = authorization + 7;
    while (*secret == ' ')
        secret++;
    mn_ctx *ctx = mn_http__thread_ctx(srv, NULL);
    if (!ctx)
        return mn_error_last_code();
    return mn_access_authenticate(ctx, secret, out);
}
