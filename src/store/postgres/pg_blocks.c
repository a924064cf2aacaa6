/*
 * pg_blocks.c - full-text postings in compact blocks (fts_blocks,
 * schema_v4.sql; the format in pg_blocks.h), and the tail of postings
 * (fts_postings) folded into them.
 *
 * Why: a search reads every posting of its terms (over the newest share
 * of the rows); a posting a row was 100,000 index tuples for a question of
 * common words at 100k memories, 60-160 ms. A block of 128 rows is one row
 * of about a kilobyte, decoded here.
 *
 * Writes go to the tail as before (pg_postings.c) and fts_stats.tail counts
 * its postings; past MN_PG_FOLD_AT the writer folds the tail into the blocks:
 * the tail read in (term, row id, field) order in chunks, each term's
 * postings put into the block holding their row id (the first of the
 * term's blocks whose last row id is at least that id), or past the last
 * block appended to it; a block over MN_PG_BLOCK_DOCS rows is cut into
 * blocks of that many (the last one the rest), each within the range of
 * the block it came from, so a term's blocks never overlap. The tail's
 * rows folded are deleted in the same transaction, under the project's
 * lock: a reader sees the postings in the tail or in the blocks, never in
 * both or neither. A fold always folds the whole tail, so a row's
 * postings of one term are all in one place.
 *
 * Deleting rows (mn_pg__blocks_del) rewrites the blocks holding them,
 * found through the rows' terms (fts_docs.terms): a block left empty goes.
 */
#include "common.h"

#include "store/postgres/pg_blocks.h"
#include "store/postgres/pg_internal.h"
#include "util/vec.h"

#define FOLD_CHUNK 50000 /* tail postings read at a time */

/* ---- the format ---- */

static void put_varint(mn_buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        t[n++] = v ? (unsigned char)(c | 0x80) : c;
    } while (v);
    mn_buf_put(b, t, n);
}

static bool get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char c = *(*p)++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

void mn_pg__block_init(mn_pg_block_it *it, const unsigned char *data, size_t n)
{
    memset(it, 0, sizeof(*it));
    it->p = data;
    it->end = data + n;
}

bool mn_pg__block_next(mn_pg_block_it *it)
{
    if (it->bad || it->p >= it->end)
        return false;
    uint64_t d, v;
    bool row;
    if (!get_varint(&it->p, it->end, &d))
        goto bad;
    if (!it->started) {
        it->rowid = (int64_t)(d >> 1) ^ -(int64_t)(d & 1);
        it->started = row = true;
    } else {
        it->rowid += (int64_t)d;
        row = d != 0;
    }
    if (row) {
        if (!get_varint(&it->p, it->end, &v))
            goto bad;
        it->ntok = (int32_t)v;
        if (!get_varint(&it->p, it->end, &v))
            goto bad;
        it->flags = (int32_t)v;
    }
    if (!get_varint(&it->p, it->end, &v))
        goto bad;
    it->field = (int32_t)v;
    if (!get_varint(&it->p, it->end, &v) || v > (uint64_t)(it->end - it->p))
        goto bad;
    it->tf = (int32_t)v;
    it->pos = it->p;
    for (int32_t i = 0; i < it->tf; i++) {
        while (it->p < it->end && (*it->p & 0x80))
            it->p++;
        if (it->p >= it->end)
            goto bad;
        it->p++;
    }
    return true;
bad:
    it->bad = true;
    return false;
}

void mn_pg__block_positions(const mn_pg_block_it *it, int32_t *out)
{
    const unsigned char *p = it->pos;
    int64_t at = 0;
    for (int32_t i = 0; i < it->tf; i++) {
        uint64_t v = 0;
        get_varint(&p, it->p, &v); /* next() checked them */
        at += (int64_t)v;
        out[i] = (int32_t)at;
    }
}

