/*
 * cmd_init.c - mnemo init [DIR]: create the repository's store.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_cmd_init(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    mn_location loc;
    char *db = NULL;
    const char *dir = NULL;
    int rc;

    if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
        return cli_usage_error(cmd, "takes at most one directory");
    if (g->db)
        return cli_usage_error(cmd, "creates DIR/.mnemo/mnemo.db; --db does not apply");
    if (argc == 1) {
        dir = argv[0];
    } else {
        /* The repository around us, else the current directory. MNEMO_DB
         * says where commands look for a store, not where init makes one. */
        unsetenv("MNEMO_DB");
        if ((rc = mn_locate(&loc, NULL, ".")) != 0)
            return cli_fail(rc);
        dir = loc.root && !strcmp(loc.how, "repository") ? loc.root : ".";
    }
    rc = mn_init_at(&db, dir);
    if (argc == 0)
        mn_location_release(&loc);
    if (rc)
        return cli_fail(rc);
    if (g->json) {
        json_t *r = json_pack("{s:s}", "db", db);
        cli_print_json(r);
        json_decref(r);
    } else {
        cli_printf("mnemo store ready at %s\n", db);
    }
    free(db);
    return CLI_EXIT_OK;
}
