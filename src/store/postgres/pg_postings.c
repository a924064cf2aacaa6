/*
 * pg_postings.c - the PostgreSQL back end's full-text index: a row's terms
 * as postings (fts_postings), its lengths (fts_docs) and each table's N
 * and total length (fts_stats), written with the row (pg_search.h).
 *
 * How: each field is tokenized by mn_tokenize with the flags and language
 * of the "mnemo" FTS5 tokenizer (none: the language detected per value),
 * and positions are numbered as FTS5 numbers them (fts5_storage.c): a
 * token takes the next position, a colocated one (the whole of an
 * identifier, another stem) the position of the token before it and
 * counts in no length. The field's length is its positions, the row's the
 * sum over its fields: FTS5's docsize, what bm25() divides by.
 *
 * Invariants: a row is in the index at most once (put deletes it first);
 * fts_stats holds, per project and table, exactly the number of rows in
 * fts_docs and the sum of their ntok: both move in the statement that
 * adds or removes the row, in the caller's transaction, by UPDATE ... + n
 * (a second writer waits for the row lock and adds to what the first
 * committed, whatever server it runs on).
 *
 * Postings are written to fts_postings, the tail of the compact blocks
 * (pg_blocks.c, schema_v4.sql); fts_stats.tail counts them, and the writer
 * that takes it past MN_PG_FOLD_AT folds the tail into the blocks. A row
 * deleted leaves the blocks and the tail.
 */
#include "common.h"
#include <jansson.h>

#include "store/postgres/pg_blocks.h"
#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"
#include "text/tokenize.h"
#include "util/vec.h"

/* One token of a row: its term, field and position. */
typedef struct {
    char term[MN_TOK_MAX_BYTES + 1];
    uint8_t len;
    uint16_t field;
    int32_t pos;
} tok_ent;

typedef struct {
    MN_VEC(tok_ent) toks;
    uint16_t field;
    int32_t size; /* the field's length so far (FTS5's szCol) */
} tok_ctx;

static int on_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                    int colocated)
{
    MN_UNUSED(start);
    MN_UNUSED(end);
    tok_ctx *c = payload;
    if (len == 0)
        return 0;
    if (len > MN_TOK_MAX_BYTES)
        len = MN_TOK_MAX_BYTES;
    /* fts5StorageInsertCallback: a colocated token counts only as the field's first */
    if (!colocated || c->size == 0)
        c->size++;
    tok_ent e;
    memcpy(e.term, tok, len);
    e.term[len] = '\0';
    e.len = (uint8_t)len;
    e.field = c->field;
    e.pos = c->size - 1;
    mn_vec_push(&c->toks, e);
    return 0;
}

static int cmp_tok(const void *a, const void *b)
{
    const tok_ent *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->term, y->term, n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (x->field != y->field)
        return x->field < y->field ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* An element of a PostgreSQL array literal, double-quoted. */
static void put_elem(mn_buf *b, const char *s, size_t n)
{
    mn_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            mn_buf_putc(b, '\\');
        mn_buf_putc(b, s[i]);
    }
    mn_buf_putc(b, '"');
}

/* memories_fts's rule (search_store.c DERIVED_TITLE): the title is the start of the body. */
static bool derived_title(const char *title, size_t tlen, const char *body, size_t blen)
{
    size_t i = 0;
    while (i < blen && strchr(" #\t\n\r", body[i]) && body[i])
        i++;
    return blen - i >= tlen && memcmp(body + i, title ? title : "", tlen) == 0;
}

/* The array's literal (empty: "{}"), handed to the parameters. */
static void take_array(mn_pg_params *p, mn_buf *b, size_t n)
{
    if (n == 0)
        mn_buf_putc(b, '{');
    mn_buf_putc(b, '}');
    mn_pg__take(p, mn_buf_detach(b));
}

/*
 * Two statements, not one: the documents first (their primary key), and
 * only when some existed their postings, by the primary key through the
 * terms they name, passed as arrays. One statement joining the deleted
 * documents' terms to fts_postings was planned before the rows were known:
 * with the table small when a connection prepared it, PostgreSQL kept a
 * plan that read all of fts_postings, ~8 ms a row at 1,000 memories and
 * growing, paid even by a new row, which has nothing to delete.
 */
