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
 * How it is computed (the randomized SVD, the sample of windows above
 * 8,000 documents and the fold-in of the rest) is embed_lsa.c's.
 *
 * Training runs on mn_embed_threads() threads (embed_par.h): the corpus is
 * tokenized in parallel batches and merged in document order, and the SVD
 * (embed_lsa.c) is the same bit for bit on any number of threads, so the
 * model is (tests/unit/retrieve/test_embed_par.c).
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
#include <xxhash.h>

#include "retrieve/embed.h"
#include "retrieve/embed_lsa.h"
#include "retrieve/embed_par.h"
#include "store/store_vector.h"
#include "text/tokenize.h"
#include "util/map.h"
#include "util/util.h"
#include "util/vec.h"

#define ALGO_VERSION   1
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

typedef mn_lsa_entry entry;
typedef mn_lsa_entry_vec entry_vec;

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

static void tokenize_into(vocab *v, bool add, entry_vec *out, const char *text, size_t len,
                          unsigned flags)
{
    size_t from = out->len;
    tok_ctx c = {v, add, out};
    if (len > MAX_DOC_BYTES)
        len = mn_utf8_floor(text, len, MAX_DOC_BYTES);
    mn_tokenize(text, len, MN_LANG_UNKNOWN, flags, on_token, &c);
    mn_lsa_collapse(out, from);
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
 *
 * Two batches take turns: while the other threads tokenize one, the calling
 * thread reads the rows of the next, then joins the tokenizing, merges, and
 * starts the next (sympy: the ~0.2 s of reading rows no longer leaves the
 * other cores idle). A merge never overlaps a tokenizing: both touch the
 * workers' vocabularies.
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
    struct corpus *c;
    MN_VEC(pending_doc) docs; /* [0, n) are this batch's */
    size_t n, bytes;
    size_t base; /* the corpus index of its first document */
} tok_batch;

typedef struct corpus {
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
    tok_batch batch[2];
    int filling;    /* the batch the rows go into; the other may be in flight */
    bool in_flight; /* the other batch is being tokenized (run) */
    mn_par_async run;
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
    tok_batch *b = arg;
    pending_doc *d = &b->docs.items[part];
    tok_worker *w = &b->c->workers[thread];
    local_ctx lc = {w, &d->e};
    d->worker = thread;
    d->e.len = 0;
    w->docs++; /* stamps start at 0 with docs 0: the first document is 1 */
    mn_tokenize(d->text, d->len, MN_LANG_UNKNOWN, 0, on_local_token, &lc);
}

