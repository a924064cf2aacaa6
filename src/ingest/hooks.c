/*
 * hooks.c - install, remove and report mnemo's git hooks (hooks.h).
 *
 * The hook, for NAME in post-commit, post-merge, post-checkout:
 *
 *   #!/bin/sh
 *   # mnemo-hook v1 ...
 *   m='/abs/mnemo'
 *   if [ -x "$m" ] || { m=mnemo; command -v mnemo >/dev/null 2>&1; }; then
 *     "$m" hooks run NAME "$@" </dev/null >/dev/null 2>&1 &
 *   fi
 *   c="<its directory>/NAME.mnemo-chained"
 *   [ -x "$c" ] && exec "$c" "$@"
 *   exit 0
 *
 * What it costs git: one sh (built-ins only) and one fork. mnemo runs in
 * the background, its input and output on /dev/null (`hooks run` then makes
 * itself a session leader and ignores SIGHUP), so git, and a program reading
 * git's output, wait for nothing of it; the hook that was there before is
 * exec'd in the hook's own process, so its exit status is the hook's:
 * post-checkout's becomes `git checkout`'s, and mnemo never changes it. A
 * missing mnemo is looked for on PATH, then left out.
 *
 * Files are written atomically (a temporary file, then rename) with mode
 * 0755; a chained hook is renamed, never copied, so it keeps its bytes,
 * its mode and its being a symbolic link.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ingest/hooks.h"
#include "util/util.h"

const char *const mn_git_hooks[] = {"post-commit", "post-merge", "post-checkout"};
const size_t mn_git_hooks_count = MN_ARRAY_SIZE(mn_git_hooks);

/* `git -C root rev-parse --git-path hooks`, absolute. */
static int hooks_dir(const char *root, char **out)
{
    int pipefd[2];
    *out = NULL;
    if (pipe(pipefd) != 0)
        return mn_error_set(MN_EIO, "cannot run git: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return mn_error_set(MN_EIO, "cannot run git: %s", strerror(errno));
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(pipefd[1], 1);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        close(pipefd[0]);
        close(pipefd[1]);
        execlp("git", "git", "-C", root, "rev-parse", "--git-path", "hooks", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    char buf[4096];
    size_t n = 0;
    ssize_t got;
    while (n < sizeof(buf) - 1 && (got = read(pipefd[0], buf + n, sizeof(buf) - 1 - n)) > 0)
        n += (size_t)got;
    close(pipefd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    buf[n] = '\0';
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !n)
        return mn_error_set(
            MN_EINVAL, "'%s' is not a git repository (or git is not installed): hooks need one",
            root);
    mn_buf p = MN_BUF_INIT;
    if (buf[0] == '/')
        mn_buf_puts(&p, buf);
    else
        mn_buf_printf(&p, "%s/%s", root, buf);
    *out = mn_fs_abspath(p.ptr);
    mn_buf_release(&p);
    return 0;
}

static char *path_of(const char *dir, const char *name, const char *suffix)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s/%s%s", dir, name, suffix);
    return mn_buf_detach(&b);
}

/* Whether the file at path is a hook mnemo wrote (its marker on line 2). */
static bool ours(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    mn_buf b = MN_BUF_INIT;
    bool yes = mn_fs_read(&b, path, 1 << 16) == 0 && b.ptr && strstr(b.ptr, MN_HOOK_MARKER "\n");
    mn_error_clear();
    mn_buf_release(&b);
    return yes;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The binary a hook of ours runs ('...' on the m= line), or NULL. */
static char *binary_of(const char *path)
{
    mn_buf b = MN_BUF_INIT;
    char *out = NULL;
    if (mn_fs_read(&b, path, 1 << 16) == 0 && b.ptr) {
        const char *m = strstr(b.ptr, "\nm='");
        if (m) {
            m += 4;
            const char *e = strchr(m, '\'');
            if (e)
                out = mn_strndup(m, (size_t)(e - m));
        }
    }
    mn_error_clear();
    mn_buf_release(&b);
    return out;
}

/* exe in single quotes for sh ('\'' for a quote inside). */
static void sh_quote(mn_buf *b, const char *s)
{
    mn_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            mn_buf_puts(b, "'\\''");
        else
            mn_buf_putc(b, *s);
    }
    mn_buf_putc(b, '\'');
}

static char *script(const char *name, const char *exe)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b,
                  "#!/bin/sh\n" MN_HOOK_MARKER "\n"
                  "# %s: mnemo learns from git in the background (`mnemo hooks status`).\n"
                  "# `mnemo hooks uninstall` removes this file and puts back the hook that\n"
                  "# was here (%s.mnemo-chained), which this one runs.\n"
                  "m=",
                  name, name);
    sh_quote(&b, exe);
    mn_buf_printf(&b,
                  "\n"
                  "if [ -x \"$m\" ] || { m=mnemo; command -v mnemo >/dev/null 2>&1; }; then\n"
                  "  \"$m\" hooks run %s \"$@\" </dev/null >/dev/null 2>&1 &\n"
                  "fi\n"
                  "c=\"${0%%/*}/%s.mnemo-chained\"\n"
                  "[ -x \"$c\" ] && exec \"$c\" \"$@\"\n"
                  "exit 0\n",
                  name, name);
    return mn_buf_detach(&b);
}