int mn_pg__postings_del_rows(mn_store *s, mn_fts_table table, const int64_t *rowids, size_t n)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__ids(&p, rowids, n);
    PGresult *r = mn_pg__run(s,
                             "WITH d AS (DELETE FROM fts_docs WHERE project_id = $1 AND tbl = $2 "
                             "AND rowid = ANY ($3::bigint[]) RETURNING rowid, ntok, terms) "
                             "SELECT d.rowid, d.ntok, t.t FROM d, unnest(d.terms) AS t(t) "
                             "ORDER BY d.rowid",
                             &p, "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    int rows = pg(s)->pq->ntuples(r), rc = 0;
    if (rows == 0) {
        pg(s)->pq->clear(r);
        return 0;
    }
    /* one (term, rowid) pair a posting key; the documents' count and length for the stats */
    mn_buf terms = MN_BUF_INIT, ids = MN_BUF_INIT;
    int64_t ndocs = 0, ntok = 0, last = INT64_MIN;
    char **pair_terms = mn_malloc((size_t)rows * sizeof(char *));
    int64_t *pair_rows = mn_malloc((size_t)rows * sizeof(int64_t));
    int64_t *gone = mn_malloc((size_t)rows * sizeof(int64_t));
    for (int i = 0; i < rows; i++) {
        int64_t rowid = mn_pg__col_int(s, r, i, 0);
        const char *t = mn_pg__col(s, r, i, 2);
        if (rowid != last) {
            gone[ndocs++] = rowid;
            ntok += mn_pg__col_int(s, r, i, 1);
            last = rowid;
        }
        mn_buf_putc(&terms, i ? ',' : '{');
        put_elem(&terms, t, strlen(t));
        mn_buf_printf(&ids, "%s%lld", i ? "," : "{", (long long)rowid);
        pair_terms[i] = (char *)t;
        pair_rows[i] = rowid;
    }
    /* the rows' postings in blocks (pg_blocks.c), then those in the tail */
    rc = mn_pg__blocks_del(s, table, pair_terms, pair_rows, (size_t)rows, gone, (size_t)ndocs);
    free(pair_terms);
    free(pair_rows);
    free(gone);
    pg(s)->pq->clear(r);
    if (rc) {
        mn_buf_release(&terms);
        mn_buf_release(&ids);
        return rc;
    }
    mn_pg_params q = {0};
    mn_pg__int(&q, s->project_id);
    mn_pg__int(&q, (int64_t)table);
    take_array(&q, &terms, (size_t)rows);
    take_array(&q, &ids, (size_t)rows);
    mn_pg__int(&q, ndocs);
    mn_pg__int(&q, ntok);
    rc = mn_pg__exec(
        s,
        "WITH p AS (DELETE FROM fts_postings f USING unnest($3::text[], "
        "$4::bigint[]) AS x(t, r) WHERE f.project_id = $1 AND f.tbl = $2 AND "
        "f.term = x.t AND f.rowid = x.r RETURNING 1) "
        "UPDATE fts_stats SET ndocs = ndocs - $5, ntok = ntok - $6, gen = gen + 1, tail = tail - "
        "(SELECT count(*) FROM p) WHERE project_id = $1 AND tbl = $2",
        &q, "cannot update the full-text index");
    return rc;
}

int mn_pg__postings_del(mn_store *s, mn_fts_table table, int64_t rowid)
{
    return mn_pg__postings_del_rows(s, table, &rowid, 1);
}

int mn_pg__postings_clear(mn_store *s, mn_fts_table table)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    return mn_pg__exec(s,
                       "WITH d AS (DELETE FROM fts_docs WHERE project_id = $1 AND tbl = $2), "
                       "p AS (DELETE FROM fts_postings WHERE project_id = $1 AND tbl = $2), "
                       "b AS (DELETE FROM fts_blocks WHERE project_id = $1 AND tbl = $2) "
                       "DELETE FROM fts_stats WHERE project_id = $1 AND tbl = $2",
                       &p, "cannot clear the full-text index");
}

/* The statement's arrays, one element per posting (pa..) or per row (da..). */
typedef struct {
    mn_buf rowid, term, field, tf, pos, ntok, flags;
    mn_buf drowid, dntok, dlens, dflags, dterms;
    size_t npost, nrows;
    int64_t total;
} put_arrays;

static void sep(mn_buf *b, size_t i)
{
    mn_buf_putc(b, i ? ',' : '{');
}

