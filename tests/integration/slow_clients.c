/*
 * slow_clients.c - a greedy, slow HTTP client for http_slow.sh: it keeps
 * COUNT connections to a server open, each trickling one byte a second, so
 * that a server which lets trickled bytes extend a request's time is seen
 * to starve, and one with a deadline per request and a cap per address is
 * seen to cut them.
 *
 *   slow_clients PORT FIRST_ADDR NADDR COUNT SECONDS MODE
 *
 * Connection i binds the source address FIRST_ADDR + i % NADDR (all of
 * 127.0.0.0/8 is loopback on Linux, so 127.0.0.2, 127.0.0.3... are other
 * clients to a server on 127.0.0.1). MODE is header (a GET whose headers
 * never end: "GET /healthz HTTP/1.1\r\nHo", then "st: ...\r\nX-Slow: aaa"
 * one byte a second), body (a POST /mcp declaring Content-Length 1000 whose
 * body comes one byte a second) or mixed (every other connection). Once a
 * second every open connection gets its next byte and every closed one is
 * opened again, so the client keeps trying to hold COUNT connections for
 * SECONDS seconds, as a greedy client would. The slots' seconds are spread
 * evenly, so the bytes and reconnections come as a steady stream.
 *
 * What the server does is measured from this side: a connection it closes
 * less than REFUSED_MS after the handshake was refused (over a cap); one
 * it closes later was cut; the life of the longest one (cut or still open
 * at the end) says whether trickling extended it. Before each second's
 * bytes the connections held (open for REFUSED_MS or more) are counted per
 * source address. At the end one line on stdout:
 *
 *   attempts=N refused=N cut=N answered=N longest_ms=N held_max=N
 *   held_per_address_max=N
 *
 * (answered: connections that got any reply bytes; none should). Exit 0,
 * or 2 on bad arguments or when sockets cannot be made (mind ulimit -n).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REFUSED_MS 500
#define MAX_COUNT  4096
#define MAX_ADDRS  250

typedef enum { CLOSED, CONNECTING, OPEN } slot_state;

typedef struct {
    int fd;
    slot_state state;
    bool body;          /* slow body (POST) rather than slow header */
    unsigned addr;      /* index of the source address */
    uint64_t opened_ms; /* when the handshake finished */
    size_t sent;        /* bytes of the trickle sent so far */
    uint64_t next_ms;   /* when its next byte (or reconnection) is due */
    bool answered;      /* the server sent something back */
} slot;

static const char HEADER_START[] = "GET /healthz HTTP/1.1\r\nHo";
static const char HEADER_TRICKLE[] = "st: 127.0.0.1\r\nX-Slow: ";
static const char BODY_START[] = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 "Content-Type: application/json\r\n"
                                 "Accept: application/json, text/event-stream\r\n"
                                 "Content-Length: 1000\r\n\r\n{";

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static long number(const char *s, long min, long max, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > max) {
        fprintf(stderr, "slow_clients: %s must be a number from %ld to %ld (got '%s')\n", what, min,
                max, s);
        exit(2);
    }
    return v;
}

/* Start a non-blocking connection from source address src; -1 when no socket can be made. */
static int start(slot *s, uint32_t src, uint16_t port)
{
    struct sockaddr_in from = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(src)};
    struct sockaddr_in to = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&from, sizeof(from)) != 0 ||
        (connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0 && errno != EINPROGRESS)) {
        close(fd);
        s->fd = -1;
        s->state = CLOSED;
        return 0; /* tried again next second */
    }
    s->fd = fd;
    s->state = CONNECTING;
    s->sent = 0;
    s->answered = false;
    return 0;
}

/* The next bytes of the slot's request: the start at once, then one a second. */
static void trickle(slot *s)
{
    const char *start = s->body ? BODY_START : HEADER_START;
    char byte;
    if (s->sent == 0) {
        size_t n = strlen(start);
        if (send(s->fd, start, n, MSG_NOSIGNAL) == (ssize_t)n)
            s->sent = 1;
        return;
    }
    if (s->body)
        byte = ' '; /* JSON white space: the body never ends within 1000 bytes here */
    else if (s->sent - 1 < sizeof(HEADER_TRICKLE) - 1)
        byte = HEADER_TRICKLE[s->sent - 1];
    else
        byte = 'a';
    if (send(s->fd, &byte, 1, MSG_NOSIGNAL) == 1)
        s->sent++;
}

