/*
 * test_store.c - the store through store.h: SQLite in a scratch directory,
 * and PostgreSQL when MNEMO_TEST_PG names a server (test_store.h; CTest's
 * pg/unit/store/store). Tests of what only SQLite has say so and are
 * skipped there by name (TEST_SQLITE_ONLY).
 *
 * Opening (schema, WAL, reopening, files that are not stores, stores from
 * a newer mnemo left untouched), the memory round trip of every field in
 * the canonical shape and key order, replace, id prefixes, the content
 * hash, each list filter (with the path prefix semantics), soft delete,
 * purge and its cascade, links and backlinks, config, audit, the integrity
 * check, the compressed conversation excerpt, full-text counts (exact and
 * sampled), the memories' lengths held for ranking and memory rows as hits
 * by uid. Some facts are checked with the back end's own client (sqlite3,
 * libpq), so the test does not only trust the code it tests.
 */
#include "common.h"
#include <sqlite3.h>
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <unistd.h>

#include "store/sqlite/fts_tokenizer.h"
#include "store/sqlite/memory_sizes.h"
#include "store/store.h"
#include "store/store_search.h"
#include "util/util.h"
#include "test.h"
#include "test_json.h"
#include "test_fs.h"
#include "test_store.h"

static char tmp[64];

/* ---- helpers ---- */

/* A new store's location: a file in the scratch directory, or a new database on
 * MNEMO_TEST_PG's server (test_store.h; malloc'd). */
static char *new_db_path(void)
{
    return test_store_new(tmp);
}

/* Same value and same key order (the store promises its key order). */
static bool same_json(const json_t *a, const json_t *b)
{
    char *sa = json_dumps(a, JSON_COMPACT), *sb = json_dumps(b, JSON_COMPACT);
    bool same = sa && sb && strcmp(sa, sb) == 0 && json_equal(a, b);
    if (!same)
        fprintf(stderr, "  got:  %s\n  want: %s\n", sa ? sa : "(null)", sb ? sb : "(null)");
    free(sa);
    free(sb);
    return same;
}

static mn_store *open_store(const char *path)
{
    mn_store *s = NULL;
    if (mn_store_open(&s, path, NULL) != 0) {
        fprintf(stderr, "cannot open store %s: %s\n", path, mn_error_last());
        return NULL;
    }
    return s;
}

/* SQL run on the store with its back end's own client (sqlite3 or libpq), not through mnemo
 * (test_store.h): one integer (-1 on error), one text (malloc'd; NULL on error or NULL), or
 * statements (SQLite: with the triggers off, since a bare connection has no "mnemo" tokenizer:
 * the corruptions written here are what the store must survive reading, not indexing). */
static int64_t sql_int(const char *path, const char *sql)
{
    return test_store_sql_int(path, sql);
}

static char *sql_text(const char *path, const char *sql)
{
    return test_store_sql_text(path, sql);
}

static int sql_exec(const char *path, const char *sql)
{
    return test_store_sql_exec(path, sql);
}

static bool read_file(mn_buf *out, const char *path)
{
    mn_buf_clear(out);
    return mn_fs_read(out, path, 64u << 20) == 0;
}

static int insert(mn_store *s, const json_t *mem)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    rc = mn_store_memory_insert(s, mem);
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

/* A memory with every field, in the canonical key order of fields.c. */
static json_t *full_memory(const char *id)
{
    json_t *m = J("{'id':'',"
                  "'kind':'gotcha','level':'L3',"
                  "'title':'Cart sessions expire when delay is nil \\u00e9\\u20ac',"
                  "'body':'Line one\\nLine \\u0027two\\u0027 with \\\"quotes\\\"',"
                  "'context':{'situation':'checkout returned 401 after idle',"
                  "'solution':'default delay to 30s','trigger_keywords':['cart','session','401'],"
                  "'what_failed':'raising the timeout',"
                  "'error_messages':['SessionExpired: delay=None','E2'],"
                  "'files_modified':['cart/session.py','cart/tests.py'],"
                  "'conversation_excerpt':'user: why 401?\\nagent: delay is None'},"
                  "'scope':{'paths':['cart/session.py','cart'],'symbols':['Session.refresh'],"
                  "'tags':['auth','cart'],'branch':'main'},"
                  "'provenance':{'source':'agent','author':'ada','commit':'0123abcd',"
                  "'task':'PROJ-12','dialog':'dlg-7','session':'sess-9'},"
                  "'status':'active','confidence':0.75,'quality':0.5,"
                  "'expires_at':'2027-01-01T00:00:00.000Z',"
                  "'created_at':'2026-11-21T05:37:25.123Z',"
                  "'updated_at':'2026-11-21T06:00:00.000Z',"
                  "'accessed_at':'2026-11-22T00:00:00.001Z',"
                  "'deleted_at':'2026-11-23T00:00:00.000Z',"
                  "'counters':{'hits':3,'used':2,'ignored':1},"
                  "'citations':[{'path':'cart/session.py','symbol':'Session.refresh',"
                  "'start_line':10,'end_line':20,'hash':'abc123'},{'path':'cart/tests.py'}]}");
    json_object_set_new(m, "id", json_string(id));
    return m;
}

/* A small live memory: the fields the schema requires, in canonical order. */
static json_t *small_memory(const char *id, const char *kind, const char *title)
{
    json_t *m = J("{'id':'','kind':'','level':'L1','title':'','body':'',"
                  "'provenance':{'source':'manual'},'status':'active','confidence':0.9,"
                  "'created_at':'2026-01-01T00:00:00.000Z','updated_at':'2026-01-01T00:00:00.000Z',"
                  "'counters':{'hits':0,'used':0,'ignored':0}}");
    json_object_set_new(m, "id", json_string(id));
    json_object_set_new(m, "kind", json_string(kind));
    json_object_set_new(m, "title", json_string(title));
    return m;
}

static int collect(void *payload, json_t *mem)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%s", b->len ? "," : "", json_string_value(json_object_get(mem, "id")));
    return 0;
}

/* The ids a filter lists, comma-separated; also checks count agrees. */
static char *list_ids(mn_store *s, const mn_memory_filter *f)
{
    mn_buf b = MN_BUF_INIT;
    int64_t n = -1;
    if (mn_store_memory_list(s, f, collect, &b) != 0)
        mn_buf_puts(&b, "(error)");
    if (mn_store_memory_count(s, f, &n) != 0)
        mn_buf_puts(&b, "(count error)");
    /* count ignores limit/offset, so compare only when there are none */
    if (!f->limit && !f->offset) {
        int64_t listed = b.len ? 1 : 0;
        for (size_t i = 0; i < b.len; i++)
            listed += b.ptr[i] == ',';
        if (listed != n)
            mn_buf_printf(&b, "(count %lld)", (long long)n);
    }
    return mn_buf_detach(&b);
}

#define ID_A "01J0000000000000000000000A"
#define ID_B "01J0000000000000000000000B"
#define ID_C "01J0000000000000000000000C"
#define ID_D "01J0000000000000000000000D"
#define ID_E "01J1000000000000000000000E"

/* ---- tests ---- */

static void test_setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-store-XXXXXX");
    REQUIRE(mkdtemp(tmp) != NULL);
    unsetenv("MNEMO_NOW_MS");
}

