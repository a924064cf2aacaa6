/*
 * test_lifecycle.c - the life cycle of a memory end to end, through
 * mn_api_call, on a store holding real memories and a real index of a
 * small Python repository the test writes and edits (index op: walk,
 * tree-sitter, resolve), the clock set by MNEMO_NOW_MS.
 *
 * Citations: filled at save (the function a memory names, the file it is
 * scoped to, lines given; a name defined twice is not guessed); an edited
 * function makes its memory stale (search marks it, context and recall
 * list it apart, `stale` shows the diff), the edit undone clears it,
 * revalidate takes today's code; a renamed function, a function moved to
 * another file, shifted lines and a renamed file are followed; a deleted
 * function is gone and revalidate drops its citation. Supersession: by a
 * save's links, by link (and back when the link goes or the new memory is
 * forgotten), deferred while the new one is pending, by
 * mn_memory_supersede; the chain stays in context. Expiry: a ttl and a
 * kind's time to live (counted from the last hit) hide a memory from
 * search, context, recall and list --expired exclude; gc counts, archives,
 * purges. Recency counts the last hit. Audit rows for every change.
 */
#include "common.h"
#include <sqlite3.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "api/api_internal.h"
#include "memory/lifecycle.h"
#include "store/store.h"
#include "util/schema.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

#define DAY 86400000LL

static char tmp[64];
static mn_ctx *ctx;
static int64_t now_ms = 1795239445123LL;

/* The clock moves forward: indexing and checking happen at distinct times, as they do. */
static void tick(int64_t ms)
{
    char v[32];
    now_ms += ms;
    snprintf(v, sizeof(v), "%lld", (long long)now_ms);
    setenv("MNEMO_NOW_MS", v, 1);
}

static void write_file(const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/%s", tmp, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        abort();
    mn_buf_release(&p);
}

static void remove_file(const char *rel)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/%s", tmp, rel);
    unlink(p.ptr);
    mn_buf_release(&p);
}

static json_t *call(const char *op, json_t *args)
{
    json_t *out = NULL;
    int rc = mn_api_call(ctx, op, args, &out);
    if (rc) {
        fprintf(stderr, "%s failed: %s\n", op, mn_error_last());
        out = NULL;
    } else {
        const json_t *schema = mn_api_output_schema(mn_api_find(op));
        if (schema && mn_schema_validate(schema, out) != 0) {
            fprintf(stderr, "%s: output off its schema: %s\n", op, mn_error_last());
            mn_test__failed_checks++;
        }
    }
    json_decref(args);
    return out;
}

static char *save(const char *json)
{
    tick(1000);
    json_t *out = call("save", J(json));
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

/* Index the repository; the answer (with its "citations" counts when it checked some). */
static json_t *reindex(void)
{
    tick(1000);
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/repo'}", tmp);
    json_t *out = call("index", J(p.ptr));
    mn_buf_release(&p);
    return out;
}

static json_t *get(const char *id)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'id':'%s'}", id);
    json_t *out = call("get", J(b.ptr));
    mn_buf_release(&b);
    json_t *mem = json_incref(json_object_get(out, "memory"));
    json_decref(out);
    return mem;
}

static const char *status_of(const char *id)
{
    static char st[32];
    json_t *m = get(id);
    snprintf(st, sizeof(st), "%s", m ? sget(m, "status") : "?");
    json_decref(m);
    return st;
}

static json_t *citation(const json_t *mem, size_t i)
{
    return json_array_get(json_object_get(mem, "citations"), i);
}

static json_t *op_on(const char *op, const char *id, const char *extra)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'id':'%s'%s%s}", id, extra ? "," : "", extra ? extra : "");
    json_t *out = call(op, J(b.ptr));
    mn_buf_release(&b);
    return out;
}

/* The search item of a memory, or NULL. */
static const json_t *found(const json_t *out, const char *id)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        if (!strcmp(sget(it, "id"), id))
            return it;
    }
    return NULL;
}

static json_t *search(const char *q)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'query':'%s','kinds':['memory'],'k':20}", q);
    json_t *out = call("search", J(b.ptr));
    mn_buf_release(&b);
    return out;
}