/* Tokenize one row's fields and append its postings and document to a. */
static int add_row(put_arrays *a, tok_ctx *c, mn_fts_table table, int64_t rowid,
                   const char *const *fields, const size_t *lens, size_t nfields)
{
    int32_t sizes[16] = {0};
    int64_t ntok = 0;
    int rc = 0;
    c->toks.len = 0;
    for (size_t f = 0; f < nfields; f++) {
        c->field = (uint16_t)f;
        c->size = 0;
        size_t len = !fields[f] ? 0 : lens ? lens[f] : strlen(fields[f]);
        if (len > 0 && (rc = mn_tokenize(fields[f], len, MN_LANG_UNKNOWN, 0, on_token, c)) != 0)
            return rc;
        sizes[f] = c->size;
        ntok += c->size;
    }
    if (c->toks.len > 1)
        qsort(c->toks.items, c->toks.len, sizeof(tok_ent), cmp_tok);
    int flags = 0;
    if (table == MN_FTS_MEMORIES && nfields > 2) {
        size_t tl = !fields[0] ? 0 : lens ? lens[0] : strlen(fields[0]);
        size_t bl = !fields[2] ? 0 : lens ? lens[2] : strlen(fields[2]);
        flags = derived_title(fields[0], tl, fields[2] ? fields[2] : "", bl) ? 1 : 0;
    }
    /* one posting per (term, field): its positions in order */
    mn_buf terms = MN_BUF_INIT;
    size_t nuniq = 0;
    mn_buf_putc(&terms, '{');
    for (size_t i = 0; i < c->toks.len;) {
        const tok_ent *e = &c->toks.items[i];
        size_t j = i + 1;
        while (j < c->toks.len && c->toks.items[j].len == e->len &&
               c->toks.items[j].field == e->field &&
               !memcmp(c->toks.items[j].term, e->term, e->len))
            j++;
        if (i == 0 || c->toks.items[i - 1].len != e->len ||
            memcmp(c->toks.items[i - 1].term, e->term, e->len) != 0) {
            if (nuniq++)
                mn_buf_putc(&terms, ',');
            put_elem(&terms, e->term, e->len);
        }
        size_t k = a->npost++;
        sep(&a->rowid, k);
        sep(&a->term, k);
        sep(&a->field, k);
        sep(&a->tf, k);
        sep(&a->pos, k);
        sep(&a->ntok, k);
        sep(&a->flags, k);
        mn_buf_printf(&a->rowid, "%lld", (long long)rowid);
        put_elem(&a->term, e->term, e->len);
        mn_buf_printf(&a->field, "%u", (unsigned)e->field);
        mn_buf_printf(&a->tf, "%zu", j - i);
        mn_buf_puts(&a->pos, "\"{");
        for (size_t q = i; q < j; q++)
            mn_buf_printf(&a->pos, "%s%d", q > i ? "," : "", (int)c->toks.items[q].pos);
        mn_buf_puts(&a->pos, "}\"");
        mn_buf_printf(&a->ntok, "%lld", (long long)ntok);
        mn_buf_printf(&a->flags, "%d", flags);
        i = j;
    }
    mn_buf_putc(&terms, '}');
    size_t r = a->nrows++;
    sep(&a->drowid, r);
    sep(&a->dntok, r);
    sep(&a->dlens, r);
    sep(&a->dflags, r);
    sep(&a->dterms, r);
    mn_buf_printf(&a->drowid, "%lld", (long long)rowid);
    mn_buf_printf(&a->dntok, "%lld", (long long)ntok);
    mn_buf_puts(&a->dlens, "\"{");
    for (size_t f = 0; f < nfields; f++)
        mn_buf_printf(&a->dlens, "%s%d", f ? "," : "", (int)sizes[f]);
    mn_buf_puts(&a->dlens, "}\"");
    mn_buf_printf(&a->dflags, "%d", flags);
    put_elem(&a->dterms, terms.ptr, terms.len);
    mn_buf_release(&terms);
    a->total += ntok;
    return 0;
}