static void test_open_creates_schema(void)
{
    TEST_SQLITE_ONLY("the file, its PRAGMAs and SQLite's schema numbering; test_pg.c opens "
                     "PostgreSQL stores");
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    /* the process's first store turned SQLite's memory statistics off (a
     * mutex on every allocation); they read 0 then */
    CHECK(sqlite3_memory_used() == 0);
    CHECK(mn_store_schema_latest() >= 1);
    CHECK(mn_store_schema_version(s) == mn_store_schema_latest());
    CHECK_STR(mn_store_path(s), path);
    CHECK(mn_fs_exists(path));
    json_t *m = small_memory(ID_A, "fact", "survives reopening");
    CHECK_OK(insert(s, m));
    json_decref(m);
    mn_store_free(s);

    /* checked on the file itself */
    char want[64];
    snprintf(want, sizeof(want), "%d", mn_store_schema_latest());
    CHECK(sql_int(path, "PRAGMA user_version") == mn_store_schema_latest());
    char *mode = sql_text(path, "PRAGMA journal_mode");
    CHECK_STR(mode, "wal");
    free(mode);
    char *meta = sql_text(path, "SELECT value FROM meta WHERE key = 'schema_version'");
    CHECK_STR(meta, want);
    free(meta);
    CHECK(sql_int(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'memories'") == 1);
    CHECK(sql_int(path, "SELECT count(*) FROM projects WHERE name = 'default'") == 1);

    /* reopening is fine and sees what was written */
    s = open_store(path);
    REQUIRE(s);
    CHECK(mn_store_schema_version(s) == mn_store_schema_latest());
    json_t *got = NULL;
    CHECK_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK_STR(json_string_value(json_object_get(got, "title")), "survives reopening");
    json_decref(got);
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);
    CHECK(sql_int(path, "SELECT count(*) FROM projects") == 1);

    /* a second project in the same file sees none of the first one's memories */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&s, path, &o));
    CHECK(mn_store_memory_get(s, &got, ID_A) == MN_ENOTFOUND);
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    int64_t n = -1;
    CHECK_OK(mn_store_memory_count(s, &f, &n));
    CHECK(n == 0);
    mn_store_free(s);
    CHECK(sql_int(path, "SELECT count(*) FROM projects") == 2);
    free(path);
}

static void test_open_errors(void)
{
    TEST_SQLITE_ONLY("files that are not stores; test_pg.c has PostgreSQL's refusals");
    mn_store *s = (mn_store *)1;
    mn_store_options o = MN_STORE_OPTIONS_INIT;

    /* create = false on a missing file */
    char *missing = new_db_path();
    o.create = false;
    CHECK(mn_store_open(&s, missing, &o) == MN_ENOTFOUND);
    CHECK(s == NULL);
    CHECK(strstr(mn_error_last(), "mnemo init") != NULL);
    CHECK(!mn_fs_exists(missing));
    free(missing);

    /* unsupported options version */
    o = (mn_store_options)MN_STORE_OPTIONS_INIT;
    o.version = 99;
    char *p2 = new_db_path();
    CHECK(mn_store_open(&s, p2, &o) == MN_EINVAL);
    free(p2);

    /* a file that is not a database: refused with a clear message, left alone */
    char *text = new_db_path();
    const char junk[] = "this is a text file and certainly not an SQLite database.\n"
                        "it is long enough to have a header of a hundred bytes or more....\n";
    REQUIRE_OK(mn_fs_write_atomic(text, junk, sizeof(junk) - 1));
    s = (mn_store *)1;
    int rc = mn_store_open(&s, text, NULL);
    CHECK(rc != 0);
    CHECK(s == NULL);
    CHECK(strstr(mn_error_last(), "is not a mnemo store") != NULL);
    CHECK(strstr(mn_error_last(), text) != NULL);
    mn_buf b = MN_BUF_INIT;
    CHECK(read_file(&b, text));
    CHECK(b.len == sizeof(junk) - 1 && memcmp(b.ptr, junk, b.len) == 0);
    mn_buf_release(&b);
    free(text);

    /* a directory */
    CHECK(mn_store_open(&s, tmp, NULL) != 0);
    CHECK(s == NULL);
}

static void test_newer_store_untouched(void)
{
    TEST_SQLITE_ONLY("PRAGMA user_version and the file's bytes; test_pg.c has a newer "
                     "PostgreSQL store");
    char sql[200];
    int newer = mn_store_schema_latest() + 1;

    /* a store of a newer mnemo (its application id, a schema this one does not know) in the
     * default rollback-journal mode */
    char *path = new_db_path();
    snprintf(sql, sizeof(sql),
             "CREATE TABLE future(x); PRAGMA user_version = %d; PRAGMA application_id = %d;", newer,
             0x6d6e6d6f);
    REQUIRE(sql_exec(path, sql) == SQLITE_OK);
    mn_buf before = MN_BUF_INIT, after = MN_BUF_INIT;
    REQUIRE(read_file(&before, path));
    mn_store *s = (mn_store *)1;
    mn_error_clear();
    CHECK(mn_store_open(&s, path, NULL) == MN_EVERSION);
    CHECK(s == NULL);
    CHECK(strstr(mn_error_last(), "newer mnemo") != NULL);
    CHECK(read_file(&after, path));
    CHECK(before.len == after.len && memcmp(before.ptr, after.ptr, before.len) == 0);
    CHECK(sql_int(path, "PRAGMA user_version") == newer);
    char *mode = sql_text(path, "PRAGMA journal_mode");
    CHECK_STR(mode, "delete");
    free(mode);

    /* a real store, then bumped: also refused, and read-only too */
    char *path2 = new_db_path();
    s = open_store(path2);
    REQUIRE(s);
    mn_store_free(s);
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d;", newer);
    REQUIRE(sql_exec(path2, sql) == SQLITE_OK);
    REQUIRE(read_file(&before, path2));
    CHECK(mn_store_open(&s, path2, NULL) == MN_EVERSION);
    mn_store_options ro = MN_STORE_OPTIONS_INIT;
    ro.read_only = true;
    CHECK(mn_store_open(&s, path2, &ro) == MN_EVERSION);
    CHECK(read_file(&after, path2));
    CHECK(before.len == after.len && memcmp(before.ptr, after.ptr, before.len) == 0);

    /* an old store (known by meta's written_by) opened read-only cannot be migrated */
    char *path3 = new_db_path();
    REQUIRE(sql_exec(path3, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL); "
                            "INSERT INTO meta VALUES ('written_by', 'mnemo 0.1.0'); "
                            "PRAGMA user_version = 1") == SQLITE_OK);
    CHECK(mn_store_open(&s, path3, &ro) == MN_EVERSION);
    CHECK(strstr(mn_error_last(), "writable") != NULL);
    CHECK(sql_int(path3, "PRAGMA user_version") == 1);

    mn_buf_release(&before);
    mn_buf_release(&after);
    free(path);
    free(path2);
    free(path3);
}

static void test_round_trip_every_field(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *m = full_memory(ID_A);
    CHECK_OK(insert(s, m));

    json_t *got = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK(same_json(got, m));
    json_decref(got);

    /* the same id again */
    CHECK_OK(mn_store_begin(s));
    CHECK(mn_store_memory_insert(s, m) == MN_EEXISTS);
    CHECK(strstr(mn_error_last(), ID_A) != NULL);
    mn_store_rollback(s);

    /* optional fields left out stay out; counters are always there */
    json_t *small = small_memory(ID_B, "fact", "small");
    CHECK_OK(insert(s, small));
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK(same_json(got, small));
    json_decref(got);

    /* a memory read back can be written back unchanged */
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, got));
    CHECK_OK(mn_store_commit(s));
    json_t *again = NULL;
    CHECK_OK(mn_store_memory_get(s, &again, ID_A));
    CHECK(same_json(again, m));
    json_decref(again);
    json_decref(got);

    /* a rolled-back insert leaves nothing */
    json_t *gone = small_memory(ID_C, "fact", "rolled back");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_insert(s, gone));
    mn_store_rollback(s);
    CHECK(mn_store_memory_get(s, &got, ID_C) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), ID_C) != NULL);
    json_decref(gone);

    /* a time field that is not a time is refused, naming the field */
    json_t *bad = small_memory(ID_D, "fact", "bad time");
    json_object_set_new(bad, "created_at", json_string("yesterday-ish"));
    CHECK(insert(s, bad) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "created_at") != NULL);
    CHECK(mn_store_memory_get(s, &got, ID_D) == MN_ENOTFOUND);
    json_decref(bad);

    CHECK_OK(mn_store_check(s));
    json_decref(small);
    json_decref(m);
    mn_store_free(s);
    free(path);
}

