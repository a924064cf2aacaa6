/*
 * test_access.c - who may run what (src/api/access.c) and the tokens of the
 * team server through the API: the role each op needs (readers read, and
 * run context and recall; writers save, forget, link; admins change
 * config, import, export, read the audit), mn_api_call refusing an op
 * above the context's role with MN_EDENIED before it runs (nothing is
 * written), tokens made only by the local command line, and
 * authentication: a good secret gives its project, role and actor; an
 * unknown, malformed, revoked or expired one gives MN_EAUTH.
 */
#include "common.h"
#include <unistd.h>

#include "api/access.h"
#include "api/api_internal.h"
#include "test.h"
#include "test_fs.h"

static char tmp[64];
static char db[96];

/* A new store for each test (removed by done()). */
static void fresh(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-access-XXXXXX");
    REQUIRE(mkdtemp(tmp));
    snprintf(db, sizeof(db), "%s/mnemo.db", tmp);
}

static void done(void)
{
    rm_rf(tmp);
}

static mn_ctx *open_ctx(const char *actor, mn_role role, mn_front_end fe, const char *project)
{
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    mn_ctx *ctx = NULL;
    o.db_path = db;
    o.actor = actor;
    o.role = role;
    o.front_end = fe;
    o.project = project;
    if (mn_ctx_open(&ctx, &o) != 0) {
        fprintf(stderr, "cannot open %s: %s\n", db, mn_error_last());
        abort();
    }
    return ctx;
}

static mn_role need(const char *op)
{
    return mn_access_op_role(mn_api_find(op));
}

static void test_table(void)
{
    static const char *const readers[] = {"get",     "list",       "search", "search_code",
                                          "context", "recall",     "status", "graph",
                                          "symbols", "plan_files", "chain"};
    static const char *const writers[] = {"save",      "update", "forget",          "link",
                                          "feedback",  "review", "record_decision", "link_issue",
                                          "revalidate"};
    static const char *const admins[] = {"config", "import", "export",     "audit",  "gc",
                                         "scan",   "index",  "ingest_git", "capture"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(readers); i++)
        CHECK(need(readers[i]) == MN_ROLE_READER);
    for (size_t i = 0; i < MN_ARRAY_SIZE(writers); i++)
        CHECK(need(writers[i]) == MN_ROLE_WRITER);
    for (size_t i = 0; i < MN_ARRAY_SIZE(admins); i++)
        CHECK(need(admins[i]) == MN_ROLE_ADMIN);
    /* every op of the table has a role, and none that is not read-only goes to a reader
       but the two that only record what they served */
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    for (size_t i = 0; i < n; i++) {
        mn_role r = mn_access_op_role(&ops[i]);
        CHECK(r >= MN_ROLE_READER && r <= MN_ROLE_ADMIN);
        if (r == MN_ROLE_READER && !(ops[i].flags & MN_OP_READONLY))
            CHECK(!strcmp(ops[i].name, "context") || !strcmp(ops[i].name, "recall"));
    }
    mn_role r;
    CHECK_OK(mn_access_role_parse(&r, "writer"));
    CHECK(r == MN_ROLE_WRITER);
    CHECK(mn_access_role_parse(&r, "root") == MN_EINVAL);
}

static int64_t count_memories(mn_ctx *ctx)
{
    json_t *out = NULL;
    int64_t n = -1;
    if (mn_api_call(ctx, "list", NULL, &out) == 0)
        n = (int64_t)json_array_size(json_object_get(out, "memories"));
    json_decref(out);
    return n;
}