void mn_pg__block_encode(mn_buf *b, const mn_pg_block_ent *e, size_t n, const int32_t *pool)
{
    for (size_t i = 0; i < n; i++) {
        bool row = i == 0 || e[i].rowid != e[i - 1].rowid;
        if (i == 0)
            put_varint(b, ((uint64_t)e[0].rowid << 1) ^ (uint64_t)(e[0].rowid >> 63));
        else
            put_varint(b, (uint64_t)(e[i].rowid - e[i - 1].rowid));
        if (row) {
            put_varint(b, (uint64_t)e[i].ntok);
            put_varint(b, (uint64_t)e[i].flags);
        }
        put_varint(b, (uint64_t)e[i].field);
        put_varint(b, (uint64_t)e[i].tf);
        int32_t at = 0;
        for (int32_t k = 0; k < e[i].tf; k++) {
            put_varint(b, (uint64_t)(pool[e[i].pos + (uint32_t)k] - at));
            at = pool[e[i].pos + (uint32_t)k];
        }
    }
}

/* ---- what a fold or a delete writes ---- */

typedef MN_VEC(mn_pg_block_ent) ent_vec;
typedef MN_VEC(int32_t) i32_vec;

/* An element of a PostgreSQL array literal, double-quoted, after a separator. */
static void arr_text(mn_buf *b, const char *s, size_t i)
{
    mn_buf_putc(b, i ? ',' : '{');
    mn_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            mn_buf_putc(b, '\\');
        mn_buf_putc(b, *s);
    }
    mn_buf_putc(b, '"');
}

static void arr_int(mn_buf *b, int64_t v, size_t i)
{
    mn_buf_printf(b, "%s%lld", i ? "," : "{", (long long)v);
}

static void arr_take(mn_pg_params *p, mn_buf *b, size_t n)
{
    if (n == 0)
        mn_buf_putc(b, '{');
    mn_buf_putc(b, '}');
    mn_pg__take(p, mn_buf_detach(b));
}

/* The blocks to delete (by key) and those to insert. */
typedef struct {
    mn_buf del_term, del_last;
    size_t ndel;
    mn_buf term, last, first, ndocs, off, len, bytes;
    size_t nins;
} writes;

static void writes_init(writes *w)
{
    memset(w, 0, sizeof(*w));
    mn_buf *all[] = {&w->del_term, &w->del_last, &w->term, &w->last, &w->first,
                     &w->ndocs,    &w->off,      &w->len,  &w->bytes};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        mn_buf_init(all[i]);
}

static void writes_release(writes *w)
{
    mn_buf *all[] = {&w->del_term, &w->del_last, &w->term, &w->last, &w->first,
                     &w->ndocs,    &w->off,      &w->len,  &w->bytes};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        mn_buf_release(all[i]);
}

static void writes_del(writes *w, const char *term, int64_t last)
{
    arr_text(&w->del_term, term, w->ndel);
    arr_int(&w->del_last, last, w->ndel);
    w->ndel++;
}

/* e[0..n) as blocks of at most MN_PG_BLOCK_DOCS rows each. */
static void writes_put(writes *w, const char *term, const mn_pg_block_ent *e, size_t n,
                       const int32_t *pool)
{
    for (size_t i = 0; i < n;) {
        size_t j = i, rows = 0;
        while (j < n && (rows < MN_PG_BLOCK_DOCS || e[j].rowid == e[j - 1].rowid)) {
            if (j == i || e[j].rowid != e[j - 1].rowid)
                rows++;
            j++;
        }
        size_t at = w->bytes.len;
        mn_pg__block_encode(&w->bytes, e + i, j - i, pool);
        arr_text(&w->term, term, w->nins);
        arr_int(&w->last, e[j - 1].rowid, w->nins);
        arr_int(&w->first, e[i].rowid, w->nins);
        arr_int(&w->ndocs, (int64_t)rows, w->nins);
        arr_int(&w->off, (int64_t)at + 1, w->nins);
        arr_int(&w->len, (int64_t)(w->bytes.len - at), w->nins);
        w->nins++;
        i = j;
    }
}

