/*
 * test_resources.c - the MCP resources (src/mcp/resources.c) on a real store
 * in a scratch directory: the list with the overview first and memories
 * paged by cursor, every page walked once; bad cursors refused; the
 * template; reading the overview (empty, then with L0 and L1 facts) and a
 * memory (the get op's JSON); forgotten memories hidden from both; and every
 * malformed param refused with the right code.
 */
#include "common.h"
#include <unistd.h>

#include "mcp/mcp.h"
#include "mcp/mcp_internal.h"
#include "util/util.h"
#include "test.h"
#include "test_json.h"
#include "test_fs.h"

static char tmp[64];
static mn_ctx *ctx;

typedef int (*handler)(mn_ctx *, const json_t *, json_t **);

/* Call a handler with params (owned by the call, may be NULL); returns its code. */
static int call(handler h, json_t *params, json_t **out)
{
    json_t *res = NULL;
    mn_error_clear();
    int rc = h(ctx, params, &res);
    json_decref(params);
    if (rc == 0 && !res) {
        fprintf(stderr, "success without a result\n");
        mn_test__failed_checks++;
    }
    if (rc != 0 && res) {
        fprintf(stderr, "failure with a result\n");
        mn_test__failed_checks++;
    }
    if (rc != 0 && !*mn_error_last()) {
        fprintf(stderr, "failure %d without a message\n", rc);
        mn_test__failed_checks++;
    }
    if (out)
        *out = res;
    else
        json_decref(res);
    return rc;
}

/* An op through the table, as a front end calls it; args are owned by the call. */
static int api(const char *op, json_t *args, json_t **out)
{
    int rc = mn_api_call(ctx, op, args, out);
    json_decref(args);
    return rc;
}

/* Save a memory through the op table; returns its id (static buffer). */
static const char *save(json_t *args)
{
    static char id[MN_ID_LEN + 1];
    json_t *out = NULL;
    id[0] = '\0';
    if (mn_api_call(ctx, "save", args, &out) != 0)
        fprintf(stderr, "save failed: %s\n", mn_error_last());
    else
        snprintf(id, sizeof(id), "%s", sget(out, "id"));
    json_decref(args);
    json_decref(out);
    return id;
}

/* The text of a resources/read result's single content, checking its shape. */
static char *read_text(const char *uri, const char *mime)
{
    json_t *res = NULL;
    if (call(mn_mcp_resources_read, json_pack("{s:s}", "uri", uri), &res) != 0) {
        fprintf(stderr, "read %s: %s\n", uri, mn_error_last());
        mn_test__failed_checks++;
        return mn_strdup("");
    }
    const json_t *contents = json_object_get(res, "contents");
    CHECK(json_array_size(contents) == 1);
    const json_t *c = json_array_get(contents, 0);
    CHECK_STR(sget(c, "uri"), uri);
    CHECK_STR(sget(c, "mimeType"), mime);
    char *text = mn_strdup(sget(c, "text") ? sget(c, "text") : "");
    json_decref(res);
    return text;
}

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-res-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_NOW_MS");
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    setenv("USER", "tester", 1);
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/db/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = p.ptr;
    o.start_dir = tmp; /* outside any repository: memories only, no indexing */
    o.actor = "test";
    o.front_end = MN_FRONT_LOCAL_CLI; /* the memories are a person's; the resources are the test */
    CHECK_OK(mn_ctx_open(&ctx, &o));
    mn_buf_release(&p);
    REQUIRE(ctx != NULL);
    CHECK(mn_ctx_root(ctx) == NULL);
}

static void test_templates(void)
{
    json_t *res = NULL;
    REQUIRE_OK(call(mn_mcp_resource_templates_list, NULL, &res));
    const json_t *list = json_object_get(res, "resourceTemplates");
    REQUIRE(json_array_size(list) == 1);
    const json_t *t = json_array_get(list, 0);
    CHECK_STR(sget(t, "uriTemplate"), "mnemo://memory/{id}");
    CHECK_STR(sget(t, "name"), "memory");
    CHECK_STR(sget(t, "mimeType"), "application/json");
    CHECK(sget(t, "description") && strlen(sget(t, "description")) > 20);
    CHECK(json_object_get(res, "nextCursor") == NULL);
    json_decref(res);
    CHECK_OK(call(mn_mcp_resource_templates_list, J("{}"), NULL));
    CHECK_OK(call(mn_mcp_resource_templates_list, J("{'cursor':null}"), NULL));
    CHECK(call(mn_mcp_resource_templates_list, J("{'cursor':'o50.12345678'}"), NULL) == MN_EINVAL);
    CHECK(has_msg("cursor"));
    CHECK(call(mn_mcp_resource_templates_list, J("[1]"), NULL) == MN_EINVAL);
}

