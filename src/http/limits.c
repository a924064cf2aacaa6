/*
 * limits.c - the deadline per request of `mnemo serve`: a request's
 * headers and body must arrive within serve.request_deadline, however the
 * client spaces its bytes.
 *
 * libmicrohttpd's own timeout (MHD_OPTION_CONNECTION_TIMEOUT) counts
 * idleness: each byte a client trickles starts it again, so a client that
 * sends a byte a second holds a connection for ever, and 512 of them (the
 * server's connection limit) starve everyone. So every connection is
 * listed here from accept (server.c's on_connection) to close, with the
 * moment by which its request must be read:
 *
 *   accepted                 deadline = now + D   (reading the first request)
 *   the request is read      no deadline          (mn_http__limits_answering:
 *                                                  the reply may take minutes,
 *                                                  an index op, a stream)
 *   the reply is done        deadline = now + D   (mn_http__limits_next: the
 *                                                  next request on a kept-alive
 *                                                  connection, or its close)
 *   closed                   unlisted             (mn_http__limits_untrack)
 *
 * A reaper thread wakes every D / 8 (at least 50 ms, at most 1 s) and shuts
 * down (shutdown(2), SHUT_RDWR) every connection past its deadline: the
 * worker that owns it then reads the end of the stream and closes it the
 * usual way, freeing what it holds. The reaper never closes a descriptor,
 * and shuts one down only while it is listed, under the table's lock;
 * libmicrohttpd reports a connection closed (MHD_CONNECTION_NOTIFY_CLOSED,
 * which unlists it under the same lock) before it closes its descriptor,
 * so the number the reaper uses always still names that connection and
 * never one that reused it.
 *
 * A connection with bytes waiting unread (FIONREAD) is not cut, even past
 * its deadline: then the server is the slow one, not the client. A
 * connection stays on one worker from accept to close, and a worker busy
 * with a long request (an index of a large repository) reads none of its
 * other connections meanwhile; their clients sent their requests in time.
 * A trickling client's byte is read as soon as its worker is free, so the
 * next pass finds nothing unread and cuts it.
 *
 * An idle kept-alive connection thus lasts D at most too: HTTP clients
 * close their own idle connections sooner (Node's fetch after 4 s) and
 * open a new one when they need it.
 *
 * The table is an unordered array (at most the server's 512 connections):
 * a linear search per call is a few hundred pointer compares, far below
 * what a request costs.
 */
#include "common.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "http/http_internal.h"
#include "util/util.h"

#define REAP_PERIOD_MIN_MS 50
#define REAP_PERIOD_MAX_MS 1000

typedef struct {
    const void *conn;
    int fd;
    uint64_t deadline_ms; /* monotonic; 0: none (the request is being answered) */
    bool cut;             /* shut down already */
    char addr[MN_HTTP_ADDR_MAX];
} tracked;

struct mn_http_limits {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t reaper;
    bool running, stop;
    uint64_t deadline_ms;
    tracked *v;
    size_t n, cap;
};

static uint64_t now_ms(void)
{
    return mn_time_mono_ns() / 1000000u;
}

void mn_http__client_address(char out[MN_HTTP_ADDR_MAX], const struct sockaddr *sa)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    out[0] = '\0';
    if (!sa)
        return;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, MN_HTTP_ADDR_MAX);
    } else if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (memcmp(a->s6_addr, mapped, sizeof(mapped)) == 0)
            inet_ntop(AF_INET, a->s6_addr + 12, out, MN_HTTP_ADDR_MAX); /* one client, one name */
        else
            inet_ntop(AF_INET6, a, out, MN_HTTP_ADDR_MAX);
    }
}

static tracked *find(mn_http_limits *l, const void *conn)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].conn == conn)
            return &l->v[i];
    return NULL;
}