static int writes_flush(mn_store *s, mn_fts_table table, writes *w)
{
    int rc = 0;
    if (w->ndel) {
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        mn_pg__int(&p, (int64_t)table);
        arr_take(&p, &w->del_term, w->ndel);
        arr_take(&p, &w->del_last, w->ndel);
        rc = mn_pg__exec(s,
                         "DELETE FROM fts_blocks b USING unnest($3::text[], $4::bigint[]) AS "
                         "x(t, l) WHERE b.project_id = $1 AND b.tbl = $2 AND b.term = x.t AND "
                         "b.last = x.l",
                         &p, "cannot update the full-text index");
    }
    if (rc == 0 && w->nins) {
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        mn_pg__int(&p, (int64_t)table);
        arr_take(&p, &w->term, w->nins);
        arr_take(&p, &w->last, w->nins);
        arr_take(&p, &w->first, w->nins);
        arr_take(&p, &w->ndocs, w->nins);
        arr_take(&p, &w->off, w->nins);
        arr_take(&p, &w->len, w->nins);
        mn_pg__bytes(&p, w->bytes.ptr ? w->bytes.ptr : "", w->bytes.len);
        rc = mn_pg__exec(s,
                         "INSERT INTO fts_blocks(project_id, tbl, term, last, first, ndocs, data) "
                         "SELECT $1, $2, u.t, u.l, u.f, u.n, substring($9::bytea FROM u.o FOR "
                         "u.z) FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::int[], "
                         "$7::int[], $8::int[]) AS u(t, l, f, n, o, z)",
                         &p, "cannot update the full-text index");
    }
    writes_release(w);
    writes_init(w);
    return rc;
}

