/*
 * pg_search.c - store_search.h's memory side on PostgreSQL: full-text
 * candidates ranked by bm25 (pg_fts.c over the postings of pg_postings.c)
 * and the memory lookups that ranking uses.
 *
 * search_memories does what sqlite/search_store.c asks of FTS5, pass for
 * pass, so that both back ends give the same memories in the same order:
 *  1. every matching row (in the newest share when q->newest asks) scored
 *     twice, with the query's weights and with DERIVED_WEIGHTS; the best
 *     `inner` = 1.5 * limit + 50 (at most MN_SEARCH_MAX_CANDIDATES) by the
 *     first score (ties: lower row id first, the order FTS5 scans and
 *     SQLite's bounded sorter keeps); those rows read with the filters,
 *     ordered by their score (the derived one for a memory whose title
 *     starts its body), the ones passing reported;
 *  2. when fewer than `limit` passed and there were `inner` or more
 *     matches: the best `limit` rows that pass the filters by that score
 *     (read in batches down the ranking), those not reported yet.
 * Weights are those of search_store.c (MEMORY_WEIGHTS, DERIVED_WEIGHTS),
 * rounded as its SQL text rounds them.
 */
#include "common.h"
#include <math.h>

#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"

/* search_store.c's field weights: title, keywords, body, context */
static const double MEMORY_WEIGHTS[4] = {4.0, 3.0, 1.0, 1.5};
static const double DERIVED_WEIGHTS[4] = {0, 0, 1.0, 1.5};

#define MEMORY_NCOLUMNS 17

void mn_pg__memory_hit_read(mn_store *s, const PGresult *r, int row, mn_memory_hit *h)
{
    h->rowid = mn_pg__col_int(s, r, row, 0);
    h->uid = mn_pg__col(s, r, row, 1);
    h->kind = mn_pg__col(s, r, row, 2);
    h->status = mn_pg__col(s, r, row, 3);
    h->title = mn_pg__col(s, r, row, 4);
    h->level = (int)mn_pg__col_int(s, r, row, 5);
    h->created_at = mn_pg__col_int(s, r, row, 6);
    h->updated_at = mn_pg__col_int(s, r, row, 7);
    h->hits = mn_pg__col_int(s, r, row, 8);
    h->used = mn_pg__col_int(s, r, row, 9);
    h->ignored = mn_pg__col_int(s, r, row, 10);
    h->scope_paths = mn_pg__col(s, r, row, 11);
    h->scope_symbols = mn_pg__col(s, r, row, 12);
    const char *v = mn_pg__col(s, r, row, 13);
    h->stale = v && *v == 't';
    h->conversation = mn_pg__col(s, r, row, 14);
    v = mn_pg__col(s, r, row, 15);
    h->summary = v && *v == 't';
    h->accessed_at = mn_pg__col_int(s, r, row, 16);
    h->bm25 = 0;
}

static size_t inner_limit(size_t limit)
{
    size_t inner = limit + limit / 2 + 50;
    return inner > MN_SEARCH_MAX_CANDIDATES ? MN_SEARCH_MAX_CANDIDATES : inner;
}

static size_t clamp_limit(size_t limit)
{
    if (limit == 0)
        return 50;
    return limit > MN_SEARCH_MAX_CANDIDATES ? MN_SEARCH_MAX_CANDIDATES : limit;
}

static bool memory_query_valid(const mn_memory_query *q)
{
    return q->nkinds <= MN_SEARCH_MAX_FILTER && q->nlevels <= 4 &&
           q->nstatuses <= MN_SEARCH_MAX_FILTER && q->ntags <= MN_SEARCH_MAX_FILTER &&
           q->npaths <= MN_SEARCH_MAX_FILTER;
}

/*
 * SQLite's GLOB as a PostgreSQL regular expression (anchored): '*' any run,
 * '?' one character, [...] a class ([^...] its complement), case-sensitive;
 * everything else literal.
 */
