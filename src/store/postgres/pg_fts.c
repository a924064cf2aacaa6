/*
 * pg_fts.c - FTS5's query language and bm25() over the PostgreSQL back
 * end's postings (pg_search.h): what sqlite/search_store.c asks FTS5 for,
 * answered in C from postings fetched in one statement.
 *
 * Queries. The expressions mnemo builds (mn_store_fts_query,
 * mn_store_fts_text_query, retrieve/lexical.c): quoted strings and
 * barewords (phrases), AND, OR, parentheses; AND binds tighter than OR
 * and two phrases side by side are an AND, as in FTS5. Phrases are
 * numbered left to right, as FTS5 numbers them (the idf list of
 * mn_memory_query). A phrase is tokenized as FTS5 tokenizes it with
 * FTS5_TOKENIZE_QUERY (sqlite/fts_tokenizer.c): the whole of an identifier
 * dropped, another stem a synonym of the term before it. A phrase matches
 * a row where its terms stand at consecutive positions of one field; its
 * instances in a field are the positions where it starts (a synonym's
 * positions merged with its term's, each position once). A phrase of no
 * term matches nothing. NEAR, NOT, column filters and prefixes are not
 * made by mnemo and are refused (MN_EINVAL).
 *
 * Scores (fts5_aux.c's bm25(), and mnemo_bm25 of fts_tokenizer.c):
 *   score(row) = sum over phrases i with f_i > 0 of
 *                idf_i * f_i * (k1 + 1) / (f_i + k1 * (1 - b + b * D / avgdl))
 *   f_i   = sum over fields c of w_c * (instances of phrase i in field c)
 *   D     = the row's length in tokens (all fields), avgdl = total / N
 *   idf_i = ln((N - n_i + 0.5) / (n_i + 0.5)), at least 1e-6, n_i the rows
 *           matching phrase i (or the caller's value for it)
 *   k1 = 1.2, b = 0.75
 * N and the total are the project's (fts_stats): SQLite's FTS5 tables hold
 * every project of a file, a PostgreSQL database many teams' projects, and
 * one project's ranking must not move with another's writes. For a store
 * of one project the two are the same numbers.
 */
#include "common.h"
#include <math.h>

#include "store/postgres/pg_blocks.h"
#include "store/postgres/pg_internal.h"
#include "store/postgres/pg_search.h"
#include "text/tokenize.h"
#include "util/map.h"
#include "util/vec.h"

#define MAX_ALTS    4  /* synonyms of one position of a phrase */
#define MAX_PHRASE  16 /* positions of one phrase */
#define MAX_NODES   (MN_SEARCH_MAX_PHRASES * 2 + 8)
#define MAX_COLUMNS 8

typedef struct {
    int alt[MAX_PHRASE][MAX_ALTS]; /* term indexes */
    int nalt[MAX_PHRASE];
    int npos;
    bool overflow; /* more positions than MAX_PHRASE: never matches (never made by mnemo) */
} phrase;

enum { N_PHRASE, N_AND, N_OR };

typedef struct {
    int type;
    int phrase;        /* N_PHRASE */
    int first, nchild; /* N_AND / N_OR: children in kids[first .. first + nchild) */
} node;

struct mn_pg_fts {
    phrase *phrases;
    size_t nphrases;
    node nodes[MAX_NODES];
    int kids[MAX_NODES];
    int nnodes, nkids, root;
    mn_map term_ix;  /* term -> index + 1 (as a pointer) */
    char **terms;    /* by index */
    bool *needs_pos; /* by index: a term whose positions a phrase needs */
    size_t nterms, cap_terms;
    const char *p; /* parser */
    int err;
};

/* ---- parsing ---- */

static int term_index(mn_pg_fts *q, const char *t, size_t len)
{
    char key[MN_TOK_MAX_BYTES + 1];
    if (len > MN_TOK_MAX_BYTES)
        len = MN_TOK_MAX_BYTES;
    memcpy(key, t, len);
    key[len] = '\0';
    void *v = mn_map_get(&q->term_ix, key);
    if (v)
        return (int)(uintptr_t)v - 1;
    if (q->nterms == q->cap_terms) {
        q->cap_terms = q->cap_terms ? q->cap_terms * 2 : 16;
        q->terms = mn_realloc(q->terms, q->cap_terms * sizeof(char *));
        q->needs_pos = mn_realloc(q->needs_pos, q->cap_terms * sizeof(bool));
    }
    q->terms[q->nterms] = mn_strdup(key);
    q->needs_pos[q->nterms] = false;
    mn_map_set(&q->term_ix, key, (void *)(uintptr_t)(q->nterms + 1));
    return (int)q->nterms++;
}

