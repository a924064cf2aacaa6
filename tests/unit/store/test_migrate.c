/*
 * test_migrate.c - every store fixture in tests/data/migrations/ opens.
 *
 * For each v*.sql there (the dump of a store made by an older or the
 * current schema; see the README in that directory) the test builds a
 * database from the dump, opens it with mn_store_open, which migrates it
 * to the latest schema, and checks: the version, every memory against the
 * facts below, links both ways, config, the side tables behind the list
 * filters, mn_store_check, and that the migrated store takes new writes.
 * The facts are written here by hand, not read from the fixture, so a
 * migration that loses or garbles a field fails.
 *
 * Full-text search (schema v3): a fixture older than v3 gets one file of
 * code (the same rows the v3 fixture was made with) before it is opened,
 * so the migration's backfill of both FTS tables is checked: words of each
 * memory field and of each chunk column find their row, a forgotten memory
 * is not found, FTS5's integrity-check agrees with the content, and writes
 * after the migration keep the index in step.
 *
 * The resolution key (schema v4): a fixture older than v4 gets call edges
 * with awkward names ('::', trailing dots, non-ASCII) before it is opened;
 * after the migration every call or inherit edge's dst_key must be what
 * mn_store_ref_key computes in C, so the SQL backfill and the C code agree.
 */
#include "common.h"
#include <sqlite3.h>
#include <dirent.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_index.h"
#include "store/store_search.h"
#include "store/sqlite/fts_tokenizer.h"
#include "text/tokenize.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"

#define ID1 "01JD3Q7Y8Z00000000000000A1"
#define ID2 "01JD3Q7Y8Z00000000000000B2"
#define ID3 "01JD3Q7Y8Z00000000000000C3"

static char tmp[64];

