/*
 * neardup.c - fingerprints of a text, LSH band keys and loose clusters
 * (interface and parameters in neardup.h; the verdict on a pair is in
 * neardup_verdict.c).
 *
 * How each fingerprint is made:
 *  - exact: every code point NFKD-decomposed and case-folded (utf8proc),
 *    runs of white space (Unicode Zs and the ASCII/line separators) written
 *    as one space, none at either end; bytes that are not UTF-8 go in as they
 *    are. xxh3-64 of the result, seed 0.
 *  - content terms (neardup_terms.h): mn_tokenize's positioned terms, stop
 *    words dropped, each hashed with xxh3 (seed SEED_TERM).
 *  - simhash: features are the unigrams h(t) and bigrams mix(h(t1), h(t2))
 *    of the terms, weight 1 each; bit i of the result is set when more
 *    features have bit i set than clear (ties clear). Bigrams make the order
 *    count a little; unigrams keep short texts (a title of four words) from
 *    having almost no features.
 *  - minhash: one permutation hashing with optimal densification (Li, Owen
 *    and Zhang 2012; Shrivastava 2017): a shingle's 64-bit hash x goes to
 *    bin (x >> 32) mod N with value x mod 2^32, and minhash[j] is the least
 *    value of bin j. A bin no shingle reached takes the value of the first
 *    non-empty bin on its own fixed probe sequence (splitmix64 of j and the
 *    attempt, seeded with SEED_MINHASH), so that two texts still agree on
 *    bin j with probability J, their Jaccard similarity. One hash per
 *    shingle instead of N: a 700-byte text costs a few thousand operations
 *    here instead of N x 400 multiply-adds.
 *  - band keys: band i's rows written as 4-byte little-endian words, hashed
 *    with xxh3 seeded with SEED_BAND + i (the same bytes on every platform).
 *  - lead: the first MN_LEAD_TERMS term hashes (little-endian), xxh3 seeded
 *    with SEED_LEAD, when the text has at least MN_LEAD_MIN_TERMS terms
 *    (else the exact hash: a two-word text's lead is shared by too many);
 *    its key is its 8 bytes hashed with SEED_BAND + MN_LSH_BANDS.
 *
 * Invariant: everything here is a pure function of the text and the
 * constants below, MN_TOK_VERSION and the utf8proc/Snowball data; a change
 * of any output must bump MN_FINGERPRINT_VERSION (tests pin a sample).
 */
#include <math.h>
#include <pthread.h>
#include <utf8proc.h>
#include <xxhash.h>

#include "common.h"
#include "text/neardup.h"
#include "text/neardup_terms.h"
#include "text/tokenize.h"

#define SEED_TERM    0x6e656172647570ULL /* "neardup" */
#define SEED_SHINGLE 0x7368696e676c65ULL /* "shingle" */
#define SEED_MINHASH 0x6d696e68617368ULL /* "minhash" */
#define SEED_BAND    0x62616e64000000ULL /* "band" */
#define SEED_LEAD    0x6c656164000000ULL /* "lead" */
#define SEED_BIGRAM  0x9e3779b97f4a7c15ULL

/* Loose bands of the clustering: 64 bands of 2 rows, P(J=0.3) = 1 - (1 - 0.09)^64 = 0.998. */
#define CLUSTER_BANDS 64
#define CLUSTER_ROWS  2

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- content terms and shingles (shared with the verdict) ---- */

/* A commit id or other hash: 7+ hex characters with both letters and digits. */
static bool is_hex_id(const char *s, size_t n)
{
    if (n < 7)
        return false;
    bool digit = false, letter = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            digit = true;
        else if (s[i] >= 'a' && s[i] <= 'f')
            letter = true;
        else
            return false;
    }
    return digit && letter;
}

