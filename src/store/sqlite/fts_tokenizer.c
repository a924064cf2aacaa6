/*
 * fts_tokenizer.c - the FTS5 tokenizer "mnemo": mn_tokenize behind the
 * fts5_tokenizer interface, and a MATCH-expression builder for free text.
 *
 * Each FTS5 table gets its own instance (xCreate), which owns an
 * mn_tokenizer: the Snowball stemmers are created once per table and
 * connection, not per value. A connection is used by one thread at a time,
 * so the instance needs no lock; mn_tokenizer_run copes with re-entry.
 *
 * Index side: every term goes to FTS5; colocated ones (the whole identifier,
 * the English stem of a French word) with FTS5_TOKEN_COLOCATED, so they
 * share the position of the term before them and do not count in the
 * column's length (bm25 sees the same document length as without them).
 * Query side (FTS5_TOKENIZE_QUERY): wholes are dropped, alternative stems
 * are kept as FTS5 synonyms (any of them matches).
 *
 * Also the ranking function mnemo_bm25 (below), registered with the
 * tokenizer.
 */
#include "common.h"
#include <math.h>
#include "store/sqlite/fts_tokenizer.h"
#include "text/tokenize.h"
#include "util/map.h"

typedef struct {
    mn_tokenizer *tok;
    unsigned flags; /* MN_TOK_NO_STEM, MN_TOK_KEEP_STOPWORDS */
    mn_lang lang;
} fts_inst;

typedef struct {
    void *ctx;
    int (*xToken)(void *, int, const char *, int, int, int);
    bool query;
} fts_call;

static int fts_create(void *ud, const char **argv, int argc, Fts5Tokenizer **out)
{
    MN_UNUSED(ud);
    fts_inst *in = mn_calloc(1, sizeof(*in));
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "nostem") == 0) {
            in->flags |= MN_TOK_NO_STEM;
        } else if (strcmp(argv[i], "stopwords") == 0) {
            in->flags |= MN_TOK_KEEP_STOPWORDS;
        } else if (strcmp(argv[i], "lang") == 0 && i + 1 < argc &&
                   mn_lang_from_code(argv[i + 1]) != MN_LANG_UNKNOWN) {
            in->lang = mn_lang_from_code(argv[++i]);
        } else {
            free(in);
            return SQLITE_ERROR;
        }
    }
    in->tok = mn_tokenizer_new();
    *out = (Fts5Tokenizer *)in;
    return SQLITE_OK;
}

static void fts_delete(Fts5Tokenizer *p)
{
    fts_inst *in = (fts_inst *)p;
    if (!in)
        return;
    mn_tokenizer_free(in->tok);
    free(in);
}

static int fts_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                     int colocated)
{
    fts_call *c = payload;
    if (c->query && colocated == MN_TOK_COLOC_WHOLE)
        return SQLITE_OK;
    return c->xToken(c->ctx, colocated ? FTS5_TOKEN_COLOCATED : 0, tok, (int)len, (int)start,
                     (int)end);
}

static int fts_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text, int n,
                        int (*xToken)(void *, int, const char *, int, int, int))
{
    fts_inst *in = (fts_inst *)p;
    if (n <= 0 || !text)
        return SQLITE_OK;
    fts_call c = {ctx, xToken, (flags & FTS5_TOKENIZE_QUERY) != 0};
    unsigned tf = in->flags | (c.query ? MN_TOK_QUERY : 0);
    return mn_tokenizer_run(in->tok, text, (size_t)n, in->lang, tf, fts_token, &c);
}

