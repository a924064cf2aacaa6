/*
 * test_search.c - the search and feedback operations end to end, through
 * mn_api_call, on a store holding real memories and a real index of a small
 * Python repository written by the test (index op: walk, tree-sitter,
 * resolve, rank, discovery).
 *
 * What is checked: lexical ranking of memories by field, the filters, the
 * default status rule (archived and forgotten out, pending marked), stale
 * citations marked; code items for a named symbol; files ranked for an
 * issue, a traceback path, a dotted name; tests ranked under their
 * source; the graph spreading to an imported file and bringing memories
 * scoped to a matched file; usefulness moving a memory after feedback; the
 * served record; queries made of FTS5 syntax; the output schema.
 */
#include "common.h"
#include <sqlite3.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "store/sqlite/fts_tokenizer.h"
#include "util/schema.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"

static char tmp[64];
static mn_ctx *ctx;

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

/* A tiny shop: a cart package (session imports store), billing, a test, docs. */
static void make_repo(void)
{
    write_file("cart/__init__.py", "");
    write_file("cart/session.py", "from cart.store import save_cart\n"
                                  "\n"
                                  "\n"
                                  "class Session:\n"
                                  "    \"\"\"A shopping cart session of one visitor.\"\"\"\n"
                                  "\n"
                                  "    def refresh(self, delay=None):\n"
                                  "        \"\"\"Extend the session by its delay.\"\"\"\n"
                                  "        self.expires = now() + (delay or 30)\n"
                                  "        save_cart(self)\n"
                                  "\n"
                                  "    def close(self):\n"
                                  "        self.expires = 0\n");
    write_file("cart/store.py", "def save_cart(session):\n"
                                "    \"\"\"Write the cart to the database.\"\"\"\n"
                                "    db.write(session.key, session.items)\n"
                                "\n"
                                "\n"
                                "def load_cart(key):\n"
                                "    \"\"\"Read a cart back from the database.\"\"\"\n"
                                "    return db.read(key)\n");
    write_file("billing/invoice.py",
               "class Invoice:\n"
               "    \"\"\"An invoice with its taxes.\"\"\"\n"
               "\n"
               "    def total(self):\n"
               "        return sum(line.amount for line in self.lines) * (1 + self.tax_rate)\n");
    write_file("tests/test_session.py", "from cart.session import Session\n"
                                        "\n"
                                        "\n"
                                        "def test_refresh_extends():\n"
                                        "    s = Session()\n"
                                        "    s.refresh(delay=5)\n"
                                        "    s.refresh()\n"
                                        "    assert s.expires\n");
    write_file("README.md", "# shop\n\nA small shop: carts, sessions and invoices.\n");
}

static json_t *call(const char *op, json_t *args)
{
    json_t *out = NULL;
    int rc = mn_api_call(ctx, op, args, &out);
    if (rc) {
        fprintf(stderr, "%s failed: %s\n", op, mn_error_last());
        out = NULL;
    } else {
        /* every answer matches the op's output schema */
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
    json_t *out = call("save", J(json));
    char *id = mn_strdup(out ? json_string_value(json_object_get(out, "id")) : "?");
    json_decref(out);
    return id;
}

/* Run op on a memory: {"id": id} plus extra members (JSON object text or NULL). */
static void on_memory(const char *op, const char *id, const char *extra)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'id':'%s'%s%s}", id, extra ? "," : "", extra ? extra : "");
    json_decref(call(op, J(b.ptr)));
    mn_buf_release(&b);
}

static json_t *search(const char *json)
{
    return call("search", J(json));
}

/* "id,id,..." of the items, in order. */
static char *ids(const json_t *out)
{
    mn_buf b = MN_BUF_INIT;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i, it)
        mn_buf_printf(&b, "%s%s", i ? "," : "", json_string_value(json_object_get(it, "id")));
    return mn_buf_detach(&b);
}