static void test_replace(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *m = full_memory(ID_A);
    CHECK_OK(insert(s, m));

    json_object_set_new(m, "title", json_string("A new title"));
    json_object_set_new(m, "kind", json_string("decision"));
    json_object_del(json_object_get(m, "context"), "solution");
    json_object_set_new(json_object_get(m, "scope"), "tags", J("['cart','payments']"));
    json_object_set_new(json_object_get(m, "scope"), "paths", J("['billing']"));
    json_object_set_new(m, "citations", J("[{'path':'billing/pay.py','start_line':3}]"));
    json_object_del(m, "deleted_at");
    json_object_del(m, "quality");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, m));
    CHECK_OK(mn_store_commit(s));

    json_t *got = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK(same_json(got, m));
    json_decref(got);

    /* the side tables follow: old tag and path gone, new ones found */
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    char *ids;
    f.tag = "auth";
    ids = list_ids(s, &f);
    CHECK_STR(ids, "");
    free(ids);
    f.tag = "payments";
    ids = list_ids(s, &f);
    CHECK_STR(ids, ID_A);
    free(ids);
    f.tag = NULL;
    f.path = "cart/session.py";
    ids = list_ids(s, &f);
    CHECK_STR(ids, "");
    free(ids);
    f.path = "billing/x.py";
    ids = list_ids(s, &f);
    CHECK_STR(ids, ID_A);
    free(ids);
    CHECK(sql_int(path, "SELECT count(*) FROM citations") == 1);
    CHECK(sql_int(path, "SELECT count(*) FROM memory_tags") == 2);

    /* the content hash follows the new kind and title */
    char hash[17];
    mn_store_content_hash(hash, m);
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM memories WHERE content_hash = '%s'", hash);
    CHECK(sql_int(path, sql) == 1);

    /* replacing a memory that does not exist */
    json_t *ghost = small_memory(ID_E, "fact", "ghost");
    CHECK_OK(mn_store_begin(s));
    CHECK(mn_store_memory_replace(s, ghost) == MN_ENOTFOUND);
    mn_store_rollback(s);
    json_decref(ghost);
    json_decref(m);
    mn_store_free(s);
    free(path);
}

static void test_resolve(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    const char *ids[] = {"01AAAAAAAAAAAAAAAAAAAAAAA1", "01AAAAAAAAAAAAAAAAAAAAAAA2",
                         "01BBBBBBBBBBBBBBBBBBBBBBBB"};
    for (size_t i = 0; i < 3; i++) {
        json_t *m = small_memory(ids[i], "fact", ids[i]);
        CHECK_OK(insert(s, m));
        json_decref(m);
    }
    char out[MN_ID_LEN + 1];
    CHECK_OK(mn_store_memory_resolve(s, out, "01B"));
    CHECK_STR(out, ids[2]);
    CHECK_OK(mn_store_memory_resolve(s, out, "01b")); /* lower case finds the same */
    CHECK_STR(out, ids[2]);
    CHECK_OK(mn_store_memory_resolve(s, out, ids[0]));
    CHECK_STR(out, ids[0]);
    CHECK_OK(mn_store_memory_resolve(s, out, "01AAAAAAAAAAAAAAAAAAAAAAA2"));
    CHECK_STR(out, ids[1]);

    mn_error_clear();
    CHECK(mn_store_memory_resolve(s, out, "01A") == MN_EAMBIGUOUS);
    CHECK(strstr(mn_error_last(), "'01A'") != NULL);
    CHECK(mn_store_memory_resolve(s, out, "01AAAAAAAAAAAAAAAAAAAAAAA") == MN_EAMBIGUOUS);
    CHECK(mn_store_memory_resolve(s, out, "0") == MN_EAMBIGUOUS);
    CHECK(mn_store_memory_resolve(s, out, "01C") == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "'01C'") != NULL);
    CHECK(mn_store_memory_resolve(s, out, "01AAAAAAAAAAAAAAAAAAAAAAA3") == MN_ENOTFOUND);
    CHECK(mn_store_memory_resolve(s, out, "not-an-id") == MN_EINVAL);
    CHECK(mn_store_memory_resolve(s, out, "") == MN_EINVAL);

    /* a forgotten memory still resolves (forget --undo needs it) */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ids[2], 5000));
    CHECK_OK(mn_store_commit(s));
    CHECK_OK(mn_store_memory_resolve(s, out, "01B"));
    CHECK_STR(out, ids[2]);
    mn_store_free(s);
    free(path);
}

static void test_find_hash(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *m = small_memory(ID_A, "fact", "Use  the   Retry helper");
    json_object_set_new(m, "body", json_string("Body\ttext\n"));
    CHECK_OK(insert(s, m));

    char hash[17], out[MN_ID_LEN + 1];
    mn_store_content_hash(hash, m);
    CHECK(strlen(hash) == 16);
    CHECK(strspn(hash, "0123456789abcdef") == 16);
    CHECK_OK(mn_store_memory_find_hash(s, out, hash));
    CHECK_STR(out, ID_A);

    /* case and runs of white space do not matter; kind, title and body do */
    json_t *v = small_memory(ID_B, "fact", "use the retry HELPER");
    json_object_set_new(v, "body", json_string("body text"));
    char h2[17];
    mn_store_content_hash(h2, v);
    CHECK_STR(h2, hash);
    json_object_set_new(v, "kind", json_string("rule"));
    mn_store_content_hash(h2, v);
    CHECK(strcmp(h2, hash) != 0);
    json_object_set_new(v, "kind", json_string("fact"));
    json_object_set_new(v, "body", json_string("body text!"));
    mn_store_content_hash(h2, v);
    CHECK(strcmp(h2, hash) != 0);
    /* title and body are separate: moving a word across them changes the hash */
    json_object_set_new(v, "title", json_string("use the retry"));
    json_object_set_new(v, "body", json_string("helper body text"));
    mn_store_content_hash(h2, v);
    CHECK(strcmp(h2, hash) != 0);
    json_decref(v);

    CHECK(mn_store_memory_find_hash(s, out, "0000000000000000") == MN_ENOTFOUND);

    /* a forgotten memory is not a duplicate */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID_A, 1000));
    CHECK_OK(mn_store_commit(s));
    CHECK(mn_store_memory_find_hash(s, out, hash) == MN_ENOTFOUND);
    json_decref(m);
    mn_store_free(s);
    free(path);
}

static json_t *listed(const char *id, const char *kind, const char *level, const char *status,
                      const char *tags, const char *paths, const char *source, const char *updated)
{
    json_t *m = small_memory(id, kind, id);
    json_object_set_new(m, "level", json_string(level));
    json_object_set_new(m, "status", json_string(status));
    json_t *scope = json_object();
    if (tags)
        json_object_set_new(scope, "tags", J(tags));
    if (paths)
        json_object_set_new(scope, "paths", J(paths));
    json_object_set_new(m, "scope", scope);
    json_object_set_new(json_object_get(m, "provenance"), "source", json_string(source));
    json_object_set_new(m, "updated_at", json_string(updated));
    return m;
}

