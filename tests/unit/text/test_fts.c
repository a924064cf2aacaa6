/*
 * test_fts.c - the "mnemo" FTS5 tokenizer in a real in-memory SQLite: code
 * and prose go in, MATCH finds them by pieces, wholes, stems and other
 * inflections; the free-text query builder produces expressions FTS5 accepts
 * and that find what they should, whatever the text (and that the PostgreSQL
 * back end's parser of the same language accepts).
 */
#include <math.h>
#include <sqlite3.h>

#include "common.h"
#include "store/postgres/pg_search.h"
#include "store/sqlite/fts_tokenizer.h"
#include "store/store_search.h"
#include "test.h"

static sqlite3 *db;

static int exec(const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK)
        fprintf(stderr, "sql failed: %s: %s\n", sql, err ? err : "?");
    sqlite3_free(err);
    return rc;
}

static void open_db(const char *tokenize)
{
    if (db)
        sqlite3_close(db);
    db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        abort();
    if (mn_sqlite_fts_register(db) != 0)
        abort();
    char sql[256];
    snprintf(sql, sizeof(sql), "CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize = '%s')",
             tokenize);
    if (exec(sql) != SQLITE_OK)
        abort();
}

static void add(long id, const char *title, const char *body)
{
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "INSERT INTO docs(rowid, title, body) VALUES (?1, ?2, ?3)", -1, &st,
                       NULL);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, title, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, body, -1, SQLITE_STATIC);
    CHECK(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
}

/* The rowids MATCH returns, in rowid order, as "1,3" ("" for none, "error" on failure). */
static char ids_buf[512];
static const char *match(const char *expr)
{
    sqlite3_stmt *st = NULL;
    ids_buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rowid", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(ids_buf, sizeof(ids_buf), "error");
        return ids_buf;
    }
    sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
    size_t n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        n += (size_t)snprintf(ids_buf + n, sizeof(ids_buf) - n, "%s%lld", n ? "," : "",
                              (long long)sqlite3_column_int64(st, 0));
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "match '%s': %s\n", expr, sqlite3_errmsg(db));
        snprintf(ids_buf, sizeof(ids_buf), "error");
    }
    sqlite3_finalize(st);
    return ids_buf;
}

static void fill(void)
{
    add(1, "http.c", "int parseHttpHeader(const char *line) { return 0; }");
    add(2, "notes", "The server is running and the workers run nightly.");
    add(3, "parser.py", "def parse_http_header(line):\n    return line.split(':')");
    add(4, "заметки", "Парсер разбирает заголовки запросов.");
    add(5, "docs", "We parse the HTTP header before the body.");
    add(6, "notes fr",
        "Les fonctions analysées par le parseur sont très utiles pour les en-têtes.");
    add(7, "util", "size_t utf8_len(const char *s); // counts UTF-8 code points");
    add(8, "path", "src/index/walk_files.c");
}

static void test_match_code_and_prose(void)
{
    open_db("mnemo");
    fill();
    CHECK_STR(match("http"), "1,3,5");
    CHECK_STR(match("header"), "1,3,5");
    CHECK_STR(match("headers"), "1,3,5"); /* stemmed like header */
    CHECK_STR(match("parsehttpheader"), "1,3");
    CHECK_STR(match("parseHttpHeader"), "1,3,5");   /* phrase of pieces */
    CHECK_STR(match("parse_http_header"), "1,3,5"); /* the same phrase */
    /* Stop words take no position, in documents as in queries: "parse the header" is a phrase
     * match for "parse header". */
    CHECK_STR(match("\"parse http header\""), "1,3,5");
    CHECK_STR(match("\"running the workers\""), "2");
    CHECK_STR(match("\"running workers\""), "2");
    CHECK_STR(match("running"), "2");
    CHECK_STR(match("run"), "2");
    CHECK_STR(match("runs"), "2");
    CHECK_STR(match("заголовков"), "4"); /* other inflections of заголовки */
    CHECK_STR(match("ЗАГОЛОВКАМИ"), "4");
    CHECK_STR(match("парсеры"), "4");
    CHECK_STR(match("fonction"), "6");
    CHECK_STR(match("analyses"), "6");
    CHECK_STR(match("analysée"), "6");
    CHECK_STR(match("tetes"), "6"); /* without diacritics; the hyphen split en-têtes */
    CHECK_STR(match("têtes"), "6");
    CHECK_STR(match("TRÈS"), ""); /* a French stop word in a French text */
    CHECK_STR(match("parseur"), "6");
    CHECK_STR(match("utf8"), "7");
    CHECK_STR(match("\"utf-8\""), "7");
    CHECK_STR(match("utf8_len"), "7");
    CHECK_STR(match("walk_files"), "8");
    CHECK_STR(match("walk"), "8");
    CHECK_STR(match("file"), "8");
    CHECK_STR(match("\"src/index/walk_files.c\""), "8");
    CHECK_STR(match("title:parser"), "3");
    CHECK_STR(match("pars*"), "1,3,5,6"); /* prefix on the stems: parse, parser, parseur */
    CHECK_STR(match("http AND line"), "1,3");
    CHECK_STR(match("nothing_here_at_all"), "");
    /* A stop word alone is no term: FTS5 finds nothing rather than failing. */
    CHECK_STR(match("the"), "");
    CHECK_STR(match("the OR header"), "1,3,5");
}