static const json_t *item(const json_t *out, size_t i)
{
    return json_array_get(json_object_get(out, "items"), i);
}

static const json_t *find_item(const json_t *out, const char *id)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i,
                       it) if (strcmp(json_string_value(json_object_get(it, "id")), id) ==
                               0) return it;
    return NULL;
}

static double signal(const json_t *it, const char *name)
{
    return json_number_value(json_object_get(json_object_get(it, "signals"), name));
}

/* Position of id among the items, or -1. */
static int rank_of(const json_t *out, const char *id)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(out, "items"), i,
                       it) if (strcmp(json_string_value(json_object_get(it, "id")), id) ==
                               0) return (int)i;
    return -1;
}

static char *m_cart, *m_invoice, *m_pending, *m_archived, *m_forgotten, *m_scoped, *m_twin1,
    *m_twin2, *m_stale;

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-search-XXXXXX");
    if (!mkdtemp(tmp))
        abort();
    setenv("MNEMO_NOW_MS", "1795239445123", 1);
    unsetenv("MNEMO_DB");
    unsetenv("MNEMO_PROJECT");
    make_repo();
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/store/mnemo.db", tmp);
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.db_path = db.ptr;
    o.actor = "test";
    o.progress = false;
    /* a person's saves: a pattern without evidence is active (an agent's would wait in review) */
    o.front_end = MN_FRONT_LOCAL_CLI;
    if (mn_ctx_open(&ctx, &o) != 0)
        abort();
    mn_buf_release(&db);

    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/repo'}", tmp);
    json_decref(call("index", J(p.ptr)));
    mn_buf_release(&p);

    m_cart = save("{'kind':'gotcha','title':'Cart sessions expire when delay is nil',"
                  "'body':'Checkout returned 401 after idle: refresh got no delay.',"
                  "'context':{'trigger_keywords':['checkout','401','idle']}}");
    m_invoice = save("{'kind':'decision','title':'Invoices round taxes per line',"
                     "'body':'Rounding the total made cents disappear; we round each line.'}");
    m_pending = save("{'kind':'fact','title':'Checkout retries twice on a gateway timeout',"
                     "'confidence':0.2}");
    m_archived = save("{'kind':'fact','title':'Checkout used the old gateway'}");
    on_memory("update", m_archived, "'status':'archived'");
    m_forgotten = save("{'kind':'fact','title':'Checkout idle limit was ten minutes'}");
    on_memory("forget", m_forgotten, NULL);
    m_scoped =
        save("{'kind':'pattern','title':'Persist through the store module only',"
             "'scope':{'paths':['cart/store.py']},'context':{'trigger_keywords':['persist']}}");
    m_twin1 = save("{'kind':'fact','title':'Gift wrapping costs extra','body':'wrapping one'}");
    m_twin2 = save("{'kind':'fact','title':'Gift wrapping costs extra','body':'wrapping two'}");
    m_stale = save("{'kind':'fact','title':'Loyalty points expire yearly',"
                   "'citations':[{'path':'cart/session.py','start_line':1,'end_line':2}]}");
}

static void teardown(void)
{
    mn_ctx_free(ctx);
    char *all[] = {m_cart,   m_invoice, m_pending, m_archived, m_forgotten,
                   m_scoped, m_twin1,   m_twin2,   m_stale};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        free(all[i]);
    rm_rf(tmp);
}

static void test_memories_lexical(void)
{
    json_t *out = search("{'query':'why do cart sessions expire after idle?','kinds':['memory']}");
    REQUIRE(out);
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "id")), m_cart);
    CHECK(signal(item(out, 0), "lexical") == 1.0);
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "type")), "memory");
    CHECK(strstr(json_string_value(json_object_get(item(out, 0), "snippet")), "idle") != NULL);
    CHECK(json_integer_value(json_object_get(out, "served")) > 0);
    json_decref(out);

    /* a trigger keyword and the body find it too */
    out = search("{'query':'401','kinds':['memory']}");
    CHECK(out && rank_of(out, m_cart) == 0);
    json_decref(out);
    out = search("{'query':'cents disappear','kinds':['memory']}");
    CHECK(out && rank_of(out, m_invoice) == 0);
    json_decref(out);
}