/*
 * mnemo_bm25(tbl, w_1 .. w_C, idf_1 .. idf_P): FTS5's bm25() (k1 1.2, b
 * 0.75, term frequencies weighted by column, w_i the weight of column i,
 * default 1), except that the idf of each of the query's P phrases (in
 * the order they appear in the MATCH expression) may be given instead of
 * counted. bm25() counts the rows holding each phrase once per query by
 * reading the phrase's whole posting list: for a word found in half of
 * 100,000 memories that costs more than ranking the rows a search keeps,
 * and the caller has these counts already (mn_store_fts_count, cached).
 * idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6, as bm25() computes
 * it; a phrase without a value (or NULL) is counted as bm25() does, so
 * without idf arguments the result is bm25()'s. An optional last argument,
 * a pointer of type MN_FTS_DOC_SIZES (fts_tokenizer.h), gives the rows'
 * lengths instead of FTS5's docsize table (a row it does not cover, or
 * covers with 0, is read there).
 */
typedef struct {
    double avgdl, nrow;
    double *idf, *freq; /* per phrase; idf NAN: not counted yet */
} rank_data;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *payload)
{
    (void)api;
    (void)fts;
    (*(int64_t *)payload)++;
    return SQLITE_OK;
}

/* The query's data, made at its first row (FTS5 keeps it for the query, shared by every
 * mnemo_bm25 call of the statement: so given idfs are read per call, not kept). */
static rank_data *rank_setup(const Fts5ExtensionApi *api, Fts5Context *fts, int *rc)
{
    int nph = api->xPhraseCount(fts);
    sqlite3_int64 nrow = 0, ntok = 0;
    rank_data *d = sqlite3_malloc64(sizeof(*d) + 2 * (size_t)(nph ? nph : 1) * sizeof(double));
    if (!d) {
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    d->idf = (double *)(d + 1);
    d->freq = d->idf + (nph ? nph : 1);
    for (int i = 0; i < nph; i++)
        d->idf[i] = NAN;
    if ((*rc = api->xRowCount(fts, &nrow)) == SQLITE_OK)
        *rc = api->xColumnTotalSize(fts, -1, &ntok);
    d->nrow = (double)nrow;
    d->avgdl = nrow > 0 ? (double)ntok / (double)nrow : 1;
    if (*rc == SQLITE_OK)
        *rc = api->xSetAuxdata(fts, d, sqlite3_free);
    else
        sqlite3_free(d);
    return *rc == SQLITE_OK ? d : NULL;
}

/* The idf of phrase i: given (argument `at`), else counted once per query. */
static int rank_idf(const Fts5ExtensionApi *api, Fts5Context *fts, rank_data *d, int i, int at,
                    int nval, sqlite3_value **val, double *out)
{
    double v;
    if (at < nval && sqlite3_value_type(val[at]) != SQLITE_NULL) {
        v = sqlite3_value_double(val[at]);
    } else {
        if (isnan(d->idf[i])) {
            int64_t hits = 0;
            int rc = api->xQueryPhrase(fts, i, &hits, count_row);
            if (rc != SQLITE_OK)
                return rc;
            d->idf[i] = log((d->nrow - (double)hits + 0.5) / ((double)hits + 0.5));
        }
        v = d->idf[i];
    }
    *out = v > 0 ? v : 1e-6;
    return SQLITE_OK;
}

static void rank_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval,
                      sqlite3_value **val)
{
    const double k1 = 1.2, b = 0.75;
    int rc = SQLITE_OK, ninst = 0, ntok = 0, nph = api->xPhraseCount(fts);
    int ncol = api->xColumnCount(fts);
    const mn_fts_doc_sizes *sizes =
        nval > 0 ? sqlite3_value_pointer(val[nval - 1], MN_FTS_DOC_SIZES) : NULL;
    if (sizes)
        nval--;
    rank_data *d = api->xGetAuxdata(fts, 0);
    if (!d && !(d = rank_setup(api, fts, &rc))) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    for (int i = 0; i < nph; i++)
        d->freq[i] = 0;
    rc = api->xInstCount(fts, &ninst);
    for (int i = 0; i < ninst && rc == SQLITE_OK; i++) {
        int ph, col, off;
        if ((rc = api->xInst(fts, i, &ph, &col, &off)) == SQLITE_OK)
            d->freq[ph] += col < nval ? sqlite3_value_double(val[col]) : 1.0;
    }
    if (sizes) {
        sqlite3_int64 at = api->xRowid(fts) - sizes->first;
        if (at >= 0 && (uint64_t)at < sizes->n)
            ntok = sizes->ntok[at];
    }
    if (rc == SQLITE_OK && ntok == 0)
        rc = api->xColumnSize(fts, -1, &ntok);
    double score = 0, norm = k1 * (1 - b + b * (double)ntok / d->avgdl);
    for (int i = 0; i < nph && rc == SQLITE_OK; i++) {
        double idf = 0;
        if (d->freq[i] > 0 && (rc = rank_idf(api, fts, d, i, ncol + i, nval, val, &idf)) == 0)
            score += idf * (d->freq[i] * (k1 + 1)) / (d->freq[i] + norm);
    }
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    sqlite3_result_double(ctx, -score);
}

