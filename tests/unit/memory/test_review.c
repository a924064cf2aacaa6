/*
 * test_review.c - the review queue through mn_api_call (op `review`) on a
 * real SQLite store: the queue lists what waits with the judge's reasons,
 * its contradicts link and its near neighbours; approve makes a memory
 * active; reject archives it and a save repeating it, exactly or
 * reworded, is not stored (and the memory it had sent back to review is
 * active again); edit changes fields then approves; merge folds it into
 * another memory; bulk decisions (ids, all_from, all with a kind) are all
 * or nothing; each decision writes its audit row with the actor.
 * Consolidation: a dry run proposes one pattern for three similar gotchas
 * (not the unrelated one) and writes nothing; apply saves it linked
 * derived_from each, the sources unchanged; a second run does nothing; a
 * fourth similar gotcha extends the pattern. Every
 * answer is checked against the op's output schema.
 */
#include "common.h"
#include <sqlite3.h>

#include "mnemo/api.h"
#include "util/schema.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

static char tmp[64];
static mn_ctx *ctx;

static json_t *call(const char *op, json_t *args)
{
    json_t *out = NULL;
    mn_error_clear();
    int rc = mn_api_call(ctx, op, args, &out);
    json_decref(args);
    if (rc) {
        fprintf(stderr, "%s failed: %s\n", op, mn_error_last());
        mn_test__failed_checks++;
        return NULL;
    }
    const json_t *schema = mn_api_output_schema(mn_api_find(op));
    if (schema && mn_schema_validate(schema, out) != 0) {
        fprintf(stderr, "%s: output off its schema: %s\n", op, mn_error_last());
        mn_test__failed_checks++;
    }
    return out;
}

/* A call that must fail with rc; nothing is returned. */
static bool refused(int rc, const char *op, json_t *args)
{
    json_t *out = NULL;
    mn_error_clear();
    int got = mn_api_call(ctx, op, args, &out);
    json_decref(args);
    json_decref(out);
    if (got != rc)
        fprintf(stderr, "%s: rc %d, expected %d\n", op, got, rc);
    return got == rc;
}

/* Save; the answer's id (a new string) and its action and status. */
static char *save(json_t *args, const char *action, const char *status)
{
    json_t *out = call("save", args);
    char *id = mn_strdup(out ? sget(out, "id") : "?");
    if (out) {
        CHECK_STR(sget(out, "action"), action);
        CHECK_STR(sget(out, "status"), status);
    }
    json_decref(out);
    return id;
}

/* An agent's pattern without evidence: it waits for review. */
static char *agent_pattern(const char *title, const char *body, const char *tag)
{
    return save(json_pack("{s:s,s:s,s:s,s:{s:[s]},s:{s:s},s:{s:s,s:s,s:[s,s]}}", "kind", "pattern",
                          "title", title, "body", body, "scope", "tags", tag, "provenance",
                          "source", "agent", "context", "situation", "writing code here",
                          "solution", body, "trigger_keywords", "code", tag),
                "created", "pending");
}

static json_t *get(const char *id)
{
    json_t *out = call("get", json_pack("{s:s}", "id", id));
    json_t *m = json_incref(json_object_get(out, "memory"));
    json_decref(out);
    return m;
}

static const char *status_of(const char *id)
{
    static char st[32];
    json_t *m = get(id);
    snprintf(st, sizeof(st), "%s", m ? sget(m, "status") : "?");
    json_decref(m);
    return st;
}

/* The audit rows of this action naming this target, by this actor. */
static int audits(const char *action, const char *target)
{
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/mnemo.db", tmp);
    sqlite3 *h;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open_v2(db.ptr, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h,
                           "SELECT count(*) FROM audit WHERE action = ?1 AND target = ?2 AND "
                           "actor = 'reviewer'",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, action, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, target, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    mn_buf_release(&db);
    return n;
}

/* The queue's entry for id, or NULL (a new reference); *total the queue's size. */
static json_t *queued(const char *id, json_int_t *total)
{
    json_t *out = call("review", J("{}")), *r = NULL;
    size_t i;
    json_t *m;
    if (total)
        *total = json_integer_value(json_object_get(out, "total"));
    json_array_foreach(json_object_get(out, "memories"), i, m) if (!strcmp(sget(m, "id"), id)) r =
        json_incref(m);
    json_decref(out);
    return r;
}

static json_int_t count_memories(void)
{
    json_t *out = call("list", J("{'deleted':'include','limit':1000}"));
    json_int_t n = json_integer_value(json_object_get(out, "total"));
    json_decref(out);
    return n;
}

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-review-XXXXXX");
    if (!mkdtemp(tmp))
        abort();
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = db.ptr;
    o.actor = "reviewer";
    o.progress = false;
    o.front_end = MN_FRONT_LOCAL_CLI;
    if (mn_ctx_open(&ctx, &o) != 0)
        abort();
    mn_buf_release(&db);
}