typedef struct {
    mn_pg_fts *q;
    phrase *ph;
} phrase_ctx;

static int phrase_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                        int colocated)
{
    MN_UNUSED(start);
    MN_UNUSED(end);
    phrase_ctx *c = payload;
    phrase *ph = c->ph;
    if (colocated == MN_TOK_COLOC_WHOLE || len == 0)
        return 0; /* fts_tokenizer.c: a query drops the whole */
    int t = term_index(c->q, tok, len);
    if (colocated && ph->npos > 0) { /* another stem: a synonym of the term before */
        int k = ph->npos - 1;
        if (ph->nalt[k] < MAX_ALTS)
            ph->alt[k][ph->nalt[k]++] = t;
        return 0;
    }
    if (ph->npos == MAX_PHRASE) {
        ph->overflow = true;
        return 0;
    }
    ph->alt[ph->npos][0] = t;
    ph->nalt[ph->npos++] = 1;
    return 0;
}

static int new_node(mn_pg_fts *q, int type)
{
    if (q->nnodes == MAX_NODES) {
        q->err = mn_error_set(MN_EINVAL, "full-text query has too many phrases");
        return -1;
    }
    q->nodes[q->nnodes] = (node){.type = type};
    return q->nnodes++;
}

static void skip_space(mn_pg_fts *q)
{
    while (*q->p == ' ' || *q->p == '\t' || *q->p == '\n' || *q->p == '\r')
        q->p++;
}

static bool bare_char(unsigned char c)
{
    return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || c == '_' || c == 0x1a;
}

/* A keyword (AND, OR, NOT, NEAR) at q->p, as a whole bareword. */
static bool keyword(mn_pg_fts *q, const char *kw)
{
    size_t n = strlen(kw);
    return strncmp(q->p, kw, n) == 0 && !bare_char((unsigned char)q->p[n]);
}

static int parse_or(mn_pg_fts *q);

static int parse_phrase(mn_pg_fts *q)
{
    mn_buf text = MN_BUF_INIT;
    if (*q->p == '"') {
        q->p++;
        for (;;) {
            if (!*q->p) {
                mn_buf_release(&text);
                q->err = mn_error_set(MN_EINVAL, "full-text query has an unclosed quote");
                return -1;
            }
            if (*q->p == '"') {
                if (q->p[1] != '"') {
                    q->p++;
                    break;
                }
                q->p++;
            }
            mn_buf_putc(&text, *q->p++);
        }
    } else {
        while (bare_char((unsigned char)*q->p))
            mn_buf_putc(&text, *q->p++);
    }
    if (q->nphrases == MN_SEARCH_MAX_PHRASES) {
        mn_buf_release(&text);
        q->err = mn_error_set(MN_EINVAL, "full-text query has more than %d phrases",
                              MN_SEARCH_MAX_PHRASES);
        return -1;
    }
    int n = new_node(q, N_PHRASE);
    if (n < 0) {
        mn_buf_release(&text);
        return -1;
    }
    phrase *ph = &q->phrases[q->nphrases];
    memset(ph, 0, sizeof(*ph));
    phrase_ctx c = {q, ph};
    mn_tokenize(text.ptr, text.len, MN_LANG_UNKNOWN, MN_TOK_QUERY, phrase_token, &c);
    mn_buf_release(&text);
    /* positions are needed to match a phrase of several terms, or to merge synonyms */
    for (int k = 0; k < ph->npos; k++)
        if (ph->npos > 1 || ph->nalt[k] > 1)
            for (int a = 0; a < ph->nalt[k]; a++)
                q->needs_pos[ph->alt[k][a]] = true;
    q->nodes[n].phrase = (int)q->nphrases++;
    if (*q->p == '*' || *q->p == ':' || *q->p == '^' || *q->p == '+') {
        q->err =
            mn_error_set(MN_EINVAL, "full-text query uses '%c', which mnemo does not make", *q->p);
        return -1;
    }
    return n;
}

