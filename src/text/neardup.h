/*
 * neardup.h - near-duplicate detection: fingerprints, LSH band keys, a
 * verdict for a pair of texts, and loose clusters for consolidation.
 *
 * The caller concatenates what identifies a memory (title, body, key context
 * fields) into one text; this module knows nothing of memories. These
 * fingerprints come out of a text (mn_fingerprint_compute):
 *
 *  - exact: xxh3 of the text NFKD-decomposed, case-folded, white space
 *    collapsed and trimmed (a re-spacing or re-casing of the same text);
 *  - simhash: 64 bits over the word unigrams and bigrams of the content terms
 *    mn_tokenize emits (stemmed, case-folded, identifiers split, stop words,
 *    commit ids, '#123' references and one-letter terms dropped), so
 *    "Sessions expire" and "session expiring" agree;
 *  - minhash: a MN_MINHASH_N-value signature of the character
 *    MN_SHINGLE_K-grams (code points) of those same terms joined by single
 *    spaces (one permutation hashing with optimal densification: one hash
 *    per shingle), cut into MN_LSH_BANDS bands of MN_LSH_ROWS rows. Two
 *    texts whose shingle sets have Jaccard similarity J agree on each value
 *    with probability J, and share at least one band key with probability
 *
 *        P(J) = 1 - (1 - J^r)^b          (b = 32 bands, r = 4 rows)
 *
 *        J     0.1    0.2    0.3    0.4    0.5    0.6    0.7
 *        P     0.003  0.05   0.23   0.56   0.87   0.99   1.00
 *
 *    (the steep part near (1/b)^(1/r) = 0.42). Why 4-grams and 32 x 4: of
 *    the labelled pairs the verdict merges, all but one share a band key,
 *    while real commit messages of three projects that have nothing to do
 *    with each other do so about 2.4 times in 10,000 (about 24 candidates
 *    per new memory at 100k); wider bands (42 x 3, 64 x 2) find more
 *    paraphrases the verdict would not merge anyway and 2.5 and 19 times the
 *    unrelated candidates. The measurements and the other shapes are in
 *    docs/internals/neardup.md;
 *  - lead: a hash of the first MN_LEAD_TERMS content terms, a key beside the
 *    bands for a short text inside a long one (same first words, few shared
 *    shingles).
 *
 * The store keeps the keys (mn_fingerprint_bands: 32 bands and the lead) of
 * every memory and looks up the memories sharing one with a new text; mn_neardup_judge then
 * reads both texts and says duplicate (merge), conflicting (a near-duplicate
 * whose conclusion differs: a changed number or version, a negation, a
 * revert, a swapped alternative, an opposite word) or distinct, with short reasons and, when
 * the text says so ("no longer", "now", "instead of", "switched to",
 * "revert"), which side is the newer one.
 *
 * Everything is deterministic: fixed seeds, xxh3 (the same on every
 * platform), the tokenizer's rules (MN_TOK_VERSION). MN_FINGERPRINT_VERSION
 * changes whenever a fingerprint of some text changes; stored fingerprints of
 * another version must be recomputed. Thread safety: every function is
 * reentrant (the tokenizer is per thread).
 */
#ifndef MN_TEXT_NEARDUP_H
#define MN_TEXT_NEARDUP_H

#include <stddef.h>
#include <stdint.h>

/** Bump whenever a fingerprint or band key of some text changes (a test pins a sample). */
#define MN_FINGERPRINT_VERSION 1

/** Hash functions of a MinHash signature. */
#define MN_MINHASH_N 128
/** Code points per character shingle (overridable at build time only to measure others). */
#ifndef MN_SHINGLE_K
#define MN_SHINGLE_K 4
#endif
/** LSH bands, and rows per band (MN_LSH_BANDS * MN_LSH_ROWS <= MN_MINHASH_N). */
#ifndef MN_LSH_BANDS
#define MN_LSH_BANDS 32
#define MN_LSH_ROWS  4
#endif
/** Keys a fingerprint is looked up by: its bands, then its lead key. */
#define MN_LSH_KEYS (MN_LSH_BANDS + 1)
/** Terms of the lead key, and the fewest a text needs for one of its own. */
#define MN_LEAD_TERMS     6
#define MN_LEAD_MIN_TERMS 4