/* A docsize record: one SQLite varint per column, summed. */
static uint64_t docsize_total(const unsigned char *p, int len)
{
    uint64_t sum = 0;
    for (int i = 0; i < len;) {
        uint64_t v = 0;
        int k = 0;
        for (; k < 8 && i < len; k++) {
            unsigned char b = p[i++];
            v = (v << 7) | (b & 0x7f);
            if (!(b & 0x80))
                break;
        }
        if (k == 8 && i < len) /* a ninth byte: all 8 bits */
            v = (v << 8) | p[i++];
        sum += v;
    }
    return sum;
}

int mn_fts_read_doc_sizes(sqlite3 *db, const char *docsize, uint64_t max_span, uint16_t **ntok,
                          mn_fts_doc_sizes *out)
{
    char sql[128];
    sqlite3_stmt *st = NULL;
    *ntok = NULL;
    memset(out, 0, sizeof(*out));
    snprintf(sql, sizeof(sql), "SELECT min(id), max(id) FROM %s", docsize);
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    bool none = sqlite3_column_type(st, 0) == SQLITE_NULL;
    int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
    if (none || hi < lo || (uint64_t)(hi - lo) >= max_span)
        return SQLITE_OK;
    size_t n = (size_t)(hi - lo) + 1;
    uint16_t *sizes = mn_calloc(n, sizeof(*sizes));
    snprintf(sql, sizeof(sql), "SELECT id, sz FROM %s", docsize);
    if ((rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK) {
        free(sizes);
        return rc;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const unsigned char *sz = sqlite3_column_blob(st, 1);
        uint64_t t = sz ? docsize_total(sz, sqlite3_column_bytes(st, 1)) : 0;
        if (id >= lo && id <= hi && t <= UINT16_MAX)
            sizes[id - lo] = (uint16_t)t;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(sizes);
        return rc;
    }
    *ntok = sizes;
    out->first = lo;
    out->n = n;
    out->ntok = sizes;
    return SQLITE_OK;
}

int mn_sqlite_fts_register(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
        sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (!api || api->iVersion < 2)
        return mn_error_set(MN_ERROR, "cannot register the 'mnemo' tokenizer: sqlite has no fts5");
    static fts5_tokenizer tk = {fts_create, fts_delete, fts_tokenize};
    rc = api->xCreateTokenizer(api, "mnemo", NULL, &tk, NULL);
    if (rc != SQLITE_OK)
        return mn_error_set(MN_ERROR, "cannot register the 'mnemo' tokenizer: %s",
                            sqlite3_errstr(rc));
    rc = api->xCreateFunction(api, "mnemo_bm25", NULL, rank_bm25, NULL);
    if (rc != SQLITE_OK)
        return mn_error_set(MN_ERROR, "cannot register mnemo_bm25: %s", sqlite3_errstr(rc));
    return 0;
}

/* ---- MATCH expressions for free text ---- */

typedef struct {
    const char *text;
    mn_buf *out;
    unsigned flags;
    size_t max_terms;
    size_t nterms;
    size_t word_end;   /* end of the word whose pieces are being skipped */
    size_t pend_start; /* a single-piece term not yet written (SIZE_MAX: none) */
    size_t pend_end;
    char pend_tok[MN_TOK_MAX_BYTES + 1];
    mn_map seen;
} query_ctx;

static void put_quoted(mn_buf *b, const char *s, size_t n)
{
    mn_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            mn_buf_putc(b, '"');
        mn_buf_putc(b, s[i]);
    }
    mn_buf_putc(b, '"');
}