static void test_list_filters(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *ms[] = {
        listed(ID_A, "fact", "L1", "active", "['x']", "['src/a']", "manual",
               "2026-01-01T00:00:01.000Z"),
        listed(ID_B, "decision", "L2", "pending", "['y']", "['src/ab']", "agent",
               "2026-01-01T00:00:02.000Z"),
        listed(ID_C, "gotcha", "L3", "active", "['x','y']", "['docs']", "git",
               "2026-01-01T00:00:03.000Z"),
        listed(ID_D, "fact", "L2", "archived", NULL, "['src/a/b.c']", "manual",
               "2026-01-01T00:00:04.000Z"),
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(ms); i++) {
        CHECK_OK(insert(s, ms[i]));
        json_decref(ms[i]);
    }
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID_C, 1000));
    CHECK_OK(mn_store_commit(s));

    struct {
        mn_memory_filter f;
        const char *want;
    } cases[] = {
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_B "," ID_D},
        {{"fact", -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_D},
        {{"gotcha", -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        {{"gotcha", -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, NULL}, ID_C},
        {{NULL, 2, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_B "," ID_D},
        {{NULL, 0, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        {{NULL, -1, "pending", NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_B},
        {{NULL, -1, "active", NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_C},
        {{NULL, -1, NULL, "x", NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_A},
        {{NULL, -1, NULL, "x", NULL, NULL, 0, true, false, 0, 0, false, {0}, NULL}, ID_A "," ID_C},
        {{NULL, -1, NULL, "y", NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_B},
        {{NULL, -1, NULL, "z", NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, false, true, 0, 0, false, {0}, NULL}, ID_C},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_B "," ID_C "," ID_D},
        /* path: the memory's path, a path below it, or a directory above it */
        {{NULL, -1, NULL, NULL, "src/a", NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_D},
        {{NULL, -1, NULL, NULL, "src/a/b.c", NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_D},
        {{NULL, -1, NULL, NULL, "src/a/other.c", NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A},
        {{NULL, -1, NULL, NULL, "src", NULL, 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_B "," ID_D},
        {{NULL, -1, NULL, NULL, "src/ab", NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_B},
        {{NULL, -1, NULL, NULL, "src/ab/c", NULL, 0, false, false, 0, 0, false, {0}, NULL}, ID_B},
        {{NULL, -1, NULL, NULL, "sr", NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        {{NULL, -1, NULL, NULL, "src/a.c", NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        {{NULL, -1, NULL, NULL, "docs/x.md", NULL, 0, true, false, 0, 0, false, {0}, NULL}, ID_C},
        {{NULL, -1, NULL, NULL, NULL, "agent", 0, false, false, 0, 0, false, {0}, NULL}, ID_B},
        {{NULL, -1, NULL, NULL, NULL, "manual", 0, false, false, 0, 0, false, {0}, NULL},
         ID_A "," ID_D},
        {{NULL, -1, NULL, NULL, NULL, "issue", 0, false, false, 0, 0, false, {0}, NULL}, ""},
        /* since: updated at or after */
        {{NULL, -1, NULL, NULL, NULL, NULL, 1767225602000LL, false, false, 0, 0, false, {0}, NULL},
         ID_B "," ID_D},
        {{NULL, -1, NULL, NULL, NULL, NULL, 1767225602001LL, false, false, 0, 0, false, {0}, NULL},
         ID_D},
        /* combined */
        {{"fact", 2, "archived", NULL, "src", "manual", 0, false, false, 0, 0, false, {0}, NULL},
         ID_D},
        {{"fact", 1, "archived", NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, NULL}, ""},
        /* limit and offset, in id order */
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 2, 0, false, {0}, NULL}, ID_A "," ID_B},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 2, 1, false, {0}, NULL}, ID_B "," ID_C},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 3, false, {0}, NULL}, ID_D},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 10, 4, false, {0}, NULL}, ""},
        /* keyset pages: the ids after one (byte order), with a limit, with filters; the
         * pages mnemo migrate reads */
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, ID_A},
         ID_B "," ID_C "," ID_D},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 2, 0, false, {0}, ID_A}, ID_B "," ID_C},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, false, {0}, ID_B}, ID_D},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, ID_D}, ""},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, false, {0}, "01J0"},
         ID_A "," ID_B "," ID_C "," ID_D},
        /* newest (last updated) first, and its pages */
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 0, 0, true, {0}, NULL},
         ID_D "," ID_C "," ID_B "," ID_A},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, true, false, 2, 1, true, {0}, NULL}, ID_C "," ID_B},
        {{NULL, -1, NULL, NULL, NULL, NULL, 0, false, false, 0, 0, true, {0}, NULL},
         ID_D "," ID_B "," ID_A},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        char *ids = list_ids(s, &cases[i].f);
        if (strcmp(ids, cases[i].want) != 0)
            fprintf(stderr, "filter case %zu:\n", i);
        CHECK_STR(ids, cases[i].want);
        free(ids);
    }

    /* count ignores limit and offset */
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.limit = 1;
    int64_t n = 0;
    CHECK_OK(mn_store_memory_count(s, &f, &n));
    CHECK(n == 3);

    mn_store_free(s);
    free(path);
}

static int stop_after_one(void *payload, json_t *mem)
{
    MN_UNUSED(mem);
    (*(int *)payload)++;
    return 7;
}

static void test_list_stop(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    for (int i = 0; i < 3; i++) {
        char id[MN_ID_LEN + 1];
        mn_id_new(id);
        json_t *m = small_memory(id, "fact", "t");
        CHECK_OK(insert(s, m));
        json_decref(m);
    }
    int calls = 0;
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    CHECK(mn_store_memory_list(s, &f, stop_after_one, &calls) == 7);
    CHECK(calls == 1);
    mn_store_free(s);
    free(path);
}

static void test_delete_undelete_purge(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *a = full_memory(ID_A), *b = small_memory(ID_B, "fact", "b");
    json_object_del(a, "deleted_at");
    CHECK_OK(insert(s, a));
    CHECK_OK(insert(s, b));

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID_B, 1795239445123LL));
    CHECK_OK(mn_store_commit(s));
    json_t *got = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK_STR(json_string_value(json_object_get(got, "deleted_at")), "2026-11-21T05:37:25.123Z");
    json_decref(got);
    /* forgetting again keeps the first time: forget is idempotent */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID_B, 1795239999999LL));
    CHECK_OK(mn_store_commit(s));
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK_STR(json_string_value(json_object_get(got, "deleted_at")), "2026-11-21T05:37:25.123Z");
    json_decref(got);
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    char *ids = list_ids(s, &f);
    CHECK_STR(ids, ID_A);
    free(ids);

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_set_deleted(s, ID_B, 0));
    CHECK_OK(mn_store_commit(s));
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK(json_object_get(got, "deleted_at") == NULL);
    CHECK(same_json(got, b));
    json_decref(got);

    CHECK_OK(mn_store_begin(s));
    CHECK(mn_store_memory_set_deleted(s, ID_E, 1) == MN_ENOTFOUND);
    mn_store_rollback(s);

    /* purge A, which has citations, tags, paths, links out and links in */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_link_add(s, ID_A, "relates_to", ID_B, "out", 1000));
    CHECK_OK(mn_store_link_add(s, ID_A, "about", "file:cart/session.py", NULL, 1000));
    CHECK_OK(mn_store_link_add(s, ID_B, "caused_by", ID_A, "in", 1000));
    CHECK_OK(mn_store_audit(s, "test", "link", ID_A, NULL));
    CHECK_OK(mn_store_commit(s));
    CHECK(sql_int(path, "SELECT count(*) FROM links") == 3);
    CHECK(sql_int(path, "SELECT count(*) FROM citations") == 2);
    CHECK(sql_int(path, "SELECT count(*) FROM memory_tags") == 2);
    CHECK(sql_int(path, "SELECT count(*) FROM memory_paths") == 2);

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_purge(s, ID_A));
    CHECK_OK(mn_store_commit(s));
    CHECK(mn_store_memory_get(s, &got, ID_A) == MN_ENOTFOUND);
    CHECK(sql_int(path, "SELECT count(*) FROM memories") == 1);
    CHECK(sql_int(path, "SELECT count(*) FROM links") == 0);
    CHECK(sql_int(path, "SELECT count(*) FROM citations") == 0);
    CHECK(sql_int(path, "SELECT count(*) FROM memory_tags") == 0);
    CHECK(sql_int(path, "SELECT count(*) FROM memory_paths") == 0);
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_B));
    CHECK(json_object_get(got, "links") == NULL);
    json_decref(got);
    CHECK_OK(mn_store_check(s));

    CHECK_OK(mn_store_begin(s));
    CHECK(mn_store_memory_purge(s, ID_A) == MN_ENOTFOUND);
    mn_store_rollback(s);
    json_decref(a);
    json_decref(b);
    mn_store_free(s);
    free(path);
}

