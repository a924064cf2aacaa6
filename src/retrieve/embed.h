/*
 * embed.h - text embeddings for the semantic signal: the embedder interface,
 * its two implementations, int8 vectors and the exact top-k over them.
 *
 * An embedder turns texts into unit-length float vectors of one dimension.
 * It is a small vtable (mn_embedder_ops) behind mn_embedder_embed, with two
 * implementations:
 *
 *  - "builtin" (embed_builtin.c): learned from the project's own corpus,
 *    nothing to download. Windowed LSA: a truncated SVD of the tf-idf
 *    matrix of each memory and chunk together with its neighbours (the
 *    memories saved around it, the chunks around it in its file); a text's
 *    vector is the tf-idf weighted sum of its terms' vectors. The model is
 *    stored in the store (embed_models, embed_terms) and named
 *    "builtin:lsa<dim>@<fingerprint>"; it is retrained when the corpus has
 *    grown or shrunk by half since (mn_embed_sync).
 *  - "http" (embed_http.c): any OpenAI-compatible /embeddings endpoint
 *    (Ollama, llama.cpp server, OpenAI, TEI), named "http:<model>", with
 *    batching, retries with backoff, a timeout, and checked answers.
 *
 * Vectors are stored as int8 with one scale per vector (x ~= scale * q,
 * scale = max|x| / 127): a unit vector loses nothing a ranking notices
 * (the LoCoMo experiment in docs/internals/embeddings.md gives the same
 * recall to 4 decimals) and takes a quarter of the space. The top-k is
 * exact: every stored vector of the model is scored against the query.
 *
 * Who does what: mn_embed_sync (embed_sync.c) embeds what has no vector
 * yet; mn_semantic_topk (semantic.h) answers a query. How the semantic
 * score is fused with the other signals: docs/internals/embeddings.md.
 */
#ifndef MN_RETRIEVE_EMBED_H
#define MN_RETRIEVE_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_vector.h"

/** Largest dimension accepted from any embedder (text-embedding-3-large has 3072). */
#define MN_EMBED_MAX_DIM 8192
/** Stored vectors are padded with zeros to a multiple of this many lanes (see mn_embed_dot_i8). */
#define MN_EMBED_LANES MN_VECTOR_LANES

/* Flags of mn_embedder_embed. */
/** The texts are search queries, not documents (tokenized as queries; the query prefix). */
#define MN_EMBED_QUERY 0x1u

typedef struct mn_embedder mn_embedder;

typedef struct {
    const char *kind; /* "builtin", "http" */
    /** As mn_embedder_embed (which checks the arguments first); may set e->dim. */
    int (*embed)(mn_embedder *e, float **out, const char *const *texts, size_t n, unsigned flags);
    void (*free)(mn_embedder *e);
} mn_embedder_ops;

/*
 * The fields every embedder has; an implementation embeds this struct first
 * in its own. model and dim are what vectors are stored under: two
 * embedders with the same model string must give the same vectors.
 */
struct mn_embedder {
    const mn_embedder_ops *ops;
    char *model;  /* "builtin:lsa64@3fa2c1d09b7e4410", "http:nomic-embed-text" */
    size_t dim;   /* 0 until known: an HTTP embedder learns it from its first answer */
    size_t batch; /* texts per call the embedder prefers (mn_embed_sync batches by it) */
};

/** What config says about embeddings (src/api/config.c: the embed.* keys). */
typedef struct {
    unsigned version;
    char *provider;        /* "builtin", "http" or "off" */
    char *url;             /* http: base URL; POST <url>/embeddings */
    char *model;           /* http: model name sent in the request */
    char *key;             /* http: bearer token; "env:NAME" reads $NAME; NULL or "": none */
    int64_t timeout_ms;    /* http: whole request, per attempt */
    size_t batch;          /* http: texts per request */
    int retries;           /* http: attempts after the first on network errors, 429 and 5xx */
    int64_t backoff_ms;    /* http: first wait before a retry, doubled each time (max 8 s) */
    size_t max_text_bytes; /* texts are cut (on a UTF-8 boundary) to this many bytes */
    char *query_prefix;    /* prepended to queries ("search_query: " for nomic) */
    char *document_prefix; /* prepended to documents */
} mn_embed_options;

#define MN_EMBED_OPTIONS_VERSION 1
#define MN_EMBED_OPTIONS_INIT                                                                 \
    {                                                                                         \
        MN_EMBED_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 30000, 32, 2, 250, 8192, NULL, NULL \
    }

/** Free the strings of options filled by mn_api__embed_options (not the struct). */
void mn_embed_options_release(mn_embed_options *o);

/**
 * Embed n texts. *out gets n * e->dim floats (malloc'd, caller frees), each
 * row of unit length (a zero row for a text with nothing to embed).
 * Returns 0, or an error with the message set (MN_EIO when an HTTP
 * embedder cannot be reached, MN_ERROR for a bad answer).
 */
int mn_embedder_embed(mn_embedder *e, float **out, const char *const *texts, size_t n,
                      unsigned flags);
void mn_embedder_free(mn_embedder *e);

/**
 * An OpenAI-compatible HTTP embedder from o->url, o->model, o->key,
 * o->timeout_ms, o->batch, o->retries. No request is made here: the first
 * mn_embedder_embed learns the dimension. MN_EINVAL for a missing or
 * malformed url or model.
 */
int mn_embedder_http_new(mn_embedder **out, const mn_embed_options *o);

