/*
 * warm.c - the hook's warm path: a running `mnemo mcp` answers `context`
 * for `mnemo hook` over a local socket.
 *
 * Claude Code starts a hook process per prompt. Answered in that process,
 * a prompt pays for loading what a server keeps warm: the store's pages,
 * prepared statements, the code vectors (11.6 MB on sympy), the term and
 * file caches - about two thirds of the hook's time. The MCP server that
 * Claude Code runs for the same project has all of it, so `mnemo mcp`
 * listens (mn_warm_start) and the hook asks it first (mn_warm_context),
 * falling back to answering itself when no server listens or anything
 * goes wrong.
 *
 * The socket lives in Linux's abstract namespace (no file to clean up
 * after a crash, no path length limit), named after the user and the
 * store: "mnemo-warm-<uid>-<xxh64 of the store's real path>". Abstract
 * sockets carry no file permissions, so the server answers only peers of
 * its own uid (SO_PEERCRED). When several servers run on one store, the
 * first one to bind answers; the others retry now and then, so one takes
 * over when it exits.
 *
 * Protocol: one line of JSON in (the context op's arguments), one line of
 * JSON out (its result, or {"error": message}), then the connection ends.
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xxhash.h>

#include "mnemo/agent.h"
#include "mnemo/api.h"
#include "mnemo/format.h"
#include "agent/agent.h"
#include "util/buf.h"
#include "util/util.h"

#define WARM_MAX_REQUEST (1u << 20) /* a prompt is capped far below this */
#define WARM_RETRY_MS    2000       /* how often a server that could not bind tries again */

struct mn_warm {
    pthread_t thread;
    int stop_pipe[2];
    char *db_path;
    char *start_dir;
};

/* The socket's address for the store at db_path; *len its length. */
static int warm_addr(struct sockaddr_un *sa, socklen_t *len, const char *db_path)
{
    char *real = realpath(db_path, NULL);
    if (!real)
        return mn_error_set(MN_ENOTFOUND, "no store at '%s'", db_path);
    unsigned long long h = (unsigned long long)XXH64(real, strlen(real), 0);
    free(real);
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    /* sun_path[0] = '\0': the abstract namespace */
    int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "mnemo-warm-%u-%016llx",
                     (unsigned)getuid(), h);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    return 0;
}

/* Read until end of input or max bytes; 0 on success. */
static int read_all(int fd, mn_buf *b, size_t max)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return mn_error_set(MN_EIO, "warm socket: %s", strerror(errno));
        }
        if (b->len + (size_t)n > max)
            return mn_error_set(MN_ETOOBIG, "warm socket: message over %zu bytes", max);
        mn_buf_put(b, chunk, (size_t)n);
    }
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return mn_error_set(MN_EIO, "warm socket: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- server ---- */

static void serve_one(int fd, mn_ctx **ctx, const mn_warm *w)
{
    mn_buf in = MN_BUF_INIT;
    json_t *args = NULL, *out = NULL, *reply = NULL;
    struct ucred cred;
    socklen_t cl = sizeof(cred);
    struct timeval tv = {5, 0}; /* a peer that stalls does not hold the server */
    int rc;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != getuid())
        return; /* another user: no answer at all */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if ((rc = read_all(fd, &in, WARM_MAX_REQUEST)) == 0) {
        json_error_t jerr;
        args = json_loadb(in.ptr ? in.ptr : "", in.len, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(args))
            rc = mn_error_set(MN_EINVAL, "warm socket: the request is not a JSON object");
    }
    if (rc == 0 && !*ctx) {
        mn_ctx_options o = MN_CTX_OPTIONS_INIT;
        o.db_path = w->db_path;
        o.start_dir = w->start_dir;
        o.actor = "hook";
        o.create = false;
        rc = mn_ctx_open(ctx, &o);
    }
    json_int_t budget = 0;
    if (rc == 0 && !json_object_get(args, "max_tokens") &&
        (rc = mn_hook__budget(*ctx, &budget)) == 0) {
        if (budget == 0) /* the hook is off: nothing relevant to add */
            out = json_pack("{s:b,s:s,s:[]}", "relevant", 0, "markdown", "", "notes");
        else
            json_object_set_new(args, "max_tokens", json_integer(budget < 64 ? 64 : budget));
    }
    if (rc == 0 && !out)
        rc = mn_api_call(*ctx, "context", args, &out);
    reply = rc == 0 ? json_incref(out) : json_pack("{s:s}", "error", mn_error_last());
    if (rc)
        mn_log(MN_LOG_WARN, "warm: a hook's context failed: %s", mn_error_last());
    else
        mn_log(MN_LOG_INFO, "warm: answered a hook's context");
    char *text = reply ? json_dumps(reply, MN_JSON_DUMP_FLAGS) : NULL;
    if (text) {
        write_all(fd, text, strlen(text));
        write_all(fd, "\n", 1);
        free(text);
    }
    mn_error_clear();
    json_decref(reply);
    json_decref(out);
    json_decref(args);
    mn_buf_release(&in);
}

