/*
 * embed_builtin.c - the built-in embedder: windowed LSA learned from the
 * project's own memories and chunks. Nothing to download; measured against
 * lexical search alone in docs/internals/embeddings.md.
 *
 * The model. Every document (a live memory, a chunk) is tokenized with the
 * tokenizer of the full-text index (text/tokenize.h), so a term here is a
 * term there. A term weighs w = (1 + ln tf) * idf, idf = ln((N + 1) /
 * (df + 0.5)) over the N documents. The model is trained on *windows*: a
 * document together with its neighbours in its stream (the two documents
 * before and after it: the memories saved around it, the chunks around it
 * in its file), weights summed over the window, (1 + ln tf) * idf, unit
 * length. X is the terms x windows matrix of those. The term vectors are
 * the first k left singular vectors of X (U_k, not scaled by the singular
 * values), and a text's vector is sum_t w_t U_t, unit length. Training on
 * windows rather than single documents is what makes the signal
 * complementary to BM25: a term's vector carries the context it was
 * written in, so "it was so relaxing" finds the question about the pottery
 * class the turn before it was about. Rare terms matter (their vector is
 * their context): every term of the corpus gets a vector.
 *
 * k = N / 8 rounded to a multiple of 16, within [32, 256]: the rank has to
 * stay well below the number of windows or LSA degenerates into plain
 * tf-idf cosine (on LoCoMo, 256 dimensions for ~600 turns loses the gain;
 * N/6 .. N/10 are within a point of each other).
 *
 * The SVD is randomized (Halko, Martinsson, Tropp 2011), run on the window
 * side so that nothing of size terms x terms or terms x l is
 * orthonormalised: Y = X^T Omega (Omega a +-1 matrix from a hash, never
 * stored), then POWER_ITERS times Q = orth(Y), Y = X^T (X Q); Q = orth(Y),
 * C = Q^T X^T X Q (l x l, l = k + OVERSAMPLE), C = W L W^T (Jacobi), the
 * window-side singular vectors P = Q W_k, sigma = sqrt(L), and the term
 * vectors U = X P / sigma. Cost O(nnz * l) per product plus O(windows *
 * l^2) per orthonormalisation. Above MAX_WINDOWS documents the SVD runs on
 * an evenly spaced sample of windows; every other window is then folded in
 * (p = U^T x / sigma) to give vectors to the terms the sample did not see.
 *
 * Training runs on mn_embed_threads() threads (embed_par.h): the corpus is
 * tokenized in parallel batches and merged in document order, and the SVD's
 * products split into parts that write disjoint rows and sum in the
 * one-thread order, so the model is the same bit for bit on any number of
 * threads (tests/unit/retrieve/test_embed_par.c).
 *
 * Stored: one row per model in embed_models ("builtin:lsa<k>@<16 hex>", the
 * fingerprint an xxh3 of the corpus texts, the project and the parameters)
 * and one int8 vector with its idf per term in embed_terms. Embedding a
 * query looks its few terms up; embedding documents loads every term once
 * per embedder. Deterministic: the same corpus gives the same model.
 */
#include "common.h"
#include <math.h>
#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdatomic.h>
#include <xxhash.h>

#include "retrieve/embed.h"
#include "retrieve/embed_par.h"
#include "store/store_vector.h"
#include "text/tokenize.h"
#include "util/map.h"
#include "util/util.h"
#include "util/vec.h"

#define ALGO_VERSION   1
#define WINDOW         2 /* neighbours on each side */
#define MIN_DIM        32
#define MAX_DIM        256
#define DOCS_PER_DIM   8 /* k = N / DOCS_PER_DIM */
#define OVERSAMPLE     8 /* l = k + OVERSAMPLE */
#define POWER_ITERS    2
#define MAX_WINDOWS    8000  /* windows the SVD runs on; the rest are folded in */
#define MAX_DOC_BYTES  65536 /* of a document's text, tokenized */
#define RETRAIN_FACTOR 1.5   /* retrain when the corpus grew or shrank by this factor */
#define MAX_TERMS      65536 /* the vocabulary, most frequent first: see cap_vocab */
#define LOOKUP_BATCH   64    /* texts embedded by looking their terms up, at most */
#define WRITE_BATCH    4096  /* vectors written per transaction after training */

/* ---- tokenizing into term ids ---- */

typedef struct {
    mn_map ids; /* term -> id + 1 */
    MN_VEC(char *) terms;
    MN_VEC(int64_t) df;
} vocab;

typedef struct {
    uint32_t t;
    float x;
} entry;

typedef MN_VEC(entry) entry_vec;

static uint32_t vocab_id(vocab *v, const char *tok, size_t len, bool add)
{
    char key[MN_TOK_MAX_BYTES + 1];
    if (len > MN_TOK_MAX_BYTES)
        len = MN_TOK_MAX_BYTES;
    memcpy(key, tok, len);
    key[len] = '\0';
    void *p = mn_map_get(&v->ids, key);
    if (p)
        return (uint32_t)((uintptr_t)p - 1);
    if (!add)
        return UINT32_MAX;
    uint32_t id = (uint32_t)v->terms.len;
    mn_vec_push(&v->terms, mn_strndup(key, len));
    mn_vec_push(&v->df, 0);
    mn_map_set(&v->ids, key, (void *)(uintptr_t)(id + 1));
    return id;
}

static void vocab_release(vocab *v)
{
    for (size_t i = 0; i < v->terms.len; i++)
        free(v->terms.items[i]);
    mn_vec_release(&v->terms);
    mn_vec_release(&v->df);
    mn_map_release(&v->ids);
}

/* A document as (term id, count) pairs, ids ascending. */
typedef struct {
    vocab *v;
    bool add;
    entry_vec *out;
} tok_ctx;

static int on_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                    int colocated)
{
    tok_ctx *c = payload;
    MN_UNUSED(start);
    MN_UNUSED(end);
    MN_UNUSED(colocated);
    uint32_t id = vocab_id(c->v, tok, len, c->add);
    if (id != UINT32_MAX)
        mn_vec_push(c->out, ((entry){id, 1}));
    return 0;
}

