/*
 * keywords.c - TF-IDF keyword extraction (interface in keywords.h).
 *
 * The text is tokenized as it would be indexed. Each term is met in one of
 * three roles: a plain word, the whole of an identifier (parseHttpHeader),
 * or a piece of one (http). Occurrences are counted per term, whatever the
 * role, together with up to four spellings and their counts. The score is
 *
 *     score(t) = (1 + ln count(t)) * idf(t) * role(t)
 *     idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))   with a corpus of N documents
 *                (df clamped to 0..N: the BM25 idf, positive even for common terms)
 *              = ln(2 + cps(t))                         without a corpus (N = 0): a
 *                longer term is rarer, a weak but better-than-nothing guess
 *     role(t)  = 1.5 if t was ever a whole identifier (it names one thing exactly),
 *                1.0 if ever a plain word, 0.5 if only ever a piece of an identifier
 *
 * Left out: stop words, numbers, one-character terms. Ties go to the term met
 * first. The display form is the most frequent spelling (first met on ties),
 * lower-cased unless it looks like an identifier (a capital after the first
 * character, '_' or a digit), so "Retry" at a sentence start shows as "retry"
 * and parseHttpHeader or HTTP keep their case.
 */
#include <math.h>
#include <utf8proc.h>

#include "common.h"
#include "text/keywords.h"
#include "text/scan.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

#define MAX_SPELLINGS 4

enum { ROLE_PIECE = 1, ROLE_WORD = 2, ROLE_WHOLE = 4 };

typedef struct {
    size_t start, end;
    int count;
} spelling;

typedef struct {
    char term[MN_TOK_MAX_BYTES + 1];
    size_t term_len;
    int count;
    unsigned roles;
    size_t first; /* order of first occurrence */
    spelling sp[MAX_SPELLINGS];
    int nsp;
    double score;
} cand;

typedef struct {
    const char *text;
    mn_lang lang;
    mn_map index; /* term -> position in cands + 1 */
    MN_VEC(cand) cands;
    size_t word_end; /* end of the identifier whose pieces are being met */
    bool pend;       /* a term not yet recorded: a word, or the first piece of an identifier */
    char pend_tok[MN_TOK_MAX_BYTES + 1];
    size_t pend_len, pend_start, pend_end;
} kw_ctx;

static bool worth(const kw_ctx *k, const char *tok, size_t len)
{
    size_t cps = 0;
    bool digits_only = true;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)tok[i];
        cps += (ch & 0xC0) != 0x80;
        if (ch < '0' || ch > '9')
            digits_only = false;
    }
    return cps >= 2 && !digits_only && !mn_lang_is_stopword(k->lang, tok, len);
}

static void record(kw_ctx *k, const char *tok, size_t len, size_t start, size_t end, unsigned role)
{
    if (!worth(k, tok, len))
        return;
    char key[MN_TOK_MAX_BYTES + 1];
    memcpy(key, tok, len);
    key[len] = '\0';
    uintptr_t pos = (uintptr_t)mn_map_get(&k->index, key);
    cand *c;
    if (pos == 0) {
        cand fresh;
        memset(&fresh, 0, sizeof(fresh));
        memcpy(fresh.term, key, len + 1);
        fresh.term_len = len;
        fresh.first = k->cands.len;
        mn_vec_push(&k->cands, fresh);
        mn_map_set(&k->index, key, (void *)(uintptr_t)k->cands.len);
        c = &k->cands.items[k->cands.len - 1];
    } else {
        c = &k->cands.items[pos - 1];
    }
    c->count++;
    c->roles |= role;
    for (int i = 0; i < c->nsp; i++) {
        spelling *s = &c->sp[i];
        if (s->end - s->start == end - start &&
            memcmp(k->text + s->start, k->text + start, end - start) == 0) {
            s->count++;
            return;
        }
    }
    if (c->nsp < MAX_SPELLINGS)
        c->sp[c->nsp++] = (spelling){start, end, 1};
}

static void flush(kw_ctx *k, unsigned role)
{
    if (!k->pend)
        return;
    k->pend = false;
    record(k, k->pend_tok, k->pend_len, k->pend_start, k->pend_end, role);
}

static int on_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                    int colocated)
{
    kw_ctx *k = payload;
    if (colocated == MN_TOK_COLOC_ALT)
        return 0;
    if (colocated == MN_TOK_COLOC_WHOLE) {
        flush(k, ROLE_PIECE); /* the pending term was the identifier's first piece */
        k->word_end = end;
        record(k, tok, len, start, end, ROLE_WHOLE);
        return 0;
    }
    flush(k, ROLE_WORD);
    if (start < k->word_end) {
        record(k, tok, len, start, end, ROLE_PIECE);
        return 0;
    }
    k->pend = true;
    memcpy(k->pend_tok, tok, len);
    k->pend_len = len;
    k->pend_start = start;
    k->pend_end = end;
    return 0;
}

