/*
 * test_embed_config.c - the embed.* configuration keys (src/api/config.c):
 * their checks, the key that config never shows back (list, get, the
 * answer to set, the audit log), and mn_api__embed_options, which turns
 * them into the options an embedder is opened with.
 */
#include "common.h"
#include <sqlite3.h>

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

/* Declared in api/api_internal.h once integrated; repeated here so the test stands alone. */
int mn_api__embed_options(mn_ctx *ctx, mn_embed_options *out);

static char tmp[64];

static int set(mn_ctx *ctx, const char *key, const char *value, json_t **out)
{
    json_t *args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", key, "value", value);
    json_t *o = NULL;
    int rc = mn_api_call(ctx, "config", args, &o);
    json_decref(args);
    if (out)
        *out = o;
    else
        json_decref(o);
    return rc;
}

static char *get(mn_ctx *ctx, const char *key)
{
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", key), *o = NULL;
    char *v = NULL;
    if (mn_api_call(ctx, "config", args, &o) == 0)
        v = mn_strdup(json_string_value(json_object_get(o, "value")));
    json_decref(args);
    json_decref(o);
    return v;
}

static char *listed(mn_ctx *ctx, const char *key)
{
    json_t *args = json_pack("{s:s}", "action", "list"), *o = NULL;
    char *v = NULL;
    if (mn_api_call(ctx, "config", args, &o) == 0) {
        size_t i;
        json_t *item;
        json_array_foreach(json_object_get(o, "settings"), i, item)
        {
            if (strcmp(json_string_value(json_object_get(item, "key")), key) == 0)
                v = mn_strdup(json_string_value(json_object_get(item, "value")));
        }
    }
    json_decref(args);
    json_decref(o);
    return v;
}

/* Whether any audit row of the store holds text. */
static bool audit_has(const char *db, const char *text)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    bool found = false;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "SELECT count(*) FROM audit WHERE instr(coalesce(detail, ''), ?1)",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return found;
}

static void test_embed_keys(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-embed-config-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/mnemo.db", tmp);
    mn_ctx_options co = MN_CTX_OPTIONS_INIT;
    co.db_path = db.ptr;
    co.actor = "test";
    mn_ctx *ctx = NULL;
    REQUIRE_OK(mn_ctx_open(&ctx, &co));

    /* defaults */
    mn_embed_options o;
    REQUIRE_OK(mn_api__embed_options(ctx, &o));
    CHECK_STR(o.provider, "builtin");
    CHECK_STR(o.url, "");
    CHECK(o.timeout_ms == 30000 && o.batch == 32 && o.retries == 2);
    mn_embed_options_release(&o);

    /* checks */
    CHECK(set(ctx, "embed.provider", "openai", NULL) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "builtin, http or off") != NULL);
    CHECK(set(ctx, "embed.url", "localhost:11434", NULL) == MN_EINVAL);
    CHECK(set(ctx, "embed.batch", "5000", NULL) == MN_EINVAL);
    CHECK(set(ctx, "embed.timeout", "10", NULL) == MN_EINVAL);
    CHECK(set(ctx, "embed.key", "two\nlines", NULL) == MN_EINVAL);

    CHECK_OK(set(ctx, "embed.provider", "http", NULL));
    CHECK_OK(set(ctx, "embed.url", "http://localhost:11434/v1", NULL));
    CHECK_OK(set(ctx, "embed.model", "nomic-embed-text", NULL));
    CHECK_OK(set(ctx, "embed.timeout", "5s", NULL));
    CHECK_OK(set(ctx, "embed.batch", "8", NULL));
    CHECK_OK(set(ctx, "embed.query_prefix", "search_query: ", NULL));

    /* the key: stored whole, shown masked everywhere config shows it */
    const char *key = "sk-proj-abcdefghijklmnop1234";
    json_t *answer = NULL;
    CHECK_OK(set(ctx, "embed.key", key, &answer));
    CHECK_STR(json_string_value(json_object_get(answer, "value")), "****1234");
    json_decref(answer);
    char *v = get(ctx, "embed.key");
    CHECK_STR(v, "****1234");
    free(v);
    v = listed(ctx, "embed.key");
    CHECK_STR(v, "****1234");
    free(v);
    CHECK(!audit_has(db.ptr, "abcdefghijklmnop"));
    CHECK(audit_has(db.ptr, "****1234"));
    /* a short key shows nothing of itself; a reference to the environment is shown */
    CHECK_OK(set(ctx, "embed.key", "short-key", NULL));
    v = get(ctx, "embed.key");
    CHECK_STR(v, "****");
    free(v);
    CHECK_OK(set(ctx, "embed.key", "env:OPENAI_API_KEY", NULL));
    v = get(ctx, "embed.key");
    CHECK_STR(v, "env:OPENAI_API_KEY");
    free(v);
    CHECK_OK(set(ctx, "embed.key", key, NULL));

    /* the options an embedder gets: the real key */
    REQUIRE_OK(mn_api__embed_options(ctx, &o));
    CHECK_STR(o.provider, "http");
    CHECK_STR(o.url, "http://localhost:11434/v1");
    CHECK_STR(o.model, "nomic-embed-text");
    CHECK_STR(o.key, key);
    CHECK_STR(o.query_prefix, "search_query: ");
    CHECK_STR(o.document_prefix, "");
    CHECK(o.timeout_ms == 5000 && o.batch == 8 && o.retries == 2);
    mn_embed_options_release(&o);
    CHECK(o.key == NULL);

    mn_ctx_free(ctx);
    mn_buf_release(&db);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_embed_keys))
