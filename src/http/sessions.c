/*
 * sessions.c - the MCP sessions of `mnemo serve`.
 *
 * A session is created by a successful initialize and named by 32 bytes
 * from getrandom() in hex: the id is the only credential a client shows,
 * so it must not be guessable. The table is a small array under one mutex
 * (serve.max_sessions, 100 by default, bounds it); lookups compare every
 * listed id in full so their time does not depend on where a guess first
 * differs.
 *
 * Each session remembers the client address that opened it, and one
 * address keeps at most serve.max_sessions_per_address (16 by default): a
 * client that initializes again and again ends its own oldest sessions,
 * not other clients' (see victim()). A session id still works from any
 * address; the cap only counts where sessions were opened.
 *
 * Lifetime: each session counts references, one held by the table while it
 * is listed and one by each request using it. Ending a session (DELETE,
 * expiry, eviction at a cap) unlists it; the last reference frees it, so
 * a request that still runs in an ended session finishes safely. Expiry
 * and eviction only take sessions no request is using.
 */
#include "common.h"
#include <sys/random.h>

#include "http/http_internal.h"
#include "util/util.h"

static uint64_t now_ms(void)
{
    return mn_time_mono_ns() / 1000000u;
}

/* Notifications sent while a message is handled: kept for an SSE reply, else dropped. */
static void on_notify(void *arg, const char *json, size_t len)
{
    mn_http_session *s = arg;
    if (!s->events)
        return;
    mn_buf_puts(s->events, "event: message\n");
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        while (i + n < len && json[i + n] != '\n')
            n++;
        mn_buf_puts(s->events, "data: ");
        mn_buf_put(s->events, json + i, n);
        mn_buf_putc(s->events, '\n');
        i += n + 1;
    }
    mn_buf_putc(s->events, '\n');
}

