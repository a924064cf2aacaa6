/*
 * test_config_fail.c - a store that fails in the middle of reading the
 * embedder's settings (src/api/config.c, mn_api__embed_options) reports
 * the error and frees each setting once.
 *
 * A PostgreSQL server shutting down under a served store failed the third
 * or fourth config read of mn_ctx_prepare after the first ones had
 * answered: the failed read left the caller's pointer on the setting read
 * before, which was then freed twice ("double free or corruption" of
 * `mnemo serve`, pg/faults one run in about eight). Here the same failure
 * is made on SQLite, every time: the config table is replaced by a view
 * whose value for embed.model (set) raises an integer overflow when read.
 * Since an operation reads the project's settings in one statement
 * (config.c: effective), the read fails as a whole, and the caller must
 * still report it once and free nothing twice (ASan checks the frees).
 *
 * test_each_op_reads_anew: the settings an operation read are not kept for
 * the next one: a value another connection wrote is seen by the next call.
 */
#include "common.h"

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "store/sqlite/sqlite_internal.h"
#include "test.h"
#include "test_fs.h"
#include "test_ctx.h"

static void test_read_fails_midway(void)
{
    char tmp[64], db[96];
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-configfail-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
    mn_ctx *ctx = test_ctx_at(db, tmp, MN_FRONT_LOCAL_CLI);
    REQUIRE(ctx != NULL);

    /* the settings read as they are: every one answers */
    mn_embed_options eo = MN_EMBED_OPTIONS_INIT;
    CHECK_OK(mn_api__embed_options(ctx, &eo));
    mn_embed_options_release(&eo);

    /* through the store's own connection: a schema change re-reads every trigger, and the
     * full-text ones need mnemo's tokenizer, which only that connection has */
    CHECK_OK(mn_sqlite__exec(ctx->store,
                             "INSERT INTO config(project_id, key, value, updated_at) "
                             "SELECT id, 'embed.model', 'm', 0 FROM projects; "
                             "ALTER TABLE config RENAME TO config_kept; "
                             "CREATE VIEW config AS SELECT project_id, key, CASE WHEN key = "
                             "'embed.model' THEN abs(-9223372036854775807 - 1) ELSE value END "
                             "AS value, updated_at FROM config_kept"));

    /* a new operation reads the settings again (mn_api_call drops the rows read before);
     * the read fails on embed.model's row: one error, nothing freed twice */
    mn_api__config_changed(ctx);
    mn_embed_options eo2 = MN_EMBED_OPTIONS_INIT;
    CHECK(mn_api__embed_options(ctx, &eo2) != 0);
    CHECK(strstr(mn_error_last(), "config") != NULL);
    mn_error_clear();
    mn_embed_options_release(&eo2);
    mn_ctx_free(ctx);
    rm_rf(tmp);
}

/* `config get KEY` through the operation table: the value shown */
static char *get(mn_ctx *ctx, const char *key)
{
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", key), *out = NULL;
    char *v = NULL;
    if (mn_api_call(ctx, "config", args, &out) == 0)
        v = mn_strdup(json_string_value(json_object_get(out, "value")));
    json_decref(args);
    json_decref(out);
    return v;
}

static void test_each_op_reads_anew(void)
{
    char tmp[64], db[96];
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-configrows-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
    mn_ctx *a = test_ctx_at(db, tmp, MN_FRONT_LOCAL_CLI),
           *b = test_ctx_at(db, tmp, MN_FRONT_LOCAL_CLI);
    REQUIRE(a && b);
    char *v = get(a, "embed.batch");
    CHECK(v && strcmp(v, "32") == 0);
    free(v);
    json_t *args = json_pack("{s:s,s:s,s:s}", "action", "set", "key", "embed.batch", "value", "7");
    json_t *out = NULL;
    CHECK_OK(mn_api_call(b, "config", args, &out));
    json_decref(args);
    json_decref(out);
    v = get(a, "embed.batch");
    CHECK(v && strcmp(v, "7") == 0);
    free(v);
    /* and a write through the same context is read back by the same context */
    args = json_pack("{s:s,s:s}", "action", "unset", "key", "embed.batch");
    CHECK_OK(mn_api_call(a, "config", args, &out));
    json_decref(args);
    json_decref(out);
    v = get(a, "embed.batch");
    CHECK(v && strcmp(v, "32") == 0);
    free(v);
    mn_ctx_free(a);
    mn_ctx_free(b);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_read_fails_midway), MN_TEST(test_each_op_reads_anew))