static void test_empty_store(void)
{
    json_t *res = NULL;
    REQUIRE_OK(call(mn_mcp_resources_list, NULL, &res));
    const json_t *list = json_object_get(res, "resources");
    REQUIRE(json_array_size(list) == 1);
    const json_t *o = json_array_get(list, 0);
    CHECK_STR(sget(o, "uri"), "mnemo://overview");
    CHECK_STR(sget(o, "mimeType"), "text/markdown");
    CHECK_STR(sget(o, "name"), "overview");
    CHECK(json_object_get(res, "nextCursor") == NULL);
    json_decref(res);
    char *md = read_text("mnemo://overview", "text/markdown");
    CHECK(strstr(md, "# Project memory: overview") != NULL);
    CHECK(strstr(md, "No overview yet") != NULL);
    free(md);
}

static void test_overview(void)
{
    char l0[MN_ID_LEN + 1], l1[MN_ID_LEN + 1], l2[MN_ID_LEN + 1];
    snprintf(l0, sizeof(l0), "%s",
             save(J("{'kind':'fact','level':'L0','title':'Build with cmake, test with ctest',"
                    "'body':'cmake -B build && ctest'}")));
    snprintf(l1, sizeof(l1), "%s",
             save(J("{'kind':'fact','level':'L1','title':'Domain src/retrieve: search and "
                    "ranking','body':'lexical, graph and semantic signals, fused'}")));
    snprintf(l2, sizeof(l2), "%s",
             save(J("{'kind':'gotcha','level':'L2','title':'Pool exhausted under load',"
                    "'body':'close cursors in finally blocks'}")));
    REQUIRE(*l0 && *l1 && *l2);
    char *md = read_text("mnemo://overview", "text/markdown");
    /* L0 as context writes it, L1 with its URI, nothing below L1 */
    const char *proj = strstr(md, "## Project\n");
    CHECK(proj != NULL);
    CHECK(strstr(md, "- Build with cmake, test with ctest\n") != NULL);
    const char *dom = strstr(md, "## Domains and packages\n");
    CHECK(dom != NULL && proj != NULL && dom > proj);
    mn_buf want = MN_BUF_INIT;
    mn_buf_printf(&want, "- Domain src/retrieve: search and ranking (mnemo://memory/%s)\n", l1);
    CHECK(strstr(md, want.ptr) != NULL);
    mn_buf_release(&want);
    CHECK(strstr(md, "Pool exhausted") == NULL);
    CHECK(strstr(md, "No overview yet") == NULL);
    free(md);

    /* the list: the overview, then the memories in id order */
    json_t *res = NULL;
    REQUIRE_OK(call(mn_mcp_resources_list, J("{'cursor':null}"), &res));
    const json_t *list = json_object_get(res, "resources");
    CHECK(json_array_size(list) == 4);
    CHECK_STR(sget(json_array_get(list, 0), "uri"), "mnemo://overview");
    bool seen = false;
    size_t i;
    const json_t *r;
    json_array_foreach(list, i, r)
    {
        if (i == 0)
            continue;
        CHECK(!strncmp(sget(r, "uri"), "mnemo://memory/", 15));
        CHECK_STR(sget(r, "name"), sget(r, "title")); /* older clients show name */
        CHECK_STR(sget(r, "mimeType"), "application/json");
        CHECK(sget(json_object_get(r, "annotations"), "lastModified") != NULL);
        if (!strcmp(sget(r, "uri") + 15, l2)) {
            seen = true;
            CHECK_STR(sget(r, "title"), "Pool exhausted under load");
            CHECK(strstr(sget(r, "description"), "gotcha") != NULL);
        }
    }
    CHECK(seen);
    json_decref(res);
}

