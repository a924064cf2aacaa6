/*
 * pg_search_code.c - store_search.h's code side on PostgreSQL: chunks,
 * file paths and file histories found and ranked by bm25 over the
 * postings of pg_postings.c (pg_fts.c), and the term counts of
 * store_terms.h.
 *
 * What search_store.c asks FTS5, answered the same way: the matching rows
 * scored with CHUNK_WEIGHTS (path, names, signature, doc, body; "%.4g" as
 * its SQL text has them) or weight 1 (files_fts, history_fts), best first,
 * ties by lower row id (the order FTS5 scans and SQLite's bounded sorter
 * keeps), then joined to their tables. The postings are this project's
 * alone, so SQLite's project filter after the ranking never drops a row
 * here; a row whose table row has gone is skipped, and the next ones
 * fill its place. Counts (N, df) are this project's too (pg_fts.c: why).
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"
#include "store/store_terms.h"

/* search_store.c's field weights: path, names, signature, doc, body */
static const double CHUNK_WEIGHTS[5] = {2.0, 4.0, 2.0, 1.5, 1.0};
static const double ONE_WEIGHT[1] = {1.0};

#define CHUNK_COLUMNS                                                                       \
    "c.id, c.file_id, coalesce(c.symbol_id, 0), c.start_line, c.end_line, f.path, f.role, " \
    "f.language, y.name, y.qualified_name, y.kind"

static size_t clamp_limit(size_t limit)
{
    if (limit == 0)
        return 50;
    return limit > MN_SEARCH_MAX_CANDIDATES ? MN_SEARCH_MAX_CANDIDATES : limit;
}

