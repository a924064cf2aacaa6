/*
 * tokenize.c - the code-aware Unicode tokenizer (rules in tokenize.h and
 * docs/internals/text.md).
 *
 * One pass over the bytes. ASCII is classified inline; other code points are
 * decoded with utf8proc and classified by general category (letters by case,
 * digits, combining marks, connector punctuation) and by script, from code
 * point ranges (Latin, Cyrillic, Greek, other; Han and kana stand alone).
 * A word - a run of letters, digits, marks and '_' - is recorded as units
 * (offset, class, script) in a fixed array, then split into pieces; each piece
 * is normalised once into a fixed buffer (ASCII: lower-cased in place of
 * utf8proc; otherwise NFKC + case fold + ignorables removed, Cyrillic
 * ё -> е), then stemmed, stripped of diacritics if Latin, and handed to the
 * callback. Nothing
 * is allocated per token: the units, pieces and normalised forms live in the
 * mn_tokenizer, and each language's Snowball stemmer is created on first use
 * and kept with it.
 *
 * Invariants: every emitted term is 1..MN_TOK_MAX_BYTES bytes of valid UTF-8;
 * a colocated term always follows a term that took a position; spans are
 * byte offsets into the caller's text with start < end <= len.
 */
#include <libstemmer.h>
#include <pthread.h>
#include <utf8proc.h>

#include "common.h"
#include "text/tokenize.h"

/* Unit classes. */
enum { C_SEP = 0, C_UP, C_LO, C_OL, C_DIG, C_MARK, C_US, C_CJK };
/* Scripts (of letters; digits, marks and '_' have none). */
enum { S_NONE = 0, S_LATIN, S_CYR, S_GREEK, S_OTHER };

#define MAX_UNITS  256 /* code points of a word kept for splitting; a longer word is opaque */
#define MAX_PIECES 64
#define NORM_IN    (4 * MN_TOK_MAX_BYTES) /* bytes of input normalised for one term */
/* Letter/digit changes past which a word is a hash or a blob, not an identifier (a1b2c3d4). */
#define OPAQUE_TRANSITIONS 4

typedef struct {
    size_t off;
    uint8_t cls, script;
} unit;

typedef struct {
    uint16_t u0, u1;   /* units [u0, u1) */
    size_t start, end; /* bytes */
    uint8_t script;
    bool digit, alpha;
    uint16_t nlen; /* normalised form: t->norm + index * MN_TOK_MAX_BYTES, nlen bytes */
} piece;

/*
 * A direct-mapped cache of recent stems: code repeats its identifiers, and a
 * Snowball call costs about 100 ns where a hit costs a hash and a memcmp.
 * Only words up to STEM_CACHE_WORD bytes are cached (most words are shorter).
 */
#define STEM_CACHE_SLOTS 1024u /* power of two */
#define STEM_CACHE_WORD  22

typedef struct {
    uint8_t lang, wlen, slen; /* wlen 0: empty slot */
    char word[STEM_CACHE_WORD];
    char stem[STEM_CACHE_WORD];
} stem_slot;

struct mn_tokenizer {
    stem_slot cache[STEM_CACHE_SLOTS];
    struct sb_stemmer *stem[MN_LANG__COUNT];
    bool stem_failed[MN_LANG__COUNT];
    bool busy;
    utf8proc_int32_t *cps; /* utf8proc scratch, cps_cap code points */
    size_t cps_cap;
    unit units[MAX_UNITS];
    piece pieces[MAX_PIECES];
    char norm[MAX_PIECES * MN_TOK_MAX_BYTES];
};

typedef struct {
    mn_tokenizer *t;
    const char *text;
    unsigned flags;
    mn_lang latin; /* language of Latin-script words: EN, FR, DE or ES */
    mn_token_cb cb;
    void *payload;
} run_ctx;

static const char *const stem_algo[MN_LANG__COUNT] = {NULL,     "english", "russian",
                                                      "french", "german",  "spanish"};

mn_tokenizer *mn_tokenizer_new(void)
{
    mn_tokenizer *t = mn_calloc(1, sizeof(*t));
    t->cps_cap = 512;
    t->cps = mn_malloc(t->cps_cap * sizeof(*t->cps));
    return t;
}