static void test_status_rules(void)
{
    json_t *out = search("{'query':'checkout','kinds':['memory'],'k':20}");
    REQUIRE(out);
    CHECK(rank_of(out, m_cart) >= 0);
    CHECK(rank_of(out, m_pending) >= 0); /* pending: served, marked */
    CHECK_STR(json_string_value(json_object_get(find_item(out, m_pending), "status")), "pending");
    CHECK(rank_of(out, m_archived) < 0);
    CHECK(rank_of(out, m_forgotten) < 0);
    json_decref(out);

    out =
        search("{'query':'checkout gateway','kinds':['memory'],'filters':{'status':['archived']}}");
    REQUIRE(out);
    char *got = ids(out);
    CHECK_STR(got, m_archived);
    free(got);
    json_decref(out);
    /* forgotten stays out even when asked by status */
    out =
        search("{'query':'idle limit minutes','kinds':['memory'],"
               "'filters':{'status':['active','pending','archived','superseded','quarantined']}}");
    CHECK(out && rank_of(out, m_forgotten) < 0);
    json_decref(out);
}

static void test_filters(void)
{
    json_t *out = search("{'query':'checkout invoices taxes','kinds':['memory'],"
                         "'filters':{'kind':['decision']}}");
    REQUIRE(out);
    char *got = ids(out);
    CHECK_STR(got, m_invoice);
    free(got);
    json_decref(out);
    out = search("{'query':'persist store checkout','kinds':['memory'],"
                 "'filters':{'paths':['cart/*']}}");
    REQUIRE(out);
    CHECK(rank_of(out, m_scoped) >= 0);
    CHECK(rank_of(out, m_cart) < 0); /* not scoped to cart/ */
    json_decref(out);
    out = search("{'query':'checkout','kinds':['memory'],'filters':{'level':['L0']}}");
    REQUIRE(out);
    CHECK(rank_of(out, m_cart) < 0);
    json_decref(out);
}

static void test_stale_marked(void)
{
    /* a citation whose code changed, as the verifier will mark it */
    mn_buf sql = MN_BUF_INIT;
    sqlite3 *h;
    REQUIRE(sqlite3_open(mn_ctx_db_path(ctx), &h) == SQLITE_OK);
    mn_buf_printf(&sql,
                  "UPDATE citations SET stale = 1 WHERE memory_id = (SELECT id FROM "
                  "memories WHERE uid = '%s')",
                  m_stale);
    CHECK(sqlite3_exec(h, sql.ptr, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    mn_buf_release(&sql);
    json_t *out = search("{'query':'loyalty points','kinds':['memory']}");
    REQUIRE(out && rank_of(out, m_stale) == 0);
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "status")), "stale");
    json_decref(out);
}

static void test_code_items(void)
{
    json_t *out = search("{'query':'save_cart writes to the database','kinds':['code'],'k':3}");
    REQUIRE(out && json_array_size(json_object_get(out, "items")) > 0);
    const json_t *top = item(out, 0);
    CHECK_STR(json_string_value(json_object_get(top, "type")), "code");
    CHECK_STR(json_string_value(json_object_get(top, "path")), "cart/store.py");
    CHECK_STR(json_string_value(json_object_get(top, "title")), "save_cart");
    CHECK(json_integer_value(json_object_get(top, "start_line")) == 1);
    CHECK(json_integer_value(json_object_get(top, "end_line")) >= 3);
    CHECK(strncmp(json_string_value(json_object_get(top, "id")), "chunk:", 6) == 0);
    CHECK(strstr(json_string_value(json_object_get(top, "snippet")), "save_cart") != NULL);
    json_decref(out);
}

