/*
 * cmd_call.c - mnemo call OP [JSON|-]: any operation, JSON in, JSON out.
 * For scripts and for testing an operation exactly as MCP and HTTP see it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_cmd_call(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    json_t *args = NULL, *out = NULL;
    mn_ctx *ctx = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (argc == 0) {
        size_t n;
        const mn_op *ops = mn_api_ops(&n);
        for (size_t i = 0; i < n; i++)
            cli_printf("%-8s %s\n", ops[i].name, ops[i].summary);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error(cmd, "takes an operation and one JSON argument");
    if (!mn_api_find(argv[0]))
        return cli_usage_error(cmd, "unknown operation '%.60s'", argv[0]);
    if (argc == 2 && !strcmp(argv[1], "-")) {
        if ((rc = cli_read_input(&text, &len, "-", MN_API_MAX_REQUEST,
                                 "the JSON read from stdin")) != 0)
            return cli_fail(rc);
    } else if (argc == 2) {
        text = strdup(argv[1]);
        len = strlen(text);
    }
    if (text) {
        json_error_t err;
        args = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
        free(text);
        if (!args)
            return cli_usage_error(cmd, "invalid JSON input at line %d, column %d: %s", err.line,
                                   err.column, err.text);
        if (!json_is_object(args)) {
            json_decref(args);
            return cli_usage_error(cmd, "the input must be a JSON object");
        }
    }
    rc = cli_open_op(&ctx, g, argv[0]);
    if (rc == 0)
        rc = mn_api_call(ctx, argv[0], args, &out);
    mn_ctx_free(ctx);
    json_decref(args);
    if (rc)
        return cli_fail(rc);
    cli_print_json(out);
    json_decref(out);
    return CLI_EXIT_OK;
}