static void test_links(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *a = small_memory(ID_A, "decision", "a"), *b = small_memory(ID_B, "fact", "b");
    CHECK_OK(insert(s, a));
    CHECK_OK(insert(s, b));

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_link_add(s, ID_A, "caused_by", ID_B, "because", 1795239445123LL));
    CHECK_OK(mn_store_link_add(s, ID_A, "about", "file:src/a.c", NULL, 0));
    CHECK_OK(mn_store_link_add(s, ID_A, "relates_to", ID_B, NULL, 86400000));
    /* the same link again */
    CHECK(mn_store_link_add(s, ID_A, "caused_by", ID_B, "again", 5) == MN_EEXISTS);
    CHECK(mn_store_link_add(s, ID_A, "about", "file:src/a.c", NULL, 5) == MN_EEXISTS);
    /* to and from a memory that does not exist */
    CHECK(mn_store_link_add(s, ID_A, "relates_to", ID_E, NULL, 5) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), ID_E) != NULL);
    CHECK(mn_store_link_add(s, ID_E, "relates_to", ID_A, NULL, 5) == MN_ENOTFOUND);
    /* a kind the schema does not know */
    CHECK(mn_store_link_add(s, ID_A, "blames", ID_B, NULL, 5) == MN_EINVAL);
    CHECK_OK(mn_store_commit(s));

    json_t *got = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    json_t *want = J("[{'kind':'caused_by','to':'" ID_B "','note':'because',"
                     "'created_at':'2026-11-21T05:37:25.123Z'},"
                     "{'kind':'about','to':'file:src/a.c','created_at':'1970-01-01T00:00:00.000Z'},"
                     "{'kind':'relates_to','to':'" ID_B "','created_at':"
                     "'1970-01-02T00:00:00.000Z'}]");
    CHECK(same_json(json_object_get(got, "links"), want));
    json_decref(want);
    json_decref(got);

    json_t *back = NULL;
    REQUIRE_OK(mn_store_memory_backlinks(s, &back, ID_B));
    want = J("[{'kind':'caused_by','from':'" ID_A "','note':'because',"
             "'created_at':'2026-11-21T05:37:25.123Z'},"
             "{'kind':'relates_to','from':'" ID_A "','created_at':'1970-01-02T00:00:00.000Z'}]");
    CHECK(same_json(back, want));
    json_decref(want);
    json_decref(back);
    REQUIRE_OK(mn_store_memory_backlinks(s, &back, ID_A));
    CHECK(json_is_array(back) && json_array_size(back) == 0);
    json_decref(back);

    /* remove: a memory target and a reference target */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_link_remove(s, ID_A, "caused_by", ID_B));
    CHECK_OK(mn_store_link_remove(s, ID_A, "about", "file:src/a.c"));
    CHECK(mn_store_link_remove(s, ID_A, "caused_by", ID_B) == MN_ENOTFOUND);
    CHECK(mn_store_link_remove(s, ID_A, "supersedes", ID_B) == MN_ENOTFOUND);
    CHECK(mn_store_link_remove(s, ID_E, "caused_by", ID_B) == MN_ENOTFOUND);
    CHECK_OK(mn_store_commit(s));
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK(json_array_size(json_object_get(got, "links")) == 1);
    CHECK_STR(json_string_value(
                  json_object_get(json_array_get(json_object_get(got, "links"), 0), "kind")),
              "relates_to");
    json_decref(got);
    CHECK(sql_int(path, "SELECT count(*) FROM links") == 1);
    CHECK_OK(mn_store_check(s));
    json_decref(a);
    json_decref(b);
    mn_store_free(s);
    free(path);
}

static void test_config(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    char *v = NULL;
    CHECK(mn_store_config_get(s, &v, "memory.dedup") == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "memory.dedup") != NULL);
    CHECK(v == NULL);

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_config_set(s, "b.key", "2"));
    CHECK_OK(mn_store_config_set(s, "a.key", "1"));
    CHECK_OK(mn_store_config_set(s, "b.key", "two"));
    CHECK_OK(mn_store_commit(s));
    CHECK_OK(mn_store_config_get(s, &v, "b.key"));
    CHECK_STR(v, "two");
    free(v);
    json_t *all = NULL;
    CHECK_OK(mn_store_config_all(s, &all));
    json_t *want = J("{'a.key':'1','b.key':'two'}");
    CHECK(same_json(all, want));
    json_decref(want);
    json_decref(all);

    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_config_set(s, "a.key", NULL));
    CHECK_OK(mn_store_config_set(s, "never.set", NULL)); /* unsetting nothing is fine */
    CHECK_OK(mn_store_commit(s));
    v = NULL;
    CHECK(mn_store_config_get(s, &v, "a.key") == MN_ENOTFOUND);
    CHECK_OK(mn_store_config_all(s, &all));
    want = J("{'b.key':'two'}");
    CHECK(same_json(all, want));
    json_decref(want);
    json_decref(all);

    /* a rolled-back set is not kept */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_config_set(s, "b.key", "three"));
    mn_store_rollback(s);
    CHECK_OK(mn_store_config_get(s, &v, "b.key"));
    CHECK_STR(v, "two");
    free(v);
    mn_store_free(s);

    /* config is per project */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&s, path, &o));
    v = NULL;
    CHECK(mn_store_config_get(s, &v, "b.key") == MN_ENOTFOUND);
    mn_store_free(s);
    free(path);
}

static void test_audit(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *detail = J("{'changed':['title']}");
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_audit(s, "cli", "update", ID_A, detail));
    CHECK_OK(mn_store_audit(s, NULL, "import", NULL, NULL));
    CHECK_OK(mn_store_commit(s));
    json_decref(detail);
    CHECK(sql_int(path, "SELECT count(*) FROM audit") == 2);
    char *d = sql_text(path, "SELECT detail FROM audit WHERE action = 'update'");
    CHECK_STR(d, "{\"changed\":[\"title\"]}");
    free(d);
    char *t = sql_text(path, "SELECT target || '/' || actor FROM audit WHERE action = 'update'");
    CHECK_STR(t, ID_A "/cli");
    free(t);
    char *actor = sql_text(path, "SELECT actor FROM audit WHERE action = 'import'");
    CHECK_STR(actor, "unknown");
    free(actor);
    CHECK(sql_int(path, "SELECT count(*) FROM audit WHERE target IS NULL AND detail IS NULL") == 1);
    CHECK(sql_int(path, "SELECT count(*) FROM audit WHERE ts > 1700000000000") == 2);

    /* a rolled-back audit row is gone with its transaction */
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_audit(s, "cli", "forget", ID_A, NULL));
    mn_store_rollback(s);
    CHECK(sql_int(path, "SELECT count(*) FROM audit") == 2);
    mn_store_free(s);
    free(path);
}

static void test_check(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *m = full_memory(ID_A);
    CHECK_OK(insert(s, m));
    json_decref(m);
    CHECK_OK(mn_store_check(s));
    mn_store_free(s);

    if (test_store_pg()) {
        printf("skip on postgresql: %s, a dangling row: PostgreSQL enforces foreign keys, none "
               "can be written\n",
               __func__);
        free(path);
        return;
    }
    /* a dangling row written behind the store's back fails the check */
    REQUIRE(sql_exec(path, "PRAGMA foreign_keys = OFF; INSERT INTO memory_tags(tag, memory_id) "
                           "VALUES ('orphan', 9999);") == SQLITE_OK);
    s = open_store(path);
    REQUIRE(s);
    CHECK(mn_store_check(s) == MN_ECORRUPT);
    CHECK(strstr(mn_error_last(), "failed its check") != NULL);
    mn_store_free(s);
    free(path);
}

static void test_corrupt_columns(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *m = full_memory(ID_A);
    CHECK_OK(insert(s, m));
    json_decref(m);
    mn_store_free(s);

    /* a list column that is not JSON */
    REQUIRE(sql_exec(path, "UPDATE memories SET trigger_keywords = 'not json'") == SQLITE_OK);
    s = open_store(path);
    REQUIRE(s);
    json_t *got = (json_t *)1;
    CHECK(mn_store_memory_get(s, &got, ID_A) == MN_ECORRUPT);
    CHECK(got == NULL);
    CHECK(strstr(mn_error_last(), "trigger_keywords") != NULL);
    mn_store_free(s);

    /* an excerpt whose recorded length does not match */
    REQUIRE(sql_exec(path, "UPDATE memories SET trigger_keywords = '[\"k\"]', excerpt_len = 5") ==
            SQLITE_OK);
    s = open_store(path);
    REQUIRE(s);
    CHECK(mn_store_memory_get(s, &got, ID_A) == MN_ECORRUPT);
    CHECK(strstr(mn_error_last(), "excerpt") != NULL);
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.include_deleted = true;
    mn_buf b = MN_BUF_INIT;
    CHECK(mn_store_memory_list(s, &f, collect, &b) == MN_ECORRUPT);
    mn_buf_release(&b);
    mn_store_free(s);
    free(path);
}