static void put_sep(query_ctx *q)
{
    if (q->nterms > 0)
        mn_buf_puts(q->out, (q->flags & MN_FTS_QUERY_AND) ? " AND " : " OR ");
    q->nterms++;
}

/* Write the pending single-piece term unless its token was seen. */
static void flush_pending(query_ctx *q)
{
    if (q->pend_start == SIZE_MAX)
        return;
    size_t s = q->pend_start;
    q->pend_start = SIZE_MAX;
    if (mn_map_has(&q->seen, q->pend_tok) || (q->max_terms && q->nterms >= q->max_terms))
        return;
    mn_map_set(&q->seen, q->pend_tok, NULL);
    put_sep(q);
    put_quoted(q->out, q->text + s, q->pend_end - s);
}

static int query_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                       int colocated)
{
    query_ctx *q = payload;
    if (colocated == MN_TOK_COLOC_ALT)
        return 0;
    if (colocated == MN_TOK_COLOC_WHOLE) {
        /* The pending term was the first piece of this word: the word replaces it. */
        q->pend_start = SIZE_MAX;
        q->word_end = end;
        char key[MN_TOK_MAX_BYTES + 2];
        key[0] = '\x01'; /* wholes and single terms apart */
        memcpy(key + 1, tok, len);
        key[len + 1] = '\0';
        if (mn_map_has(&q->seen, key) || (q->max_terms && q->nterms >= q->max_terms))
            return 0;
        mn_map_set(&q->seen, key, NULL);
        put_sep(q);
        const char *w = q->text + start;
        size_t n = end - start;
        /* The lower-case run meets the indexed whole; only for plain ASCII letters, which
         * the tokenizer reads back as one piece (digits or other scripts would split). */
        bool plain = true;
        for (size_t i = 0; i < n && plain; i++) {
            unsigned char ch = (unsigned char)w[i];
            plain = ch == '_' || (ch < 0x80 && ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z'));
        }
        if (!plain) {
            put_quoted(q->out, w, n);
            return 0;
        }
        mn_buf_putc(q->out, '(');
        put_quoted(q->out, w, n);
        mn_buf_puts(q->out, " OR \"");
        for (size_t i = 0; i < n; i++)
            if (w[i] != '_')
                mn_buf_putc(q->out, (char)(w[i] | 0x20));
        mn_buf_puts(q->out, "\")");
        return 0;
    }
    if (start < q->word_end)
        return 0; /* a later piece of a word already written */
    flush_pending(q);
    q->pend_start = start;
    q->pend_end = end;
    memcpy(q->pend_tok, tok, len);
    q->pend_tok[len] = '\0';
    return 0;
}

size_t mn_sqlite_fts_query(mn_buf *out, const char *text, size_t len, unsigned flags,
                           size_t max_terms)
{
    query_ctx q = {.text = text,
                   .out = out,
                   .flags = flags,
                   .max_terms = max_terms,
                   .pend_start = SIZE_MAX,
                   .seen = MN_MAP_INIT};
    size_t mark = out->len;
    mn_tokenize(text, len, MN_LANG_UNKNOWN, MN_TOK_QUERY, query_token, &q);
    flush_pending(&q);
    mn_map_release(&q.seen);
    if (q.nterms == 0)
        mn_buf_truncate(out, mark);
    return q.nterms;
}