static int parse_unary(mn_pg_fts *q)
{
    skip_space(q);
    if (*q->p == '(') {
        q->p++;
        int n = parse_or(q);
        skip_space(q);
        if (n < 0)
            return -1;
        if (*q->p != ')') {
            q->err = mn_error_set(MN_EINVAL, "full-text query has an unclosed parenthesis");
            return -1;
        }
        q->p++;
        return n;
    }
    if (*q->p == '"' || (bare_char((unsigned char)*q->p) && !keyword(q, "AND") &&
                         !keyword(q, "OR") && !keyword(q, "NOT") && !keyword(q, "NEAR")))
        return parse_phrase(q);
    q->err = mn_error_set(MN_EINVAL, "full-text query has unsupported syntax at '%.20s'", q->p);
    return -1;
}

/* children of an AND or OR node, gathered before they are stored contiguously */
static int make_list(mn_pg_fts *q, int type, const int *items, int n)
{
    if (n == 1)
        return items[0];
    int node_ix = new_node(q, type);
    if (node_ix < 0)
        return -1;
    if (q->nkids + n > MAX_NODES) {
        q->err = mn_error_set(MN_EINVAL, "full-text query is too long");
        return -1;
    }
    q->nodes[node_ix].first = q->nkids;
    q->nodes[node_ix].nchild = n;
    memcpy(q->kids + q->nkids, items, (size_t)n * sizeof(int));
    q->nkids += n;
    return node_ix;
}

static int parse_and(mn_pg_fts *q)
{
    int items[MAX_NODES], n = 0;
    for (;;) {
        int u = parse_unary(q);
        if (u < 0)
            return -1;
        items[n++] = u;
        skip_space(q);
        if (keyword(q, "AND")) {
            q->p += 3;
            continue;
        }
        /* side by side: an implicit AND */
        if (*q->p && *q->p != ')' && !keyword(q, "OR") && n < MAX_NODES)
            continue;
        break;
    }
    return make_list(q, N_AND, items, n);
}

static int parse_or(mn_pg_fts *q)
{
    int items[MAX_NODES], n = 0;
    for (;;) {
        int a = parse_and(q);
        if (a < 0)
            return -1;
        items[n++] = a;
        skip_space(q);
        if (keyword(q, "OR") && n < MAX_NODES) {
            q->p += 2;
            continue;
        }
        break;
    }
    return make_list(q, N_OR, items, n);
}

void mn_pg__fts_free(mn_pg_fts *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->nterms; i++)
        free(q->terms[i]);
    free(q->terms);
    free(q->needs_pos);
    free(q->phrases);
    mn_map_release(&q->term_ix);
    free(q);
}

int mn_pg__fts_parse(const char *match, mn_pg_fts **out)
{
    mn_pg_fts *q = mn_calloc(1, sizeof(*q));
    q->term_ix = (mn_map)MN_MAP_INIT;
    q->phrases = mn_calloc(MN_SEARCH_MAX_PHRASES, sizeof(phrase));
    q->p = match ? match : "";
    skip_space(q);
    q->root = *q->p ? parse_or(q) : -1;
    skip_space(q);
    if (q->root >= 0 && *q->p) {
        q->err = mn_error_set(MN_EINVAL, "full-text query has unsupported syntax at '%.20s'", q->p);
    } else if (q->root < 0 && !q->err) {
        q->err = mn_error_set(MN_EINVAL, "full-text query is empty");
    }
    if (q->err) {
        int rc = q->err;
        mn_pg__fts_free(q);
        *out = NULL;
        return rc;
    }
    *out = q;
    return 0;
}

size_t mn_pg__fts_nphrases(const mn_pg_fts *q)
{
    return q->nphrases;
}

/* ---- postings of a query ---- */

typedef struct {
    int64_t rowid;
    int32_t term, field, tf, ntok;
    int32_t flags;
    uint32_t pos, npos; /* into the position list */
} posting;

typedef MN_VEC(int32_t) i32vec;

typedef struct {
    MN_VEC(posting) post;
    i32vec pos;
} fetched;

static void text_array(mn_buf *b, char *const *items, const bool *only, size_t n)
{
    mn_buf_putc(b, '{');
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (only && !only[i])
            continue;
        if (!first)
            mn_buf_putc(b, ',');
        first = false;
        mn_buf_putc(b, '"');
        for (const char *c = items[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                mn_buf_putc(b, '\\');
            mn_buf_putc(b, *c);
        }
        mn_buf_putc(b, '"');
    }
    mn_buf_putc(b, '}');
}