static bool in_search(const char *q, const char *id)
{
    json_t *out = search(q);
    bool in = found(out, id) != NULL;
    json_decref(out);
    return in;
}

/* Where a memory appears in context's items: its section, or NULL. */
static const char *context_section(const char *q, const char *id, char **markdown)
{
    static char sec[32];
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'query':'%s','max_tokens':3000}", q);
    json_t *out = call("context", J(b.ptr));
    mn_buf_release(&b);
    const char *r = NULL;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
    {
        if (!strcmp(sget(it, "id"), id)) {
            snprintf(sec, sizeof(sec), "%s", sget(it, "section"));
            r = sec;
        }
    }
    if (markdown)
        *markdown = mn_strdup(out ? sget(out, "markdown") : "");
    json_decref(out);
    return r;
}

/* In which part of recall's answer a memory is: facts, few_shots, decisions, stale, or NULL. */
static const char *recall_part(const char *q, const char *id)
{
    static const char *const parts[] = {"facts", "few_shots", "decisions", "stale"};
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'query':'%s'}", q);
    json_t *out = call("recall", J(b.ptr));
    mn_buf_release(&b);
    const char *r = NULL;
    for (size_t p = 0; p < MN_ARRAY_SIZE(parts); p++) {
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(out, parts[p]), i, it)
        {
            if (!strcmp(sget(it, "id"), id))
                r = parts[p];
        }
    }
    json_decref(out);
    return r;
}

/* How many audit rows of this action name this memory. */
static int audits(const char *action, const char *id)
{
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/store/mnemo.db", tmp);
    sqlite3 *h;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open_v2(db.ptr, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "SELECT count(*) FROM audit WHERE action = ?1 AND target = ?2", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, action, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    mn_buf_release(&db);
    return n;
}

/* The stale op's entry for a memory, or NULL (a new reference). */
static json_t *stale_entry(const char *id)
{
    json_t *out = call("stale", J("{}")), *r = NULL;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(out, "memories"), i, m)
    {
        if (!strcmp(sget(m, "id"), id))
            r = json_incref(m);
    }
    json_decref(out);
    return r;
}

static const char *CART_V1 = "\"\"\"Cart sessions.\"\"\"\n"
                             "\n"
                             "\n"
                             "def refresh_session(session, delay=None):\n"
                             "    \"\"\"Refresh an idle cart session.\"\"\"\n"
                             "    if delay is None:\n"
                             "        delay = 0\n"
                             "    session.expires = session.now + delay\n"
                             "    return session\n"
                             "\n"
                             "\n"
                             "def checkout_total(items):\n"
                             "    \"\"\"Sum the prices of the items.\"\"\"\n"
                             "    return sum(i.price for i in items)\n"
                             "\n"
                             "\n"
                             "def helper(x):\n"
                             "    return x\n";

static const char *PAY_V1 = "def charge(card, amount):\n"
                            "    \"\"\"Charge a card with the amount, in cents.\"\"\"\n"
                            "    if amount <= 0:\n"
                            "        raise ValueError(amount)\n"
                            "    return card.charge(amount)\n"
                            "\n"
                            "\n"
                            "def helper(y):\n"
                            "    return y + 1\n";

static char *m_refresh, *m_total, *m_pay_file, *m_lines, *m_helper, *m_helper_scoped, *m_charge;

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-life-XXXXXX");
    if (!mkdtemp(tmp))
        abort();
    tick(0);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    write_file("shop/__init__.py", "");
    write_file("shop/cart.py", CART_V1);
    write_file("shop/pay.py", PAY_V1);
    write_file("shop/notes.txt", "one\ntwo\nthree\n");
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/store/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = db.ptr;
    o.actor = "test";
    o.progress = false;
    /* a person's saves (an agent's need structured context; test_ops.c checks that) */
    o.front_end = MN_FRONT_LOCAL_CLI;
    if (mn_ctx_open(&ctx, &o) != 0)
        abort();
    mn_buf_release(&db);
    json_decref(reindex());
}

