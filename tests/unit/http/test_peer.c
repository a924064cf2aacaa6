/*
 * test_peer.c - which user a loopback connection comes from
 * (src/http/peer.c): the /proc/net/tcp and tcp6 lines as the kernel prints
 * them (addresses as 32-bit words of this machine's order, ports in hex,
 * the header line, other sockets around), and real loopback connections
 * whose client socket is ours, found by the uid of this process.
 */
#include "common.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/http_internal.h"
#include "test.h"

/* An end from an address text and a port, words as the kernel prints them. */
static mn_http_net_end end_of(const char *addr, unsigned port)
{
    mn_http_net_end e;
    memset(&e, 0, sizeof(e));
    unsigned char b[16];
    if (inet_pton(AF_INET, addr, b) == 1) {
        e.nw = 1;
        memcpy(&e.w[0], b, 4);
    } else {
        CHECK(inet_pton(AF_INET6, addr, b) == 1);
        e.nw = 4;
        memcpy(e.w, b, 16);
    }
    e.port = port;
    return e;
}

static void test_parse(void)
{
    /* 127.0.0.1 is 0100007F on a little-endian machine and 7F000001 on a big-endian one */
    uint32_t lo;
    memcpy(&lo, (unsigned char[]){127, 0, 0, 1}, 4);
    char lohex[9];
    snprintf(lohex, sizeof(lohex), "%08X", lo);
    char text[2048];
    snprintf(text, sizeof(text),
             "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
             "timeout inode\n"
             "   0: 00000000:1BA5 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0  "
             "      0 1605 1 0000000000000000 100 0 0 10 0\n"
             "   1: %s:1BA5 %s:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 "
             "77 1\n"
             "   2: %s:A1B2 %s:1BA5 01 00000000:00000000 00:00000000 00000000  1000        0 "
             "78 1\n"
             "  13: %s:A1B3 %s:1BA5 01 00000000:00000000 00:00000000 00000000 65534        0 "
             "79 1\n",
             lohex, lohex, lohex, lohex, lohex, lohex);
    mn_http_net_end server = end_of("127.0.0.1", 0x1BA5), client = end_of("127.0.0.1", 0xA1B2);
    mn_http_net_end other = end_of("127.0.0.1", 0xA1B3), gone = end_of("127.0.0.1", 0xA1B4);
    unsigned uid = 12345;
    /* the client's socket: local = the client, remote = the server */
    CHECK_OK(mn_http__proc_net_uid(text, strlen(text), false, &client, &server, &uid));
    CHECK(uid == 1000);
    /* the server's own accepted socket (local = server) is another line, uid 0 */
    CHECK_OK(mn_http__proc_net_uid(text, strlen(text), false, &server, &client, &uid));
    CHECK(uid == 0);
    CHECK_OK(mn_http__proc_net_uid(text, strlen(text), false, &other, &server, &uid));
    CHECK(uid == 65534);
    CHECK(mn_http__proc_net_uid(text, strlen(text), false, &gone, &server, &uid) == MN_ENOTFOUND);
    /* the listening socket's line (remote 0:0) matches nothing asked */
    CHECK(mn_http__proc_net_uid(text, strlen(text), true, &client, &server, &uid) == MN_ENOTFOUND);

    /* tcp6: ::1 is four words, the last one holding 01 in its first byte */
    uint32_t w3;
    memcpy(&w3, (unsigned char[]){0, 0, 0, 1}, 4);
    char text6[1024];
    snprintf(text6, sizeof(text6),
             "  sl  local_address                         remote_address                        "
             "st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
             "   0: 000000000000000000000000%08X:D00D 000000000000000000000000%08X:1F90 01 "
             "00000000:00000000 00:00000000 00000000  4242        0 99 1\n",
             w3, w3);
    mn_http_net_end c6 = end_of("::1", 0xD00D), s6 = end_of("::1", 0x1F90);
    CHECK_OK(mn_http__proc_net_uid(text6, strlen(text6), true, &c6, &s6, &uid));
    CHECK(uid == 4242);
    /* garbage and cut lines find nothing */
    static const char *const bad[] = {"", "\n\n", "   1: 0100007F", "   1: XYZ:1 0:0 01 0 0 0 7",
                                      "   1: 0100007F:A1B2 0100007F:1BA5 01"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++)
        CHECK(mn_http__proc_net_uid(bad[i], strlen(bad[i]), false, &client, &server, &uid) ==
              MN_ENOTFOUND);
}

/* A real loopback connection: the accepted socket's peer is a socket of ours. */
static void connect_check(int family, const char *addr)
{
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof(ss));
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        inet_pton(AF_INET, addr, &a->sin_addr);
        len = sizeof(*a);
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        inet_pton(AF_INET6, addr, &a->sin6_addr);
        len = sizeof(*a);
    }
    int l = socket(family, SOCK_STREAM, 0);
    REQUIRE(l >= 0);
    if (bind(l, (struct sockaddr *)&ss, len) != 0) {
        fprintf(stderr, "note: cannot bind %s here; not checked\n", addr);
        close(l);
        return;
    }
    REQUIRE(listen(l, 4) == 0);
    REQUIRE(getsockname(l, (struct sockaddr *)&ss, &len) == 0);
    int c = socket(family, SOCK_STREAM, 0);
    REQUIRE(c >= 0 && connect(c, (struct sockaddr *)&ss, len) == 0);
    int a = accept(l, NULL, NULL);
    REQUIRE(a >= 0);
    unsigned uid = 12345;
    CHECK_OK(mn_http__peer_uid(a, &uid));
    CHECK(uid == (unsigned)geteuid());
    char why[300];
    CHECK_OK(mn_http__peer_check(a, why, sizeof(why)));
    close(a);
    close(c);
    close(l);
}

static void test_real_connections(void)
{
    connect_check(AF_INET, "127.0.0.1");
    connect_check(AF_INET, "127.0.0.2"); /* all of 127/8 is loopback */
    connect_check(AF_INET6, "::1");
    connect_check(AF_INET6, "::ffff:127.0.0.1"); /* an IPv4 client seen by an IPv6 socket */
}

MN_TEST_MAIN(MN_TEST(test_parse), MN_TEST(test_real_connections))
