/*
 * test_headers.c - the header checks of /mcp (src/http/headers.c): which
 * origins and hosts pass the DNS-rebinding defence, how Accept picks JSON or
 * SSE, which Content-Types are JSON, which session ids are well formed.
 */
#include "common.h"

#include "http/http_internal.h"
#include "test.h"

static void test_origin(void)
{
    static const char *ok[] = {"http://localhost",  "http://localhost:6274",
                               "https://127.0.0.1", "https://127.0.0.1:8443",
                               "http://[::1]:8080", "HTTP://LocalHost"};
    static const char *refused[] = {"null",
                                    "",
                                    "http://evil.example",
                                    "http://localhost.evil.example",
                                    "http://127.0.0.1.evil.example",
                                    "http://evil.example#localhost",
                                    "http://127.0.0.2",
                                    "http://localhost:",
                                    "http://localhost:123456",
                                    "http://localhost:80/path",
                                    "file://localhost",
                                    "ws://localhost",
                                    "http://[::1",
                                    "http://user@localhost"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(ok); i++)
        CHECK(mn_http__origin_allowed(ok[i], NULL));
    for (size_t i = 0; i < MN_ARRAY_SIZE(refused); i++)
        if (mn_http__origin_allowed(refused[i], NULL)) {
            fprintf(stderr, "origin '%s' allowed\n", refused[i]);
            CHECK(false);
        }
    const char *extra = " https://app.example.com/ ,http://tools.example:8080";
    CHECK(mn_http__origin_allowed("https://app.example.com", extra));
    CHECK(mn_http__origin_allowed("HTTPS://APP.example.com", extra));
    CHECK(mn_http__origin_allowed("http://tools.example:8080", extra));
    CHECK(!mn_http__origin_allowed("http://tools.example", extra));
    CHECK(!mn_http__origin_allowed("https://app.example.com:444", extra));
    CHECK(!mn_http__origin_allowed("https://app.example.co", extra));
    CHECK(!mn_http__origin_allowed("http://app.example.com", extra));
}

static void test_host(void)
{
    char out[64];
    CHECK(mn_http__host_is_loopback("localhost"));
    CHECK(mn_http__host_is_loopback("127.0.0.1:7077"));
    CHECK(mn_http__host_is_loopback("[::1]:7077"));
    CHECK(!mn_http__host_is_loopback("evil.example:7077"));
    CHECK(!mn_http__host_is_loopback("localhost:x"));
    CHECK(!mn_http__host_is_loopback("[::1]x"));
    CHECK(!mn_http__host_is_loopback(""));
    CHECK(mn_http__host_part(out, sizeof(out), "a.example:80"));
    CHECK_STR(out, "a.example");
    CHECK(mn_http__host_part(out, sizeof(out), "[::1]"));
    CHECK_STR(out, "[::1]");
    CHECK(!mn_http__host_part(out, 4, "a.example"));
}

static void check_accept(const char *accept, bool json, bool sse, bool prefer_sse)
{
    mn_http_accept a;
    mn_http__accept_parse(&a, accept);
    if (a.json != json || a.sse != sse || a.prefer_sse != prefer_sse) {
        fprintf(stderr, "Accept '%s': json %d sse %d prefer_sse %d\n", accept ? accept : "(none)",
                a.json, a.sse, a.prefer_sse);
        CHECK(false);
    }
}

static void test_accept(void)
{
    check_accept(NULL, true, true, false);
    check_accept("  ", true, true, false);
    check_accept("application/json, text/event-stream", true, true, false);
    check_accept("text/event-stream", false, true, true);
    check_accept("TEXT/Event-Stream ; charset=utf-8", false, true, true);
    check_accept("application/json", true, false, false);
    check_accept("application/json;q=0.5, text/event-stream", true, true, true);
    check_accept("text/event-stream;q=0.9, application/json", true, true, false);
    check_accept("*/*", true, true, false);
    check_accept("text/*", false, true, true);
    check_accept("application/*;q=0.2, */*;q=0.1", true, true, false);
    check_accept("*/*, application/json;q=0", false, true, true);
    check_accept("text/html", false, false, false);
    check_accept("application/json;q=0", false, false, false);
    check_accept("application/json;q=abc", false, false, false);
    check_accept("application/json;q=2", false, false, false);
    check_accept("application/jsonx, text/event-streamy", false, false, false);
    check_accept(",,;;q=", false, false, false);
}

static void test_content_type(void)
{
    CHECK(mn_http__content_type_is_json("application/json"));
    CHECK(mn_http__content_type_is_json("Application/JSON; charset=UTF-8"));
    CHECK(mn_http__content_type_is_json("application/json;charset=\"utf-8\""));
    CHECK(!mn_http__content_type_is_json("application/json; charset=latin1"));
    CHECK(!mn_http__content_type_is_json("text/plain"));
    CHECK(!mn_http__content_type_is_json("application/jsonp"));
    CHECK(!mn_http__content_type_is_json(""));
    CHECK(!mn_http__content_type_is_json(NULL));
}

static void test_session_id(void)
{
    char long_id[MN_HTTP_SESSION_ID_MAX + 2];
    CHECK(mn_http__session_id_valid("abc"));
    CHECK(mn_http__session_id_valid("!~"));
    CHECK(!mn_http__session_id_valid(""));
    CHECK(!mn_http__session_id_valid("a b"));
    CHECK(!mn_http__session_id_valid("a\tb"));
    CHECK(!mn_http__session_id_valid("caf\xc3\xa9"));
    memset(long_id, 'a', sizeof(long_id) - 1);
    long_id[MN_HTTP_SESSION_ID_MAX] = '\0';
    CHECK(mn_http__session_id_valid(long_id));
    long_id[MN_HTTP_SESSION_ID_MAX] = 'a';
    long_id[MN_HTTP_SESSION_ID_MAX + 1] = '\0';
    CHECK(!mn_http__session_id_valid(long_id));
}

MN_TEST_MAIN(MN_TEST(test_origin), MN_TEST(test_host), MN_TEST(test_accept),
             MN_TEST(test_content_type), MN_TEST(test_session_id))