static void teardown(void)
{
    mn_ctx_free(ctx);
    char *all[] = {m_refresh, m_total, m_pay_file, m_lines, m_helper, m_helper_scoped, m_charge};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        free(all[i]);
    rm_rf(tmp);
}

static void test_fill(void)
{
    /* the function the body names */
    m_refresh = save("{'kind':'gotcha','title':'Idle carts log out at once',"
                     "'body':'refresh_session treats delay=None as 0, so idle carts expire on "
                     "the next request.'}");
    json_t *m = get(m_refresh);
    json_t *c = citation(m, 0);
    REQUIRE(c);
    CHECK_STR(sget(c, "path"), "shop/cart.py");
    CHECK_STR(sget(c, "symbol"), "refresh_session");
    CHECK(json_integer_value(json_object_get(c, "start_line")) == 4);
    CHECK(json_integer_value(json_object_get(c, "end_line")) == 9);
    CHECK(strlen(sget(c, "hash")) == 32);
    CHECK(strstr(sget(c, "text"), "        delay = 0\n") != NULL);
    CHECK(sget(c, "checked_at") != NULL && !json_object_get(c, "stale"));
    CHECK(citation(m, 1) == NULL);
    json_decref(m);

    m_total = save("{'kind':'fact','title':'Checkout sums prices',"
                   "'body':'`checkout_total` adds the item prices without tax.'}");
    m = get(m_total);
    CHECK_STR(sget(citation(m, 0), "symbol"), "checkout_total");
    json_decref(m);

    /* the file it is scoped to: a file citation, no text */
    m_pay_file = save("{'kind':'pattern','title':'Only the pay module charges cards',"
                      "'scope':{'paths':['shop/pay.py']}}");
    m = get(m_pay_file);
    c = citation(m, 0);
    CHECK_STR(sget(c, "path"), "shop/pay.py");
    CHECK(!json_object_get(c, "symbol") && !json_object_get(c, "text") &&
          strlen(sget(c, "hash")) == 32);
    json_decref(m);

    /* lines given: their hash and text */
    m_lines = save("{'kind':'fact','title':'The notes list three words',"
                   "'citations':[{'path':'shop/notes.txt','start_line':2,'end_line':3}]}");
    m = get(m_lines);
    c = citation(m, 0);
    CHECK_STR(sget(c, "text"), "two\nthree\n");
    CHECK(json_integer_value(json_object_get(c, "start_line")) == 2);
    json_decref(m);

    /* a name defined twice is not guessed; scoped to one of the files, it is that one */
    m_helper = save("{'kind':'fact','title':'helper() returns its argument'}");
    m = get(m_helper);
    CHECK(citation(m, 0) == NULL);
    json_decref(m);
    m_helper_scoped = save("{'kind':'fact','title':'helper() in pay adds one',"
                           "'scope':{'paths':['shop/pay.py']}}");
    m = get(m_helper_scoped);
    size_t i;
    json_t *x;
    int helpers = 0;
    json_array_foreach(json_object_get(m, "citations"), i,
                       x) if (sget(x, "symbol") && !strcmp(sget(x, "symbol"), "helper"))
    {
        helpers++;
        CHECK_STR(sget(x, "path"), "shop/pay.py");
    }
    CHECK(helpers == 1);
    json_decref(m);

    /* code the index does not know is not cited */
    char *none = save("{'kind':'fact','title':'no_such_function() is gone'}");
    m = get(none);
    CHECK(citation(m, 0) == NULL);
    json_decref(m);
    free(none);

    /* an exact duplicate merges without doubling its citations */
    char *again = save("{'kind':'gotcha','title':'Idle carts log out at once',"
                       "'body':'refresh_session treats delay=None as 0, so idle carts expire on "
                       "the next request.'}");
    CHECK_STR(again, m_refresh);
    m = get(m_refresh);
    CHECK(json_array_size(json_object_get(m, "citations")) == 1);
    json_decref(m);
    free(again);

    m_charge = save("{'kind':'gotcha','title':'Charging zero raises',"
                    "'body':'charge() refuses an amount of 0 with ValueError.',"
                    "'scope':{'symbols':['charge']}}");
}

