/*
 * test_sessions.c - the session table of `mnemo serve` (src/http/sessions.c):
 * ids are 64 hex characters and differ; a session ended while a request
 * uses it stays usable until that request lets go, and is freed then (ASan
 * sees a leak or a use after free); at the cap the session idle longest
 * ends, one in use never does (MN_EBUSY when all are); idle sessions expire
 * (after waiting longer than the idle time), those in use do not.
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

static void test_teardown(void)
{
    mn_mcp_server_free(srv);
    mn_ctx_free(ctx);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_ids_and_end_while_used), MN_TEST(test_cap),
             MN_TEST(test_expire), MN_TEST(test_teardown))