static int cmp_row(const void *a, const void *b)
{
    const mn_pg_fts_row *x = a, *y = b;
    if (x->score[0] != y->score[0])
        return x->score[0] > y->score[0] ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

/* The rows of table matching match, scored (score false: only matched), best first. */
static int ranked_rows(mn_store *s, mn_fts_table table, const char *match, const double *weights,
                       const double *defaults, size_t ncols, const double *idf, size_t nidf,
                       bool score, mn_pg_fts_rows *rows)
{
    mn_pg_fts *fq = NULL;
    int rc = mn_pg__fts_parse(match, &fq);
    if (rc)
        return rc;
    mn_pg_fts_opts o = {.table = table,
                        .from = INT64_MIN,
                        .to = INT64_MAX,
                        .score = score,
                        .ncols = ncols,
                        .nweights = 1,
                        .weights = {weights},
                        .defaults = {defaults},
                        .idf = idf,
                        .nidf = nidf};
    rc = mn_pg__fts_run(s, fq, &o, rows);
    mn_pg__fts_free(fq);
    if (rc == 0 && score && rows->len > 1)
        qsort(rows->items, rows->len, sizeof(mn_pg_fts_row), cmp_row);
    return rc;
}

/* Row ids of a result's column 0, sorted with their row numbers. */
typedef struct {
    int64_t id;
    int row;
} id_row;

static int cmp_id_row(const void *a, const void *b)
{
    const id_row *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Walk rows (best first) in batches: sql ($1 the ids, $2 the project) gives
 * each id found its table row (column 0 the id); emit(row) for each, in
 * the ranking's order, until `limit` were emitted.
 */
typedef int (*emit_fn)(mn_store *s, PGresult *r, int row, double score, void *ctx);

static int walk(mn_store *s, const mn_pg_fts_rows *rows, size_t limit, const char *sql,
                const char *what, emit_fn emit, void *ctx)
{
    size_t done = 0, batch = limit * 2 > 256 ? limit * 2 : 256;
    int rc = 0;
    for (size_t at = 0; at < rows->len && done < limit && rc == 0; at += batch) {
        size_t n = rows->len - at < batch ? rows->len - at : batch;
        int64_t *ids = mn_malloc(n * sizeof(int64_t));
        for (size_t i = 0; i < n; i++)
            ids[i] = rows->items[at + i].rowid;
        mn_pg_params p = {0};
        mn_pg__ids(&p, ids, n);
        mn_pg__int(&p, s->project_id);
        free(ids);
        PGresult *r = mn_pg__run(s, sql, &p, what);
        if (!r)
            return mn_error_last_code();
        int nr = pg(s)->pq->ntuples(r);
        id_row *ix = mn_malloc(((size_t)nr + 1) * sizeof(id_row));
        for (int i = 0; i < nr; i++)
            ix[i] = (id_row){mn_pg__col_int(s, r, i, 0), i};
        qsort(ix, (size_t)nr, sizeof(id_row), cmp_id_row);
        for (size_t i = 0; i < n && done < limit && rc == 0; i++) {
            id_row key = {rows->items[at + i].rowid, 0};
            const id_row *f = bsearch(&key, ix, (size_t)nr, sizeof(id_row), cmp_id_row);
            if (!f)
                continue;
            done++;
            rc = emit(s, r, f->row, rows->items[at + i].score[0], ctx);
        }
        free(ix);
        pg(s)->pq->clear(r);
    }
    return rc;
}

/* ---- chunks ---- */

typedef struct {
    mn_chunk_hit_cb cb;
    void *payload;
} chunk_ctx;

static int emit_chunk(mn_store *s, PGresult *r, int row, double score, void *ctx)
{
    chunk_ctx *c = ctx;
    mn_chunk_hit h;
    h.id = mn_pg__col_int(s, r, row, 0);
    h.file_id = mn_pg__col_int(s, r, row, 1);
    h.symbol_id = mn_pg__col_int(s, r, row, 2);
    h.start_line = mn_pg__col_int(s, r, row, 3);
    h.end_line = mn_pg__col_int(s, r, row, 4);
    h.path = mn_pg__col(s, r, row, 5);
    h.role = mn_pg__col(s, r, row, 6);
    h.language = mn_pg__col(s, r, row, 7);
    h.symbol = mn_pg__col(s, r, row, 8);
    h.qualified_name = mn_pg__col(s, r, row, 9);
    h.symbol_kind = mn_pg__col(s, r, row, 10);
    h.bm25 = score;
    return c->cb(c->payload, &h);
}

int mn_pg__search_chunks(mn_store *s, const mn_chunk_query *q, mn_chunk_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(q->nidf <= MN_SEARCH_MAX_PHRASES, MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    mn_pg_fts_rows rows = MN_VEC_INIT;
    chunk_ctx c = {cb, payload};
    int rc = ranked_rows(s, MN_FTS_CHUNKS, q->match, q->weights, CHUNK_WEIGHTS, 5, q->idf, q->nidf,
                         true, &rows);
    if (rc == 0)
        rc = walk(s, &rows, clamp_limit(q->limit),
                  "SELECT " CHUNK_COLUMNS " FROM chunks c JOIN files f ON f.id = c.file_id LEFT "
                  "JOIN symbols y ON y.id = c.symbol_id WHERE c.id = ANY ($1::bigint[]) AND "
                  "f.project_id = $2",
                  "cannot search code", emit_chunk, &c);
    mn_vec_release(&rows);
    return rc;
}

/* ---- file paths and histories ---- */

typedef struct {
    int (*cb)(void *payload, const mn_file_hit *h);
    void *payload;
} file_ctx;

/* columns: the ranked row's id, then the file's id, path, role */
static int emit_file(mn_store *s, PGresult *r, int row, double score, void *ctx)
{
    file_ctx *c = ctx;
    mn_file_hit h;
    h.id = mn_pg__col_int(s, r, row, 1);
    h.path = mn_pg__col(s, r, row, 2);
    h.role = mn_pg__col(s, r, row, 3);
    h.bm25 = score;
    return c->cb(c->payload, &h);
}

int mn_pg__search_files(mn_store *s, const char *match, size_t limit,
                        int (*cb)(void *payload, const mn_file_hit *h), void *payload)
{
    if (!match || !*match)
        return 0;
    mn_pg_fts_rows rows = MN_VEC_INIT;
    file_ctx c = {cb, payload};
    int rc = ranked_rows(s, MN_FTS_FILES, match, ONE_WEIGHT, ONE_WEIGHT, 1, NULL, 0, true, &rows);
    if (rc == 0)
        rc = walk(s, &rows, clamp_limit(limit),
                  "SELECT f.id, f.id, f.path, f.role FROM files f WHERE f.id = ANY ($1::bigint[]) "
                  "AND f.project_id = $2",
                  "cannot search file paths", emit_file, &c);
    mn_vec_release(&rows);
    return rc;
}

int mn_pg__history_files(mn_store *s, const char *match, size_t limit,
                         int (*cb)(void *payload, const mn_file_hit *h), void *payload)
{
    if (!match || !*match)
        return 0;
    if (limit == 0 || limit > MN_SEARCH_MAX_CANDIDATES)
        limit = MN_SEARCH_MAX_CANDIDATES;
    mn_pg_fts_rows rows = MN_VEC_INIT;
    file_ctx c = {cb, payload};
    int rc =
        ranked_rows(s, MN_PG_FTS_HISTORY, match, ONE_WEIGHT, ONE_WEIGHT, 1, NULL, 0, true, &rows);
    /* the documents of indexed files only */
    if (rc == 0)
        rc = walk(s, &rows, limit,
                  "SELECT d.id, f.id, f.path, f.role FROM history_docs d JOIN files f ON "
                  "f.project_id = d.project_id AND f.path = d.path WHERE d.id = ANY "
                  "($1::bigint[]) AND d.project_id = $2",
                  "cannot search the history", emit_file, &c);
    mn_vec_release(&rows);
    return rc;
}

/* ---- counts ---- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int mn_pg__term_files(mn_store *s, const char *match, size_t limit,
                      int (*cb)(void *payload, int64_t file_id, int64_t count), void *payload)
{
    /* the first `limit` matching chunks in row id order (FTS5's posting list order), per file */
    mn_pg_fts_rows rows = MN_VEC_INIT;
    int rc = ranked_rows(s, MN_FTS_CHUNKS, match, CHUNK_WEIGHTS, CHUNK_WEIGHTS, 5, NULL, 0, false,
                         &rows);
    if (rc || rows.len == 0)
        goto out;
    size_t n = limit && limit < rows.len ? limit : rows.len;
    int64_t *ids = mn_malloc(n * sizeof(int64_t));
    for (size_t i = 0; i < n; i++)
        ids[i] = rows.items[i].rowid;
    qsort(ids, n, sizeof(int64_t), cmp_i64);
    mn_pg_params p = {0};
    mn_pg__ids(&p, ids, n);
    mn_pg__int(&p, s->project_id);
    free(ids);
    PGresult *r = mn_pg__run(s,
                             "SELECT c.file_id, count(*) FROM chunks c JOIN files f ON f.id = "
                             "c.file_id WHERE c.id = ANY ($1::bigint[]) AND f.project_id = $2 "
                             "GROUP BY c.file_id ORDER BY c.file_id",
                             &p, "cannot count matches per file");
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    for (int i = 0; i < pg(s)->pq->ntuples(r) && rc == 0; i++)
        rc = cb(payload, mn_pg__col_int(s, r, i, 0), mn_pg__col_int(s, r, i, 1));
    pg(s)->pq->clear(r);
out:
    mn_vec_release(&rows);
    return rc;
}

int mn_pg__chunk_count(mn_store *s, int64_t *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)MN_FTS_CHUNKS);
    PGresult *r = mn_pg__run(s, "SELECT ndocs FROM fts_stats WHERE project_id = $1 AND tbl = $2",
                             &p, "cannot count chunks");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__chunk_term_df(mn_store *s, const char *term, size_t len, int64_t *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)MN_FTS_CHUNKS);
    mn_pg__take(&p, mn_strndup(term, len));
    PGresult *r = mn_pg__run(s,
                             "SELECT (SELECT count(DISTINCT rowid) FROM fts_postings WHERE "
                             "project_id = $1 AND tbl = $2 AND term = $3) + (SELECT "
                             "coalesce(sum(ndocs), 0) FROM fts_blocks WHERE project_id = $1 AND "
                             "tbl = $2 AND term = $3)",
                             &p, "cannot read term frequencies");
    if (!r)
        return mn_error_last_code();
    *out = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__chunk_df(mn_store *s, const char *const *terms, size_t n, int64_t *df, int64_t *ndocs)
{
    int rc = mn_pg__chunk_count(s, ndocs);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = mn_pg__chunk_term_df(s, terms[i], strlen(terms[i]), &df[i]);
    return rc;
}

int mn_pg__code_fts_optimize(mn_store *s)
{
    /* nothing to do: FTS5 merges its segments, PostgreSQL's b-trees need no merge */
    MN_UNUSED(s);
    return 0;
}