static void test_changed_goes_stale(void)
{
    const char *q = "idle carts log out refresh_session";
    CHECK(context_section(q, m_refresh, NULL) != NULL);
    CHECK(strcmp(context_section(q, m_refresh, NULL), "stale") != 0);
    /* the cited function changes */
    char *v2 = mn_strdup(CART_V1);
    char *p = strstr(v2, "delay = 0\n");
    REQUIRE(p);
    mn_buf b = MN_BUF_INIT;
    mn_buf_put(&b, v2, (size_t)(p - v2));
    mn_buf_puts(&b, "delay = 30\n");
    mn_buf_puts(&b, p + strlen("delay = 0\n"));
    write_file("shop/cart.py", b.ptr);
    json_t *ix = reindex();
    const json_t *cc = json_object_get(ix, "citations");
    CHECK(cc && json_integer_value(json_object_get(cc, "stale")) == 1);
    json_decref(ix);
    CHECK(audits("stale", m_refresh) == 1);

    /* search marks it; context and recall do not serve it as current */
    json_t *out = search(q);
    const json_t *it = found(out, m_refresh);
    CHECK(it && !strcmp(sget(it, "status"), "stale"));
    json_decref(out);
    char *md = NULL;
    const char *sec = context_section(q, m_refresh, &md);
    CHECK(sec && !strcmp(sec, "stale"));
    CHECK(strstr(md, "## May be out of date") != NULL);
    CHECK(strstr(md, "treats delay=None as 0") == NULL); /* its claim is not repeated */
    free(md);
    const char *part = recall_part(q, m_refresh);
    CHECK(part && !strcmp(part, "stale"));

    /* stale lists it with the diff */
    json_t *e = stale_entry(m_refresh);
    REQUIRE(e);
    const json_t *c = json_array_get(json_object_get(e, "citations"), 0);
    CHECK_STR(sget(c, "stale"), "changed");
    CHECK_STR(sget(c, "symbol"), "refresh_session");
    CHECK(strstr(sget(c, "diff"), "-        delay = 0\n+        delay = 30\n") != NULL);
    CHECK_STR(sget(json_object_get(c, "now"), "path"), "shop/cart.py");
    json_decref(e);

    /* the edit undone: fresh again */
    write_file("shop/cart.py", CART_V1);
    json_decref(reindex());
    CHECK(stale_entry(m_refresh) == NULL);
    CHECK(audits("stale_cleared", m_refresh) == 1);
    sec = context_section(q, m_refresh, NULL);
    CHECK(sec && strcmp(sec, "stale") != 0);

    /* changed again, then revalidated: today's code is the truth */
    write_file("shop/cart.py", b.ptr);
    json_decref(reindex());
    REQUIRE((e = stale_entry(m_refresh)) != NULL);
    json_decref(e);
    json_t *r = op_on("revalidate", m_refresh, NULL);
    CHECK(r && !strcmp(sget(r, "action"), "revalidated") &&
          json_integer_value(json_object_get(r, "citations")) == 1);
    json_decref(r);
    CHECK(stale_entry(m_refresh) == NULL);
    CHECK(audits("revalidate", m_refresh) == 1);
    json_t *m = get(m_refresh);
    CHECK(strstr(sget(citation(m, 0), "text"), "delay = 30") != NULL);
    CHECK(!json_object_get(citation(m, 0), "stale"));
    json_decref(m);
    r = op_on("revalidate", m_refresh, NULL);
    CHECK(r && !strcmp(sget(r, "action"), "unchanged"));
    json_decref(r);
    sec = context_section(q, m_refresh, NULL);
    CHECK(sec && strcmp(sec, "stale") != 0);
    mn_buf_release(&b);
    free(v2);
}