static void test_args(void)
{
    open_db("mnemo nostem");
    fill();
    CHECK_STR(match("running"), "2");
    CHECK_STR(match("run"), "2"); /* "run" itself is in doc 2 */
    CHECK_STR(match("runs"), "");
    open_db("mnemo stopwords");
    fill();
    CHECK_STR(match("the"), "2,5");
    if (db)
        sqlite3_close(db);
    db = NULL;
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    CHECK_OK(mn_sqlite_fts_register(db));
    CHECK(sqlite3_exec(db, "CREATE VIRTUAL TABLE x USING fts5(a, tokenize = 'mnemo bogus')", NULL,
                       NULL, NULL) != SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE VIRTUAL TABLE y USING fts5(a, tokenize = 'mnemo lang fr')", NULL,
                       NULL, NULL) == SQLITE_OK);
}

static void test_bm25_and_highlight(void)
{
    open_db("mnemo");
    fill();
    /* highlight() uses the spans: the surface text comes back marked. */
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_prepare_v2(db,
                               "SELECT highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH "
                               "'header' AND rowid = 1",
                               -1, &st, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0),
              "int parseHttp[Header](const char *line) { return 0; }");
    sqlite3_finalize(st);
}

static void test_query_builder(void)
{
    open_db("mnemo");
    fill();
    mn_buf q = MN_BUF_INIT;
    CHECK(mn_sqlite_fts_query(&q, "How does parseHttpHeader parse the header?", 42, 0, 0) == 3);
    /* "How", "does", "the": stop words; "parse" once (its stem met twice). */
    CHECK_STR(q.ptr, "(\"parseHttpHeader\" OR \"parsehttpheader\") OR \"parse\" OR \"header\"");
    mn_buf_release(&q);
}

/* Pieces of odd text: operators, quotes, control characters, then marks alone, a zero-width
 * space, a BOM, an emoji and bad UTF-8 (odd_utf8) */
static const char *const odd[] = {
    "",    " ",   "\"",  "\"\"", "'",    "(",     ")",     "*",        "^",   ":",
    "-",   "+",   "AND", "OR",   "NOT",  "NEAR",  "x",     "X",        "_",   "__",
    "a_b", "\t",  "\r",  "\n-",  "\x01", "\x1b",  "\x1f",  "\x7f",     "123", "1.5",
    "the", "x.y", "a-b", "\\",   "{",    "}",     "[",     "]",        ";",   "$",
    "@",   ",",   "0x",  "_x_",  "A1b2", "NEAR(", "col:x", "parseHttp"};
static const char *const odd_utf8[] = {
    "\xcc\x81", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xf0\x9f\x98\x80", "\xc3\xa9",    "\xe6\x97\xa5",
    "\xff",     "\xc3",         "\xe2\x80",     "\xd9\x8b",         "\xe0\xa5\x8d"};
#define NODD (MN_ARRAY_SIZE(odd) + MN_ARRAY_SIZE(odd_utf8))

static const char *odd_piece(size_t i)
{
    i %= NODD;
    return i < MN_ARRAY_SIZE(odd) ? odd[i] : odd_utf8[i - MN_ARRAY_SIZE(odd)];
}

/* A text of 1 to 12 pieces, or a long run of one (a word over the term cap, marks alone). */
static void odd_text(mn_buf *b, uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = *seed >> 33;
    mn_buf_clear(b);
    if (r % 16 == 0) {
        const char *piece = odd_piece(r >> 4);
        for (size_t i = 0; i < 200 + (r >> 10) % 300; i++)
            mn_buf_puts(b, piece);
        return;
    }
    for (size_t n = 1 + r % 12, i = 0; i < n; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        mn_buf_puts(b, odd_piece(*seed >> 33));
    }
}

/* An expression the builders made: FTS5 runs it, the PostgreSQL back end parses it. */
static bool accepted(const char *expr, const char *text)
{
    mn_pg_fts *pq = NULL;
    bool ok = strcmp(match(expr), "error") != 0 && mn_pg__fts_parse(expr, &pq) == 0;
    mn_pg__fts_free(pq);
    if (!ok)
        fprintf(stderr, "  text '%s' gave '%s'\n", text, expr);
    return ok;
}