static void test_files(void)
{
    /* an issue naming a method */
    json_t *out = search("{'query':'Session.refresh ignores the delay\\nWhen I call "
                         "`Session.refresh(delay=5)` the session still expires after 30s.',"
                         "'kinds':['file'],'k':5}");
    REQUIRE(out);
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "id")), "cart/session.py");
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "type")), "file");
    /* its test ranks below it, and the store it calls comes through the graph */
    CHECK(rank_of(out, "tests/test_session.py") > 0);
    const json_t *store = find_item(out, "cart/store.py");
    CHECK(store && signal(store, "graph") > 0);
    json_decref(out);

    /* a traceback's frame names the file */
    out = search(
        "{'query':'KeyError when saving\\nTraceback (most recent call last):\\n  File "
        "\\\"/srv/venv/lib/python3.11/site-packages/cart/store.py\\\", line 3, in save_cart\\n"
        "KeyError: 7','kinds':['file'],'k':3}");
    CHECK(out && rank_of(out, "cart/store.py") == 0);
    json_decref(out);

    /* a dotted module name */
    out = search("{'query':'billing.invoice rounds wrong','kinds':['file'],'k':3}");
    CHECK(out && rank_of(out, "billing/invoice.py") == 0);
    json_decref(out);

    /* files in scope rank higher */
    out = search("{'query':'cart','kinds':['file'],'files':['billing/'],'k':6}");
    REQUIRE(out);
    const json_t *inv = find_item(out, "billing/invoice.py");
    CHECK(inv && signal(inv, "scope") == 1.0);
    json_decref(out);
}

static void test_attached_memories(void)
{
    /* nothing in the memory says "load", but it is scoped to the file that matched */
    json_t *out =
        search("{'query':'load_cart reads a cart back','kinds':['memory','code'],'k':10}");
    REQUIRE(out);
    const json_t *m = find_item(out, m_scoped);
    CHECK(m != NULL);
    CHECK(m && signal(m, "graph") > 0);
    json_decref(out);
    /* the files one works on bring their memories, words or not */
    out = search("{'query':'tax rounding','kinds':['memory'],'files':['cart/store.py']}");
    REQUIRE(out);
    m = find_item(out, m_scoped);
    CHECK(m && signal(m, "scope") == 1.0 && signal(m, "lexical") == 0);
    CHECK(rank_of(out, m_invoice) == 0); /* the words still lead */
    json_decref(out);
}