static void teardown(void)
{
    mn_ctx_free(ctx);
    rm_rf(tmp);
}

/* list, then approve: active, audited, judgement.review says who */
static void test_list_and_approve(void)
{
    char *p = agent_pattern("Handlers log through log.event",
                            "Request handlers log with log.event(name, fields) from app/log.py, "
                            "never with print().",
                            "logging");
    json_int_t total = 0;
    json_t *q = queued(p, &total);
    REQUIRE(q);
    CHECK(total == 1);
    const json_t *reasons = json_object_get(json_object_get(q, "judgement"), "reasons");
    char *r = json_dumps(reasons, 0);
    CHECK(r && strstr(r, "no evidence") != NULL);
    free(r);
    CHECK_STR(sget(json_object_get(q, "how"), "source"), "agent");
    json_decref(q);

    json_t *out = call("review", json_pack("{s:s,s:s,s:s}", "action", "approve", "id", p, "note",
                                           "matches app/log.py"));
    REQUIRE(out);
    CHECK(json_integer_value(json_object_get(out, "count")) == 1);
    const json_t *d = json_array_get(json_object_get(out, "decided"), 0);
    CHECK_STR(sget(d, "was"), "pending");
    CHECK_STR(sget(d, "status"), "active");
    json_decref(out);
    CHECK_STR(status_of(p), "active");
    json_t *m = get(p);
    const json_t *rv = json_object_get(json_object_get(m, "judgement"), "review");
    CHECK_STR(sget(rv, "decision"), "approved");
    CHECK(sget(rv, "by") && *sget(rv, "by")); /* the person: config user.name, else the login */
    CHECK_STR(sget(rv, "via"), "reviewer");   /* the front end: the audit log's actor */
    CHECK_STR(sget(rv, "note"), "matches app/log.py");
    json_decref(m);
    CHECK(audits("approve", p) == 1);
    CHECK((q = queued(p, &total)) == NULL && total == 0);
    /* approving an active memory again changes nothing; rejecting it is refused */
    out = call("review", json_pack("{s:s,s:s}", "action", "approve", "id", p));
    CHECK(json_is_true(
        json_object_get(json_array_get(json_object_get(out, "decided"), 0), "unchanged")));
    json_decref(out);
    CHECK(refused(MN_EINVAL, "review", json_pack("{s:s,s:s}", "action", "reject", "id", p)));
    CHECK(has_msg("not waiting for review"));
    CHECK(audits("approve", p) == 1);
    free(p);
}

/* reject: archived, never proposed again, exactly or reworded */
static void test_reject_never_again(void)
{
    char *p = agent_pattern("Always wrap database calls in retry_db",
                            "Every call to the database goes through retry_db() with three "
                            "attempts and an exponential backoff.",
                            "db");
    json_t *out = call("review", json_pack("{s:s,s:s,s:s}", "action", "reject", "id", p, "note",
                                           "we do not retry blindly"));
    json_decref(out);
    CHECK_STR(status_of(p), "archived");
    CHECK(audits("reject", p) == 1);
    json_int_t before = count_memories();

    /* the same words again: skipped, nothing stored */
    json_t *again = json_pack(
        "{s:s,s:s,s:s,s:{s:s},s:{s:s,s:s,s:[s,s]},s:{s:[s]}}", "kind", "pattern", "title",
        "Always wrap database calls in retry_db", "body",
        "Every call to the database goes through retry_db() with three attempts and an "
        "exponential backoff.",
        "provenance", "source", "agent", "context", "situation", "writing code here", "solution",
        "Every call to the database goes through retry_db() with three attempts and an "
        "exponential backoff.",
        "trigger_keywords", "code", "db", "scope", "tags", "db");
    out = call("save", again);
    CHECK_STR(sget(out, "action"), "skipped");
    CHECK_STR(sget(out, "rejected_before"), p);
    json_decref(out);
    /* reworded: skipped too */
    out = call("save",
               json_pack("{s:s,s:s,s:s,s:{s:s},s:{s:s,s:s,s:[s,s]}}", "kind", "pattern", "title",
                         "Always wrap the database calls in retry_db", "body",
                         "Every database call goes through retry_db() with three attempts and "
                         "an exponential backoff.",
                         "provenance", "source", "agent", "context", "situation",
                         "writing code here", "solution",
                         "Every database call goes through retry_db() with three attempts and "
                         "an exponential backoff.",
                         "trigger_keywords", "code", "db"));
    CHECK_STR(sget(out, "action"), "skipped");
    json_decref(out);
    CHECK(count_memories() == before);
    CHECK_STR(status_of(p), "archived");
    CHECK(audits("skip", p) == 2);
    /* a person can still bring it back */
    out = call("review", json_pack("{s:s,s:s}", "action", "approve", "id", p));
    json_decref(out);
    CHECK_STR(status_of(p), "active");
    free(p);
}