int mn_pg__postings_put_rows(mn_store *s, mn_fts_table table, size_t nrows, const int64_t *rowids,
                             const char *const *fields, const size_t *lens, size_t nfields)
{
    MN_ASSERT_OR(pg(s)->in_tx && nfields <= 16, MN_EINTERNAL);
    if (nrows == 0)
        return 0;
    tok_ctx c = {MN_VEC_INIT, 0, 0};
    put_arrays a;
    memset(&a, 0, sizeof(a));
    mn_buf *all[] = {&a.rowid, &a.term,   &a.field, &a.tf,    &a.pos,    &a.ntok,
                     &a.flags, &a.drowid, &a.dntok, &a.dlens, &a.dflags, &a.dterms};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        mn_buf_init(all[i]);
    int rc = mn_pg__postings_del_rows(s, table, rowids, nrows);
    for (size_t r = 0; r < nrows && rc == 0; r++)
        rc = add_row(&a, &c, table, rowids[r], fields + r * nfields,
                     lens ? lens + r * nfields : NULL, nfields);
    if (rc)
        goto out;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__int(&p, (int64_t)a.nrows);
    mn_pg__int(&p, a.total);
    take_array(&p, &a.drowid, a.nrows);
    take_array(&p, &a.dntok, a.nrows);
    take_array(&p, &a.dlens, a.nrows);
    take_array(&p, &a.dflags, a.nrows);
    take_array(&p, &a.dterms, a.nrows);
    take_array(&p, &a.rowid, a.npost);
    take_array(&p, &a.term, a.npost);
    take_array(&p, &a.field, a.npost);
    take_array(&p, &a.tf, a.npost);
    take_array(&p, &a.pos, a.npost);
    take_array(&p, &a.ntok, a.npost);
    take_array(&p, &a.flags, a.npost);
    mn_pg__int(&p, (int64_t)a.npost);
    PGresult *r = mn_pg__run(
        s,
        "WITH d AS (INSERT INTO fts_docs(project_id, tbl, rowid, ntok, lens, flags, terms) SELECT "
        "$1, $2, u.r, u.n, u.l::int[], u.f, u.t::text[] FROM unnest($5::bigint[], $6::int[], "
        "$7::text[], $8::smallint[], $9::text[]) AS u(r, n, l, f, t)), "
        "p AS (INSERT INTO fts_postings(project_id, tbl, term, rowid, field, tf, ntok, flags, pos) "
        "SELECT $1, $2, u.t, u.r, u.f, u.c, u.n, u.g, u.p::int[] FROM unnest($10::bigint[], "
        "$11::text[], $12::smallint[], $13::int[], $14::text[], $15::int[], $16::smallint[]) AS "
        "u(r, t, f, c, p, n, g)) "
        "INSERT INTO fts_stats(project_id, tbl, ndocs, ntok, tail) VALUES ($1, $2, $3, $4, $17) "
        "ON CONFLICT (project_id, tbl) DO UPDATE SET ndocs = fts_stats.ndocs + EXCLUDED.ndocs, "
        "ntok = fts_stats.ntok + EXCLUDED.ntok, tail = fts_stats.tail + EXCLUDED.tail, gen = "
        "fts_stats.gen + 1 "
        "RETURNING tail",
        &p, "cannot update the full-text index");
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    /* the tail grew past its bound: into the blocks (pg_blocks.c) */
    bool fold = pg(s)->pq->ntuples(r) == 1 && mn_pg__col_int(s, r, 0, 0) > MN_PG_FOLD_AT;
    pg(s)->pq->clear(r);
    if (fold)
        rc = mn_pg__blocks_fold(s, table);
out:
    mn_vec_release(&c.toks);
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        mn_buf_release(all[i]);
    return rc;
}

int mn_pg__postings_put(mn_store *s, mn_fts_table table, int64_t rowid, const char *const *fields,
                        const size_t *lens, size_t nfields)
{
    return mn_pg__postings_put_rows(s, table, 1, &rowid, fields, lens, nfields);
}

int mn_pg__postings_chunks(mn_store *s, const char *path, const mn_file_content *c,
                           const int64_t *ids)
{
    if (c->nchunks == 0)
        return 0;
    const char **fields = mn_calloc(c->nchunks * 5, sizeof(char *));
    char **names = mn_calloc(c->nchunks, sizeof(char *));
    for (size_t i = 0; i < c->nchunks; i++) {
        const mn_chunk_rec *k = &c->chunks[i];
        const char **f = fields + i * 5;
        f[0] = path;
        if (k->symbol >= 0 && (size_t)k->symbol < c->nsymbols) {
            const mn_symbol_rec *y = &c->symbols[k->symbol];
            const char *qn = y->qualified_name ? y->qualified_name : y->name;
            /* names: the name, and the qualified name when it differs */
            if (y->name && strcmp(qn, y->name) != 0) {
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "%s %s", y->name, qn);
                names[i] = mn_buf_detach(&b);
                f[1] = names[i];
            } else {
                f[1] = y->name;
            }
            f[2] = y->signature;
            f[3] = y->docstring;
        }
        f[4] = k->text ? k->text : "";
    }
    int rc = mn_pg__postings_put_rows(s, MN_FTS_CHUNKS, c->nchunks, ids, fields, NULL, 5);
    for (size_t i = 0; i < c->nchunks; i++)
        free(names[i]);
    free(names);
    free(fields);
    return rc;
}