void mn_tokenizer_free(mn_tokenizer *t)
{
    if (!t)
        return;
    for (int l = 0; l < MN_LANG__COUNT; l++)
        if (t->stem[l])
            sb_stemmer_delete(t->stem[l]);
    free(t->cps);
    free(t);
}

/* ---- classification ---- */

static bool is_cjk(int32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF66 && cp <= 0xFF9F) ||
           (cp >= 0x20000 && cp <= 0x3134F);
}

static uint8_t script_of(int32_t cp)
{
    if (cp <= 0x24F || (cp >= 0x1E00 && cp <= 0x1EFF) || (cp >= 0x2C60 && cp <= 0x2C7F) ||
        (cp >= 0xA720 && cp <= 0xA7FF) || (cp >= 0xFF21 && cp <= 0xFF5A) ||
        (cp >= 0xFB00 && cp <= 0xFB06))
        return S_LATIN;
    if ((cp >= 0x400 && cp <= 0x52F) || (cp >= 0x1C80 && cp <= 0x1C8F) ||
        (cp >= 0x2DE0 && cp <= 0x2DFF) || (cp >= 0xA640 && cp <= 0xA69F))
        return S_CYR;
    if ((cp >= 0x370 && cp <= 0x3FF) || (cp >= 0x1F00 && cp <= 0x1FFF))
        return S_GREEK;
    return S_OTHER;
}

/* Decode the code point at s[i] and classify it; returns its length in bytes (>= 1). */
static inline size_t classify(const uint8_t *s, size_t len, size_t i, uint8_t *cls, uint8_t *script)
{
    uint8_t c = s[i];
    if (c < 0x80) {
        *script = S_NONE;
        if (c >= 'a' && c <= 'z') {
            *cls = C_LO;
            *script = S_LATIN;
        } else if (c >= 'A' && c <= 'Z') {
            *cls = C_UP;
            *script = S_LATIN;
        } else if (c >= '0' && c <= '9') {
            *cls = C_DIG;
        } else if (c == '_') {
            *cls = C_US;
        } else {
            *cls = C_SEP;
        }
        return 1;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
    *script = S_NONE;
    if (n <= 0) { /* invalid UTF-8: the byte separates words */
        *cls = C_SEP;
        return 1;
    }
    if (is_cjk(cp)) {
        *cls = C_CJK;
        *script = S_OTHER;
        return (size_t)n;
    }
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LT:
        *cls = C_UP;
        break;
    case UTF8PROC_CATEGORY_LL:
        *cls = C_LO;
        break;
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
        *cls = C_OL;
        break;
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
        *cls = C_MARK;
        return (size_t)n;
    case UTF8PROC_CATEGORY_CF:
        /* Soft hyphen, ZWJ and bidi controls live inside words; a zero-width space does not. */
        *cls = (cp == 0x200B || cp == 0xFEFF) ? C_SEP : C_MARK;
        return (size_t)n;
    case UTF8PROC_CATEGORY_ND:
        *cls = C_DIG;
        return (size_t)n;
    case UTF8PROC_CATEGORY_PC:
        *cls = C_US;
        return (size_t)n;
    default:
        *cls = C_SEP;
        return (size_t)n;
    }
    *script = script_of(cp);
    return (size_t)n;
}

/* ---- normalisation and stemming ---- */

/* Largest n <= max that ends s on a code point boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

static utf8proc_int32_t fold_yo(utf8proc_int32_t cp, void *data)
{
    MN_UNUSED(data);
    if (cp == 0x451)
        return 0x435;
    if (cp == 0x401)
        return 0x415;
    return cp;
}

/*
 * Normalise src[0..n) into out (MN_TOK_MAX_BYTES bytes): NFKC, case fold,
 * ignorables removed, Cyrillic ё as е. With strip, only remove the marks of
 * already normalised text (café -> cafe). Returns the length (0 if nothing
 * is left).
 */