/* What every fixture holds: {memory id, field path, expected value as JSON}. */
static const struct {
    const char *id, *path, *json;
} facts[] = {
    {ID1, "kind", "\"gotcha\""},
    {ID1, "level", "\"L3\""},
    {ID1, "title", "\"Cart sessions expire when delay is nil \\u00e9\\u20ac\""},
    {ID1, "body", "\"Line one\\nLine 'two'\""},
    {ID1, "context.situation", "\"checkout returned 401 after idle\""},
    {ID1, "context.solution", "\"default delay to 30s\""},
    {ID1, "context.trigger_keywords", "[\"cart\",\"session\",\"401\"]"},
    {ID1, "context.what_failed", "\"raising the timeout\""},
    {ID1, "context.error_messages", "[\"SessionExpired: delay=None\"]"},
    {ID1, "context.files_modified", "[\"cart/session.py\"]"},
    {ID1, "context.conversation_excerpt", "\"user: why 401?\\nagent: delay is None\""},
    {ID1, "scope.paths", "[\"cart/session.py\",\"cart\"]"},
    {ID1, "scope.symbols", "[\"Session.refresh\"]"},
    {ID1, "scope.tags", "[\"auth\",\"cart\"]"},
    {ID1, "scope.branch", "\"main\""},
    {ID1, "provenance",
     "{\"source\":\"agent\",\"author\":\"ada\",\"commit\":\"0123abcd\",\"task\":\"PROJ-12\","
     "\"dialog\":\"dlg-7\",\"session\":\"sess-9\"}"},
    {ID1, "status", "\"active\""},
    {ID1, "confidence", "0.75"},
    {ID1, "quality", "0.5"},
    {ID1, "expires_at", "\"2027-01-01T00:00:00.000Z\""},
    {ID1, "created_at", "\"2026-11-21T05:37:25.123Z\""},
    {ID1, "updated_at", "\"2026-11-21T06:00:00.000Z\""},
    {ID1, "accessed_at", "\"2026-11-22T00:00:00.001Z\""},
    {ID1, "deleted_at", NULL},
    {ID1, "counters", "{\"hits\":3,\"used\":2,\"ignored\":1}"},
    {ID1, "citations",
     "[{\"path\":\"cart/session.py\",\"symbol\":\"Session.refresh\",\"start_line\":10,"
     "\"end_line\":20,\"hash\":\"abc123\"},{\"path\":\"cart/tests.py\"}]"},
    {ID1, "links", NULL},

    {ID2, "kind", "\"decision\""},
    {ID2, "level", "\"L1\""},
    {ID2, "title", "\"Use Postgres for the team server\""},
    {ID2, "body", "\"Because of row-level locks.\""},
    {ID2, "context", NULL},
    {ID2, "scope", NULL},
    {ID2, "provenance", "{\"source\":\"manual\",\"author\":\"bob\"}"},
    {ID2, "confidence", "0.9"},
    {ID2, "quality", NULL},
    {ID2, "links",
     "[{\"kind\":\"caused_by\",\"to\":\"" ID1 "\",\"note\":\"the outage\","
     "\"created_at\":\"2026-11-21T07:00:01.000Z\"},"
     "{\"kind\":\"about\",\"to\":\"file:server/db.c\",\"created_at\":\"2026-11-21T07:00:02.000Z\"},"
     "{\"kind\":\"supersedes\",\"to\":\"" ID3 "\",\"created_at\":\"2026-11-21T07:00:03.000Z\"}]"},
    {ID2, "counters", "{\"hits\":0,\"used\":0,\"ignored\":0}"},

    {ID3, "kind", "\"fact\""},
    {ID3, "level", "\"L2\""},
    {ID3, "title", "\"SQLite was the team server store\""},
    {ID3, "body", "\"\""},
    {ID3, "scope", "{\"paths\":[\"server\"],\"tags\":[\"db\"]}"},
    {ID3, "provenance", "{\"source\":\"git\",\"commit\":\"feedbeef\"}"},
    {ID3, "status", "\"superseded\""},
    {ID3, "confidence", "0.6"},
    {ID3, "created_at", "\"2026-11-20T00:00:00.000Z\""},
    {ID3, "deleted_at", "\"2026-11-21T08:00:00.000Z\""},
    {ID3, "counters", "{\"hits\":0,\"used\":0,\"ignored\":5}"},
    {ID3, "citations", NULL},
};

/* The value at a dotted path ("context.solution"), or NULL. */
static json_t *at(json_t *mem, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", path);
    char *dot = strchr(buf, '.');
    if (!dot)
        return json_object_get(mem, buf);
    *dot = '\0';
    return json_object_get(json_object_get(mem, buf), dot + 1);
}

/* The conversation excerpt of ID3, as the fixture generator wrote it. */
static char *excerpt3(void)
{
    mn_buf b = MN_BUF_INIT;
    for (int i = 0; i < 60; i++)
        mn_buf_printf(&b, "user: step %02d fails \xe2\x80\x94 agent: retry with backoff.\n", i);
    return mn_buf_detach(&b);
}

static int collect(void *payload, json_t *mem)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%s", b->len ? "," : "", json_string_value(json_object_get(mem, "id")));
    return 0;
}

static char *list_ids(mn_store *s, const mn_memory_filter *f)
{
    mn_buf b = MN_BUF_INIT;
    if (mn_store_memory_list(s, f, collect, &b) != 0)
        mn_buf_puts(&b, "(error)");
    return mn_buf_detach(&b);
}