static void test_renamed_follows(void)
{
    const char *cart = "\"\"\"Cart sessions.\"\"\"\n"
                       "\n"
                       "\n"
                       "def refresh_session(session, delay=None):\n"
                       "    \"\"\"Refresh an idle cart session.\"\"\"\n"
                       "    if delay is None:\n"
                       "        delay = 30\n"
                       "    session.expires = session.now + delay\n"
                       "    return session\n"
                       "\n"
                       "\n"
                       "def order_total(items):\n"
                       "    \"\"\"Sum the prices of the items.\"\"\"\n"
                       "    return sum(i.price for i in items)\n"
                       "\n"
                       "\n"
                       "def helper(x):\n"
                       "    return x\n";
    write_file("shop/cart.py", cart);
    json_t *ix = reindex();
    CHECK(json_integer_value(json_object_get(json_object_get(ix, "citations"), "followed")) == 1);
    json_decref(ix);
    json_t *m = get(m_total);
    const json_t *c = citation(m, 0);
    CHECK_STR(sget(c, "symbol"), "order_total");
    CHECK_STR(sget(c, "path"), "shop/cart.py");
    CHECK(!json_object_get(c, "stale"));
    CHECK(strstr(sget(c, "text"), "def order_total(items)") != NULL);
    json_decref(m);
    CHECK(stale_entry(m_total) == NULL);
    CHECK(audits("cite_follow", m_total) == 1);
    /* the other memory's citation into the same file did not move */
    CHECK(stale_entry(m_refresh) == NULL);
}

static void test_moved_to_another_file(void)
{
    /* charge() moves whole to billing.py */
    write_file("shop/pay.py", "def helper(y):\n"
                              "    return y + 1\n");
    write_file("shop/billing.py", "import decimal\n"
                                  "\n"
                                  "\n"
                                  "def charge(card, amount):\n"
                                  "    \"\"\"Charge a card with the amount, in cents.\"\"\"\n"
                                  "    if amount <= 0:\n"
                                  "        raise ValueError(amount)\n"
                                  "    return card.charge(amount)\n");
    json_decref(reindex());
    json_t *m = get(m_charge);
    const json_t *c = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(m, "citations"), i,
                       x) if (sget(x, "symbol") && !strcmp(sget(x, "symbol"), "charge")) c = x;
    CHECK(c && !strcmp(sget(c, "path"), "shop/billing.py") && !json_object_get(c, "stale"));
    CHECK(c && json_integer_value(json_object_get(c, "start_line")) == 4);
    json_decref(m);
    CHECK(stale_entry(m_charge) == NULL);
}

static void test_lines_and_files(void)
{
    /* lines above the cited ones: the citation follows its lines */
    write_file("shop/notes.txt", "zero\none\ntwo\nthree\n");
    json_decref(reindex());
    json_t *m = get(m_lines);
    CHECK(json_integer_value(json_object_get(citation(m, 0), "start_line")) == 3);
    CHECK(!json_object_get(citation(m, 0), "stale"));
    json_decref(m);
    /* the lines themselves change: stale */
    write_file("shop/notes.txt", "zero\none\ntwo\nfour\n");
    json_decref(reindex());
    json_t *e = stale_entry(m_lines);
    CHECK(e != NULL);
    CHECK(e && strstr(sget(json_array_get(json_object_get(e, "citations"), 0), "diff"),
                      "-three\n+four\n"));
    json_decref(e);

    /* a file citation: its content may change, the file must be there; a rename is followed */
    write_file("shop/pay.py", "def helper(y):\n"
                              "    return y + 2\n");
    json_decref(reindex());
    CHECK(stale_entry(m_pay_file) == NULL);
    remove_file("shop/pay.py");
    write_file("shop/payment.py", "def helper(y):\n"
                                  "    return y + 2\n");
    json_decref(reindex());
    m = get(m_pay_file);
    CHECK_STR(sget(citation(m, 0), "path"), "shop/payment.py");
    json_decref(m);
    CHECK(stale_entry(m_pay_file) == NULL);
}