int mn_pg__postings_del_chunks(mn_store *s, int64_t file_id)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, file_id);
    PGresult *r = mn_pg__run(s, "SELECT id FROM chunks WHERE file_id = $1", &p,
                             "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    int n = pg(s)->pq->ntuples(r);
    int64_t *ids = mn_malloc(((size_t)n + 1) * sizeof(int64_t));
    for (int i = 0; i < n; i++)
        ids[i] = mn_pg__col_int(s, r, i, 0);
    pg(s)->pq->clear(r);
    int rc = mn_pg__postings_del_rows(s, MN_FTS_CHUNKS, ids, (size_t)n);
    free(ids);
    return rc;
}

int mn_pg__postings_history(mn_store *s)
{
    int rc = mn_pg__postings_clear(s, MN_PG_FTS_HISTORY);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT id, subjects FROM history_docs WHERE project_id = $1", &p,
                             "cannot index the history");
    if (!r)
        return mn_error_last_code();
    size_t n = (size_t)pg(s)->pq->ntuples(r);
    int64_t *ids = mn_malloc((n + 1) * sizeof(int64_t));
    const char **fields = mn_malloc((n + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        ids[i] = mn_pg__col_int(s, r, (int)i, 0);
        fields[i] = mn_pg__col(s, r, (int)i, 1);
    }
    /* a few thousand documents: in statements of 512 */
    for (size_t at = 0; at < n && rc == 0; at += 512)
        rc = mn_pg__postings_put_rows(s, MN_PG_FTS_HISTORY, n - at < 512 ? n - at : 512, ids + at,
                                      fields + at, NULL, 1);
    pg(s)->pq->clear(r);
    free(ids);
    free(fields);
    return rc;
}

/*
 * A JSON list column as memories_fts_src joins it (schema_v3.sql): valid
 * JSON -> its array's items (strings as they are, other scalars as text,
 * nested values as JSON, nulls left out) joined by sep, nothing when none;
 * not JSON -> the text itself; NULL -> nothing. *any: something was put.
 */
static void join_json(mn_buf *b, const char *v, const char *sep, bool *any)
{
    *any = false;
    if (!v)
        return;
    json_error_t err;
    json_t *j = json_loads(v, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!j) {
        mn_buf_puts(b, v);
        *any = true;
        return;
    }
    size_t i;
    json_t *it;
    json_array_foreach(j, i, it)
    {
        if (json_is_null(it))
            continue;
        if (*any)
            mn_buf_puts(b, sep);
        *any = true;
        if (json_is_string(it)) {
            mn_buf_put(b, json_string_value(it), json_string_length(it));
        } else if (json_is_integer(it)) {
            mn_buf_printf(b, "%lld", (long long)json_integer_value(it));
        } else if (json_is_true(it) || json_is_false(it)) {
            mn_buf_puts(b, json_is_true(it) ? "1" : "0");
        } else {
            char *t = json_dumps(it, JSON_COMPACT | JSON_ENCODE_ANY);
            if (t)
                mn_buf_puts(b, t);
            free(t);
        }
    }
    json_decref(j);
}

/* SQLite's trim(X, Y): the characters of set off both ends, in place. */
static void trim_set(mn_buf *b, const char *set)
{
    size_t start = 0, end = b->len;
    while (start < end && strchr(set, b->ptr[start]) && b->ptr[start])
        start++;
    while (end > start && strchr(set, b->ptr[end - 1]) && b->ptr[end - 1])
        end--;
    if (start)
        memmove(b->ptr, b->ptr + start, end - start);
    mn_buf_truncate(b, end - start);
}