/* A block's entries appended to out, its positions to pool; false when malformed. */
static bool decode(const unsigned char *data, size_t n, ent_vec *out, i32_vec *pool)
{
    mn_pg_block_it it;
    mn_pg__block_init(&it, data, n);
    while (mn_pg__block_next(&it)) {
        mn_pg_block_ent e = {it.rowid, it.field, it.tf, it.ntok, it.flags, (uint32_t)pool->len};
        mn_vec_reserve(pool, pool->len + (size_t)it.tf);
        mn_pg__block_positions(&it, pool->items + pool->len);
        pool->len += (size_t)it.tf;
        mn_vec_push(out, e);
    }
    return !it.bad;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_ent(const mn_pg_block_ent *x, const mn_pg_block_ent *y)
{
    if (x->rowid != y->rowid)
        return x->rowid < y->rowid ? -1 : 1;
    return x->field < y->field ? -1 : x->field > y->field;
}

/* ---- folding ---- */

/* A block of a term fetched to take postings: its key, bytes, and the postings it takes. */
typedef struct {
    int64_t last, first;
    unsigned char *data;
    size_t n;
    ent_vec add;
} fblock;

/* A term of a chunk: its postings from the tail, and its blocks that take some. */
typedef struct {
    char *term;
    ent_vec ents;
    MN_VEC(fblock) blocks;
} fterm;

static int cmp_fblock(const void *a, const void *b)
{
    const fblock *x = a, *y = b;
    return x->last < y->last ? -1 : x->last > y->last;
}

/* "{1,5,9}" appended to pool; the count. */
static int32_t parse_pos(const char *v, i32_vec *pool)
{
    int32_t n = 0;
    for (const char *c = v; c && *c;) {
        if ((*c < '0' || *c > '9') && *c != '-') {
            c++;
            continue;
        }
        char *e;
        long x = strtol(c, &e, 10);
        mn_vec_push(pool, (int32_t)x);
        n++;
        c = e;
    }
    return n;
}

/* Blocks of r (columns: term index, last, first, data) added to their terms. */
static int take_blocks(mn_store *s, PGresult *r, fterm *t, size_t nt)
{
    const mn_pq_api *pq = pg(s)->pq;
    for (int i = 0; i < pq->ntuples(r); i++) {
        long k = strtol(pq->getvalue(r, i, 0), NULL, 10);
        if (k < 0 || (size_t)k >= nt)
            continue;
        int64_t last = mn_pg__col_int(s, r, i, 1);
        bool seen = false;
        for (size_t j = 0; j < t[k].blocks.len && !seen; j++)
            seen = t[k].blocks.items[j].last == last;
        if (seen)
            continue;
        fblock b = {last, mn_pg__col_int(s, r, i, 2), NULL, 0, MN_VEC_INIT};
        b.data = mn_pg__unhex(pq->getvalue(r, i, 3), &b.n);
        if (!b.data)
            return mn_error_set(MN_EIO, "full-text block of '%s' is malformed", t[k].term);
        mn_vec_push(&t[k].blocks, b);
    }
    return 0;
}

/* The chunk's terms' last blocks, and the blocks holding their postings of older rows. */
static int fetch_blocks(mn_store *s, mn_fts_table table, fterm *t, size_t nt)
{
    mn_buf terms = MN_BUF_INIT;
    for (size_t i = 0; i < nt; i++)
        arr_text(&terms, t[i].term, i);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    arr_take(&p, &terms, nt);
    PGresult *r = mn_pg__run(s,
                             "SELECT x.i - 1, b.last, b.first, b.data FROM unnest($3::text[]) "
                             "WITH ORDINALITY AS x(t, i) CROSS JOIN LATERAL (SELECT last, first, "
                             "data FROM fts_blocks WHERE project_id = $1 AND tbl = $2 AND term = "
                             "x.t ORDER BY last DESC LIMIT 1) b",
                             &p, "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    int rc = take_blocks(s, r, t, nt);
    pg(s)->pq->clear(r);
    /* postings of rows before a term's last block: the blocks holding those rows */
    mn_buf ks = MN_BUF_INIT, ts = MN_BUF_INIT, rs = MN_BUF_INIT;
    size_t n = 0;
    for (size_t i = 0; i < nt && rc == 0; i++) {
        if (t[i].blocks.len == 0)
            continue;
        int64_t first = t[i].blocks.items[0].first, prev = INT64_MIN;
        for (size_t j = 0; j < t[i].ents.len && t[i].ents.items[j].rowid < first; j++) {
            if (t[i].ents.items[j].rowid == prev)
                continue;
            prev = t[i].ents.items[j].rowid;
            arr_int(&ks, (int64_t)i, n);
            arr_text(&ts, t[i].term, n);
            arr_int(&rs, prev, n);
            n++;
        }
    }
    if (rc == 0 && n > 0) {
        mn_pg_params q = {0};
        mn_pg__int(&q, s->project_id);
        mn_pg__int(&q, (int64_t)table);
        arr_take(&q, &ks, n);
        arr_take(&q, &ts, n);
        arr_take(&q, &rs, n);
        r = mn_pg__run(s,
                       "SELECT x.k, b.last, b.first, b.data FROM unnest($3::int[], $4::text[], "
                       "$5::bigint[]) AS x(k, t, r) CROSS JOIN LATERAL (SELECT last, first, data "
                       "FROM fts_blocks WHERE project_id = $1 AND tbl = $2 AND term = x.t AND "
                       "last >= x.r ORDER BY last LIMIT 1) b",
                       &q, "cannot update the full-text index");
        if (!r)
            rc = mn_error_last_code();
        else {
            rc = take_blocks(s, r, t, nt);
            pg(s)->pq->clear(r);
        }
    }
    mn_buf_release(&ks);
    mn_buf_release(&ts);
    mn_buf_release(&rs);
    return rc;
}

/* One term's postings into its blocks: what to delete and insert, into w. */
static int fold_term(fterm *t, i32_vec *pool, writes *w)
{
    fblock none = {INT64_MIN, INT64_MIN, NULL, 0, MN_VEC_INIT};
    fblock *b = t->blocks.items;
    size_t nb = t->blocks.len;
    if (nb > 1)
        qsort(b, nb, sizeof(fblock), cmp_fblock);
    if (nb == 0) { /* the term's first block(s) */
        b = &none;
        nb = 1;
    }
    /* each posting to the first block whose last row is at least its row, else the last */
    size_t j = 0;
    for (size_t i = 0; i < t->ents.len; i++) {
        while (j + 1 < nb && b[j].last < t->ents.items[i].rowid)
            j++;
        mn_vec_push(&b[j].add, t->ents.items[i]);
    }
    ent_vec old = MN_VEC_INIT, merged = MN_VEC_INIT;
    int rc = 0;
    for (j = 0; j < nb && rc == 0; j++) {
        if (b[j].add.len == 0)
            continue;
        old.len = merged.len = 0;
        if (b[j].data) {
            if (!decode(b[j].data, b[j].n, &old, pool)) {
                rc = mn_error_set(MN_EIO, "full-text block of '%s' is malformed", t->term);
                break;
            }
            writes_del(w, t->term, b[j].last);
        }
        size_t x = 0, y = 0;
        while (x < old.len || y < b[j].add.len) {
            int c = x == old.len        ? 1
                    : y == b[j].add.len ? -1
                                        : cmp_ent(&old.items[x], &b[j].add.items[y]);
            if (c < 0) {
                mn_vec_push(&merged, old.items[x++]);
            } else {
                x += c == 0; /* the same (row, field) twice: the tail's is the newer */
                mn_vec_push(&merged, b[j].add.items[y++]);
            }
        }
        writes_put(w, t->term, merged.items, merged.len, pool->items);
    }
    mn_vec_release(&old);
    mn_vec_release(&merged);
    mn_vec_release(&none.add);
    return rc;
}

static void fterms_release(fterm *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].term);
        mn_vec_release(&t[i].ents);
        for (size_t j = 0; j < t[i].blocks.len; j++) {
            free(t[i].blocks.items[j].data);
            mn_vec_release(&t[i].blocks.items[j].add);
        }
        mn_vec_release(&t[i].blocks);
    }
}