static int on_term(void *payload, const char *tok, size_t len, size_t start, size_t end,
                   int colocated)
{
    mn_neardup_terms *t = payload;
    if (colocated != MN_TOK_COLOC_NONE || is_hex_id(tok, len) || len == 0 ||
        (start > 0 && t->text[start - 1] == '#'))
        return 0;
    size_t cps = 0;
    for (size_t i = 0; i < len && cps < 2; i++)
        cps += ((unsigned char)tok[i] & 0xC0) != 0x80;
    if (cps <
        2) /* "x" of "8.2.x", "2" of "v2": too little to compare on (numbers have their signal) */
        return 0;
    if (t->n_terms == t->cap_terms) {
        t->cap_terms = t->cap_terms ? t->cap_terms * 2 : 64;
        t->terms = mn_realloc(t->terms, t->cap_terms * sizeof(*t->terms));
        t->spans = mn_realloc(t->spans, 2 * t->cap_terms * sizeof(*t->spans));
    }
    t->spans[2 * t->n_terms] = start;
    t->spans[2 * t->n_terms + 1] = end;
    t->terms[t->n_terms++] = XXH3_64bits_withSeed(tok, len, SEED_TERM);
    if (t->stream.len)
        mn_buf_putc(&t->stream, ' ');
    mn_buf_put(&t->stream, tok, len);
    return 0;
}

/* Above this many values an LSD radix sort (8 passes of a byte); below it a
 * quicksort with inline comparisons, which wins on the few hundred shingles
 * of a memory-sized text (a radix pass clears and sums 256 counters). */
#define RADIX_MIN 2048

static void radix_sort(uint64_t *v, size_t n)
{
    uint64_t *tmp = mn_malloc(n * sizeof(*tmp)), *from = v, *to = tmp;
    for (int pass = 0; pass < 8; pass++) {
        size_t count[257] = {0};
        int shift = 8 * pass;
        for (size_t i = 0; i < n; i++)
            count[((from[i] >> shift) & 0xff) + 1]++;
        if (count[((from[0] >> shift) & 0xff) + 1] == n)
            continue; /* every value has the same byte here: nothing moves */
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * sizeof(*v));
    free(tmp);
}

static void quick_sort(uint64_t *v, size_t n)
{
    while (n > 16) {
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1]; /* median of three */
        uint64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i >= j)
                break;
            uint64_t t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        /* recurse into the smaller part, loop on the larger: depth O(log n) */
        if (j + 1 < n - j - 1) {
            quick_sort(v, j + 1);
            v += j + 1;
            n -= j + 1;
        } else {
            quick_sort(v + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            uint64_t t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
}

size_t mn_neardup__sort_unique(uint64_t *v, size_t n)
{
    if (n < 2)
        return n;
    if (n >= RADIX_MIN)
        radix_sort(v, n);
    else
        quick_sort(v, n);
    size_t w = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[w - 1])
            v[w++] = v[i];
    return w;
}

void mn_neardup__terms_read(mn_neardup_terms *t, const char *text, size_t len, bool unique)
{
    mn_neardup__terms_release(t);
    t->text = text;
    mn_tokenize(text, len, MN_LANG_UNKNOWN, 0, on_term, t);

    /* Code point starts of the stream (terms are valid UTF-8: the tokenizer
     * writes normalised code points), then one hash per K-gram. */
    const char *s = t->stream.ptr;
    size_t n = t->stream.len, ncp = 0;
    for (size_t i = 0; i < n; i++)
        ncp += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (ncp == 0)
        return;
    size_t *starts = mn_malloc((ncp + 1) * sizeof(*starts));
    for (size_t i = 0, k = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            starts[k++] = i;
    starts[ncp] = n;
    size_t count = ncp >= MN_SHINGLE_K ? ncp - MN_SHINGLE_K + 1 : 1;
    t->shingles = mn_malloc(count * sizeof(*t->shingles));
    for (size_t i = 0; i < count; i++) {
        size_t from = starts[i], to = starts[i + MN_SHINGLE_K < ncp ? i + MN_SHINGLE_K : ncp];
        t->shingles[i] = XXH3_64bits_withSeed(s + from, to - from, SEED_SHINGLE);
    }
    t->n_shingles = unique ? mn_neardup__sort_unique(t->shingles, count) : count;
    free(starts);
}

void mn_neardup__terms_release(mn_neardup_terms *t)
{
    free(t->terms);
    free(t->spans);
    free(t->shingles);
    mn_buf_release(&t->stream);
    memset(t, 0, sizeof(*t));
    mn_buf_init(&t->stream);
}

double mn_neardup__jaccard_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    if (na + nb == 0)
        return 0.0;
    size_t i = 0, j = 0, inter = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            inter++;
            i++;
            j++;
        } else if (a[i] < b[j]) {
            i++;
        } else {
            j++;
        }
    }
    return (double)inter / (double)(na + nb - inter);
}