/* a conflict: rejecting the newcomer brings the old memory back; approving supersedes */
static void test_conflict(void)
{
    char *a = save(J("{'title':'Payment API timeout','body':'Set the HTTP client timeout to 30 "
                     "seconds for the payment API.'}"),
                   "created", "active");
    char *b = save(J("{'title':'Payment API timeout','body':'Set the HTTP client timeout to 60 "
                     "seconds for the payment API.'}"),
                   "created", "pending");
    CHECK_STR(status_of(a), "pending");
    json_t *q = queued(b, NULL);
    REQUIRE(q);
    char *s = json_dumps(json_object_get(q, "links"), 0);
    CHECK(s && strstr(s, a) && strstr(s, "contradicts"));
    free(s);
    s = json_dumps(json_object_get(q, "neighbours"), 0);
    CHECK(s && strstr(s, a) && strstr(s, "conflicting"));
    free(s);
    json_decref(q);
    json_t *out = call("review", json_pack("{s:s,s:s}", "action", "reject", "id", b));
    const json_t *d = json_array_get(json_object_get(out, "decided"), 0);
    CHECK_STR(json_string_value(json_array_get(json_object_get(d, "released"), 0)), a);
    json_decref(out);
    CHECK_STR(status_of(a), "active");
    CHECK_STR(status_of(b), "archived");
    free(a);
    free(b);
}

/* edit: fields changed through update, then active */
static void test_edit(void)
{
    char *p = agent_pattern("Dates in UTC", "Store dates as UTC in the database.", "dates");
    json_t *out = call("review", json_pack("{s:s,s:s,s:s}", "action", "edit", "id", p, "title",
                                           "Dates are stored in UTC, shown in local time"));
    REQUIRE(out);
    const json_t *d = json_array_get(json_object_get(out, "decided"), 0);
    CHECK_STR(sget(d, "status"), "active");
    char *ch = json_dumps(json_object_get(d, "changed"), 0);
    CHECK(ch && strstr(ch, "title"));
    free(ch);
    json_decref(out);
    json_t *m = get(p);
    CHECK_STR(sget(m, "title"), "Dates are stored in UTC, shown in local time");
    CHECK_STR(sget(m, "status"), "active");
    json_decref(m);
    CHECK(audits("approve", p) == 1);
    /* edit without a field, or in bulk, is refused */
    char *p2 =
        agent_pattern("Money in cents", "Amounts are integers of cents, never floats.", "money");
    CHECK(refused(MN_EINVAL, "review", json_pack("{s:s,s:s}", "action", "edit", "id", p2)));
    CHECK(refused(MN_EINVAL, "review",
                  json_pack("{s:s,s:b,s:s}", "action", "edit", "all", 1, "title", "x")));
    CHECK_STR(status_of(p2), "pending");
    json_decref(call("review", json_pack("{s:s,s:s}", "action", "reject", "id", p2)));
    free(p);
    free(p2);
}

