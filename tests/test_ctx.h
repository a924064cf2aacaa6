/*
 * test_ctx.h - an mn_ctx on a scratch store, for the unit tests that go
 * through the operation table (include after common.h and test_json.h):
 * a fixed clock (MNEMO_NOW_MS), no MNEMO_DB or MNEMO_PROJECT from the
 * environment, and the config a retrieval test wants to see its own signal
 * alone: no embedder, no merging of similar saves.
 */
#ifndef MN_TEST_CTX_H
#define MN_TEST_CTX_H

#include <stdlib.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "test_fs.h"
#include "test_json.h"

/* unused by the tests that open contexts of their own (test_ctx_at) */
__attribute__((unused)) static char test_tmp[64];
__attribute__((unused)) static mn_ctx *test_ctx;

/* mn_api_call on the test's context; args are taken; NULL (and a line on stderr) on failure. */
static inline json_t *test_call(const char *op, json_t *args)
{
    json_t *out = NULL;
    if (mn_api_call(test_ctx, op, args, &out) != 0) {
        fprintf(stderr, "%s failed: %s\n", op, mn_error_last());
        out = NULL;
    }
    json_decref(args);
    return out;
}

/* A context on the store db (made when new), started in dir, actor "test", no progress
 * lines: front_end MN_FRONT_LOCAL_CLI for a person's saves, MN_FRONT_RELAYED for an
 * agent's. NULL when it cannot be opened (mn_error_last says why). */
static inline mn_ctx *test_ctx_at(const char *db, const char *dir, mn_front_end front_end)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_ctx *ctx = NULL;
    o.db_path = db;
    o.start_dir = dir;
    o.actor = "test";
    o.progress = false;
    o.front_end = front_end;
    return mn_ctx_open(&ctx, &o) == 0 ? ctx : NULL;
}

/* A store in a new directory /tmp/mnemo-test-<name>-XXXXXX; aborts when it cannot be made. */
static inline void test_ctx_open(const char *name)
{
    snprintf(test_tmp, sizeof(test_tmp), "/tmp/mnemo-test-%s-XXXXXX", name);
    if (!mkdtemp(test_tmp))
        abort();
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/store/mnemo.db", test_tmp);
    /* a person's saves (an agent's need structured context; test_ops.c checks that) */
    if ((test_ctx = test_ctx_at(db.ptr, test_tmp, MN_FRONT_LOCAL_CLI)) == NULL)
        abort();
    mn_buf_release(&db);
    json_decref(test_call("config", J("{'action':'set','key':'embed.provider','value':'off'}")));
    json_decref(test_call("config", J("{'action':'set','key':'memory.dedup','value':'false'}")));
}

/* The item of a search result with this id, its rank in *rank; NULL when absent. */
static inline const json_t *test_find_item(const json_t *out, const char *id, int *rank)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        if (strcmp(json_string_value(json_object_get(it, "id")), id) == 0) {
            *rank = (int)i;
            return it;
        }
    }
    return NULL;
}

/* A signal of a search item, NULL when the item has none of that name. */
static inline const json_t *test_signal(const json_t *it, const char *name)
{
    return json_object_get(json_object_get(it, "signals"), name);
}

static inline void test_ctx_close(void)
{
    mn_ctx_free(test_ctx);
    test_ctx = NULL;
    rm_rf(test_tmp);
}

#endif