static void test_feedback(void)
{
    /* twins rank by id at first; feedback makes one more useful */
    json_t *out = search("{'query':'gift wrapping costs','kinds':['memory']}");
    REQUIRE(out);
    int64_t served = json_integer_value(json_object_get(out, "served"));
    CHECK(served > 0);
    char *first = mn_strdup(json_string_value(json_object_get(item(out, 0), "id")));
    const char *other = strcmp(first, m_twin1) == 0 ? m_twin2 : m_twin1;
    json_decref(out);

    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "{'signal':'used','items':['%s'],'served':%lld}", other, (long long)served);
    out = call("feedback", J(b.ptr));
    REQUIRE(out);
    CHECK(json_integer_value(json_object_get(out, "recorded")) == 1);
    const json_t *mem = json_array_get(json_object_get(out, "memories"), 0);
    CHECK_STR(json_string_value(json_object_get(mem, "id")), other);
    CHECK(json_integer_value(json_object_get(mem, "used")) == 1);
    json_decref(out);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'signal':'ignored','items':['%s']}", first);
    json_decref(call("feedback", J(b.ptr)));

    out = search("{'query':'gift wrapping costs','kinds':['memory']}");
    REQUIRE(out);
    CHECK_STR(json_string_value(json_object_get(item(out, 0), "id")), other);
    CHECK(signal(item(out, 0), "usefulness") > 0.5);
    CHECK(signal(find_item(out, first), "usefulness") < 0.5);
    json_decref(out);

    /* an item that was not served in that answer, an answer that does not exist */
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'signal':'used','items':['%s'],'served':%lld}", m_invoice,
                  (long long)served);
    json_t *bad = NULL;
    json_t *args = J(b.ptr);
    CHECK(mn_api_call(ctx, "feedback", args, &bad) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "is not in answer") != NULL);
    json_decref(args);
    args = J("{'signal':'used','items':['x'],'served':999999}");
    CHECK(mn_api_call(ctx, "feedback", args, &bad) == MN_ENOTFOUND);
    json_decref(args);
    /* a made-up id, and no answer named: refused (it was served nowhere), nothing recorded */
    args = J("{'signal':'used','items':['01ZZZZZZZZZZZZZZZZZZZZZZZZ']}");
    CHECK(mn_api_call(ctx, "feedback", args, &bad) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "was not served") != NULL);
    json_decref(args);
    /* an id as context prints it (12 characters, more when another id of the answer starts
       alike: the twins were saved in the same millisecond) finds its memory in the newest
       answer; a prefix both twins share names neither */
    int same = 0;
    while (other[same] && other[same] == first[same])
        same++;
    int len = same + 1 > 12 ? same + 1 : 12;
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'signal':'used','items':['%.*s']}", same, other);
    args = J(b.ptr);
    if (same >= 8) {
        CHECK(mn_api_call(ctx, "feedback", args, &bad) == MN_EINVAL);
        mn_error_clear();
    }
    json_decref(args);
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'signal':'used','items':['%.*s']}", len, other);
    out = call("feedback", J(b.ptr));
    REQUIRE(out);
    mem = json_array_get(json_object_get(out, "memories"), 0);
    CHECK_STR(json_string_value(json_object_get(mem, "id")), other);
    CHECK(json_integer_value(json_object_get(mem, "used")) == 2);
    json_decref(out);
    /* code and files are rated too (no counters): as path:line, path, chunk:<n> */
    out = search("{'query':'cart store writer','kinds':['code','file']}");
    REQUIRE(out && json_array_size(json_object_get(out, "items")) > 0);
    int64_t code_served = json_integer_value(json_object_get(out, "served"));
    const json_t *c0 = item(out, 0);
    mn_buf_clear(&b);
    if (!strcmp(json_string_value(json_object_get(c0, "type")), "code"))
        mn_buf_printf(&b,
                      "{'signal':'refined','items':['%s:%lld'],'served':%lld,"
                      "'query':'where is the cart written','note':'wanted the writer'}",
                      json_string_value(json_object_get(c0, "path")),
                      (long long)json_integer_value(json_object_get(c0, "start_line")),
                      (long long)code_served);
    else
        mn_buf_printf(&b,
                      "{'signal':'refined','items':['%s'],'served':%lld,"
                      "'query':'where is the cart written'}",
                      json_string_value(json_object_get(c0, "id")), (long long)code_served);
    json_decref(out);
    out = call("feedback", J(b.ptr));
    CHECK(out && json_integer_value(json_object_get(out, "recorded")) == 1);
    CHECK(out && json_array_size(json_object_get(out, "memories")) == 0);
    json_decref(out);
    /* refined without items: the answer as a whole, with the new question */
    mn_buf_clear(&b);
    mn_buf_printf(&b, "{'signal':'refined','served':%lld,'query':'gift wrap price'}",
                  (long long)served);
    out = call("feedback", J(b.ptr));
    CHECK(out && json_integer_value(json_object_get(out, "recorded")) == 1);
    json_decref(out);
    /* used without items: refused */
    args = J("{'signal':'used'}");
    CHECK(mn_api_call(ctx, "feedback", args, &bad) == MN_EINVAL);
    json_decref(args);
    mn_buf_release(&b);
    free(first);
}