static int by_score(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static bool identifier_like(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '_' || (ch >= '0' && ch <= '9') || (i > 0 && ch >= 'A' && ch <= 'Z'))
            return true;
    }
    /* Non-ASCII capitals after the first letter. */
    utf8proc_int32_t cp;
    size_t i = 0;
    bool first = true;
    while (i < n) {
        utf8proc_ssize_t r =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (r <= 0)
            break;
        if (!first && utf8proc_category(cp) == UTF8PROC_CATEGORY_LU)
            return true;
        first = false;
        i += (size_t)r;
    }
    return false;
}

static char *display(const char *s, size_t n)
{
    if (identifier_like(s, n))
        return mn_strndup(s, n);
    mn_buf b = MN_BUF_INIT;
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t r =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (r <= 0) { /* cannot happen for a span the tokenizer gave; keep the byte */
            mn_buf_putc(&b, s[i++]);
            continue;
        }
        utf8proc_uint8_t enc[4];
        utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_tolower(cp), enc);
        mn_buf_put(&b, enc, (size_t)m);
        i += (size_t)r;
    }
    return mn_buf_detach(&b);
}

int mn_keywords_extract(mn_keyword **out, size_t *out_n, const char *text, size_t len, mn_lang lang,
                        const mn_df_source *df, size_t max_n)
{
    if (!out || !out_n || (!text && len > 0))
        return mn_error_set(MN_EINVAL, "keywords: missing argument");
    *out = NULL;
    *out_n = 0;
    if (len == 0 || max_n == 0)
        return 0;
    /* a redacted text's markers are not its words: "[REDACTED:aws-access-key-id]" made
     * "REDACTED" a memory's keyword (and the rule's words, which the text may not hold) */
    char *unmarked = mn_scan_unmarked(text, len);
    if (unmarked)
        text = unmarked;
    if (lang == MN_LANG_UNKNOWN)
        lang = mn_lang_detect(text, len);
    kw_ctx k = {.text = text, .lang = lang, .index = MN_MAP_INIT};
    mn_tokenize(text, len, lang, 0, on_token, &k);
    flush(&k, ROLE_WORD);

    int64_t n_docs = df && df->df ? df->n_docs : 0;
    for (size_t i = 0; i < k.cands.len; i++) {
        cand *c = &k.cands.items[i];
        double idf;
        if (n_docs > 0) {
            int64_t d = df->df(df->payload, c->term, c->term_len);
            if (d < 0)
                d = 0;
            if (d > n_docs)
                d = n_docs;
            idf = log(1.0 + ((double)(n_docs - d) + 0.5) / ((double)d + 0.5));
        } else {
            size_t cps = 0;
            for (size_t j = 0; j < c->term_len; j++)
                cps += ((unsigned char)c->term[j] & 0xC0) != 0x80;
            idf = log(2.0 + (double)cps);
        }
        double role = (c->roles & ROLE_WHOLE) ? 1.5 : (c->roles & ROLE_WORD) ? 1.0 : 0.5;
        c->score = (1.0 + log((double)c->count)) * idf * role;
    }
    if (k.cands.len > 0)
        qsort(k.cands.items, k.cands.len, sizeof(cand), by_score);

    size_t n = k.cands.len < max_n ? k.cands.len : max_n;
    if (n > 0) {
        mn_keyword *kw = mn_calloc(n, sizeof(*kw));
        for (size_t i = 0; i < n; i++) {
            const cand *c = &k.cands.items[i];
            const spelling *best = &c->sp[0];
            for (int j = 1; j < c->nsp; j++)
                if (c->sp[j].count > best->count)
                    best = &c->sp[j];
            kw[i].text = display(text + best->start, best->end - best->start);
            kw[i].term = mn_strndup(c->term, c->term_len);
            kw[i].score = c->score;
            kw[i].count = c->count;
        }
        *out = kw;
        *out_n = n;
    }
    mn_map_release(&k.index);
    mn_vec_release(&k.cands);
    free(unmarked);
    return 0;
}

void mn_keywords_free(mn_keyword *kw, size_t n)
{
    if (!kw)
        return;
    for (size_t i = 0; i < n; i++) {
        free(kw[i].text);
        free(kw[i].term);
    }
    free(kw);
}