static void test_check(void)
{
    fresh();
    mn_ctx *admin = open_ctx("cli", MN_ROLE_ADMIN, MN_FRONT_LOCAL_CLI, "alpha");
    mn_ctx *reader = open_ctx("token:r", MN_ROLE_READER, MN_FRONT_RELAYED, "alpha");
    json_t *args = json_pack("{s:s,s:s,s:{s:s,s:s,s:[s,s,s]}}", "kind", "fact", "body",
                             "The cache is flushed hourly.", "context", "situation",
                             "stale pages after a deploy", "solution", "wait for the hourly flush",
                             "trigger_keywords", "cache", "flush", "deploy");
    json_t *out = NULL;

    CHECK(mn_api_call(reader, "save", args, &out) == MN_EDENIED);
    CHECK(out == NULL);
    CHECK(strstr(mn_error_last(), "'save' needs the writer role") != NULL);
    CHECK(strstr(mn_error_last(), "token:r") != NULL);
    CHECK(count_memories(reader) == 0); /* refused before it ran */
    json_t *q = json_pack("{s:s}", "query", "cache");
    CHECK_OK(mn_api_call(reader, "search", q, &out));
    json_decref(q);
    json_decref(out);
    out = NULL;
    CHECK_OK(mn_api_call(admin, "save", args, &out));
    json_decref(out);
    CHECK(count_memories(reader) == 1);
    /* the same context, another principal: the role is read on every call */
    CHECK_OK(mn_ctx_set_principal(reader, "token:w", MN_ROLE_WRITER));
    CHECK_OK(mn_api_call(reader, "save", args, &out));
    json_decref(out);
    CHECK(mn_api_call(reader, "export", NULL, &out) == MN_EDENIED);
    CHECK(mn_api_call(reader, "audit", NULL, &out) == MN_EDENIED);
    CHECK_OK(mn_ctx_set_principal(reader, "token:a", MN_ROLE_ADMIN));
    CHECK_OK(mn_api_call(reader, "audit", NULL, &out));
    /* the rows name who did it */
    const char *actors = json_dumps(out, 0);
    CHECK(strstr(actors, "\"token:w\"") != NULL);
    free((void *)actors);
    json_decref(out);
    CHECK(mn_ctx_set_principal(reader, "", MN_ROLE_ADMIN) == MN_EINVAL);

    /* a server's context changes hands between requests: the save pipeline's audit rows
       name the principal of now, not the one its settings were loaded under */
    CHECK_OK(mn_ctx_set_principal(reader, "token:first-writer", MN_ROLE_WRITER));
    json_t *a2 = json_pack("{s:s,s:s,s:{s:s,s:s,s:[s,s,s]}}", "kind", "gotcha", "body",
                           "The deploy script drops the queue when it restarts twice.", "context",
                           "situation", "a double restart", "solution", "restart once",
                           "trigger_keywords", "deploy", "queue", "restart");
    CHECK_OK(mn_api_call(reader, "save", a2, &out));
    json_decref(out);
    json_decref(a2);
    CHECK_OK(
        mn_ctx_set_principal(reader, "token:second-writer-with-a-longer-name", MN_ROLE_WRITER));
    a2 = json_pack("{s:s,s:s,s:{s:s,s:s,s:[s,s,s]}}", "kind", "gotcha", "body",
                   "The billing cron skips the last day of a month with 31 days.", "context",
                   "situation", "a month end", "solution", "run it on the 1st", "trigger_keywords",
                   "billing", "cron", "month");
    CHECK_OK(mn_api_call(reader, "save", a2, &out));
    const char *id2 = json_string_value(json_object_get(out, "id"));
    json_t *aout = NULL;
    CHECK_OK(mn_ctx_set_principal(reader, "token:a", MN_ROLE_ADMIN));
    q = json_pack("{s:s}", "op", "save");
    CHECK_OK(mn_api_call(reader, "audit", q, &aout));
    json_decref(q);
    bool named = false;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(aout, "entries"), i, e)
    {
        const char *t = json_string_value(json_object_get(e, "target"));
        if (t && id2 && !strcmp(t, id2))
            named = !strcmp(json_string_value(json_object_get(e, "actor")),
                            "token:second-writer-with-a-longer-name");
    }
    CHECK(named);
    json_decref(aout);
    json_decref(out);
    json_decref(a2);
    CHECK_STR(mn_ctx_project(reader), "alpha");
    json_decref(args);
    mn_ctx_free(reader);
    mn_ctx_free(admin);
    done();
}