int mn_pg__postings_memory(mn_store *s, int64_t rowid)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, rowid);
    PGresult *r = mn_pg__run(s,
                             "SELECT title, trigger_keywords, tags, body, situation, solution, "
                             "what_failed, error_messages, files_modified, scope_paths, "
                             "scope_symbols, deleted_at IS NULL FROM memories WHERE id = $1",
                             &p, "cannot index a memory");
    if (!r)
        return mn_error_last_code();
    const mn_pq_api *pq = pg(s)->pq;
    if (pq->ntuples(r) != 1 || strcmp(mn_pg__col(s, r, 0, 11), "t") != 0) {
        pq->clear(r);
        return mn_pg__postings_del(s, MN_FTS_MEMORIES, rowid);
    }
    mn_buf kw = MN_BUF_INIT, ctx = MN_BUF_INIT;
    bool any;
    /* keywords: trim(coalesce(keywords joined, '') || ' ' || coalesce(tags joined, '')) */
    join_json(&kw, mn_pg__col(s, r, 0, 1), " ", &any);
    mn_buf_putc(&kw, ' ');
    join_json(&kw, mn_pg__col(s, r, 0, 2), " ", &any);
    trim_set(&kw, " ");
    /* context: situation, solution, what failed (each with a newline), the errors, files,
     * scope paths and symbols (each after a newline), trimmed of spaces and newlines */
    for (int col = 4; col <= 6; col++) {
        const char *v = mn_pg__col(s, r, 0, col);
        if (v) {
            mn_buf_puts(&ctx, v);
            mn_buf_putc(&ctx, '\n');
        }
    }
    join_json(&ctx, mn_pg__col(s, r, 0, 7), "\n", &any);
    for (int col = 8; col <= 10; col++) {
        mn_buf_putc(&ctx, '\n');
        join_json(&ctx, mn_pg__col(s, r, 0, col), " ", &any);
    }
    trim_set(&ctx, " \n");
    const char *title = mn_pg__col(s, r, 0, 0), *body = mn_pg__col(s, r, 0, 3);
    const char *fields[4] = {title, kw.ptr, body, ctx.ptr};
    size_t lens[4] = {title ? strlen(title) : 0, kw.len, body ? strlen(body) : 0, ctx.len};
    int rc = mn_pg__postings_put(s, MN_FTS_MEMORIES, rowid, fields, lens, 4);
    pq->clear(r);
    mn_buf_release(&kw);
    mn_buf_release(&ctx);
    return rc;
}

/*
 * Every memory indexed under this tokenizer (meta 'fts_tokenizer_version' =
 * MN_TOK_VERSION): a store made before the postings existed (schema v1),
 * or under other tokenizer rules, gets its memories' postings again, once,
 * under the migration lock, when a writable handle opens it. Runs before
 * the handle has a project: each memory is indexed in its own.
 */
int mn_pg__postings_check(mn_store *s)
{
    char want[16];
    snprintf(want, sizeof(want), "%d", MN_TOK_VERSION);
    const char *read = "SELECT value FROM meta WHERE key = 'fts_tokenizer_version'";
    PGresult *r = mn_pg__run(s, read, NULL, "cannot read the full-text index's version");
    if (!r)
        return mn_error_last_code();
    bool current = pg(s)->pq->ntuples(r) == 1 && strcmp(mn_pg__col(s, r, 0, 0), want) == 0;
    pg(s)->pq->clear(r);
    if (current || s->read_only)
        return 0;
    int64_t project = s->project_id;
    mn_pg_params p = {0};
    int rc = mn_pg__exec(s, "BEGIN", NULL, "cannot index the memories");
    if (rc)
        return rc;
    pg(s)->in_tx = true;
    mn_pg__int(&p, MN_PG_LOCK_KEY);
    if ((rc = mn_pg__exec(s, "SELECT pg_advisory_xact_lock($1::int, 0)", &p,
                          "cannot index the memories")) != 0)
        goto out;
    if (!(r = mn_pg__run(s, read, NULL, "cannot read the full-text index's version"))) {
        rc = mn_error_last_code();
        goto out;
    }
    current = pg(s)->pq->ntuples(r) == 1 && strcmp(mn_pg__col(s, r, 0, 0), want) == 0;
    pg(s)->pq->clear(r);
    if (current) /* another process did it while this one waited */
        goto out;
    if (!(r = mn_pg__run(s, "SELECT id, project_id FROM memories ORDER BY id", NULL,
                         "cannot index the memories"))) {
        rc = mn_error_last_code();
        goto out;
    }
    for (int i = 0; i < pg(s)->pq->ntuples(r) && rc == 0; i++) {
        s->project_id = mn_pg__col_int(s, r, i, 1);
        rc = mn_pg__postings_memory(s, mn_pg__col_int(s, r, i, 0));
    }
    s->project_id = project;
    pg(s)->pq->clear(r);
    if (rc == 0) {
        mn_pg__text(&p, want);
        rc = mn_pg__exec(s,
                         "INSERT INTO meta(key, value) VALUES ('fts_tokenizer_version', $1) ON "
                         "CONFLICT (key) DO UPDATE SET value = excluded.value",
                         &p, "cannot index the memories");
    }
out:
    s->project_id = project;
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}