static uint64_t bigram(uint64_t h1, uint64_t h2)
{
    uint64_t s = h1 * SEED_BIGRAM + h2;
    return splitmix64(&s);
}

/* bit_table[v][b]: bit b of the byte v, so that a feature's 64 bits are
 * counted 8 at a time (vector adds) instead of one shift and test each. */
static uint8_t bit_table[256][8];
static pthread_once_t bit_table_once = PTHREAD_ONCE_INIT;

static void bit_table_build(void)
{
    for (int v = 0; v < 256; v++)
        for (int b = 0; b < 8; b++)
            bit_table[v][b] = (uint8_t)((v >> b) & 1);
}

static void count_bits(uint32_t ones[64], uint64_t f)
{
    for (int k = 0; k < 8; k++) {
        const uint8_t *t = bit_table[(f >> (8 * k)) & 0xff];
        uint32_t *o = ones + 8 * k;
        for (int b = 0; b < 8; b++)
            o[b] += t[b];
    }
}

uint64_t mn_neardup__simhash(const uint64_t *terms, size_t n)
{
    pthread_once(&bit_table_once, bit_table_build);
    uint32_t ones[64] = {0};
    uint64_t features = 0;
    for (size_t i = 0; i < n; i++) {
        count_bits(ones, terms[i]);
        features++;
        if (i + 1 < n) {
            count_bits(ones, bigram(terms[i], terms[i + 1]));
            features++;
        }
    }
    uint64_t h = 0;
    for (int bit = 0; bit < 64; bit++)
        if (2 * (uint64_t)ones[bit] > features) /* more features set than clear; ties clear */
            h |= 1ULL << bit;
    return h;
}

/* ---- fingerprints ---- */

static bool is_space_cp(utf8proc_int32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x85 ||
        cp == 0x2028 || cp == 0x2029)
        return true;
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

uint64_t mn_neardup__exact_hash(const char *text, size_t len)
{
    mn_buf norm = MN_BUF_INIT;
    bool space = false;
    size_t i = 0;
    while (i < len) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x80 && ch != '\t' && ch != '\n' && ch != '\v' && ch != '\f' && ch != '\r' &&
            ch != ' ') {
            /* ASCII: decomposition is the identity, case folding is lower-casing */
            if (space && norm.len)
                mn_buf_putc(&norm, ' ');
            space = false;
            mn_buf_putc(&norm, (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch));
            i++;
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)text + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n <= 0) { /* not UTF-8: the byte as it is */
            if (space && norm.len)
                mn_buf_putc(&norm, ' ');
            space = false;
            mn_buf_putc(&norm, text[i]);
            i++;
            continue;
        }
        i += (size_t)n;
        if (is_space_cp(cp)) {
            space = true;
            continue;
        }
        utf8proc_int32_t dec[32];
        int last = 0;
        utf8proc_ssize_t m = utf8proc_decompose_char(
            cp, dec, 32, UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE, &last);
        if (m < 0 || m > 32) { /* cannot happen for a valid code point; keep it as is */
            dec[0] = cp;
            m = 1;
        }
        if (m > 0 && space && norm.len)
            mn_buf_putc(&norm, ' ');
        if (m > 0)
            space = false;
        for (utf8proc_ssize_t k = 0; k < m; k++) {
            utf8proc_uint8_t enc[4];
            utf8proc_ssize_t e = utf8proc_encode_char(dec[k], enc);
            mn_buf_put(&norm, enc, (size_t)e);
        }
    }
    uint64_t h = XXH3_64bits(norm.ptr, norm.len);
    mn_buf_release(&norm);
    return h;
}

