/*
 * bpe.c - exact token counts of cl100k_base and o200k_base (bpe.h).
 *
 * Loading: the table file (bpe_format.h) is found next to the running
 * program, checked (magic, byte order, name, sizes adding up to the
 * file's) and mapped; its pattern is compiled by PCRE2 with UTF, UCP and
 * MATCH_INVALID_UTF (so that any bytes can be counted) and JIT-compiled.
 * One load per encoding and process, under a mutex; the result, or the
 * failure, stays.
 *
 * Counting: pcre2_jit_match finds the pieces one after the other. Bytes
 * between two matches (they start no valid UTF-8 character) are one token
 * each. A piece of one byte, or that is a token as a whole (most words),
 * is one token; any other is merged:
 *  - up to SMALL_PIECE bytes, as tiktoken does: an array of part starts
 *    and the rank of each adjacent pair, the lowest (leftmost) merged and
 *    its two neighbours' pair ranks recomputed, O(n^2) at worst;
 *  - longer pieces (runs of spaces, a base64 blob in one word) with a
 *    binary heap of (rank, start) over a linked list of parts, O(n log n):
 *    the same merges in the same order, since the heap's order is the
 *    same "lowest rank, then leftmost" (entries made stale by a merge are
 *    recognised by a version number and skipped).
 * tests/unit/text/test_bpe.c checks both against each other, and
 * tests/integration/token_bound.sh the counts against js-tiktoken.
 *
 * A lookup hashes the bytes (XXH3, the table's seed), probes from the home
 * slot, and compares the bytes of the rank found; every offset and rank
 * read from the file is checked against the file's bounds first.
 */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "text/bpe.h"
#include "text/bpe_format.h"
#include "util/buf.h"

#define NO_RANK     UINT32_MAX
#define SMALL_PIECE 256 /* bytes: the quadratic merge below this, the heap above */

struct mn_bpe {
    const unsigned char *map;
    size_t map_len;
    const mn_bpe_header *h;
    const uint32_t *byte_rank, *pair_rank, *offsets, *slots;
    const unsigned char *blob;
    uint32_t mask;
    uint32_t rank_mask; /* a slot's rank bits; the rest is its tag */
    uint32_t id;        /* 0, 1: which encoding, for the memo */
    pcre2_code *re;     /* compiled on first need (regex_of) */
    bool re_failed;
    bool jit;  /* JIT-compiled (else interpreted: a system that forbids JIT) */
    int ascii; /* the hand-written matcher for ASCII text: ASCII_NONE, _CL100K, _O200K */
    char name[MN_BPE_NAME_MAX];
};

static const pcre2_code *regex_of(const mn_bpe *e);

/* ---- lookups ---- */

/* memcmp for the few bytes of a token, without a call */
static bool same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static uint32_t rank_hashed(const mn_bpe *e, const unsigned char *p, size_t n, uint64_t hash)
{
    if (n == 0 || n > e->h->max_token_len)
        return NO_RANK;
    uint32_t i = (uint32_t)hash & e->mask, tag = MN_BPE_TAG(hash, e->h->rank_bits);
    for (uint32_t probes = 0; probes <= e->mask; probes++, i = (i + 1) & e->mask) {
        uint32_t s = e->slots[i];
        if (!s)
            return NO_RANK;
        if (s >> e->h->rank_bits != tag)
            continue;
        uint32_t r = (s & e->rank_mask) - 1;
        if (r >= e->h->nranks)
            return NO_RANK; /* a damaged table: no token, never a read outside it */
        uint32_t a = e->offsets[r], b = e->offsets[r + 1];
        if (a <= b && b <= e->h->blob_size && b - a == n && same_bytes(e->blob + a, p, n))
            return r;
    }
    return NO_RANK;
}

static uint32_t pair_of(const mn_bpe *e, const unsigned char *p)
{
    uint32_t r = e->pair_rank[(unsigned)p[0] << 8 | p[1]];
    return r < e->h->nranks ? r : NO_RANK;
}

