/*
 * eval_bm25.c - the plain BM25 baseline every dataset bench prints next to
 * mnemo's numbers: SQLite FTS5 with tokenize='unicode61' (its defaults:
 * Unicode letters and digits are token characters, case folded, diacritics
 * removed; no stemming, no stop words, no code-aware splitting), in an
 * in-memory database, ranked by FTS5's bm25() (k1 = 1.2, b = 0.75, every
 * column weight 1).
 *
 * The query is the text's distinct tokens, as the unicode61 tokenizer
 * itself produces them (through the fts5_api, so the query and the
 * documents are tokenized by the same code), each double-quoted and joined
 * with OR, in order of first occurrence, optionally capped to the first
 * max_tokens. Ties in bm25() are broken by rowid so the runs are
 * reproducible.
 *
 * Documents are inserted in one transaction that the first search commits
 * (one FTS5 segment instead of one per row).
 */
#include "common.h"
#include <sqlite3.h>

#include "eval.h"
#include "util/map.h"

struct ev_bm25 {
    sqlite3 *db;
    sqlite3_stmt *insert, *search;
    fts5_tokenizer tok_api;
    Fts5Tokenizer *tok;
    size_t ncols;
    bool in_tx;
};

static int fail(ev_bm25 *b, const char *what)
{
    fprintf(stderr, "bm25 baseline: %s: %s\n", what, b->db ? sqlite3_errmsg(b->db) : "no db");
    return -1;
}

static fts5_api *fts5_api_of(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    return api;
}

int ev_bm25_open(ev_bm25 **out, size_t ncols)
{
    ev_bm25 *b = mn_calloc(1, sizeof(*b));
    mn_buf sql = MN_BUF_INIT;
    int rc = -1;
    b->ncols = ncols;
    if (ncols < 1 || ncols > 8 || sqlite3_open(":memory:", &b->db) != SQLITE_OK) {
        fail(b, "cannot open an in-memory database");
        goto out;
    }
    mn_buf_puts(&sql, "CREATE VIRTUAL TABLE docs USING fts5(");
    for (size_t i = 0; i < ncols; i++)
        mn_buf_printf(&sql, "c%zu, ", i);
    mn_buf_puts(&sql, "tokenize='unicode61')");
    if (sqlite3_exec(b->db, sql.ptr, NULL, NULL, NULL) != SQLITE_OK) {
        fail(b, "cannot create the FTS5 table (is FTS5 compiled in?)");
        goto out;
    }
    mn_buf_clear(&sql);
    mn_buf_puts(&sql, "INSERT INTO docs(rowid");
    for (size_t i = 0; i < ncols; i++)
        mn_buf_printf(&sql, ", c%zu", i);
    mn_buf_puts(&sql, ") VALUES (?1");
    for (size_t i = 0; i < ncols; i++)
        mn_buf_printf(&sql, ", ?%zu", i + 2);
    mn_buf_puts(&sql, ")");
    if (sqlite3_prepare_v2(b->db, sql.ptr, -1, &b->insert, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(b->db,
                           "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rank, rowid "
                           "LIMIT ?2",
                           -1, &b->search, NULL) != SQLITE_OK) {
        fail(b, "cannot prepare");
        goto out;
    }
    fts5_api *api = fts5_api_of(b->db);
    void *ud = NULL;
    if (!api || api->xFindTokenizer(api, "unicode61", &ud, &b->tok_api) != SQLITE_OK ||
        b->tok_api.xCreate(ud, NULL, 0, &b->tok) != SQLITE_OK) {
        fail(b, "cannot get the unicode61 tokenizer");
        goto out;
    }
    rc = 0;
out:
    mn_buf_release(&sql);
    if (rc) {
        ev_bm25_close(b);
        b = NULL;
    }
    *out = b;
    return rc;
}

void ev_bm25_close(ev_bm25 *b)
{
    if (!b)
        return;
    if (b->tok)
        b->tok_api.xDelete(b->tok);
    sqlite3_finalize(b->insert);
    sqlite3_finalize(b->search);
    sqlite3_close(b->db);
    free(b);
}

int ev_bm25_add(ev_bm25 *b, int64_t id, const char *const *cols)
{
    if (!b->in_tx) {
        if (sqlite3_exec(b->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
            return fail(b, "begin");
        b->in_tx = true;
    }
    sqlite3_bind_int64(b->insert, 1, id);
    for (size_t i = 0; i < b->ncols; i++)
        sqlite3_bind_text(b->insert, (int)i + 2, cols[i] ? cols[i] : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(b->insert);
    sqlite3_reset(b->insert);
    sqlite3_clear_bindings(b->insert);
    return rc == SQLITE_DONE ? 0 : fail(b, "insert");
}

typedef struct {
    mn_buf *out;
    mn_map seen;
    size_t n, max;
    mn_buf tmp;
} query_build;

static int on_token(void *payload, int flags, const char *tok, int len, int start, int end)
{
    query_build *q = payload;
    MN_UNUSED(flags);
    MN_UNUSED(start);
    MN_UNUSED(end);
    if (len <= 0 || (q->max && q->n >= q->max))
        return SQLITE_OK;
    mn_buf_clear(&q->tmp);
    mn_buf_put(&q->tmp, tok, (size_t)len);
    if (mn_map_has(&q->seen, q->tmp.ptr))
        return SQLITE_OK;
    mn_map_set(&q->seen, q->tmp.ptr, NULL);
    /* unicode61 tokens never hold '"' (a separator), so quoting needs no escape */
    mn_buf_printf(q->out, "%s\"%s\"", q->n ? " OR " : "", q->tmp.ptr);
    q->n++;
    return SQLITE_OK;
}

int ev_bm25_query_text(ev_bm25 *b, mn_buf *out, const char *text, size_t max_tokens,
                       size_t *ntokens)
{
    query_build q = {out, MN_MAP_INIT, 0, max_tokens, MN_BUF_INIT};
    size_t len = strlen(text);
    mn_buf_clear(out);
    int rc = b->tok_api.xTokenize(b->tok, &q, FTS5_TOKENIZE_QUERY, text,
                                  len > INT32_MAX ? INT32_MAX : (int)len, on_token);
    mn_map_release(&q.seen);
    mn_buf_release(&q.tmp);
    if (ntokens)
        *ntokens = q.n;
    return rc == SQLITE_OK ? 0 : fail(b, "tokenize");
}

int ev_bm25_search(ev_bm25 *b, const char *text, size_t max_tokens, size_t k, int64_t *ids,
                   size_t *n)
{
    mn_buf q = MN_BUF_INIT;
    int rc = 0;
    *n = 0;
    if (b->in_tx) {
        if (sqlite3_exec(b->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            return fail(b, "commit");
        b->in_tx = false;
    }
    if ((rc = ev_bm25_query_text(b, &q, text, max_tokens, NULL)) != 0 || q.len == 0)
        goto out;
    sqlite3_bind_text(b->search, 1, q.ptr, (int)q.len, SQLITE_STATIC);
    sqlite3_bind_int64(b->search, 2, (sqlite3_int64)k);
    int st;
    while ((st = sqlite3_step(b->search)) == SQLITE_ROW && *n < k)
        ids[(*n)++] = sqlite3_column_int64(b->search, 0);
    if (st != SQLITE_ROW && st != SQLITE_DONE)
        rc = fail(b, "search");
    sqlite3_reset(b->search);
out:
    mn_buf_release(&q);
    return rc;
}