/* Bin j's stand-in when it got no shingle: the first non-empty bin on j's own
 * probe sequence (optimal densification). */
static uint32_t densified(const uint32_t *sig, const bool *filled, size_t j)
{
    for (uint64_t attempt = 1; attempt <= 4 * MN_MINHASH_N; attempt++) {
        uint64_t s = SEED_MINHASH ^ ((uint64_t)j << 32) ^ attempt;
        size_t k = (size_t)(splitmix64(&s) % MN_MINHASH_N);
        if (filled[k])
            return sig[k];
    }
    for (size_t k = 0; k < MN_MINHASH_N; k++) /* not met in practice: P < (1 - 1/N)^(4N) */
        if (filled[(j + k) % MN_MINHASH_N])
            return sig[(j + k) % MN_MINHASH_N];
    return UINT32_MAX;
}

int mn_fingerprint_compute(mn_fingerprint *out, const char *text, size_t len)
{
    if (!out || (!text && len))
        return mn_error_set(MN_EINVAL, "fingerprint: 'text' and 'out' must not be NULL");
    memset(out, 0, sizeof(*out));
    out->exact = mn_neardup__exact_hash(text ? text : "", text ? len : 0);
    for (size_t j = 0; j < MN_MINHASH_N; j++)
        out->minhash[j] = UINT32_MAX;

    mn_neardup_terms t;
    memset(&t, 0, sizeof(t));
    mn_buf_init(&t.stream);
    /* repeats change no minimum: the shingles are left unsorted */
    mn_neardup__terms_read(&t, text ? text : "", text ? len : 0, false);
    out->n_terms = t.n_terms > UINT32_MAX ? UINT32_MAX : (uint32_t)t.n_terms;
    out->n_shingles = t.n_shingles > UINT32_MAX ? UINT32_MAX : (uint32_t)t.n_shingles;
    if (t.n_terms >= MN_LEAD_MIN_TERMS) {
        unsigned char bytes[8 * MN_LEAD_TERMS];
        size_t n = t.n_terms < MN_LEAD_TERMS ? t.n_terms : MN_LEAD_TERMS;
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 8; k++)
                bytes[8 * i + (size_t)k] = (unsigned char)(t.terms[i] >> (8 * k));
        out->lead = XXH3_64bits_withSeed(bytes, 8 * n, SEED_LEAD);
    } else {
        out->lead = out->exact; /* "Fix typo" leads too many texts to be a key */
    }
    if (t.n_terms) {
        out->simhash = mn_neardup__simhash(t.terms, t.n_terms);
        /* one permutation: the top bits of a shingle's hash pick its bin, the
         * low 32 bits are its value there */
        uint32_t sig[MN_MINHASH_N];
        bool filled[MN_MINHASH_N] = {false};
        for (size_t j = 0; j < MN_MINHASH_N; j++)
            sig[j] = UINT32_MAX;
        for (size_t i = 0; i < t.n_shingles; i++) {
            uint64_t x = t.shingles[i];
            size_t bin = (size_t)(x >> 32) % MN_MINHASH_N;
            uint32_t v = (uint32_t)x;
            filled[bin] = true;
            sig[bin] = v < sig[bin] ? v : sig[bin];
        }
        for (size_t j = 0; j < MN_MINHASH_N; j++)
            out->minhash[j] = filled[j] ? sig[j] : densified(sig, filled, j);
    }
    mn_neardup__terms_release(&t);
    return 0;
}

static uint64_t band_key(const mn_fingerprint *fp, size_t band, size_t rows)
{
    unsigned char bytes[4 * MN_MINHASH_N];
    const uint32_t *row = fp->minhash + band * rows;
    for (size_t r = 0; r < rows; r++)
        for (int k = 0; k < 4; k++)
            bytes[4 * r + (size_t)k] = (unsigned char)(row[r] >> (8 * k));
    /* A text without terms hashes a marker byte more, so its keys are its own. */
    size_t n = 4 * rows + (fp->n_terms == 0);
    if (fp->n_terms == 0)
        bytes[4 * rows] = 0xee;
    return XXH3_64bits_withSeed(bytes, n, SEED_BAND + band);
}

