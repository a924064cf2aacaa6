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
 * whose value for embed.model (set) raises an integer overflow when read,
 * so embed.provider and embed.url answer and embed.model fails.
 */
#include "common.h"

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "store/sqlite/sqlite_internal.h"
#include "test.h"
#include "test_fs.h"

static void test_read_fails_midway(void)
{
    char tmp[64], db[96];
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-configfail-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_ctx *ctx = NULL;
    o.db_path = db;
    o.start_dir = tmp;
    o.actor = "test";
    o.progress = false;
    o.front_end = MN_FRONT_LOCAL_CLI;
    REQUIRE(mn_ctx_open(&ctx, &o) == 0);

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

    /* embed.provider and embed.url answer, embed.model fails: one error, nothing freed twice */
    mn_embed_options eo2 = MN_EMBED_OPTIONS_INIT;
    CHECK(mn_api__embed_options(ctx, &eo2) != 0);
    CHECK(strstr(mn_error_last(), "config") != NULL);
    mn_error_clear();
    mn_embed_options_release(&eo2);
    mn_ctx_free(ctx);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_read_fails_midway))