static void test_excerpt_compressed(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    mn_buf ex = MN_BUF_INIT;
    while (ex.len < 20480)
        mn_buf_puts(&ex, "user: the build fails again \xe2\x80\x94 agent: run make clean.\n");
    mn_buf_truncate(&ex, 20480);
    REQUIRE(mn_utf8_valid(ex.ptr, ex.len));
    json_t *m = small_memory(ID_A, "episode", "long talk");
    json_object_set_new(m, "context", json_object());
    json_object_set_new(json_object_get(m, "context"), "conversation_excerpt",
                        json_stringn(ex.ptr, ex.len));
    /* context sits after body in the canonical order: rebuild in that order */
    json_t *ordered = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        if (strcmp(key, "context") == 0)
            continue;
        json_object_set(ordered, key, v);
        if (strcmp(key, "body") == 0)
            json_object_set(ordered, "context", json_object_get(m, "context"));
    }
    CHECK_OK(insert(s, ordered));

    int64_t stored = sql_int(path, "SELECT length(excerpt) FROM memories");
    int64_t raw = sql_int(path, "SELECT excerpt_len FROM memories");
    int64_t type_blob =
        sql_int(path, test_store_pg() ? "SELECT pg_typeof(excerpt) = 'bytea'::regtype FROM memories"
                                      : "SELECT typeof(excerpt) = 'blob' FROM memories");
    CHECK(raw == 20480);
    CHECK(type_blob == 1);
    CHECK(stored > 0 && stored < 20480 / 10);

    json_t *got = NULL;
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    json_t *back = json_object_get(json_object_get(got, "context"), "conversation_excerpt");
    CHECK(json_string_length(back) == ex.len);
    CHECK(back && memcmp(json_string_value(back), ex.ptr, ex.len) == 0);
    CHECK(same_json(got, ordered));
    json_decref(got);

    /* an empty excerpt is stored as nothing */
    json_object_set_new(json_object_get(ordered, "context"), "conversation_excerpt",
                        json_string(""));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, ordered));
    CHECK_OK(mn_store_commit(s));
    CHECK(sql_int(path, "SELECT excerpt IS NULL AND excerpt_len IS NULL FROM memories") == 1);
    REQUIRE_OK(mn_store_memory_get(s, &got, ID_A));
    CHECK(json_object_get(got, "context") == NULL);
    json_decref(got);

    json_decref(ordered);
    json_decref(m);
    mn_buf_release(&ex);
    mn_store_free(s);
    free(path);
}

/*
 * Full-text counts (mn_store_fts_count): exact for a word under the
 * sample, estimated from the newest slices for common ones, within a few
 * percent either way. 70,000 index rows (written to memories_fts directly:
 * the count reads only the index), so every slice is used.
 */
static void test_fts_counts(void)
{
    TEST_SQLITE_ONLY("full-text search is not in the PostgreSQL back end yet (fts_count)");
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    mn_store_free(s);
    sqlite3 *db = NULL;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(mn_sqlite_fts_register(db) == 0);
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(db,
                               "INSERT INTO memories_fts(rowid, title, keywords, body, context) "
                               "VALUES (?1, 'row', '', ?2, '')",
                               -1, &st, NULL) == SQLITE_OK);
    for (int i = 1; i <= 70000; i++) {
        char body[64];
        /* alpha: every 2nd row, beta: every 8th, gamma: every 100th */
        snprintf(body, sizeof(body), "%s %s %s", i % 2 ? "x" : "alpha", i % 8 ? "y" : "beta",
                 i % 100 ? "z" : "gamma");
        sqlite3_bind_int(st, 1, i);
        sqlite3_bind_text(st, 2, body, -1, SQLITE_TRANSIENT);
        REQUIRE(sqlite3_step(st) == SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    REQUIRE(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    REQUIRE((s = open_store(path)) != NULL);
    struct {
        const char *match;
        double want;
    } cases[] = {{"\"alpha\"", 35000},
                 {"\"beta\"", 8750},
                 {"\"gamma\"", 700},
                 {"\"alpha\" AND \"beta\"", 8750},
                 {"\"nowhere\"", 0}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        int64_t n = -1, ndocs = 0;
        CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, cases[i].match, &n, &ndocs));
        CHECK(ndocs == 70000);
        CHECK(fabs((double)n - cases[i].want) <= 0.05 * cases[i].want);
        if (fabs((double)n - cases[i].want) > 0.05 * cases[i].want)
            fprintf(stderr, "  %s: %" PRId64 ", want about %.0f\n", cases[i].match, n,
                    cases[i].want);
    }
    /* a word under the sample is counted exactly */
    int64_t n = 0;
    CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, "\"gamma\"", &n, NULL));
    CHECK(n == 700);
    mn_store_free(s);
    free(path);
}

typedef struct {
    char uid[4][MN_ID_LEN + 1];
    double bm25[4];
    size_t n;
} ranked;

static int on_ranked(void *payload, const mn_memory_hit *h)
{
    ranked *r = payload;
    if (r->n < 4) {
        snprintf(r->uid[r->n], sizeof(r->uid[0]), "%s", h->uid);
        r->bm25[r->n++] = h->bm25;
    }
    return 0;
}

static ranked rank_lantern(mn_store *s)
{
    ranked r = {0};
    mn_memory_query q = {0};
    q.match = "\"lantern\"";
    q.limit = 10;
    if (mn_store_search_memories(s, &q, on_ranked, &r) != 0)
        r.n = 99;
    return r;
}

/*
 * The memories' lengths a long-lived process reads for ranking
 * (memory_sizes.c): the scores are the same with them as without; they
 * are used only while the full-text index is the one they were read from,
 * which a new memory and an edit in place (same row) both change.
 */
static void test_memory_sizes(void)
{
    TEST_SQLITE_ONLY(
        "full-text search is not in the PostgreSQL back end yet (memory_sizes_prepare)");
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    const char *bodies[] = {"lantern", "a lantern with oil, a wick and a glass chimney",
                            ("lantern lantern, then many more words about the lantern and its "
                             "brass handle, the hook it hangs from and the shed")};
    const char *ids[] = {ID_A, ID_B, ID_C};
    for (size_t i = 0; i < 3; i++) {
        json_t *m = small_memory(ids[i], "fact", "light");
        json_object_set_new(m, "body", json_string(bodies[i]));
        CHECK_OK(insert(s, m));
        json_decref(m);
    }
    CHECK(mn_memory_sizes_current(s) == NULL); /* not prepared: a one-shot process */
    ranked before = rank_lantern(s);
    REQUIRE(before.n == 3);

    CHECK_OK(mn_store_memory_sizes_prepare(s));
    const mn_fts_doc_sizes *z = mn_memory_sizes_current(s);
    REQUIRE(z != NULL);
    CHECK(z->n == 3);
    /* title + body: 1 + 1, more, most */
    CHECK(z->ntok[0] == 2 && z->ntok[1] > z->ntok[0] && z->ntok[2] > z->ntok[1]);
    ranked after = rank_lantern(s);
    REQUIRE(after.n == 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_STR(after.uid[i], before.uid[i]);
        CHECK(fabs(after.bm25[i] - before.bm25[i]) < 1e-9);
    }
    CHECK_OK(mn_store_memory_sizes_prepare(s)); /* unchanged: kept */
    CHECK(mn_memory_sizes_current(s) == z);

    /* a new memory: stale until prepared again, then covered */
    json_t *m = small_memory(ID_D, "fact", "light");
    json_object_set_new(m, "body", json_string("the lantern"));
    CHECK_OK(insert(s, m));
    CHECK(mn_memory_sizes_current(s) == NULL);
    CHECK_OK(mn_store_memory_sizes_prepare(s));
    REQUIRE((z = mn_memory_sizes_current(s)) != NULL);
    CHECK(z->n == 4);
    /* an edit in place: same row, another length */
    json_object_set_new(m, "body", json_string("the lantern, now a much longer text than it was"));
    json_object_set_new(m, "updated_at", json_string("2026-01-02T00:00:00.000Z"));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, m));
    CHECK_OK(mn_store_commit(s));
    json_decref(m);
    CHECK(mn_memory_sizes_current(s) == NULL);
    CHECK_OK(mn_store_memory_sizes_prepare(s));
    REQUIRE((z = mn_memory_sizes_current(s)) != NULL);
    CHECK(z->ntok[3] > 3);
    ranked edited = rank_lantern(s);
    mn_store_free(s);
    /* the same ranking from a store that never read the lengths */
    REQUIRE((s = open_store(path)) != NULL);
    ranked fresh = rank_lantern(s);
    CHECK(edited.n == 4 && fresh.n == 4);
    for (size_t i = 0; i < 4 && i < edited.n && i < fresh.n; i++) {
        CHECK_STR(edited.uid[i], fresh.uid[i]);
        CHECK(fabs(edited.bm25[i] - fresh.bm25[i]) < 1e-9);
    }
    mn_store_free(s);
    free(path);
}

