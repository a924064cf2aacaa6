/*
 * cmd_hook.c - mnemo hook claude-code: answer a Claude Code hook call.
 *
 * The hook's JSON comes on stdin, the answer (or nothing) goes to stdout;
 * the logic is mn_hook_claude_code (src/agent/hook.c). A hook must never
 * break the agent's turn, so whatever goes wrong (no store, bad input, a
 * slow answer) ends the same way: nothing on stdout, one line on stderr,
 * exit 0. Never exit 2: Claude Code reads it as "block this prompt". A
 * watchdog ends the process quietly after HOOK_TIMEOUT seconds; the store
 * is left consistent by SQLite whatever moment that comes at.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli.h"
#include "mnemo/agent.h"

#define HOOK_TIMEOUT 10

static void on_alarm(int sig)
{
    static const char msg[] = "mnemo hook: no answer within 10 s; nothing added\n";
    (void)sig;
    ssize_t n = write(2, msg, sizeof(msg) - 1);
    (void)n;
    _exit(0);
}

/*
 * One background job of a kind at a time. Until the first re-index records
 * its run, every prompt finds the index stale; without this each would
 * start its own walk of the tree; a Stop comes after every turn, and one
 * capture of the transcript reads all of it. The lock is an flock on
 * "<store>-<what>.lock" taken here and inherited by the child, so it is
 * held exactly as long as the child lives, however it ends (a crash or a
 * kill releases it too). Returns the descriptor to close once the child is
 * started, -1 when one runs already, -2 when no lock can be had (then one
 * is started anyway: freshness matters more than a repeated walk).
 */
static int job_lock(const char *root, const char *what)
{
    mn_location loc = {0};
    char path[4200];
    int fd = -2;
    /* a server's store (URL, conninfo) has no directory here for the lock file */
    if (mn_locate(&loc, NULL, root) == 0 && mn_location_is_file(loc.db_path) &&
        (size_t)snprintf(path, sizeof(path), "%s-%s.lock", loc.db_path, what) < sizeof(path) &&
        (fd = open(path, O_RDWR | O_CREAT, 0600)) >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int held = errno == EWOULDBLOCK;
        close(fd);
        fd = held ? -1 : -2;
    } else if (fd < 0) {
        fd = -2;
    }
    mn_location_release(&loc);
    mn_error_clear();
    return fd;
}

/*
 * Run `mnemo ARGS...` in dir after answering, without making Claude Code
 * wait: in a new session, its standard streams on /dev/null so the pipe
 * Claude Code reads ends when we exit, one of a kind at a time (job_lock).
 * A failure to start it costs only what it would have done: the next
 * prompt (a re-index) or the next Stop (a capture: the transcript keeps
 * everything, and a capture never saves a thing twice) tries again.
 */
static void run_later(const char *dir, const char *what, char *const args[])
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    int lock = job_lock(dir, what);
    if (lock == -1)
        return; /* one is under way */
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    for (int fd = 0; fd < 3; fd++)
        posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, dir); /* the store is found from there */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    char *argv[8] = {self};
    for (size_t i = 0; args[i] && i + 2 < sizeof(argv) / sizeof(argv[0]); i++)
        argv[i + 1] = args[i];
    pid_t pid;
    if (posix_spawn(&pid, self, &fa, &at, argv, environ) != 0)
        cli_eprintf("mnemo hook: could not start a background %s\n", what);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (lock >= 0)
        close(lock); /* the child's copy holds the lock now */
}

int cli_cmd_hook(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    json_t *out = NULL;
    mn_hook_after after = {0};
    int rc;

    (void)cmd;
    (void)g;
    if (argc != 1 || strcmp(argv[0], "claude-code") != 0) {
        cli_eprintf("mnemo: error: hook: the only client with hooks is claude-code "
                    "(see 'mnemo hook --help')\n");
        return CLI_EXIT_FAIL; /* not 2: a hook that exits 2 blocks the prompt */
    }
    signal(SIGALRM, on_alarm);
    alarm(HOOK_TIMEOUT);
    rc = mn_file_read(&text, &len, "-", MN_HOOK_MAX_INPUT);
    if (rc == 0)
        rc = mn_hook_claude_code(&out, text, len, &after);
    free(text);
    if (rc) {
        /* one line, whatever the input put into the message (out.c escapes it) */
        cli_eprintf("mnemo hook: %s; nothing added\n", mn_error_last());
        mn_hook_after_release(&after);
        return CLI_EXIT_OK;
    }
    if (out) {
        char *s = json_dumps(out, JSON_COMPACT);
        if (s) {
            cli_put_data(stdout, s, strlen(s));
            cli_put_data(stdout, "\n", 1);
            free(s);
        }
        json_decref(out);
    }
    fflush(stdout);
    if (after.reindex_root)
        run_later(after.reindex_root, "reindex", (char *[]){"index", NULL});
    if (after.capture_dir)
        run_later(after.capture_dir, "capture", (char *[]){"capture", after.transcript, NULL});
    mn_hook_after_release(&after);
    return CLI_EXIT_OK;
}