static void test_deleted_is_gone(void)
{
    /* the memory about helper in pay (now payment.py, helper changed): delete the file */
    remove_file("shop/payment.py");
    json_decref(reindex());
    json_t *e = stale_entry(m_pay_file);
    REQUIRE(e);
    CHECK_STR(sget(json_array_get(json_object_get(e, "citations"), 0), "stale"), "gone");
    json_decref(e);
    json_t *r = op_on("revalidate", m_pay_file, NULL);
    CHECK(r && json_integer_value(json_object_get(r, "dropped")) == 1);
    json_decref(r);
    json_t *m = get(m_pay_file);
    CHECK(json_object_get(m, "citations") == NULL);
    json_decref(m);
    CHECK(stale_entry(m_pay_file) == NULL);
}

static void test_supersede(void)
{
    const char *q = "payments provider stripe adyen";
    char *old = save("{'kind':'decision','title':'Payments go through Stripe',"
                     "'body':'We chose Stripe as the payments provider for its API.'}");
    char *nw;
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b,
                  "{'kind':'decision','title':'Payments go through Adyen',"
                  "'body':'We moved the payments provider from Stripe to Adyen for fees.',"
                  "'links':[{'kind':'supersedes','to':'%s','note':'fees'}]}",
                  old);
    nw = save(b.ptr);
    mn_buf_release(&b);
    /* a near-duplicate with another conclusion, but the save says it replaces it: superseded,
     * not a conflict sent to review (no contradicts link, the new one active) */
    CHECK_STR(status_of(nw), "active");
    json_t *nm = get(nw);
    CHECK(json_array_size(json_object_get(nm, "links")) == 1);
    json_decref(nm);
    CHECK_STR(status_of(old), "superseded");
    CHECK(audits("supersede", old) == 1);
    CHECK(!in_search(q, old) && in_search(q, nw));
    json_t *out = call("search", J("{'query':'payments provider stripe','kinds':['memory'],"
                                   "'filters':{'status':['superseded']}}"));
    CHECK(found(out, old) != NULL);
    json_decref(out);
    /* context: the new decision with the one it replaced under it, not the old one apart */
    char *md = NULL;
    CHECK(context_section(q, old, &md) == NULL);
    CHECK(strstr(md, "supersedes: Payments go through Stripe") != NULL);
    free(md);

    /* the link removed: the old one is current again; added back: superseded */
    mn_buf_printf(&b, "{'from':'%s','kind':'supersedes','to':'%s','remove':true}", nw, old);
    json_decref(call("link", J(b.ptr)));
    CHECK_STR(status_of(old), "active");
    CHECK(audits("unsupersede", old) == 1);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'from':'%s','kind':'supersedes','to':'%s'}", nw, old);
    json_decref(call("link", J(b.ptr)));
    CHECK_STR(status_of(old), "superseded");

    /* the new one forgotten: the old one comes back; the forget undone: replaced again */
    json_decref(op_on("forget", nw, NULL));
    CHECK_STR(status_of(old), "active");
    json_decref(op_on("forget", nw, "'undo':true"));
    CHECK_STR(status_of(old), "superseded");

    /* a pending replacement waits for its approval */
    char *d1 = save("{'kind':'decision','title':'Refunds are manual',"
                    "'body':'Refunds are made by hand in the dashboard.'}");
    mn_buf_clear(&b);
    mn_buf_printf(&b,
                  "{'kind':'decision','title':'Refunds are automatic','confidence':0.3,"
                  "'body':'Refunds go through the API.',"
                  "'links':[{'kind':'supersedes','to':'%s'}]}",
                  d1);
    char *d2 = save(b.ptr);
    CHECK_STR(status_of(d2), "pending");
    CHECK_STR(status_of(d1), "active");
    json_decref(op_on("update", d2, "'status':'active'"));
    CHECK_STR(status_of(d1), "superseded");

    /* the pipeline's call: mn_memory_supersede, in the caller's transaction (two texts the
     * near-duplicate check leaves apart: "v1"/"v2" alone would be a conflict sent to review) */
    char *f1 = save("{'kind':'fact','title':'Orders are exported as CSV',"
                    "'body':'The nightly job writes orders.csv for accounting.'}");
    char *f2 = save("{'kind':'fact','title':'Orders go to the warehouse API',"
                    "'body':'A webhook posts each order to the warehouse service.'}");
    mn_store *s = ctx->store;
    REQUIRE_OK(mn_store_begin(s));
    CHECK(mn_memory_supersede(s, f2, f2, "same", "test") == MN_EINVAL);
    mn_error_clear();
    CHECK_OK(mn_memory_supersede(s, f2, f1, "a near-duplicate with another number", "pipeline"));
    CHECK_OK(mn_store_commit(s));
    CHECK_STR(status_of(f1), "superseded");
    json_t *m = get(f2);
    CHECK_STR(sget(json_array_get(json_object_get(m, "links"), 0), "kind"), "supersedes");
    CHECK_STR(sget(json_array_get(json_object_get(m, "links"), 0), "to"), f1);
    json_decref(m);
    mn_buf_release(&b);
    free(old);
    free(nw);
    free(d1);
    free(d2);
    free(f1);
    free(f2);
}