int mn_http__session_new(mn_http_session **out, mn_mcp_server *srv)
{
    mn_http_session *s = calloc(1, sizeof(*s));
    int rc;
    if (!s)
        return mn_error_set(MN_ENOMEM, "out of memory for a session");
    if ((rc = mn_mcp_session_new(&s->mcp, srv, on_notify, s)) != 0) {
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->refs = 1;
    s->last_used_ms = now_ms();
    *out = s;
    return 0;
}

static void session_free(mn_http_session *s)
{
    mn_mcp_session_free(s->mcp);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void mn_http__sessions_init(mn_http_sessions *t, size_t max, uint64_t idle_ms)
{
    memset(t, 0, sizeof(*t));
    pthread_mutex_init(&t->lock, NULL);
    t->max = max ? max : 100;
    t->idle_ms = idle_ms;
}

/* Unlist v[i] (table locked); returns true when the caller must free it. */
static bool unlist(mn_http_sessions *t, size_t i)
{
    mn_http_session *s = t->v[i];
    t->v[i] = t->v[--t->n];
    s->listed = false;
    return --s->refs == 0;
}

void mn_http__sessions_release(mn_http_sessions *t)
{
    while (t->n) {
        mn_http_session *s = t->v[0];
        if (unlist(t, 0))
            session_free(s);
    }
    free(t->v);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof(*t));
}

static void new_id(char out[MN_HTTP_SESSION_ID_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[MN_HTTP_SESSION_ID_LEN / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (errno != EINTR)
            abort(); /* no entropy: handing out guessable ids would be worse */
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[MN_HTTP_SESSION_ID_LEN] = '\0';
}

/* Expire idle sessions (table locked); the ones to free go to `dead`. */
static void expire_locked(mn_http_sessions *t, mn_http_session ***dead, size_t *ndead)
{
    uint64_t now = now_ms();
    for (size_t i = 0; i < t->n;) {
        mn_http_session *s = t->v[i];
        if (s->refs == 1 && now - s->last_used_ms > t->idle_ms) {
            mn_log(MN_LOG_INFO, "http: session %.8s… ended after %llu s idle", s->id,
                   (unsigned long long)((now - s->last_used_ms) / 1000));
            if (unlist(t, i))
                (*dead)[(*ndead)++] = s;
        } else {
            i++;
        }
    }
}

/* Free sessions outside the table's lock (freeing an MCP session may take a while). */
static void free_dead(mn_http_session **dead, size_t ndead)
{
    for (size_t i = 0; i < ndead; i++)
        session_free(dead[i]);
    free(dead);
}

static int by_address(const void *a, const void *b)
{
    const mn_http_session *x = *(mn_http_session *const *)a, *y = *(mn_http_session *const *)b;
    return strcmp(x->addr, y->addr);
}

/*
 * The session to end so that one more of address `addr` fits (table
 * locked); t->n when none needs to be, or none may be (*refused). Only
 * idle sessions (refs == 1) are ever ended:
 *   1. addr holds max_per_address already: its own idle longest, or none
 *      (refused);
 *   2. the table is full: the idle longest of the address holding the most
 *      sessions (of those with one idle), so a greedy client ends its own
 *      before anyone else's; among clients with as many each, the session
 *      idle longest. None idle: refused.
 * "Idle longest" is by the order of use (last_use, a counter), not the
 * clock: sessions used within one millisecond still have an order.
 * Case 2 sorts a copy of the table by address (n log n: 10,000 sessions,
 * the largest serve.max_sessions, in about a millisecond).
 */
static size_t victim(mn_http_sessions *t, const char *addr, bool *own_cap, bool *refused)
{
    size_t mine = 0, pick = t->n, pick_count = 0;
    mn_http_session **sorted, *best = NULL;
    *own_cap = *refused = false;
    if (t->max_per_address) {
        for (size_t i = 0; i < t->n; i++)
            mine += strcmp(t->v[i]->addr, addr) == 0;
        if (mine >= t->max_per_address) {
            *own_cap = true;
            for (size_t i = 0; i < t->n; i++)
                if (t->v[i]->refs == 1 && strcmp(t->v[i]->addr, addr) == 0 &&
                    (pick == t->n || t->v[i]->last_use < t->v[pick]->last_use))
                    pick = i;
            *refused = pick == t->n;
            return pick;
        }
    }
    if (t->n < t->max)
        return t->n;
    if (!(sorted = malloc(t->n * sizeof(*sorted)))) {
        *refused = true;
        return t->n;
    }
    memcpy(sorted, t->v, t->n * sizeof(*sorted));
    qsort(sorted, t->n, sizeof(*sorted), by_address);
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        mn_http_session *idle = NULL;
        for (; j < t->n && strcmp(sorted[j]->addr, sorted[i]->addr) == 0; j++)
            if (sorted[j]->refs == 1 && (!idle || sorted[j]->last_use < idle->last_use))
                idle = sorted[j];
        if (idle && (!best || j - i > pick_count ||
                     (j - i == pick_count && idle->last_use < best->last_use))) {
            best = idle;
            pick_count = j - i;
        }
        i = j;
    }
    free(sorted);
    for (size_t i = 0; best && i < t->n; i++)
        if (t->v[i] == best)
            pick = i;
    *refused = pick == t->n;
    return pick;
}

int mn_http__sessions_add(mn_http_sessions *t, mn_http_session *s)
{
    int rc = 0;
    size_t ndead = 0, old;
    bool own_cap, refused;
    mn_http_session **dead;

    new_id(s->id);
    pthread_mutex_lock(&t->lock);
    dead = malloc((t->n + 1) * sizeof(*dead));
    if (!dead) {
        pthread_mutex_unlock(&t->lock);
        return mn_error_set(MN_ENOMEM, "out of memory for a session");
    }
    expire_locked(t, &dead, &ndead);
    old = victim(t, s->addr, &own_cap, &refused);
    if (refused && own_cap) {
        rc = mn_error_set(MN_EBUSY,
                          "the %zu sessions of address '%s' (serve.max_sessions_per_address) "
                          "are all in use; try again later",
                          t->max_per_address, s->addr);
        goto out;
    }
    if (refused) {
        rc = mn_error_set(MN_EBUSY, "all %zu sessions are in use; try again later", t->max);
        goto out;
    }
    if (old < t->n) {
        mn_http_session *o = t->v[old];
        mn_log(MN_LOG_INFO, "http: ending session %.8s… of %s, idle longest (%s)", o->id,
               o->addr[0] ? o->addr : "an unknown address",
               own_cap ? "its address is at serve.max_sessions_per_address"
                       : "the table is at serve.max_sessions");
        if (unlist(t, old))
            dead[ndead++] = o;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        mn_http_session **v = realloc(t->v, cap * sizeof(*v));
        if (!v) {
            rc = mn_error_set(MN_ENOMEM, "out of memory for a session");
            goto out;
        }
        t->v = v;
        t->cap = cap;
    }
    s->refs++;
    s->listed = true;
    s->last_used_ms = now_ms();
    s->last_use = ++t->uses;
    t->v[t->n++] = s;
out:
    pthread_mutex_unlock(&t->lock);
    free_dead(dead, ndead);
    return rc;
}

/* Compare two ids in time that depends only on their lengths. */
static bool same_id(const char *a, const char *b, size_t blen)
{
    unsigned char diff = 0;
    if (strlen(a) != blen)
        return false;
    for (size_t i = 0; i < blen; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

mn_http_session *mn_http__sessions_get(mn_http_sessions *t, const char *id)
{
    mn_http_session *found = NULL, **dead;
    size_t ndead = 0, len = strlen(id);

    pthread_mutex_lock(&t->lock);
    dead = malloc((t->n + 1) * sizeof(*dead));
    if (dead)
        expire_locked(t, &dead, &ndead);
    for (size_t i = 0; i < t->n; i++)
        if (same_id(t->v[i]->id, id, len))
            found = t->v[i];
    if (found)
        found->refs++;
    pthread_mutex_unlock(&t->lock);
    if (dead)
        free_dead(dead, ndead);
    return found;
}

void mn_http__sessions_put(mn_http_sessions *t, mn_http_session *s)
{
    bool last;
    pthread_mutex_lock(&t->lock);
    s->last_used_ms = now_ms();
    s->last_use = ++t->uses;
    last = --s->refs == 0;
    pthread_mutex_unlock(&t->lock);
    if (last)
        session_free(s);
}

bool mn_http__sessions_end(mn_http_sessions *t, const char *id)
{
    mn_http_session *s = NULL;
    bool found = false, last = false;
    size_t len = strlen(id);

    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n; i++)
        if (same_id(t->v[i]->id, id, len)) {
            s = t->v[i];
            found = true;
            last = unlist(t, i);
            break;
        }
    pthread_mutex_unlock(&t->lock);
    if (last)
        session_free(s);
    return found;
}

void mn_http__sessions_expire(mn_http_sessions *t)
{
    mn_http_session **dead;
    size_t ndead = 0;
    pthread_mutex_lock(&t->lock);
    dead = malloc((t->n + 1) * sizeof(*dead));
    if (dead)
        expire_locked(t, &dead, &ndead);
    pthread_mutex_unlock(&t->lock);
    if (dead)
        free_dead(dead, ndead);
}

size_t mn_http__sessions_count(mn_http_sessions *t)
{
    pthread_mutex_lock(&t->lock);
    size_t n = t->n;
    pthread_mutex_unlock(&t->lock);
    return n;
}
