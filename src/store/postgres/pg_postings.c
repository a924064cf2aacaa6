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
 */
#include "common.h"
#include <jansson.h>

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

int mn_pg__postings_del(mn_store *s, mn_fts_table table, int64_t rowid)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__int(&p, rowid);
    /* one statement: the row, its postings (by the primary key, through its terms), the stats */
    return mn_pg__exec(s,
                       "WITH d AS (DELETE FROM fts_docs WHERE project_id = $1 AND tbl = $2 AND "
                       "rowid = $3 RETURNING ntok, terms), "
                       "p AS (DELETE FROM fts_postings f USING d WHERE f.project_id = $1 AND "
                       "f.tbl = $2 AND f.term = ANY (d.terms) AND f.rowid = $3) "
                       "UPDATE fts_stats t SET ndocs = t.ndocs - 1, ntok = t.ntok - d.ntok FROM d "
                       "WHERE t.project_id = $1 AND t.tbl = $2",
                       &p, "cannot update the full-text index");
}

int mn_pg__postings_put(mn_store *s, mn_fts_table table, int64_t rowid, const char *const *fields,
                        const size_t *lens, size_t nfields)
{
    MN_ASSERT_OR(pg(s)->in_tx && nfields <= 16, MN_EINTERNAL);
    tok_ctx c = {MN_VEC_INIT, 0, 0};
    int32_t sizes[16] = {0};
    int64_t ntok = 0;
    mn_buf terms = MN_BUF_INIT, tfields = MN_BUF_INIT, tfs = MN_BUF_INIT, pos = MN_BUF_INIT;
    mn_buf uniq = MN_BUF_INIT, lenlist = MN_BUF_INIT;
    int rc = mn_pg__postings_del(s, table, rowid);
    if (rc)
        goto out;
    for (size_t f = 0; f < nfields; f++) {
        c.field = (uint16_t)f;
        c.size = 0;
        if (fields[f] && lens[f] > 0 &&
            (rc = mn_tokenize(fields[f], lens[f], MN_LANG_UNKNOWN, 0, on_token, &c)) != 0)
            goto out;
        sizes[f] = c.size;
        ntok += c.size;
    }
    if (c.toks.len > 1)
        qsort(c.toks.items, c.toks.len, sizeof(tok_ent), cmp_tok);
    /* one posting per (term, field): its positions in order */
    mn_buf_putc(&terms, '{');
    mn_buf_putc(&tfields, '{');
    mn_buf_putc(&tfs, '{');
    mn_buf_putc(&pos, '{');
    mn_buf_putc(&uniq, '{');
    size_t npost = 0, nuniq = 0;
    for (size_t i = 0; i < c.toks.len;) {
        const tok_ent *e = &c.toks.items[i];
        size_t j = i + 1;
        while (j < c.toks.len && c.toks.items[j].len == e->len &&
               c.toks.items[j].field == e->field && !memcmp(c.toks.items[j].term, e->term, e->len))
            j++;
        bool new_term = i == 0 || c.toks.items[i - 1].len != e->len ||
                        memcmp(c.toks.items[i - 1].term, e->term, e->len) != 0;
        if (new_term) {
            if (nuniq++)
                mn_buf_putc(&uniq, ',');
            put_elem(&uniq, e->term, e->len);
        }
        if (npost++) {
            mn_buf_putc(&terms, ',');
            mn_buf_putc(&tfields, ',');
            mn_buf_putc(&tfs, ',');
            mn_buf_putc(&pos, ',');
        }
        put_elem(&terms, e->term, e->len);
        mn_buf_printf(&tfields, "%u", (unsigned)e->field);
        mn_buf_printf(&tfs, "%zu", j - i);
        mn_buf_puts(&pos, "\"{");
        for (size_t k = i; k < j; k++)
            mn_buf_printf(&pos, "%s%d", k > i ? "," : "", (int)c.toks.items[k].pos);
        mn_buf_puts(&pos, "}\"");
        i = j;
    }
    mn_buf_putc(&terms, '}');
    mn_buf_putc(&tfields, '}');
    mn_buf_putc(&tfs, '}');
    mn_buf_putc(&pos, '}');
    mn_buf_putc(&uniq, '}');
    mn_buf_putc(&lenlist, '{');
    for (size_t f = 0; f < nfields; f++)
        mn_buf_printf(&lenlist, "%s%d", f ? "," : "", (int)sizes[f]);
    mn_buf_putc(&lenlist, '}');
    int flags = table == MN_FTS_MEMORIES && nfields > 2 &&
                        derived_title(fields[0], fields[0] ? lens[0] : 0,
                                      fields[2] ? fields[2] : "", fields[2] ? lens[2] : 0)
                    ? 1
                    : 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__int(&p, rowid);
    mn_pg__int(&p, ntok);
    mn_pg__int(&p, flags);
    mn_pg__take(&p, mn_buf_detach(&lenlist));
    mn_pg__take(&p, mn_buf_detach(&uniq));
    mn_pg__take(&p, mn_buf_detach(&terms));
    mn_pg__take(&p, mn_buf_detach(&tfields));
    mn_pg__take(&p, mn_buf_detach(&tfs));
    mn_pg__take(&p, mn_buf_detach(&pos));
    rc =
        mn_pg__exec(s,
                    "WITH d AS (INSERT INTO fts_docs(project_id, tbl, rowid, ntok, lens, flags, "
                    "terms) VALUES ($1, $2, $3, $4, $6::int[], $5, $7::text[])), "
                    "p AS (INSERT INTO fts_postings(project_id, tbl, term, rowid, field, tf, ntok, "
                    "flags, pos) SELECT $1, $2, u.t, $3, u.f, u.n, $4, $5, u.p::int[] FROM "
                    "unnest($8::text[], $9::smallint[], $10::int[], $11::text[]) AS u(t, f, n, p)) "
                    "INSERT INTO fts_stats(project_id, tbl, ndocs, ntok) VALUES ($1, $2, 1, $4) "
                    "ON CONFLICT (project_id, tbl) DO UPDATE SET ndocs = fts_stats.ndocs + 1, "
                    "ntok = fts_stats.ntok + EXCLUDED.ntok",
                    &p, "cannot update the full-text index");
out:
    mn_vec_release(&c.toks);
    mn_buf_release(&terms);
    mn_buf_release(&tfields);
    mn_buf_release(&tfs);
    mn_buf_release(&pos);
    mn_buf_release(&uniq);
    mn_buf_release(&lenlist);
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