static void sort_entries(entry *p, size_t n)
{
    if (n > 24) {
        qsort(p, n, sizeof(*p), mn_lsa_by_term);
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

/* Append the tokenized batch b to the corpus in document order. */
static void merge_batch(corpus *c, tok_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        pending_doc *d = &b->docs.items[i];
        tok_worker *w = &c->workers[d->worker];
        size_t from = c->entries.len;
        c->start.items[b->base + i] = from;
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
    b->n = b->bytes = 0;
}

/* The batch in flight, if any: tokenized (the caller helping) and merged. */
static void land_batch(corpus *c)
{
    if (!c->in_flight)
        return;
    mn_par_finish(&c->run);
    merge_batch(c, &c->batch[!c->filling]);
    c->in_flight = false;
}

/* The filling batch goes to the threads; the rows that follow fill the other. */
static void send_batch(corpus *c)
{
    tok_batch *b = &c->batch[c->filling];
    land_batch(c); /* the other one, before anything touches the vocabularies again */
    if (b->n == 0)
        return;
    mn_par_start(&c->run, c->threads, b->n, tokenize_part, b);
    c->in_flight = true;
    c->filling = !c->filling;
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
    tok_batch *b = &c->batch[c->filling];
    if (b->n == 0)
        b->base = c->start.len - 1;
    if (b->n == b->docs.len)
        mn_vec_push(&b->docs, ((pending_doc){NULL, 0, 0, MN_VEC_INIT}));
    pending_doc *p = &b->docs.items[b->n++];
    p->text = mn_strndup(d->text, len);
    p->len = len;
    b->bytes += len;
    if (b->n >= TOK_BATCH_DOCS || b->bytes >= TOK_BATCH_BYTES)
        send_batch(c);
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
    for (int k = 0; k < 2; k++) {
        tok_batch *b = &c->batch[k];
        for (size_t i = 0; i < b->docs.len; i++) {
            free(b->docs.items[i].text);
            mn_vec_release(&b->docs.items[i].e);
        }
        mn_vec_release(&b->docs);
    }
    c->workers = NULL;
}

/* Read and tokenize the project's corpus into c (c->hash set up by the caller). */
static int corpus_read(mn_store *s, corpus *c)
{
    c->threads = mn_embed_threads();
    c->workers = mn_calloc((size_t)c->threads, sizeof(*c->workers));
    for (int i = 0; i < c->threads; i++)
        c->workers[i].v = (vocab){MN_MAP_INIT, MN_VEC_INIT, MN_VEC_INIT};
    for (int k = 0; k < 2; k++)
        c->batch[k].c = c;
    int rc = mn_store_embed_corpus_each(s, on_doc, c);
    if (rc == 0)
        send_batch(c); /* the last rows */
    land_batch(c);     /* and the batch in flight, even after an error: its threads end */
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
                  "window", MN_LSA_WINDOW, "dim", (json_int_t)k, "docs", (json_int_t)n, "terms",
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
    size_t ahead;  /* [0, ahead) are computed before embed_corpus (doc_vecs_init's range) */
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

/* The first AHEAD_DOCS documents' vectors are computed on a thread of their own while the
 * calling thread writes the term rows (sympy: all 45,000, ~0.1 s of wall time hidden); the
 * rest, if any, batch by batch before each batch is written. AHEAD_DOCS x k bytes is at most
 * a quarter of the term vectors u just freed. */
#define AHEAD_DOCS (16 * WRITE_BATCH)

static void doc_vecs_init(doc_vecs *v, const corpus *c, const double *idf, const int8_t *q,
                          const float *scale, size_t k)
{
    size_t n = c->start.len - 1, ahead = n < AHEAD_DOCS ? n : AHEAD_DOCS;
    *v = (doc_vecs){.c = c,
                    .idf = idf,
                    .q = q,
                    .scale = scale,
                    .k = k,
                    .d1 = ahead,
                    .ahead = ahead,
                    .out = mn_malloc(ahead * k),
                    .out_sc = mn_malloc(ahead * sizeof(float)),
                    .row = mn_malloc((size_t)c->threads * k * sizeof(float))};
}

static void doc_vecs_release(doc_vecs *v)
{
    free(v->out);
    free(v->out_sc);
    free(v->row);
}

static void doc_vecs_run(doc_vecs *v, int threads)
{
    mn_par_run(threads, (v->d1 - v->d0 + DOCS_PER_PART - 1) / DOCS_PER_PART, doc_vecs_part, v);
}

static void *ahead_main(void *arg)
{
    doc_vecs *v = arg;
    /* one thread fewer than training's: the calling thread is writing meanwhile */
    doc_vecs_run(v, v->c->threads > 1 ? v->c->threads - 1 : 1);
    return NULL;
}

/* Write every document's vector: [0, v->ahead) are computed already. */
static int embed_corpus(mn_store *s, const char *model, doc_vecs *v, int64_t *written)
{
    const corpus *c = v->c;
    size_t n = c->start.len - 1, ahead = v->ahead, k = v->k;
    int rc = 0;
    for (size_t d0 = 0; d0 < n && rc == 0; d0 += WRITE_BATCH) {
        size_t d1 = d0 + WRITE_BATCH < n ? d0 + WRITE_BATCH : n;
        const int8_t *out = v->out + d0 * k;
        const float *out_sc = v->out_sc + d0;
        if (d0 >= ahead) { /* the vectors on the threads, into the buffer's first rows */
            v->d0 = d0;
            v->d1 = d1;
            doc_vecs_run(v, c->threads);
            out = v->out;
            out_sc = v->out_sc;
        }
        /* written in order in one transaction */
        if ((rc = mn_store_begin(s)) != 0)
            break;
        for (size_t d = d0; d < d1 && rc == 0; d++)
            rc = mn_store_vector_put(s, c->is_memory.items[d] ? "memory" : "chunk",
                                     c->owner.items[d], model, out + (d - d0) * k, k,
                                     out_sc[d - d0]);
        if (rc) {
            mn_store_rollback(s);
            break;
        }
        if ((rc = mn_store_commit(s)) != 0)
            break;
        *written += (int64_t)(d1 - d0);
    }
    return rc;
}

/* The term vectors as they are stored: int8 and a scale, TERMS_PER_PART rows per part. */
typedef struct {
    const float *u;
    int8_t *q;
    float *scales;
    size_t k, n;
} quantize_run;

#define TERMS_PER_PART 1024

static void quantize_part(void *arg, size_t part, int thread)
{
    const quantize_run *r = arg;
    MN_UNUSED(thread);
    for (size_t t = part * TERMS_PER_PART; t < r->n && t < (part + 1) * TERMS_PER_PART; t++)
        r->scales[t] = mn_embed_quantize(r->q + t * r->k, r->u + t * r->k, r->k);
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
    if ((rc = mn_store_map_drop(s, &unmapped)) != 0)
        goto out;
    uint64_t t0 = mn_time_mono_ns();
    int64_t epoch = 0; /* the corpus as training reads it */
    if ((rc = mn_store_embed_corpus_epoch(s, &epoch)) != 0)
        goto out;
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
    mn_lsa_corpus lc = {c.entries.items, c.start.items, c.new_stream.items, n, nterms, c.threads};
    if ((u = mn_lsa_train(&lc, idf, &k)) == NULL) {
        rc = mn_error_set(MN_EINTERNAL, "the built-in model's eigensolver did not converge");
        goto out;
    }

    char params[64];
    snprintf(params, sizeof(params), "|v%d|w%d|k%zu|t%d|", ALGO_VERSION, MN_LSA_WINDOW, k,
             MAX_TERMS);
    XXH3_64bits_update(c.hash, params, strlen(params));
    char model[64];
    snprintf(model, sizeof(model), "builtin:lsa%zu@%016llx", k,
             (unsigned long long)XXH3_64bits_digest(c.hash));
    /* the term vectors as they are stored (int8 and a scale), for the store and for the
     * corpus's own vectors; u goes before the vectors are written */
    q = mn_malloc(nterms * k);
    scales = mn_malloc(nterms * sizeof(float));
    quantize_run qr = {u, q, scales, k, nterms};
    mn_par_run(c.threads, (nterms + TERMS_PER_PART - 1) / TERMS_PER_PART, quantize_part, &qr);
    free(u);
    u = NULL;
    doc_vecs dv;
    doc_vecs_init(&dv, &c, idf, q, scales, k);
    pthread_t ahead;
    bool aside = pthread_create(&ahead, NULL, ahead_main, &dv) == 0;
    if (!aside)
        ahead_main(&dv); /* no thread to spare: first, then */
    rc = store_model(s, model, &c, idf, q, scales, k, mn_lsa_sample_size(n));
    if (aside)
        pthread_join(ahead, NULL);
    if (rc == 0)
        rc = embed_corpus(s, model, &dv, &stats->embedded);
    doc_vecs_release(&dv);
    if (rc)
        goto out;
    /* every document has its vector: the sync right after need not look for missing ones
     * (sympy: ~40 ms of scanning) */
    mn_embed_model_rec synced = {model, true, k, (int64_t)n, NULL, 0, -1};
    if ((rc = mn_embed_mark_synced(s, &synced, epoch)) != 0)
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
