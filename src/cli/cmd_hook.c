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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

int cli_cmd_hook(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    json_t *out = NULL;
    int rc;

    (void)cmd;
    (void)g;
    if (argc != 1 || strcmp(argv[0], "claude-code") != 0) {
        fprintf(stderr, "mnemo: error: hook: the only client with hooks is claude-code "
                        "(see 'mnemo hook --help')\n");
        return CLI_EXIT_FAIL; /* not 2: a hook that exits 2 blocks the prompt */
    }
    signal(SIGALRM, on_alarm);
    alarm(HOOK_TIMEOUT);
    rc = mn_file_read(&text, &len, "-", MN_HOOK_MAX_INPUT);
    if (rc == 0)
        rc = mn_hook_claude_code(&out, text, len);
    free(text);
    if (rc) {
        /* one line, whatever the input put into the message */
        fputs("mnemo hook: ", stderr);
        for (const char *p = mn_error_last(); *p; p++)
            fputc((unsigned char)*p < 0x20 ? '?' : *p, stderr);
        fputs("; nothing added\n", stderr);
        return CLI_EXIT_OK;
    }
    if (out) {
        char *s = json_dumps(out, JSON_COMPACT);
        if (s) {
            fputs(s, stdout);
            fputc('\n', stdout);
            free(s);
        }
        json_decref(out);
    }
    fflush(stdout);
    return CLI_EXIT_OK;
}