/* merge: folded into another memory, tags united, the merged one archived */
static void test_merge(void)
{
    char *keep = save(J("{'kind':'fact','title':'Feature flags live in flags.yaml','body':"
                        "'Feature flags are read from config/flags.yaml at start-up.'}"),
                      "created", "active");
    char *p =
        agent_pattern("Flags are reloaded on SIGHUP",
                      "config/flags.yaml is read again when the server gets SIGHUP.", "flags");
    json_t *out =
        call("review", json_pack("{s:s,s:s,s:s}", "action", "merge", "id", p, "into", keep));
    REQUIRE(out);
    CHECK_STR(sget(json_array_get(json_object_get(out, "decided"), 0), "into"), keep);
    json_decref(out);
    CHECK_STR(status_of(p), "archived");
    CHECK_STR(status_of(keep), "active");
    json_t *m = get(keep);
    char *tags = json_dumps(json_object_get(json_object_get(m, "scope"), "tags"), 0);
    CHECK(tags && strstr(tags, "flags"));
    free(tags);
    json_decref(m);
    CHECK(audits("merge", keep) == 1);
    /* into itself, or without into: refused */
    char *p2 = agent_pattern("Queues are named after teams",
                             "Every queue name starts with the owning team's slug.", "queues");
    CHECK(refused(MN_EINVAL, "review", json_pack("{s:s,s:s}", "action", "merge", "id", p2)));
    CHECK(refused(MN_EINVAL, "review",
                  json_pack("{s:s,s:s,s:s}", "action", "merge", "id", p2, "into", p2)));
    CHECK_STR(status_of(p2), "pending");
    json_t *rej = call("review", json_pack("{s:s,s:s}", "action", "reject", "id", p2));
    json_decref(rej);
    free(keep);
    free(p);
    free(p2);
}

/* bulk: a list of ids is all or none; all_from and all with a kind take the selection */
static void test_bulk(void)
{
    char *x = agent_pattern("Workers are idempotent",
                            "Every background job may run twice; write it so.", "jobs");
    char *y = agent_pattern("Jobs carry a request id",
                            "A background job logs the request id that queued it.", "jobs");
    char *fact = save(J("{'kind':'fact','title':'The CDN caches for an hour','body':'Static "
                        "assets are cached by the CDN for 3600 seconds.','provenance':"
                        "{'source':'discovery'},'confidence':0.2}"),
                      "created", "pending");
    char *done = save(J("{'kind':'fact','title':'Builds run on Debian 12','body':'The CI image is "
                        "Debian 12 with gcc 12.'}"),
                      "created", "active");
    /* one id not waiting (active: nothing to reject): nothing changes */
    CHECK(refused(MN_EINVAL, "review",
                  json_pack("{s:s,s:[s,s]}", "action", "reject", "ids", x, done)));
    CHECK_STR(status_of(x), "pending");
    /* nothing named */
    CHECK(refused(MN_EINVAL, "review", J("{'action':'approve'}")));
    CHECK(has_msg("give one of: an id"));
    /* all_from discovery takes the discovery fact only */
    json_t *out = call("review", J("{'action':'reject','all_from':'discovery'}"));
    CHECK(json_integer_value(json_object_get(out, "count")) == 1);
    json_decref(out);
    CHECK_STR(status_of(fact), "archived");
    CHECK_STR(status_of(x), "pending");
    /* the queue listed by kind, then all of that kind approved */
    out = call("review", J("{'kind':'pattern','all_from':'agent'}"));
    CHECK(json_integer_value(json_object_get(out, "total")) == 2);
    json_decref(out);
    out = call("review", J("{'action':'approve','all':true,'kind':'pattern'}"));
    CHECK(json_integer_value(json_object_get(out, "count")) == 2);
    json_decref(out);
    CHECK_STR(status_of(x), "active");
    CHECK_STR(status_of(y), "active");
    CHECK(audits("approve", x) == 1 && audits("approve", y) == 1);
    json_int_t total = -1;
    json_t *q = queued(x, &total);
    CHECK(q == NULL && total == 0);
    free(x);
    free(y);
    free(fact);
    free(done);
}

/* A gotcha of the deploy-migration kind, on a table. */
static char *lock_gotcha(const char *table, const char *solution)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b,
                  "{'kind':'gotcha','title':'Migration failed: lock timeout on %s','body':'The "
                  "deploy migration on %s failed with a lock timeout while the workers held "
                  "locks.','context':{'situation':'running the deploy migration on the %s "
                  "table','solution':'%s'},'scope':{'tags':['deploy']}}",
                  table, table, table, solution);
    char *id = save(J(b.ptr), "created", "active");
    mn_buf_release(&b);
    return id;
}