static uint32_t rank_of(const mn_bpe *e, const unsigned char *p, size_t n)
{
    if (n == 1)
        return e->byte_rank[*p];
    if (n == 2)
        return pair_of(e, p);
    return rank_hashed(e, p, n, XXH3_64bits_withSeed(p, n, MN_BPE_SEED));
}

/* ---- pieces of ASCII text, without PCRE2 ---- */

/*
 * The two patterns read ASCII characters through a few classes only, so a
 * hand-written matcher finds the same pieces some 5x faster than PCRE2's
 * JIT (which tests Unicode properties for every character). It follows the
 * pattern's alternatives in order, with their greedy and backtracking
 * outcomes worked out (comments below), and gives up (returns 0) as soon as
 * it would have to classify a byte >= 0x80, anywhere it looks, lookahead
 * included: then PCRE2 matches that piece. Which matcher a table gets is
 * decided at load by its name, and kept only when the table's pattern is
 * the one it was written for (its XXH3 hash, below); test_bpe.c compares
 * it with PCRE2 on random ASCII text.
 */
enum { ASCII_NONE, ASCII_CL100K, ASCII_O200K };
#define PATTERN_CL100K 0xb21dcb8587ad88efULL
#define PATTERN_O200K  0x2a6b84bcdaff75a6ULL

static bool a_upper(unsigned c)
{
    return c - 'A' < 26u;
}
static bool a_lower(unsigned c)
{
    return c - 'a' < 26u;
}
static bool a_letter(unsigned c)
{
    return a_upper(c) || a_lower(c);
}
static bool a_digit(unsigned c)
{
    return c - '0' < 10u;
}
static bool a_space(unsigned c) /* JavaScript's \s among ASCII: \t \n \v \f \r and space */
{
    return c == ' ' || c - 9u < 5u;
}
static bool a_punct(unsigned c) /* [^\s\p{L}\p{N}] */
{
    return !a_space(c) && !a_letter(c) && !a_digit(c);
}
static bool a_prefix(unsigned c) /* [^\r\n\p{L}\p{N}] */
{
    return c != '\r' && c != '\n' && !a_letter(c) && !a_digit(c);
}

/* An optional contraction ('s 't 'm 'd 're 've 'll, any case) at q: its end, else q. */
static size_t contraction(const unsigned char *t, size_t q, size_t len)
{
    if (q + 1 >= len || t[q] != '\'')
        return q;
    unsigned a = t[q + 1] | 0x20u;
    if (a == 's' || a == 't' || a == 'm' || a == 'd')
        return q + 2;
    if (q + 2 < len) {
        unsigned b = t[q + 2] | 0x20u;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
            return q + 3;
    }
    return q;
}

/* The end of the ASCII run of class cls from q (0: a byte >= 0x80 stops it: give up). */
#define RUN(q, cls)                                   \
    do {                                              \
        while ((q) < len && t[q] < 0x80 && cls(t[q])) \
            (q)++;                                    \
        if ((q) < len && t[q] >= 0x80)                \
            return 0;                                 \
    } while (0)

/*
 * The end of the piece at p (p < len), or 0 to let PCRE2 decide. cl100k:
 *   ('s|'t|'re|'ve|'m|'ll|'d, any case) | P?\p{L}+ | \p{N}{1,3}
 *   | ' '?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
 * o200k: P?U*L+C? | P?U+L*C? | \p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n/]* | the same three
 * (P = [^\r\n\p{L}\p{N}], U upper-case, L lower-case, C a contraction).
 */