static size_t normalise_x(mn_tokenizer *t, const char *src, size_t n, uint8_t script, bool strip,
                          char *out)
{
    size_t i = 0;
    while (i < n && (unsigned char)src[i] < 0x80)
        i++;
    if (i == n) { /* ASCII: NFKC is the identity, case folding is tolower */
        if (n > MN_TOK_MAX_BYTES)
            n = MN_TOK_MAX_BYTES;
        for (i = 0; i < n; i++) {
            char c = src[i];
            out[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
        }
        return n;
    }
    n = utf8_cut(src, n, NORM_IN);
    utf8proc_option_t opts = UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_IGNORE;
    if (!strip)
        opts |= UTF8PROC_COMPAT | UTF8PROC_CASEFOLD;
    else
        opts |= UTF8PROC_STRIPMARK;
    utf8proc_custom_func fn = script == S_CYR ? fold_yo : NULL;
    utf8proc_ssize_t r;
    for (;;) {
        r = utf8proc_decompose_custom((const utf8proc_uint8_t *)src, (utf8proc_ssize_t)n, t->cps,
                                      (utf8proc_ssize_t)t->cps_cap, opts, fn, NULL);
        if (r < 0)
            return 0;
        if ((size_t)r <= t->cps_cap)
            break;
        t->cps_cap = (size_t)r;
        t->cps = mn_realloc(t->cps, t->cps_cap * sizeof(*t->cps));
    }
    r = utf8proc_reencode(t->cps, r, opts);
    if (r <= 0)
        return 0;
    const char *enc = (const char *)t->cps;
    size_t m = utf8_cut(enc, (size_t)r, MN_TOK_MAX_BYTES);
    memcpy(out, enc, m);
    return m;
}

static size_t normalise(mn_tokenizer *t, const char *src, size_t n, uint8_t script, char *out)
{
    return normalise_x(t, src, n, script, false, out);
}

/* w without its diacritics (Latin only; the same bytes when it has none). */
static size_t strip_marks(mn_tokenizer *t, const char *w, size_t n, char *out)
{
    size_t i = 0;
    while (i < n && (unsigned char)w[i] < 0x80)
        i++;
    if (i == n) {
        memcpy(out, w, n);
        return n;
    }
    size_t m = normalise_x(t, w, n, S_LATIN, true, out);
    if (m == 0) { /* only marks: keep them rather than lose the word */
        memcpy(out, w, n);
        return n;
    }
    return m;
}

static struct sb_stemmer *stemmer(mn_tokenizer *t, mn_lang lang)
{
    if (!t->stem[lang] && !t->stem_failed[lang]) {
        t->stem[lang] = sb_stemmer_new(stem_algo[lang], "UTF_8");
        t->stem_failed[lang] = t->stem[lang] == NULL;
    }
    return t->stem[lang];
}

static size_t stem_uncached(mn_tokenizer *t, mn_lang lang, const char *w, size_t n, char *out);

/* Stem w[0..n) with lang's stemmer into out; returns the length (w itself without a stemmer). */
static size_t stem(mn_tokenizer *t, mn_lang lang, const char *w, size_t n, char *out)
{
    if (n > STEM_CACHE_WORD)
        return stem_uncached(t, lang, w, n, out);
    uint32_t h = 2166136261u ^ (uint32_t)lang;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)w[i];
        h *= 16777619u;
    }
    stem_slot *e = &t->cache[(h ^ (h >> 16)) & (STEM_CACHE_SLOTS - 1)];
    if (e->wlen == n && e->lang == lang && memcmp(e->word, w, n) == 0) {
        memcpy(out, e->stem, e->slen);
        return e->slen;
    }
    size_t m = stem_uncached(t, lang, w, n, out);
    if (m <= STEM_CACHE_WORD) {
        e->lang = (uint8_t)lang;
        e->wlen = (uint8_t)n;
        e->slen = (uint8_t)m;
        memcpy(e->word, w, n);
        memcpy(e->stem, out, m);
    }
    return m;
}