static void *warm_main(void *arg)
{
    mn_warm *w = arg;
    struct sockaddr_un sa;
    socklen_t len;
    mn_ctx *ctx = NULL; /* this thread's own connection to the store */
    int lfd = -1;

    if (warm_addr(&sa, &len, w->db_path) != 0)
        goto out;
    for (;;) {
        if (lfd < 0) {
            lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (lfd >= 0 && (bind(lfd, (struct sockaddr *)&sa, len) != 0 || listen(lfd, 16) != 0)) {
                close(lfd); /* another server of this store answers; try again later */
                lfd = -1;
            }
        }
        struct pollfd p[2] = {{w->stop_pipe[0], POLLIN, 0}, {lfd, POLLIN, 0}};
        int n = poll(p, lfd >= 0 ? 2 : 1, lfd >= 0 ? -1 : WARM_RETRY_MS);
        if (n < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            break; /* mn_warm_stop */
        if (lfd >= 0 && (p[1].revents & POLLIN)) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0) {
                serve_one(fd, &ctx, w);
                close(fd);
            }
        }
    }
out:
    if (lfd >= 0)
        close(lfd);
    mn_ctx_free(ctx);
    return NULL;
}

int mn_warm_start(mn_warm **out, const char *db_path, const char *start_dir)
{
    mn_warm *w = mn_calloc(1, sizeof(*w));
    *out = NULL;
    if (pipe2(w->stop_pipe, O_CLOEXEC) != 0) {
        free(w);
        return mn_error_set(MN_EIO, "warm socket: %s", strerror(errno));
    }
    w->db_path = mn_strdup(db_path);
    w->start_dir = start_dir ? mn_strdup(start_dir) : NULL;
    if (pthread_create(&w->thread, NULL, warm_main, w) != 0) {
        close(w->stop_pipe[0]);
        close(w->stop_pipe[1]);
        free(w->db_path);
        free(w->start_dir);
        free(w);
        return mn_error_set(MN_ERROR, "warm socket: cannot start its thread");
    }
    *out = w;
    return 0;
}

void mn_warm_stop(mn_warm *w)
{
    if (!w)
        return;
    ssize_t n = write(w->stop_pipe[1], "x", 1);
    (void)n;
    pthread_join(w->thread, NULL);
    close(w->stop_pipe[0]);
    close(w->stop_pipe[1]);
    free(w->db_path);
    free(w->start_dir);
    free(w);
}

/* ---- client ---- */

int mn_warm_context(json_t **out, const char *db_path, const json_t *args)
{
    struct sockaddr_un sa;
    socklen_t len;
    mn_buf in = MN_BUF_INIT;
    struct timeval tv = {3, 0}; /* then the hook answers by itself, within its 10 s */
    char *req = NULL;
    int fd = -1, rc;

    *out = NULL;
    if ((rc = warm_addr(&sa, &len, db_path)) != 0)
        return rc;
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(fd, (struct sockaddr *)&sa, len) != 0) {
        rc = mn_error_set(MN_ENOTFOUND, "no mnemo mcp answers for this store");
        goto out;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (!(req = json_dumps(args, MN_JSON_DUMP_FLAGS))) {
        rc = mn_error_set(MN_EINVAL, "warm socket: arguments that cannot be written");
        goto out;
    }
    if ((rc = write_all(fd, req, strlen(req))) != 0)
        goto out;
    shutdown(fd, SHUT_WR);
    if ((rc = read_all(fd, &in, MN_API_MAX_REQUEST)) != 0)
        goto out;
    json_error_t jerr;
    json_t *r = json_loadb(in.ptr ? in.ptr : "", in.len, 0, &jerr);
    const char *err = json_string_value(json_object_get(r, "error"));
    if (!json_is_object(r) || err) {
        rc = mn_error_set(MN_ERROR, "the warm server failed: %s", err ? err : "not JSON");
        json_decref(r);
        goto out;
    }
    *out = r;
out:
    if (fd >= 0)
        close(fd);
    free(req);
    mn_buf_release(&in);
    return rc;
}