/* The file of code every fixture is checked with (the v3 fixture holds it already). */
static const char code_rows[] =
    "INSERT INTO files(id, project_id, path, language, role, content_hash, size, lines, mtime, "
    "rank, indexed_at) VALUES (1, 1, 'cart/session.py', 'python', 'source', "
    "'0123456789abcdef0123456789abcdef', 120, 20, 1795248000000, 1.0, 1795334400000);"
    "INSERT INTO symbols(id, file_id, name, qualified_name, kind, start_line, end_line, "
    "start_byte, end_byte, signature, docstring, content_hash) VALUES "
    "(1, 1, 'Session', 'Session', 'class', 1, 20, 0, 120, 'class Session', 'A cart session.', "
    "'11111111111111111111111111111111'), "
    "(2, 1, 'refresh', 'Session.refresh', 'method', 10, 20, 60, 120, 'def refresh(self)', "
    "'Extend the session by its delay.', '22222222222222222222222222222222');"
    "INSERT INTO chunks(id, file_id, symbol_id, start_line, end_line, text, content_hash) VALUES "
    "(1, 1, NULL, 1, 9, 'import server.db\n\nclass Session:\n    \"\"\"A cart "
    "session.\"\"\"\n', '33333333333333333333333333333333'), "
    "(2, 1, 2, 10, 20, '    def refresh(self):\n        \"\"\"Extend the session by its "
    "delay.\"\"\"\n        self.expires = now() + (self.delay or 30)\n', "
    "'44444444444444444444444444444444');";

static int collect_uid(void *payload, const mn_memory_hit *h)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%s", b->len ? "," : "", h->uid);
    return 0;
}

/* The ids of the live memories a word finds, best first. */
static char *find_memories(mn_store *s, const char *word)
{
    mn_buf match = MN_BUF_INIT, ids = MN_BUF_INIT;
    mn_memory_query q = {0};
    mn_store_fts_query(&match, &word, 1);
    q.match = match.ptr;
    q.limit = 10;
    if (mn_store_search_memories(s, &q, collect_uid, &ids) != 0)
        mn_buf_puts(&ids, "(error)");
    mn_buf_release(&match);
    return mn_buf_detach(&ids);
}

static int collect_chunk(void *payload, const mn_chunk_hit *h)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%lld:%s:%s:%lld-%lld", b->len ? "," : "", (long long)h->id, h->path,
                  h->symbol ? h->symbol : "-", (long long)h->start_line, (long long)h->end_line);
    return 0;
}

/* The chunks a word finds, best first, as "id:path:symbol:lines". */
static char *find_chunks(mn_store *s, const char *word)
{
    mn_buf match = MN_BUF_INIT, out = MN_BUF_INIT;
    mn_chunk_query q = {0};
    mn_store_fts_query(&match, &word, 1);
    q.match = match.ptr;
    q.limit = 10;
    if (mn_store_search_chunks(s, &q, collect_chunk, &out) != 0)
        mn_buf_puts(&out, "(error)");
    mn_buf_release(&match);
    return mn_buf_detach(&out);
}

/* FTS5's own check that both indexes hold exactly what their content says. */
static bool fts_consistent(const char *db)
{
    sqlite3 *h;
    char *err = NULL;
    bool ok = sqlite3_open(db, &h) == SQLITE_OK && mn_sqlite_fts_register(h) == 0 &&
              sqlite3_exec(h,
                           "INSERT INTO memories_fts(memories_fts) VALUES ('integrity-check');"
                           "INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')",
                           NULL, NULL, &err) == SQLITE_OK;
    if (!ok)
        fprintf(stderr, "fts integrity-check: %s\n", err ? err : sqlite3_errmsg(h));
    sqlite3_free(err);
    sqlite3_close(h);
    return ok;
}

