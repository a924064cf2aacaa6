/*
 * embed_lsa.h - the windowed LSA the built-in embedder learns
 * (embed_builtin.c reads the corpus and stores the model; embed_lsa.c is
 * the linear algebra in between). Internal to src/retrieve/.
 */
#ifndef MN_RETRIEVE_EMBED_LSA_H
#define MN_RETRIEVE_EMBED_LSA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/vec.h"

#define MN_LSA_WINDOW 2 /* a window: a document and this many neighbours on each side */

/* A term of a document or a window: its id, and its count (later its weight). */
typedef struct {
    uint32_t t;
    float x;
} mn_lsa_entry;

typedef MN_VEC(mn_lsa_entry) mn_lsa_entry_vec;

/* The corpus as training sees it: every document's terms, sorted by term id. */
typedef struct {
    const mn_lsa_entry *entries;
    const size_t *start;    /* document i: entries[start[i], start[i + 1]), docs + 1 of them */
    const bool *new_stream; /* document i starts a stream (no window crosses into the one before) */
    size_t docs, terms;     /* term ids are < terms */
    int threads;            /* the parallel runs' (embed_par.h) */
} mn_lsa_corpus;

/** qsort's order of entries: by term id. */
int mn_lsa_by_term(const void *a, const void *b);

/** Sort e's entries from index `from` on by term, and sum the counts of equal terms. */
void mn_lsa_collapse(mn_lsa_entry_vec *e, size_t from);

/** The windows the SVD runs on for a corpus of `docs` documents; the others are folded in. */
size_t mn_lsa_sample_size(size_t docs);

/**
 * The term vectors (c->terms x k floats, malloc'd) of the windowed LSA of c
 * with the terms' idf; *k_out is k. NULL if the eigensolver failed (not
 * seen on finite input). The same bits on any number of threads.
 */
float *mn_lsa_train(const mn_lsa_corpus *c, const double *idf, size_t *k_out);

#endif