int main(int argc, char **argv)
{
    struct in_addr first;
    static slot slots[MAX_COUNT];
    static struct pollfd pfd[MAX_COUNT];
    static int which[MAX_COUNT];
    unsigned held[MAX_ADDRS];
    long attempts = 0, refused = 0, cut = 0, answered = 0;
    uint64_t longest = 0, t0, end, next_tick;
    unsigned held_max = 0, held_addr_max = 0;

    if (argc != 7) {
        fprintf(stderr,
                "usage: slow_clients PORT FIRST_ADDR NADDR COUNT SECONDS header|body|mixed\n");
        return 2;
    }
    uint16_t port = (uint16_t)number(argv[1], 1, 65535, "PORT");
    if (inet_pton(AF_INET, argv[2], &first) != 1) {
        fprintf(stderr, "slow_clients: FIRST_ADDR must be an IPv4 address (got '%s')\n", argv[2]);
        return 2;
    }
    unsigned naddr = (unsigned)number(argv[3], 1, MAX_ADDRS, "NADDR");
    int count = (int)number(argv[4], 1, MAX_COUNT, "COUNT");
    long seconds = number(argv[5], 1, 600, "SECONDS");
    const char *mode = argv[6];
    if (strcmp(mode, "header") && strcmp(mode, "body") && strcmp(mode, "mixed")) {
        fprintf(stderr, "slow_clients: MODE must be header, body or mixed (got '%s')\n", mode);
        return 2;
    }
    for (int i = 0; i < count; i++) {
        slots[i].fd = -1;
        slots[i].state = CLOSED;
        slots[i].addr = (unsigned)i % naddr;
        slots[i].body = !strcmp(mode, "body") || (!strcmp(mode, "mixed") && i % 2);
    }

    t0 = now_ms();
    end = t0 + (uint64_t)seconds * 1000u;
    /* slot i's second starts i/COUNT of a second in: bytes and reconnections spread evenly */
    for (int i = 0; i < count; i++)
        slots[i].next_ms = t0 + (uint64_t)i * 1000u / (uint64_t)count;
    next_tick = t0;
    for (;;) {
        uint64_t now = now_ms();
        if (now >= end)
            break;
        if (now >= next_tick) {
            /* count what the server holds, once a second */
            unsigned total = 0;
            memset(held, 0, sizeof(held));
            for (int i = 0; i < count; i++)
                if (slots[i].state == OPEN && now - slots[i].opened_ms >= REFUSED_MS) {
                    held[slots[i].addr]++;
                    total++;
                }
            for (unsigned a = 0; a < naddr; a++)
                if (held[a] > held_addr_max)
                    held_addr_max = held[a];
            if (total > held_max)
                held_max = total;
            next_tick += 1000;
        }
        uint64_t wake = next_tick < end ? next_tick : end;
        for (int i = 0; i < count; i++) {
            slot *s = &slots[i];
            if (now >= s->next_ms) {
                /* send an open one its byte, reopen a closed one */
                if (s->state == OPEN) {
                    trickle(s);
                } else if (s->state == CLOSED) {
                    attempts++;
                    if (start(s, ntohl(first.s_addr) + s->addr, port) != 0) {
                        fprintf(stderr, "slow_clients: cannot make a socket: %s\n",
                                strerror(errno));
                        return 2;
                    }
                }
                s->next_ms += 1000;
            }
            if (s->next_ms < wake)
                wake = s->next_ms;
        }
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (slots[i].state == CLOSED)
                continue;
            pfd[n].fd = slots[i].fd;
            pfd[n].events = slots[i].state == CONNECTING ? POLLOUT : POLLIN;
            pfd[n].revents = 0;
            which[n++] = i;
        }
        now = now_ms();
        int r = poll(pfd, (nfds_t)n, wake > now ? (int)(wake - now) : 0);
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "slow_clients: poll: %s\n", strerror(errno));
            return 2;
        }
        now = now_ms();
        for (int k = 0; r > 0 && k < n; k++) {
            slot *s = &slots[which[k]];
            if (!pfd[k].revents)
                continue;
            if (s->state == CONNECTING) {
                int err = 0;
                socklen_t len = sizeof(err);
                getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err == 0 && !(pfd[k].revents & (POLLERR | POLLHUP))) {
                    s->state = OPEN;
                    s->opened_ms = now;
                    trickle(s);
                } else {
                    close(s->fd);
                    s->fd = -1;
                    s->state = CLOSED;
                }
                continue;
            }
            char buf[512];
            ssize_t got = recv(s->fd, buf, sizeof(buf), 0);
            if (got > 0) {
                /* a reply: counted once, and the connection read on to its end */
                answered += !s->answered;
                s->answered = true;
                continue;
            }
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            uint64_t life = now - s->opened_ms;
            if (life < REFUSED_MS)
                refused++;
            else
                cut++;
            if (life > longest)
                longest = life;
            close(s->fd);
            s->fd = -1;
            s->state = CLOSED;
        }
    }
    for (int i = 0; i < count; i++) {
        if (slots[i].state == OPEN && now_ms() - slots[i].opened_ms > longest)
            longest = now_ms() - slots[i].opened_ms;
        if (slots[i].fd >= 0)
            close(slots[i].fd);
    }
    printf("attempts=%ld refused=%ld cut=%ld answered=%ld longest_ms=%llu held_max=%u "
           "held_per_address_max=%u\n",
           attempts, refused, cut, answered, (unsigned long long)longest, held_max, held_addr_max);
    return 0;
}
