/*
 * test_embed_config.c - the embed.* configuration keys (src/api/config.c):
 * their checks, the key that config never shows back (list, get, the
 * answer to set, the audit log), and mn_api__embed_options, which turns
 * them into the options an embedder is opened with; embed.key's forms
 * (env:NAME, file:PATH, the literal key of an older mnemo) and what a front
 * end other than the command line may not change.
 */
#include "common.h"
#include <sqlite3.h>
#include <sys/stat.h>

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

/* Declared in api/api_internal.h once integrated; repeated here so the test stands alone. */
int mn_api__embed_options(mn_ctx *ctx, mn_embed_options *out);

static char tmp[64];

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

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
    co.front_end = MN_FRONT_LOCAL_CLI; /* the user at the command line may set everything */
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

    /* the key: a reference, never the key itself (refused without repeating it) */
    const char *key = "sk-proj-abcdefghijklmnop1234";
    json_t *answer = NULL;
    CHECK(set(ctx, "embed.key", key, NULL) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "env:NAME") && strstr(mn_error_last(), "file:PATH"));
    CHECK(!strstr(mn_error_last(), "abcdefghijklmnop"));
    CHECK(!audit_has(db.ptr, "abcdefghijklmnop"));
    CHECK(set(ctx, "embed.key", "env:1BAD", NULL) == MN_EINVAL);
    CHECK(set(ctx, "embed.key", "file:relative/key", NULL) == MN_EINVAL);
    CHECK_OK(set(ctx, "embed.key", "env:OPENAI_API_KEY", &answer));
    CHECK_STR(json_string_value(json_object_get(answer, "value")), "env:OPENAI_API_KEY");
    json_decref(answer);
    char *v = get(ctx, "embed.key");
    CHECK_STR(v, "env:OPENAI_API_KEY");
    free(v);

    /* file:PATH: a file of this user's that no one else can read, checked when set and used */
    mn_buf kf = MN_BUF_INIT;
    mn_buf_printf(&kf, "%s/embed.key", tmp);
    REQUIRE(write_file(kf.ptr, "sk-from-file-0123456789\n") == 0);
    REQUIRE(chmod(kf.ptr, 0644) == 0);
    mn_buf ref = MN_BUF_INIT;
    mn_buf_printf(&ref, "file:%s", kf.ptr);
    CHECK(set(ctx, "embed.key", ref.ptr, NULL) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "chmod 600") != NULL);
    char *k = NULL;
    CHECK(mn_embed_key_resolve(&k, ref.ptr) == MN_EINVAL && k == NULL);
    REQUIRE(chmod(kf.ptr, 0600) == 0);
    CHECK_OK(set(ctx, "embed.key", ref.ptr, NULL));
    v = listed(ctx, "embed.key");
    CHECK_STR(v, ref.ptr);
    free(v);
    CHECK_OK(mn_embed_key_resolve(&k, ref.ptr));
    CHECK_STR(k, "sk-from-file-0123456789");
    free(k);
    k = NULL;
    REQUIRE(chmod(kf.ptr, 0400) == 0);
    CHECK_OK(mn_embed_key_resolve(&k, ref.ptr));
    free(k);
    k = NULL;
    setenv("MNEMO_TEST_EMBED_KEY_CFG", "sk-from-env", 1);
    CHECK_OK(mn_embed_key_resolve(&k, "env:MNEMO_TEST_EMBED_KEY_CFG"));
    CHECK_STR(k, "sk-from-env");
    free(k);
    k = NULL;
    unsetenv("MNEMO_TEST_EMBED_KEY_CFG");
    CHECK(mn_embed_key_resolve(&k, "env:MNEMO_TEST_EMBED_KEY_CFG") == MN_EINVAL);

    /* a key stored by an older mnemo: still used, shown masked with a note saying how to move it */
    REQUIRE_OK(mn_store_begin(ctx->store));
    REQUIRE_OK(mn_store_config_set(ctx->store, "embed.key", key));
    REQUIRE_OK(mn_store_commit(ctx->store));
    json_t *gargs = json_pack("{s:s,s:s}", "action", "get", "key", "embed.key");
    REQUIRE_OK(mn_api_call(ctx, "config", gargs, &answer));
    CHECK_STR(json_string_value(json_object_get(answer, "value")), "****1234");
    CHECK(strstr(json_string_value(json_object_get(answer, "note")), "file:PATH") != NULL);
    json_decref(answer);
    json_decref(gargs);
    v = listed(ctx, "embed.key");
    CHECK_STR(v, "****1234");
    free(v);
    CHECK_OK(mn_embed_key_resolve(&k, key));
    CHECK_STR(k, key);
    free(k);

    /* the options an embedder gets: the stored value, resolved when the embedder is made */
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

    /*
     * Through any front end but the mnemo command line (MCP, HTTP, hooks: the
     * default of mn_ctx_options), config reads but cannot change where text is
     * sent, the key, the server or the tools.
     */
    mn_ctx_options ro = MN_CTX_OPTIONS_INIT;
    ro.db_path = db.ptr;
    ro.actor = "cli"; /* a name alone decides nothing */
    mn_ctx *relayed = NULL;
    REQUIRE_OK(mn_ctx_open(&relayed, &ro));
    static const char *const refused[][2] = {
        {"embed.url", "http://127.0.0.1:9/v1"},
        {"embed.provider", "http"},
        {"embed.key", "env:OTHER"},
        {"serve.host", "0.0.0.0"},
        {"serve.port", "80"},
        {"serve.allowed_origins", "https://evil.example"},
        {"mcp.tools", "all"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(refused); i++) {
        int rc = set(relayed, refused[i][0], refused[i][1], NULL);
        if (rc != MN_ERROR)
            fprintf(stderr, "relayed set %s accepted\n", refused[i][0]);
        CHECK(rc == MN_ERROR && strstr(mn_error_last(), "command line") != NULL);
        /* unset too, but for embed.provider: back to builtin sends nothing anywhere */
        json_t *un = json_pack("{s:s,s:s}", "action", "unset", "key", refused[i][0]), *o2 = NULL;
        rc = mn_api_call(relayed, "config", un, &o2);
        CHECK(strcmp(refused[i][0], "embed.provider") ? rc == MN_ERROR : rc == 0);
        json_decref(o2);
        json_decref(un);
    }
    v = get(relayed, "embed.url");
    CHECK_STR(v, "http://localhost:11434/v1"); /* unchanged, and readable */
    free(v);
    v = get(relayed, "embed.key");
    CHECK_STR(v, "****1234");
    free(v);
    CHECK_OK(set(relayed, "embed.provider", "off", NULL)); /* sends nothing anywhere */
    CHECK_OK(set(relayed, "memory.dedup", "false", NULL));
    mn_ctx_free(relayed);

    mn_buf_release(&kf);
    mn_buf_release(&ref);
    mn_ctx_free(ctx);
    mn_buf_release(&db);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_embed_keys))