/*
 * One chunk of the tail (long: the postings of more than 256 positions, which
 * fts_postings_pos does not hold) after the key (term, rowid, field), folded
 * and deleted; *key moves to the chunk's last, *nrows its postings.
 */
static int fold_chunk(mn_store *s, mn_fts_table table, bool long_pos, char **key_term,
                      int64_t *key_row, int64_t *key_field, int64_t *nrows)
{
    static const char *const reads[2] = {
        "SELECT term, rowid, field, tf, ntok, flags, pos FROM fts_postings WHERE project_id = "
        "$1 AND tbl = $2 AND (term, rowid, field) > ($3::text COLLATE \"C\", $4::bigint, "
        "$5::smallint) AND cardinality(pos) <= 256 ORDER BY term, rowid, field LIMIT $6",
        "SELECT term, rowid, field, tf, ntok, flags, pos FROM fts_postings WHERE project_id = "
        "$1 AND tbl = $2 AND (term, rowid, field) > ($3::text COLLATE \"C\", $4::bigint, "
        "$5::smallint) AND cardinality(pos) > 256 ORDER BY term, rowid, field LIMIT $6"};
    static const char *const dels[2] = {
        "WITH d AS (DELETE FROM fts_postings WHERE project_id = $1 AND tbl = $2 AND (term, "
        "rowid, field) > ($3::text COLLATE \"C\", $4::bigint, $5::smallint) AND (term, rowid, "
        "field) <= ($6::text COLLATE \"C\", $7::bigint, $8::smallint) AND cardinality(pos) <= "
        "256 RETURNING 1) UPDATE fts_stats SET tail = tail - (SELECT count(*) FROM d) WHERE "
        "project_id = $1 AND tbl = $2",
        "WITH d AS (DELETE FROM fts_postings WHERE project_id = $1 AND tbl = $2 AND (term, "
        "rowid, field) > ($3::text COLLATE \"C\", $4::bigint, $5::smallint) AND (term, rowid, "
        "field) <= ($6::text COLLATE \"C\", $7::bigint, $8::smallint) AND cardinality(pos) > "
        "256 RETURNING 1) UPDATE fts_stats SET tail = tail - (SELECT count(*) FROM d) WHERE "
        "project_id = $1 AND tbl = $2"};
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__text(&p, *key_term);
    mn_pg__int(&p, *key_row);
    mn_pg__int(&p, *key_field);
    mn_pg__int(&p, FOLD_CHUNK);
    PGresult *r = mn_pg__run(s, reads[long_pos], &p, "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    const mn_pq_api *pq = pg(s)->pq;
    int n = pq->ntuples(r), rc = 0;
    *nrows = n;
    if (n == 0) {
        pq->clear(r);
        return 0;
    }
    MN_VEC(fterm) terms = MN_VEC_INIT;
    i32_vec pool = MN_VEC_INIT;
    for (int i = 0; i < n; i++) {
        const char *term = pq->getvalue(r, i, 0);
        if (terms.len == 0 || strcmp(terms.items[terms.len - 1].term, term) != 0) {
            fterm t = {mn_strdup(term), MN_VEC_INIT, MN_VEC_INIT};
            mn_vec_push(&terms, t);
        }
        mn_pg_block_ent e = {mn_pg__col_int(s, r, i, 1),
                             (int32_t)mn_pg__col_int(s, r, i, 2),
                             0,
                             (int32_t)mn_pg__col_int(s, r, i, 4),
                             (int32_t)mn_pg__col_int(s, r, i, 5),
                             (uint32_t)pool.len};
        e.tf = parse_pos(pq->getvalue(r, i, 6), &pool);
        mn_vec_push(&terms.items[terms.len - 1].ents, e);
    }
    /* the deletion's range: after the old key, up to the chunk's last posting */
    mn_pg_params d = {0};
    mn_pg__int(&d, s->project_id);
    mn_pg__int(&d, (int64_t)table);
    mn_pg__text(&d, *key_term);
    mn_pg__int(&d, *key_row);
    mn_pg__int(&d, *key_field);
    free(*key_term);
    *key_term = mn_strdup(pq->getvalue(r, n - 1, 0));
    *key_row = mn_pg__col_int(s, r, n - 1, 1);
    *key_field = mn_pg__col_int(s, r, n - 1, 2);
    mn_pg__text(&d, *key_term);
    mn_pg__int(&d, *key_row);
    mn_pg__int(&d, *key_field);
    pq->clear(r);
    writes w;
    writes_init(&w);
    rc = fetch_blocks(s, table, terms.items, terms.len);
    for (size_t i = 0; i < terms.len && rc == 0; i++)
        rc = fold_term(&terms.items[i], &pool, &w);
    if (rc == 0)
        rc = writes_flush(s, table, &w);
    if (rc == 0)
        rc = mn_pg__exec(s, dels[long_pos], &d, "cannot update the full-text index");
    else
        mn_pg__params_release(&d);
    writes_release(&w);
    fterms_release(terms.items, terms.len);
    mn_vec_release(&terms);
    mn_vec_release(&pool);
    return rc;
}

int mn_pg__blocks_fold(mn_store *s, mn_fts_table table)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    /* one folder per project (a writer holds this already; reentrant) */
    mn_pg__int(&p, MN_PG_LOCK_KEY);
    mn_pg__int(&p, s->project_id);
    int rc = mn_pg__exec(s, "SELECT pg_advisory_xact_lock($1::int, $2::int)", &p,
                         "cannot lock the store for writing");
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        char *term = mn_strdup(""); /* before every term: none is empty */
        int64_t row = INT64_MIN, field = -1, n = FOLD_CHUNK;
        while (rc == 0 && n == FOLD_CHUNK)
            rc = fold_chunk(s, table, pass == 1, &term, &row, &field, &n);
        free(term);
    }
    return rc;
}