size_t mn_http__limits_reap(mn_http_limits *l, uint64_t now)
{
    size_t cut = 0;
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < l->n; i++) {
        tracked *t = &l->v[i];
        int unread = 0;
        if (t->cut || !t->deadline_ms || now < t->deadline_ms)
            continue;
        if (ioctl(t->fd, FIONREAD, &unread) == 0 && unread > 0)
            continue; /* its worker has not read what came: not the client's fault */
        /* the owner's worker sees the stream end and closes it; see the top of the file */
        shutdown(t->fd, SHUT_RDWR);
        t->cut = true;
        cut++;
        mn_log(MN_LOG_INFO, "http: cut a connection from %s: no whole request within %llu ms",
               t->addr[0] ? t->addr : "an unknown address", (unsigned long long)l->deadline_ms);
    }
    pthread_mutex_unlock(&l->lock);
    return cut;
}

static void *reaper_main(void *arg)
{
    mn_http_limits *l = arg;
    uint64_t period = l->deadline_ms / 8;
    if (period < REAP_PERIOD_MIN_MS)
        period = REAP_PERIOD_MIN_MS;
    if (period > REAP_PERIOD_MAX_MS)
        period = REAP_PERIOD_MAX_MS;
    pthread_mutex_lock(&l->lock);
    while (!l->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)(period % 1000u) * 1000000L;
        until.tv_sec += (time_t)(period / 1000u) + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
        if (l->stop)
            break;
        pthread_mutex_unlock(&l->lock);
        mn_http__limits_reap(l, now_ms());
        pthread_mutex_lock(&l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

int mn_http__limits_new(mn_http_limits **out, uint64_t deadline_ms)
{
    pthread_condattr_t ca;
    mn_http_limits *l = calloc(1, sizeof(*l));
    int rc = 0;
    if (!l)
        return mn_error_set(MN_ENOMEM, "out of memory for the connection table");
    l->deadline_ms = deadline_ms;
    pthread_mutex_init(&l->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (deadline_ms && pthread_create(&l->reaper, NULL, reaper_main, l) != 0) {
        rc = mn_error_set(MN_ERROR, "cannot start the thread that enforces serve.request_deadline");
        goto out;
    }
    l->running = deadline_ms != 0;
out:
    if (rc) {
        mn_http__limits_free(l);
        l = NULL;
    }
    *out = l;
    return rc;
}

void mn_http__limits_free(mn_http_limits *l)
{
    if (!l)
        return;
    if (l->running) {
        pthread_mutex_lock(&l->lock);
        l->stop = true;
        pthread_cond_signal(&l->wake);
        pthread_mutex_unlock(&l->lock);
        pthread_join(l->reaper, NULL);
    }
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    free(l->v);
    free(l);
}

void mn_http__limits_track(mn_http_limits *l, const void *conn, int fd, const char *addr)
{
    pthread_mutex_lock(&l->lock);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        tracked *v = realloc(l->v, cap * sizeof(*v));
        if (!v) {
            /* unlisted, the connection has only libmicrohttpd's idle timeout */
            pthread_mutex_unlock(&l->lock);
            mn_log(MN_LOG_WARN, "http: out of memory for the connection table");
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    tracked *t = &l->v[l->n++];
    memset(t, 0, sizeof(*t));
    t->conn = conn;
    t->fd = fd;
    t->deadline_ms = l->deadline_ms ? now_ms() + l->deadline_ms : 0;
    snprintf(t->addr, sizeof(t->addr), "%s", addr ? addr : "");
    pthread_mutex_unlock(&l->lock);
}

void mn_http__limits_untrack(mn_http_limits *l, const void *conn)
{
    pthread_mutex_lock(&l->lock);
    tracked *t = find(l, conn);
    if (t)
        *t = l->v[--l->n];
    pthread_mutex_unlock(&l->lock);
}

void mn_http__limits_answering(mn_http_limits *l, const void *conn)
{
    pthread_mutex_lock(&l->lock);
    tracked *t = find(l, conn);
    if (t)
        t->deadline_ms = 0;
    pthread_mutex_unlock(&l->lock);
}

void mn_http__limits_next(mn_http_limits *l, const void *conn)
{
    pthread_mutex_lock(&l->lock);
    tracked *t = find(l, conn);
    if (t && l->deadline_ms)
        t->deadline_ms = now_ms() + l->deadline_ms;
    pthread_mutex_unlock(&l->lock);
}

size_t mn_http__limits_count(mn_http_limits *l)
{
    pthread_mutex_lock(&l->lock);
    size_t n = l->n;
    pthread_mutex_unlock(&l->lock);
    return n;
}