/**
 * The bearer token a value of embed.key stands for, read now: "env:NAME"
 * is $NAME; "file:PATH" is the first line of PATH, which must be a regular
 * file owned by this user that no one else may read (mode 0600 or 0400);
 * any other non-empty value is a key stored by an older mnemo, used as it
 * is. *out is malloc'd (wipe and free it; NULL for an empty value). The
 * messages name the variable or the file, never the key. MN_EINVAL.
 */
int mn_embed_key_resolve(char **out, const char *ref);

/**
 * The built-in embedder of the store's current built-in model (trained by
 * mn_embed_builtin_train). MN_ENOTFOUND when there is none yet. The
 * embedder reads term vectors from s: s must outlive it.
 */
int mn_embedder_builtin_open(mn_embedder **out, mn_store *s);

typedef struct {
    bool trained;     /* a new model was trained (the old one and its vectors dropped) */
    int64_t docs;     /* documents it was trained on */
    int64_t terms;    /* terms with a vector */
    size_t dim;       /* its dimension */
    double seconds;   /* training time */
    int64_t embedded; /* documents given their vector by the training (no sync needed) */
} mn_embed_train_stats;

/**
 * Train the built-in model on the project's corpus when there is none, when
 * the corpus has changed size by a factor of 1.5 since the model was
 * trained, or when force is set; otherwise do nothing. Needs no
 * transaction (opens its own). A corpus of fewer than MN_EMBED_MIN_DOCS
 * documents gets no model (MN_ENOTFOUND, "too small").
 */
int mn_embed_builtin_train(mn_store *s, bool force, mn_embed_train_stats *stats);

/**
 * The windows the built-in model's SVD runs on at most, the rest being
 * folded in (0: the default, 8,000). For tests, so that a small corpus takes
 * the fold-in path too.
 */
void mn_embed_set_sample(size_t nwindows);
#define MN_EMBED_MIN_DOCS 32

/* ---- vectors ---- */

/** Scale x to unit length in place (a zero vector stays zero). */
void mn_embed_normalize(float *x, size_t dim);

/** Dimension rounded up to the next multiple of MN_EMBED_LANES. */
static inline size_t mn_embed_padded(size_t dim)
{
    return (dim + MN_EMBED_LANES - 1) / MN_EMBED_LANES * MN_EMBED_LANES;
}

/**
 * Quantise x[dim] to out[dim]: out[i] = round(x[i] / scale), scale =
 * max|x| / 127, so every value fits int8 and the largest maps to +-127.
 * Returns scale (0 for a zero vector).
 */
float mn_embed_quantize(int8_t *out, const float *x, size_t dim);

/** Sum of a[i] * b[i] over dim (a multiple of MN_EMBED_LANES), in int32. */
int32_t mn_embed_dot_i8(const int8_t *a, const int8_t *b, size_t dim);

typedef struct {
    size_t index; /* row in the scanned array */
    float score;  /* approximate cosine: qscale * scale[row] * dot */
} mn_embed_hit;

/**
 * The exact top k rows of data (n rows of `stride` bytes, stride a multiple
 * of MN_EMBED_LANES, zero-padded) by dot product with q (stride bytes),
 * scores scaled by qscale * scales[row]. out[k] gets them best first (ties:
 * lower row first); returns how many (min(k, n)).
 */
size_t mn_embed_topk(mn_embed_hit *out, size_t k, const int8_t *q, float qscale, const int8_t *data,
                     const float *scales, size_t n, size_t stride);

/* ---- keeping vectors in step with the store (embed_sync.c) ---- */

typedef struct {
    int64_t embedded;     /* vectors written */
    int64_t missing;      /* rows still without a vector after this call (limit reached) */
    int64_t dropped;      /* vectors of other models removed */
    double embed_seconds; /* time inside the embedder */
    mn_embed_train_stats train;
} mn_embed_sync_stats;

/**
 * Give every live memory and every chunk of the project a vector from e,
 * at most `limit` of them in this call (0: no limit), in batches of
 * e->batch, each batch written in its own transaction (the embedder runs
 * outside any transaction). Vectors of other models are dropped first: a
 * changed model re-embeds everything. Cheap when nothing changed since the
 * last complete sync (one read). Returns 0, or the embedder's error (what
 * was written before it stays).
 */
int mn_embed_sync(mn_store *s, mn_embedder *e, size_t limit, mn_embed_sync_stats *stats);

/**
 * Every row of the corpus has a vector of model m now: record the corpus
 * epoch (read before the rows were) as synced on m, recording m first if it
 * is new, unless the corpus has moved since; the next sync is then one read.
 * What mn_embed_sync does at the end of a complete sync, and training after
 * it embedded the whole corpus. Opens its own transaction.
 */
int mn_embed_mark_synced(mn_store *s, const mn_embed_model_rec *m, int64_t epoch);

/* Flags of mn_embedder_open. */
/** Train or refresh the built-in model when needed (writes; not on read-only stores). */
#define MN_EMBED_MAY_TRAIN 0x1u

/**
 * The embedder configured by o (provider builtin, http or off). *out is
 * NULL for "off", and for "builtin" when the corpus is too small to learn
 * from (both return 0). For builtin with MN_EMBED_MAY_TRAIN the model is
 * trained or refreshed first (stats->train says).
 */
int mn_embedder_open(mn_embedder **out, mn_store *s, const mn_embed_options *o, unsigned flags,
                     mn_embed_sync_stats *stats);

#endif
