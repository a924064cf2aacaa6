/*
 * cmd_setup.c - mnemo setup CLIENT [--global] [--remove] [--remote URL
 * [--token-env VAR]]: put mnemo's MCP
 * server (and, for Claude Code, its hooks) into an agent client's
 * configuration, or take them out again. The work is mn_setup
 * (src/agent/setup.c); this file parses the words and says what changed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mnemo/agent.h"

int cli_cmd_setup(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_setup_options o = MN_SETUP_OPTIONS_INIT;
    json_t *out = NULL;
    int rc;

    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--global"))
            o.global = true;
        else if (!strcmp(argv[i], "--remove"))
            o.remove = true;
        else if (!strcmp(argv[i], "--remote") || !strcmp(argv[i], "--token-env")) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s needs a value", argv[i]);
            *(argv[i][2] == 'r' ? &o.remote : &o.token_env) = argv[i + 1];
            i++;
        } else if (argv[i][0] == '-')
            return cli_usage_error(cmd, "unknown option '%.40s'", argv[i]);
        else if (o.client)
            return cli_usage_error(cmd, "takes one client");
        else
            o.client = argv[i];
    }
    if (!o.client)
        return cli_usage_error(cmd, "which client? claude-code, cursor, codex or vscode");
    if (g->db)
        return cli_usage_error(cmd, "--db does not apply: clients find the store as mnemo does");
    if ((rc = mn_setup(&out, &o)) != 0)
        return cli_fail(rc);
    if (g->json) {
        cli_print_json(out);
    } else {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(out, "changes"), i, c)
        {
            cli_printf("%-9s %s  (%s)\n", json_string_value(json_object_get(c, "action")),
                       json_string_value(json_object_get(c, "file")),
                       json_string_value(json_object_get(c, "what")));
        }
        if (!o.remove && o.remote)
            cli_printf("the client connects to: %s%s%s\n", o.remote,
                       o.token_env ? " with the token in $" : "", o.token_env ? o.token_env : "");
        else if (!o.remove)
            cli_printf("the client runs: %s mcp\n",
                       json_string_value(json_object_get(out, "command")));
    }
    json_decref(out);
    return CLI_EXIT_OK;
}