/* "{1,5,9}" -> the positions appended to f->pos */
static void parse_positions(fetched *f, const char *v, posting *p)
{
    p->pos = (uint32_t)f->pos.len;
    for (const char *c = v; c && *c;) {
        if (*c < '0' || *c > '9') {
            c++;
            continue;
        }
        char *e;
        long n = strtol(c, &e, 10);
        mn_vec_push(&f->pos, (int32_t)n);
        c = e;
    }
    p->npos = (uint32_t)(f->pos.len - p->pos);
}

typedef MN_VEC(posting) posting_vec;

static int cmp_row_field(const void *a, const void *b)
{
    const posting *x = a, *y = b;
    if (x->rowid != y->rowid)
        return x->rowid < y->rowid ? -1 : 1;
    return x->field < y->field ? -1 : x->field > y->field;
}

/* A block's postings of term t within [from, to) appended to v (positions when wanted). */
static bool take_block(fetched *f, posting_vec *v, int t, bool want_pos, const char *hex,
                       int64_t from, int64_t to)
{
    size_t n;
    unsigned char *data = mn_pg__unhex(hex, &n);
    if (!data)
        return false;
    mn_pg_block_it it;
    mn_pg__block_init(&it, data, n);
    while (mn_pg__block_next(&it)) {
        if (it.rowid < from || it.rowid >= to || it.field < 0 || it.field >= MAX_COLUMNS)
            continue;
        posting e = {it.rowid, t, it.field, it.tf, it.ntok, it.flags, 0, 0};
        if (want_pos) {
            e.pos = (uint32_t)f->pos.len;
            e.npos = (uint32_t)it.tf;
            mn_vec_reserve(&f->pos, f->pos.len + (size_t)it.tf);
            mn_pg__block_positions(&it, f->pos.items + f->pos.len);
            f->pos.len += (size_t)it.tf;
        }
        mn_vec_push(v, e);
    }
    free(data);
    return !it.bad;
}

/* Whether term a's next posting comes before term b's: by row id, then term. */
static bool heap_less(const posting_vec *per, const size_t *at, size_t a, size_t b)
{
    int64_t x = per[a].items[at[a]].rowid, y = per[b].items[at[b]].rowid;
    return x != y ? x < y : a < b;
}