static void test_read_memory(void)
{
    char id[MN_ID_LEN + 1];
    snprintf(id, sizeof(id), "%s",
             save(J("{'kind':'gotcha','title':'Token refresh races on logout','body':'take the "
                    "session lock first','context':{'situation':'logout during refresh',"
                    "'solution':'lock','trigger_keywords':['logout','refresh','token']}}")));
    REQUIRE(*id);
    mn_buf uri = MN_BUF_INIT;
    mn_buf_printf(&uri, "mnemo://memory/%s", id);
    char *text = read_text(uri.ptr, "application/json");
    json_t *got = json_loads(text, 0, NULL);
    REQUIRE(got != NULL);
    /* the get op's output: {memory, linked_from} */
    json_t *want = NULL;
    REQUIRE_OK(api("get", json_pack("{s:s}", "id", id), &want));
    CHECK(json_equal(got, want));
    CHECK_STR(sget(json_object_get(got, "memory"), "id"), id);
    CHECK_STR(sget(json_object_get(json_object_get(got, "memory"), "context"), "solution"), "lock");
    CHECK(json_is_array(json_object_get(got, "linked_from")));
    json_decref(got);
    json_decref(want);
    free(text);

    /* either case: ids are case-insensitive Crockford base32 */
    mn_buf lower = MN_BUF_INIT;
    mn_buf_puts(&lower, "mnemo://memory/");
    for (const char *p = id; *p; p++)
        mn_buf_putc(&lower, (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p);
    text = read_text(lower.ptr, "application/json");
    CHECK(strstr(text, id) != NULL);
    free(text);
    mn_buf_release(&lower);
    mn_buf_release(&uri);
}

static void test_read_errors(void)
{
    CHECK(call(mn_mcp_resources_read, NULL, NULL) == MN_EINVAL);
    CHECK(has_msg("uri"));
    CHECK(call(mn_mcp_resources_read, J("{}"), NULL) == MN_EINVAL);
    CHECK(has_msg("missing 'uri'"));
    CHECK(call(mn_mcp_resources_read, J("'mnemo://overview'"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':42}"), NULL) == MN_EINVAL);
    CHECK(has_msg("must be a string"));
    CHECK(call(mn_mcp_resources_read, J("{'uri':null}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':'file:///etc/passwd'}"), NULL) == MN_EINVAL);
    CHECK(has_msg("unsupported uri"));
    CHECK(call(mn_mcp_resources_read, J("{'uri':'MNEMO://overview'}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':''}"), NULL) == MN_EINVAL);
    /* malformed ids are invalid params, not "not found" */
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/'}"), NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/01ARZ3'}"), NULL) == MN_EINVAL);
    CHECK(has_msg("26-character id"));
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/01ARZ3NDEKTSV4RRFFQ69G5FAVX'}"),
               NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/01ARZ3NDEKTSV4RRFFQ69G5FA!'}"),
               NULL) == MN_EINVAL);
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/../../etc/passwd000000000'}"),
               NULL) == MN_EINVAL);
    /* well-formed but absent: not found (-32002 at the dispatch) */
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://memory/01ARZ3NDEKTSV4RRFFQ69G5FAV'}"),
               NULL) == MN_ENOTFOUND);
    CHECK(has_msg("not found"));
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://nothing'}"), NULL) == MN_ENOTFOUND);
    CHECK(call(mn_mcp_resources_read, J("{'uri':'mnemo://overview/x'}"), NULL) == MN_ENOTFOUND);
    /* an overlong uri is refused before anything else */
    mn_buf big = MN_BUF_INIT;
    mn_buf_puts(&big, "mnemo://memory/");
    for (int i = 0; i < 3000; i++)
        mn_buf_putc(&big, 'A');
    CHECK(call(mn_mcp_resources_read, json_pack("{s:s}", "uri", big.ptr), NULL) == MN_EINVAL);
    CHECK(has_msg("longer than"));
    mn_buf_release(&big);
    CHECK(call(mn_mcp_resources_list, J("'x'"), NULL) == MN_EINVAL);
}

/* Every uri of the list, page by page; the number of pages in *pages. */
static json_t *walk(size_t *pages)
{
    json_t *all = json_array(), *cursor = NULL;
    *pages = 0;
    for (;;) {
        json_t *params = cursor ? json_pack("{s:o}", "cursor", cursor) : json_object();
        json_t *res = NULL;
        cursor = NULL;
        if (call(mn_mcp_resources_list, params, &res) != 0) {
            fprintf(stderr, "list: %s\n", mn_error_last());
            mn_test__failed_checks++;
            break;
        }
        ++*pages;
        size_t i;
        const json_t *r;
        json_array_foreach(json_object_get(res, "resources"), i, r)
            json_array_append_new(all, json_string(sget(r, "uri")));
        const json_t *next = json_object_get(res, "nextCursor");
        if (next) {
            CHECK(json_is_string(next));
            cursor = json_incref((json_t *)next);
        }
        json_decref(res);
        if (!cursor || *pages > 100)
            break;
    }
    json_decref(cursor);
    return all;
}

