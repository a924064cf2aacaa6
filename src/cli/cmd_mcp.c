/*
 * cmd_mcp.c - mnemo mcp: the MCP server on stdin and stdout.
 *
 * An agent starts it as a subprocess (see docs/mcp.md). stdout carries the
 * protocol and nothing else; errors and logs go to stderr (MNEMO_LOG sets
 * how much). The end of input ends the server with exit code 0. It serves
 * a project's memory: started outside any repository (no .mnemo/ or .git
 * above), it refuses to start unless --db or MNEMO_DB names a store, so
 * that the per-user store never answers an agent about another project.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mnemo/agent.h"
#include "mcp/mcp.h"
#include "mcp/stdio.h"
#include "util/util.h"

int cli_cmd_mcp(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_ctx_options opts = MN_CTX_OPTIONS_INIT;
    mn_mcp_options mopts = {"stdio"};
    mn_mcp_server *srv = NULL;
    mn_ctx *ctx = NULL;
    int rc;

    (void)argv;
    if (argc > 0)
        return cli_usage_error(cmd, "takes no arguments (the store is found as for every "
                                    "command; --db PATH names one)");
    /* a client that goes away must not kill us with SIGPIPE halfway through a write */
    signal(SIGPIPE, SIG_IGN);
    mn_log_init_from_env();
    if (!g->db) {
        mn_location loc;
        bool outside = mn_locate(&loc, NULL, NULL) == 0 && !strcmp(loc.how, "user default");
        mn_location_release(&loc);
        mn_error_clear();
        if (outside) {
            cli_eprintf("mnemo: error: mcp: no repository here (no .mnemo/ or .git above the "
                        "current directory): start it in a project, or name a store with --db or "
                        "MNEMO_DB\n");
            return CLI_EXIT_FAIL;
        }
    }
    opts.db_path = g->db;
    opts.actor = "mcp";
    opts.progress = false; /* never draw on a terminal the client may share */
    if ((rc = mn_ctx_open(&ctx, &opts)) != 0)
        return cli_fail(rc);
    /* Claude Code's prompt hook asks this server first (src/agent/warm.c):
       without it, the hook cannot answer within its budget on a large
       repository. Not listening costs the hook time, never an answer. */
    mn_warm *warm = NULL;
    /* its socket is keyed by the store file: a server's store (a URL) has none yet */
    if (mn_location_is_file(mn_ctx_db_path(ctx)) &&
        mn_warm_start(&warm, mn_ctx_db_path(ctx), mn_ctx_root(ctx)) != 0) {
        mn_log(MN_LOG_WARN, "no warm path for the prompt hook: %s", mn_error_last());
        mn_error_clear();
    }
    if ((rc = mn_mcp_server_new(&srv, ctx, &mopts)) == 0)
        rc = mn_mcp_stdio_serve(srv, ctx, STDIN_FILENO, STDOUT_FILENO);
    mn_warm_stop(warm);
    mn_mcp_server_free(srv);
    mn_ctx_free(ctx);
    return rc ? cli_fail(rc) : CLI_EXIT_OK;
}
