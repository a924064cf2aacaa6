/*
 * pg_scan.c - every stored text outside the memories, read and rewritten
 * for `mnemo scan`, and the purge that leaves no dead copy in the tables
 * (store_scan.h), on PostgreSQL.
 *
 * The cells are sqlite/scan_store.c's, with one difference: a PostgreSQL
 * store is a server's, holding many teams' projects, so a scan reads and
 * rewrites the texts of its own project only (a project's admin must not
 * read another project's texts through a scan's findings). Feedback rows
 * belong to a project through their served answer; those whose answer was
 * pruned (served_id NULL) name no project and are left alone.
 *
 * Rewrites are collected per cell and applied after its SELECT, as on
 * SQLite. A rewritten text that the full-text index holds (a chunk's text,
 * its symbol's signature or docstring, a history document's subjects) gets
 * its postings again in the same transaction: SQLite's triggers or its
 * purge's 'rebuild' do the same there; without it a search would still
 * find the words a scan took out (the redacted secret's among them). The purge: PostgreSQL keeps an
 * updated row's old version in the table until VACUUM, so mn_pg__purge_freed runs VACUUM FULL on
 * every table that holds texts (each is written anew, dead versions dropped; it locks the table for
 * the time, every project's use of it waits), then asks for a CHECKPOINT (allowed to superusers and
 * pg_checkpoint members; without it the write-ahead log keeps old versions until PostgreSQL
 * recycles its segments, which the note of `mnemo scan` says).
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"
#include "store/store_scan.h"
#include "util/util.h"
#include "util/vec.h"

/* table, column, the condition that keeps a row to this project's ($1), and for a column a
 * unique index covers, the statement that deletes the row ($2) when its rewrite ($1) would
 * repeat a row the table holds already (two links whose targets differed only by a secret are
 * one link once it is redacted) */
#define MINE          "project_id = $1"
#define MINE_MEMORY   "src_id IN (SELECT id FROM memories WHERE project_id = $1)"
#define MINE_FEEDBACK "served_id IN (SELECT id FROM served WHERE project_id = $1)"
#define LINK_ONCE                                                                          \
    "DELETE FROM links l WHERE l.id = $2 AND EXISTS (SELECT 1 FROM links o WHERE o.id <> " \
    "l.id AND o.src_id = l.src_id AND o.kind = l.kind AND o.dst_ref = $1)"

static const struct {
    const char *table, *column, *mine, *once;
} cells[] = {
    {"chunks", "text", MINE, NULL},
    {"symbols", "name", MINE, NULL},
    {"symbols", "qualified_name", MINE, NULL},
    {"symbols", "signature", MINE, NULL},
    {"symbols", "docstring", MINE, NULL},
    {"history_commits", "subject", MINE, NULL},
    {"history_docs", "subjects", MINE, NULL},
    {"git_commits", "author", MINE, NULL},
    {"git_commits", "subject", MINE, NULL},
    {"git_commits", "body", MINE, NULL},
    {"served", "query", MINE, NULL},
    {"feedback", "note", MINE_FEEDBACK, NULL},
    {"feedback", "query", MINE_FEEDBACK, NULL},
    {"audit", "detail", MINE, NULL},
    {"links", "note", MINE_MEMORY, NULL},
    {"links", "dst_ref", MINE_MEMORY, LINK_ONCE},
    {"tasks", "title", MINE, NULL},
    {"tasks", "body", MINE, NULL},
    {"tasks", "url", MINE, NULL},
    {"tasks", "author", MINE, NULL},
    {"tasks", "labels", MINE, NULL},
    {"docs", "title", MINE, NULL},
    {"docs", "body", MINE, NULL},
    {"docs", "url", MINE, NULL},
    {"dialogs", "summary", MINE, NULL},
};

/* The tables a purge writes anew: the cells', the memories and their citations, and the
 * full-text postings when this store has them. */
