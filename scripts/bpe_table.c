/*
 * bpe_table.c - build-time generator of the token tables mnemo counts with
 * (src/text/bpe.h): one encoding of js-tiktoken's ranks in, one file that
 * mnemo maps at run time out.
 *
 *   bpe_table NAME RANKS.cjs OUT
 *
 * RANKS.cjs is js-tiktoken's dist/ranks/<NAME>.cjs (the npm package pinned
 * in deps/npm.lock): `module.exports = {"pat_str": ..., "special_tokens":
 * ..., "bpe_ranks": "..."}`, where bpe_ranks is lines of "<char> <offset>
 * <base64 token> <base64 token> ...", the tokens taking ranks offset,
 * offset + 1, ... in order. The file written (layout in src/text/bpe.h,
 * "The table file") holds the pre-tokenisation pattern translated for
 * PCRE2, every token's bytes in rank order, and an open-addressing hash
 * table from bytes to rank, so that a process maps it and counts at once,
 * with nothing to build.
 *
 * The pattern is JavaScript's (js-tiktoken runs it with the u flag, and
 * its counts are what the tests compare with). PCRE2 with UTF and UCP
 * reads it alike but for \s: JavaScript's \s is the Unicode White_Space
 * of ECMAScript (with U+FEFF, without U+0085 and U+180E), so \s and \S are
 * replaced by that class spelled out.
 *
 * Checks: every rank is given once, no token twice, the 256 single bytes
 * are all tokens (the merge starts from them). Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "../src/text/bpe_format.h"
#include "../src/banned.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "bpe_table: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void *xalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        die("out of memory", NULL);
    return p;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t cap = 1 << 20, n = 0;
    char *b = xalloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(b, cap);
            if (!nb)
                die("out of memory", NULL);
            b = nb;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    if (ferror(f))
        die("cannot read", path);
    fclose(f);
    *len = n;
    return b;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decode base64 s[0..n) into out (at least n bytes); returns the length, -1 when malformed. */
static long b64_decode(const char *s, size_t n, unsigned char *out)
{
    long len = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=')
            break;
        int v = b64_value((unsigned char)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[len++] = (unsigned char)((acc >> bits) & 0xff);
        }
    }
    return len;
}

/* JavaScript's \s (ECMAScript WhiteSpace and LineTerminator), as the inside of a PCRE2 class. */
static const char js_space[] = "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}"
                               "\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";

static void put(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
    while (*len + n + 1 > *cap) {
        *cap *= 2;
        char *nb = realloc(*out, *cap);
        if (!nb)
            die("out of memory", NULL);
        *out = nb;
    }
    memcpy(*out + *len, s, n);
    *len += n;
    (*out)[*len] = '\0';
}

