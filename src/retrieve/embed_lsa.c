/*
 * embed_lsa.c - the windowed LSA of the built-in embedder (embed_lsa.h):
 * from the corpus's term counts to a vector per term. embed_builtin.c
 * describes the model and what is stored; this file is how it is computed.
 *
 * X is the terms x windows matrix: a window is a document with its
 * MN_LSA_WINDOW neighbours on each side in its stream, its terms' counts
 * summed, weighted (1 + ln tf) * idf, unit length. The term vectors are the
 * first k left singular vectors of X (U_k, not scaled by the singular
 * values).
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
 * C = Q^T X^T X Q (l x l, l = k + OVERSAMPLE), C = W L W^T (util/symeig.h),
 * the window-side singular vectors P = Q W_k, sigma = sqrt(L), and the term
 * vectors U = X P / sigma. Cost O(nnz * l) per product plus O(windows *
 * l^2) per orthonormalisation. Above MAX_WINDOWS documents the SVD runs on
 * an evenly spaced sample of windows; every other window is then folded in
 * (p = U^T x / sigma) to give vectors to the terms the sample did not see.
 *
 * Everything of size windows or terms runs on c->threads threads
 * (embed_par.h): the windows are built in parallel batches and appended in
 * order, the products split into parts that write disjoint rows and sum in
 * the one-thread order, and so does the fold-in, so the vectors are the
 * same bit for bit on any number of threads
 * (tests/unit/retrieve/test_embed_par.c). The eigensolver is serial (~20 ms
 * at l = 264).
 */
#include "common.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "retrieve/embed.h"
#include "retrieve/embed_lsa.h"
#include "retrieve/embed_par.h"
#include "util/symeig.h"
#include "util/util.h"

#define MIN_DIM      32
#define MAX_DIM      256
#define DOCS_PER_DIM 8 /* k = N / DOCS_PER_DIM */
#define OVERSAMPLE   8 /* l = k + OVERSAMPLE */
#define POWER_ITERS  2
#define MAX_WINDOWS  8000 /* windows the SVD runs on; the rest are folded in */