static size_t ascii_piece(int kind, const unsigned char *t, size_t p, size_t len)
{
    unsigned c = t[p];
    size_t q;
    if (c >= 0x80)
        return 0;
    if (kind == ASCII_CL100K && c == '\'' && contraction(t, p, len) > p)
        return contraction(t, p, len);
    /* letters, after an optional prefix character */
    size_t start = p;
    if (!a_letter(c) && a_prefix(c) && p + 1 < len) {
        if (t[p + 1] >= 0x80)
            return 0;
        if (a_letter(t[p + 1]))
            start = p + 1;
    }
    if (a_letter(t[start])) {
        q = start;
        if (kind == ASCII_CL100K) {
            RUN(q, a_letter);
            return q;
        }
        /* o200k: an upper-case run, then lower-case: P?U*L+ when any, else P?U+ (U* gives
           back nothing useful: no upper-case letter is lower-case) */
        RUN(q, a_upper);
        RUN(q, a_lower);
        return contraction(t, q, len);
    }
    if (a_digit(c)) {
        for (q = p; q < len && q - p < 3; q++) {
            if (t[q] >= 0x80)
                return 0;
            if (!a_digit(t[q]))
                break;
        }
        return q;
    }
    /* ' '?[^\s\p{L}\p{N}]+ then newlines (o200k: and slashes) */
    q = c == ' ' ? p + 1 : p;
    if (q < len && t[q] >= 0x80)
        return 0;
    if (q < len && a_punct(t[q])) {
        RUN(q, a_punct);
        while (q < len && (t[q] == '\r' || t[q] == '\n' || (kind == ASCII_O200K && t[q] == '/')))
            q++;
        return q;
    }
    /* whitespace: up to its last newline when it holds one; else all of it at the end of the
       text, all but its last character before a non-space ((?!\S) backtracks one), or the one
       character */
    q = p;
    size_t nl = 0;
    while (q < len && t[q] < 0x80 && a_space(t[q])) {
        if (t[q] == '\n' || t[q] == '\r')
            nl = q + 1;
        q++;
    }
    if (q < len && t[q] >= 0x80)
        return 0;
    if (nl)
        return nl;
    if (q == len)
        return q;
    return q - p >= 2 ? q - 1 : q;
}

/* ---- merging one piece ---- */

/*
 * tiktoken's merge: starts[0..cnt] are the parts' first bytes (starts[cnt]
 * = n), pair[i] the rank of parts i and i + 1 joined. Returns the parts
 * left; starts[] holds them.
 */
static size_t merge_small(const mn_bpe *e, const unsigned char *p, size_t n, uint32_t *starts)
{
    uint32_t pair[SMALL_PIECE + 1];
    size_t cnt = n;
    for (size_t i = 0; i <= n; i++)
        starts[i] = (uint32_t)i;
    for (size_t i = 0; i + 1 < n; i++)
        pair[i] = rank_of(e, p + i, 2);
    while (cnt > 1) {
        uint32_t best = NO_RANK;
        size_t at = 0;
        for (size_t i = 0; i + 1 < cnt; i++)
            if (pair[i] < best) {
                best = pair[i];
                at = i;
            }
        if (best == NO_RANK)
            break;
        /* parts at and at + 1 become one */
        memmove(starts + at + 1, starts + at + 2, (cnt - at - 1) * sizeof(*starts));
        if (cnt >= at + 3)
            memmove(pair + at + 1, pair + at + 2, (cnt - at - 3) * sizeof(*pair));
        cnt--;
        if (at + 1 < cnt)
            pair[at] = rank_of(e, p + starts[at], starts[at + 2] - starts[at]);
        if (at > 0)
            pair[at - 1] = rank_of(e, p + starts[at - 1], starts[at + 1] - starts[at - 1]);
    }
    return cnt;
}

typedef struct {
    uint32_t rank, start, version;
} heap_entry;

static bool heap_less(const heap_entry *a, const heap_entry *b)
{
    return a->rank != b->rank ? a->rank < b->rank : a->start < b->start;
}

static void heap_push(heap_entry *h, size_t *n, heap_entry x)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!heap_less(&x, &h[up]))
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = x;
}