static int64_t live_total(void)
{
    json_t *out = NULL;
    if (mn_api_call(ctx, "list", NULL, &out) != 0)
        return -1;
    int64_t n = json_integer_value(json_object_get(out, "total"));
    json_decref(out);
    return n;
}

static void test_paging(void)
{
    /* 120 more memories through import (one transaction) */
    json_t *mems = json_array();
    for (int i = 0; i < 120; i++) {
        char id[MN_ID_LEN + 1], title[64];
        mn_id_new(id);
        snprintf(title, sizeof(title), "Imported fact number %d", i);
        json_array_append_new(
            mems, json_pack("{s:s,s:s,s:s,s:s,s:{s:s},s:s,s:f,s:s,s:s}", "id", id, "kind", "fact",
                            "level", "L2", "title", title, "provenance", "source", "import",
                            "status", "active", "confidence", 0.9, "created_at",
                            "2026-11-20T10:00:00.000Z", "updated_at", "2026-11-20T10:00:00.000Z"));
    }
    json_t *out = NULL;
    REQUIRE_OK(api("import", json_pack("{s:o}", "memories", mems), &out));
    json_decref(out);
    int64_t total = live_total();
    REQUIRE(total >= 124);

    size_t pages = 0;
    json_t *all = walk(&pages);
    /* 50 memories a page, the overview on the first */
    CHECK(pages == (size_t)((total + 49) / 50));
    CHECK((int64_t)json_array_size(all) == total + 1);
    CHECK_STR(json_string_value(json_array_get(all, 0)), "mnemo://overview");
    /* no uri twice */
    json_t *seen = json_object();
    size_t i;
    const json_t *u;
    json_array_foreach(all, i, u)
    {
        CHECK(json_object_get(seen, json_string_value(u)) == NULL);
        json_object_set_new(seen, json_string_value(u), json_true());
    }
    json_decref(seen);
    json_decref(all);

    /* the first page: 51 entries and a cursor; the second has no overview */
    json_t *res = NULL;
    REQUIRE_OK(call(mn_mcp_resources_list, NULL, &res));
    CHECK(json_array_size(json_object_get(res, "resources")) == 51);
    const char *next = sget(res, "nextCursor");
    REQUIRE(next != NULL);
    json_t *res2 = NULL;
    REQUIRE_OK(call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", next), &res2));
    CHECK(json_array_size(json_object_get(res2, "resources")) == 50);
    CHECK(strcmp(sget(json_array_get(json_object_get(res2, "resources"), 0), "uri"),
                 "mnemo://overview") != 0);
    json_decref(res2);

    /* cursors we never issued */
    char bad[64];
    snprintf(bad, sizeof(bad), "%s", next);
    bad[strlen(bad) - 1] = bad[strlen(bad) - 1] == '0' ? '1' : '0'; /* the check digit */
    CHECK(call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", bad), NULL) == MN_EINVAL);
    CHECK(has_msg("invalid cursor"));
    snprintf(bad, sizeof(bad), "o51%s", strchr(next, '.')); /* another offset, same check */
    CHECK(call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", bad), NULL) == MN_EINVAL);
    snprintf(bad, sizeof(bad), "o0%s", next + 1); /* the same offset, not as we write it */
    CHECK(call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", bad), NULL) == MN_EINVAL);
    snprintf(bad, sizeof(bad), "%s", next);
    for (char *c = strchr(bad, '.'); *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'f' ? *c - 'a' + 'A' : *c);
    if (strcmp(bad, next) != 0) /* upper-case hex: not ours either */
        CHECK(call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", bad), NULL) == MN_EINVAL);
    static const char *const junk[] = {"",
                                       "o",
                                       "o.",
                                       "o50",
                                       "50",
                                       "o-1.00000000",
                                       "o0.00000000",
                                       "oabc.12345678",
                                       "o50.1234567",
                                       "o50.123456789",
                                       "o50.1234567G",
                                       "o99999999999999999999.00000000"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(junk); k++) {
        if (call(mn_mcp_resources_list, json_pack("{s:s}", "cursor", junk[k]), NULL) != MN_EINVAL) {
            fprintf(stderr, "  cursor '%s' was accepted\n", junk[k]);
            mn_test__failed_checks++;
        }
    }
    CHECK(call(mn_mcp_resources_list, J("{'cursor':50}"), NULL) == MN_EINVAL);
    CHECK(has_msg("must be a string"));
    CHECK(call(mn_mcp_resources_list, J("{'cursor':['o50']}"), NULL) == MN_EINVAL);
    json_decref(res);
}

static void test_forgotten_hidden(void)
{
    char id[MN_ID_LEN + 1];
    snprintf(
        id, sizeof(id), "%s",
        save(J("{'kind':'fact','title':'Secret rotation runs nightly','body':'cron at 3am'}")));
    REQUIRE(*id);
    mn_buf uri = MN_BUF_INIT;
    mn_buf_printf(&uri, "mnemo://memory/%s", id);
    size_t pages;
    json_t *all = walk(&pages);
    bool listed = false;
    size_t i;
    const json_t *u;
    json_array_foreach(all, i, u) listed |= !strcmp(json_string_value(u), uri.ptr);
    CHECK(listed);
    json_decref(all);

    json_t *out = NULL;
    REQUIRE_OK(api("forget", json_pack("{s:s}", "id", id), &out));
    json_decref(out);
    all = walk(&pages);
    listed = false;
    json_array_foreach(all, i, u) listed |= !strcmp(json_string_value(u), uri.ptr);
    CHECK(!listed);
    CHECK((int64_t)json_array_size(all) == live_total() + 1);
    json_decref(all);
    CHECK(call(mn_mcp_resources_read, json_pack("{s:s}", "uri", uri.ptr), NULL) == MN_ENOTFOUND);
    CHECK(has_msg("not found"));

    /* brought back, it is readable again */
    REQUIRE_OK(api("forget", json_pack("{s:s,s:b}", "id", id, "undo", 1), &out));
    json_decref(out);
    char *text = read_text(uri.ptr, "application/json");
    CHECK(strstr(text, "Secret rotation") != NULL);
    free(text);
    mn_buf_release(&uri);
}

/* Through the dispatch (server.c), as a client sees it: the JSON-RPC error codes. */
static json_t *rpc(mn_mcp_session *s, const char *msg)
{
    char *reply = NULL;
    if (mn_mcp_handle(s, ctx, msg, strlen(msg), &reply, NULL) != 0 || !reply) {
        fprintf(stderr, "no reply to %s\n", msg);
        mn_test__failed_checks++;
        free(reply);
        return json_object();
    }
    json_t *v = json_loads(reply, 0, NULL);
    free(reply);
    return v ? v : json_object();
}

static json_int_t rpc_error(mn_mcp_session *s, const char *msg)
{
    json_t *v = rpc(s, msg);
    json_int_t code = json_integer_value(json_object_get(json_object_get(v, "error"), "code"));
    json_decref(v);
    return code;
}

static void test_over_jsonrpc(void)
{
    mn_mcp_server *srv = NULL;
    mn_mcp_session *s = NULL;
    mn_mcp_options o = {"stdio"};
    REQUIRE_OK(mn_mcp_server_new(&srv, ctx, &o));
    REQUIRE_OK(mn_mcp_session_new(&s, srv, NULL, NULL));
    json_t *init = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                          "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                          "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    CHECK(json_object_get(json_object_get(json_object_get(init, "result"), "capabilities"),
                          "resources") != NULL);
    json_decref(init);
    json_t *list = rpc(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/list\"}");
    CHECK_STR(sget(json_array_get(json_object_get(json_object_get(list, "result"), "resources"), 0),
                   "uri"),
              "mnemo://overview");
    json_decref(list);
    CHECK(rpc_error(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\","
                       "\"params\":{\"uri\":\"mnemo://memory/01ARZ3NDEKTSV4RRFFQ69G5FAV\"}}") ==
          -32002);
    CHECK(rpc_error(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\","
                       "\"params\":{\"uri\":\"mnemo://memory/nope\"}}") == -32602);
    CHECK(rpc_error(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\","
                       "\"params\":{\"cursor\":\"o50.00000000\"}}") == -32602);
    CHECK(rpc_error(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\","
                       "\"params\":{}}") == -32602);
    mn_mcp_session_free(s);
    mn_mcp_server_free(srv);
}

static void test_teardown(void)
{
    mn_ctx_free(ctx);
    ctx = NULL;
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_templates), MN_TEST(test_empty_store),
             MN_TEST(test_overview), MN_TEST(test_read_memory), MN_TEST(test_read_errors),
             MN_TEST(test_paging), MN_TEST(test_forgotten_hidden), MN_TEST(test_over_jsonrpc),
             MN_TEST(test_teardown))