static int64_t count(const char *json)
{
    json_t *out = call("list", J(json));
    int64_t n = out ? json_integer_value(json_object_get(out, "total")) : -1;
    json_decref(out);
    return n;
}

static void test_expiry_and_gc(void)
{
    const char *q = "warehouse strike shipping delay";
    char *ttl = save("{'kind':'fact','title':'Shipping is delayed by the warehouse strike',"
                     "'body':'Orders ship a week late during the warehouse strike.','ttl':'2d'}");
    char *ep_old = save("{'kind':'episode','title':'Asked about shipping during the strike',"
                        "'body':'user: is shipping delayed by the warehouse strike?'}");
    char *ep_used = save("{'kind':'episode','title':'Shipping delay answered: strike',"
                         "'body':'agent: shipping is delayed by the warehouse strike.'}");
    char *fact = save("{'kind':'fact','title':'Shipping goes by post',"
                      "'body':'Orders ship by post; the warehouse packs them.'}");
    CHECK(count("{'expired':'only'}") == 0);

    /* three days on: the ttl ran out (the searches are hits for the others: day 3) */
    tick(3 * DAY);
    CHECK(!in_search(q, ttl) && in_search(q, ep_old) && in_search(q, ep_used));
    CHECK(context_section(q, ttl, NULL) == NULL);
    CHECK(recall_part(q, ttl) == NULL);
    CHECK(count("{'expired':'only'}") == 1);
    CHECK(count("{'expired':'exclude','kind':'fact'}") == count("{'kind':'fact'}") - 1);

    /* day 100, one episode is served again: its time to live starts again */
    tick(97 * DAY);
    json_t *out = call("search", J("{'query':'Shipping delay answered strike agent',"
                                   "'kinds':['memory'],'k':1}"));
    CHECK(out && found(out, ep_used));
    json_decref(out);
    /* day 184: the other episode, last served on day 3, expired (memory.ttl.episode 180d) */
    tick(84 * DAY);
    CHECK(count("{'expired':'only'}") == 2);
    CHECK(!in_search(q, ep_old) && in_search(q, ep_used) && in_search(q, fact));
    tick(181 * DAY);
    CHECK(!in_search(q, ep_used) && in_search(q, fact)); /* 181 days after its last hit */

    /* gc: a dry run counts, --apply archives, with an audit row each */
    out = call("gc", J("{}"));
    CHECK(out && json_is_true(json_object_get(out, "dry_run")));
    int64_t expired = json_integer_value(json_object_get(json_object_get(out, "expired"), "count"));
    int64_t superseded =
        json_integer_value(json_object_get(json_object_get(out, "superseded"), "count"));
    CHECK(expired == 3);    /* the ttl, the two episodes */
    CHECK(superseded == 3); /* Stripe, manual refunds, CSV export: a year ago (90d) */
    json_decref(out);
    CHECK_STR(status_of(ttl), "active");
    out = call("gc", J("{'apply':true}"));
    CHECK(out && !json_is_true(json_object_get(out, "dry_run")));
    CHECK(out &&
          json_integer_value(json_object_get(json_object_get(out, "expired"), "count")) == expired);
    CHECK(out && json_integer_value(json_object_get(json_object_get(out, "superseded"), "count")) ==
                     superseded);
    json_decref(out);
    CHECK_STR(status_of(ttl), "archived");
    CHECK_STR(status_of(ep_old), "archived");
    CHECK(audits("expire", ttl) == 1 && audits("expire", ep_used) == 1);
    CHECK_STR(status_of(fact), "active");
    out = call("gc", J("{'apply':true}"));
    CHECK(out &&
          json_integer_value(json_object_get(json_object_get(out, "expired"), "count")) == 0);
    CHECK(out &&
          json_integer_value(json_object_get(json_object_get(out, "superseded"), "count")) == 0);
    json_decref(out);
    /* purge what was archived more than a day ago, on request */
    tick(2 * DAY);
    out = call("gc", J("{'purge_archived_older_than':'1d'}"));
    int64_t purge =
        json_integer_value(json_object_get(json_object_get(out, "purged_archived"), "count"));
    CHECK(purge == expired + superseded);
    json_decref(out);
    out = call("gc", J("{'purge_archived_older_than':'1d','apply':true}"));
    CHECK(out && json_integer_value(
                     json_object_get(json_object_get(out, "purged_archived"), "count")) == purge);
    json_decref(out);
    json_t *args = J("{'id':'x'}"), *o2 = NULL;
    json_object_set_new(args, "id", json_string(ttl));
    CHECK(mn_api_call(ctx, "get", args, &o2) == MN_ENOTFOUND);
    json_decref(args);
    mn_error_clear();
    CHECK(audits("purge", ttl) == 1);
    /* a bad age is refused */
    args = J("{'purge_archived_older_than':'soon'}");
    CHECK(mn_api_call(ctx, "gc", args, &o2) == MN_EINVAL);
    json_decref(args);
    mn_error_clear();
    free(ttl);
    free(ep_old);
    free(ep_used);
    free(fact);
}