/** The fingerprints of one text; a plain value, safe to copy and to store byte for byte. */
typedef struct {
    uint64_t exact;                 /* normalised exact hash */
    uint64_t simhash;               /* 64-bit SimHash over word shingles */
    uint32_t minhash[MN_MINHASH_N]; /* MinHash over character shingles */
    uint64_t
        lead; /* its first MN_LEAD_TERMS content terms (the exact hash when it has fewer than 4) */
    uint32_t n_terms;    /* content terms seen (0: nothing to compare) */
    uint32_t n_shingles; /* character shingles (with repeats) */
} mn_fingerprint;

/**
 * Compute the fingerprints of [text, text+len) into *out. Invalid UTF-8 never
 * fails (bad bytes separate words). A text with no content term gets
 * n_terms == 0, a minhash of all 0xffffffff and simhash 0: it matches no
 * other text by band key. Returns 0, or MN_EINVAL when out or text is NULL.
 */
int mn_fingerprint_compute(mn_fingerprint *out, const char *text, size_t len);

/**
 * The keys to look a fingerprint up by: out[i] for i < MN_LSH_BANDS is a
 * 64-bit hash of band i's MN_LSH_ROWS values and of i itself (so keys of
 * different bands never meet); out[MN_LSH_BANDS] is the lead key, a hash of
 * the text's first MN_LEAD_TERMS content terms. Two fingerprints are
 * candidate neighbours when out[i] is equal for some i. The lead key finds
 * what bands miss: a short text inside a long one (a commit's subject, and
 * the same subject followed by a description) has a low Jaccard but the
 * same first terms. A fingerprint with n_terms == 0 gets keys that no text
 * with terms has.
 */
void mn_fingerprint_bands(uint64_t out[MN_LSH_KEYS], const mn_fingerprint *fp);

/** The Jaccard similarity of the two shingle sets, estimated from the signatures (0..1). */
double mn_fingerprint_jaccard(const mn_fingerprint *a, const mn_fingerprint *b);

/** Bits that differ between two SimHashes (0..64). */
int mn_simhash_distance(uint64_t a, uint64_t b);

/** P(J) = 1 - (1 - J^r)^b: the probability that a pair at Jaccard j shares a band key. */
double mn_lsh_probability(double j);

/* ---- the verdict on a pair ---- */

typedef enum {
    MN_NEARDUP_DISTINCT = 0, /* keep both, no link */
    MN_NEARDUP_DUPLICATE,    /* the same thing said again: merge */
    MN_NEARDUP_CONFLICTING   /* the same subject, a different conclusion: link, review */
} mn_neardup_kind;

/** Which text of the pair the words say is the newer (superseding) one. */
typedef enum { MN_NEWER_UNKNOWN = 0, MN_NEWER_A, MN_NEWER_B } mn_neardup_newer;

#define MN_NEARDUP_MAX_REASONS 6
#define MN_NEARDUP_REASON_LEN  80

typedef struct {
    mn_neardup_kind kind;
    mn_neardup_newer newer;
    double similarity; /* the combined similarity the thresholds apply to (0..1) */
    double jaccard_words;
    double jaccard_chars;
    int simhash_distance;
    size_t n_reasons;
    /* short, lower-case, NUL-terminated: "changed number: 30 -> 60", "negation in b only" */
    char reasons[MN_NEARDUP_MAX_REASONS][MN_NEARDUP_REASON_LEN];
} mn_neardup_verdict;