int mn_pg__blocks_del(mn_store *s, mn_fts_table table, char *const *terms, const int64_t *rows,
                      size_t npairs, const int64_t *rowids, size_t n)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    if (npairs == 0 || n == 0)
        return 0;
    mn_buf ts = MN_BUF_INIT, rs = MN_BUF_INIT;
    for (size_t i = 0; i < npairs; i++) {
        arr_text(&ts, terms[i], i);
        arr_int(&rs, rows[i], i);
    }
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    arr_take(&p, &ts, npairs);
    arr_take(&p, &rs, npairs);
    PGresult *r =
        mn_pg__run(s,
                   "SELECT DISTINCT ON (x.t, b.last) x.t, b.last, b.data FROM unnest($3::text[], "
                   "$4::bigint[]) AS x(t, r) CROSS JOIN LATERAL (SELECT last, first, "
                   "data FROM fts_blocks WHERE project_id = $1 AND tbl = $2 AND term = "
                   "x.t AND last >= x.r ORDER BY last LIMIT 1) b WHERE b.first <= x.r",
                   &p, "cannot update the full-text index");
    if (!r)
        return mn_error_last_code();
    const mn_pq_api *pq = pg(s)->pq;
    int64_t *gone = mn_malloc(n * sizeof(int64_t));
    memcpy(gone, rowids, n * sizeof(int64_t));
    qsort(gone, n, sizeof(int64_t), cmp_i64);
    ent_vec ents = MN_VEC_INIT, kept = MN_VEC_INIT;
    i32_vec pool = MN_VEC_INIT;
    writes w;
    writes_init(&w);
    int rc = 0;
    for (int i = 0; i < pq->ntuples(r) && rc == 0; i++) {
        const char *term = pq->getvalue(r, i, 0);
        size_t len;
        unsigned char *data = mn_pg__unhex(pq->getvalue(r, i, 2), &len);
        ents.len = kept.len = pool.len = 0;
        if (!data || !decode(data, len, &ents, &pool)) {
            rc = mn_error_set(MN_EIO, "full-text block of '%s' is malformed", term);
            free(data);
            break;
        }
        free(data);
        for (size_t k = 0; k < ents.len; k++)
            if (!bsearch(&ents.items[k].rowid, gone, n, sizeof(int64_t), cmp_i64))
                mn_vec_push(&kept, ents.items[k]);
        if (kept.len == ents.len)
            continue;
        writes_del(&w, term, mn_pg__col_int(s, r, i, 1));
        writes_put(&w, term, kept.items, kept.len, pool.items);
    }
    pq->clear(r);
    if (rc == 0)
        rc = writes_flush(s, table, &w);
    writes_release(&w);
    mn_vec_release(&ents);
    mn_vec_release(&kept);
    mn_vec_release(&pool);
    free(gone);
    return rc;
}