void mn_fingerprint_bands(uint64_t out[MN_LSH_KEYS], const mn_fingerprint *fp)
{
    for (size_t i = 0; i < MN_LSH_BANDS; i++)
        out[i] = band_key(fp, i, MN_LSH_ROWS);
    unsigned char bytes[9];
    for (int k = 0; k < 8; k++)
        bytes[k] = (unsigned char)(fp->lead >> (8 * k));
    bytes[8] = fp->n_terms == 0 ? 0xee : 0;
    out[MN_LSH_BANDS] = XXH3_64bits_withSeed(bytes, 9, SEED_BAND + MN_LSH_BANDS);
}

double mn_fingerprint_jaccard(const mn_fingerprint *a, const mn_fingerprint *b)
{
    if (!a || !b || a->n_terms == 0 || b->n_terms == 0)
        return 0.0;
    size_t same = 0;
    for (size_t j = 0; j < MN_MINHASH_N; j++)
        same += a->minhash[j] == b->minhash[j];
    return (double)same / MN_MINHASH_N;
}

int mn_simhash_distance(uint64_t a, uint64_t b)
{
    return __builtin_popcountll(a ^ b);
}

double mn_lsh_probability(double j)
{
    if (j <= 0)
        return 0.0;
    if (j >= 1)
        return 1.0;
    return 1.0 - pow(1.0 - pow(j, MN_LSH_ROWS), MN_LSH_BANDS);
}

/* ---- clusters ---- */

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void uf_union(size_t *parent, size_t i, size_t j)
{
    i = uf_find(parent, i);
    j = uf_find(parent, j);
    if (i != j) /* the smaller index is the root: the result does not depend on the order */
        parent[i > j ? i : j] = i < j ? i : j;
}

typedef struct {
    uint64_t key;
    size_t idx;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Pairs of a band bucket compared: all pairs of a bucket up to this size,
 * otherwise each member with the next ones up to it (a bucket that large is
 * one cluster or a degenerate text repeated; either way the links are found
 * through neighbours). */
#define BUCKET_PAIRS_WINDOW 64

int mn_neardup_cluster(size_t *out, size_t *out_n, const mn_fingerprint *fps, size_t n,
                       double min_jaccard, int max_simhash, size_t min_size)
{
    if (!out_n || (n && (!out || !fps)))
        return mn_error_set(MN_EINVAL, "cluster: 'out' and 'fps' must not be NULL");
    *out_n = 0;
    if (n == 0)
        return 0;
    size_t *parent = mn_malloc(n * sizeof(*parent));
    keyed *ks = mn_malloc(n * sizeof(*ks));
    size_t *size = mn_calloc(n, sizeof(*size));
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    for (size_t band = 0; band < CLUSTER_BANDS; band++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (fps[i].n_terms) {
                ks[m].key = band_key(&fps[i], band, CLUSTER_ROWS);
                ks[m++].idx = i;
            }
        qsort(ks, m, sizeof(*ks), cmp_keyed);
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m && j <= i + BUCKET_PAIRS_WINDOW && ks[j].key == ks[i].key;
                 j++) {
                size_t x = ks[i].idx, y = ks[j].idx;
                if (uf_find(parent, x) == uf_find(parent, y))
                    continue;
                if (mn_fingerprint_jaccard(&fps[x], &fps[y]) >= min_jaccard ||
                    mn_simhash_distance(fps[x].simhash, fps[y].simhash) <= max_simhash)
                    uf_union(parent, x, y);
            }
    }
    for (size_t i = 0; i < n; i++)
        size[uf_find(parent, i)]++;
    /* Number clusters by their first member; reuse ks[].idx as root -> number + 1. */
    for (size_t i = 0; i < n; i++)
        ks[i].idx = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = uf_find(parent, i);
        if (!fps[i].n_terms || size[r] < min_size || size[r] < 2) {
            out[i] = MN_CLUSTER_NONE;
            continue;
        }
        if (ks[r].idx == 0)
            ks[r].idx = ++*out_n;
        out[i] = ks[r].idx - 1;
    }
    free(parent);
    free(ks);
    free(size);
    return 0;
}
