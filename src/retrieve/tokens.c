/*
 * tokens.c - token counters (tokens.h): the exact encodings of text/bpe.h,
 * and the upper bound used when their tables are not installed.
 *
 * The upper bound:
 *
 * BPE tokenizers of the cl100k_base kind first cut text into pieces (a
 * letter run with the space before it, up to three digits, a run of
 * punctuation, whitespace) and then encode each piece into one or more
 * vocabulary entries. Common words are one token; rare words, identifiers
 * and random strings (hashes, base64) cost more, up to ~0.85 tokens per
 * letter for mixed-case noise. The bound charges, per piece:
 *
 *   letters (ASCII)   per case piece (an upper-case run then a lower-case
 *                     run): 1 per capital when there are two or more, plus
 *                     ceil(l / 2.5) for l lower-case letters (l <= 20) or
 *                     ceil(l / 2) + 2 (longer: no word is that long, so it
 *                     is noise); at least 1. A single space before a letter
 *                     or punctuation is free (it belongs to that piece).
 *   digits            ceil(n / 3): numbers split into groups of three.
 *   spaces            ceil(n / 4) for a run not absorbed as above.
 *   \n \r \t, other ASCII punctuation
 *                     1 each.
 *   non-ASCII         1 per 2-byte character up to U+052F (Latin, Greek,
 *                     Cyrillic: one token each in practice), 2 per other
 *                     2-byte character, 1 per byte for 3- and 4-byte ones
 *                     (a token is never shorter than a byte).
 *
 * then adds 1/32 of the sum and 2. Measured against cl100k_base
 * (js-tiktoken) on 5,964 chunks of 1,500 characters (sympy's Python and
 * reStructuredText, this repository's C and Markdown, the LoCoMo,
 * LongMemEval and SWE-bench files): never below the true count (the
 * closest, a table of small numbers, 1.02x before the margin), 1.85x on
 * average: a budget of 3,000 tokens holds ~1,600 real ones of mixed text.
 * tests/integration/token_bound.sh repeats the check in CI.
 */
#include "common.h"

#include "retrieve/tokens.h"
#include "util/buf.h"

int mn_tokens_counter(mn_token_counter *out, const char *name, char **note)
{
    const mn_bpe *e = NULL;
    *note = NULL;
    out->bpe = NULL;
    out->name = name ? name : MN_TOKENIZER_DEFAULT;
    int rc = mn_bpe_get(&e, out->name);
    if (rc == MN_EINVAL)
        return rc;
    if (rc) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b,
                      "tokens are estimated, not counted: %s; the text stays within the budget "
                      "but uses about half of it (reinstall mnemo with its token tables)",
                      mn_error_last());
        *note = mn_buf_detach(&b);
        mn_error_clear();
        return 0;
    }
    out->bpe = e;
    return 0;
}

size_t mn_tokens_count(const mn_token_counter *c, const char *text, size_t len)
{
    return c->bpe ? mn_bpe_count(c->bpe, text, len) : mn_tokens_estimate(text, len);
}

static bool is_letter(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_upper(unsigned char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/* Letters text[i..j): the case pieces' costs. */
static size_t letters_cost(const unsigned char *t, size_t i, size_t j)
{
    size_t cost = 0;
    while (i < j) {
        size_t caps = 0, low = 0;
        while (i < j && is_upper(t[i]))
            caps++, i++;
        while (i < j && !is_upper(t[i]))
            low++, i++;
        size_t c = caps > 1 ? caps : 0;
        if (low)
            c += low <= 20 ? ceil_div(low * 2, 5) : ceil_div(low, 2) + 2;
        cost += c ? c : 1;
    }
    return cost;
}

/* Bytes in the UTF-8 sequence starting with c (1 for a stray byte). */
static size_t seq_len(unsigned char c)
{
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

size_t mn_tokens_estimate(const char *text, size_t len)
{
    const unsigned char *t = (const unsigned char *)text;
    size_t i = 0, cost = 0;
    while (i < len) {
        unsigned char c = t[i];
        size_t j = i;
        if (is_letter(c)) {
            while (j < len && is_letter(t[j]))
                j++;
            cost += letters_cost(t, i, j);
        } else if (is_digit(c)) {
            while (j < len && is_digit(t[j]))
                j++;
            cost += ceil_div(j - i, 3);
        } else if (c == ' ') {
            while (j < len && t[j] == ' ')
                j++;
            bool absorbed = j - i == 1 && j < len && t[j] != '\n' && t[j] != '\r' && t[j] != '\t' &&
                            !is_digit(t[j]);
            if (!absorbed)
                cost += ceil_div(j - i, 4);
        } else if (c < 0x80) {
            j++;
            cost++;
        } else {
            size_t n = seq_len(c);
            if (n > len - i)
                n = len - i;
            j += n;
            if (n == 2) {
                unsigned cp = ((unsigned)(c & 0x1f) << 6) | (t[i + 1] & 0x3f);
                cost += cp <= 0x52f ? 1 : 2;
            } else {
                cost += n;
            }
        }
        i = j;
    }
    return cost + cost / 32 + 2;
}

size_t mn_tokens_fit(const char *text, size_t len, size_t max_tokens)
{
    if (mn_tokens_estimate(text, len) <= max_tokens)
        return len;
    /* the estimate only grows with the prefix: binary search for the longest that fits */
    size_t lo = 0, hi = len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (mn_tokens_estimate(text, mid) <= max_tokens)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* back to a character boundary, then to a line or word end within 64 bytes */
    while (lo > 0 && ((unsigned char)text[lo] & 0xc0) == 0x80)
        lo--;
    for (size_t k = lo; k > 0 && lo - k < 64; k--) {
        if (text[k - 1] == '\n' || text[k - 1] == ' ') {
            return k;
        }
    }
    return lo;
}