int mn_pg__blocks_check(mn_store *s)
{
    if (s->read_only)
        return 0;
    mn_pg_params p = {0};
    mn_pg__int(&p, MN_PG_FOLD_AT);
    PGresult *r = mn_pg__run(s,
                             "SELECT project_id, tbl FROM fts_stats WHERE tail > $1 ORDER BY "
                             "project_id, tbl",
                             &p, "cannot read the full-text index");
    if (!r)
        return mn_error_last_code();
    int n = pg(s)->pq->ntuples(r), rc = 0;
    int64_t project = s->project_id;
    for (int i = 0; i < n && rc == 0; i++) {
        s->project_id = mn_pg__col_int(s, r, i, 0);
        if ((rc = mn_store_begin(s)) != 0)
            break;
        rc = mn_pg__blocks_fold(s, (mn_fts_table)mn_pg__col_int(s, r, i, 1));
        if (rc == 0)
            rc = mn_store_commit(s);
        else
            mn_store_rollback(s);
    }
    s->project_id = project;
    pg(s)->pq->clear(r);
    /* the tail's old rows are dead now: a vacuum (outside a transaction) gives their pages
     * back to the index-only scans; not being the table's owner is no failure */
    if (rc == 0 && n > 0) {
        PGresult *v = pg(s)->pq->exec(pg(s)->conn, "VACUUM (ANALYZE) fts_postings, fts_blocks");
        pg(s)->pq->clear(v);
    }
    return rc;
}