static void test_tokens(void)
{
    fresh();
    mn_ctx *cli = open_ctx("cli", MN_ROLE_ADMIN, MN_FRONT_LOCAL_CLI, NULL);
    mn_ctx *relayed = open_ctx("mcp", MN_ROLE_ADMIN, MN_FRONT_RELAYED, NULL);
    mn_token_spec spec = {"alpha", "writer", "ci-bot", NULL};
    mn_principal p;
    json_t *out = NULL, *out2 = NULL;

    /* only the mnemo command makes, lists or revokes tokens */
    CHECK(mn_token_create(relayed, &spec, &out) == MN_EDENIED);
    CHECK(mn_token_list(relayed, &out) == MN_EDENIED);
    CHECK(mn_token_revoke(relayed, "ci-bot", &out) == MN_EDENIED);

    REQUIRE_OK(mn_token_create(cli, &spec, &out));
    const char *secret = json_string_value(json_object_get(out, "secret"));
    REQUIRE(secret && strlen(secret) == MN_TOKEN_SECRET_LEN && !strncmp(secret, "mnemo_", 6));
    CHECK(json_is_null(json_object_get(out, "expires_at")));
    CHECK(mn_token_create(cli, &spec, &out2) == MN_EEXISTS);

    REQUIRE_OK(mn_access_authenticate(relayed, secret, &p));
    CHECK_STR(p.actor, "token:ci-bot");
    CHECK_STR(p.project, "alpha");
    CHECK(p.role == MN_ROLE_WRITER);
    CHECK(p.token_id == json_integer_value(json_object_get(out, "id")));

    /* the list never shows a secret or a hash */
    REQUIRE_OK(mn_token_list(cli, &out2));
    char *text = json_dumps(out2, 0);
    CHECK(strstr(text, secret + 6) == NULL);
    CHECK(strstr(text, "hash") == NULL && strstr(text, "secret") == NULL);
    CHECK(strstr(text, "\"last_used_at\": \"") != NULL); /* noted by the authentication */
    free(text);
    json_decref(out2);

    /* wrong, malformed and absent secrets */
    char wrong[MN_TOKEN_SECRET_LEN + 1];
    snprintf(wrong, sizeof(wrong), "%s", secret);
    wrong[10] = wrong[10] == '0' ? '1' : '0';
    CHECK(mn_access_authenticate(relayed, wrong, &p) == MN_EAUTH);
    CHECK(strstr(mn_error_last(), "unknown token") != NULL);
    CHECK(mn_access_authenticate(relayed, "mnemo_short", &p) == MN_EAUTH);
    CHECK(mn_access_authenticate(relayed, NULL, &p) == MN_EAUTH);
    CHECK(p.role == 0 && p.actor[0] == '\0');

    /* revoked: refused at once */
    REQUIRE_OK(mn_token_revoke(cli, "ci-bot", &out2));
    CHECK_STR(json_string_value(json_object_get(out2, "state")), "revoked");
    json_decref(out2);
    CHECK(mn_access_authenticate(relayed, secret, &p) == MN_EAUTH);
    CHECK(strstr(mn_error_last(), "revoked") != NULL);
    json_decref(out);

    /* expired: made for a day, asked two days later */
    mn_token_spec day = {"beta", "reader", NULL, "1d"};
    REQUIRE_OK(mn_token_create(cli, &day, &out));
    secret = json_string_value(json_object_get(out, "secret"));
    CHECK(strncmp(json_string_value(json_object_get(out, "name")), "beta-reader-", 12) == 0);
    REQUIRE_OK(mn_access_authenticate(relayed, secret, &p));
    CHECK(p.role == MN_ROLE_READER);
    char later[32];
    snprintf(later, sizeof(later), "%lld", (long long)(mn_time_now_ms() + 2 * 86400000LL));
    setenv("MNEMO_NOW_MS", later, 1);
    CHECK(mn_access_authenticate(relayed, secret, &p) == MN_EAUTH);
    CHECK(strstr(mn_error_last(), "expired") != NULL);
    unsetenv("MNEMO_NOW_MS");
    json_decref(out);

    /* bad specs */
    mn_token_spec bad[] = {{NULL, "reader", NULL, NULL},
                           {"alpha", "owner", NULL, NULL},
                           {"alpha", "reader", "no spaces", NULL},
                           {"alpha", "reader", NULL, "soon"},
                           {"alpha", "reader", NULL, "2001-01-01"},
                           {"a\nb", "reader", NULL, NULL}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++)
        CHECK(mn_token_create(cli, &bad[i], &out) == MN_EINVAL);
    mn_ctx_free(relayed);
    mn_ctx_free(cli);
    done();
}

MN_TEST_MAIN(MN_TEST(test_table), MN_TEST(test_check), MN_TEST(test_tokens))