static void heap_push(const posting_vec *per, const size_t *at, size_t *h, size_t *n, size_t t)
{
    size_t i = (*n)++;
    for (; i > 0 && heap_less(per, at, t, h[(i - 1) / 2]); i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = t;
}

static size_t heap_pop(const posting_vec *per, const size_t *at, size_t *h, size_t *n)
{
    size_t top = h[0], last = h[--*n], i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && heap_less(per, at, h[c + 1], h[c]))
            c++;
        if (!heap_less(per, at, h[c], last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/*
 * The postings of q's terms with a row id in [from, to), into f->post in (row id, term, field)
 * order: the blocks' (pg_blocks.h) and the tail's, in one statement. Each term's postings are
 * put in order apart (the blocks come in order, already), then merged by row id: a sort of
 * them all was a third of a search's time.
 */
static int fetch(mn_store *s, const mn_pg_fts *q, mn_fts_table table, int64_t from, int64_t to,
                 fetched *f)
{
    mn_buf terms = MN_BUF_INIT, pos_terms = MN_BUF_INIT;
    text_array(&terms, q->terms, NULL, q->nterms);
    text_array(&pos_terms, q->terms, q->needs_pos, q->nterms);
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__int(&p, (int64_t)table);
    mn_pg__take(&p, mn_buf_detach(&terms));
    mn_pg__int(&p, from);
    mn_pg__int(&p, to);
    mn_pg__take(&p, mn_buf_detach(&pos_terms));
    /* the blocks holding rows of the range (a term's blocks do not overlap: those whose last
     * row is in or after it, and whose first is before its end); then the tail (at most
     * MN_PG_FOLD_AT postings, its newest pages), positions only of the terms whose positions
     * a phrase needs. Two parts: a statement is planned at every run (plan_cache_mode), and
     * the four of schema 3's index-only scans took 0.4 ms to plan, six times a search */
    PGresult *r = mn_pg__run(
        s,
        "SELECT array_position($3::text[], term::text) - 1, NULL::bigint, NULL::smallint, "
        "NULL::int, NULL::int, NULL::smallint, NULL::int[], data FROM fts_blocks WHERE "
        "project_id = $1 AND tbl = $2 AND term = ANY ($3::text[]) AND last >= $4 AND first < $5 "
        "UNION ALL SELECT array_position($3::text[], term::text) - 1, rowid, field, tf, ntok, "
        "flags, CASE WHEN term = ANY ($6::text[]) THEN pos END, NULL::bytea FROM fts_postings "
        "WHERE project_id = $1 AND tbl = $2 AND term = ANY ($3::text[]) AND rowid >= $4 AND "
        "rowid < $5",
        &p, "cannot search the full-text index");
    if (!r)
        return mn_error_last_code();
    const mn_pq_api *pq = pg(s)->pq;
    int n = pq->ntuples(r), rc = 0;
    size_t nt = q->nterms;
    posting_vec *per = mn_calloc(nt ? nt : 1, sizeof(posting_vec));
    for (int i = 0; i < n && rc == 0; i++) {
        long t = strtol(pq->getvalue(r, i, 0), NULL, 10);
        if (t < 0 || (size_t)t >= nt)
            continue;
        if (!pq->getisnull(r, i, 7)) {
            if (!take_block(f, &per[t], (int)t, q->needs_pos[t], pq->getvalue(r, i, 7), from, to))
                rc = mn_error_set(MN_EIO, "full-text block of '%s' is malformed", q->terms[t]);
            continue;
        }
        posting e = {0};
        e.rowid = strtoll(pq->getvalue(r, i, 1), NULL, 10);
        e.term = (int32_t)t;
        e.field = (int32_t)strtol(pq->getvalue(r, i, 2), NULL, 10);
        e.tf = (int32_t)strtol(pq->getvalue(r, i, 3), NULL, 10);
        e.ntok = (int32_t)strtol(pq->getvalue(r, i, 4), NULL, 10);
        e.flags = (int32_t)strtol(pq->getvalue(r, i, 5), NULL, 10);
        if (!pq->getisnull(r, i, 6))
            parse_positions(f, pq->getvalue(r, i, 6), &e);
        if (e.field < 0 || e.field >= MAX_COLUMNS)
            continue;
        mn_vec_push(&per[t], e);
    }
    pq->clear(r);
    size_t total = 0, *at = mn_calloc(nt ? nt : 1, sizeof(size_t));
    for (size_t t = 0; t < nt; t++) {
        posting_vec *v = &per[t];
        total += v->len;
        for (size_t i = 1; i < v->len; i++)
            if (cmp_row_field(&v->items[i - 1], &v->items[i]) > 0) {
                qsort(v->items, v->len, sizeof(posting), cmp_row_field);
                break;
            }
    }
    mn_vec_reserve(&f->post, f->post.len + total);
    /* a heap of the terms by (their next row id, term): the lowest at the top, then that
     * term's postings of that row (a scan of every term for each row was quadratic in a long
     * question's words) */
    size_t *heap = mn_malloc((nt ? nt : 1) * sizeof(size_t)), nh = 0;
    for (size_t t = 0; t < nt; t++)
        if (per[t].len)
            heap_push(per, at, heap, &nh, t);
    while (nh) {
        size_t t = heap_pop(per, at, heap, &nh);
        int64_t row = per[t].items[at[t]].rowid;
        while (at[t] < per[t].len && per[t].items[at[t]].rowid == row)
            mn_vec_push(&f->post, per[t].items[at[t]++]);
        if (at[t] < per[t].len)
            heap_push(per, at, heap, &nh, t);
    }
    free(heap);
    for (size_t t = 0; t < nt; t++)
        mn_vec_release(&per[t]);
    free(per);
    free(at);
    return rc;
}

/* ---- one row ---- */

static const posting *find(const posting *g, size_t n, int term, int field)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].term == term && g[i].field == field)
            return &g[i];
    return NULL;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The positions of one phrase position (its synonyms merged) in a field, sorted, unique. */
static size_t merged(const fetched *f, const posting *g, size_t n, const phrase *ph, int k,
                     int field, i32vec *out)
{
    out->len = 0;
    for (int a = 0; a < ph->nalt[k]; a++) {
        const posting *e = find(g, n, ph->alt[k][a], field);
        if (!e)
            continue;
        for (uint32_t i = 0; i < e->npos; i++)
            mn_vec_push(out, f->pos.items[e->pos + i]);
    }
    if (out->len > 1) {
        qsort(out->items, out->len, sizeof(int32_t), cmp_i32);
        size_t w = 1;
        for (size_t i = 1; i < out->len; i++)
            if (out->items[i] != out->items[w - 1])
                out->items[w++] = out->items[i];
        out->len = w;
    }
    return out->len;
}

static bool has(const int32_t *v, size_t n, int32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

typedef struct {
    i32vec a, b;
} scratch;

/* The instances of phrase ph in one field of a row (its postings g[0..n)). */
static int instances(const fetched *f, const posting *g, size_t n, const phrase *ph, int field,
                     scratch *sc)
{
    if (ph->npos == 0 || ph->overflow)
        return 0;
    if (ph->npos == 1 && ph->nalt[0] == 1) {
        const posting *e = find(g, n, ph->alt[0][0], field);
        return e ? e->tf : 0;
    }
    size_t nstart = merged(f, g, n, ph, 0, field, &sc->a);
    if (ph->npos == 1 || nstart == 0)
        return (int)nstart;
    /* starts whose following positions hold the phrase's next terms */
    int32_t *starts = mn_malloc((nstart ? nstart : 1) * sizeof(int32_t));
    memcpy(starts, sc->a.items, nstart * sizeof(int32_t));
    size_t live = nstart;
    for (int k = 1; k < ph->npos && live > 0; k++) {
        size_t m = merged(f, g, n, ph, k, field, &sc->b);
        size_t w = 0;
        for (size_t i = 0; i < live; i++)
            if (has(sc->b.items, m, starts[i] + k))
                starts[w++] = starts[i];
        live = w;
    }
    free(starts);
    return (int)live;
}

static bool eval(const mn_pg_fts *q, int n, const bool *matched)
{
    const node *nd = &q->nodes[n];
    if (nd->type == N_PHRASE)
        return matched[nd->phrase];
    for (int i = 0; i < nd->nchild; i++) {
        bool v = eval(q, q->kids[nd->first + i], matched);
        if (nd->type == N_AND && !v)
            return false;
        if (nd->type == N_OR && v)
            return true;
    }
    return nd->type == N_AND;
}

/* ---- running a query ---- */

static int read_stats(mn_store *s, mn_fts_table table, double *ndocs, double *ntok)
{
    mn_pg_fts_stats st;
    int rc = mn_pg__fts_stats(s, table, &st);
    *ndocs = (double)st.ndocs;
    *ntok = (double)st.ntok;
    return rc;
}

/* What search_store.c's bm25_expr writes: each weight as "%.4g" (0: the default). */
static double sql_weight(double w, double dflt)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%.4g", w > 0 ? w : dflt);
    return strtod(buf, NULL);
}

int mn_pg__fts_run(mn_store *s, const mn_pg_fts *q, const mn_pg_fts_opts *o, mn_pg_fts_rows *out)
{
    const double k1 = 1.2, b = 0.75;
    fetched f = {MN_VEC_INIT, MN_VEC_INIT};
    scratch sc = {MN_VEC_INIT, MN_VEC_INIT};
    size_t nph = q->nphrases, ncols = o->ncols < MAX_COLUMNS ? o->ncols : MAX_COLUMNS;
    double w[2][MAX_COLUMNS];
    double *idf = mn_calloc(nph ? nph : 1, sizeof(double));
    int64_t *hits = mn_calloc(nph ? nph : 1, sizeof(int64_t));
    int *cnt = mn_calloc((nph ? nph : 1) * MAX_COLUMNS, sizeof(int));
    bool *matched = mn_calloc(nph ? nph : 1, sizeof(bool));
    int *simple = mn_calloc(nph ? nph : 1, sizeof(int)); /* the term of a one-term phrase, or -1 */
    for (size_t p = 0; p < nph; p++) {
        const phrase *ph = &q->phrases[p];
        simple[p] = ph->npos == 1 && ph->nalt[0] == 1 && !ph->overflow ? ph->alt[0][0] : -1;
    }
    double ndocs = 0, total = 0, avgdl = 1;
    int rc = 0;
    out->len = 0;
    for (size_t k = 0; k < o->nweights && k < 2; k++)
        for (size_t c = 0; c < ncols; c++)
            w[k][c] = sql_weight(o->weights[k][c], o->defaults[k][c]);
    /* idfs not given are counted over the whole table, as FTS5's xQueryPhrase does */
    bool count_idf = false;
    for (size_t i = 0; o->score && i < nph; i++) {
        idf[i] = i < o->nidf && o->idf && !isnan(o->idf[i]) ? o->idf[i] : NAN;
        count_idf |= isnan(idf[i]);
    }
    if (o->score && (rc = read_stats(s, o->table, &ndocs, &total)) != 0)
        goto out;
    avgdl = ndocs > 0 ? total / ndocs : 1;
    int64_t from = count_idf ? INT64_MIN : o->from, to = count_idf ? INT64_MAX : o->to;
    if ((rc = fetch(s, q, o->table, from, to, &f)) != 0)
        goto out;
    for (int pass = count_idf ? 0 : 1; pass < 2; pass++) {
        for (size_t i = 0; i < f.post.len;) {
            size_t j = i + 1;
            while (j < f.post.len && f.post.items[j].rowid == f.post.items[i].rowid)
                j++;
            const posting *g = &f.post.items[i];
            size_t n = j - i;
            int64_t rowid = g->rowid;
            i = j;
            if (pass == 1 && (rowid < o->from || rowid >= o->to))
                continue;
            /* a phrase of one term: its frequencies straight from the row's postings (a
             * search's rows times phrases times columns of lookups were a fifth of it) */
            for (size_t p = 0; p < nph; p++)
                if (simple[p] >= 0)
                    memset(&cnt[p * MAX_COLUMNS], 0, MAX_COLUMNS * sizeof(int));
            for (size_t e = 0; e < n; e++)
                if ((size_t)g[e].field < ncols)
                    for (size_t p = 0; p < nph; p++)
                        if (simple[p] == g[e].term)
                            cnt[p * MAX_COLUMNS + (size_t)g[e].field] = g[e].tf;
            for (size_t p = 0; p < nph; p++) {
                matched[p] = false;
                for (size_t c = 0; c < ncols; c++) {
                    if (simple[p] < 0)
                        cnt[p * MAX_COLUMNS + c] = instances(&f, g, n, &q->phrases[p], (int)c, &sc);
                    matched[p] |= cnt[p * MAX_COLUMNS + c] > 0;
                }
            }
            if (pass == 0) {
                for (size_t p = 0; p < nph; p++)
                    hits[p] += matched[p];
                continue;
            }
            if (!eval(q, q->root, matched))
                continue;
            mn_pg_fts_row row = {.rowid = rowid, .flags = g->flags};
            double norm = k1 * (1 - b + b * (double)g->ntok / avgdl);
            for (size_t k = 0; o->score && k < o->nweights && k < 2; k++) {
                double score = 0;
                for (size_t p = 0; p < nph; p++) {
                    double freq = 0;
                    for (size_t c = 0; c < ncols; c++)
                        freq += (double)cnt[p * MAX_COLUMNS + c] * w[k][c];
                    if (freq > 0) {
                        double v = idf[p];
                        score += (v > 0 ? v : 1e-6) * (freq * (k1 + 1)) / (freq + norm);
                    }
                }
                row.score[k] = score;
            }
            mn_vec_push(out, row);
        }
        if (pass == 0)
            for (size_t p = 0; p < nph; p++)
                if (isnan(idf[p]))
                    idf[p] = log((ndocs - (double)hits[p] + 0.5) / ((double)hits[p] + 0.5));
    }
out:
    mn_vec_release(&f.post);
    mn_vec_release(&f.pos);
    mn_vec_release(&sc.a);
    mn_vec_release(&sc.b);
    free(idf);
    free(hits);
    free(cnt);
    free(matched);
    free(simple);
    return rc;
}

/* The rows matching q, counted from their postings (pg_blocks.h: the blocks hold a row's
 * postings of a term, not its row alone, so even an OR of words is matched here). */
int mn_pg__fts_count_rows(mn_store *s, const mn_pg_fts *q, mn_fts_table table, int64_t from,
                          int64_t to, int64_t *out)
{
    mn_pg_fts_rows rows = MN_VEC_INIT;
    mn_pg_fts_opts o = {.table = table, .from = from, .to = to, .ncols = MAX_COLUMNS};
    int rc = mn_pg__fts_run(s, q, &o, &rows);
    *out = rc == 0 ? (int64_t)rows.len : 0;
    mn_vec_release(&rows);
    return rc;
}