static void check_fts(mn_store *s, const char *name)
{
    static const struct {
        const char *word, *want;
    } memories[] = {
        {"cart", ID1},           /* title, tags, scope paths */
        {"auth", ID1},           /* a tag */
        {"SessionExpired", ID1}, /* an error message */
        {"timeout", ID1},        /* what failed */
        {"refresh", ID1},        /* a scope symbol */
        {"postgres", ID2},       /* title */
        {"locks", ID2},          /* body */
        {"SQLite", ""},          /* ID3 is forgotten */
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(memories); i++) {
        char *got = find_memories(s, memories[i].word);
        if (strcmp(got, memories[i].want) != 0)
            fprintf(stderr, "%s: memories matching '%s'\n", name, memories[i].word);
        CHECK_STR(got, memories[i].want);
        free(got);
    }
    static const struct {
        const char *word, *want;
    } chunks[] = {
        {"refresh", "2:cart/session.py:refresh:10-20"}, /* names */
        {"expires", "2:cart/session.py:refresh:10-20"}, /* body */
        {"extend", "2:cart/session.py:refresh:10-20"},  /* docstring */
        {"server", "1:cart/session.py:-:1-9"},          /* body of a window */
        {"nowhere", ""},
    };
    /* the chunk first (later fixtures may hold more code that also matches) */
    for (size_t i = 0; i < MN_ARRAY_SIZE(chunks); i++) {
        char *got = find_chunks(s, chunks[i].word);
        size_t wl = strlen(chunks[i].want);
        bool ok =
            wl ? strncmp(got, chunks[i].want, wl) == 0 && (got[wl] == ',' || !got[wl]) : !*got;
        if (!ok)
            fprintf(stderr, "%s: chunks matching '%s': got '%s', want '%s' first\n", name,
                    chunks[i].word, got, chunks[i].want);
        CHECK(ok);
        free(got);
    }
    /* the path is in every chunk of the file */
    char *got = find_chunks(s, "cart");
    CHECK(strstr(got, "1:cart/session.py") && strstr(got, "2:cart/session.py"));
    free(got);
}

/* Call edges with names that test every rule of the key (added to fixtures before v4). */
static const char key_rows[] =
    "INSERT INTO edges(project_id, src_kind, src_id, dst_kind, dst_name, kind, weight) VALUES "
    "(1, 'file', 1, 'symbol', 'self.session.refresh', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'ns::Thing::make', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'plain', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'a.b::c.d', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'x::', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'a:::b', 'inherit', 1), "
    "(1, 'file', 1, 'symbol', 'trailing.', 'call', 1), "
    "(1, 'file', 1, 'symbol', 'émile.café', 'call', 1), "
    "(1, 'file', 1, 'file', 'pkg.module', 'import', 1);";

static int schema_of(sqlite3 *raw)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Every edge's key is what C computes (imports have none); returns the edges checked. */
static int check_keys(const char *db, const char *name)
{
    sqlite3 *raw;
    sqlite3_stmt *st;
    int n = 0;
    if (sqlite3_open_v2(db, &raw, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(raw, "SELECT kind, dst_name, dst_key FROM edges", -1, &st, NULL) !=
            SQLITE_OK) {
        sqlite3_close(raw);
        return -1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);
        const char *dst = (const char *)sqlite3_column_text(st, 1);
        const char *key = (const char *)sqlite3_column_text(st, 2);
        const char *want = strcmp(kind, "import") == 0 || !dst ? NULL : mn_store_ref_key(dst);
        bool ok = want ? key && strcmp(key, want) == 0 : key == NULL;
        if (!ok)
            fprintf(stderr, "%s: edge '%s': key '%s', want '%s'\n", name, dst ? dst : "",
                    key ? key : "(null)", want ? want : "(null)");
        CHECK(ok);
        n++;
    }
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
}

