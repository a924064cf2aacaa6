/*
 * stdio.c - newline-delimited JSON-RPC on two file descriptors.
 *
 * Two threads. The reader splits input into lines and queues them; it
 * handles notifications/cancelled itself (mn_mcp_session_cancel), so a
 * cancel is seen while the request it names is running or still queued.
 * The caller's thread takes lines off the queue in order and hands them to
 * mn_mcp_handle with its store; it alone writes (replies and log
 * notifications, one whole line per write), so replies come in the order
 * of the requests.
 *
 * Limits: a line over MN_MCP_MAX_MESSAGE bytes gets one -32600 error (id
 * null, in its turn) and the rest of it is discarded without being
 * stored. The queue holds at most QUEUE_MAX messages and QUEUE_BYTES bytes
 * (one message of any allowed size fits in an empty queue); the reader
 * waits for room, so a client that floods costs bounded memory. Blank lines are skipped; a CR
 * before the LF is dropped.
 */
#include "common.h"
#include <pthread.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/stdio.h"
#include "util/util.h"

#define QUEUE_MAX   64
#define QUEUE_BYTES (16u << 20) /* one message of any allowed size still fits in an empty queue */
#define READ_CHUNK  (64 * 1024)

typedef struct line {
    char *text;
    size_t len;
    struct line *next;
} line;

typedef struct {
    mn_mcp_session *session;
    int in_fd, out_fd;

    pthread_mutex_t write_lock;
    bool write_failed;

    pthread_mutex_t lock; /* the queue and the flags below */
    pthread_cond_t changed;
    line *head, *tail;
    size_t queued, queued_bytes;
    bool eof;  /* the reader is done */
    bool stop; /* the handler is done: the reader must not wait for room */

    /* the reader's buffers, here so that cancelling it in read() leaks nothing */
    char *chunk;
    mn_buf cur;
} stdio_state;

static void write_line(stdio_state *st, const char *text, size_t len)
{
    pthread_mutex_lock(&st->write_lock);
    if (!st->write_failed) {
        char *buf = mn_malloc(len + 1);
        memcpy(buf, text, len);
        buf[len] = '\n';
        size_t off = 0;
        while (off < len + 1) {
            ssize_t n = write(st->out_fd, buf + off, len + 1 - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                mn_log(MN_LOG_WARN, "mcp: cannot write to the client: %s",
                       n < 0 ? strerror(errno) : "short write");
                st->write_failed = true;
                break;
            }
            off += (size_t)n;
        }
        free(buf);
    }
    pthread_mutex_unlock(&st->write_lock);
}

static void notify(void *arg, const char *json, size_t len)
{
    write_line(arg, json, len);
}

/* Queue a message; text NULL stands for a line that was over the limit. */
static void enqueue(stdio_state *st, char *text, size_t len)
{
    line *l = mn_malloc(sizeof(*l));
    l->text = text;
    l->len = len;
    l->next = NULL;
    pthread_mutex_lock(&st->lock);
    while ((st->queued >= QUEUE_MAX || (st->queued && st->queued_bytes + len > QUEUE_BYTES)) &&
           !st->stop)
        pthread_cond_wait(&st->changed, &st->lock);
    if (st->stop) {
        pthread_mutex_unlock(&st->lock);
        free(l->text);
        free(l);
        return;
    }
    if (st->tail)
        st->tail->next = l;
    else
        st->head = l;
    st->tail = l;
    st->queued++;
    st->queued_bytes += len;
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
}

/* Hand a complete line to the handler (or act on a cancel at once). */
static void take_line(stdio_state *st, char *text, size_t len)
{
    char *id = NULL;
    size_t blank = 0;
    while (len && text[len - 1] == '\r')
        len--;
    while (blank < len && (text[blank] == ' ' || text[blank] == '\t' || text[blank] == '\r'))
        blank++;
    if (blank == len) { /* an empty or blank line is no message */
        free(text);
        return;
    }
    /* cheap test first: only a message naming the method can be a cancel */
    if (memmem(text, len, "notifications/cancelled", 23) && mn_mcp_cancel_target(text, len, &id)) {
        mn_mcp_session_cancel(st->session, id);
        free(id);
        free(text);
        return;
    }
    enqueue(st, text, len);
}

/* The one error for a line over the limit (written in turn, after the replies before it). */
static void too_large(stdio_state *st)
{
    json_t *err = mn_rpc_error(NULL, MN_RPC_INVALID_REQUEST,
                               "invalid request: a message is longer than the limit of %u bytes; "
                               "it was discarded",
                               MN_MCP_MAX_MESSAGE);
    char *text = mn_rpc_dump(err);
    if (text)
        write_line(st, text, strlen(text));
    free(text);
    json_decref(err);
}

