/*
 * test_limits.c - the deadline per request of `mnemo serve`
 * (src/http/limits.c), on real sockets (socketpairs): a connection still
 * reading its request is shut down once its deadline passes, one whose
 * request is being answered is not, until its reply is done and the next
 * request's time runs out; one with bytes its server has not read yet is
 * not cut (a busy worker, not a slow client) until they are read; one is
 * cut only once, and an unlisted one never;
 * the reaper thread does it by itself within the deadline and its period;
 * client addresses print as text, a v4-mapped IPv6 one as IPv4.
 */
#include "common.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/http_internal.h"
#include "test.h"
#include "util/util.h"

static uint64_t now_ms(void)
{
    return mn_time_mono_ns() / 1000000u;
}

/* True when the far end of a socketpair sees the stream end (the near end was shut down). */
static bool ended(int far)
{
    struct pollfd p = {far, POLLIN, 0};
    char c;
    if (poll(&p, 1, 0) != 1)
        return false;
    return recv(far, &c, 1, MSG_DONTWAIT) == 0;
}

static void test_phases(void)
{
    mn_http_limits *l = NULL;
    int reading[2], answering[2], gone[2];
    int conn_a, conn_b, conn_c;             /* their addresses name the connections */
    REQUIRE_OK(mn_http__limits_new(&l, 0)); /* no reaper: reap is called by hand */
    mn_http__limits_free(l);
    l = NULL;

    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, reading) == 0);
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, answering) == 0);
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, gone) == 0);
    /* a deadline of a minute, and reap told the time: nothing waits here */
    REQUIRE_OK(mn_http__limits_new(&l, 60000));
    uint64_t t0 = now_ms();
    mn_http__limits_track(l, &conn_a, reading[0], "127.0.0.2");
    mn_http__limits_track(l, &conn_b, answering[0], "127.0.0.3");
    mn_http__limits_track(l, &conn_c, gone[0], "127.0.0.4");
    CHECK(mn_http__limits_count(l) == 3);
    mn_http__limits_answering(l, &conn_b);
    mn_http__limits_untrack(l, &conn_c);
    CHECK(mn_http__limits_count(l) == 2);

    CHECK(mn_http__limits_reap(l, t0 + 30000) == 0); /* before the deadline: nothing */
    CHECK(!ended(reading[1]));
    CHECK(mn_http__limits_reap(l, now_ms() + 60001) == 1);
    CHECK(ended(reading[1]));
    CHECK(!ended(answering[1])); /* being answered: no deadline, however long */
    CHECK(!ended(gone[1]));      /* unlisted: never touched */
    CHECK(mn_http__limits_reap(l, now_ms() + 120000) == 0); /* cut once only */

    /* its reply done, the kept-alive connection's next request is due within the deadline */
    mn_http__limits_next(l, &conn_b);
    uint64_t t1 = now_ms();
    CHECK(mn_http__limits_reap(l, t1 + 30000) == 0);
    CHECK(!ended(answering[1]));
    /* the client sent it, but the server has not read it (its worker was busy): not cut */
    char got[8];
    REQUIRE(send(answering[1], "GET /", 5, MSG_NOSIGNAL) == 5);
    CHECK(mn_http__limits_reap(l, now_ms() + 60001) == 0);
    CHECK(!ended(answering[1]));
    CHECK(recv(answering[0], got, sizeof(got), MSG_DONTWAIT) == 5); /* read now, still incomplete */
    CHECK(mn_http__limits_reap(l, now_ms() + 60001) == 1);
    CHECK(ended(answering[1]));

    mn_http__limits_untrack(l, &conn_a);
    mn_http__limits_untrack(l, &conn_b);
    mn_http__limits_untrack(l, &conn_b); /* twice: no harm */
    CHECK(mn_http__limits_count(l) == 0);
    mn_http__limits_free(l);
    for (int i = 0; i < 2; i++) {
        close(reading[i]);
        close(answering[i]);
        close(gone[i]);
    }
}

static void test_reaper_thread(void)
{
    mn_http_limits *l = NULL;
    int slow[2], busy[2], conn_slow, conn_busy;
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, slow) == 0);
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, busy) == 0);
    REQUIRE_OK(mn_http__limits_new(&l, 200)); /* 200 ms; the reaper wakes every 50 */
    mn_http__limits_track(l, &conn_slow, slow[0], "127.0.0.2");
    mn_http__limits_track(l, &conn_busy, busy[0], "127.0.0.2");
    mn_http__limits_answering(l, &conn_busy);
    /* trickling does not help: bytes keep coming, the deadline stays */
    uint64_t t0 = now_ms(), cut_at = 0;
    while (now_ms() - t0 < 3000 && !cut_at) {
        char c;
        if (send(slow[1], "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1 || ended(slow[1]))
            cut_at = now_ms();
        (void)!recv(slow[0], &c, 1,
                    MSG_DONTWAIT); /* the server reads each byte, as a worker does */
        usleep(20000);
    }
    CHECK(cut_at != 0);
    CHECK(cut_at - t0 >= 150);  /* not before its time (the clock's ms, a tick of slack) */
    CHECK(cut_at - t0 <= 2000); /* 200 + 50 ms in theory; a loaded machine gets room */
    CHECK(!ended(busy[1]));
    mn_http__limits_untrack(l, &conn_slow);
    mn_http__limits_untrack(l, &conn_busy);
    mn_http__limits_free(l); /* joins the reaper */
    for (int i = 0; i < 2; i++) {
        close(slow[i]);
        close(busy[i]);
    }
}

static void test_addresses(void)
{
    char out[MN_HTTP_ADDR_MAX];
    struct sockaddr_in v4 = {.sin_family = AF_INET};
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET, "127.0.0.2", &v4.sin_addr);
    mn_http__client_address(out, (struct sockaddr *)&v4);
    CHECK_STR(out, "127.0.0.2");
    inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
    mn_http__client_address(out, (struct sockaddr *)&v6);
    CHECK_STR(out, "2001:db8::1");
    inet_pton(AF_INET6, "::ffff:10.1.2.3", &v6.sin6_addr);
    mn_http__client_address(out, (struct sockaddr *)&v6);
    CHECK_STR(out, "10.1.2.3"); /* one client, one name, whichever socket it came in on */
    mn_http__client_address(out, NULL);
    CHECK_STR(out, "");
}

MN_TEST_MAIN(MN_TEST(test_phases), MN_TEST(test_reaper_thread), MN_TEST(test_addresses))