/* consolidate: a dry run proposes, apply saves a pattern derived from each, never twice */
static void test_consolidate(void)
{
    char *g[4];
    g[0] = lock_gotcha("orders", "run migrations with lock_timeout=5s off-peak");
    g[1] = lock_gotcha("payments", "run migrations with lock_timeout=5s off-peak");
    g[2] = lock_gotcha("invoices", "stop the workers first");
    char *other = save(J("{'kind':'gotcha','title':'CSS build breaks on node 22','body':'The CSS "
                         "build breaks on node 22 because of sass.','context':{'situation':'npm "
                         "run build','solution':'pin node 20'}}"),
                       "created", "active");
    json_t *m0 = get(g[0]);
    json_int_t before = count_memories();

    json_t *out = call("consolidate", J("{}"));
    REQUIRE(out);
    CHECK(json_is_true(json_object_get(out, "dry_run")));
    json_t *cls = json_object_get(out, "clusters");
    REQUIRE(json_array_size(cls) == 1);
    json_t *cl = json_array_get(cls, 0);
    CHECK_STR(sget(cl, "action"), "create");
    char *ms = json_dumps(json_object_get(cl, "members"), 0);
    CHECK(ms && strstr(ms, g[0]) && strstr(ms, g[1]) && strstr(ms, g[2]) && !strstr(ms, other));
    free(ms);
    const json_t *gen = json_object_get(cl, "generalize");
    CHECK_STR(sget(gen, "solution"), "run migrations with lock_timeout=5s off-peak");
    char *terms = json_dumps(json_object_get(gen, "shared_terms"), 0);
    CHECK(terms && strstr(terms, "\"migration\"") && strstr(terms, "\"lock\"") &&
          !strstr(terms, "orders"));
    free(terms);
    CHECK_STR(json_string_value(json_array_get(json_object_get(gen, "tags"), 0)), "deploy");
    json_decref(out);
    CHECK(count_memories() == before); /* a dry run writes nothing */
    /* min_size 4: no cluster of three */
    out = call("consolidate", J("{'min_size':4}"));
    CHECK(json_array_size(json_object_get(out, "clusters")) == 0);
    json_decref(out);

    out = call("consolidate", J("{'apply':true}"));
    REQUIRE(out);
    CHECK(json_integer_value(json_object_get(out, "created")) == 1);
    cl = json_array_get(json_object_get(out, "clusters"), 0);
    char *pattern = mn_strdup(sget(cl, "pattern") ? sget(cl, "pattern") : "?");
    json_decref(out);
    CHECK(count_memories() == before + 1);
    json_t *p = get(pattern);
    REQUIRE(p);
    CHECK_STR(sget(p, "kind"), "pattern");
    CHECK_STR(sget(json_object_get(p, "context"), "solution"),
              "run migrations with lock_timeout=5s off-peak");
    char *links = json_dumps(json_object_get(p, "links"), 0);
    for (int i = 0; i < 3; i++)
        CHECK(links && strstr(links, g[i]));
    CHECK(links && strstr(links, "derived_from") && !strstr(links, other));
    free(links);
    json_decref(p);
    /* the sources are unchanged */
    json_t *m0after = get(g[0]);
    CHECK(json_equal(json_object_get(m0, "context"), json_object_get(m0after, "context")));
    CHECK_STR(sget(m0after, "updated_at"), sget(m0, "updated_at"));
    CHECK_STR(sget(m0after, "status"), "active");
    json_decref(m0);
    json_decref(m0after);

    /* again: nothing to do; a fourth member extends the pattern */
    out = call("consolidate", J("{'apply':true}"));
    CHECK_STR(sget(json_array_get(json_object_get(out, "clusters"), 0), "action"), "none");
    CHECK(json_integer_value(json_object_get(out, "created")) == 0);
    json_decref(out);
    g[3] = lock_gotcha("refunds", "run migrations with lock_timeout=5s off-peak");
    out = call("consolidate", J("{'apply':true}"));
    cl = json_array_get(json_object_get(out, "clusters"), 0);
    CHECK_STR(sget(cl, "action"), "extend");
    CHECK_STR(sget(cl, "pattern"), pattern);
    CHECK(json_integer_value(json_object_get(out, "extended")) == 1);
    json_decref(out);
    p = get(pattern);
    links = json_dumps(json_object_get(p, "links"), 0);
    CHECK(links && strstr(links, g[3]));
    free(links);
    json_decref(p);
    CHECK(count_memories() == before + 2);
    CHECK(audits("link", pattern) == 1);
    /* bad input */
    CHECK(refused(MN_EINVAL, "consolidate", J("{'min_size':2}")));
    CHECK(refused(MN_EINVAL, "consolidate", J("{'kinds':['nonsense']}")));
    for (int i = 0; i < 4; i++)
        free(g[i]);
    free(other);
    free(pattern);
}

static void run_all(void)
{
    setup();
    test_list_and_approve();
    test_reject_never_again();
    test_conflict();
    test_edit();
    test_merge();
    test_bulk();
    test_consolidate();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