static const char *const purged[] = {
    "memories", "citations",    "chunks",   "symbols",    "history_commits", "history_docs",
    "served",   "feedback",     "audit",    "links",      "tasks",           "docs",
    "dialogs",  "fts_postings", "fts_docs", "fts_blocks",
};

typedef struct {
    int64_t row;
    char *text;
} rewrite;

static int apply(mn_store *s, const char *table, const char *column, const char *once, rewrite *v,
                 size_t n)
{
    mn_buf sql = MN_BUF_INIT;
    int rc = 0;
    mn_buf_printf(&sql, "UPDATE %s SET %s = $1 WHERE id = $2", table, column);
    for (size_t i = 0; rc == 0 && i < n; i++)
        for (int k = once ? 0 : 1; rc == 0 && k < 2; k++) {
            mn_pg_params p = {0}; /* a run releases its parameters */
            mn_pg__text(&p, v[i].text);
            mn_pg__int(&p, v[i].row);
            rc = mn_pg__exec(s, k ? sql.ptr : once, &p, "cannot rewrite a stored text");
        }
    mn_buf_release(&sql);
    return rc;
}

/*
 * The postings of the chunks rewritten (chunks) and of the chunks of the
 * symbols rewritten (symbols), from their rows as they stand now: the
 * fields of chunks_fts_src (schema_v3.sql of SQLite) computed alike.
 */