/* The search of q: its hits' ids and scores (r.n 99: it failed). */
static ranked rank_query(mn_store *s, const mn_memory_query *q)
{
    ranked r = {0};
    if (mn_store_search_memories(s, q, on_ranked, &r) != 0) {
        fprintf(stderr, "  search: %s\n", mn_error_last());
        r.n = 99;
    }
    return r;
}

/*
 * The second, exact pass of a memory search (the filters inside the
 * full-text scan: other kinds filled FTS5's best rows) with mnemo_bm25's
 * extra arguments: the phrases' idf given, the memories' lengths held by a
 * long-lived process, and both. Those arguments were named parameters
 * written before ?1 and the filter's ?2.. in the statement, so SQLite gave
 * them the numbers 1 and 2: the match was bound over ('fts5: syntax error
 * near ...') or, with both, the project (nothing found). The same rows each
 * time, scored as without the arguments (the idf doubled: twice the score).
 */
static void test_exact_pass_rank_arguments(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    /* 70 short facts rank above the 2 long gotchas (the first pass reads FTS5's best 65), and
     * 100 facts without the word (an idf above 0) */
    static const char *const gotchas[] = {
        "the lantern hangs in the shed by the door, beside the rake and the hoe",
        "a lantern on the shelf with the tins of paint and the brushes"};
    int rc = mn_store_begin(s);
    for (int i = 0; i < 172 && rc == 0; i++) {
        char id[MN_ID_LEN + 1];
        snprintf(id, sizeof(id), "01J3%022d", i);
        json_t *m = small_memory(id, i == 70 || i == 71 ? "gotcha" : "fact", "light");
        json_object_set_new(m, "body",
                            json_string(i < 70   ? "lantern"
                                        : i < 72 ? gotchas[i - 70]
                                                 : "candle"));
        rc = mn_store_memory_insert(s, m);
        json_decref(m);
    }
    REQUIRE_OK(rc);
    REQUIRE_OK(mn_store_commit(s));
    mn_memory_query q = {0};
    q.match = "\"lantern\"";
    q.limit = 10;
    q.kinds[0] = "gotcha";
    q.nkinds = 1;
    ranked plain = rank_query(s, &q);
    REQUIRE(plain.n == 2);
    CHECK(plain.bm25[0] > plain.bm25[1]);

    int64_t n = 0, ndocs = 0;
    REQUIRE_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, q.match, &n, &ndocs));
    const double idf[1] = {2 * log(((double)ndocs - (double)n + 0.5) / ((double)n + 0.5))};
    mn_memory_query w = q;
    w.idf = idf;
    w.nidf = 1;
    for (int held = 0; held < 2; held++) {
        if (held) {
            if (test_store_pg())
                break; /* the lengths held in memory are SQLite's (memory_sizes.c) */
            REQUIRE_OK(mn_store_memory_sizes_prepare(s));
            REQUIRE(mn_memory_sizes_current(s) != NULL);
            ranked lengths = rank_query(s, &q);
            CHECK(lengths.n == 2);
            for (size_t i = 0; i < lengths.n && i < 2; i++) {
                CHECK_STR(lengths.uid[i], plain.uid[i]);
                CHECK(fabs(lengths.bm25[i] - plain.bm25[i]) < 1e-9);
            }
        }
        ranked given = rank_query(s, &w);
        CHECK(given.n == 2);
        for (size_t i = 0; i < given.n && i < 2; i++) {
            CHECK_STR(given.uid[i], plain.uid[i]);
            CHECK(fabs(given.bm25[i] - 2 * plain.bm25[i]) < 1e-6 * plain.bm25[i]);
        }
    }
    mn_store_free(s);
    free(path);
}

/* count memories of `words` distinct-ish words each, in one transaction; *n numbers their ids */
static int bulk(mn_store *s, size_t *n, size_t count, size_t words)
{
    int rc = mn_store_begin(s);
    for (size_t i = 0; i < count && rc == 0; i++, (*n)++) {
        char id[MN_ID_LEN + 1];
        mn_buf body = MN_BUF_INIT;
        for (size_t w = 0; w < words; w++)
            mn_buf_printf(&body, "%sw%zu", w ? " " : "", (*n * 31 + w * 7919) % 20000);
        snprintf(id, sizeof(id), "01J2%022zu", *n);
        json_t *m = small_memory(id, "fact", "bulk");
        json_object_set_new(m, "body", json_string(body.ptr));
        rc = mn_store_memory_insert(s, m);
        json_decref(m);
        mn_buf_release(&body);
    }
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

/*
 * The memories' full-text index rebuilt into one segment (fts_tidy.c):
 * only once commits have left more than 8 and those beside the largest
 * hold a sixteenth of it, with the same ranking after, and never on a
 * read-only store.
 */
static void test_memory_fts_tidy(void)
{
    TEST_SQLITE_ONLY("SQLite's FTS5 tables (fts_tidy)");
    static const char *const segs = "SELECT count(DISTINCT segid) FROM memories_fts_idx";
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    bool rebuilt = true;
    size_t n = 0;
    /* one commit per memory, as saves are: a segment each (FTS5 merges them at 16) */
    for (; n < 2000 && (n < 8 || sql_int(path, segs) <= 8); n++) {
        char id[MN_ID_LEN + 1], body[96];
        snprintf(id, sizeof(id), "01J2%022zu", n);
        snprintf(body, sizeof(body), "%s lantern note %zu%s", n % 3 ? "a" : "the", n,
                 n % 5 ? "" : " and a lantern again, with a longer tail of words");
        json_t *m = small_memory(id, "fact", n % 7 ? "light" : "lantern");
        json_object_set_new(m, "body", json_string(body));
        int rc = insert(s, m);
        json_decref(m);
        REQUIRE(rc == 0);
        if (n == 3) { /* a few segments: left as they are */
            CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt));
            CHECK(!rebuilt);
            CHECK(sql_int(path, segs) > 1);
        }
    }
    int64_t before_segs = sql_int(path, segs);
    CHECK(before_segs > 8);
    ranked before = rank_lantern(s);
    REQUIRE(before.n == 4);

    /* read-only: nothing written */
    mn_store_options ro = MN_STORE_OPTIONS_INIT;
    ro.read_only = true;
    mn_store *r = NULL;
    REQUIRE(mn_store_open(&r, path, &ro) == 0);
    CHECK_OK(mn_store_fts_tidy(r, MN_FTS_MEMORIES, &rebuilt));
    CHECK(!rebuilt);
    CHECK(sql_int(path, segs) == before_segs);
    mn_store_free(r);

    CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt));
    CHECK(rebuilt);
    CHECK(sql_int(path, segs) == 1);
    ranked after = rank_lantern(s);
    REQUIRE(after.n == 4);
    for (size_t i = 0; i < 4; i++) {
        CHECK_STR(after.uid[i], before.uid[i]);
        CHECK(fabs(after.bm25[i] - before.bm25[i]) < 1e-9);
    }
    int64_t count = 0;
    CHECK_OK(mn_store_fts_count(s, MN_FTS_MEMORIES, "\"lantern\"", &count, NULL));
    CHECK(count == (int64_t)n);
    CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt)); /* one segment: nothing to do */
    CHECK(!rebuilt);

    /* a large segment and one-row ones: not worth rewriting the large one for a few */
    /* leaves of the largest segment: its ids at height 0 (fts_tidy.c) */
    static const char *const leaves =
        "SELECT max((SELECT max(id) FROM memories_fts_data WHERE id >= segid << 37 AND id < "
        "(segid << 37) + (1 << 31)) - (SELECT min(id) FROM memories_fts_data WHERE id >= segid "
        "<< 37 AND id < (segid << 37) + (1 << 31)) + 1) FROM (SELECT DISTINCT segid FROM "
        "memories_fts_idx)";
    CHECK_OK(bulk(s, &n, 3000, 60));
    CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt));
    CHECK(rebuilt && sql_int(path, segs) == 1);
    int64_t large = sql_int(path, leaves);
    REQUIRE(large > 16 * 12 && large < 4000);
    for (size_t i = 0; i < 11; i++, n++) {
        char id[MN_ID_LEN + 1];
        snprintf(id, sizeof(id), "01J2%022zu", n);
        json_t *m = small_memory(id, "fact", "single");
        json_object_set_new(m, "body", json_string("saved on its own"));
        int rc = insert(s, m);
        json_decref(m);
        REQUIRE(rc == 0);
    }
    CHECK(sql_int(path, segs) > 8);
    CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt));
    CHECK(!rebuilt);
    CHECK(sql_int(path, segs) > 8);
    /* then batches written anew: rebuilt once there are more than 8 segments again and
     * those beside the large one hold a sixteenth of it */
    size_t batches = 0;
    for (rebuilt = false; !rebuilt && batches < 40; batches++) {
        CHECK_OK(bulk(s, &n, 40, 60));
        CHECK_OK(mn_store_fts_tidy(s, MN_FTS_MEMORIES, &rebuilt));
    }
    CHECK(rebuilt && batches > 1); /* 4 batches of 40 here, against 3,000 */
    CHECK(sql_int(path, segs) == 1);
    mn_store_free(s);
    free(path);
}