/* Executable from the moment it is in place: git skips a hook it cannot run. */
static int write_hook(const char *path, const char *text)
{
    return mn_fs_write_atomic_mode(path, text, strlen(text), 0755);
}

int mn_hooks_install(const char *root, const char *exe, json_t **out)
{
    char *dir = NULL;
    int rc = hooks_dir(root, &dir);
    if (rc)
        return rc;
    if (!mn_fs_is_dir(dir) && (rc = mn_fs_mkdir_p(dir)) != 0) {
        free(dir);
        return rc;
    }
    /* refuse before changing anything */
    for (size_t i = 0; i < mn_git_hooks_count; i++) {
        char *p = path_of(dir, mn_git_hooks[i], ""),
             *c = path_of(dir, mn_git_hooks[i], ".mnemo-chained");
        bool clash = exists(p) && !ours(p) && exists(c);
        free(p);
        free(c);
        if (clash) {
            rc = mn_error_set(MN_EEXISTS,
                              "'%s/%s.mnemo-chained' exists and so does a hook that is not "
                              "mnemo's: move one of them away, then install again",
                              dir, mn_git_hooks[i]);
            free(dir);
            return rc;
        }
    }
    json_t *hooks = json_array();
    for (size_t i = 0; i < mn_git_hooks_count && rc == 0; i++) {
        const char *name = mn_git_hooks[i];
        char *p = path_of(dir, name, ""), *c = path_of(dir, name, ".mnemo-chained");
        const char *action = "installed";
        if (exists(p) && ours(p)) {
            action = "updated";
        } else if (exists(p)) {
            if (rename(p, c) != 0)
                rc = mn_error_set(MN_EIO, "cannot move '%s' aside: %s", p, strerror(errno));
        }
        char *text = script(name, exe);
        if (rc == 0)
            rc = write_hook(p, text);
        if (rc == 0) {
            json_t *h = json_pack("{s:s,s:s}", "name", name, "action", action);
            if (exists(c))
                json_object_set_new(h, "chained", json_string(c));
            json_array_append_new(hooks, h);
        }
        free(text);
        free(p);
        free(c);
    }
    if (rc == 0)
        *out = json_pack("{s:s,s:o,s:s}", "dir", dir, "hooks", hooks, "binary", exe);
    else
        json_decref(hooks);
    free(dir);
    return rc;
}

int mn_hooks_uninstall(const char *root, json_t **out)
{
    char *dir = NULL;
    int rc = hooks_dir(root, &dir);
    if (rc)
        return rc;
    json_t *hooks = json_array();
    for (size_t i = 0; i < mn_git_hooks_count && rc == 0; i++) {
        const char *name = mn_git_hooks[i];
        char *p = path_of(dir, name, ""), *c = path_of(dir, name, ".mnemo-chained");
        const char *action = "absent";
        if (exists(p) && !ours(p)) {
            action = "kept (not mnemo's)";
        } else {
            if (exists(p)) {
                if (unlink(p) != 0)
                    rc = mn_error_set(MN_EIO, "cannot remove '%s': %s", p, strerror(errno));
                action = "removed";
            }
            if (rc == 0 && exists(c)) {
                if (rename(c, p) != 0)
                    rc = mn_error_set(MN_EIO, "cannot put '%s' back: %s", c, strerror(errno));
                action = "restored";
            }
        }
        if (rc == 0)
            json_array_append_new(hooks, json_pack("{s:s,s:s}", "name", name, "action", action));
        free(p);
        free(c);
    }
    if (rc == 0)
        *out = json_pack("{s:s,s:o}", "dir", dir, "hooks", hooks);
    else
        json_decref(hooks);
    free(dir);
    return rc;
}

int mn_hooks_status(const char *root, json_t **out)
{
    char *dir = NULL;
    int rc = hooks_dir(root, &dir);
    if (rc)
        return rc;
    json_t *hooks = json_array();
    for (size_t i = 0; i < mn_git_hooks_count; i++) {
        const char *name = mn_git_hooks[i];
        char *p = path_of(dir, name, ""), *c = path_of(dir, name, ".mnemo-chained");
        const char *state = !exists(p) ? "missing" : ours(p) ? "installed" : "foreign";
        json_t *h = json_pack("{s:s,s:s}", "name", name, "state", state);
        if (exists(c))
            json_object_set_new(h, "chained", json_string(c));
        if (!strcmp(state, "installed")) {
            char *bin = binary_of(p);
            if (bin) {
                json_object_set_new(h, "binary", json_string(bin));
                json_object_set_new(h, "binary_ok", json_boolean(access(bin, X_OK) == 0));
            }
            free(bin);
        }
        json_array_append_new(hooks, h);
        free(p);
        free(c);
    }
    *out = json_pack("{s:s,s:o}", "dir", dir, "hooks", hooks);
    free(dir);
    return 0;
}