/* The signals of the verdict (mn_neardup_opts.signals), each one a reason kind. */
#define MN_NEARDUP_SIG_REVERT   0x01u /* "revert in a" */
#define MN_NEARDUP_SIG_NEGATION 0x02u /* "negation: 1 in a, 0 in b" */
#define MN_NEARDUP_SIG_ALTERNATIVE \
    0x04u /* "swapped alternative", "different alternative", "prefers" */
#define MN_NEARDUP_SIG_NUMBER   0x08u /* "changed number" */
#define MN_NEARDUP_SIG_UNIT     0x10u /* "changed unit" */
#define MN_NEARDUP_SIG_SUBJECT  0x20u /* "different subject" (distinct, not conflicting) */
#define MN_NEARDUP_SIG_OPPOSITE 0x40u /* "opposite words: pass / fail" */
#define MN_NEARDUP_SIG_ORDER    0x80u /* "words swapped" */
#define MN_NEARDUP_SIG_ALL      0xffu

/**
 * The thresholds of the verdict (defaults in MN_NEARDUP_OPTS_INIT; chosen by
 * the ablation in docs/internals/neardup.md). similarity is
 * (jaccard_words + jaccard_chars) / 2, computed exactly from both texts.
 */
typedef struct {
    unsigned version;
    /** At or above: a duplicate unless a conflict or another subject is found. */
    double dup_min;
    /** At or above: near enough that a changed number, negation... makes a conflict. */
    double near_min;
    /** MN_NEARDUP_SIG_* looked for (all by default; fewer only to measure what each does). */
    unsigned signals;
    /**
     * Share of the smaller text's terms (at least 4) found in the larger at or
     * above which the pair is compared, and merged when no signal objects,
     * whatever its similarity: the larger text says it all again, plus more
     * (a backport carrying the pull request's description), and a merge keeps
     * the larger. Above 1: never.
     */
    double contain_min;
} mn_neardup_opts;

#define MN_NEARDUP_OPTS_VERSION 1
#define MN_NEARDUP_OPTS_INIT                                          \
    {                                                                 \
        MN_NEARDUP_OPTS_VERSION, 0.50, 0.30, MN_NEARDUP_SIG_ALL, 0.90 \
    }

/**
 * Judge a pair: a is the new text, b the stored neighbour. opts may be NULL
 * (defaults). The texts are read whole (a few tens of microseconds for
 * memory-sized texts); nothing is allocated that outlives the call.
 * Returns 0, or MN_EINVAL for NULL arguments or an unknown opts version.
 */
int mn_neardup_judge(mn_neardup_verdict *out, const char *a, size_t alen, const char *b,
                     size_t blen, const mn_neardup_opts *opts);

/** "duplicate", "conflicting" or "distinct". Static string. */
const char *mn_neardup_kind_name(mn_neardup_kind kind);

/* ---- loose clusters for consolidation ---- */

/** No cluster: the label of a text that is in no cluster of at least min_size. */
#define MN_CLUSTER_NONE SIZE_MAX

/**
 * Group n fingerprints into clusters of similar texts: a pair is linked when
 * its estimated Jaccard is >= min_jaccard (looser than a duplicate: 0.3 is
 * "the same episode told again"), or its SimHashes differ in at most
 * max_simhash bits; clusters are the connected components of those links,
 * found among the pairs sharing a key of 64 bands of 2 rows (so pairs at
 * J >= 0.3 are found with probability >= 0.997). out[i] is the cluster of
 * fingerprint i, numbered 0, 1, ... in the order of their first member, or
 * MN_CLUSTER_NONE when its component has fewer than min_size members;
 * *out_n is the number of clusters. Fingerprints with n_terms == 0 are in no
 * cluster. Returns 0, or MN_EINVAL (NULL arguments with n > 0).
 */
int mn_neardup_cluster(size_t *out, size_t *out_n, const mn_fingerprint *fps, size_t n,
                       double min_jaccard, int max_simhash, size_t min_size);

#endif
