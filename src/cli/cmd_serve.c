/*
 * cmd_serve.c - mnemo serve [--host H] [--port P] [--tls-cert F --tls-key F]:
 * the MCP server over streamable HTTP (or HTTPS) at /mcp, until SIGINT or
 * SIGTERM.
 *
 * SIGINT and SIGTERM are blocked before the server starts its threads, so
 * every thread inherits the mask and only this one takes them, in
 * sigtimedwait: no handler runs at an arbitrary point, and shutdown is an
 * ordinary call that frees everything. The wait wakes each minute to end
 * idle sessions. One line on stderr says where it listens (the real port
 * when --port 0 let the system pick one); MNEMO_LOG=info adds a line per
 * request. Listening on an address other than loopback without TLS (its
 * own, --tls-cert/--tls-key, or a proxy's in front: config
 * serve.behind_proxy) adds one warning line: tokens and memories would
 * cross the network in clear text. The TLS flags come both or neither.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "http/http.h"
#include "util/util.h"

/* config serve.behind_proxy: a reverse proxy terminates TLS in front of this server */
static bool behind_proxy(mn_ctx *ctx)
{
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", "serve.behind_proxy"),
           *out = NULL;
    bool yes = false;
    if (mn_api_call(ctx, "config", args, &out) == 0) {
        const char *v = json_string_value(json_object_get(out, "value"));
        yes = v && strcmp(v, "true") == 0;
    }
    json_decref(args);
    json_decref(out);
    return yes;
}

static int take_value(const cli_command *cmd, const char **out, int argc, char **argv, int *i,
                      const char *flag)
{
    size_t n = strlen(flag);
    const char *a = argv[*i];
    if (a[n] == '=') {
        *out = a + n + 1;
    } else if (*i + 1 < argc) {
        *out = argv[++*i];
    } else {
        return cli_usage_error(cmd, "%s needs a value", flag);
    }
    if (!**out)
        return cli_usage_error(cmd, "%s needs a value", flag);
    return 0;
}

int cli_cmd_serve(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_http_options opts = MN_HTTP_OPTIONS_INIT;
    mn_http_server *srv = NULL;
    mn_ctx *ctx = NULL;
    const char *port = NULL;
    sigset_t stop;
    int rc, sig;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--host") || !strncmp(a, "--host=", 7)) {
            if ((rc = take_value(cmd, &opts.host, argc, argv, &i, "--host")) != 0)
                return rc;
        } else if (!strcmp(a, "--port") || !strncmp(a, "--port=", 7)) {
            if ((rc = take_value(cmd, &port, argc, argv, &i, "--port")) != 0)
                return rc;
        } else if (!strcmp(a, "--tls-cert") || !strncmp(a, "--tls-cert=", 11)) {
            if ((rc = take_value(cmd, &opts.tls_cert, argc, argv, &i, "--tls-cert")) != 0)
                return rc;
        } else if (!strcmp(a, "--tls-key") || !strncmp(a, "--tls-key=", 10)) {
            if ((rc = take_value(cmd, &opts.tls_key, argc, argv, &i, "--tls-key")) != 0)
                return rc;
        } else if (a[0] == '-') {
            return cli_usage_error(cmd, "unknown option '%s'", a);
        } else {
            return cli_usage_error(cmd, "takes no words (got '%s')", a);
        }
    }
    if (!opts.tls_cert != !opts.tls_key)
        return cli_usage_error(cmd, "--tls-cert and --tls-key go together (got only %s)",
                               opts.tls_cert ? "--tls-cert" : "--tls-key");
    if (port) {
        char *end;
        long p = strtol(port, &end, 10);
        if (port[0] < '0' || port[0] > '9' || *end || p > 65535)
            return cli_usage_error(cmd, "--port must be a number from 0 to 65535 (got '%.20s')",
                                   port);
        opts.port = (int)p;
    }

    mn_log_init_from_env(); /* MNEMO_LOG=info: a line per request */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up is an error return, not a signal */

    if ((rc = cli_open(&ctx, g)) != 0)
        return cli_fail(rc);
    rc = mn_http_server_new(&srv, ctx, &opts);
    if (rc == 0)
        cli_eprintf("mnemo: serving MCP at %s/mcp for the store %s (Ctrl-C stops)\n",
                    mn_http_server_url(srv), mn_ctx_db_shown(ctx));
    if (rc == 0 && !mn_http_server_loopback(srv) && !mn_http_server_tls(srv) && !behind_proxy(ctx))
        cli_eprintf("mnemo: warning: %s is reachable from the network without TLS: tokens and "
                    "memories cross it in clear text; serve HTTPS (--tls-cert, --tls-key) or "
                    "put a TLS reverse proxy in front (then config serve.behind_proxy true)\n",
                    mn_http_server_url(srv));
    mn_ctx_free(ctx);
    if (rc)
        return cli_fail(rc);

    for (;;) {
        struct timespec wake = {60, 0};
        sig = sigtimedwait(&stop, NULL, &wake);
        if (sig == SIGINT || sig == SIGTERM)
            break;
        mn_http_server_expire(srv);
    }
    cli_eprintf("mnemo: %s: stopping\n", sig == SIGINT ? "interrupted" : "terminated");
    mn_http_server_free(srv);
    return CLI_EXIT_OK;
}
