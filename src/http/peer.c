/*
 * peer.c - which user of this machine is at the other end of a connection.
 *
 * A store is private to its user, yet any local user can open a TCP
 * connection to 127.0.0.1. The kernel knows who owns the client's socket,
 * and Linux shows it in /proc/net/tcp and /proc/net/tcp6 (the lookup identd
 * does): one line per socket of this network namespace,
 *
 *   sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid ...
 *    3: 0100007F:A1B2 0100007F:1BA5 01 00000000:00000000 00:00000000 00000000  1000 ...
 *
 * An IPv4 address is the 4 bytes of the address as they lie in memory
 * (network order), printed as one 32-bit number of this machine's byte
 * order with %08X (127.0.0.1 is 0100007F on x86); an IPv6 address is its
 * 16 bytes as four such numbers; a port is printed in host order (%04X).
 * So an address is compared here as the words the kernel printed: the
 * sockaddr's bytes read as 32-bit words with memcpy, never by rebuilding
 * the text.
 *
 * The client's socket is the line whose local address is our peer and
 * whose remote address is our own end (getpeername / getsockname of the
 * accepted socket). An IPv4 client of a server listening on :: shows in
 * /proc/net/tcp with plain IPv4 addresses while our socket sees
 * ::ffff:a.b.c.d, and an IPv6 client may use v4-mapped addresses too: both
 * files are searched, each with the form of the addresses it uses.
 *
 * Reading those files costs time in proportion to every socket of the
 * machine (7 ms with 2,500 sockets), paid at each accept: a flood of
 * connections would make each one dearer and the accept queue back up. So
 * the same socket is first asked for by its four numbers through netlink's
 * sock_diag (the exact lookup `ss` uses, SOCK_DIAG_BY_FAMILY without
 * NLM_F_DUMP: one hash lookup in the kernel, open to every user); the
 * files are read only when netlink is not there (a kernel without
 * inet_diag, a sandbox that forbids netlink sockets).
 */
#include "common.h"
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "http/http_internal.h"
#include "util/util.h"

#define PROC_NET_MAX (64u << 20) /* a machine with a million sockets: refuse rather than guess */

typedef mn_http_net_end net_end;

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The IPv4 form of an address (plain or v4-mapped), and its IPv6 form (native or mapped). */
static bool end_forms(const struct sockaddr_storage *sa, net_end *v4, bool *has_v4, net_end *v6)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    unsigned char b[16];
    *has_v4 = false;
    memset(v4, 0, sizeof(*v4));
    memset(v6, 0, sizeof(*v6));
    if (sa->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        memcpy(b, mapped, 12);
        memcpy(b + 12, &a->sin_addr, 4);
        v4->port = v6->port = ntohs(a->sin_port);
        *has_v4 = true;
    } else if (sa->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        memcpy(b, &a->sin6_addr, 16);
        v4->port = v6->port = ntohs(a->sin6_port);
        *has_v4 = memcmp(b, mapped, 12) == 0;
    } else {
        return false;
    }
    v4->nw = 1;
    memcpy(&v4->w[0], b + 12, 4);
    v6->nw = 4;
    memcpy(v6->w, b, 16);
    return true;
}

/* "0100007F:A1B2" at *p into e (nw words expected); advances *p. */
static bool parse_end(const char **p, net_end *e, int nw)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    for (int i = 0; i < nw; i++) {
        uint32_t v = 0;
        for (int k = 0; k < 8; k++, s++) {
            int d = hex_digit(*s);
            if (d < 0)
                return false;
            v = (v << 4) | (uint32_t)d;
        }
        e->w[i] = v;
    }
    if (*s++ != ':')
        return false;
    unsigned port = 0;
    for (int k = 0; k < 4; k++, s++) {
        int d = hex_digit(*s);
        if (d < 0)
            return false;
        port = (port << 4) | (unsigned)d;
    }
    e->nw = nw;
    e->port = port;
    *p = s;
    return true;
}

static bool same_end(const net_end *a, const net_end *b)
{
    return a->nw == b->nw && a->port == b->port &&
           memcmp(a->w, b->w, (size_t)a->nw * sizeof(a->w[0])) == 0;
}

int mn_http__proc_net_uid(const char *text, size_t len, bool v6, const net_end *local,
                          const net_end *remote, unsigned *uid)
{
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *next = nl ? nl + 1 : end;
        const char *p = line;
        net_end l, r;
        /* "  sl: local rem st ..." ; the header line fails the parse and is skipped */
        while (p < next && *p == ' ')
            p++;
        while (p < next && *p >= '0' && *p <= '9')
            p++;
        if (p < next && *p == ':' && (p++, parse_end(&p, &l, v6 ? 4 : 1)) &&
            parse_end(&p, &r, v6 ? 4 : 1) && same_end(&l, local) && same_end(&r, remote)) {
            /* st, tx:rx, tr:when, retrnsmt, then uid */
            for (int field = 0; field < 4; field++) {
                while (p < next && *p == ' ')
                    p++;
                while (p < next && *p != ' ' && *p != '\n')
                    p++;
            }
            while (p < next && *p == ' ')
                p++;
            char *stop;
            errno = 0;
            unsigned long u = strtoul(p, &stop, 10);
            if (stop != p && !errno && u <= UINT32_MAX) {
                *uid = (unsigned)u;
                return 0;
            }
        }
        line = next;
    }
    return MN_ENOTFOUND;
}