static int by_term(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Sort by term and sum the counts of equal terms, from index `from` on. */
static void collapse(entry_vec *e, size_t from)
{
    size_t n = e->len - from, w = 0;
    entry *p = e->items + from;
    if (n == 0)
        return;
    qsort(p, n, sizeof(*p), by_term);
    for (size_t i = 1; i < n; i++) {
        if (p[i].t == p[w].t)
            p[w].x += p[i].x;
        else
            p[++w] = p[i];
    }
    e->len = from + w + 1;
}

static void tokenize_into(vocab *v, bool add, entry_vec *out, const char *text, size_t len,
                          unsigned flags)
{
    size_t from = out->len;
    tok_ctx c = {v, add, out};
    if (len > MAX_DOC_BYTES)
        len = mn_utf8_floor(text, len, MAX_DOC_BYTES);
    mn_tokenize(text, len, MN_LANG_UNKNOWN, flags, on_token, &c);
    collapse(out, from);
}

/* ---- small dense linear algebra (double) ----
 *
 * The loops run in blocks of 4 lanes with a scalar tail: GCC at -O2 does
 * not vectorise a reduction whose trip count is unknown, but it does turn a
 * fixed 4-lane block into SIMD (SLP), which halves the training time. */

static double dot(const double *restrict a, const double *restrict b, size_t n)
{
    double acc[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (size_t j = 0; j < 4; j++)
            acc[j] += a[i + j] * b[i + j];
    for (; i < n; i++)
        acc[0] += a[i] * b[i];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* y += a * x */
static void axpy(double *restrict y, double a, const double *restrict x, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (size_t j = 0; j < 4; j++)
            y[i + j] += a * x[i + j];
    for (; i < n; i++)
        y[i] += a * x[i];
}

/*
 * Orthonormalise the l columns of the n x l row-major matrix a (modified
 * Gram-Schmidt on a transposed copy, so each column is contiguous). A column
 * that vanishes becomes zero. One pass is enough here: the power iteration
 * keeps the columns' condition number near (sigma_1 / sigma_l)^2, far from
 * where Gram-Schmidt loses orthogonality in double.
 *
 * On several threads the columns are a wavefront: column j takes the
 * projections of columns 0..j-1 one after the other as on one thread,
 * waiting for each to be final, so every column's arithmetic (and the
 * result) is the one-thread one; with columns claimed in ascending order a
 * thread waits at most for the column another is finishing.
 */
typedef struct {
    double *t; /* l columns of n */
    double *a;
    size_t n, l;
    atomic_uchar *done;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} gs_run;

static void gs_wait(gs_run *g, size_t p)
{
    if (atomic_load_explicit(&g->done[p], memory_order_acquire))
        return;
    pthread_mutex_lock(&g->mu);
    while (!atomic_load_explicit(&g->done[p], memory_order_acquire))
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

static void gs_column(void *arg, size_t j, int thread)
{
    gs_run *g = arg;
    size_t n = g->n;
    double *cj = g->t + j * n;
    MN_UNUSED(thread);
    for (size_t p = 0; p < j; p++) {
        const double *cp = g->t + p * n;
        gs_wait(g, p);
        axpy(cj, -dot(cj, cp, n), cp, n);
    }
    double norm = sqrt(dot(cj, cj, n));
    for (size_t i = 0; i < n; i++)
        cj[i] = norm > 1e-12 ? cj[i] / norm : 0;
    pthread_mutex_lock(&g->mu);
    atomic_store_explicit(&g->done[j], 1, memory_order_release);
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

#define ROWS_PER_PART 256 /* rows of a dense loop per part of a parallel run */

static void gs_transpose_in(void *arg, size_t part, int thread)
{
    gs_run *g = arg;
    MN_UNUSED(thread);
    for (size_t i = part * ROWS_PER_PART; i < g->n && i < (part + 1) * ROWS_PER_PART; i++)
        for (size_t j = 0; j < g->l; j++)
            g->t[j * g->n + i] = g->a[i * g->l + j];
}

static void gs_transpose_out(void *arg, size_t part, int thread)
{
    gs_run *g = arg;
    MN_UNUSED(thread);
    for (size_t i = part * ROWS_PER_PART; i < g->n && i < (part + 1) * ROWS_PER_PART; i++)
        for (size_t j = 0; j < g->l; j++)
            g->a[i * g->l + j] = g->t[j * g->n + i];
}

static void orthonormalize(double *a, size_t n, size_t l, int threads)
{
    gs_run g = {mn_malloc(n * l * sizeof(double)),
                a,
                n,
                l,
                mn_calloc(l, sizeof(atomic_uchar)),
                PTHREAD_MUTEX_INITIALIZER,
                PTHREAD_COND_INITIALIZER};
    size_t parts = (n + ROWS_PER_PART - 1) / ROWS_PER_PART;
    mn_par_run(threads, parts, gs_transpose_in, &g);
    mn_par_run(threads, l, gs_column, &g);
    mn_par_run(threads, parts, gs_transpose_out, &g);
    pthread_cond_destroy(&g.cv);
    pthread_mutex_destroy(&g.mu);
    free(g.done);
    free(g.t);
}

/* Eigen-decomposition of the symmetric n x n matrix a (destroyed) by cyclic Jacobi:
 * eigenvalues in w, eigenvectors in the columns of v (row-major). */
static void jacobi(double *a, size_t n, double *w, double *v)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            v[i * n + j] = i == j;
    double scale = 0;
    for (size_t i = 0; i < n * n; i++)
        scale += a[i] * a[i];
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++)
                off += a[p * n + q] * a[p * n + q];
        if (off <= 1e-24 * scale)
            break;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (size_t k = 0; k < n; k++) {
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (size_t k = 0; k < n; k++) {
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (size_t k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (size_t i = 0; i < n; i++)
        w[i] = a[i * n + i];
}

/* ---- the corpus ---- */

/*
 * Reading the corpus tokenizes every document (sympy: 45,000 chunks, a third
 * of the training's CPU), on the training's threads. The store's rows come
 * one at a time on the calling thread, which copies them into a batch; the
 * batch's documents are tokenized in parallel, each worker into a
 * vocabulary of its own (local ids, a document's distinct terms in the order
 * they first occur, with their counts); then the calling thread merges the
 * batch in document order, giving a term its corpus id the first time any
 * document uses it. That is the order a single pass over the tokens gives
 * ids in, so the ids (which seed Omega and break the vocabulary cap's ties)
 * and the counts are those of one thread, whatever the thread count.
 */
#define TOK_BATCH_DOCS  512
#define TOK_BATCH_BYTES (4u << 20)

typedef struct {
    vocab v;                /* this worker's terms: local ids */
    MN_VEC(uint32_t) stamp; /* per local id: the document that saw it last */
    MN_VEC(uint32_t) slot;  /* per local id: its entry in that document */
    MN_VEC(uint32_t) gid;   /* per local id: corpus id + 1, 0 until a merge met it */
    uint32_t docs;          /* documents this worker tokenized: the stamps */
} tok_worker;

typedef struct {
    char *text;
    size_t len;
    int worker;  /* who tokenized it */
    entry_vec e; /* (local id, count), in the order the terms first occur */
} pending_doc;

typedef struct {
    vocab v;
    entry_vec entries;       /* every document's (term, count), concatenated */
    MN_VEC(size_t) start;    /* document i: entries [start[i], start[i + 1]) */
    MN_VEC(bool) new_stream; /* document i starts a stream */
    MN_VEC(int64_t) owner;   /* document i's memory or chunk id */
    MN_VEC(bool) is_memory;  /* and which of the two */
    char prev_stream[256];
    XXH3_state_t *hash;
    int threads;
    tok_worker *workers; /* threads of them */
    MN_VEC(pending_doc) pending;
    size_t npending, pending_bytes;
} corpus;

typedef struct {
    tok_worker *w;
    entry_vec *out;
} local_ctx;

static int on_local_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                          int colocated)
{
    local_ctx *c = payload;
    tok_worker *w = c->w;
    MN_UNUSED(start);
    MN_UNUSED(end);
    MN_UNUSED(colocated);
    uint32_t id = vocab_id(&w->v, tok, len, true);
    if (id == w->stamp.len) { /* new to this worker */
        mn_vec_push(&w->stamp, 0);
        mn_vec_push(&w->slot, 0);
        mn_vec_push(&w->gid, 0);
    }
    if (w->stamp.items[id] != w->docs) {
        w->stamp.items[id] = w->docs;
        w->slot.items[id] = (uint32_t)c->out->len;
        mn_vec_push(c->out, ((entry){id, 1}));
    } else {
        c->out->items[w->slot.items[id]].x += 1;
    }
    return 0;
}

static void tokenize_part(void *arg, size_t part, int thread)
{
    corpus *c = arg;
    pending_doc *d = &c->pending.items[part];
    tok_worker *w = &c->workers[thread];
    local_ctx lc = {w, &d->e};
    d->worker = thread;
    d->e.len = 0;
    w->docs++; /* stamps start at 0 with docs 0: the first document is 1 */
    mn_tokenize(d->text, d->len, MN_LANG_UNKNOWN, 0, on_local_token, &lc);
}

static void sort_entries(entry *p, size_t n)
{
    if (n > 24) {
        qsort(p, n, sizeof(*p), by_term);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* insertion: most documents have a few terms */
        entry x = p[i];
        size_t j = i;
        for (; j > 0 && p[j - 1].t > x.t; j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

/* Tokenize the batch on the threads, then append it to the corpus in document order. */
static void flush_pending(corpus *c)
{
    size_t n = c->npending;
    if (n == 0)
        return;
    mn_par_run(c->threads, n, tokenize_part, c);
    size_t base = c->start.len - n; /* the batch's first document */
    for (size_t i = 0; i < n; i++) {
        pending_doc *d = &c->pending.items[i];
        tok_worker *w = &c->workers[d->worker];
        size_t from = c->entries.len;
        c->start.items[base + i] = from;
        for (size_t j = 0; j < d->e.len; j++) {
            uint32_t lid = d->e.items[j].t;
            if (w->gid.items[lid] == 0) {
                const char *term = w->v.terms.items[lid];
                w->gid.items[lid] = vocab_id(&c->v, term, strlen(term), true) + 1;
            }
            mn_vec_push(&c->entries, ((entry){w->gid.items[lid] - 1, d->e.items[j].x}));
        }
        sort_entries(c->entries.items + from, c->entries.len - from);
        free(d->text);
        d->text = NULL;
    }
    c->npending = c->pending_bytes = 0;
}

static int on_doc(void *payload, const mn_embed_doc *d)
{
    corpus *c = payload;
    bool fresh = c->start.len == 0 || strncmp(c->prev_stream, d->stream, sizeof(c->prev_stream));
    snprintf(c->prev_stream, sizeof(c->prev_stream), "%s", d->stream);
    mn_vec_push(&c->start, 0); /* set when the batch is merged */
    mn_vec_push(&c->new_stream, fresh);
    mn_vec_push(&c->owner, d->owner_id);
    mn_vec_push(&c->is_memory, strcmp(d->owner_kind, "memory") == 0);
    XXH3_64bits_update(c->hash, d->text, d->len);
    XXH3_64bits_update(c->hash, "\x1e", 1);
    /* the cut tokenize_into makes */
    size_t len = d->len > MAX_DOC_BYTES ? mn_utf8_floor(d->text, d->len, MAX_DOC_BYTES) : d->len;
    if (c->npending == c->pending.len)
        mn_vec_push(&c->pending, ((pending_doc){NULL, 0, 0, MN_VEC_INIT}));
    pending_doc *p = &c->pending.items[c->npending++];
    p->text = mn_strndup(d->text, len);
    p->len = len;
    c->pending_bytes += len;
    if (c->npending >= TOK_BATCH_DOCS || c->pending_bytes >= TOK_BATCH_BYTES)
        flush_pending(c);
    return 0;
}

/* The tokenizing workers and the batch: done with once the corpus is read. */
static void workers_release(corpus *c)
{
    for (int i = 0; c->workers && i < c->threads; i++) {
        tok_worker *w = &c->workers[i];
        vocab_release(&w->v);
        mn_vec_release(&w->stamp);
        mn_vec_release(&w->slot);
        mn_vec_release(&w->gid);
    }
    free(c->workers);
    for (size_t i = 0; i < c->pending.len; i++) {
        free(c->pending.items[i].text);
        mn_vec_release(&c->pending.items[i].e);
    }
    mn_vec_release(&c->pending);
    c->workers = NULL;
}

/* Read and tokenize the project's corpus into c (c->hash set up by the caller). */
static int corpus_read(mn_store *s, corpus *c)
{
    c->threads = mn_embed_threads();
    c->workers = mn_calloc((size_t)c->threads, sizeof(*c->workers));
    for (int i = 0; i < c->threads; i++)
        c->workers[i].v = (vocab){MN_MAP_INIT, MN_VEC_INIT, MN_VEC_INIT};
    int rc = mn_store_embed_corpus_each(s, on_doc, c);
    if (rc == 0)
        flush_pending(c);
    workers_release(c);
    return rc;
}

static int by_df_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x > y ? -1 : x < y;
}

/*
 * Keep the MAX_TERMS terms found in the most documents (ties: the first
 * seen), and drop the others from every document. The term vectors are the
 * model's memory (terms x k floats while training: a code base's
 * identifiers made sympy's vocabulary ~150,000 terms, 150 MB at k = 256);
 * what is dropped occurs in one or two chunks, where BM25 finds it anyway.
 * A conversation's vocabulary is a few thousand terms: nothing changes
 * there. Kept terms keep their relative order, so each document's entries
 * stay sorted by term.
 */
static void cap_vocab(corpus *c)
{
    size_t nterms = c->v.terms.len, n = c->start.len - 1;
    if (nterms <= MAX_TERMS)
        return;
    int64_t *dfs = mn_malloc(nterms * sizeof(*dfs));
    memcpy(dfs, c->v.df.items, nterms * sizeof(*dfs));
    qsort(dfs, nterms, sizeof(*dfs), by_df_desc);
    int64_t cut = dfs[MAX_TERMS - 1];
    size_t ties = MAX_TERMS;
    for (size_t i = 0; i < MAX_TERMS; i++)
        if (dfs[i] > cut)
            ties--;
    free(dfs);
    uint32_t *remap = mn_malloc(nterms * sizeof(*remap));
    vocab nv = {MN_MAP_INIT, MN_VEC_INIT, MN_VEC_INIT};
    for (size_t t = 0; t < nterms; t++) {
        int64_t df = c->v.df.items[t];
        bool keep = df > cut || (df == cut && ties > 0);
        if (keep && df == cut)
            ties--;
        if (keep) {
            remap[t] = (uint32_t)nv.terms.len;
            mn_map_set(&nv.ids, c->v.terms.items[t], (void *)(uintptr_t)(nv.terms.len + 1));
            mn_vec_push(&nv.terms, c->v.terms.items[t]);
            mn_vec_push(&nv.df, df);
        } else {
            remap[t] = UINT32_MAX;
            free(c->v.terms.items[t]);
        }
    }
    size_t w = 0, lo = c->start.items[0];
    for (size_t d = 0; d < n; d++) {
        size_t hi = c->start.items[d + 1];
        c->start.items[d] = w;
        for (size_t i = lo; i < hi; i++)
            if (remap[c->entries.items[i].t] != UINT32_MAX) {
                c->entries.items[w] = c->entries.items[i];
                c->entries.items[w++].t = remap[c->entries.items[i].t];
            }
        lo = hi;
    }
    c->start.items[n] = w;
    c->entries.len = w;
    free(remap);
    mn_vec_release(&c->v.terms); /* the kept strings moved to nv */
    mn_vec_release(&c->v.df);
    mn_map_release(&c->v.ids);
    c->v = nv;
}

/* The sparse matrix X: windows as columns of (term, weight). */
typedef struct {
    entry_vec e;
    MN_VEC(size_t) start; /* window j: e[start[j], start[j + 1]) */
} windows;

/* The documents [*lo, *hi] of the window around document d: its neighbours in its stream. */
static void window_range(const corpus *c, size_t d, size_t *lo_out, size_t *hi_out)
{
    size_t n = c->start.len - 1, lo = d, hi = d;
    while (lo > 0 && d - lo < WINDOW && !c->new_stream.items[lo])
        lo--;
    while (hi + 1 < n && hi - d < WINDOW && !c->new_stream.items[hi + 1])
        hi++;
    *lo_out = lo;
    *hi_out = hi;
}

/* Whether the window around document d holds a term not marked in seen. */
static bool window_has_unseen(const corpus *c, size_t d, const bool *seen)
{
    size_t lo, hi;
    window_range(c, d, &lo, &hi);
    for (size_t j = c->start.items[lo]; j < c->start.items[hi + 1]; j++)
        if (!seen[c->entries.items[j].t])
            return true;
    return false;
}

/* The window around document d: its neighbours in the same stream, counts summed. */
static void add_window(windows *w, const corpus *c, size_t d, const double *idf)
{
    size_t lo, hi;
    window_range(c, d, &lo, &hi);
    size_t from = w->e.len;
    mn_vec_push(&w->start, from);
    for (size_t i = lo; i <= hi; i++)
        for (size_t j = c->start.items[i]; j < c->start.items[i + 1]; j++)
            mn_vec_push(&w->e, c->entries.items[j]);
    collapse(&w->e, from);
    double norm = 0;
    for (size_t j = from; j < w->e.len; j++) {
        entry *x = &w->e.items[j];
        x->x = (float)((1 + log(x->x)) * idf[x->t]);
        norm += (double)x->x * x->x;
    }
    norm = sqrt(norm);
    for (size_t j = from; j < w->e.len && norm > 0; j++)
        w->e.items[j].x = (float)(w->e.items[j].x / norm);
}

/*
 * The products with X on the training's threads. X^T z splits by windows
 * (each writes its own row of y); X q and X P split by ranges of terms
 * (each writes its own rows of z or U), every part scanning the windows in
 * order and taking its terms from each (a window's entries are sorted by
 * term: a binary search finds where its range starts), so a term's row sums
 * its windows in the order one thread does. The ranges hold about equal
 * shares of X's entries.
 */
typedef struct {
    const windows *w;
    size_t l;
    size_t from, nw; /* X^T z: windows [from, from + nw) */
    double *y;
    const double *q; /* X q: nw x l */
    float *z;
    const float *zin;
    const uint32_t *cut; /* term ranges: part p is [cut[p], cut[p + 1]) */
    size_t parts;
    const uint32_t *orig; /* X P: the term of a sampled row (U's row) */
    const double *pk;     /* X P: nw x l */
    float *u;
} xprod;

/* y (nw x l) = X^T z for the windows [from, from + nw), z (V x l) */
static void xt_rows(const xprod *x, size_t lo, size_t hi)
{
    const windows *w = x->w;
    size_t l = x->l;
    for (size_t j = lo; j < hi; j++) {
        double *restrict yj = x->y + (j - x->from) * l;
        memset(yj, 0, l * sizeof(double));
        for (size_t i = w->start.items[j]; i < w->start.items[j + 1]; i++) {
            const float *restrict zt = x->zin + (size_t)w->e.items[i].t * l;
            double v = w->e.items[i].x;
            size_t c = 0;
            for (; c + 4 <= l; c += 4)
                for (size_t b = 0; b < 4; b++)
                    yj[c + b] += v * zt[c + b];
            for (; c < l; c++)
                yj[c] += v * zt[c];
        }
    }
}

static void xt_part(void *arg, size_t part, int thread)
{
    const xprod *x = arg;
    size_t lo = x->from + part * ROWS_PER_PART, hi = lo + ROWS_PER_PART;
    MN_UNUSED(thread);
    xt_rows(x, lo, hi < x->from + x->nw ? hi : x->from + x->nw);
}

static void xt_times(double *y, const windows *w, size_t from, size_t nw, const float *z, size_t l,
                     int threads)
{
    xprod x = {.w = w, .l = l, .from = from, .nw = nw, .y = y, .zin = z};
    if (nw <= ROWS_PER_PART) {
        xt_rows(&x, from, from + nw);
        return;
    }
    mn_par_run(threads, (nw + ROWS_PER_PART - 1) / ROWS_PER_PART, xt_part, &x);
}

/* The first entry of window j whose term is >= t. */
static size_t window_seek(const windows *w, size_t j, uint32_t t)
{
    size_t lo = w->start.items[j], hi = w->start.items[j + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->e.items[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* z (V x l) = X q for the terms of part `part`, q (nw x l) */
static void x_part(void *arg, size_t part, int thread)
{
    const xprod *x = arg;
    const windows *w = x->w;
    size_t l = x->l;
    uint32_t tlo = x->cut[part], thi = x->cut[part + 1];
    MN_UNUSED(thread);
    memset(x->z + (size_t)tlo * l, 0, (size_t)(thi - tlo) * l * sizeof(float));
    for (size_t j = 0; j < x->nw; j++) {
        const double *restrict qj = x->q + j * l;
        for (size_t i = window_seek(w, j, tlo); i < w->start.items[j + 1] && w->e.items[i].t < thi;
             i++) {
            float *restrict zt = x->z + (size_t)w->e.items[i].t * l;
            float v = w->e.items[i].x;
            size_t c = 0;
            for (; c + 4 <= l; c += 4)
                for (size_t b = 0; b < 4; b++)
                    zt[c + b] += v * (float)qj[c + b];
            for (; c < l; c++)
                zt[c] += v * (float)qj[c];
        }
    }
}

/* U's rows (k floats each, at orig[t]) += X P for the sampled terms of part `part` */
static void xp_part(void *arg, size_t part, int thread)
{
    const xprod *x = arg;
    const windows *w = x->w;
    size_t k = x->l;
    uint32_t tlo = x->cut[part], thi = x->cut[part + 1];
    MN_UNUSED(thread);
    for (size_t j = 0; j < x->nw; j++)
        for (size_t i = window_seek(w, j, tlo); i < w->start.items[j + 1] && w->e.items[i].t < thi;
             i++) {
            const entry *e = &w->e.items[i];
            float *ut = x->u + (size_t)x->orig[e->t] * k;
            for (size_t c0 = 0; c0 < k; c0++)
                ut[c0] += e->x * (float)x->pk[j * k + c0];
        }
}

/* Term ranges of about equal numbers of X's entries, `parts` of them, over ns terms. */
static uint32_t *term_cuts(const windows *w, size_t ns, size_t parts)
{
    size_t *per = mn_calloc(ns + 1, sizeof(size_t));
    uint32_t *cut = mn_malloc((parts + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < w->e.len; i++)
        per[w->e.items[i].t]++;
    size_t total = w->e.len, acc = 0, p = 1;
    cut[0] = 0;
    for (size_t t = 0; t < ns && p < parts; t++) {
        acc += per[t];
        while (p < parts && acc * parts >= total * p)
            cut[p++] = (uint32_t)(t + 1);
    }
    while (p <= parts)
        cut[p++] = (uint32_t)ns;
    free(per);
    return cut;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int by_eigen_desc(const void *a, const void *b, void *w)
{
    const double *ev = w;
    double x = ev[*(const size_t *)a], y = ev[*(const size_t *)b];
    return x > y ? -1 : x < y;
}

/* C += Y_b^T S_b over a block of rows of S = X^T X Q: part p adds to C's rows [8p, 8p + 8) */
typedef struct {
    double *cm;
    const double *y, *sb;
    size_t j0, j1, l;
} cblock;

static void c_part(void *arg, size_t part, int thread)
{
    const cblock *b = arg;
    size_t l = b->l;
    MN_UNUSED(thread);
    for (size_t j = b->j0; j < b->j1; j++)
        for (size_t a = part * 8; a < l && a < part * 8 + 8; a++)
            axpy(b->cm + a * l, b->y[j * l + a], b->sb + (j - b->j0) * l, l);
}

/* P = Q W_k, rows [ROWS_PER_PART * part, ...) */
typedef struct {
    double *p;
    const double *y, *wk;
    size_t nw, k, l;
} pprod;

static void p_part(void *arg, size_t part, int thread)
{
    const pprod *x = arg;
    MN_UNUSED(thread);
    for (size_t j = part * ROWS_PER_PART; j < x->nw && j < (part + 1) * ROWS_PER_PART; j++)
        for (size_t c0 = 0; c0 < x->k; c0++)
            x->p[j * x->k + c0] = dot(x->y + j * x->l, x->wk + c0 * x->l, x->l);
}

#define C_BLOCK 512 /* rows of S held at once: 1 MB at l = 264 */

/*
 * The term vectors (nterms x k floats, malloc'd) of the windowed LSA of
 * corpus c; *k_out is k. See the file comment for the algorithm.
 */
static float *train_lsa(const corpus *c, const double *idf, size_t *k_out)
{
    size_t n = c->start.len - 1, nterms = c->v.terms.len;
    size_t k = (n / DOCS_PER_DIM + 8) / 16 * 16;
    k = k < MIN_DIM ? MIN_DIM : k > MAX_DIM ? MAX_DIM : k;

    /* the windows the SVD runs on: all, or an evenly spaced sample */
    windows w = {MN_VEC_INIT, MN_VEC_INIT};
    size_t nw = n < MAX_WINDOWS ? n : MAX_WINDOWS;
    bool *sampled = mn_calloc(n, sizeof(bool));
    for (size_t j = 0; j < nw; j++) {
        size_t d = (size_t)((double)j * (double)n / (double)nw);
        sampled[d] = true;
        add_window(&w, c, d, idf);
    }
    mn_vec_push(&w.start, w.e.len);

    /* the SVD sees only the terms the sampled windows hold (sympy: 57,000 of 65,536): X's
     * rows for the others are zero, so their rows of the sketch z stay zero and are not kept.
     * cid renumbers the sampled windows' entries; orig maps back (Omega and U use it, so the
     * model is the same as with every row kept) */
    bool *seen = mn_calloc(nterms, sizeof(bool));
    uint32_t *cid = mn_malloc(nterms * sizeof(uint32_t));
    MN_VEC(uint32_t) orig = MN_VEC_INIT;
    for (size_t i = 0; i < w.e.len; i++)
        seen[w.e.items[i].t] = true;
    for (size_t t = 0; t < nterms; t++) {
        cid[t] = seen[t] ? (uint32_t)orig.len : UINT32_MAX;
        if (seen[t])
            mn_vec_push(&orig, (uint32_t)t);
    }
    for (size_t i = 0; i < w.e.len; i++)
        w.e.items[i].t = cid[w.e.items[i].t];
    free(cid);
    size_t ns = orig.len;
    int threads = c->threads;
    size_t nparts = (size_t)threads * 4;
    uint32_t *cut = term_cuts(&w, ns, nparts);

    size_t l = k + OVERSAMPLE < nw ? k + OVERSAMPLE : nw;
    if (k > l)
        k = l;
    double *y = mn_malloc(nw * l * sizeof(double));
    float *z = mn_calloc(ns * l, sizeof(float));
    /* Y = X^T Omega, Omega[t][c] = +-1 from a hash of (t, c) */
    for (size_t r = 0; r < ns; r++) {
        uint64_t t = orig.items[r];
        for (size_t c0 = 0; c0 < l; c0 += 64) {
            uint64_t bits = mix64((t << 16) ^ (c0 + 0x9e3779b97f4a7c15ULL));
            for (size_t c1 = c0; c1 < l && c1 < c0 + 64; c1++)
                z[r * l + c1] = (bits >> (c1 - c0)) & 1 ? 1.0f : -1.0f;
        }
    }
    xprod xz = {.w = &w, .l = l, .nw = nw, .q = y, .z = z, .cut = cut, .parts = nparts};
    xt_times(y, &w, 0, nw, z, l, threads);
    for (int it = 0; it < POWER_ITERS; it++) {
        orthonormalize(y, nw, l, threads);
        mn_par_run(threads, nparts, x_part, &xz); /* z = X y */
        xt_times(y, &w, 0, nw, z, l, threads);
    }
    orthonormalize(y, nw, l, threads); /* Q */
    mn_par_run(threads, nparts, x_part, &xz);
    /* C = Q^T S with S = X^T X Q, C_BLOCK rows of S at a time (S whole is nw x l doubles,
     * 17 MB on sympy: the peak of training): every element of C sums its rows j in
     * ascending order, as one row at a time did */
    double *sb = mn_malloc(C_BLOCK * l * sizeof(double));
    double *cm = mn_calloc(l * l, sizeof(double)), *wv = mn_malloc(l * l * sizeof(double)),
           *ev = mn_malloc(l * sizeof(double));
    for (size_t j0 = 0; j0 < nw; j0 += C_BLOCK) {
        size_t j1 = j0 + C_BLOCK < nw ? j0 + C_BLOCK : nw;
        xt_times(sb, &w, j0, j1 - j0, z, l, threads);
        cblock cb = {cm, y, sb, j0, j1, l};
        mn_par_run(threads, (l + 7) / 8, c_part, &cb);
    }
    free(sb);
    for (size_t a = 0; a < l; a++) /* symmetrize rounding */
        for (size_t b = a + 1; b < l; b++)
            cm[a * l + b] = cm[b * l + a] = (cm[a * l + b] + cm[b * l + a]) / 2;
    jacobi(cm, l, ev, wv);
    size_t *order = mn_malloc(l * sizeof(size_t));
    for (size_t i = 0; i < l; i++)
        order[i] = i;
    qsort_r(order, l, sizeof(size_t), by_eigen_desc, ev);

    /* P = Q W_k (window side), sigma; then U = X P / sigma */
    double *p = mn_calloc(nw * k, sizeof(double)), *sigma = mn_malloc(k * sizeof(double));
    for (size_t c0 = 0; c0 < k; c0++)
        sigma[c0] = ev[order[c0]] > 0 ? sqrt(ev[order[c0]]) : 0;
    double *wk = mn_malloc(k * l * sizeof(double)); /* W_k, one row per component */
    for (size_t c0 = 0; c0 < k; c0++)
        for (size_t a = 0; a < l; a++)
            wk[c0 * l + a] = wv[a * l + order[c0]];
    pprod pp = {p, y, wk, nw, k, l};
    mn_par_run(threads, (nw + ROWS_PER_PART - 1) / ROWS_PER_PART, p_part, &pp);
    free(wk);
    /* the sketches are done with: free them before the term vectors exist (on sympy's 45,000
     * chunks z and u are ~60 MB each) */
    free(y);
    free(z);
    float *u = mn_calloc(nterms * k, sizeof(float));
    xprod xu = {.w = &w,
                .l = k,
                .nw = nw,
                .cut = cut,
                .parts = nparts,
                .orig = orig.items,
                .pk = p,
                .u = u};
    mn_par_run(threads, nparts, xp_part, &xu);
    free(cut);
    mn_vec_release(&orig);
    for (size_t t = 0; t < nterms; t++)
        for (size_t c0 = 0; c0 < k; c0++)
            u[t * k + c0] = sigma[c0] > 1e-9 ? (float)(u[t * k + c0] / sigma[c0]) : 0;

    /* terms only the windows left out of the sample have: fold those windows in */
    if (nw < n) {
        /* an unseen term's row of u is zero until this fills it, and the projections read
         * only seen terms' rows: accumulate in place */
        double *pw = mn_malloc(k * sizeof(double));
        for (size_t d = 0; d < n; d++) {
            /* most windows hold only terms the sample saw: nothing to fold in, so do not
             * build them (the same model, a quarter of the training time on sympy) */
            if (sampled[d] || !window_has_unseen(c, d, seen))
                continue;
            windows one = {MN_VEC_INIT, MN_VEC_INIT};
            add_window(&one, c, d, idf);
            bool useful = false;
            for (size_t i = 0; i < one.e.len && !useful; i++)
                useful = !seen[one.e.items[i].t];
            if (useful) {
                memset(pw, 0, k * sizeof(double));
                for (size_t i = 0; i < one.e.len; i++)
                    if (seen[one.e.items[i].t])
                        for (size_t c0 = 0; c0 < k; c0++)
                            pw[c0] += one.e.items[i].x * u[(size_t)one.e.items[i].t * k + c0];
                for (size_t c0 = 0; c0 < k; c0++)
                    pw[c0] = sigma[c0] > 1e-9 ? pw[c0] / sigma[c0] : 0;
                for (size_t i = 0; i < one.e.len; i++)
                    if (!seen[one.e.items[i].t])
                        for (size_t c0 = 0; c0 < k; c0++)
                            u[(size_t)one.e.items[i].t * k + c0] +=
                                (float)(one.e.items[i].x * pw[c0] /
                                        (sigma[c0] > 1e-9 ? sigma[c0] : 1));
            }
            mn_vec_release(&one.e);
            mn_vec_release(&one.start);
        }
        free(pw);
    }

    free(seen);
    free(sampled);
    free(p);
    free(sigma);
    free(order);
    free(cm);
    free(wv);
    free(ev);
    mn_vec_release(&w.e);
    mn_vec_release(&w.start);
    *k_out = k;
    return u;
}

/* ---- training and storing ---- */

typedef struct {
    char *model;
    size_t dim;
    int64_t docs;
    int version;
} current_model;

static int take_first(void *payload, const mn_embed_model_rec *m)
{
    current_model *c = payload;
    if (!m->per_project)
        return 0;
    c->model = mn_strdup(m->model);
    c->dim = m->dim;
    c->docs = m->docs;
    json_t *params = m->params ? json_loads(m->params, 0, NULL) : NULL;
    c->version = (int)json_integer_value(json_object_get(params, "version"));
    json_decref(params);
    return 1; /* the newest: stop */
}

/* The project's newest built-in model, if any (c->model NULL when none). */
static int find_model(mn_store *s, current_model *c)
{
    memset(c, 0, sizeof(*c));
    int rc = mn_store_embed_models_each(s, "builtin:", take_first, c);
    return rc == 1 ? 0 : rc;
}

static void corpus_release(corpus *c)
{
    workers_release(c);
    vocab_release(&c->v);
    mn_vec_release(&c->entries);
    mn_vec_release(&c->start);
    mn_vec_release(&c->new_stream);
    mn_vec_release(&c->owner);
    mn_vec_release(&c->is_memory);
    if (c->hash)
        XXH3_freeState(c->hash);
}

static int by_term_text(const void *a, const void *b, void *terms)
{
    char *const *t = terms;
    return strcmp(t[*(const size_t *)a], t[*(const size_t *)b]);
}

/* Store the model: its row, its terms, and drop every other model (a new model re-embeds). */
static int store_model(mn_store *s, const char *model, const corpus *c, const double *idf,
                       const int8_t *q, const float *scales, size_t k, size_t nwindows)
{
    size_t nterms = c->v.terms.len, n = c->start.len - 1;
    json_t *params =
        json_pack("{s:s,s:i,s:i,s:I,s:I,s:I,s:I}", "algo", "windowed-lsa", "version", ALGO_VERSION,
                  "window", WINDOW, "dim", (json_int_t)k, "docs", (json_int_t)n, "terms",
                  (json_int_t)nterms, "windows", (json_int_t)nwindows);
    char *ptext = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    mn_embed_model_rec rec = {model, true, k, (int64_t)n, ptext, 0, -1};
    /* in the order of the table's key (model, term): each insert lands next to the last
     * instead of anywhere in the B-tree (sympy: 65,536 terms) */
    size_t *order = mn_malloc((nterms ? nterms : 1) * sizeof(size_t));
    for (size_t t = 0; t < nterms; t++)
        order[t] = t;
    qsort_r(order, nterms, sizeof(size_t), by_term_text, (void *)c->v.terms.items);
    int rc = mn_store_begin(s);
    if (rc)
        goto out;
    if ((rc = mn_store_embed_models_drop(s, NULL, NULL)) != 0 ||
        (rc = mn_store_embed_model_put(s, &rec)) != 0)
        goto rollback;
    for (size_t i = 0; i < nterms; i++) {
        size_t t = order[i];
        if (scales[t] == 0)
            continue; /* a term no window gave a direction: it adds nothing */
        const char *term = c->v.terms.items[t];
        if ((rc = mn_store_embed_term_put(s, model, term, strlen(term), idf[t], q + t * k, k,
                                          scales[t])) != 0)
            goto rollback;
    }
    rc = mn_store_commit(s);
    goto out;
rollback:
    mn_store_rollback(s);
out:
    free(order);
    free(ptext);
    json_decref(params);
    return rc;
}

/*
 * Give every document of the corpus its vector under the model just stored,
 * from the counts training already holds: the same terms (the tokenizer,
 * the MAX_DOC_BYTES cut and the vocabulary cap are the ones a sync's
 * builtin_embed applies, and a term the cap dropped has no stored vector
 * there either), the same weights and the same int8 term vectors, so the
 * vector is the one a sync would write (up to the order the terms are
 * summed in float). This spares a sync reading and tokenizing the whole
 * corpus again right after (sympy: ~2.5 s of the 9.6 s of CPU that
 * training and embedding took). Written in transactions of WRITE_BATCH
 * rows; a row changed meanwhile is as in embed_sync.c.
 */
typedef struct {
    const corpus *c;
    const double *idf;
    const int8_t *q;
    const float *scale;
    size_t k, d0, d1;
    int8_t *out;   /* (d1 - d0) x k */
    float *out_sc; /* d1 - d0 */
    float *row;    /* per thread: k floats */
} doc_vecs;

#define DOCS_PER_PART 64

static void doc_vecs_part(void *arg, size_t part, int thread)
{
    const doc_vecs *v = arg;
    const corpus *c = v->c;
    size_t k = v->k;
    float *row = v->row + (size_t)thread * k;
    for (size_t d = v->d0 + part * DOCS_PER_PART;
         d < v->d1 && d < v->d0 + (part + 1) * DOCS_PER_PART; d++) {
        memset(row, 0, k * sizeof(float));
        for (size_t j = c->start.items[d]; j < c->start.items[d + 1]; j++) {
            const entry *x = &c->entries.items[j];
            if (v->scale[x->t] == 0)
                continue; /* not stored: builtin_embed would not find it */
            float w = (float)((1 + log(x->x)) * v->idf[x->t]) * v->scale[x->t];
            const int8_t *qt = v->q + (size_t)x->t * k;
            for (size_t c0 = 0; c0 < k; c0++)
                row[c0] += w * (float)qt[c0];
        }
        mn_embed_normalize(row, k);
        v->out_sc[d - v->d0] = mn_embed_quantize(v->out + (d - v->d0) * k, row, k);
    }
}

static int embed_corpus(mn_store *s, const char *model, const corpus *c, const double *idf,
                        const int8_t *q, const float *scale, size_t k, int64_t *written)
{
    size_t n = c->start.len - 1;
    doc_vecs v = {c,
                  idf,
                  q,
                  scale,
                  k,
                  0,
                  0,
                  mn_malloc(WRITE_BATCH * k),
                  mn_malloc(WRITE_BATCH * sizeof(float)),
                  mn_malloc((size_t)c->threads * k * sizeof(float))};
    int rc = 0;
    for (size_t d0 = 0; d0 < n && rc == 0; d0 += WRITE_BATCH) {
        v.d0 = d0;
        v.d1 = d0 + WRITE_BATCH < n ? d0 + WRITE_BATCH : n;
        /* the vectors on the threads, then written in order in one transaction */
        mn_par_run(c->threads, (v.d1 - d0 + DOCS_PER_PART - 1) / DOCS_PER_PART, doc_vecs_part, &v);
        if ((rc = mn_store_begin(s)) != 0)
            break;
        for (size_t d = d0; d < v.d1 && rc == 0; d++)
            rc = mn_store_vector_put(s, c->is_memory.items[d] ? "memory" : "chunk",
                                     c->owner.items[d], model, v.out + (d - d0) * k, k,
                                     v.out_sc[d - d0]);
        if (rc) {
            mn_store_rollback(s);
            break;
        }
        if ((rc = mn_store_commit(s)) != 0)
            break;
        *written += (int64_t)(v.d1 - d0);
    }
    free(v.out);
    free(v.out_sc);
    free(v.row);
    return rc;
}

int mn_embed_builtin_train(mn_store *s, bool force, mn_embed_train_stats *stats)
{
    mn_embed_train_stats local;
    stats = stats ? stats : &local;
    memset(stats, 0, sizeof(*stats));
    current_model cur;
    corpus c = {0};
    double *idf = NULL;
    float *u = NULL, *scales = NULL;
    int8_t *q = NULL;
    int64_t now = 0;
    bool unmapped = false;
    int rc = find_model(s, &cur);
    if (rc)
        return rc;
    if ((rc = mn_store_embed_corpus_count(s, &now)) != 0)
        goto out;
    if (!force && cur.model && cur.version == ALGO_VERSION &&
        (double)now < RETRAIN_FACTOR * (double)cur.docs &&
        (double)now * RETRAIN_FACTOR > (double)cur.docs) {
        stats->docs = cur.docs;
        goto out; /* still fits the corpus */
    }
    if (now < MN_EMBED_MIN_DOCS) {
        rc = mn_error_set(MN_ENOTFOUND,
                          "the built-in embedder needs at least %d memories and chunks to learn "
                          "from (this project has %lld)",
                          MN_EMBED_MIN_DOCS, (long long)now);
        goto out;
    }

#ifdef __GLIBC__
    /* training allocates ~100 MB on sympy right after `index` freed about as much: give
     * the freed pages back first, or the peak is the sum of the two (sympy: see
     * docs/internals/embeddings.md) */
    malloc_trim(0);
#endif
    /* and the store's memory map: the pages `index` read through it (sympy: ~83 MB) stay
     * resident, counted in RSS on top of training's heap. Reads from here on (the corpus,
     * once) go through SQLite's page cache; the map comes back at the end. A back end
     * without a map has nothing to drop. */
    if ((rc = mn_store_map_set(s, false)) == 0)
        unmapped = true;
    else if (rc == MN_EUNSUPPORTED)
        mn_error_clear();
    else
        goto out;
    rc = 0;
    uint64_t t0 = mn_time_mono_ns();
    c.hash = XXH3_createState();
    XXH3_64bits_reset(c.hash);
    if ((rc = corpus_read(s, &c)) != 0)
        goto out;
    size_t n = c.start.len, nterms = c.v.terms.len;
    mn_vec_push(&c.start, c.entries.len);
    if (n < MN_EMBED_MIN_DOCS || nterms == 0) {
        rc =
            mn_error_set(MN_ENOTFOUND, "the built-in embedder found too little text to learn from");
        goto out;
    }
    for (size_t i = 0; i < c.entries.len; i++)
        c.v.df.items[c.entries.items[i].t]++;
    cap_vocab(&c);
    nterms = c.v.terms.len;
    idf = mn_malloc(nterms * sizeof(double));
    for (size_t t = 0; t < nterms; t++)
        idf[t] = log(((double)n + 1) / ((double)c.v.df.items[t] + 0.5));
    size_t k = 0;
    u = train_lsa(&c, idf, &k);

    char params[64];
    snprintf(params, sizeof(params), "|v%d|w%d|k%zu|t%d|", ALGO_VERSION, WINDOW, k, MAX_TERMS);
    XXH3_64bits_update(c.hash, params, strlen(params));
    char model[64];
    snprintf(model, sizeof(model), "builtin:lsa%zu@%016llx", k,
             (unsigned long long)XXH3_64bits_digest(c.hash));
    /* the term vectors as they are stored (int8 and a scale), for the store and for the
     * corpus's own vectors; u goes before the vectors are written */
    q = mn_malloc(nterms * k);
    scales = mn_malloc(nterms * sizeof(float));
    for (size_t t = 0; t < nterms; t++)
        scales[t] = mn_embed_quantize(q + t * k, u + t * k, k);
    free(u);
    u = NULL;
    if ((rc = store_model(s, model, &c, idf, q, scales, k, n < MAX_WINDOWS ? n : MAX_WINDOWS)) != 0)
        goto out;
    if ((rc = embed_corpus(s, model, &c, idf, q, scales, k, &stats->embedded)) != 0)
        goto out;
    stats->trained = true;
    stats->docs = (int64_t)n;
    stats->terms = (int64_t)nterms;
    stats->dim = k;
    stats->seconds = (double)(mn_time_mono_ns() - t0) / 1e9;
out:
    free(cur.model);
    free(idf);
    free(u);
    free(q);
    free(scales);
    corpus_release(&c);
    if (unmapped) {
        /* after the heap is freed, so the map's pages do not add to training's peak */
        int mrc = mn_store_map_set(s, true);
        if (rc == 0)
            rc = mrc;
    }
    return rc;
}

/* ---- the embedder ---- */

typedef struct {
    double idf;
    float scale;
    int8_t q[];
} term_vec;

typedef struct {
    mn_embedder base;
    mn_store *store;
    mn_map all; /* every term -> term_vec*, loaded on the first document batch */
    bool loaded;
} builtin;

static int load_term(void *payload, const char *term, size_t len, double idf, const int8_t *q,
                     size_t qlen, float scale)
{
    builtin *b = payload;
    if (qlen != b->base.dim || len > MN_TOK_MAX_BYTES)
        return 0; /* damaged: leave it out */
    char key[MN_TOK_MAX_BYTES + 1];
    memcpy(key, term, len);
    key[len] = '\0';
    term_vec *tv = mn_malloc(sizeof(*tv) + qlen);
    tv->idf = idf;
    tv->scale = scale;
    memcpy(tv->q, q, qlen);
    free(mn_map_set(&b->all, key, tv));
    return 0;
}

typedef struct {
    builtin *b;
    const entry *e;
    const char *const *terms;
    float *out;
} lookup_ctx;

static void add_term(float *out, size_t dim, const term_vec *tv, double tf)
{
    float w = (float)((1 + log(tf)) * tv->idf) * tv->scale;
    for (size_t c = 0; c < dim; c++)
        out[c] += w * (float)tv->q[c];
}

static int on_lookup(void *payload, size_t which, double idf, const int8_t *q, size_t qlen,
                     float scale)
{
    lookup_ctx *l = payload;
    size_t dim = l->b->base.dim;
    if (qlen != dim)
        return 0;
    float w = (float)((1 + log(l->e[which].x)) * idf) * scale;
    for (size_t c = 0; c < dim; c++)
        l->out[c] += w * (float)q[c];
    return 0;
}

static int builtin_embed(mn_embedder *e, float **out, const char *const *texts, size_t n,
                         unsigned flags)
{
    builtin *b = (builtin *)e;
    size_t dim = e->dim;
    int rc = 0;
    vocab v = {MN_MAP_INIT, MN_VEC_INIT, MN_VEC_INIT};
    entry_vec ent = MN_VEC_INIT;
    bool query = flags & MN_EMBED_QUERY;
    /* every term at once pays off for a large batch; a few texts (a query, the chunks of one
     * edited file) look their terms up, which is what keeps a one-file re-index cheap */
    if (!query && !b->loaded && n > LOOKUP_BATCH) {
        if ((rc = mn_store_embed_terms_each(b->store, e->model, load_term, b)) != 0)
            return rc;
        b->loaded = true;
    }
    float *vecs = mn_calloc(n * dim, sizeof(float));
    for (size_t i = 0; i < n && rc == 0; i++) {
        float *row = vecs + i * dim;
        ent.len = 0;
        tokenize_into(&v, true, &ent, texts[i], strlen(texts[i]), query ? MN_TOK_QUERY : 0);
        if (b->loaded) {
            for (size_t j = 0; j < ent.len; j++) {
                const term_vec *tv = mn_map_get(&b->all, v.terms.items[ent.items[j].t]);
                if (tv)
                    add_term(row, dim, tv, ent.items[j].x);
            }
        } else {
            const char **terms = mn_malloc((ent.len + 1) * sizeof(*terms));
            for (size_t j = 0; j < ent.len; j++)
                terms[j] = v.terms.items[ent.items[j].t];
            lookup_ctx l = {b, ent.items, terms, row};
            rc = mn_store_embed_terms_get(b->store, e->model, terms, ent.len, on_lookup, &l);
            free(terms);
        }
        mn_embed_normalize(row, dim);
    }
    vocab_release(&v);
    mn_vec_release(&ent);
    if (rc) {
        free(vecs);
        return rc;
    }
    *out = vecs;
    return 0;
}

static void builtin_free(mn_embedder *e)
{
    builtin *b = (builtin *)e;
    size_t pos = 0;
    const char *key;
    void *val;
    while (mn_map_next(&b->all, &pos, &key, &val))
        free(val);
    mn_map_release(&b->all);
    free(e->model);
    free(b);
}

static const mn_embedder_ops builtin_ops = {"builtin", builtin_embed, builtin_free};

int mn_embedder_builtin_open(mn_embedder **out, mn_store *s)
{
    *out = NULL;
    current_model f;
    int rc = find_model(s, &f);
    if (rc)
        return rc;
    if (!f.model)
        return mn_error_set(MN_ENOTFOUND, "no built-in embedding model yet (it is trained on the "
                                          "first sync)");
    builtin *b = mn_calloc(1, sizeof(*b));
    b->base.ops = &builtin_ops;
    b->base.model = f.model;
    b->base.dim = f.dim;
    /* texts per sync batch: each batch asks the store for rows without a vector, a scan from
     * the first chunk on, so small batches made a whole sync quadratic (sympy's 45,000 chunks:
     * 177 scans at 256, 12 at 4,096); 4,096 code chunks hold ~3 MB of text and 4 MB of
     * vectors, and lookups of a few texts (a query, one edited file) are unaffected */
    b->base.batch = 4096;
    b->store = s;
    *out = &b->base;
    return 0;
}