static void test_fts_syntax_is_text(void)
{
    static const char *const queries[] = {
        "\"unbalanced quote",
        "NEAR(cart session, 2)",
        "cart AND OR NOT",
        "title:*",
        "(((cart",
        "^start* -minus +plus",
        "a\"\"b",
        "{title body}: cart",
        "cart OR \"session\"",
        "*",
        "\"\"",
        "' OR 1=1 --",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(queries); i++) {
        json_t *args =
            json_pack("{s:s,s:[s,s,s]}", "query", queries[i], "kinds", "memory", "code", "file");
        json_t *out = NULL;
        int rc = mn_api_call(ctx, "search", args, &out);
        if (rc)
            fprintf(stderr, "query %s: %s\n", queries[i], mn_error_last());
        CHECK(rc == 0);
        json_decref(out);
        json_decref(args);
    }
    /* operators are words: a memory with the word "near" is found by it */
    char *id = save("{'kind':'fact','title':'The depot is near the station'}");
    json_t *out = search("{'query':'NEAR depot','kinds':['memory']}");
    CHECK(out && rank_of(out, id) == 0);
    json_decref(out);
    free(id);
}

static void test_served_recorded(void)
{
    json_t *out = search("{'query':'cart session','k':4}");
    REQUIRE(out);
    int64_t served = json_integer_value(json_object_get(out, "served"));
    size_t n = json_array_size(json_object_get(out, "items"));
    CHECK(n > 0 && n <= 4);
    CHECK(json_integer_value(json_object_get(out, "total")) >= (json_int_t)n);
    /* the default kinds mix memories and code */
    bool memory = false, code = false;
    for (size_t i = 0; i < n; i++) {
        const char *t = json_string_value(json_object_get(item(out, i), "type"));
        memory = memory || strcmp(t, "memory") == 0;
        code = code || strcmp(t, "code") == 0;
    }
    CHECK(memory && code);
    /* scores come best first */
    for (size_t i = 1; i < n; i++)
        CHECK(json_number_value(json_object_get(item(out, i - 1), "score")) >=
              json_number_value(json_object_get(item(out, i), "score")));
    json_decref(out);
    /* the row holds the items as served */
    sqlite3 *h;
    sqlite3_stmt *st;
    REQUIRE(sqlite3_open(mn_ctx_db_path(ctx), &h) == SQLITE_OK);
    REQUIRE(
        sqlite3_prepare_v2(h, "SELECT op, query, json_array_length(items) FROM served WHERE id = ?",
                           -1, &st, NULL) == SQLITE_OK);
    sqlite3_bind_int64(st, 1, served);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "search");
    CHECK_STR((const char *)sqlite3_column_text(st, 1), "cart session");
    CHECK((size_t)sqlite3_column_int(st, 2) == n);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static void test_bad_input(void)
{
    const char *bad[] = {
        "{}",
        "{'query':''}",
        "{'query':'x','kinds':['everything']}",
        "{'query':'x','k':0}",
        "{'query':'x','k':201}",
        "{'query':'x','filters':{'level':[4]}}",
        "{'query':'x','filters':{'status':['deleted']}}",
        "{'query':'x','bogus':1}",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        json_t *args = J(bad[i]), *out = NULL;
        CHECK(mn_api_call(ctx, "search", args, &out) == MN_EINVAL);
        CHECK(out == NULL);
        json_decref(args);
    }
    json_t *args = J("{'signal':'loved','items':['x']}"), *out = NULL;
    CHECK(mn_api_call(ctx, "feedback", args, &out) == MN_EINVAL);
    json_decref(args);
}

static void run_all(void)
{
    setup();
    test_memories_lexical();
    test_status_rules();
    test_filters();
    test_stale_marked();
    test_code_items();
    test_files();
    test_attached_memories();
    test_feedback();
    test_fts_syntax_is_text();
    test_served_recorded();
    test_bad_input();
    teardown();
}

MN_TEST_MAIN(MN_TEST(run_all))
