/*
 * cmd_token.c - mnemo token create|list|revoke: the access tokens of the
 * team server (mnemo/access.h).
 *
 * A command of the CLI only, not an operation: an agent reaching the store
 * through MCP or HTTP must not mint tokens, so there is no op in the table
 * to expose. `create` prints the secret once (with --json, in the JSON);
 * it is never shown again, since only its SHA-256 is stored. `list` and
 * `revoke` never print a secret or a hash.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mnemo/access.h"

static int take_value(const cli_command *cmd, const char **out, int argc, char **argv, int *i,
                      const char *flag)
{
    size_t n = strlen(flag);
    const char *a = argv[*i];
    if (a[n] == '=')
        *out = a + n + 1;
    else if (*i + 1 < argc)
        *out = argv[++*i];
    else
        return cli_usage_error(cmd, "%s needs a value", flag);
    if (!**out)
        return cli_usage_error(cmd, "%s needs a value", flag);
    return 0;
}

static bool is_flag(const char *a, const char *flag)
{
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static const char *text_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

static int create(const cli_command *cmd, cli_global *g, mn_ctx *ctx, int argc, char **argv)
{
    mn_token_spec spec = {NULL, NULL, NULL, NULL};
    json_t *out = NULL;
    int rc;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (is_flag(a, "--project"))
            rc = take_value(cmd, &spec.project, argc, argv, &i, "--project");
        else if (is_flag(a, "--role"))
            rc = take_value(cmd, &spec.role, argc, argv, &i, "--role");
        else if (is_flag(a, "--name"))
            rc = take_value(cmd, &spec.name, argc, argv, &i, "--name");
        else if (is_flag(a, "--expires"))
            rc = take_value(cmd, &spec.expires, argc, argv, &i, "--expires");
        else
            rc = cli_usage_error(cmd, "create: unknown word '%s'", a);
        if (rc)
            return rc;
    }
    if (!spec.project || !spec.role)
        return cli_usage_error(cmd, "create needs --project P and --role reader|writer|admin");
    if ((rc = mn_token_create(ctx, &spec, &out)) != 0)
        return cli_fail(rc);
    if (g->json) {
        cli_print_json(out);
    } else {
        cli_printf(
            "token '%s' (id %lld): %s of project '%s', expires %s\n", text_or(out, "name", ""),
            (long long)json_integer_value(json_object_get(out, "id")), text_or(out, "role", ""),
            text_or(out, "project", ""), text_or(out, "expires_at", "never"));
        cli_printf("%s\n", text_or(out, "secret", ""));
        cli_eprintf("mnemo: the secret above is shown once and never again: keep it now\n");
    }
    json_decref(out);
    return CLI_EXIT_OK;
}

static void print_row(const json_t *t)
{
    cli_printf("%-4lld %-30s %-20s %-6s %-7s created %s, expires %s, last used %s\n",
               (long long)json_integer_value(json_object_get(t, "id")), text_or(t, "name", ""),
               text_or(t, "project", ""), text_or(t, "role", ""), text_or(t, "state", ""),
               text_or(t, "created_at", "?"), text_or(t, "expires_at", "never"),
               text_or(t, "last_used_at", "never"));
}

int cli_cmd_token(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_ctx *ctx = NULL;
    json_t *out = NULL;
    int rc;
    if (argc == 0)
        return cli_usage_error(cmd, "say create, list or revoke");
    const char *what = argv[0];
    if (strcmp(what, "create") && strcmp(what, "list") && strcmp(what, "revoke"))
        return cli_usage_error(cmd, "unknown word '%s': say create, list or revoke", what);
    if (!strcmp(what, "list") && argc > 1)
        return cli_usage_error(cmd, "list takes no words");
    if (!strcmp(what, "revoke") && argc != 2)
        return cli_usage_error(cmd, "revoke takes one token's name or id");
    /* list and revoke only read or change what is there: like a read-only op, they never
       create a store (cli_open_op with "list") */
    if ((rc = cli_open_op(&ctx, g, strcmp(what, "create") ? "list" : NULL)) != 0)
        return cli_fail(rc);
    if (!strcmp(what, "create")) {
        rc = create(cmd, g, ctx, argc - 1, argv + 1);
        mn_ctx_free(ctx);
        return rc;
    }
    rc = !strcmp(what, "list") ? mn_token_list(ctx, &out) : mn_token_revoke(ctx, argv[1], &out);
    mn_ctx_free(ctx);
    if (rc)
        return cli_fail(rc);
    if (g->json) {
        cli_print_json(out);
    } else if (!strcmp(what, "list")) {
        size_t i;
        json_t *t;
        json_t *tokens = json_object_get(out, "tokens");
        if (json_array_size(tokens) == 0)
            cli_printf("no tokens (mnemo token create --project P --role reader makes one)\n");
        json_array_foreach(tokens, i, t) print_row(t);
    } else {
        cli_printf("revoked token '%s' (id %lld) of project '%s'\n", text_or(out, "name", ""),
                   (long long)json_integer_value(json_object_get(out, "id")),
                   text_or(out, "project", ""));
    }
    json_decref(out);
    return CLI_EXIT_OK;
}
