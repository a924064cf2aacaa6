/*
 * test_sessions.c - the session table of `mnemo serve` (src/http/sessions.c):
 * ids are 64 hex characters and differ; a session ended while a request
 * uses it stays usable until that request lets go, and is freed then (ASan
 * sees a leak or a use after free); at the cap the session idle longest
 * ends, one in use never does (MN_EBUSY when all are); idle sessions expire
 * (after waiting longer than the idle time), those in use do not; one
 * client address over serve.max_sessions_per_address ends its own oldest
 * session, never another's (MN_EBUSY when all of its own are in use), and
 * at the table's cap the address holding the most loses its oldest.
 */
#include "common.h"
#include <unistd.h>

#include "http/http_internal.h"
#include "test.h"
#include "test_fs.h"

static char tmp[64];
static mn_ctx *ctx;
static mn_mcp_server *srv;

static const char INIT[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                           "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

static void test_setup(void)
{
    mn_buf p = MN_BUF_INIT;
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_mcp_options mo = {"http"};
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-http-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_DB");
    mn_buf_printf(&p, "%s/mnemo.db", tmp);
    o.db_path = p.ptr;
    o.start_dir = tmp;
    o.actor = "mcp";
    REQUIRE_OK(mn_ctx_open(&ctx, &o));
    mn_buf_release(&p);
    REQUIRE_OK(mn_mcp_server_new(&srv, ctx, &mo));
}

/* A new session, initialized, with the caller's reference. */
static mn_http_session *initialized_session(void)
{
    mn_http_session *s = NULL;
    mn_mcp_info info = {false, false, false, false};
    char *reply = NULL;
    if (mn_http__session_new(&s, srv) != 0)
        return NULL;
    if (mn_mcp_handle(s->mcp, ctx, INIT, strlen(INIT), &reply, &info) != 0 || !info.initialized)
        fprintf(stderr, "initialize failed: %s\n", reply ? reply : mn_error_last());
    free(reply);
    return s;
}

static void test_ids_and_end_while_used(void)
{
    mn_http_sessions t;
    char id[MN_HTTP_SESSION_ID_LEN + 1];
    mn_http__sessions_init(&t, 10, 3600000);
    mn_http_session *a = initialized_session(), *b = initialized_session();
    REQUIRE(a && b);
    REQUIRE_OK(mn_http__sessions_add(&t, a));
    REQUIRE_OK(mn_http__sessions_add(&t, b));
    CHECK(strlen(a->id) == MN_HTTP_SESSION_ID_LEN && strspn(a->id, "0123456789abcdef") == 64);
    CHECK(strcmp(a->id, b->id) != 0);
    CHECK(mn_http__session_id_valid(a->id));
    memcpy(id, a->id, sizeof(id));
    mn_http__sessions_put(&t, a); /* the creator lets go: the table keeps it */
    mn_http__sessions_put(&t, b);
    CHECK(mn_http__sessions_count(&t) == 2);

    mn_http_session *used = mn_http__sessions_get(&t, id);
    REQUIRE(used == a);
    CHECK(mn_http__sessions_get(&t, "0000") == NULL);
    id[0] = id[0] == 'a' ? 'b' : 'a';
    CHECK(mn_http__sessions_get(&t, id) == NULL); /* one character off */
    id[0] = a->id[0];
    /* DELETE while a request runs in it: unlisted at once, freed when the request ends */
    CHECK(mn_http__sessions_end(&t, id));
    CHECK(!mn_http__sessions_end(&t, id));
    CHECK(mn_http__sessions_get(&t, id) == NULL);
    CHECK(mn_http__sessions_count(&t) == 1);
    char *reply = NULL;
    const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    CHECK_OK(mn_mcp_handle(used->mcp, ctx, ping, strlen(ping), &reply, NULL));
    CHECK(reply && strstr(reply, "\"result\""));
    free(reply);
    mn_http__sessions_put(&t, used);
    mn_http__sessions_release(&t);
}

static void test_cap(void)
{
    mn_http_sessions t;
    mn_http_session *s[3];
    char first[MN_HTTP_SESSION_ID_LEN + 1];
    mn_http__sessions_init(&t, 2, 3600000);
    for (int i = 0; i < 2; i++) {
        REQUIRE((s[i] = initialized_session()) != NULL);
        REQUIRE_OK(mn_http__sessions_add(&t, s[i]));
    }
    memcpy(first, s[0]->id, sizeof(first));
    /* both in use (the creators still hold them): a third cannot get in */
    REQUIRE((s[2] = initialized_session()) != NULL);
    CHECK(mn_http__sessions_add(&t, s[2]) == MN_EBUSY);
    CHECK(mn_http__sessions_count(&t) == 2);
    /* the idle one ends to make room */
    mn_http__sessions_put(&t, s[0]);
    CHECK_OK(mn_http__sessions_add(&t, s[2]));
    CHECK(mn_http__sessions_get(&t, first) == NULL);
    CHECK(mn_http__sessions_count(&t) == 2);
    mn_http__sessions_put(&t, s[1]);
    mn_http__sessions_put(&t, s[2]);
    mn_http__sessions_release(&t);
}

static void test_expire(void)
{
    mn_http_sessions t;
    mn_http_session *idle, *busy;
    char idle_id[MN_HTTP_SESSION_ID_LEN + 1];
    mn_http__sessions_init(&t, 10, 20); /* 20 ms */
    REQUIRE((idle = initialized_session()) != NULL);
    REQUIRE((busy = initialized_session()) != NULL);
    REQUIRE_OK(mn_http__sessions_add(&t, idle));
    REQUIRE_OK(mn_http__sessions_add(&t, busy));
    memcpy(idle_id, idle->id, sizeof(idle_id));
    mn_http__sessions_put(&t, idle);
    usleep(60000);
    mn_http__sessions_expire(&t);
    CHECK(mn_http__sessions_get(&t, idle_id) == NULL);
    CHECK(mn_http__sessions_count(&t) == 1); /* the one in use stays */
    mn_http__sessions_put(&t, busy);
    mn_http__sessions_release(&t);
    CHECK(mn_http__sessions_count(&t) == 0);
}

/* A session of address addr, initialized and listed in t; the caller's reference dropped. */
static int add_idle(mn_http_sessions *t, const char *addr, char id[MN_HTTP_SESSION_ID_LEN + 1])
{
    mn_http_session *s = initialized_session();
    int rc;
    if (!s)
        return MN_ERROR;
    snprintf(s->addr, sizeof(s->addr), "%s", addr);
    rc = mn_http__sessions_add(t, s);
    if (rc == 0 && id)
        memcpy(id, s->id, MN_HTTP_SESSION_ID_LEN + 1);
    mn_http__sessions_put(t, s); /* no pause: sessions used in one millisecond keep their order */
    return rc;
}

static bool alive(mn_http_sessions *t, const char *id)
{
    mn_http_session *s = mn_http__sessions_get(t, id);
    if (s)
        mn_http__sessions_put(t, s);
    return s != NULL;
}

static void test_cap_per_address(void)
{
    mn_http_sessions t;
    char other[MN_HTTP_SESSION_ID_LEN + 1], g[5][MN_HTTP_SESSION_ID_LEN + 1];
    mn_http__sessions_init(&t, 100, 3600000);
    t.max_per_address = 3;
    /* another client's session first, idle longest of all: the old rule ended it first */
    REQUIRE_OK(add_idle(&t, "127.0.0.1", other));
    for (int i = 0; i < 5; i++)
        REQUIRE_OK(add_idle(&t, "127.0.0.2", g[i]));
    CHECK(alive(&t, other));
    CHECK(!alive(&t, g[0]) && !alive(&t, g[1])); /* its own oldest ended */
    CHECK(alive(&t, g[2]) && alive(&t, g[3]) && alive(&t, g[4]));
    CHECK(mn_http__sessions_count(&t) == 4);

    /* all three of its sessions busy: refused, nobody else's ended */
    mn_http_session *busy[3] = {mn_http__sessions_get(&t, g[2]), mn_http__sessions_get(&t, g[3]),
                                mn_http__sessions_get(&t, g[4])};
    REQUIRE(busy[0] && busy[1] && busy[2]);
    CHECK(add_idle(&t, "127.0.0.2", NULL) == MN_EBUSY);
    CHECK(strstr(mn_error_last(), "127.0.0.2") != NULL);
    CHECK(alive(&t, other));
    CHECK(mn_http__sessions_count(&t) == 4);
    for (int i = 0; i < 3; i++)
        mn_http__sessions_put(&t, busy[i]);
    mn_http__sessions_release(&t);
}

static void test_full_table_fair(void)
{
    mn_http_sessions t;
    char a[2][MN_HTTP_SESSION_ID_LEN + 1], b[3][MN_HTTP_SESSION_ID_LEN + 1];
    char c[MN_HTTP_SESSION_ID_LEN + 1], d[MN_HTTP_SESSION_ID_LEN + 1];
    mn_http__sessions_init(&t, 5, 3600000);
    t.max_per_address = 4;
    for (int i = 0; i < 2; i++)
        REQUIRE_OK(add_idle(&t, "10.0.0.1", a[i]));
    for (int i = 0; i < 3; i++)
        REQUIRE_OK(add_idle(&t, "10.0.0.2", b[i]));
    /* a's two are the oldest, but b holds more: b's oldest ends for c */
    REQUIRE_OK(add_idle(&t, "10.0.0.3", c));
    /* then a and b hold two each: the idle longest of those, a's first, ends for d */
    REQUIRE_OK(add_idle(&t, "10.0.0.4", d));
    /* (looked up only now: a lookup marks a session used) */
    CHECK(!alive(&t, b[0]));
    CHECK(!alive(&t, a[0]));
    CHECK(alive(&t, a[1]) && alive(&t, b[1]) && alive(&t, b[2]) && alive(&t, c) && alive(&t, d));
    CHECK(mn_http__sessions_count(&t) == 5);
    mn_http__sessions_release(&t);
}

static void test_teardown(void)
{
    mn_mcp_server_free(srv);
    mn_ctx_free(ctx);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_ids_and_end_while_used), MN_TEST(test_cap),
             MN_TEST(test_expire), MN_TEST(test_cap_per_address), MN_TEST(test_full_table_fair),
             MN_TEST(test_teardown))
