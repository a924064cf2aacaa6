/*
 * cmd_hooks.c - `mnemo hooks install|uninstall|status`, and `mnemo hooks
 * run NAME ARGS...`, what an installed hook starts in the background.
 *
 * run detaches first (a new session, SIGHUP ignored: closing the terminal
 * right after a commit does not kill it), waits at most LOCK_WAIT for
 * another run of the same repository to finish (flock on .mnemo/hooks.lock,
 * so two quick commits do not race), gives up after RUN_LIMIT (alarm), and
 * always exits 0 without a word: nobody reads its output, git does not wait
 * for it.
 *   post-commit              ingest_git, incremental (the new commits)
 *   post-merge               index, then the branch filter's answers
 *   post-checkout A B 1      the same, for a branch checkout (not a file's)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli_ingest.h"
#include "mnemo/hooks.h"

#define LOCK_WAIT 60  /* seconds */
#define RUN_LIMIT 300 /* seconds */

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void print_hooks(const json_t *r, const char *verb)
{
    cli_printf("hooks in %s:\n", str(r, "dir"));
    size_t i;
    const json_t *h;
    json_array_foreach(json_object_get(r, "hooks"), i, h)
    {
        cli_printf("  %-14s %s", str(h, "name"),
                   *str(h, "action") ? str(h, "action") : str(h, "state"));
        if (*str(h, "chained"))
            cli_printf(" (runs first: %s)", str(h, "chained"));
        if (*str(h, "binary") && json_is_false(json_object_get(h, "binary_ok")))
            cli_printf(" (its mnemo %s is gone: the hook does nothing)", str(h, "binary"));
        cli_printf("\n");
    }
    if (verb)
        cli_printf("%s\n", verb);
}

static void on_alarm(int sig)
{
    (void)sig;
    _exit(0);
}

static int run(cli_global *g, int argc, char **argv)
{
    const char *name = argv[0];
    /* detached: git and the terminal are not waiting, and must not take it down */
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    (void)setsid();
    signal(SIGALRM, on_alarm);
    alarm(RUN_LIMIT);
    if (!strcmp(name, "post-checkout") && argc >= 4 && !strcmp(argv[3], "0"))
        return CLI_EXIT_OK; /* a file checkout: HEAD did not move */
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = g->db;
    o.actor = "git-hook";
    o.create = false; /* a repository without a store is none of mnemo's business */
    mn_ctx *ctx = NULL;
    if (mn_ctx_open(&ctx, &o) != 0)
        return CLI_EXIT_OK;
    int lock = -1;
    const char *db = mn_ctx_db_path(ctx);
    if (db && mn_location_is_file(db)) { /* a server's store has no directory here */
        char path[PATH_MAX];
        const char *slash = strrchr(db, '/');
        snprintf(path, sizeof(path), "%.*s/hooks.lock", slash ? (int)(slash - db) : 1,
                 slash ? db : ".");
        lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock >= 0) {
            alarm(LOCK_WAIT);
            if (flock(lock, LOCK_EX) != 0) {
                close(lock);
                mn_ctx_free(ctx);
                return CLI_EXIT_OK;
            }
            alarm(RUN_LIMIT);
        }
    }
    json_t *out = NULL;
    if (!strcmp(name, "post-commit")) {
        json_t *args = json_pack("{s:b}", "incremental", 1);
        (void)mn_api_call(ctx, "ingest_git", args, &out);
        json_decref(args);
    } else if (!strcmp(name, "post-merge") || !strcmp(name, "post-checkout")) {
        (void)mn_api_call(ctx, "index", NULL, &out);
        size_t checked = 0;
        (void)mn_ctx_branch_warm(ctx, &checked);
    }
    json_decref(out);
    mn_ctx_free(ctx);
    if (lock >= 0)
        close(lock);
    return CLI_EXIT_OK;
}

int cli_cmd_hooks(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    if (argc < 1)
        return cli_usage_error(cmd, "say install, uninstall or status");
    if (!strcmp(argv[0], "run") && argc >= 2)
        return run(g, argc - 1, argv + 1);
    if (argc > 1)
        return cli_usage_error(cmd, "unexpected argument '%.60s'", argv[1]);
    mn_location loc;
    int rc = mn_locate(&loc, g->db, NULL);
    if (rc)
        return cli_fail(rc);
    if (!loc.root) {
        mn_location_release(&loc);
        mn_error_set(MN_EINVAL, "not inside a git repository: run it in one");
        return cli_fail(MN_EINVAL);
    }
    json_t *out = NULL;
    const char *verb = NULL;
    if (!strcmp(argv[0], "install")) {
        char *exe = realpath("/proc/self/exe", NULL);
        if (!exe) {
            mn_location_release(&loc);
            mn_error_set(MN_EIO, "cannot tell where this mnemo is (/proc/self/exe): %s",
                         strerror(errno));
            return cli_fail(MN_EIO);
        }
        rc = mn_hooks_install(loc.root, exe, &out);
        free(exe);
        verb = "installed: each commit's candidates are saved in the background "
               "(mnemo review lists the ones waiting for review)";
    } else if (!strcmp(argv[0], "uninstall")) {
        rc = mn_hooks_uninstall(loc.root, &out);
    } else if (!strcmp(argv[0], "status")) {
        rc = mn_hooks_status(loc.root, &out);
    } else {
        mn_location_release(&loc);
        return cli_usage_error(cmd, "no action '%.40s': use install, uninstall or status", argv[0]);
    }
    mn_location_release(&loc);
    if (rc)
        return cli_fail(rc);
    if (g->json)
        cli_print_json(out);
    else
        print_hooks(out, verb);
    json_decref(out);
    return CLI_EXIT_OK;
}