static heap_entry heap_pop(heap_entry *h, size_t *n)
{
    heap_entry top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && heap_less(&h[c + 1], &h[c]))
            c++;
        if (!heap_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/*
 * The same merges with a heap: parts are a linked list indexed by their
 * first byte (next[i], prev[i]; next of the last is n), version[i] counts
 * the changes of the pair starting at part i.
 */
static size_t merge_large(const mn_bpe *e, const unsigned char *p, size_t n, uint32_t *starts)
{
    uint32_t *next = mn_malloc((n + 1) * sizeof(uint32_t));
    uint32_t *prev = mn_malloc((n + 1) * sizeof(uint32_t));
    uint32_t *version = mn_calloc(n + 1, sizeof(uint32_t));
    /* each merge pushes at most two entries: n initial + 2n */
    heap_entry *heap = mn_malloc((3 * n + 1) * sizeof(heap_entry));
    size_t hn = 0, cnt = n;
    for (size_t i = 0; i < n; i++) {
        next[i] = (uint32_t)i + 1;
        prev[i] = i ? (uint32_t)i - 1 : UINT32_MAX;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t r = rank_of(e, p + i, 2);
        if (r != NO_RANK)
            heap_push(heap, &hn, (heap_entry){r, (uint32_t)i, 0});
    }
    while (hn) {
        heap_entry top = heap_pop(heap, &hn);
        uint32_t i = top.start;
        if (top.version != version[i] || next[i] >= n)
            continue; /* stale: the pair changed since */
        uint32_t j = next[i];
        /* part j joins part i */
        next[i] = next[j];
        if (next[j] < n)
            prev[next[j]] = i;
        next[j] = UINT32_MAX;
        cnt--;
        version[i]++;
        if (next[i] < n) {
            uint32_t end = next[next[i]];
            uint32_t r = rank_of(e, p + i, end - i);
            if (r != NO_RANK)
                heap_push(heap, &hn, (heap_entry){r, i, version[i]});
        }
        if (prev[i] != UINT32_MAX) {
            uint32_t q = prev[i];
            version[q]++;
            uint32_t r = rank_of(e, p + q, next[i] - q);
            if (r != NO_RANK)
                heap_push(heap, &hn, (heap_entry){r, q, version[q]});
        }
    }
    if (starts) {
        size_t k = 0;
        for (uint32_t i = 0; i < n; i = next[i])
            starts[k++] = i;
        starts[k] = (uint32_t)n;
    }
    free(heap);
    free(version);
    free(prev);
    free(next);
    return cnt;
}

size_t mn_bpe__merge_count(const mn_bpe *e, const unsigned char *piece, size_t len, int large)
{
    if (len == 0)
        return 0;
    if (!large && len <= SMALL_PIECE) {
        uint32_t starts[SMALL_PIECE + 1];
        return merge_small(e, piece, len, starts);
    }
    return merge_large(e, piece, len, NULL);
}

/*
 * Pieces recur (" the", "    ", " return"): each thread remembers the
 * counts of the last MEMO_SIZE short pieces it counted (160 KB), by hash, with
 * their bytes to compare (an entry is trusted only when the bytes are the
 * same), so that a repeated piece costs a hash and a compare in a cache
 * line of its own instead of probes into the table.
 */
#define MEMO_SIZE  4096
#define MEMO_BYTES 22

typedef struct {
    uint64_t hash;
    uint32_t count;
    uint8_t len, enc; /* enc: the encoding's id + 1 (0: empty) */
    uint8_t bytes[MEMO_BYTES];
} memo_entry;

static __thread memo_entry memo[MEMO_SIZE];

/* The token count of one piece. */
static size_t piece_count(const mn_bpe *e, const unsigned char *p, size_t n)
{
    if (n == 1)
        return 1;
    if (n == 2)
        return pair_of(e, p) != NO_RANK ? 1 : 2;
    uint64_t h = XXH3_64bits_withSeed(p, n, MN_BPE_SEED);
    memo_entry *m = n <= MEMO_BYTES ? &memo[(h ^ e->id) & (MEMO_SIZE - 1)] : NULL;
    if (m && m->hash == h && m->len == n && m->enc == e->id + 1 && same_bytes(m->bytes, p, n))
        return m->count;
    size_t count = rank_hashed(e, p, n, h) != NO_RANK ? 1 : mn_bpe__merge_count(e, p, n, 0);
    if (m) {
        m->hash = h;
        m->count = (uint32_t)count;
        m->len = (uint8_t)n;
        m->enc = (uint8_t)(e->id + 1);
        memcpy(m->bytes, p, n);
    }
    return count;
}

/* The tokens of one piece: count, and each to cb when given. */
static size_t piece_tokens(const mn_bpe *e, const unsigned char *p, size_t n, size_t base,
                           int (*cb)(void *, uint32_t, size_t), void *payload, bool *stop)
{
    if (!cb)
        return piece_count(e, p, n);
    uint32_t whole = rank_of(e, p, n);
    if (whole != NO_RANK) {
        if (!*stop)
            *stop = cb(payload, whole, base) != 0;
        return 1;
    }
    uint32_t small[SMALL_PIECE + 1], *starts = n <= SMALL_PIECE ? small : NULL;
    if (!starts)
        starts = mn_malloc((n + 1) * sizeof(uint32_t));
    size_t cnt = n <= SMALL_PIECE ? merge_small(e, p, n, starts) : merge_large(e, p, n, starts);
    for (size_t k = 0; k < cnt && !*stop; k++)
        *stop = cb(payload, rank_of(e, p + starts[k], starts[k + 1] - starts[k]),
                   base + starts[k]) != 0;
    if (starts != small)
        free(starts);
    return cnt;
}

size_t mn_bpe_encode(const mn_bpe *e, const char *text, size_t len,
                     int (*cb)(void *payload, uint32_t rank, size_t offset), void *payload)
{
    return mn_bpe__encode_with(e, text, len, 0, cb, payload);
}

size_t mn_bpe__encode_with(const mn_bpe *e, const char *text, size_t len, int pcre_only,
                           int (*cb)(void *payload, uint32_t rank, size_t offset), void *payload)
{
    const unsigned char *t = (const unsigned char *)text;
    pcre2_match_data *md = NULL;
    const pcre2_code *re = NULL;
    size_t pos = 0, count = 0;
    bool stop = false;
    while (pos < len && !stop) {
        size_t from = len, to = len;
        size_t end = e->ascii && !pcre_only ? ascii_piece(e->ascii, t, pos, len) : 0;
        if (end) {
            count += piece_tokens(e, t + pos, end - pos, pos, cb, payload, &stop);
            pos = end;
            continue;
        }
        if (!md && (re = regex_of(e)) != NULL &&
            !(md = pcre2_match_data_create_from_pattern(re, NULL)))
            abort(); /* out of memory: the one handler's way */
        int rc = !re      ? PCRE2_ERROR_NOMEMORY
                 : e->jit ? pcre2_jit_match(re, t, len, pos, 0, md, NULL)
                          : pcre2_match(re, t, len, pos, 0, md, NULL);
        if (rc > 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            from = ov[0];
            to = ov[1];
            if (to <= from || from < pos || to > len) { /* cannot happen: no empty match */
                from = pos;
                to = pos + 1;
            }
        }
        /* bytes no piece starts at: one token each (cut from invalid UTF-8) */
        for (; pos < from && !stop; pos++, count++)
            if (cb)
                stop = cb(payload, NO_RANK, pos) != 0;
        if (pos >= len || stop)
            break;
        count += piece_tokens(e, t + from, to - from, from, cb, payload, &stop);
        pos = to;
    }
    if (md)
        pcre2_match_data_free(md);
    return count;
}

size_t mn_bpe_count(const mn_bpe *e, const char *text, size_t len)
{
    return mn_bpe__encode_with(e, text, len, 0, NULL, NULL);
}

const char *mn_bpe_name(const mn_bpe *e)
{
    return e->name;
}

/* ---- loading ---- */

static const char *const known[] = {"cl100k_base", "o200k_base"};

static struct {
    mn_bpe *e;
    int rc; /* 0 and e NULL: not tried yet */
    char *msg;
} loaded[MN_ARRAY_SIZE(known)];

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* Check the mapped file and fill e's pointers into it. */
static int check_table(mn_bpe *e, const char *path, const char *name)
{
    const mn_bpe_header *h = (const mn_bpe_header *)e->map;
    if (e->map_len < sizeof(*h) || memcmp(h->magic, MN_BPE_MAGIC, sizeof(h->magic)) != 0)
        return mn_error_set(MN_ECORRUPT, "token table '%s' is not a mnemo token table", path);
    if (h->endian != MN_BPE_ENDIAN)
        return mn_error_set(MN_ECORRUPT, "token table '%s' was built on another byte order", path);
    if (strncmp(h->name, name, sizeof(h->name)) != 0)
        return mn_error_set(MN_ECORRUPT, "token table '%s' holds another encoding", path);
    uint64_t need = sizeof(*h) + MN_BPE_PATTERN_SPACE(h->pattern_len) + 256 * 4 + 65536 * 4 +
                    ((uint64_t)h->nranks + 1) * 4 + (uint64_t)h->nslots * 4 + h->blob_size;
    if (h->nranks == 0 || h->nslots == 0 || (h->nslots & (h->nslots - 1)) ||
        h->nslots <= h->nranks || h->rank_bits == 0 || h->rank_bits > 24 ||
        (1ULL << h->rank_bits) <= h->nranks || need != e->map_len)
        return mn_error_set(
            MN_ECORRUPT, "token table '%s' is damaged (its sizes do not add up): reinstall mnemo",
            path);
    const unsigned char *p = e->map + sizeof(*h);
    if (memchr(p, '\0', h->pattern_len) || p[h->pattern_len] != '\0')
        return mn_error_set(MN_ECORRUPT, "token table '%s' is damaged (pattern)", path);
    e->h = h;
    p += MN_BPE_PATTERN_SPACE(h->pattern_len);
    e->byte_rank = (const uint32_t *)p;
    for (int b = 0; b < 256; b++)
        if (e->byte_rank[b] >= h->nranks)
            return mn_error_set(MN_ECORRUPT, "token table '%s' is damaged (byte ranks)", path);
    p += 256 * 4;
    e->pair_rank = (const uint32_t *)p; /* checked when read: a rank past nranks is none */
    p += 65536 * 4;
    e->offsets = (const uint32_t *)p;
    p += ((size_t)h->nranks + 1) * 4;
    e->slots = (const uint32_t *)p;
    p += (size_t)h->nslots * 4;
    e->blob = p;
    e->mask = h->nslots - 1;
    e->rank_mask = (uint32_t)((1ULL << h->rank_bits) - 1);
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->id = !strcmp(name, "o200k_base");
    /* the ASCII matcher was written for these two patterns (js-tiktoken 1.0.21's, as
       scripts/bpe_table.c translates them): a table with another gets PCRE2 alone */
    uint64_t ph = XXH3_64bits(e->map + sizeof(*h), h->pattern_len);
    e->ascii = !strcmp(name, "cl100k_base") && ph == PATTERN_CL100K ? ASCII_CL100K
               : !strcmp(name, "o200k_base") && ph == PATTERN_O200K ? ASCII_O200K
                                                                    : ASCII_NONE;
    return 0;
}

/*
 * The compiled pattern, made on first need (the first piece that is not
 * ASCII): most texts never need it, and compiling and JIT-compiling costs
 * half a millisecond, which a hook process would pay for nothing. NULL
 * when PCRE2 cannot compile it (out of memory: the generator compiled the
 * same pattern at build time); the bytes are then counted one token each.
 */
static const pcre2_code *regex_of(const mn_bpe *ce)
{
    mn_bpe *e = (mn_bpe *)ce; /* the loaded encodings are ours: only re and jit change */
    pcre2_code *re = __atomic_load_n(&e->re, __ATOMIC_ACQUIRE);
    if (re || __atomic_load_n(&e->re_failed, __ATOMIC_ACQUIRE))
        return re;
    pthread_mutex_lock(&load_lock);
    if (!e->re && !e->re_failed) {
        int err;
        PCRE2_SIZE at;
        re = pcre2_compile((PCRE2_SPTR)(e->map + sizeof(mn_bpe_header)), e->h->pattern_len,
                           PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &at, NULL);
        if (re)
            e->jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0;
        __atomic_store_n(&e->re_failed, !re, __ATOMIC_RELEASE);
        __atomic_store_n(&e->re, re, __ATOMIC_RELEASE);
    }
    re = e->re;
    pthread_mutex_unlock(&load_lock);
    return re;
}

/* Map path as encoding name into a new *out; MN_ENOTFOUND when there is no such file. */
static int load_file(mn_bpe **out, const char *path, const char *name)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mn_error_set(MN_ENOTFOUND, "no token table '%s'", path);
    mn_bpe *e = mn_calloc(1, sizeof(*e));
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        rc = mn_error_set(MN_ECORRUPT, "token table '%s' is not a regular file", path);
        goto out;
    }
    e->map_len = (size_t)st.st_size;
    void *m = mmap(NULL, e->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        rc = mn_error_set(MN_EIO, "cannot map token table '%s': %s", path, strerror(errno));
        goto out;
    }
    e->map = m;
    if ((rc = check_table(e, path, name)) != 0)
        goto out;
