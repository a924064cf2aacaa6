/*
 * store_vector.h - the embeddings part of the store interface: vectors per
 * memory and chunk and model, the models they belong to, the built-in
 * model's term vectors, and the corpus the built-in model learns from.
 *
 * Tables: vectors (schema v1), embed_models, embed_terms, embed_corpus
 * (schema v5, which explains the triggers that keep vectors in step with
 * what they embed: a row without a vector for a model is exactly a row to
 * embed). Vectors are int8 with a scale (x ~= scale * q), stored and
 * returned padded with zeros to a multiple of MN_VECTOR_LANES so the top-k
 * loop needs no remainder (src/retrieve/embed.h: mn_embed_topk).
 *
 * The text a row is embedded with is the text the full-text index reads
 * (schema v3's views), assembled here and nowhere else:
 *   memory: title (left out when the body starts with it), keywords and
 *           tags, body, context (situation, solution, what failed, error
 *           messages, files, scope), one per line;
 *   chunk:  file path, symbol names, signature, docstring, code.
 *
 * Owner kinds are the strings "memory" and "chunk"; owner ids are the
 * memory's row id (mn_memory_hit.rowid) and the chunk's id.
 */
#ifndef MN_STORE_VECTOR_H
#define MN_STORE_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define MN_VECTOR_LANES 16

/* ---- models ---- */

typedef struct {
    const char *model;
    bool per_project;     /* the built-in model: tied to the store's project (its corpus) */
    size_t dim;           /* without padding */
    int64_t docs;         /* built-in: corpus documents it was trained on */
    const char *params;   /* JSON text or NULL */
    int64_t created_at;   /* ms */
    int64_t synced_epoch; /* corpus epoch of the last complete sync; -1: never */
} mn_embed_model_rec;

/** Record a model (nothing changes when it exists). Needs a transaction. */
int mn_store_embed_model_put(mn_store *s, const mn_embed_model_rec *m);
/** A model by name (out->model is `model`, out->params NULL): MN_ENOTFOUND when unknown. */
int mn_store_embed_model_get(mn_store *s, const char *model, mn_embed_model_rec *out);
/** Models of this project (or of none) whose name starts with prefix, newest first. */
int mn_store_embed_models_each(mn_store *s, const char *prefix,
                               int (*cb)(void *payload, const mn_embed_model_rec *m),
                               void *payload);
/**
 * Remove every model but keep (NULL: all) with their terms and vectors;
 * *vectors (optional) gets the number of vectors removed. Vectors stored
 * under a name no model row has are removed too. Needs a transaction.
 */
int mn_store_embed_models_drop(mn_store *s, const char *keep, int64_t *vectors);
/** Record that a sync left nothing to embed at this corpus epoch. Needs a transaction. */
int mn_store_embed_model_synced(mn_store *s, const char *model, int64_t epoch);
/** The corpus epoch: moves on every change of what is embedded (schema v5). */
int mn_store_embed_corpus_epoch(mn_store *s, int64_t *out);
/**
 * *current: no chunk changed since a sync of model last left nothing to
 * embed (SQLite: no chunk of any project in the file; PostgreSQL: of this
 * project), so a sync need not look for chunks without a vector (the
 * corpus epoch's chunk side: SQLite schema v19, PostgreSQL v6). A back end
 * without it leaves it out (MN_EUNSUPPORTED) and its syncs look.
 */
int mn_store_embed_chunks_current(mn_store *s, const char *model, bool *current);

/* ---- vectors ---- */

/**
 * Store the vector of one owner under model (replacing any). q holds dim
 * values (unpadded); scale as mn_embed_quantize returns it. The model must
 * have been recorded (mn_store_embed_model_put) with this dim. Needs a
 * transaction.
 */
int mn_store_vector_put(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                        const int8_t *q, size_t dim, float scale);
/** One owner's vector: *out malloc'd, zero-padded to a multiple of MN_VECTOR_LANES. MN_ENOTFOUND.
 */
int mn_store_vector_get(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                        int8_t **out, size_t *dim, float *scale);

