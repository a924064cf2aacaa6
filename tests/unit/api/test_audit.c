/*
 * test_audit.c - the audit operation and the rows of reads, through
 * mn_api_call on a real store: a search writes one row (actor, op, the
 * served id and the ids it served; not the question) in the transaction
 * that records its answer, search_code writes its own op, an export its
 * count, an MCP resource read its URI; the audit op filters by op, actor
 * and since (an age or a time; anything else refused), pages newest
 * first, and its output and export's (with audit) match their schemas.
 */
#include "common.h"
#include <unistd.h>

#include "mnemo/api.h"
#include "util/schema.h"
#include "util/util.h"
#include "test.h"
#include "test_json.h"
#include "test_fs.h"

static char tmp[64];

static mn_ctx *open_ctx(const char *actor)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = p;
    o.actor = actor;
    o.front_end = MN_FRONT_LOCAL_CLI;
    mn_ctx *ctx = NULL;
    if (mn_ctx_open(&ctx, &o) != 0)
        fprintf(stderr, "cannot open %s: %s\n", p, mn_error_last());
    return ctx;
}

/* Call an op (args owned); a successful answer must match the op's output schema. */
static int call(mn_ctx *ctx, json_t **out, const char *op, json_t *args)
{
    json_t *o = NULL;
    mn_error_clear();
    int rc = mn_api_call(ctx, op, args, &o);
    json_decref(args);
    if (rc == 0 && mn_schema_validate(mn_api_output_schema(mn_api_find(op)), o) != 0) {
        fprintf(stderr, "%s: output does not match its schema: %s\n", op, mn_error_last());
        mn_test__failed_checks++;
    }
    if (out)
        *out = o;
    else
        json_decref(o);
    return rc;
}

static const json_t *entry(const json_t *out, size_t i)
{
    return json_array_get(json_object_get(out, "entries"), i);
}

static void test_audit_op(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-audit-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_NOW_MS");
    mn_ctx *cli = open_ctx("cli"), *mcp = NULL;
    REQUIRE(cli);
    json_t *out = NULL;
    REQUIRE_OK(call(cli, &out, "save",
                    J("{'title':'Cart sessions refresh after thirty seconds','body':'The cart "
                      "session refresh waits thirty seconds of idle time.'}")));
    char id[32];
    snprintf(id, sizeof(id), "%s", sget(out, "id"));
    json_decref(out);

    /* a read: one row with the served id and the ids, never the question */
    REQUIRE_OK(call(cli, &out, "search", J("{'query':'cart refresh zebraquokka','k':5}")));
    json_int_t served = json_integer_value(json_object_get(out, "served"));
    CHECK(served > 0);
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "audit", J("{'op':'search'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 1);
    const json_t *d = json_object_get(entry(out, 0), "detail");
    CHECK_STR(sget(entry(out, 0), "actor"), "cli");
    CHECK(json_integer_value(json_object_get(d, "served")) == served);
    CHECK_STR(json_string_value(json_array_get(json_object_get(d, "ids"), 0)), id);
    char *text = json_dumps(out, JSON_COMPACT);
    CHECK(text && !strstr(text, "zebraquokka"));
    free(text);
    json_decref(out);

    /* search_code is its own op; an export leaves its count */
    REQUIRE_OK(call(cli, NULL, "search_code", J("{'query':'cart refresh'}")));
    REQUIRE_OK(call(cli, &out, "audit", J("{'op':'search_code'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 1);
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "export", J("{'audit':true}")));
    CHECK(json_array_size(json_object_get(out, "audit")) == 3); /* save, search, search_code */
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "export", J("{}")));
    CHECK(json_object_get(out, "audit") == NULL);
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "audit", J("{'op':'export'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 2);
    CHECK(json_integer_value(json_object_get(json_object_get(entry(out, 1), "detail"), "audit")) ==
          3);
    json_decref(out);

    /* another actor: a resource read */
    mcp = open_ctx("mcp");
    REQUIRE(mcp);
    json_t *ids = json_pack("[s]", id);
    char uri[64];
    snprintf(uri, sizeof(uri), "mnemo://memory/%s", id);
    mn_api_audit_resource(mcp, uri, ids);
    json_decref(ids);
    REQUIRE_OK(call(cli, &out, "audit", J("{'actor':'mcp'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 1);
    CHECK_STR(sget(entry(out, 0), "op"), "resource");
    CHECK_STR(sget(entry(out, 0), "target"), uri);
    json_decref(out);

    /* all of it newest first, a page at a time; since an age or a time */
    REQUIRE_OK(call(cli, &out, "audit", J("{'limit':2,'offset':1}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 6);
    CHECK(json_array_size(json_object_get(out, "entries")) == 2);
    CHECK_STR(sget(entry(out, 0), "op"), "export");
    CHECK_STR(sget(entry(out, 1), "op"), "export");
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "audit", J("{'since':'7d'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 6);
    json_decref(out);
    REQUIRE_OK(call(cli, &out, "audit", J("{'since':'2999-01-01T00:00:00Z'}")));
    CHECK(json_integer_value(json_object_get(out, "total")) == 0);
    json_decref(out);
    CHECK(call(cli, NULL, "audit", J("{'since':'last week'}")) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "since") != NULL);
    CHECK(call(cli, NULL, "audit", J("{'query':'x'}")) == MN_EINVAL);

    mn_ctx_free(mcp);
    mn_ctx_free(cli);
    rm_rf(tmp);
}

MN_TEST_MAIN(MN_TEST(test_audit_op))