int mn_lsa_by_term(const void *a, const void *b)
{
    const mn_lsa_entry *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Sort by term and sum the counts of equal terms, from index `from` on. */
void mn_lsa_collapse(mn_lsa_entry_vec *e, size_t from)
{
    size_t n = e->len - from, w = 0;
    mn_lsa_entry *p = e->items + from;
    if (n == 0)
        return;
    qsort(p, n, sizeof(*p), mn_lsa_by_term);
    for (size_t i = 1; i < n; i++) {
        if (p[i].t == p[w].t)
            p[w].x += p[i].x;
        else
            p[++w] = p[i];
    }
    e->len = from + w + 1;
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

/* The sparse matrix X: windows as columns of (term, weight). */
typedef struct {
    mn_lsa_entry_vec e;
    MN_VEC(size_t) start; /* window j: e[start[j], start[j + 1]) */
} windows;

/* The documents [*lo, *hi] of the window around document d: its neighbours in its stream. */
static void window_range(const mn_lsa_corpus *c, size_t d, size_t *lo_out, size_t *hi_out)
{
    size_t n = c->docs, lo = d, hi = d;
    while (lo > 0 && d - lo < MN_LSA_WINDOW && !c->new_stream[lo])
        lo--;
    while (hi + 1 < n && hi - d < MN_LSA_WINDOW && !c->new_stream[hi + 1])
        hi++;
    *lo_out = lo;
    *hi_out = hi;
}

/* Whether the window around document d holds a term not marked in seen. */
static bool window_has_unseen(const mn_lsa_corpus *c, size_t d, const bool *seen)
{
    size_t lo, hi;
    window_range(c, d, &lo, &hi);
    for (size_t j = c->start[lo]; j < c->start[hi + 1]; j++)
        if (!seen[c->entries[j].t])
            return true;
    return false;
}

/* The window around document d: its neighbours in the same stream, counts summed. */
static void add_window(windows *w, const mn_lsa_corpus *c, size_t d, const double *idf)
{
    size_t lo, hi;
    window_range(c, d, &lo, &hi);
    size_t from = w->e.len;
    mn_vec_push(&w->start, from);
    for (size_t i = lo; i <= hi; i++)
        for (size_t j = c->start[i]; j < c->start[i + 1]; j++)
            mn_vec_push(&w->e, c->entries[j]);
    mn_lsa_collapse(&w->e, from);
    double norm = 0;
    for (size_t j = from; j < w->e.len; j++) {
        mn_lsa_entry *x = &w->e.items[j];
        x->x = (float)((1 + log(x->x)) * idf[x->t]);
        norm += (double)x->x * x->x;
    }
    norm = sqrt(norm);
    for (size_t j = from; j < w->e.len && norm > 0; j++)
        w->e.items[j].x = (float)(w->e.items[j].x / norm);
}

/* The first of e[lo, hi) (sorted by term) whose term is >= t. */
static size_t entries_seek(const mn_lsa_entry *e, size_t lo, size_t hi, uint32_t t)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Windows built on the training's threads, WIN_BATCH at a time: each
 * document of the batch into a slot of its own, which the calling thread
 * then appends (the sample) or folds in (the rest) in document order, so
 * the result is that of one thread.
 */
#define WIN_BATCH    2048
#define WIN_PER_PART 64

typedef struct {
    const mn_lsa_corpus *c;
    const double *idf;
    size_t n;          /* documents in this batch */
    const size_t *doc; /* the sample: slot i holds the window of doc[i] */
    size_t d0;         /* the fold-in: slot i holds the window of d0 + i, if useful */
    windows *slot;     /* WIN_BATCH of them, reused from batch to batch */
    /* the fold-in */
    const bool *sampled, *seen;
    bool *useful; /* the window holds a term the sample did not see */
    double *pw;   /* WIN_BATCH x k: the window's projection, / sigma */
    float *u;
    const double *sigma;
    size_t k, nterms, parts;
} win_batch;

static void window_into(windows *slot, const mn_lsa_corpus *c, size_t d, const double *idf)
{
    slot->e.len = slot->start.len = 0;
    add_window(slot, c, d, idf);
}

static void sample_part(void *arg, size_t part, int thread)
{
    const win_batch *b = arg;
    MN_UNUSED(thread);
    for (size_t i = part * WIN_PER_PART; i < b->n && i < (part + 1) * WIN_PER_PART; i++)
        window_into(&b->slot[i], b->c, b->doc[i], b->idf);
}

/* Fold-in, first half: the windows of the batch that hold an unseen term, and their p = U^T x /
 * sigma from the seen terms' rows of U (which the second half does not write). */
static void fold_project_part(void *arg, size_t part, int thread)
{
    const win_batch *b = arg;
    size_t k = b->k;
    MN_UNUSED(thread);
    for (size_t i = part * WIN_PER_PART; i < b->n && i < (part + 1) * WIN_PER_PART; i++) {
        size_t d = b->d0 + i;
        b->useful[i] = false;
        /* most windows hold only terms the sample saw: nothing to fold in, so do not build
         * them (the same model, a quarter of the training time on sympy) */
        if (b->sampled[d] || !window_has_unseen(b->c, d, b->seen))
            continue;
        windows *one = &b->slot[i];
        window_into(one, b->c, d, b->idf);
        for (size_t j = 0; j < one->e.len && !b->useful[i]; j++)
            b->useful[i] = !b->seen[one->e.items[j].t];
        if (!b->useful[i])
            continue;
        double *pw = b->pw + i * k;
        memset(pw, 0, k * sizeof(double));
        for (size_t j = 0; j < one->e.len; j++)
            if (b->seen[one->e.items[j].t])
                for (size_t c0 = 0; c0 < k; c0++)
                    pw[c0] += one->e.items[j].x * b->u[(size_t)one->e.items[j].t * k + c0];
        for (size_t c0 = 0; c0 < k; c0++)
            pw[c0] = b->sigma[c0] > 1e-9 ? pw[c0] / b->sigma[c0] : 0;
    }
}

/* Fold-in, second half: the unseen terms of part `part`'s range get x p / sigma from each useful
 * window of the batch, in document order (a term's row sums as on one thread). */
static void fold_add_part(void *arg, size_t part, int thread)
{
    const win_batch *b = arg;
    size_t k = b->k;
    uint32_t tlo = (uint32_t)(b->nterms * part / b->parts),
             thi = (uint32_t)(b->nterms * (part + 1) / b->parts);
    MN_UNUSED(thread);
    for (size_t i = 0; i < b->n; i++) {
        if (!b->useful[i])
            continue;
        const mn_lsa_entry *e = b->slot[i].e.items;
        const double *pw = b->pw + i * k;
        for (size_t j = entries_seek(e, 0, b->slot[i].e.len, tlo);
             j < b->slot[i].e.len && e[j].t < thi; j++)
            if (!b->seen[e[j].t])
                for (size_t c0 = 0; c0 < k; c0++)
                    b->u[(size_t)e[j].t * k + c0] +=
                        (float)(e[j].x * pw[c0] / (b->sigma[c0] > 1e-9 ? b->sigma[c0] : 1));
    }
}

static void win_batch_release(win_batch *b)
{
    for (size_t i = 0; i < WIN_BATCH; i++) {
        mn_vec_release(&b->slot[i].e);
        mn_vec_release(&b->slot[i].start);
    }
    free(b->slot);
    free(b->useful);
    free(b->pw);
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
    return entries_seek(w->e.items, w->start.items[j], w->start.items[j + 1], t);
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
            const mn_lsa_entry *e = &w->e.items[i];
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

static atomic_size_t forced_sample;

void mn_embed_set_sample(size_t nwindows)
{
    atomic_store(&forced_sample, nwindows);
}

static size_t max_windows(void)
{
    size_t n = atomic_load(&forced_sample);
    return n ? n : MAX_WINDOWS;
}

size_t mn_lsa_sample_size(size_t docs)
{
    return docs < max_windows() ? docs : max_windows();
}

#define C_BLOCK 512 /* rows of S held at once: 1 MB at l = 264 */

/* See embed_lsa.h, and the file comment for the algorithm. */
float *mn_lsa_train(const mn_lsa_corpus *c, const double *idf, size_t *k_out)
{
    size_t n = c->docs, nterms = c->terms;
    size_t k = (n / DOCS_PER_DIM + 8) / 16 * 16;
    k = k < MIN_DIM ? MIN_DIM : k > MAX_DIM ? MAX_DIM : k;

    /* the windows the SVD runs on: all, or an evenly spaced sample */
    windows w = {MN_VEC_INIT, MN_VEC_INIT};
    size_t nw = mn_lsa_sample_size(n);
    bool *sampled = mn_calloc(n, sizeof(bool));
    size_t doc[WIN_BATCH];
    win_batch wb = {.c = c, .idf = idf, .doc = doc, .slot = mn_calloc(WIN_BATCH, sizeof(windows))};
    for (size_t j0 = 0; j0 < nw; j0 += WIN_BATCH) {
        wb.n = j0 + WIN_BATCH < nw ? WIN_BATCH : nw - j0;
        for (size_t i = 0; i < wb.n; i++) {
            doc[i] = (size_t)((double)(j0 + i) * (double)n / (double)nw);
            sampled[doc[i]] = true;
        }
        mn_par_run(c->threads, (wb.n + WIN_PER_PART - 1) / WIN_PER_PART, sample_part, &wb);
        for (size_t i = 0; i < wb.n; i++) {
            mn_vec_push(&w.start, w.e.len);
            for (size_t e = 0; e < wb.slot[i].e.len; e++)
                mn_vec_push(&w.e, wb.slot[i].e.items[e]);
        }
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
    bool converged = mn_symeig(cm, l, ev, wv) == 0; /* not seen to fail on finite input */
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
            wk[c0 * l + a] = wv[order[c0] * l + a];
    pprod pp = {p, y, wk, nw, k, l};
    mn_par_run(threads, (nw + ROWS_PER_PART - 1) / ROWS_PER_PART, p_part, &pp);
    free(wk);
    /* the sketches are done with: free them before the term vectors exist (on sympy's 45,000
     * chunks z and u are ~60 MB each) */
    free(y);
    free(z);
    /* zeroed by writing, not calloc: a large calloc maps the zero page, and the parts' first
     * `+=` on each page would then fault a copy in and flush every thread's TLB (sympy: 16,000
     * such faults, ~0.2 s of CPU) */
    float *u = mn_malloc(nterms * k * sizeof(float));
    memset(u, 0, nterms * k * sizeof(float));
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

    /* terms only the windows left out of the sample have: fold those windows in. An unseen
     * term's row of u is zero until this fills it, and the projections read only seen terms'
     * rows: accumulate in place */
    if (nw < n) {
        wb.sampled = sampled;
        wb.seen = seen;
        wb.useful = mn_malloc(WIN_BATCH * sizeof(bool));
        wb.pw = mn_malloc(WIN_BATCH * k * sizeof(double));
        wb.u = u;
        wb.sigma = sigma;
        wb.k = k;
        wb.nterms = nterms;
        wb.parts = (size_t)threads * 4;
        for (wb.d0 = 0; wb.d0 < n; wb.d0 += WIN_BATCH) {
            wb.n = wb.d0 + WIN_BATCH < n ? WIN_BATCH : n - wb.d0;
            mn_par_run(threads, (wb.n + WIN_PER_PART - 1) / WIN_PER_PART, fold_project_part, &wb);
            mn_par_run(threads, wb.parts, fold_add_part, &wb);
        }
    }
    win_batch_release(&wb);
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
    if (!converged) {
        free(u);
        return NULL;
    }
    return u;
}