/* The pattern with \s and \S spelled out as JavaScript reads them. */
static char *translate(const char *pat)
{
    size_t cap = 256, len = 0;
    char *out = xalloc(cap);
    bool in_class = false;
    for (const char *p = pat; *p; p++) {
        if (*p == '\\' && p[1]) {
            if (p[1] == 's' || p[1] == 'S') {
                if (in_class && p[1] == 'S')
                    die("pattern", "\\S inside a class is not supported");
                if (!in_class)
                    put(&out, &len, &cap, p[1] == 's' ? "[" : "[^", p[1] == 's' ? 1 : 2);
                put(&out, &len, &cap, js_space, strlen(js_space));
                if (!in_class)
                    put(&out, &len, &cap, "]", 1);
            } else {
                put(&out, &len, &cap, p, 2);
            }
            p++;
            continue;
        }
        if (*p == '[' && !in_class)
            in_class = true;
        else if (*p == ']' && in_class)
            in_class = false;
        put(&out, &len, &cap, p, 1);
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bpe_table NAME RANKS.cjs OUT\n");
        return 1;
    }
    const char *name = argv[1], *in_path = argv[2], *out_path = argv[3];
    if (strlen(name) >= MN_BPE_NAME_MAX)
        die("name too long", name);
    size_t len;
    char *src = read_file(in_path, &len);
    char *open = memchr(src, '{', len), *close = NULL;
    for (size_t i = len; i > 0 && !close; i--)
        if (src[i - 1] == '}')
            close = src + i - 1;
    if (!open || !close || close < open)
        die("no object in", in_path);
    json_error_t jerr;
    json_t *root = json_loadb(open, (size_t)(close - open) + 1, 0, &jerr);
    if (!root)
        die("not JSON", jerr.text);
    const char *pat = json_string_value(json_object_get(root, "pat_str"));
    const char *ranks = json_string_value(json_object_get(root, "bpe_ranks"));
    if (!pat || !ranks)
        die("pat_str or bpe_ranks missing in", in_path);
    char *pattern = translate(pat);
    /* mnemo compiles it when it first meets text that is not ASCII: it must compile */
    int perr;
    PCRE2_SIZE pat_at;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)pattern, strlen(pattern),
                      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &perr, &pat_at, NULL);
    if (!re)
        die("the pattern does not compile with PCRE2", pattern);
    pcre2_code_free(re);

    /* first pass: the number of ranks and the bytes of all tokens */
    size_t rlen = strlen(ranks), nranks = 0, total = 0;
    for (const char *line = ranks; line < ranks + rlen;) {
        const char *eol = memchr(line, '\n', (size_t)(ranks + rlen - line));
        if (!eol)
            eol = ranks + rlen;
        const char *p = memchr(line, ' ', (size_t)(eol - line));
        if (p) {
            char *end;
            unsigned long off = strtoul(p + 1, &end, 10);
            size_t count = 0;
            for (const char *q = end; q < eol;) {
                while (q < eol && *q == ' ')
                    q++;
                const char *t = q;
                while (q < eol && *q != ' ')
                    q++;
                if (q > t) {
                    count++;
                    total += (size_t)(q - t);
                }
            }
            if (off + count > nranks)
                nranks = off + count;
        }
        line = eol + 1;
    }
    if (nranks == 0 || nranks >= UINT32_MAX / 4)
        die("no ranks in", in_path);

    uint32_t *tok_off = xalloc(nranks * sizeof(uint32_t));
    uint32_t *tok_len = xalloc(nranks * sizeof(uint32_t));
    unsigned char *blob = xalloc(total + 1);
    bool *given = xalloc(nranks);
    size_t blob_len = 0, max_len = 0;
    for (const char *line = ranks; line < ranks + rlen;) {
        const char *eol = memchr(line, '\n', (size_t)(ranks + rlen - line));
        if (!eol)
            eol = ranks + rlen;
        const char *p = memchr(line, ' ', (size_t)(eol - line));
        if (p) {
            char *end;
            unsigned long r = strtoul(p + 1, &end, 10);
            for (const char *q = end; q < eol;) {
                while (q < eol && *q == ' ')
                    q++;
                const char *t = q;
                while (q < eol && *q != ' ')
                    q++;
                if (q == t)
                    continue;
                long n = b64_decode(t, (size_t)(q - t), blob + blob_len);
                if (n <= 0)
                    die("bad base64 token in", in_path);
                if (given[r])
                    die("a rank given twice in", in_path);
                given[r] = true;
                tok_off[r] = (uint32_t)blob_len;
                tok_len[r] = (uint32_t)n;
                blob_len += (size_t)n;
                if ((size_t)n > max_len)
                    max_len = (size_t)n;
                r++;
            }
        }
        line = eol + 1;
    }

    /* the hash table: at most 40% full, so that a miss (most lookups of a merge) probes ~2 slots */
    uint32_t nslots = 1024;
    while (nslots < nranks * 5 / 2)
        nslots *= 2;
    uint32_t rank_bits = 1;
    while ((1ULL << rank_bits) <= nranks)
        rank_bits++;
    if (rank_bits > 24)
        die("too many ranks for the slot layout in", in_path);
    uint32_t rank_mask = (uint32_t)((1ULL << rank_bits) - 1);
    uint32_t *slots = xalloc((size_t)nslots * sizeof(uint32_t));
    uint32_t byte_rank[256];
    memset(byte_rank, 0xff, sizeof(byte_rank));
    uint32_t *pair_rank = xalloc(65536 * sizeof(uint32_t));
    memset(pair_rank, 0xff, 65536 * sizeof(uint32_t));
    for (size_t r = 0; r < nranks; r++) {
        if (!given[r])
            continue;
        const unsigned char *t = blob + tok_off[r];
        if (tok_len[r] == 1)
            byte_rank[t[0]] = (uint32_t)r;
        if (tok_len[r] == 2)
            pair_rank[t[0] << 8 | t[1]] = (uint32_t)r;
        uint64_t hash = XXH3_64bits_withSeed(t, tok_len[r], MN_BPE_SEED);
        uint32_t h = (uint32_t)hash & (nslots - 1);
        for (;; h = (h + 1) & (nslots - 1)) {
            uint32_t s = slots[h] & rank_mask;
            if (!s)
                break;
            if (tok_len[s - 1] == tok_len[r] && !memcmp(blob + tok_off[s - 1], t, tok_len[r]))
                die("a token given twice in", in_path);
        }
        slots[h] = ((uint32_t)r + 1) | MN_BPE_TAG(hash, rank_bits) << rank_bits;
    }
    for (int b = 0; b < 256; b++)
        if (byte_rank[b] == UINT32_MAX)
            die("a single byte is not a token in", in_path);

    /* the file: header, pattern (NUL, padded to 8), byte ranks, offsets, slots, blob */
    mn_bpe_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, MN_BPE_MAGIC, sizeof(h.magic));
    h.endian = MN_BPE_ENDIAN;
    h.nranks = (uint32_t)nranks;
    h.nslots = nslots;
    h.blob_size = (uint32_t)blob_len;
    h.pattern_len = (uint32_t)strlen(pattern);
    h.max_token_len = (uint32_t)max_len;
    h.rank_bits = rank_bits;
    memcpy(h.name, name, strlen(name));
    size_t pad = MN_BPE_PATTERN_SPACE(h.pattern_len) - h.pattern_len;
    uint32_t *offsets = xalloc((nranks + 1) * sizeof(uint32_t));
    /* offsets[r]..offsets[r+1]: a rank never given has no bytes (length 0: never matched) */
    uint32_t at = 0;
    unsigned char *ordered = xalloc(blob_len + 1);
    for (size_t r = 0; r < nranks; r++) {
        offsets[r] = at;
        if (given[r]) {
            memcpy(ordered + at, blob + tok_off[r], tok_len[r]);
            at += tok_len[r];
        }
    }
    offsets[nranks] = at;
    size_t tmp_len = strlen(out_path) + 8;
    char *tmp = xalloc(tmp_len);
    snprintf(tmp, tmp_len, "%s.tmp", out_path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        die("cannot write", tmp);
    static const char zeros[8] = {0};
    bool ok = fwrite(&h, sizeof(h), 1, f) == 1 && fwrite(pattern, h.pattern_len, 1, f) == 1 &&
              (pad == 0 || fwrite(zeros, pad, 1, f) == 1) &&
              fwrite(byte_rank, sizeof(byte_rank), 1, f) == 1 &&
              fwrite(pair_rank, sizeof(uint32_t), 65536, f) == 65536 &&
              fwrite(offsets, sizeof(uint32_t), nranks + 1, f) == nranks + 1 &&
              fwrite(slots, sizeof(uint32_t), nslots, f) == nslots &&
              fwrite(ordered, 1, at, f) == at;
    if (fclose(f) != 0 || !ok || rename(tmp, out_path) != 0) {
        remove(tmp);
        die("cannot write", out_path);
    }
    printf("bpe_table: %s: %zu tokens, %u slots, %zu bytes of tokens\n", name, nranks, nslots,
           (size_t)at);
    free(tmp);
    free(ordered);
    free(offsets);
    free(slots);
    free(pair_rank);
    free(given);
    free(blob);
    free(tok_len);
    free(tok_off);
    free(pattern);
    json_decref(root);
    free(src);
    return 0;
}