static void test_recency_counts_hits(void)
{
    char *a = save("{'kind':'fact','title':'Parcel lockers take small boxes',"
                   "'body':'Parcel lockers take boxes up to 40 cm.',"
                   "'created_at':'2026-01-01T00:00:00Z'}");
    char *b2 = save("{'kind':'fact','title':'Parcel lockers open at dawn',"
                    "'body':'Parcel lockers open at 6.','created_at':'2026-01-01T00:00:00Z'}");
    /* a is served now */
    json_t *out = call("search", J("{'query':'lockers take small boxes 40 cm','kinds':['memory'],"
                                   "'k':1}"));
    CHECK(found(out, a) != NULL);
    json_decref(out);
    tick(1000);
    out = call("search", J("{'query':'parcel lockers','kinds':['memory'],'k':10}"));
    const json_t *ia = found(out, a), *ib = found(out, b2);
    REQUIRE(ia && ib);
    double ra = json_number_value(json_object_get(json_object_get(ia, "signals"), "recency"));
    double rb = json_number_value(json_object_get(json_object_get(ib, "signals"), "recency"));
    CHECK(ra > 0.99 && rb < 0.5); /* served a second ago; saved with a created_at of months ago */
    json_decref(out);
    /* asked as of before the hit: the hit did not happen yet */
    out = call("search", J("{'query':'parcel lockers','kinds':['memory'],'k':10,"
                           "'as_of':'2026-02-01T00:00:00Z'}"));
    ia = found(out, a);
    ib = found(out, b2);
    REQUIRE(ia && ib);
    ra = json_number_value(json_object_get(json_object_get(ia, "signals"), "recency"));
    rb = json_number_value(json_object_get(json_object_get(ib, "signals"), "recency"));
    CHECK(ra == rb);
    json_decref(out);
    free(a);
    free(b2);
}

static void run_all(void)
{
    setup();
    test_fill();
    test_changed_goes_stale();
    test_renamed_follows();
    test_moved_to_another_file();
    test_lines_and_files();
    test_deleted_is_gone();
    test_supersede();
    test_expiry_and_gc();
    test_recency_counts_hits();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