static char *glob_regex(const char *g)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_putc(&b, '^');
    for (const char *c = g; *c; c++) {
        if (*c == '*') {
            mn_buf_puts(&b, ".*");
        } else if (*c == '?') {
            mn_buf_putc(&b, '.');
        } else if (*c == '[' && strchr(c + 2, ']')) {
            const char *e = c + 1;
            mn_buf_putc(&b, '[');
            if (*e == '^') {
                mn_buf_putc(&b, '^');
                e++;
            }
            if (*e == ']') { /* a ']' first is literal */
                mn_buf_puts(&b, "\\]");
                e++;
            }
            for (; *e && *e != ']'; e++) {
                if (*e == '\\' || *e == '[')
                    mn_buf_putc(&b, '\\');
                mn_buf_putc(&b, *e);
            }
            mn_buf_putc(&b, ']');
            c = *e ? e : e - 1;
        } else {
            if (strchr(".^$+(){}|\\[]", *c))
                mn_buf_putc(&b, '\\');
            mn_buf_putc(&b, *c);
        }
    }
    mn_buf_putc(&b, '$');
    return mn_buf_detach(&b);
}

/* The filters of a memory query as SQL over alias m, its parameters appended to p. */
static void filter_sql(mn_store *s, mn_buf *b, mn_pg_params *p, const mn_memory_query *q)
{
    mn_pg__int(p, s->project_id);
    mn_buf_printf(b, "m.project_id = $%d AND m.deleted_at IS NULL", p->n);
    if (q->nkinds) {
        mn_buf_puts(b, " AND m.kind IN (");
        for (size_t i = 0; i < q->nkinds; i++) {
            mn_pg__text(p, q->kinds[i]);
            mn_buf_printf(b, "%s$%d", i ? ", " : "", p->n);
        }
        mn_buf_putc(b, ')');
    }
    if (q->nlevels) {
        mn_buf_puts(b, " AND m.level IN (");
        for (size_t i = 0; i < q->nlevels; i++) {
            mn_pg__int(p, q->levels[i]);
            mn_buf_printf(b, "%s$%d", i ? ", " : "", p->n);
        }
        mn_buf_putc(b, ')');
    }
    if (q->nstatuses) {
        mn_buf_puts(b, " AND m.status IN (");
        for (size_t i = 0; i < q->nstatuses; i++) {
            mn_pg__text(p, q->statuses[i]);
            mn_buf_printf(b, "%s$%d", i ? ", " : "", p->n);
        }
        mn_buf_putc(b, ')');
    }
    if (q->ntags) {
        mn_buf_puts(b, " AND m.id IN (SELECT memory_id FROM memory_tags WHERE tag IN (");
        for (size_t i = 0; i < q->ntags; i++) {
            mn_pg__text(p, q->tags[i]);
            mn_buf_printf(b, "%s$%d", i ? ", " : "", p->n);
        }
        mn_buf_puts(b, "))");
    }
    if (q->npaths) {
        mn_buf_puts(b, " AND (");
        if (q->paths_keep_l0)
            mn_buf_puts(b, "m.level = 0 OR ");
        mn_buf_puts(b, "EXISTS (SELECT 1 FROM memory_paths mp WHERE mp.memory_id = m.id AND (");
        for (size_t i = 0; i < q->npaths; i++) {
            mn_pg__take(p, glob_regex(q->paths[i]));
            mn_buf_printf(b, "%smp.path ~ $%d", i ? " OR " : "", p->n);
        }
        mn_buf_puts(b, ")))");
    }
    if (q->expiry.at) {
        /* life_store.c's expiry (mn_sqlite__expired_sql): only a live status expires */
        const mn_expiry *e = &q->expiry;
        mn_pg__int(p, e->at);
        mn_buf_printf(b,
                      " AND %s(m.status IN ('active', 'pending') AND ((m.expires_at IS NOT NULL "
                      "AND m.expires_at <= $%d)",
                      e->only ? "" : "NOT ", p->n);
        for (size_t k = 0; k < MN_MEMORY_KINDS; k++)
            if (e->kind_ttl_ms[k] > 0) {
                mn_pg__int(p, e->at - e->kind_ttl_ms[k]);
                mn_buf_printf(b,
                              " OR (m.kind = '%s' AND greatest(coalesce(m.saved_at, 0), "
                              "m.updated_at, coalesce(m.accessed_at, 0)) <= $%d)",
                              mn_memory_kinds[k], p->n);
            }
        mn_buf_puts(b, "))");
    }
}