static int refresh_chunks(mn_store *s, const int64_t *chunks, size_t nchunks,
                          const int64_t *symbols, size_t nsymbols)
{
    if (nchunks == 0 && nsymbols == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__ids(&p, chunks, nchunks);
    mn_pg__ids(&p, symbols, nsymbols);
    PGresult *r = mn_pg__run(
        s,
        "SELECT c.id, f.path, CASE WHEN y.id IS NULL THEN NULL WHEN y.qualified_name = y.name "
        "THEN y.name ELSE y.name || ' ' || y.qualified_name END, y.signature, y.docstring, "
        "c.text FROM chunks c LEFT JOIN files f ON f.id = c.file_id LEFT JOIN symbols y ON "
        "y.id = c.symbol_id WHERE c.project_id = $1 AND (c.id = ANY ($2::bigint[]) OR "
        "c.symbol_id = ANY ($3::bigint[])) ORDER BY c.id",
        &p, "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    size_t n = (size_t)pg(s)->pq->ntuples(r);
    int64_t *ids = mn_malloc((n + 1) * sizeof(int64_t));
    const char **fields = mn_calloc(n * 5 + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        ids[i] = mn_pg__col_int(s, r, (int)i, 0);
        for (int f = 0; f < 5; f++)
            fields[i * 5 + (size_t)f] = mn_pg__col(s, r, (int)i, f + 1);
    }
    int rc = mn_pg__postings_del_rows(s, MN_FTS_CHUNKS, ids, n);
    /* in statements of 512 rows, as the history's */
    for (size_t at = 0; at < n && rc == 0; at += 512)
        rc = mn_pg__postings_put_rows(s, MN_FTS_CHUNKS, n - at < 512 ? n - at : 512, ids + at,
                                      fields + at * 5, NULL, 5);
    pg(s)->pq->clear(r);
    free(ids);
    free(fields);
    return rc;
}

int mn_pg__texts_each(mn_store *s,
                      int (*cb)(void *payload, const mn_text_cell *c, const char *text, size_t len,
                                char **replace),
                      void *payload)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int rc = 0;
    MN_VEC(int64_t) chunks = MN_VEC_INIT, symbols = MN_VEC_INIT;
    bool history = false;
    for (size_t t = 0; t < MN_ARRAY_SIZE(cells) && rc == 0; t++) {
        mn_buf sql = MN_BUF_INIT;
        MN_VEC(rewrite) todo = MN_VEC_INIT;
        mn_text_cell c = {cells[t].table, cells[t].column, 0};
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        mn_buf_printf(&sql,
                      "SELECT id, %s FROM %s WHERE %s AND %s IS NOT NULL AND %s <> '' ORDER "
                      "BY id",
                      c.column, c.table, cells[t].mine, c.column, c.column);
        PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot read stored texts");
        mn_buf_release(&sql);
        if (!r) {
            rc = mn_error_last_code();
            break;
        }
        int n = pg(s)->pq->ntuples(r);
        for (int i = 0; i < n && rc == 0; i++) {
            char *repl = NULL;
            const char *text = mn_pg__col(s, r, i, 1);
            c.row = mn_pg__col_int(s, r, i, 0);
            rc = cb(payload, &c, text ? text : "", text ? strlen(text) : 0, &repl);
            if (repl) {
                rewrite w = {c.row, repl};
                mn_vec_push(&todo, w);
            }
        }
        pg(s)->pq->clear(r);
        if (rc == 0 && todo.len)
            rc = apply(s, c.table, c.column, cells[t].once, todo.items, todo.len);
        for (size_t i = 0; rc == 0 && i < todo.len; i++) {
            if (strcmp(c.table, "chunks") == 0)
                mn_vec_push(&chunks, todo.items[i].row);
            else if (strcmp(c.table, "symbols") == 0)
                mn_vec_push(&symbols, todo.items[i].row);
            else if (strcmp(c.table, "history_docs") == 0)
                history = true;
        }
        for (size_t i = 0; i < todo.len; i++)
            free(todo.items[i].text);
        mn_vec_release(&todo);
    }
    if (rc == 0)
        rc = refresh_chunks(s, chunks.items, chunks.len, symbols.items, symbols.len);
    if (rc == 0 && history)
        rc = mn_pg__postings_history(s);
    mn_vec_release(&chunks);
    mn_vec_release(&symbols);
    return rc;
}

/* One statement outside any transaction (VACUUM cannot run in one, nor prepared): 0, or the
 * SQLSTATE's first two characters compared by the caller through *state. */
static int plain(mn_store *s, const char *sql, char state[6])
{
    const mn_pq_api *pq = pg(s)->pq;
    PGresult *r = pq->exec(pg(s)->conn, sql);
    int rc = 0;
    state[0] = 0;
    if (pq->resultStatus(r) != PGRES_COMMAND_OK) {
        const char *code = pq->resultErrorField(r, PG_DIAG_SQLSTATE);
        const char *msg = pq->resultErrorMessage(r);
        snprintf(state, 6, "%s", code ? code : "");
        size_t len = msg ? strcspn(msg, "\n") : 0;
        rc =
            mn_error_set(pq->status(pg(s)->conn) == CONNECTION_BAD ? MN_EUNAVAILABLE : MN_EIO,
                         "cannot purge old texts in '%s': %.*s", s->path, (int)len, msg ? msg : "");
    }
    pq->clear(r);
    return rc;
}

int mn_pg__purge_freed(mn_store *s)
{
    MN_ASSERT_OR(!pg(s)->in_tx, MN_EINTERNAL);
    char state[6];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < MN_ARRAY_SIZE(purged); i++) {
        /* a table of another part of the schema this store does not have is skipped */
        mn_pg_params p = {0};
        mn_pg__text(&p, purged[i]);
        PGresult *r =
            mn_pg__run(s, "SELECT to_regclass($1) IS NOT NULL", &p, "cannot purge old texts");
        if (!r)
            return mn_error_last_code();
        bool there = mn_pg__col(s, r, 0, 0)[0] == 't';
        pg(s)->pq->clear(r);
        if (!there)
            continue;
        mn_buf sql = MN_BUF_INIT;
        mn_buf_printf(&sql, "VACUUM (FULL) %s", purged[i]);
        rc = plain(s, sql.ptr, state);
        mn_buf_release(&sql);
    }
    /* insufficient privilege (42501) is no failure: the log's old segments go in time */
    if (rc == 0 && plain(s, "CHECKPOINT", state) != 0 && strcmp(state, "42501") != 0)
        rc = mn_error_last_code();
    return rc;
}