out:
    close(fd);
    if (rc) {
        if (e->map)
            munmap((void *)e->map, e->map_len);
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int mn_bpe__open_file(mn_bpe **out, const char *path, const char *name)
{
    return load_file(out, path, name);
}

void mn_bpe__close(mn_bpe *e)
{
    if (!e)
        return;
    if (e->re)
        pcre2_code_free(e->re);
    munmap((void *)e->map, e->map_len);
    free(e);
}

/* Look for name's table next to the program; *out the encoding. */
static int load(mn_bpe **out, const char *name)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return mn_error_set(MN_ENOTFOUND,
                            "token table '%s.bpe' not found: the program's own "
                            "path is unknown",
                            name);
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const rel[] = {"/share/mnemo/tokenizers/", "/../share/mnemo/tokenizers/"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(rel); i++) {
        mn_buf path = MN_BUF_INIT;
        mn_buf_printf(&path, "%s%s%s.bpe", exe, rel[i], name);
        int rc = load_file(out, path.ptr, name);
        mn_buf_release(&path);
        if (rc != MN_ENOTFOUND)
            return rc;
    }
    return mn_error_set(MN_ENOTFOUND,
                        "token table '%s.bpe' is not installed (looked in "
                        "'%s/share/mnemo/tokenizers' and '%s/../share/mnemo/tokenizers')",
                        name, exe, exe);
}

int mn_bpe_get(const mn_bpe **out, const char *name)
{
    size_t i = 0;
    while (i < MN_ARRAY_SIZE(known) && (!name || strcmp(known[i], name) != 0))
        i++;
    *out = NULL;
    if (i == MN_ARRAY_SIZE(known))
        return mn_error_set(MN_EINVAL, "unknown tokenizer '%.40s' (known: cl100k_base, o200k_base)",
                            name ? name : "");
    pthread_mutex_lock(&load_lock);
    if (!loaded[i].e && loaded[i].rc == 0) {
        mn_bpe *e = NULL;
        loaded[i].rc = load(&e, known[i]);
        if (loaded[i].rc)
            loaded[i].msg = mn_strdup(mn_error_last());
        loaded[i].e = e;
    }
    int rc = loaded[i].rc;
    *out = loaded[i].e;
    pthread_mutex_unlock(&load_lock);
    if (rc)
        return mn_error_set(rc, "%s", loaded[i].msg);
    return 0;
}
