/*
 * cmd_migrate.c - mnemo migrate --from LOC --to LOC [--project P] [--merge]:
 * move the team's knowledge between stores (SQLite <-> PostgreSQL), by
 * mn_migrate (mnemo/migrate.h; src/api/migrate.c says how it is done and
 * verified).
 *
 * A command of the CLI only, not an operation: it opens two stores by
 * location, which no agent may name. It prints one line per project moved,
 * the verification, and what is not moved (the code index: `mnemo index`
 * rebuilds it). Locations print redacted (no password); --db is not used.
 */
#include <string.h>

#include "cli.h"
#include "mnemo/migrate.h"

static int take_value(const cli_command *cmd, const char **out, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    if (eq && strncmp(a, "--", 2) == 0)
        *out = eq + 1;
    else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0)
        *out = argv[++*i];
    else /* an option next is not a location: "--to --merge" made a store named --merge */
        return cli_usage_error(cmd, "%s needs a value", a);
    if (!**out)
        return cli_usage_error(cmd, "%.20s needs a value", a);
    return 0;
}

static bool is_flag(const char *a, const char *flag)
{
    size_t n = strlen(flag);
    return strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

int cli_cmd_migrate(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_migrate_options o = MN_MIGRATE_OPTIONS_INIT;
    json_t *out = NULL;
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (is_flag(a, "--from"))
            rc = take_value(cmd, &o.from, argc, argv, &i);
        else if (is_flag(a, "--to"))
            rc = take_value(cmd, &o.to, argc, argv, &i);
        else if (is_flag(a, "--project"))
            rc = take_value(cmd, &o.project, argc, argv, &i);
        else if (!strcmp(a, "--merge"))
            o.merge = true;
        else
            /* never echo the word: it may be a conninfo with its password */
            rc = cli_usage_error(cmd,
                                 "unknown word at position %d: say --from, --to, "
                                 "--project or --merge",
                                 i + 1);
    }
    if (rc)
        return rc;
    if (!o.from || !o.to)
        return cli_usage_error(cmd, "needs --from LOCATION and --to LOCATION");
    if (g->db)
        return cli_usage_error(cmd, "takes --from and --to, not --db");
    if ((rc = mn_migrate(&out, &o)) != 0)
        return cli_fail(rc);
    if (g->json) {
        cli_print_json(out);
    } else {
        size_t i;
        const json_t *p;
        json_array_foreach(json_object_get(out, "projects"), i, p)
        {
            cli_printf("project '%s': %lld memories, %lld links, %lld config keys, %lld audit "
                       "rows moved",
                       json_string_value(json_object_get(p, "name")),
                       (long long)json_integer_value(json_object_get(p, "memories")),
                       (long long)json_integer_value(json_object_get(p, "links")),
                       (long long)json_integer_value(json_object_get(p, "config")),
                       (long long)json_integer_value(json_object_get(p, "audit")));
            if (json_integer_value(json_object_get(p, "skipped")))
                cli_printf("; %lld kept as the target had them",
                           (long long)json_integer_value(json_object_get(p, "skipped")));
            cli_printf("\n");
            size_t j;
            const json_t *k;
            json_array_foreach(json_object_get(p, "config_skipped"), j, k)
                cli_printf("  config %s not moved: it holds a key itself; set it on the target "
                           "as env:NAME or file:PATH\n",
                           json_string_value(k));
        }
        if (json_is_true(json_object_get(out, "merge")))
            cli_printf("verified: every memory of the source is in the target\n");
        else
            cli_printf("verified: the target exports the same bytes as the source\n");
        cli_printf("from %s to %s\n", json_string_value(json_object_get(out, "from")),
                   json_string_value(json_object_get(out, "to")));
        cli_printf("the code index is not moved: run 'mnemo --db TARGET index' in the "
                   "repository\n");
    }
    json_decref(out);
    return CLI_EXIT_OK;
}