/**
 * Every vector of one model and owner kind that belongs to a live row of
 * this project, as one contiguous array. Immutable and shared: a process
 * keeps the last sets loaded and hands the same set out again while the
 * model's epoch has not moved, so a search after the first costs no read
 * beyond one row. Release with mn_vector_set_release.
 */
typedef struct {
    size_t n;            /* rows */
    size_t dim, stride;  /* stride = dim padded to MN_VECTOR_LANES */
    const int64_t *ids;  /* owner ids, ascending */
    const int8_t *data;  /* n * stride */
    const float *scales; /* n */
} mn_vector_set;

int mn_store_vectors_load(mn_store *s, const char *model, const char *owner_kind,
                          const mn_vector_set **out);
void mn_vector_set_release(const mn_vector_set *set);

/**
 * How this store ranks vectors, a static phrase for `mnemo status`: SQLite
 * and PostgreSQL without pgvector keep int8 vectors in rows and rank them
 * exactly in mnemo; on PostgreSQL it also says whether the pgvector
 * extension is installed or available (it is not used yet).
 */
int mn_store_vector_search(mn_store *s, const char **out);

/** Rows of this project with and without a vector for model (live memories, chunks). */
int mn_store_vectors_count(mn_store *s, const char *model, const char *owner_kind, int64_t *have,
                           int64_t *missing);

/**
 * Rows of this project of owner_kind with no vector for model, in id order,
 * at most limit (0: all), with the text to embed (valid during the call;
 * may be empty). A non-zero return of cb stops and is returned.
 */
int mn_store_vectors_missing(mn_store *s, const char *model, const char *owner_kind, size_t limit,
                             int (*cb)(void *payload, int64_t owner_id, const char *text,
                                       size_t len),
                             void *payload);

/** Remove vectors whose owner is gone or forgotten (the triggers make these rare). */
int mn_store_vectors_gc(mn_store *s, int64_t *removed);

/**
 * Leave model's vector sets where the next process finds them without
 * reading the rows: SQLite's vectors files beside the store (vector_file.c),
 * written here when they are missing or name an older epoch. Called at the
 * end of `mnemo index`, so that the first search after it does not load and
 * write them (on a 67,000-chunk index that was ~100 ms of its ~200). A back
 * end without such files leaves this out (MN_EUNSUPPORTED).
 */
int mn_store_vectors_keep(mn_store *s, const char *model);

/* ---- the built-in model's corpus and terms ---- */

/** Live memories plus chunks of this project (what the built-in model learns from). */
int mn_store_embed_corpus_count(mn_store *s, int64_t *out);

typedef struct {
    const char *owner_kind; /* "memory" or "chunk" */
    int64_t owner_id;
    const char *stream; /* documents of one stream are neighbours: a file's chunks in line
                           order; memories in save order, by session when they name one */
    const char *text;
    size_t len;
} mn_embed_doc;

/**
 * Every document of the corpus, stream by stream, in order within a
 * stream: memories first, then chunks. A non-zero return of cb stops.
 */
int mn_store_embed_corpus_each(mn_store *s, int (*cb)(void *payload, const mn_embed_doc *d),
                               void *payload);

/** Store one term's vector of the built-in model (q: dim values). Needs a transaction. */
int mn_store_embed_term_put(mn_store *s, const char *model, const char *term, size_t len,
                            double idf, const int8_t *q, size_t dim, float scale);
/**
 * Look terms up: cb(which, idf, q, qlen, scale) for each of terms[0..n) the
 * model has (q: qlen values, valid during the call; qlen is the model's dim
 * unless the row is damaged, which the caller checks).
 */
int mn_store_embed_terms_get(mn_store *s, const char *model, const char *const *terms, size_t n,
                             int (*cb)(void *payload, size_t which, double idf, const int8_t *q,
                                       size_t qlen, float scale),
                             void *payload);
/** Every term of the model (any order), as mn_store_embed_terms_get reports them. */
int mn_store_embed_terms_each(mn_store *s, const char *model,
                              int (*cb)(void *payload, const char *term, size_t len, double idf,
                                        const int8_t *q, size_t qlen, float scale),
                              void *payload);

#endif
