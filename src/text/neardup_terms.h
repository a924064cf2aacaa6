/*
 * neardup_terms.h - what neardup.c (fingerprints) and neardup_verdict.c (the
 * verdict on a pair) both read of a text: its content terms in order and
 * their character shingles. Internal to src/text/.
 *
 * Content terms are mn_tokenize's terms that take a position (wholes of
 * identifiers and English alternatives of other languages' words are left
 * out, so a text is one sequence), stop words dropped, stemmed. Left out too:
 * hex strings of 7 or more characters with letters and digits (commit ids,
 * hashes) and numbers right after '#' (issue and pull request references):
 * they name a revision or a thread, not what the text says; and terms of one
 * code point ("x" of "8.2.x", "2" of "v2"), too small to compare on (numbers
 * are compared by the verdict's own signal). The stream is
 * those terms joined by single spaces; its shingles are the xxh3 hashes of
 * every run of MN_SHINGLE_K code points (or of the whole stream when it is
 * shorter), sorted and unique when asked (the verdict's exact Jaccard needs
 * sets; a MinHash does not mind repeats).
 */
#ifndef MN_TEXT_NEARDUP_TERMS_H
#define MN_TEXT_NEARDUP_TERMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

typedef struct {
    const char *text; /* the text read (not owned; for the terms' surroundings) */
    uint64_t *terms;  /* xxh3 of each content term, in text order */
    size_t *spans;    /* [2 * i, 2 * i + 1]: the byte span of term i's surface form */
    size_t n_terms, cap_terms;
    mn_buf stream;      /* the terms joined by ' ' */
    uint64_t *shingles; /* sorted and unique when read with unique */
    size_t n_shingles;
} mn_neardup_terms;

/** Read [text, text+len) into *t (zeroed, or released before). Never fails. */
void mn_neardup__terms_read(mn_neardup_terms *t, const char *text, size_t len, bool unique);
void mn_neardup__terms_release(mn_neardup_terms *t);

/** |A ∩ B| / |A ∪ B| of two sorted unique arrays; 0 when both are empty. */
double mn_neardup__jaccard_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/** Sort v[0..n) and drop repeats; returns the new length. */
size_t mn_neardup__sort_unique(uint64_t *v, size_t n);

/** The normalised exact hash of a text (see neardup.c). */
uint64_t mn_neardup__exact_hash(const char *text, size_t len);

/** The 64-bit SimHash of a term sequence (unigrams and bigrams, weight 1 each). */
uint64_t mn_neardup__simhash(const uint64_t *terms, size_t n);

#endif