/*
 * The memory rows of ids: with the filters as a last column ("t"/"f"), or
 * (filtered) only those passing. The caller clears the result.
 */
static PGresult *memory_rows(mn_store *s, const mn_memory_query *q, const int64_t *ids, size_t n,
                             bool filtered)
{
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_pg__ids(&p, ids, n);
    mn_buf_puts(&sql, "SELECT " MN_PG_MEMORY_COLUMNS);
    if (filtered) {
        mn_buf_puts(&sql, " FROM memories m WHERE m.id = ANY ($1::bigint[]) AND ");
        filter_sql(s, &sql, &p, q);
    } else {
        mn_buf_puts(&sql, ", (");
        filter_sql(s, &sql, &p, q);
        mn_buf_puts(&sql, ") FROM memories m WHERE m.id = ANY ($1::bigint[])");
    }
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot search memories");
    mn_buf_release(&sql);
    return r;
}

/* Row ids of a result (column 0) sorted with their row numbers, to find a row by id. */
typedef struct {
    int64_t id;
    int row;
} id_row;

static int cmp_id_row(const void *a, const void *b)
{
    const id_row *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static id_row *index_rows(mn_store *s, const PGresult *r, int *n)
{
    *n = pg(s)->pq->ntuples(r);
    id_row *ix = mn_malloc(((size_t)*n + 1) * sizeof(id_row));
    for (int i = 0; i < *n; i++)
        ix[i] = (id_row){mn_pg__col_int(s, r, i, 0), i};
    qsort(ix, (size_t)*n, sizeof(id_row), cmp_id_row);
    return ix;
}

static int find_row(const id_row *ix, int n, int64_t id)
{
    id_row key = {id, 0};
    const id_row *f = bsearch(&key, ix, (size_t)n, sizeof(id_row), cmp_id_row);
    return f ? f->row : -1;
}

/* ---- ranking ---- */

typedef struct {
    int64_t rowid;
    double score, s; /* s: the score the row is finally ranked by */
    size_t order;    /* its place by score (pass 1's ties) */
} ranked;

static int cmp_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

/* by s, then by the place the row had (a stable sort of pass 1's rows) */
static int cmp_s_order(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->s != y->s)
        return x->s > y->s ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_s_rowid(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->s != y->s)
        return x->s > y->s ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static bool in_set(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/*
 * The row id of this project's k-th newest row of a table (0: the newest), or with share > 0
 * of its row at rank floor(share x rows) (k is then read from fts_stats in the same
 * statement); 0 when there is none.
 */
static int nth_newest(mn_store *s, mn_fts_table table, double share, int64_t k, int64_t *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__real(&p, share);
    mn_pg__int(&p, k);
    PGresult *r =
        mn_pg__run(s,
                   "SELECT rowid FROM fts_docs WHERE project_id = $1 AND tbl = $2 ORDER BY "
                   "rowid DESC OFFSET CASE WHEN $3::float8 > 0 THEN floor($3::float8 * "
                   "coalesce((SELECT ndocs FROM fts_stats WHERE project_id = $1 AND tbl = "
                   "$2), 0))::bigint ELSE $4::bigint END LIMIT 1",
                   &p, "cannot read the full-text index");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__fts_stats(mn_store *s, mn_fts_table table, mn_pg_fts_stats *out)
{
    if (pg(s)->read_tx && pg(s)->stats.tx == pg(s)->read_tx && pg(s)->stats.table == (int)table &&
        pg(s)->stats.project == s->project_id) {
        *out = pg(s)->stats.v;
        return 0;
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    PGresult *r = mn_pg__run(s,
                             "SELECT ndocs, ntok, (SELECT max(rowid) FROM fts_docs WHERE "
                             "project_id = $1 AND tbl = $2), gen FROM fts_stats WHERE "
                             "project_id = $1 AND tbl = $2",
                             &p, "cannot read the full-text index");
    if (!r)
        return mn_error_last_code();
    /* no stats row: nothing written since the table was cleared */
    *out = (mn_pg_fts_stats){0, 0, 0, -1};
    if (pg(s)->pq->ntuples(r) == 1) {
        out->ndocs = mn_pg__col_int(s, r, 0, 0);
        out->ntok = mn_pg__col_int(s, r, 0, 1);
        out->top = mn_pg__col_int(s, r, 0, 2);
        out->gen = mn_pg__col_int(s, r, 0, 3);
    }
    pg(s)->pq->clear(r);
    pg(s)->stats.tx = pg(s)->read_tx;
    pg(s)->stats.table = (int)table;
    pg(s)->stats.project = s->project_id;
    pg(s)->stats.v = *out;
    return 0;
}

/*
 * This project's rows of a table; the cuts kept for the table (mn_pg_store.slice_cuts),
 * forgotten when the table's write count (fts_stats.gen), size or highest row id moved: the
 * rows' ranks may have moved then. Under the project's write lock row ids are drawn in commit
 * order, so the size and top alone would do; the count also holds if they ever are not (a
 * sequence cached per session, a writer outside the lock), at no cost: every write already
 * updates the stats row.
 */
static int table_size(mn_store *s, mn_fts_table table, int64_t *rows, mn_pg_slice_cuts **kept)
{
    MN_ASSERT_OR((size_t)table < MN_ARRAY_SIZE(pg(s)->slice_cuts), MN_EINTERNAL);
    mn_pg_fts_stats st;
    int rc = mn_pg__fts_stats(s, table, &st);
    if (rc)
        return rc;
    *rows = st.ndocs;
    mn_pg_slice_cuts *k = &pg(s)->slice_cuts[table];
    if (k->project != s->project_id || k->at.top != st.top || k->at.ndocs != st.ndocs ||
        k->at.gen != st.gen || st.gen < 0) {
        memset(k, 0, sizeof(*k));
        k->project = s->project_id;
        k->at = st;
    }
    *kept = k;
    return 0;
}

/*
 * The lowest row id of the newest `share` of this project's rows of a table: the row at rank
 * floor(share x rows) from the newest (search_store.c newest_cut). By rank, not from the
 * lowest and highest row id: the row ids of a database's projects come from one sequence and
 * interleave when they write at once, so a range took nearly every row. One index scan of
 * that many entries (2.6 ms at 20,000), kept while the table's size and highest row id stay.
 */
static int newest_cut(mn_store *s, mn_fts_table table, double share, int64_t *cut)
{
    *cut = 0;
    if (!(share > 0 && share < 1))
        return 0;
    int64_t rows;
    mn_pg_slice_cuts *kept;
    int rc = table_size(s, table, &rows, &kept);
    if (rc)
        return rc;
    int64_t rank = (int64_t)floor(share * (double)rows);
    if (kept->rank_cut && kept->rank == rank) {
        *cut = kept->rank_cut;
        return 0;
    }
    if ((rc = nth_newest(s, table, 0, rank, cut)) == 0) {
        kept->rank = rank;
        kept->rank_cut = *cut;
    }
    return rc;
}

/* The matching rows of q->match (from `from` on), scored with both weight sets. */
static int memory_matches(mn_store *s, const mn_memory_query *q, const mn_pg_fts *fq, int64_t from,
                          bool score, mn_pg_fts_rows *rows)
{
    mn_pg_fts_opts o = {.table = MN_FTS_MEMORIES,
                        .from = from,
                        .to = INT64_MAX,
                        .score = score,
                        .ncols = 4,
                        .nweights = 2,
                        .weights = {q->weights, DERIVED_WEIGHTS},
                        .defaults = {MEMORY_WEIGHTS, DERIVED_WEIGHTS},
                        .idf = q->idf,
                        .nidf = q->nidf};
    return mn_pg__fts_run(s, fq, &o, rows);
}

int mn_pg__search_memories(mn_store *s, const mn_memory_query *q, mn_memory_hit_cb cb,
                           void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q) && q->nidf <= MN_SEARCH_MAX_PHRASES, MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    size_t limit = clamp_limit(q->limit), inner = inner_limit(limit), ndone = 0;
    mn_pg_fts *fq = NULL;
    mn_pg_fts_rows rows = MN_VEC_INIT;
    ranked *rk = NULL;
    int64_t *done = mn_malloc(limit * sizeof(int64_t)), cut = 0;
    PGresult *r = NULL;
    id_row *ix = NULL;
    int rc = mn_pg__fts_parse(q->match, &fq);
    if (rc == 0)
        rc = newest_cut(s, MN_FTS_MEMORIES, q->newest, &cut);
    if (rc == 0)
        rc = memory_matches(s, q, fq, cut > 0 ? cut : INT64_MIN, true, &rows);
    if (rc || rows.len == 0)
        goto out;
    rk = mn_malloc(rows.len * sizeof(ranked));
    for (size_t i = 0; i < rows.len; i++) {
        const mn_pg_fts_row *w = &rows.items[i];
        rk[i] = (ranked){w->rowid, w->score[0], (w->flags & 1) ? w->score[1] : w->score[0], 0};
    }
    /* pass 1: the best `inner` by the query's weights, then the filters, by final score */
    qsort(rk, rows.len, sizeof(ranked), cmp_score);
    size_t top = rows.len < inner ? rows.len : inner;
    bool saturated = rows.len >= inner;
    int64_t *ids = mn_malloc(top * sizeof(int64_t));
    for (size_t i = 0; i < top; i++) {
        rk[i].order = i;
        ids[i] = rk[i].rowid;
    }
    r = memory_rows(s, q, ids, top, false);
    free(ids);
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    ranked *first = mn_malloc(top * sizeof(ranked));
    memcpy(first, rk, top * sizeof(ranked));
    qsort(first, top, sizeof(ranked), cmp_s_order);
    int nix;
    ix = index_rows(s, r, &nix);
    for (size_t i = 0; i < top && ndone < limit && rc == 0; i++) {
        int row = find_row(ix, nix, first[i].rowid);
        const char *pass = row >= 0 ? mn_pg__col(s, r, row, MEMORY_NCOLUMNS) : NULL;
        if (!pass || *pass != 't')
            continue;
        mn_memory_hit h;
        mn_pg__memory_hit_read(s, r, row, &h);
        h.bm25 = first[i].s;
        done[ndone++] = h.rowid;
        rc = cb(payload, &h);
    }
    free(first);
    free(ix);
    ix = NULL;
    pg(s)->pq->clear(r);
    r = NULL;
    if (rc || ndone >= limit || !saturated)
        goto out;
    /* pass 2: the best `limit` rows passing the filters, by final score; those not reported */
    qsort(rk, rows.len, sizeof(ranked), cmp_s_rowid);
    size_t kept = 0, batch = limit * 2 > 256 ? limit * 2 : 256;
    for (size_t at = 0; at < rows.len && kept < limit && ndone < limit && rc == 0; at += batch) {
        size_t n = rows.len - at < batch ? rows.len - at : batch;
        ids = mn_malloc(n * sizeof(int64_t));
        for (size_t i = 0; i < n; i++)
            ids[i] = rk[at + i].rowid;
        r = memory_rows(s, q, ids, n, true);
        free(ids);
        if (!r) {
            rc = mn_error_last_code();
            break;
        }
        ix = index_rows(s, r, &nix);
        for (size_t i = 0; i < n && kept < limit && ndone < limit && rc == 0; i++) {
            int row = find_row(ix, nix, rk[at + i].rowid);
            if (row < 0)
                continue;
            kept++;
            if (in_set(done, ndone, rk[at + i].rowid))
                continue;
            mn_memory_hit h;
            mn_pg__memory_hit_read(s, r, row, &h);
            h.bm25 = rk[at + i].s;
            done[ndone++] = h.rowid;
            rc = cb(payload, &h);
        }
        free(ix);
        ix = NULL;
        pg(s)->pq->clear(r);
        r = NULL;
    }
out:
    if (r)
        pg(s)->pq->clear(r);
    free(ix);
    free(rk);
    free(done);
    mn_vec_release(&rows);
    mn_pg__fts_free(fq);
    return rc;
}

int mn_pg__conversation_counts(mn_store *s, const mn_memory_query *q,
                               int (*cb)(void *payload, const char *conversation, int64_t n),
                               void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    if (!q->match || !*q->match)
        return 0;
    mn_pg_fts *fq = NULL;
    mn_pg_fts_rows rows = MN_VEC_INIT;
    int rc = mn_pg__fts_parse(q->match, &fq);
    if (rc == 0)
        rc = memory_matches(s, q, fq, INT64_MIN, false, &rows);
    if (rc || rows.len == 0)
        goto out;
    int64_t *ids = mn_malloc(rows.len * sizeof(int64_t));
    for (size_t i = 0; i < rows.len; i++)
        ids[i] = rows.items[i].rowid;
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_pg__ids(&p, ids, rows.len);
    free(ids);
    mn_buf_puts(&sql, "SELECT CASE WHEN m.kind = 'episode' THEN coalesce('s:' || "
                      "nullif(m.session_ref, ''), 'd:' || nullif(m.situation, '')) END AS conv, "
                      "count(*) FROM memories m WHERE m.id = ANY ($1::bigint[]) AND m.kind = "
                      "'episode' AND ");
    filter_sql(s, &sql, &p, q);
    mn_buf_puts(&sql, " GROUP BY conv");
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot count conversations");
    mn_buf_release(&sql);
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    for (int i = 0; i < pg(s)->pq->ntuples(r) && rc == 0; i++) {
        const char *conv = mn_pg__col(s, r, i, 0);
        if (conv)
            rc = cb(payload, conv, mn_pg__col_int(s, r, i, 1));
    }
    pg(s)->pq->clear(r);
out:
    mn_vec_release(&rows);
    mn_pg__fts_free(fq);
    return rc;
}

/* Each row of r to cb, in order. */
static int report_rows(mn_store *s, PGresult *r, mn_memory_hit_cb cb, void *payload)
{
    int rc = 0;
    for (int i = 0; i < pg(s)->pq->ntuples(r) && rc == 0; i++) {
        mn_memory_hit h;
        mn_pg__memory_hit_read(s, r, i, &h);
        rc = cb(payload, &h);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__memories_at_paths(mn_store *s, const mn_memory_query *q, const char *const *paths,
                             size_t npaths, mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    if (npaths == 0)
        return 0;
    if (npaths > MN_SEARCH_MAX_FILTER)
        npaths = MN_SEARCH_MAX_FILTER;
    /* scoped to the path itself or a directory above it (each ancestor by equality), to a
     * path below it (a range), or linked to it by an `about` link */
    mn_buf exact = MN_BUF_INIT, refs = MN_BUF_INIT, sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_buf_putc(&exact, '{');
    mn_buf_putc(&refs, '{');
    size_t nexact = 0;
    for (size_t i = 0; i < npaths; i++) {
        const char *path = paths[i];
        const char *end = path + strlen(path);
        for (const char *e = end; e && e > path && nexact < MN_SEARCH_MAX_FILTER * 16;) {
            mn_buf_puts(&exact, nexact++ ? ",\"" : "\"");
            for (const char *c = path; c < e; c++) {
                if (*c == '"' || *c == '\\')
                    mn_buf_putc(&exact, '\\');
                mn_buf_putc(&exact, *c);
            }
            mn_buf_putc(&exact, '"');
            e = memrchr(path, '/', (size_t)(e - path));
        }
        mn_buf_puts(&refs, i ? ",\"file:" : "\"file:");
        for (const char *c = path; *c; c++) {
            if (*c == '"' || *c == '\\')
                mn_buf_putc(&refs, '\\');
            mn_buf_putc(&refs, *c);
        }
        mn_buf_putc(&refs, '"');
    }
    mn_buf_putc(&exact, '}');
    mn_buf_putc(&refs, '}');
    mn_pg__take(&p, mn_buf_detach(&exact));
    mn_pg__take(&p, mn_buf_detach(&refs));
    mn_buf_puts(&sql,
                "SELECT " MN_PG_MEMORY_COLUMNS " FROM (SELECT memory_id AS id FROM memory_paths "
                "WHERE path = ANY ($1::text[])");
    for (size_t i = 0; i < npaths; i++) {
        mn_pg__text(&p, paths[i]);
        mn_buf_printf(&sql, " OR (path > $%d || '/' AND path < $%d || '0')", p.n, p.n);
    }
    mn_buf_puts(&sql, " UNION SELECT src_id FROM links WHERE kind = 'about' AND dst_ref = ANY "
                      "($2::text[])) h JOIN memories m ON m.id = h.id WHERE ");
    filter_sql(s, &sql, &p, q);
    mn_buf_printf(&sql, " ORDER BY m.updated_at DESC, m.id LIMIT %zu", clamp_limit(q->limit));
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot read memories by path");
    mn_buf_release(&sql);
    return r ? report_rows(s, r, cb, payload) : mn_error_last_code();
}

int mn_pg__memories_created(mn_store *s, const mn_memory_query *q, int64_t from_ms, int64_t to_ms,
                            mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_pg__int(&p, from_ms);
    mn_pg__int(&p, to_ms);
    mn_pg__int(&p, q->limit ? (int64_t)clamp_limit(q->limit) : 50);
    mn_buf_puts(&sql,
                "SELECT " MN_PG_MEMORY_COLUMNS " FROM memories m WHERE m.created_at >= $1 AND "
                "m.created_at < $2 AND ");
    filter_sql(s, &sql, &p, q);
    mn_buf_puts(&sql, " ORDER BY m.created_at DESC, m.id DESC LIMIT $3");
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot read memories");
    mn_buf_release(&sql);
    return r ? report_rows(s, r, cb, payload) : mn_error_last_code();
}

int mn_pg__memories_by_rowid(mn_store *s, const mn_memory_query *q, const int64_t *rowids, size_t n,
                             mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    if (n == 0)
        return 0;
    PGresult *r = memory_rows(s, q, rowids, n, true);
    if (!r)
        return mn_error_last_code();
    int nix, rc = 0;
    id_row *ix = index_rows(s, r, &nix);
    for (size_t i = 0; i < n && rc == 0; i++) { /* in the order given */
        int row = find_row(ix, nix, rowids[i]);
        if (row < 0)
            continue;
        mn_memory_hit h;
        mn_pg__memory_hit_read(s, r, row, &h);
        rc = cb(payload, &h);
    }
    free(ix);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__episode_neighbours(mn_store *s, const mn_memory_query *q, int64_t rowid, int span,
                              mn_memory_hit_cb cb, void *payload)
{
    MN_ASSERT_OR(memory_query_valid(q), MN_EINTERNAL);
    mn_buf sql = MN_BUF_INIT;
    mn_pg_params p = {0};
    mn_pg__int(&p, rowid);
    mn_pg__int(&p, span);
    mn_buf_puts(&sql, "SELECT " MN_PG_MEMORY_COLUMNS " FROM memories o JOIN memories m ON m.id "
                      "BETWEEN o.id - $2 AND o.id + $2 AND m.id <> o.id WHERE o.id = $1 AND "
                      "o.kind = 'episode' AND m.kind = 'episode' AND m.session_ref IS NOT "
                      "DISTINCT FROM o.session_ref AND (o.session_ref IS NOT NULL OR m.situation "
                      "IS NOT DISTINCT FROM o.situation) AND ");
    filter_sql(s, &sql, &p, q);
    mn_buf_puts(&sql, " ORDER BY m.id");
    PGresult *r = mn_pg__run(s, sql.ptr, &p, "cannot read episodes");
    mn_buf_release(&sql);
    return r ? report_rows(s, r, cb, payload) : mn_error_last_code();
}

int mn_pg__memory_body(mn_store *s, char **out, int64_t rowid)
{
    mn_pg_params p = {0};
    *out = NULL;
    mn_pg__int(&p, rowid);
    PGresult *r =
        mn_pg__run(s, "SELECT body FROM memories WHERE id = $1", &p, "cannot read a memory");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1) {
        const char *v = mn_pg__col(s, r, 0, 0);
        *out = mn_strdup(v ? v : "");
    } else {
        rc = mn_error_set(MN_ENOTFOUND, "memory row %lld not found", (long long)rowid);
    }
    pg(s)->pq->clear(r);
    return rc;
}

/* ---- the index itself ---- */

int mn_pg__fts_tidy(mn_store *s, mn_fts_table table, bool *rebuilt)
{
    /* nothing to do: FTS5 merges its segments, PostgreSQL's b-trees need no merge
     * (autovacuum keeps them) */
    MN_UNUSED(s);
    MN_UNUSED(table);
    *rebuilt = false;
    return 0;
}

int mn_pg__memory_sizes_prepare(mn_store *s)
{
    /* nothing to do: every posting carries its row's length (pg_postings.c) */
    MN_UNUSED(s);
    return 0;
}

/*
 * mn_store_fts_count: the rows matching, counted as search_store.c counts
 * them (its comment: the newest 32nd, then the newest eighth, each only
 * when it holds 2 x COUNT_SAMPLE rows; once COUNT_SAMPLE rows match the
 * count is scaled from them, else the older rows are counted too), so
 * that the choices made from counts are the same on both back ends.
 * *ndocs: the rows of the table (this project's).
 */
#define COUNT_SAMPLE 1024

static int count_range(mn_store *s, const mn_pg_fts *fq, mn_fts_table table, int64_t from,
                       int64_t to, int64_t *out)
{
    return mn_pg__fts_count_rows(s, fq, table, from, to, out);
}

int mn_pg__fts_count(mn_store *s, mn_fts_table table, const char *match, int64_t *count,
                     int64_t *ndocs)
{
    static const int64_t slices[] = {32, 8, 1};
    mn_pg_fts *fq = NULL;
    *count = 0;
    int64_t rows;
    mn_pg_slice_cuts *kept;
    int rc = table_size(s, table, &rows, &kept);
    if (rc)
        return rc;
    /* the slices' cuts are kept (an OFFSET of thousands of rows, for every word counted: 9 ms
     * of a search at 100k memories) */
    if (ndocs)
        *ndocs = rows;
    rc = mn_pg__fts_parse(match, &fq);
    if (rc || rows <= 0)
        goto out;
    /* slices by rank, newest first: this project's row ids interleave with other projects' */
    int64_t end = INT64_MAX, matched = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(slices); i++) {
        int64_t part = 0, size = rows / slices[i], cut = INT64_MIN;
        bool last = i + 1 == MN_ARRAY_SIZE(slices);
        if (!last && size < 2 * COUNT_SAMPLE)
            continue;
        if (!last && kept->cut[i]) {
            cut = kept->cut[i];
        } else if (!last) {
            if ((rc = nth_newest(s, table, 0, size - 1, &cut)) != 0)
                goto out;
            kept->cut[i] = cut;
        }
        if ((rc = count_range(s, fq, table, cut, end, &part)) != 0)
            goto out;
        matched += part;
        end = cut;
        if (!last && matched >= COUNT_SAMPLE) {
            *count = (int64_t)((double)matched * (double)rows / (double)size);
            goto out;
        }
    }
    *count = matched;
out:
    mn_pg__fts_free(fq);
    return rc;
}