static size_t stem_uncached(mn_tokenizer *t, mn_lang lang, const char *w, size_t n, char *out)
{
    struct sb_stemmer *st = stemmer(t, lang);
    const sb_symbol *r = st ? sb_stemmer_stem(st, (const sb_symbol *)w, (int)n) : NULL;
    if (!r) {
        memcpy(out, w, n);
        return n;
    }
    size_t m = (size_t)sb_stemmer_length(st);
    if (m == 0 || m > MN_TOK_MAX_BYTES) { /* a stemmer never lengthens; keep the word if it did */
        memcpy(out, w, n);
        return n;
    }
    memcpy(out, r, m);
    return m;
}

static size_t count_cps(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* ---- emission ---- */

/*
 * Emit normalised w as a term: stemmed when it is letters only, of a script
 * with a stemmer, and at least 3 code points. Latin words lose their
 * diacritics, after stemming: the French, German and Spanish stemmers need
 * them (analysées -> analys), the English one gets the bare letters. A Latin
 * word of a non-English text also gets its English stem as a colocated
 * alternative (ALT for a piece, WHOLE for a whole), so a query that could not
 * tell the language (a lone FTS5 term always looks English) still meets it.
 */
static int emit_term(run_ctx *c, const char *w, size_t n, uint8_t script, bool letters,
                     size_t start, size_t end, int coloc)
{
    if (n == 0)
        return 0;
    char bare[MN_TOK_MAX_BYTES], out[MN_TOK_MAX_BYTES], alt[MN_TOK_MAX_BYTES];
    const char *b = w;
    size_t bn = n;
    if (script == S_LATIN) {
        bn = strip_marks(c->t, w, n, bare);
        b = bare;
    }
    if (!letters || (c->flags & MN_TOK_NO_STEM) || (script != S_LATIN && script != S_CYR) ||
        count_cps(b, bn) < 3)
        return c->cb(c->payload, b, bn, start, end, coloc);
    if (script == S_CYR || c->latin == MN_LANG_EN) {
        size_t m = stem(c->t, script == S_CYR ? MN_LANG_RU : MN_LANG_EN, b, bn, out);
        return c->cb(c->payload, out, m, start, end, coloc);
    }
    size_t m = stem(c->t, c->latin, w, n, alt);
    m = strip_marks(c->t, alt, m, out);
    int rc = c->cb(c->payload, out, m, start, end, coloc);
    if (rc)
        return rc;
    size_t am = stem(c->t, MN_LANG_EN, b, bn, alt);
    if (am == m && memcmp(alt, out, m) == 0)
        return 0;
    return c->cb(c->payload, alt, am, start, end,
                 coloc == MN_TOK_COLOC_NONE ? MN_TOK_COLOC_ALT : coloc);
}

/* A word too long or too hash-like to split: one term, normalised, not stemmed. */
static int emit_opaque(run_ctx *c, size_t ws, size_t we)
{
    char out[MN_TOK_MAX_BYTES];
    size_t m = normalise(c->t, c->text + ws, we - ws, S_OTHER, out);
    return m ? c->cb(c->payload, out, m, ws, we, MN_TOK_COLOC_NONE) : 0;
}

static bool is_stop(run_ctx *c, const char *w, size_t n, uint8_t script)
{
    if (c->flags & MN_TOK_KEEP_STOPWORDS)
        return false;
    if (script == S_CYR)
        return mn_lang_is_stopword(MN_LANG_RU, w, n);
    if (script == S_LATIN) {
        char bare[MN_TOK_MAX_BYTES];
        size_t bn = strip_marks(c->t, w, n, bare);
        return mn_lang_is_stopword(c->latin, bare, bn);
    }
    return false;
}

/*
 * Split the word [ws, we) whose first nu code points are in t->units into
 * pieces, then emit: pieces in order, the whole right after the first piece.
 */
static int do_word(run_ctx *c, size_t ws, size_t we, size_t nu, bool overlong)
{
    mn_tokenizer *t = c->t;
    const unit *u = t->units;
    if (overlong)
        return emit_opaque(c, ws, we);

    size_t np = 0;
    bool open = false;
    uint8_t last_cls = C_SEP, last_script = S_NONE;
    size_t last_k = 0, up_run = 0, transitions = 0;
    for (size_t k = 0; k < nu; k++) {
        uint8_t cls = u[k].cls, sc = u[k].script;
        if (cls == C_US) {
            if (open)
                t->pieces[np - 1].u1 = (uint16_t)k;
            open = false;
            last_cls = C_SEP;
            up_run = 0;
            continue;
        }
        if (cls == C_MARK)
            continue; /* belongs to the open piece; a leading mark is skipped */
        size_t split = SIZE_MAX;
        if (!open) {
            split = k;
        } else if ((cls == C_DIG) != (last_cls == C_DIG)) {
            split = k;
            transitions++;
        } else if (cls != C_DIG) {
            if (sc != last_script) {
                split = k;
            } else if (cls == C_UP && last_cls == C_LO) {
                split = k; /* camelCase */
            } else if (cls == C_LO && last_cls == C_UP && up_run >= 2) {
                /* ACRONYMWord: the last capital starts the next piece, unless a single
                 * small letter follows the capitals (URLs, IDsList, IPv4). */
                size_t nk = k + 1;
                while (nk < nu && u[nk].cls == C_MARK)
                    nk++;
                bool single = nk >= nu || u[nk].cls != C_LO;
                if (!single && last_k > t->pieces[np - 1].u0)
                    split = last_k;
            }
        }
        if (split != SIZE_MAX) {
            if (np == MAX_PIECES)
                return emit_opaque(c, ws, we);
            if (open)
                t->pieces[np - 1].u1 = (uint16_t)split;
            t->pieces[np].u0 = (uint16_t)split;
            t->pieces[np].u1 = (uint16_t)nu;
            np++;
            open = true;
        }
        up_run = cls == C_UP ? up_run + 1 : 0;
        last_cls = cls;
        last_script = sc;
        last_k = k;
    }
    if (np == 0)
        return 0;
    if (transitions >= OPAQUE_TRANSITIONS)
        return emit_opaque(c, ws, we);

    for (size_t i = 0; i < np; i++) {
        piece *p = &t->pieces[i];
        p->start = u[p->u0].off;
        p->end = p->u1 < nu ? u[p->u1].off : we;
        p->digit = p->alpha = false;
        p->script = S_NONE;
        for (size_t k = p->u0; k < p->u1; k++) {
            uint8_t cls = u[k].cls;
            if (cls == C_DIG) {
                p->digit = true;
            } else if (cls == C_UP || cls == C_LO || cls == C_OL) {
                p->alpha = true;
                if (p->script == S_NONE)
                    p->script = u[k].script;
            }
        }
        p->nlen = (uint16_t)normalise(t, c->text + p->start, p->end - p->start, p->script,
                                      t->norm + i * MN_TOK_MAX_BYTES);
    }

    const piece *p0 = &t->pieces[0];
    const char *n0 = t->norm;
    if (np == 1) {
        if (p0->alpha && is_stop(c, n0, p0->nlen, p0->script))
            return 0;
        return emit_term(c, n0, p0->nlen, p0->script, p0->alpha && !p0->digit, p0->start, p0->end,
                         MN_TOK_COLOC_NONE);
    }
    for (size_t i = 0; i < np; i++) {
        const piece *p = &t->pieces[i];
        const char *ni = t->norm + i * MN_TOK_MAX_BYTES;
        int rc = emit_term(c, ni, p->nlen, p->script, p->alpha && !p->digit, p->start, p->end,
                           MN_TOK_COLOC_NONE);
        if (rc)
            return rc;
        if (i > 0 || p->nlen == 0)
            continue;
        /* The whole: normalised pieces joined, cut to the term limit. */
        char whole[MN_TOK_MAX_BYTES];
        size_t wn = 0;
        bool letters = true;
        uint8_t script = S_NONE;
        for (size_t j = 0; j < np && wn < MN_TOK_MAX_BYTES; j++) {
            const piece *q = &t->pieces[j];
            size_t take = utf8_cut(t->norm + j * MN_TOK_MAX_BYTES, q->nlen, MN_TOK_MAX_BYTES - wn);
            memcpy(whole + wn, t->norm + j * MN_TOK_MAX_BYTES, take);
            wn += take;
            if (q->digit)
                letters = false;
            if (q->alpha && script == S_NONE)
                script = q->script;
            else if (q->alpha && q->script != script)
                letters = false; /* mixed scripts: no stemmer fits */
        }
        rc = emit_term(c, whole, wn, script, letters, p0->start, t->pieces[np - 1].end,
                       MN_TOK_COLOC_WHOLE);
        if (rc)
            return rc;
    }
    return 0;
}

int mn_tokenizer_run(mn_tokenizer *t, const char *text, size_t len, mn_lang lang, unsigned flags,
                     mn_token_cb cb, void *payload)
{
    if (!t || !cb || !text || len == 0)
        return 0;
    if (t->busy) { /* re-entered from a callback: use a scratch tokenizer */
        mn_tokenizer *tmp = mn_tokenizer_new();
        int rc = mn_tokenizer_run(tmp, text, len, lang, flags, cb, payload);
        mn_tokenizer_free(tmp);
        return rc;
    }
    run_ctx c = {t, text, flags, lang, cb, payload};
    if ((unsigned)c.latin >= MN_LANG__COUNT)
        c.latin = MN_LANG_UNKNOWN;
    if (c.latin == MN_LANG_UNKNOWN)
        c.latin = mn_lang_detect(text, len);
    if (c.latin == MN_LANG_UNKNOWN || c.latin == MN_LANG_RU)
        c.latin = MN_LANG_EN;

    t->busy = true;
    const uint8_t *s = (const uint8_t *)text;
    int rc = 0;
    size_t i = 0;
    while (i < len && rc == 0) {
        uint8_t cls, sc;
        size_t n = classify(s, len, i, &cls, &sc);
        if (cls == C_SEP) {
            i += n;
            continue;
        }
        if (cls == C_CJK) { /* no spaces to split on: each character is a term */
            char out[MN_TOK_MAX_BYTES];
            size_t m = normalise(t, text + i, n, S_OTHER, out);
            if (m)
                rc = cb(payload, out, m, i, i + n, MN_TOK_COLOC_NONE);
            i += n;
            continue;
        }
        size_t ws = i, nu = 0;
        bool overlong = false;
        while (i < len) {
            n = classify(s, len, i, &cls, &sc);
            if (cls == C_SEP || cls == C_CJK)
                break;
            if (nu < MAX_UNITS) {
                t->units[nu].off = i;
                t->units[nu].cls = cls;
                t->units[nu].script = sc;
                nu++;
            } else {
                overlong = true;
            }
            i += n;
        }
        rc = do_word(&c, ws, i, nu, overlong);
    }
    t->busy = false;
    return rc;
}

/* ---- one tokenizer per thread ---- */

static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void tl_free(void *p)
{
    mn_tokenizer_free(p);
}

/* Key destructors run when a thread exits, not for the thread that ends the process (main,
 * returning or calling exit): its tokenizer is freed here, so leak checkers see none. */
static void tl_free_at_exit(void)
{
    mn_tokenizer *t = pthread_getspecific(tl_key);
    if (t) {
        pthread_setspecific(tl_key, NULL);
        mn_tokenizer_free(t);
    }
}

static void tl_init(void)
{
    if (pthread_key_create(&tl_key, tl_free) != 0)
        abort(); /* only when the process is out of keys: nothing sensible to do */
    atexit(tl_free_at_exit);
}

int mn_tokenize(const char *text, size_t len, mn_lang lang, unsigned flags, mn_token_cb cb,
                void *payload)
{
    pthread_once(&tl_once, tl_init);
    mn_tokenizer *t = pthread_getspecific(tl_key);
    if (!t) {
        t = mn_tokenizer_new();
        if (pthread_setspecific(tl_key, t) != 0) {
            int rc = mn_tokenizer_run(t, text, len, lang, flags, cb, payload);
            mn_tokenizer_free(t);
            return rc;
        }
    }
    return mn_tokenizer_run(t, text, len, lang, flags, cb, payload);
}

const char *mn_ident_last_part(const char *name)
{
    const char *p = name;
    for (const char *q = name; *q; q++) {
        if (*q == '.' && q[1])
            p = q + 1;
        else if (q[0] == ':' && q[1] == ':' && q[2])
            p = q + 2;
    }
    return p;
}