/*
 * The memories created in a time window (the when signal, when.c), read
 * through memories_created (schema v13): the window's rows alone, newest
 * first, however many newer memories the store holds. Before, a window in
 * the past read every memory updated since its start (all of them).
 */
static int on_created(void *payload, const mn_memory_hit *h)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%s", b->len ? "," : "", h->title);
    return 0;
}

static void test_memories_created(void)
{
    TEST_SQLITE_ONLY("search is not in the PostgreSQL back end yet (memories_created)");
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    for (int i = 0; i < 40; i++) {
        char id[32], title[16], when[32];
        snprintf(id, sizeof(id), "01J2000000000000000000%04d", i);
        snprintf(title, sizeof(title), "m%d", i);
        /* m0..m9 in March 2018, one a day; the others in 2026 */
        if (i < 10)
            snprintf(when, sizeof(when), "2018-03-%02dT12:00:00.000Z", i + 1);
        else
            snprintf(when, sizeof(when), "2026-01-%02dT12:00:00.000Z", i - 9);
        json_t *m = small_memory(id, "fact", title);
        json_object_set_new(m, "created_at", json_string(when));
        json_object_set_new(m, "updated_at", json_string("2026-02-01T00:00:00.000Z"));
        CHECK_OK(insert(s, m));
        json_decref(m);
    }
    int64_t from = 0, to = 0;
    REQUIRE(mn_time_parse(&from, "2018-03-03T00:00:00Z") == 0);
    REQUIRE(mn_time_parse(&to, "2018-03-06T00:00:00Z") == 0);
    mn_memory_query q = {0};
    q.limit = 51;
    mn_buf b = MN_BUF_INIT;
    CHECK_OK(mn_store_memories_created(s, &q, from, to, on_created, &b));
    CHECK_STR(b.ptr ? b.ptr : "", "m4,m3,m2");
    mn_buf_truncate(&b, 0);
    q.limit = 2; /* the newest of the window first */
    CHECK_OK(mn_store_memories_created(s, &q, from, to, on_created, &b));
    CHECK_STR(b.ptr ? b.ptr : "", "m4,m3");
    mn_buf_truncate(&b, 0);
    REQUIRE(mn_time_parse(&to, "2018-03-01T00:00:00Z") == 0);
    from = to - 86400000LL * 365;
    CHECK_OK(mn_store_memories_created(s, &q, from, to, on_created, &b));
    CHECK(b.len == 0);
    mn_buf_release(&b);
    mn_store_free(s);

    /* the window is read by the index, not by a scan from its start */
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(db,
                               "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE created_at >= 1 "
                               "AND created_at < 2 ORDER BY created_at DESC, id DESC LIMIT 51",
                               -1, &st, NULL) == SQLITE_OK);
    bool by_index = false;
    while (sqlite3_step(st) == SQLITE_ROW)
        by_index = by_index || strstr((const char *)sqlite3_column_text(st, 3),
                                      "INDEX memories_created") != NULL;
    CHECK(by_index);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
}

/* Memory rows as hits by uid (mn_store_memories_by_uid): the record's fields, an episode's
 * conversation key, a stale citation, nothing for an unknown uid or another project's. */
static int collect_hit(void *payload, const mn_memory_hit *h)
{
    mn_buf *b = payload;
    mn_buf_printf(b, "%s%s/%s/%s/L%d/h%lld u%lld i%lld/%s/%s/%s;", b->len ? " " : "", h->uid,
                  h->kind, h->status, h->level, (long long)h->hits, (long long)h->used,
                  (long long)h->ignored, h->stale ? "stale" : "fresh",
                  h->conversation ? h->conversation : "-", h->bm25 == 0 ? "0" : "bm25");
    return 0;
}

static void test_memories_by_uid(void)
{
    char *path = new_db_path();
    mn_store *s = open_store(path);
    REQUIRE(s);
    json_t *a = full_memory(ID_A); /* counters 3 2 1; deleted, but a row all the same */
    json_t *e = small_memory(ID_B, "episode", "turn one");
    json_object_set_new(e, "provenance", J("{'source':'agent','session':'sess-1'}"));
    CHECK_OK(insert(s, a));
    CHECK_OK(insert(s, e));
    json_t *c = json_array_get(json_object_get(a, "citations"), 0);
    json_object_set_new(c, "stale", json_string("changed"));
    json_object_set_new(c, "checked_at", json_string("2026-11-22T00:00:00.000Z"));
    CHECK_OK(mn_store_begin(s));
    CHECK_OK(mn_store_memory_replace(s, a));
    CHECK_OK(mn_store_commit(s));
    const char *uids[] = {ID_B, ID_E, ID_A};
    mn_buf b = MN_BUF_INIT;
    CHECK_OK(mn_store_memories_by_uid(s, uids, 3, collect_hit, &b));
    CHECK_STR(b.ptr, ID_B "/episode/active/L1/h0 u0 i0/fresh/s:sess-1/0; " ID_A
                          "/gotcha/active/L3/h3 u2 i1/stale/-/0;");
    mn_buf_release(&b);
    mn_store_free(s);
    /* another project sees none of them */
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    o.project = "other";
    REQUIRE_OK(mn_store_open(&s, path, &o));
    CHECK_OK(mn_store_memories_by_uid(s, uids, 3, collect_hit, &b));
    CHECK(b.len == 0);
    mn_buf_release(&b);
    mn_store_free(s);
    json_decref(a);
    json_decref(e);
    free(path);
}

static void test_cleanup(void)
{
    test_store_drop_all();
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_open_creates_schema), MN_TEST(test_open_errors),
             MN_TEST(test_newer_store_untouched), MN_TEST(test_round_trip_every_field),
             MN_TEST(test_replace), MN_TEST(test_resolve), MN_TEST(test_find_hash),
             MN_TEST(test_list_filters), MN_TEST(test_list_stop),
             MN_TEST(test_delete_undelete_purge), MN_TEST(test_links), MN_TEST(test_config),
             MN_TEST(test_audit), MN_TEST(test_check), MN_TEST(test_corrupt_columns),
             MN_TEST(test_excerpt_compressed), MN_TEST(test_fts_counts), MN_TEST(test_memory_sizes),
             MN_TEST(test_exact_pass_rank_arguments), MN_TEST(test_memory_fts_tidy),
             MN_TEST(test_memories_created), MN_TEST(test_memories_by_uid), MN_TEST(test_cleanup))