/* Search one file for the socket local -> remote. */
static int search_file(const char *path, bool v6, const net_end *local, const net_end *remote,
                       unsigned *uid)
{
    mn_buf text = MN_BUF_INIT;
    int rc = mn_fs_read(&text, path, PROC_NET_MAX);
    if (rc == 0)
        rc = mn_http__proc_net_uid(text.ptr, text.len, v6, local, remote, uid);
    mn_buf_release(&text);
    return rc;
}

/*
 * The uid of the TCP socket local -> remote by an exact sock_diag lookup:
 * 0, MN_ENOTFOUND (no such socket), or MN_EUNSUPPORTED when netlink cannot
 * be asked (the caller reads /proc then).
 */
static int diag_uid(bool v6, const net_end *local, const net_end *remote, unsigned *uid)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    struct timeval wait = {1, 0}; /* the kernel answers at once; never hang an accept */
    union {
        struct nlmsghdr nlh;
        char bytes[8192];
    } reply;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), rc = MN_EUNSUPPORTED;
    if (fd < 0)
        return MN_EUNSUPPORTED;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    memset(&msg, 0, sizeof(msg));
    msg.nlh.nlmsg_len = sizeof(msg);
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    msg.nlh.nlmsg_flags = NLM_F_REQUEST;
    msg.req.sdiag_family = v6 ? AF_INET6 : AF_INET;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = ~0u;
    /* net_end keeps the address bytes as they lie in memory: network order, as inet_diag wants */
    memcpy(msg.req.id.idiag_src, local->w, (size_t)local->nw * 4);
    memcpy(msg.req.id.idiag_dst, remote->w, (size_t)remote->nw * 4);
    msg.req.id.idiag_sport = htons((uint16_t)local->port);
    msg.req.id.idiag_dport = htons((uint16_t)remote->port);
    msg.req.id.idiag_cookie[0] = msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&kernel, sizeof(kernel)) !=
        (ssize_t)sizeof(msg))
        goto out;
    ssize_t n = recv(fd, reply.bytes, sizeof(reply.bytes), 0);
    if (n < (ssize_t)sizeof(struct nlmsghdr) || !NLMSG_OK(&reply.nlh, (size_t)n))
        goto out;
    if (reply.nlh.nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(&reply.nlh);
        if (reply.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error == -ENOENT)
            rc = MN_ENOTFOUND;
        goto out;
    }
    if (reply.nlh.nlmsg_type == SOCK_DIAG_BY_FAMILY &&
        reply.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
        const struct inet_diag_msg *d = NLMSG_DATA(&reply.nlh);
        *uid = d->idiag_uid;
        rc = 0;
    }
out:
    close(fd);
    return rc;
}

/* Where to look for the socket local -> remote: netlink, else the /proc file of its family. */
static int find_uid(bool v6, const net_end *local, const net_end *remote, unsigned *uid)
{
    int rc = diag_uid(v6, local, remote, uid);
    if (rc == MN_EUNSUPPORTED)
        rc = search_file(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", v6, local, remote, uid);
    return rc;
}

int mn_http__peer_uid(int fd, unsigned *uid)
{
    struct sockaddr_storage ours, theirs;
    socklen_t ol = sizeof(ours), tl = sizeof(theirs);
    net_end o4, o6, t4, t6;
    bool o_has4, t_has4;
    int rc = MN_ENOTFOUND;
    if (getsockname(fd, (struct sockaddr *)&ours, &ol) != 0 ||
        getpeername(fd, (struct sockaddr *)&theirs, &tl) != 0)
        return mn_error_set(MN_EIO, "cannot read the connection's addresses: %s", strerror(errno));
    if (!end_forms(&ours, &o4, &o_has4, &o6) || !end_forms(&theirs, &t4, &t_has4, &t6))
        return mn_error_set(MN_ENOTFOUND, "the connection is not TCP over IP");
    /* the client's socket: local end = our peer, remote end = us */
    if (o_has4 && t_has4)
        rc = find_uid(false, &t4, &o4, uid);
    if (rc == MN_ENOTFOUND || (rc && !(o_has4 && t_has4)))
        rc = find_uid(true, &t6, &o6, uid);
    if (rc == MN_ENOTFOUND)
        mn_error_set(MN_ENOTFOUND, "no socket of this machine is the other end of the connection");
    return rc;
}

bool mn_http__is_loopback(const struct sockaddr_storage *sa)
{
    if (sa->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

int mn_http__peer_check(int fd, char *why, size_t size)
{
    struct sockaddr_storage theirs;
    socklen_t tl = sizeof(theirs);
    unsigned uid = 0;
    why[0] = '\0';
    if (getpeername(fd, (struct sockaddr *)&theirs, &tl) != 0) {
        snprintf(why, size, "cannot tell who connected (%s); refused", strerror(errno));
        return MN_ERROR;
    }
    if (!mn_http__is_loopback(&theirs))
        return 0; /* from the network: serve.host chose to allow it (docs/http.md) */
    int rc = mn_http__peer_uid(fd, &uid);
    if (rc == MN_ENOTFOUND) /* the table changed while it was read: look once more */
        rc = mn_http__peer_uid(fd, &uid);
    if (rc) {
        snprintf(why, size,
                 "cannot tell which user of this machine connected (%s); this server answers "
                 "its own user only",
                 mn_error_last());
        mn_error_clear();
        return MN_ERROR;
    }
    /* root's connections too: only a server that runs as root serves them */
    if (uid != (unsigned)geteuid()) {
        snprintf(why, size,
                 "this mnemo server answers its own user (uid %u) only; the connection comes "
                 "from uid %u",
                 (unsigned)geteuid(), uid);
        return MN_ERROR;
    }
    return 0;
}