/* Build a database from a dump, open it, check everything. */
static void check_fixture(const char *sql_path, const char *name)
{
    int failed_before = mn_test__failed_checks;
    mn_buf sql = MN_BUF_INIT, db = MN_BUF_INIT;
    REQUIRE_OK(mn_fs_read(&sql, sql_path, 64u << 20));
    mn_buf_printf(&db, "%s/%s.db", tmp, name);

    sqlite3 *raw;
    char *err = NULL;
    int version = -1;
    REQUIRE(sqlite3_open(db.ptr, &raw) == SQLITE_OK);
    int rc = sqlite3_exec(raw, sql.ptr, NULL, NULL, &err);
    if (rc == SQLITE_OK) {
        /* a store from before the code index had rows: give it a file */
        sqlite3_stmt *st;
        bool has_files = false;
        if (sqlite3_prepare_v2(raw, "SELECT count(*) FROM files", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            has_files = sqlite3_column_int(st, 0) > 0;
        sqlite3_finalize(st);
        if (!has_files)
            rc = sqlite3_exec(raw, code_rows, NULL, NULL, &err);
        if (rc == SQLITE_OK && (version = schema_of(raw)) < 4)
            rc = sqlite3_exec(raw, key_rows, NULL, NULL, &err);
    }
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", name, err ? err : "?");
    sqlite3_free(err);
    sqlite3_close(raw);
    mn_buf_release(&sql);
    REQUIRE(rc == SQLITE_OK);

    /* an old store carries no application id: it is known by meta's written_by */
    sqlite3_stmt *app = NULL;
    REQUIRE(sqlite3_open_v2(db.ptr, &raw, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(raw, "PRAGMA application_id", -1, &app, NULL) == SQLITE_OK &&
          sqlite3_step(app) == SQLITE_ROW && sqlite3_column_int(app, 0) == 0);
    sqlite3_finalize(app);
    sqlite3_close(raw);

    mn_store *s = NULL;
    rc = mn_store_open(&s, db.ptr, NULL);
    if (rc)
        fprintf(stderr, "%s: open failed: %s\n", name, mn_error_last());
    REQUIRE(rc == 0);
    /* and marked as a mnemo store by the migration */
    REQUIRE(sqlite3_open_v2(db.ptr, &raw, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(raw, "PRAGMA application_id", -1, &app, NULL) == SQLITE_OK &&
          sqlite3_step(app) == SQLITE_ROW && sqlite3_column_int(app, 0) == 0x6d6e6d6f);
    sqlite3_finalize(app);
    sqlite3_close(raw);
    CHECK(mn_store_schema_version(s) == mn_store_schema_latest());
    CHECK_OK(mn_store_check(s));
    CHECK(check_keys(db.ptr, name) >= (version < 4 ? 9 : 0));
    check_fts(s, name);
    CHECK(fts_consistent(db.ptr));

    /* every fact about every memory */
    for (size_t i = 0; i < MN_ARRAY_SIZE(facts); i++) {
        json_t *mem = NULL;
        if (mn_store_memory_get(s, &mem, facts[i].id) != 0) {
            fprintf(stderr, "%s: %s: %s\n", name, facts[i].id, mn_error_last());
            CHECK(!"memory missing");
            continue;
        }
        json_t *got = at(mem, facts[i].path);
        json_t *want = facts[i].json ? json_loads(facts[i].json, JSON_DECODE_ANY, NULL) : NULL;
        bool ok = want ? got && json_equal(got, want) : got == NULL;
        if (!ok) {
            char *g = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            fprintf(stderr, "%s: %s %s: got %s, want %s\n", name, facts[i].id, facts[i].path,
                    g ? g : "(absent)", facts[i].json ? facts[i].json : "(absent)");
            free(g);
        }
        CHECK(ok);
        json_decref(want);
        json_decref(mem);
    }

    /* the 3 KB excerpt comes back whole from its compressed blob */
    json_t *mem = NULL;
    if (mn_store_memory_get(s, &mem, ID3) == 0) {
        char *want = excerpt3();
        CHECK_STR(json_string_value(at(mem, "context.conversation_excerpt")), want);
        free(want);
        json_decref(mem);
    }

    /* backlinks, prefixes, the content hash */
    json_t *back = NULL;
    CHECK_OK(mn_store_memory_backlinks(s, &back, ID1));
    CHECK(json_array_size(back) == 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(back, 0), "from")), ID2);
    json_decref(back);
    char id[MN_ID_LEN + 1];
    CHECK(mn_store_memory_resolve(s, id, "01JD3Q7Y8Z") == MN_EAMBIGUOUS);
    CHECK_OK(mn_store_memory_resolve(s, id, "01JD3Q7Y8Z00000000000000B"));
    CHECK_STR(id, ID2);
    if (mn_store_memory_get(s, &mem, ID2) == 0) {
        char hash[17];
        mn_store_content_hash(hash, mem);
        CHECK_OK(mn_store_memory_find_hash(s, id, hash));
        CHECK_STR(id, ID2);
        json_decref(mem);
    }

    /* the side tables behind the filters */
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    char *ids = list_ids(s, &f);
    CHECK_STR(ids, ID1 "," ID2);
    free(ids);
    f.include_deleted = true;
    f.tag = "db";
    ids = list_ids(s, &f);
    CHECK_STR(ids, ID3);
    free(ids);
    f.tag = NULL;
    f.path = "cart/session.py";
    ids = list_ids(s, &f);
    CHECK_STR(ids, ID1);
    free(ids);
    f.path = "server/db.c";
    ids = list_ids(s, &f);
    CHECK_STR(ids, ID3);
    free(ids);

    /* config */
    static const char *const config[][2] = {
        {"memory.excerpt_cap", "4096"},
        {"memory.review_threshold", "0.6"},
        {"user.name", "fixture"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(config); i++) {
        char *v = NULL;
        CHECK_OK(mn_store_config_get(s, &v, config[i][0]));
        CHECK_STR(v, config[i][1]);
        free(v);
    }

    /* the migrated store takes writes, and purging cascades */
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s},s:s,s:f,s:s,s:s}", "id",
                          "01JD3Q7Y8Z00000000000000D4", "kind", "fact", "level", "L1", "title",
                          "written after migrating", "body", "", "provenance", "source", "manual",
                          "status", "active", "confidence", 0.9, "created_at",
                          "2026-11-21T09:00:00.000Z", "updated_at", "2026-11-21T09:00:00.000Z");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_insert(s, m));
    CHECK_OK(mn_store_link_add(s, "01JD3Q7Y8Z00000000000000D4", "relates_to", ID1, NULL, 0));
    CHECK_OK(mn_store_memory_purge(s, ID2));
    CHECK_OK(mn_store_commit(s));
    json_decref(m);
    CHECK_OK(mn_store_memory_backlinks(s, &back, ID1));
    CHECK(json_array_size(back) == 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(back, 0), "from")),
              "01JD3Q7Y8Z00000000000000D4");
    json_decref(back);
    CHECK_OK(mn_store_check(s));

    /* the index follows the writes: the purged memory is gone, the new one
     * found; a file replaced and one removed take their chunks along */
    char *found = find_memories(s, "postgres");
    CHECK_STR(found, "");
    free(found);
    found = find_memories(s, "migrating");
    CHECK_STR(found, "01JD3Q7Y8Z00000000000000D4");
    free(found);
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID1, 1795334400000));
    CHECK_OK(mn_store_commit(s));
    found = find_memories(s, "cart");
    CHECK_STR(found, "");
    free(found);
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID1, 0));
    CHECK_OK(mn_store_file_remove(s, "cart/session.py"));
    CHECK_OK(mn_store_commit(s));
    found = find_memories(s, "cart");
    CHECK_STR(found, ID1);
    free(found);
    found = find_chunks(s, "cart");
    CHECK(strstr(found, "cart/session.py") == NULL);
    free(found);
    mn_store_free(s);
    CHECK(fts_consistent(db.ptr));

    /* and opens again at the same version */
    s = NULL;
    CHECK_OK(mn_store_open(&s, db.ptr, NULL));
    if (s)
        CHECK(mn_store_schema_version(s) == mn_store_schema_latest());
    mn_store_free(s);

    /* an id is unique per project (schema v16): another project of the same
     * store takes ID1 for a memory of its own, and the first keeps its own */
    mn_store_options other = MN_STORE_OPTIONS_INIT;
    other.project = "another-project";
    s = NULL;
    CHECK_OK(mn_store_open(&s, db.ptr, &other));
    m = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s},s:s,s:f,s:s,s:s}", "id", ID1, "kind", "fact",
                  "level", "L1", "title", "the other project's own", "body", "", "provenance",
                  "source", "manual", "status", "active", "confidence", 0.9, "created_at",
                  "2026-11-21T09:00:00.000Z", "updated_at", "2026-11-21T09:00:00.000Z");
    json_t *got = NULL;
    if (s) {
        CHECK_OK(mn_store_begin(s));
        CHECK_OK(mn_store_memory_insert(s, m));
        CHECK_OK(mn_store_commit(s));
        CHECK_OK(mn_store_memory_get(s, &got, ID1));
        CHECK_STR(json_string_value(json_object_get(got, "title")), "the other project's own");
        json_decref(got);
        got = NULL;
    }
    json_decref(m);
    mn_store_free(s);
    s = NULL;
    CHECK_OK(mn_store_open(&s, db.ptr, NULL));
    if (s) {
        CHECK_OK(mn_store_memory_get(s, &got, ID1));
        CHECK_STR(json_string_value(json_object_get(got, "title")),
                  "Cart sessions expire when delay is nil \xc3\xa9\xe2\x82\xac");
        json_decref(got);
    }
    mn_store_free(s);
    CHECK(fts_consistent(db.ptr));

    /* indexes built by another tokenizer version are rebuilt on open */
    REQUIRE(sqlite3_open(db.ptr, &raw) == SQLITE_OK);
    CHECK(sqlite3_exec(raw,
                       "INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer_version', '0')",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(raw);
    s = NULL;
    CHECK_OK(mn_store_open(&s, db.ptr, NULL));
    if (s) {
        char *again = find_memories(s, "cart");
        CHECK_STR(again, ID1);
        free(again);
    }
    mn_store_free(s);
    CHECK(fts_consistent(db.ptr));
    REQUIRE(sqlite3_open(db.ptr, &raw) == SQLITE_OK);
    sqlite3_stmt *st;
    REQUIRE(sqlite3_prepare_v2(raw, "SELECT value FROM meta WHERE key = 'tokenizer_version'", -1,
                               &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == MN_TOK_VERSION);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    mn_buf_release(&db);
    if (mn_test__failed_checks != failed_before)
        fprintf(stderr, "fixture %s failed\n", name);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_fixture(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] == 'v' && n > 5 && strcmp(e->d_name + n - 4, ".sql") == 0;
}

static void test_every_fixture(void)
{
    const char *data = getenv("MNEMO_TEST_DATA");
    REQUIRE(data && *data);
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-migrate-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_NOW_MS");

    mn_buf dir = MN_BUF_INIT;
    mn_buf_printf(&dir, "%s/migrations", data);
    struct dirent **names = NULL;
    int n = scandir(dir.ptr, &names, is_fixture, by_name);
    REQUIRE(n >= 0);
    /* at least v1, and one fixture per schema version up to the latest */
    CHECK(n >= 1);
    CHECK(n >= mn_store_schema_latest());
    for (int v = 1; v <= mn_store_schema_latest(); v++) {
        char want[32];
        snprintf(want, sizeof(want), "v%d.sql", v);
        bool found = false;
        for (int i = 0; i < n; i++)
            found = found || strcmp(names[i]->d_name, want) == 0;
        if (!found)
            fprintf(stderr, "missing fixture %s (see tests/data/migrations/README.md)\n", want);
        CHECK(found);
    }
    for (int i = 0; i < n; i++) {
        mn_buf p = MN_BUF_INIT;
        mn_buf_printf(&p, "%s/%s", dir.ptr, names[i]->d_name);
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)strlen(names[i]->d_name) - 4, names[i]->d_name);
        printf("fixture %s\n", name);
        check_fixture(p.ptr, name);
        mn_buf_release(&p);
        free(names[i]);
    }
    free(names);
    mn_buf_release(&dir);
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(test_every_fixture))
