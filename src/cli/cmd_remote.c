/*
 * cmd_remote.c - mnemo remote add NAME URL [--token-env VAR] | list |
 * remove NAME: the team servers whose memories `context` merges into its
 * answers (mnemo/remote.h; src/remote/remote.c says how they are asked).
 *
 * A command of the CLI only, not an operation: an agent able to add a
 * remote could send the project's questions to a server of its choosing.
 * Only the token's variable name is stored and printed, never the token.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mnemo/remote.h"

static const char *text_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

/* add NAME URL [--token-env VAR]: the words after "add". */
static int parse_add(const cli_command *cmd, const char **name, const char **url, const char **var,
                     int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--token-env=", 12)) {
            *var = a + 12;
        } else if (!strcmp(a, "--token-env")) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "--token-env needs a variable name");
            *var = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error(cmd, "add: unknown option '%.40s'", a);
        } else if (!*name) {
            *name = a;
        } else if (!*url) {
            *url = a;
        } else {
            return cli_usage_error(cmd, "add takes NAME and URL");
        }
    }
    if (!*name || !*url)
        return cli_usage_error(cmd, "add needs NAME and URL (mnemo remote add team "
                                    "https://mnemo.example.com --token-env MNEMO_TEAM_TOKEN)");
    return 0;
}

int cli_cmd_remote(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    const char *name = NULL, *url = NULL, *var = NULL;
    mn_ctx *ctx = NULL;
    json_t *out = NULL;
    int rc;
    if (argc == 0)
        return cli_usage_error(cmd, "say add, list or remove");
    const char *what = argv[0];
    if (!strcmp(what, "add")) {
        if ((rc = parse_add(cmd, &name, &url, &var, argc - 1, argv + 1)) != 0)
            return rc;
    } else if (!strcmp(what, "remove")) {
        if (argc != 2)
            return cli_usage_error(cmd, "remove takes one remote's name");
        name = argv[1];
    } else if (!strcmp(what, "list")) {
        if (argc > 1)
            return cli_usage_error(cmd, "list takes no words");
    } else {
        return cli_usage_error(cmd, "unknown word '%.40s': say add, list or remove", what);
    }
    /* list and remove change nothing that is not there: they never create a store */
    if ((rc = cli_open_op(&ctx, g, strcmp(what, "add") ? "list" : NULL)) != 0)
        return cli_fail(rc);
    rc = !strcmp(what, "add")      ? mn_remote_add(ctx, name, url, var, &out)
         : !strcmp(what, "remove") ? mn_remote_remove(ctx, name, &out)
                                   : mn_remote_list(ctx, &out);
    mn_ctx_free(ctx);
    if (rc)
        return cli_fail(rc);
    if (g->json) {
        cli_print_json(out);
    } else if (!strcmp(what, "list")) {
        size_t i;
        const json_t *r;
        const json_t *list = json_object_get(out, "remotes");
        if (!json_array_size(list))
            cli_printf("no remotes (mnemo remote add NAME URL --token-env VAR adds one)\n");
        json_array_foreach(list, i, r)
        {
            const char *v = text_or(r, "token_env", NULL);
            if (v)
                cli_printf("%-16s %s  token in $%s%s\n", text_or(r, "name", ""),
                           text_or(r, "url", ""), v,
                           json_is_true(json_object_get(r, "token_set")) ? "" : " (not set)");
            else
                cli_printf("%-16s %s  no token\n", text_or(r, "name", ""), text_or(r, "url", ""));
        }
    } else if (!strcmp(what, "add")) {
        cli_printf("%s remote '%s': %s%s%s\n", text_or(out, "action", ""), text_or(out, "name", ""),
                   text_or(out, "url", ""), var ? ", token in $" : "", var ? var : "");
    } else {
        cli_printf("removed remote '%s'\n", text_or(out, "name", ""));
    }
    json_decref(out);
    return CLI_EXIT_OK;
}