/*
 * Whatever the text, the builders give nothing (0 terms, out unchanged) or
 * an expression FTS5 accepts: every piece alone, then random mixes of them.
 */
static void test_query_builder_odd_text(void)
{
    open_db("mnemo");
    fill();
    mn_buf text = MN_BUF_INIT, q = MN_BUF_INIT;
    uint64_t seed = 42;
    size_t bad = 0, made = 0;
    for (size_t it = 0; it < 4000 && bad < 5; it++) {
        if (it < NODD) {
            mn_buf_clear(&text);
            mn_buf_puts(&text, odd_piece(it));
        } else {
            odd_text(&text, &seed);
        }
        static const size_t max_terms[] = {0, 1, MN_SEARCH_MAX_TERMS};
        for (size_t m = 0; m < MN_ARRAY_SIZE(max_terms); m++) {
            for (unsigned flags = 0; flags <= MN_FTS_QUERY_AND; flags += MN_FTS_QUERY_AND) {
                mn_buf_clear(&q);
                size_t n = mn_sqlite_fts_query(&q, text.ptr, text.len, flags, max_terms[m]);
                if (n == 0) {
                    bad += q.len != 0;
                    continue;
                }
                made++;
                bad += !accepted(q.ptr, text.ptr);
            }
            mn_buf_clear(&q);
            if (mn_store_fts_text_query(&q, text.ptr, text.len, max_terms[m]) > 0)
                bad += !accepted(q.ptr, text.ptr);
        }
        /* the terms' builder: the text, a piece and an empty term */
        const char *terms[3] = {text.ptr, odd_piece(it), ""};
        mn_buf_clear(&q);
        if (mn_store_fts_query(&q, terms, 3) > 0)
            bad += !accepted(q.ptr, text.ptr);
    }
    CHECK(bad == 0);
    CHECK(made > 1000); /* most texts hold a word */
    mn_buf_release(&text);
    mn_buf_release(&q);
}

/* How many rows match expr. */
static double count_of(const char *expr)
{
    sqlite3_stmt *st = NULL;
    double n = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM docs WHERE docs MATCH ?1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

/*
 * mnemo_bm25 is FTS5's bm25 with the phrases' idf optionally given: without
 * them (or with NULL) it counts them and equals bm25() row for row; given
 * the idf bm25 would count, the same again; another idf changes the score
 * of the rows holding that phrase only.
 */
static void test_mnemo_bm25(void)
{
    open_db("mnemo");
    add(1, "cart session", "the cart expires when the session ends");
    add(2, "session store", "sessions are kept in redis");
    add(3, "checkout", "the cart total includes taxes and the cart discount");
    add(4, "invoice", "nothing about it here");
    add(5, "cart", "cart cart cart");
    add(6, "shipping", "labels and carriers");
    add(7, "billing", "monthly statements");
    add(8, "search", "ranking by words");
    add(9, "tokens", "budget of the context");
    add(10, "index", "files and symbols");
    double n = 10, nc = count_of("\"cart\""), ns = count_of("\"session\"");
    CHECK(nc == 3 && ns == 2);
    double ic = log((n - nc + 0.5) / (nc + 0.5)), is = log((n - ns + 0.5) / (ns + 0.5));
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_prepare_v2(
                db,
                "SELECT rowid, bm25(docs, 3, 1), mnemo_bm25(docs, 3, 1), "
                "mnemo_bm25(docs, 3, 1, ?2, ?3), mnemo_bm25(docs, 3, 1, NULL, ?3), "
                "mnemo_bm25(docs, 3, 1, ?4, ?3) FROM docs WHERE docs MATCH ?1 ORDER BY rowid",
                -1, &st, NULL) == SQLITE_OK);
    sqlite3_bind_text(st, 1, "\"cart\" OR \"session\"", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 2, ic);
    sqlite3_bind_double(st, 3, is);
    sqlite3_bind_double(st, 4, 2 * ic);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        long id = (long)sqlite3_column_int64(st, 0);
        double want = sqlite3_column_double(st, 1);
        CHECK(want < 0);
        for (int col = 2; col <= 4; col++)
            CHECK(fabs(sqlite3_column_double(st, col) - want) < 1e-9 * fabs(want));
        double doubled = sqlite3_column_double(st, 5);
        if (id == 2) /* holds "session" only */
            CHECK(fabs(doubled - want) < 1e-9 * fabs(want));
        else /* holds "cart": scores more */
            CHECK(doubled < want - 1e-6);
        rows++;
    }
    CHECK(rows == 4);
    sqlite3_finalize(st);
}

MN_TEST_MAIN(MN_TEST(test_match_code_and_prose), MN_TEST(test_args),
             MN_TEST(test_bm25_and_highlight), MN_TEST(test_query_builder),
             MN_TEST(test_query_builder_odd_text), MN_TEST(test_mnemo_bm25))