static void *reader(void *arg)
{
    stdio_state *st = arg;
    char *chunk = st->chunk;
    mn_buf *cur = &st->cur;
    bool discarding = false;

    /* cancellable only while waiting in read(): nothing is half done there */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    for (;;) {
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
        ssize_t n = read(st->in_fd, chunk, READ_CHUNK);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            mn_log(MN_LOG_WARN, "mcp: cannot read from the client: %s", strerror(errno));
        if (n <= 0)
            break;
        pthread_mutex_lock(&st->lock);
        bool stop = st->stop;
        pthread_mutex_unlock(&st->lock);
        if (stop)
            break;
        const char *p = chunk, *end = chunk + n;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t part = (size_t)((nl ? nl : end) - p);
            if (!discarding) {
                if (cur->len + part > MN_MCP_MAX_MESSAGE) {
                    discarding = true;
                    mn_buf_release(cur);
                    enqueue(st, NULL, 0);
                } else {
                    mn_buf_put(cur, p, part);
                }
            }
            if (nl) {
                if (!discarding && cur->len) {
                    size_t len = cur->len;
                    take_line(st, mn_buf_detach(cur), len);
                }
                mn_buf_release(cur);
                discarding = false;
            }
            p += part + (nl ? 1 : 0);
        }
    }
    /* a last message without its newline still counts */
    if (!discarding && cur->len) {
        size_t len = cur->len;
        take_line(st, mn_buf_detach(cur), len);
    }
    mn_buf_release(cur);
    pthread_mutex_lock(&st->lock);
    st->eof = true;
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
    return NULL;
}

int mn_mcp_stdio_serve(mn_mcp_server *srv, mn_ctx *ctx, int in_fd, int out_fd)
{
    stdio_state st;
    pthread_t thread;
    int rc;

    memset(&st, 0, sizeof(st));
    st.in_fd = in_fd;
    st.out_fd = out_fd;
    st.chunk = mn_malloc(READ_CHUNK);
    mn_buf_init(&st.cur);
    pthread_mutex_init(&st.write_lock, NULL);
    pthread_mutex_init(&st.lock, NULL);
    pthread_cond_init(&st.changed, NULL);
    if ((rc = mn_mcp_session_new(&st.session, srv, notify, &st)) != 0)
        goto out;
    if (pthread_create(&thread, NULL, reader, &st) != 0) {
        rc = mn_error_set(MN_ERROR, "cannot start the reader thread");
        goto out;
    }
    for (;;) {
        pthread_mutex_lock(&st.lock);
        while (!st.head && !st.eof)
            pthread_cond_wait(&st.changed, &st.lock);
        line *l = st.head;
        if (l) {
            st.head = l->next;
            if (!st.head)
                st.tail = NULL;
            st.queued--;
            st.queued_bytes -= l->len;
            pthread_cond_broadcast(&st.changed);
        }
        pthread_mutex_unlock(&st.lock);
        if (!l)
            break; /* end of input and nothing queued */
        char *reply = NULL;
        mn_mcp_info info = {false, false, false, false};
        if (!l->text)
            too_large(&st);
        else if (mn_mcp_handle(st.session, ctx, l->text, l->len, &reply, &info) != 0)
            mn_log(MN_LOG_ERROR, "mcp: %s", mn_error_last());
        if (reply)
            write_line(&st, reply, strlen(reply));
        free(reply);
        free(l->text);
        free(l);
        /* A tool that may have written (a save), nothing waiting: do now what the next
         * question would otherwise wait for (embedding the new memory, reloading the
         * vectors: ~100 ms on sympy; a few reads when nothing changed). Claude Code's
         * prompt hook, answered by this process (warm.c), gains most. After the first
         * request, whatever it was: only the reads (mn_ctx_warm; a session that only asks
         * embeds nothing). */
        pthread_mutex_lock(&st.lock);
        bool idle = !st.head;
        pthread_mutex_unlock(&st.lock);
        if (idle && info.may_have_written) {
            mn_ctx_prepare(ctx);
            mn_error_clear();
        } else if (idle && !mn_ctx_warmed(ctx)) {
            mn_ctx_warm(ctx);
            mn_error_clear();
        }
        pthread_mutex_lock(&st.write_lock);
        bool failed = st.write_failed;
        pthread_mutex_unlock(&st.write_lock);
        if (failed)
            break;
    }
    pthread_mutex_lock(&st.lock);
    st.stop = true;
    pthread_cond_broadcast(&st.changed);
    bool reader_done = st.eof;
    pthread_mutex_unlock(&st.lock);
    if (!reader_done)
        pthread_cancel(thread); /* blocked in read() on a client that stopped reading */
    pthread_join(thread, NULL);
    while (st.head) {
        line *l = st.head;
        st.head = l->next;
        free(l->text);
        free(l);
    }
    if (st.write_failed)
        rc = mn_error_set(MN_EIO, "the client stopped reading replies");
out:
    mn_mcp_session_free(st.session);
    mn_buf_release(&st.cur);
    free(st.chunk);
    pthread_cond_destroy(&st.changed);
    pthread_mutex_destroy(&st.lock);
    pthread_mutex_destroy(&st.write_lock);
    return rc;
}
