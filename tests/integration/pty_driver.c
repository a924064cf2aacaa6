/*
 * pty_driver.c - run a program on a pseudo-terminal and answer its prompts,
 * for the tests of mnemo's interactive paths (cli_interactive.sh).
 *
 *   pty_driver [-t SECONDS] STEP... -- PROGRAM [ARG...]
 *
 * Steps run in order:
 *   expect:TEXT   wait until the program's output since the last match
 *                 contains TEXT
 *   send:TEXT     type TEXT and Enter ("send:" alone is a bare Enter)
 *   eof           type Ctrl-D (end of input when at the start of a line)
 *
 * After the last step the driver reads until the program closes the
 * terminal and exits. Everything the terminal showed (prompts, the echo of
 * what was typed, the program's output) is copied to stdout, so the caller
 * can check it. The exit status is the program's (128 + N when signal N
 * killed it), 124 when an expect or the end did not come within the
 * timeout (default 20 s; the program is killed then), 2 on a usage error.
 *
 * The program gets a fresh controlling terminal from forkpty(), so isatty()
 * is true for its stdin, stdout and stderr; the environment is inherited.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char *data;
    size_t len, cap;
    size_t mark; /* where the next expect starts looking */
} transcript;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(transcript *t, const char *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            fprintf(stderr, "pty_driver: out of memory\n");
            exit(2);
        }
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->len, p, n);
    t->len += n;
    t->data[t->len] = '\0';
    fwrite(p, 1, n, stdout);
    fflush(stdout);
}

/*
 * Read what the program wrote, waiting at most until deadline.
 * Returns 1 when something was read, 0 at the deadline, -1 at end of output.
 */
static int pump(transcript *t, int fd, double deadline)
{
    double left = deadline - now();
    if (left <= 0)
        return 0;
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR)
        return 1;
    if (r <= 0)
        return 0;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
        return 1;
    if (n <= 0) /* EIO: every slave descriptor is closed */
        return -1;
    append(t, buf, (size_t)n);
    return 1;
}

static int type_text(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static int give_up(pid_t pid, const char *why, const char *what)
{
    fprintf(stderr, "pty_driver: %s%s%s\n", why, what ? ": " : "", what ? what : "");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 124;
}

int main(int argc, char **argv)
{
    double timeout = 20;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-t") == 0) {
        char *end;
        timeout = strtod(argv[2], &end);
        if (*end || timeout <= 0) {
            fprintf(stderr, "pty_driver: -t needs a number of seconds\n");
            return 2;
        }
        first = 3;
    }
    int sep = first;
    while (sep < argc && strcmp(argv[sep], "--") != 0)
        sep++;
    if (sep + 1 >= argc) {
        fprintf(stderr, "usage: pty_driver [-t SECONDS] [expect:TEXT | send:TEXT | eof]... -- "
                        "PROGRAM [ARG...]\n");
        return 2;
    }
    for (int i = first; i < sep; i++) {
        if (strncmp(argv[i], "expect:", 7) != 0 && strncmp(argv[i], "send:", 5) != 0 &&
            strcmp(argv[i], "eof") != 0) {
            fprintf(stderr, "pty_driver: unknown step '%s'\n", argv[i]);
            return 2;
        }
    }

    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid < 0) {
        perror("pty_driver: forkpty");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[sep + 1], argv + sep + 1);
        fprintf(stderr, "pty_driver: cannot run %s: %s\n", argv[sep + 1], strerror(errno));
        _exit(127);
    }

    transcript t = {NULL, 0, 0, 0};
    double deadline = now() + timeout;
    for (int i = first; i < sep; i++) {
        const char *step = argv[i];
        if (strncmp(step, "expect:", 7) == 0) {
            const char *want = step + 7;
            size_t wn = strlen(want);
            for (;;) {
                const char *hit =
                    t.len > t.mark ? memmem(t.data + t.mark, t.len - t.mark, want, wn) : NULL;
                if (hit) {
                    t.mark = (size_t)(hit - t.data) + wn;
                    break;
                }
                int r = pump(&t, master, deadline);
                if (r < 0) {
                    fprintf(stderr, "pty_driver: the program ended before printing '%s'\n", want);
                    waitpid(pid, NULL, 0);
                    return 124;
                }
                if (r == 0)
                    return give_up(pid, "timed out waiting for", want);
            }
        } else if (strncmp(step, "send:", 5) == 0) {
            if (type_text(master, step + 5, strlen(step + 5)) < 0 || type_text(master, "\n", 1) < 0)
                return give_up(pid, "cannot type", step + 5);
        } else if (type_text(master, "\x04", 1) < 0) {
            return give_up(pid, "cannot type", "Ctrl-D");
        }
    }
    for (;;) {
        int r = pump(&t, master, deadline);
        if (r < 0)
            break;
        if (r == 0)
            return give_up(pid, "timed out waiting for the program to end", NULL);
    }
    close(master);
    free(t.data);

    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("pty_driver: waitpid");
            return 2;
        }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
