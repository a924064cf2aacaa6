/*
 * cues.c - the words of a sentence and phrase patterns over them (cues.h).
 *
 * The scanner walks code points once: spaces separate; a backtick run
 * opens a code span that ends at the same run (else the backtick is a
 * mark); a scheme or "www." at a word start opens a URL that ends at a
 * space; letters, digits, marks and '_' make words, which also keep the
 * connectors of identifiers ('.', '-', '/', ':' followed by a word
 * character, a "(...)" without spaces right after a name, a leading sigil
 * @ # $ % & or "--"); anything else is a one-character mark. Normalising
 * is per code point: ASCII lower-cased, Cyrillic lower-cased with ё -> е,
 * other letters decomposed, case-folded and stripped of combining marks by
 * utf8proc (Cyrillic is kept out of that, since й would lose its breve).
 *
 * Matching is a small backtracking matcher over the elements of a
 * compiled pattern; slots take the shortest run of tokens that lets the
 * rest of the pattern match (so "replace {S} with {C}" stops S at the first
 * "with"), except a last slot, which runs to the end of the clause. Slots
 * are capped at MAX_SLOT tokens and gaps at their N, so a match costs at
 * most (tokens x MAX_SLOT^slots) steps on a sentence of bounded length.
 */
#include <pthread.h>
#include <utf8proc.h>

#include "common.h"
#include "text/cues.h"

#define MAX_SLOT 24

/* ---------------------------------------------------------------- scanning */

static int32_t next_cp(const char *text, size_t end, size_t i, size_t *n)
{
    const uint8_t *s = (const uint8_t *)text;
    *n = 1;
    if (i >= end)
        return -1;
    if (s[i] < 0x80)
        return s[i];
    int32_t cp = -1;
    utf8proc_ssize_t r = utf8proc_iterate(s + i, (utf8proc_ssize_t)(end - i), &cp);
    if (r <= 0)
        return -1;
    *n = (size_t)r;
    return cp;
}

static bool is_cyr(int32_t cp)
{
    return cp >= 0x400 && cp <= 0x4FF;
}

static bool is_wordch(int32_t cp)
{
    if (cp < 0)
        return false;
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') || cp == '_';
    utf8proc_category_t c = utf8proc_category(cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_MN && c <= UTF8PROC_CATEGORY_ME) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO) || c == UTF8PROC_CATEGORY_PC;
}

static bool is_spacecp(int32_t cp)
{
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v')
        return true;
    if (cp < 0x80 || cp < 0)
        return false;
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

static bool is_upper(int32_t cp)
{
    if (cp < 0x80)
        return cp >= 'A' && cp <= 'Z';
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_LU;
}

static bool is_lower(int32_t cp)
{
    if (cp < 0x80)
        return cp >= 'a' && cp <= 'z';
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_LL;
}

static void norm_cp(mn_buf *b, int32_t cp)
{
    if (cp < 0x80) {
        mn_buf_putc(b, (char)((cp >= 'A' && cp <= 'Z') ? cp | 0x20 : cp));
        return;
    }
    char enc[8];
    if (is_cyr(cp)) {
        int32_t lc = utf8proc_tolower(cp);
        if (lc == 0x451)
            lc = 0x435; /* ё -> е */
        utf8proc_ssize_t m = utf8proc_encode_char(lc, (utf8proc_uint8_t *)enc);
        mn_buf_put(b, enc, (size_t)m);
        return;
    }
    utf8proc_int32_t dec[8];
    int last = 0;
    utf8proc_ssize_t k = utf8proc_decompose_char(
        cp, dec, 8, UTF8PROC_DECOMPOSE | UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK, &last);
    if (k <= 0 || k > 8) {
        utf8proc_ssize_t m = utf8proc_encode_char(utf8proc_tolower(cp), (utf8proc_uint8_t *)enc);
        mn_buf_put(b, enc, (size_t)m);
        return;
    }
    for (utf8proc_ssize_t i = 0; i < k; i++) {
        utf8proc_ssize_t m = utf8proc_encode_char(dec[i], (utf8proc_uint8_t *)enc);
        mn_buf_put(b, enc, (size_t)m);
    }
}

static void push_tok(mn_cue_words *w, mn_cue_tok t)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->toks = mn_realloc(w->toks, w->cap * sizeof(*w->toks));
    }
    w->toks[w->n++] = t;
}

static bool has_prefix(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(s, lit, k) == 0;
}

/* A version-like word: 1.2, 24.04, v3, 2.x, java11, 13 (see MN_TOKF_VERSION). */
static bool versionish(const char *s, size_t n)
{
    if (n == 0)
        return false;
    bool all_digits = true;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] >= '0' && s[i] <= '9'))
            all_digits = false;
    if (all_digits)
        return true;
    for (size_t i = 1; i + 1 < n; i++)
        if (s[i] == '.' && s[i - 1] >= '0' && s[i - 1] <= '9' &&
            ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == 'x'))
            return true;
    if ((s[0] == 'v' || s[0] == 'V') && n > 1 && s[1] >= '0' && s[1] <= '9')
        return true;
    /* letters glued to two or more trailing digits: java11, node18 (not socket2, http2, utf8) */
    size_t d = n;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (d >= 2 && d + 2 <= n) {
        for (size_t i = 0; i < d; i++)
            if (!((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z'))
                return false;
        return true;
    }
    return false;
}

void mn_cue_words_scan(mn_cue_words *w, const char *text, size_t start, size_t end)
{
    w->n = 0;
    mn_buf_clear(&w->norm);
    bool quoted = false;
    size_t i = start;
    while (i < end) {
        size_t n;
        int32_t cp = next_cp(text, end, i, &n);
        if (cp < 0 || is_spacecp(cp)) {
            i += n;
            continue;
        }
        mn_cue_tok t;
        memset(&t, 0, sizeof(t));
        t.start = (uint32_t)i;
        if (cp == '`') {
            size_t run = 0;
            while (i + run < end && text[i + run] == '`')
                run++;
            size_t j = i + run, close = 0;
            while (j < end) {
                if (text[j] == '`') {
                    size_t r = 0;
                    while (j + r < end && text[j + r] == '`')
                        r++;
                    if (r == run) {
                        close = j + r;
                        break;
                    }
                    j += r;
                } else {
                    j++;
                }
            }
            if (close) {
                t.end = (uint32_t)close;
                t.kind = MN_TOK_CODE;
                t.flags = MN_TOKF_IDENT | (quoted ? MN_TOKF_QUOTED : 0);
                t.norm = (uint32_t)w->norm.len;
                push_tok(w, t);
                i = close;
                continue;
            }
        }
        if ((cp == 'h' || cp == 'w' || cp == 'f' || cp == 'H' || cp == 'W') &&
            (has_prefix(text + i, end - i, "http://") ||
             has_prefix(text + i, end - i, "https://") || has_prefix(text + i, end - i, "www.") ||
             has_prefix(text + i, end - i, "ftp://"))) {
            size_t j = i;
            while (j < end && !is_spacecp((unsigned char)text[j]) && text[j] != '>' &&
                   text[j] != '"' && text[j] != '\n')
                j++;
            while (j > i && strchr(".,;:!?)]'", text[j - 1]))
                j--;
            t.end = (uint32_t)j;
            t.kind = MN_TOK_URL;
            t.norm = (uint32_t)w->norm.len;
            push_tok(w, t);
            i = j;
            continue;
        }
        /* a word, possibly after a sigil or "--" */
        size_t j = i;
        bool sigil = false;
        {
            size_t m;
            int32_t nx = next_cp(text, end, i + n, &m);
            if ((cp == '@' || cp == '#' || cp == '$' || cp == '%' || cp == '&' || cp == 0x2116) &&
                is_wordch(nx)) {
                sigil = true;
                j = i + n;
            } else if (cp == '-' && (i == start || is_spacecp((uint8_t)text[i - 1]) ||
                                     strchr("(\"'[", text[i - 1]))) {
                /* a command-line option: -g, -6e, --help, -Xdoclint:all */
                size_t k = i + 1;
                if (nx == '-')
                    k++;
                size_t m2;
                int32_t nx2 = next_cp(text, end, k, &m2);
                if (is_wordch(nx2) && nx2 != '_') {
                    sigil = true;
                    j = k;
                }
            }
        }
        int32_t first = sigil ? next_cp(text, end, j, &n) : cp;
        if (is_wordch(first)) {
            t.kind = MN_TOK_WORD;
            t.norm = (uint32_t)w->norm.len;
            uint8_t fl = sigil ? MN_TOKF_IDENT : 0;
            if (is_upper(first))
                fl |= MN_TOKF_CAP;
            int32_t prev = -1;
            while (j < end) {
                size_t m;
                int32_t c = next_cp(text, end, j, &m);
                if (is_wordch(c)) {
                    if (c == '_')
                        fl |= MN_TOKF_IDENT;
                    else if (c >= '0' && c <= '9')
                        fl |= MN_TOKF_DIGIT;
                    else if (is_cyr(c))
                        fl |= MN_TOKF_CYR;
                    else if (c < 0x250 && c >= 'A')
                        fl |= MN_TOKF_LATIN;
                    if (prev >= 0 && is_lower(prev) && is_upper(c))
                        fl |= MN_TOKF_IDENT; /* camelCase */
                    norm_cp(&w->norm, c);
                    prev = c;
                    j += m;
                    continue;
                }
                size_t m2;
                int32_t after = next_cp(text, end, j + m, &m2);
                if ((c == '.' || c == '-' || c == '/' || c == '+') && is_wordch(after)) {
                    if (c != '-')
                        fl |= MN_TOKF_IDENT;
                    mn_buf_putc(&w->norm, (char)c);
                    prev = c;
                    j += m;
                    continue;
                }
                if (c == ':' && after == ':') {
                    size_t m3;
                    int32_t a3 = next_cp(text, end, j + 2, &m3);
                    if (is_wordch(a3)) {
                        fl |= MN_TOKF_IDENT;
                        mn_buf_put(&w->norm, "::", 2);
                        j += 2;
                        continue;
                    }
                }
                if (c == '(') {
                    /* getChild(i), render(): a call written without spaces; not the scope of a
                       conventional commit ("fix(hover): ...") */
                    size_t k = j + 1;
                    while (k < end && k < j + 40 && text[k] != ')' && text[k] != '(' &&
                           !is_spacecp((uint8_t)text[k]))
                        k++;
                    if (k < end && text[k] == ')' &&
                        !(k + 1 < end && (text[k + 1] == ':' || text[k + 1] == '!'))) {
                        fl |= MN_TOKF_IDENT;
                        mn_buf_put(&w->norm, text + j, k + 1 - j);
                        j = k + 1;
                        prev = ')';
                        continue;
                    }
                }
                break;
            }
            t.end = (uint32_t)j;
            t.norm_len = (uint32_t)(w->norm.len - t.norm);
            if (!sigil && versionish(w->norm.ptr + t.norm, t.norm_len))
                fl |= MN_TOKF_VERSION;
            if (quoted)
                fl |= MN_TOKF_QUOTED;
            t.flags = fl;
            push_tok(w, t);
            i = j;
            /* an apostrophe followed by a letter splits the word: skip it */
            size_t m;
            int32_t c = next_cp(text, end, i, &m);
            if (c == '\'' || c == 0x2019) {
                size_t m2;
                if (is_wordch(next_cp(text, end, i + m, &m2)) && m2 > 0)
                    i += m;
            }
            continue;
        }
        /* a mark */
        t.kind = MN_TOK_PUNCT;
        t.end = (uint32_t)(i + n);
        t.punct = cp < 0x10000 ? (uint16_t)cp : 0;
        t.norm = (uint32_t)w->norm.len;
        if (cp == '"' || cp == 0xAB || cp == 0xBB || cp == 0x201C || cp == 0x201D || cp == 0x201E) {
            if (cp == '"')
                quoted = !quoted;
            else
                quoted = (cp == 0xAB || cp == 0x201C || cp == 0x201E);
        }
        norm_cp(&w->norm, cp);
        t.norm_len = (uint32_t)(w->norm.len - t.norm);
        push_tok(w, t);
        i += n;
    }
}

void mn_cue_words_release(mn_cue_words *w)
{
    free(w->toks);
    w->toks = NULL;
    w->n = w->cap = 0;
    mn_buf_release(&w->norm);
}

const char *mn_cue_norm(const mn_cue_words *w, size_t i, size_t *len)
{
    *len = w->toks[i].norm_len;
    return w->norm.ptr + w->toks[i].norm;
}

static bool lit_eq(const char *s, size_t n, const char *lit, size_t litlen, bool prefix)
{
    if (prefix)
        return n >= litlen && memcmp(s, lit, litlen) == 0;
    return n == litlen && memcmp(s, lit, litlen) == 0;
}

bool mn_cue_is(const mn_cue_words *w, size_t i, const char *lit)
{
    if (i >= w->n || w->toks[i].kind != MN_TOK_WORD)
        return false;
    size_t n, l = strlen(lit);
    const char *s = mn_cue_norm(w, i, &n);
    bool prefix = l > 0 && lit[l - 1] == '*';
    return lit_eq(s, n, lit, prefix ? l - 1 : l, prefix);
}

bool mn_cue_is_boundary(const mn_cue_tok *t)
{
    if (t->kind != MN_TOK_PUNCT)
        return false;
    switch (t->punct) {
    case ',':
    case ';':
    case ':':
    case '(':
    case ')':
    case '[':
    case ']':
    case '.':
    case '!':
    case '?':
    case '-':
    case 0x2013: /* – */
    case 0x2014: /* — */
    case 0x2026: /* … */
    case 0x2192: /* → */
        return true;
    default:
        return false;
    }
}

/* ---------------------------------------------------------------- patterns */

enum { E_WORDS, E_GAP, E_INF, E_ANCHOR, E_SLOT, E_PUNCT };

typedef struct {
    const char *s;
    size_t len;
    bool prefix; /* word* : the word starts with s */
    bool suffix; /* *word : the word ends with s */
} alt_t;

typedef struct {
    int type;
    int slot;    /* E_SLOT: MN_SLOT_* */
    int gap;     /* E_GAP: N */
    bool commas; /* E_GAP written ~~N: may cross commas */
    int32_t cp;  /* E_PUNCT */
    size_t nalt;
    alt_t *alts; /* E_WORDS: the alternatives (owned) */
} elem_t;

struct mn_cue_pat {
    char *src;
    size_t n;
    elem_t *e;
};

mn_cue_pat *mn_cue_pat_compile(const char *src)
{
    mn_cue_pat *p = mn_calloc(1, sizeof(*p));
    p->src = mn_strdup(src);
    size_t cap = 0;
    char *save = NULL;
    for (char *tok = strtok_r(p->src, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (p->n == cap) {
            cap = cap ? cap * 2 : 8;
            p->e = mn_realloc(p->e, cap * sizeof(*p->e));
        }
        elem_t *e = &p->e[p->n];
        memset(e, 0, sizeof(*e));
        size_t tl = strlen(tok);
        if (strcmp(tok, "^") == 0) {
            e->type = E_ANCHOR;
        } else if (strcmp(tok, "@inf") == 0) {
            e->type = E_INF;
        } else if (tok[0] == '~' && tl > 1) {
            e->type = E_GAP;
            e->commas = tok[1] == '~';
            e->gap = (int)strtol(tok + 1 + e->commas, NULL, 10);
            if (e->gap <= 0 || e->gap > 12)
                goto bad;
        } else if (tl == 3 && tok[0] == '{' && tok[2] == '}') {
            e->type = E_SLOT;
            e->slot = tok[1] == 'S' ? MN_SLOT_S : tok[1] == 'A' ? MN_SLOT_A : MN_SLOT_C;
            if (tok[1] != 'S' && tok[1] != 'A' && tok[1] != 'C')
                goto bad;
        } else if (tl == 1 && strchr(",;:()", tok[0])) {
            e->type = E_PUNCT;
            e->cp = tok[0];
        } else {
            e->type = E_WORDS;
            size_t bars = 1;
            for (const char *q = tok; *q; q++)
                bars += *q == '|';
            e->alts = mn_calloc(bars, sizeof(*e->alts));
            p->n++; /* owned by p from here on, so that `bad` frees it */
            char *save2 = NULL;
            for (char *a = strtok_r(tok, "|", &save2); a; a = strtok_r(NULL, "|", &save2)) {
                size_t al = strlen(a);
                bool suffix = al > 1 && a[0] == '*';
                bool prefix = !suffix && al > 1 && a[al - 1] == '*';
                e->alts[e->nalt].s = suffix ? a + 1 : a;
                e->alts[e->nalt].len = (prefix || suffix) ? al - 1 : al;
                e->alts[e->nalt].prefix = prefix;
                e->alts[e->nalt].suffix = suffix;
                e->nalt++;
            }
            if (e->nalt == 0)
                goto bad;
            continue;
        }
        p->n++;
    }
    if (p->n == 0)
        goto bad;
    return p;
bad:
    mn_error_set(MN_EINVAL, "cue pattern '%s' does not parse: see the syntax in src/text/cues.h",
                 src);
    mn_cue_pat_free(p);
    return NULL;
}

void mn_cue_pat_free(mn_cue_pat *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->e[i].alts);
    free(p->src);
    free(p->e);
    free(p);
}

static bool word_matches(const elem_t *e, const mn_cue_words *w, size_t i)
{
    const mn_cue_tok *t = &w->toks[i];
    if (t->kind != MN_TOK_WORD || (t->flags & MN_TOKF_QUOTED))
        return false;
    size_t n;
    const char *s = mn_cue_norm(w, i, &n);
    for (size_t k = 0; k < e->nalt; k++) {
        const alt_t *a = &e->alts[k];
        if (a->suffix ? (n > a->len && memcmp(s + n - a->len, a->s, a->len) == 0)
                      : lit_eq(s, n, a->s, a->len, a->prefix))
            return true;
    }
    return false;
}

static bool is_infinitive(const mn_cue_words *w, size_t i)
{
    const mn_cue_tok *t = &w->toks[i];
    if (t->kind != MN_TOK_WORD || !(t->flags & MN_TOKF_CYR) || (t->flags & MN_TOKF_QUOTED))
        return false;
    size_t n;
    const char *s = mn_cue_norm(w, i, &n);
    static const char *const ends[] = {"ться", "ть", "ти", "чь"};
    /* nouns and adverbs with the same endings: -ость/-есть (скорость, возможность, есть) and
       the common rest */
    static const char *const not_ends[] = {"ость", "есть"};
    static const char *const nouns[] = {
        "путь",   "суть",  "часть",  "сеть",   "печать",   "память",   "опять", "мать",
        "нить",   "ртуть", "власть", "смерть", "пусть",    "чуть",     "кость", "гость",
        "десять", "пять",  "шесть",  "девять", "двадцать", "тридцать", "очень"};
    if (n < 6) /* at least three Cyrillic letters */
        return false;
    for (size_t k = 0; k < MN_ARRAY_SIZE(nouns); k++)
        if (n == strlen(nouns[k]) && memcmp(s, nouns[k], n) == 0)
            return false;
    for (size_t k = 0; k < MN_ARRAY_SIZE(not_ends); k++) {
        size_t l = strlen(not_ends[k]);
        if (n > l && memcmp(s + n - l, not_ends[k], l) == 0)
            return false;
    }
    for (size_t k = 0; k < MN_ARRAY_SIZE(ends); k++) {
        size_t l = strlen(ends[k]);
        if (n > l && memcmp(s + n - l, ends[k], l) == 0)
            return true;
    }
    return false;
}

typedef struct {
    const mn_cue_pat *p;
    const mn_cue_words *w;
    size_t to;
    const bool *clause_start;
    mn_cue_match *m;
} ctx_t;

static bool match_at(ctx_t *c, size_t ei, size_t ti)
{
    if (ei == c->p->n) {
        c->m->last = ti - 1;
        return true;
    }
    const elem_t *e = &c->p->e[ei];
    switch (e->type) {
    case E_ANCHOR:
        if (c->clause_start ? !c->clause_start[ti] : ti != 0)
            return false;
        return match_at(c, ei + 1, ti);
    case E_WORDS:
        if (ti >= c->to || !word_matches(e, c->w, ti))
            return false;
        return match_at(c, ei + 1, ti + 1);
    case E_INF:
        if (ti >= c->to || !is_infinitive(c->w, ti))
            return false;
        return match_at(c, ei + 1, ti + 1);
    case E_PUNCT:
        if (ti >= c->to || c->w->toks[ti].kind != MN_TOK_PUNCT || c->w->toks[ti].punct != e->cp)
            return false;
        return match_at(c, ei + 1, ti + 1);
    case E_GAP:
        for (int k = 0; k <= e->gap; k++) {
            if (k > 0) {
                size_t g = ti + (size_t)k - 1;
                if (g >= c->to)
                    return false;
                const mn_cue_tok *t = &c->w->toks[g];
                if (t->kind == MN_TOK_PUNCT && !(e->commas && t->punct == ','))
                    return false;
            }
            if (match_at(c, ei + 1, ti + (size_t)k))
                return true;
        }
        return false;
    case E_SLOT: {
        bool last = ei + 1 == c->p->n;
        size_t k = 0;
        while (ti + k < c->to && k < MAX_SLOT) {
            const mn_cue_tok *t = &c->w->toks[ti + k];
            if (t->kind == MN_TOK_PUNCT && t->punct == '(' && k > 0 && !last) {
                /* a parenthesis closed soon is part of the slot: "yarn (v1)" */
                size_t q = ti + k + 1;
                while (q < c->to && q < ti + k + 10 &&
                       !(c->w->toks[q].kind == MN_TOK_PUNCT &&
                         (c->w->toks[q].punct == ')' || c->w->toks[q].punct == '(')))
                    q++;
                if (q < c->to && c->w->toks[q].punct == ')' && c->w->toks[q].kind == MN_TOK_PUNCT &&
                    q + 1 - ti <= MAX_SLOT) {
                    k = q + 1 - ti;
                } else {
                    break;
                }
            } else if (mn_cue_is_boundary(t)) {
                break;
            } else {
                k++;
            }
            if (!last) {
                long sf = c->m->slot_first[e->slot], sl = c->m->slot_last[e->slot];
                c->m->slot_first[e->slot] = (long)ti;
                c->m->slot_last[e->slot] = (long)(ti + k - 1);
                if (match_at(c, ei + 1, ti + k))
                    return true;
                c->m->slot_first[e->slot] = sf;
                c->m->slot_last[e->slot] = sl;
            }
        }
        if (!last || k == 0)
            return false;
        c->m->slot_first[e->slot] = (long)ti;
        c->m->slot_last[e->slot] = (long)(ti + k - 1);
        c->m->last = ti + k - 1;
        return true;
    }
    default:
        return false;
    }
}

bool mn_cue_pat_find(const mn_cue_pat *p, const mn_cue_words *w, size_t from, size_t to,
                     const bool *clause_start, mn_cue_match *m)
{
    if (!p || to > w->n)
        return false;
    bool lead_slot = p->e[0].type == E_SLOT;
    for (size_t s = from; s < to; s++) {
        if (lead_slot && !(clause_start ? clause_start[s] : s == 0))
            continue;
        for (int k = 0; k < MN_SLOT__COUNT; k++)
            m->slot_first[k] = m->slot_last[k] = -1;
        ctx_t c = {p, w, to, clause_start, m};
        if (match_at(&c, 0, s)) {
            m->first = s;
            if (m->last < s) /* a pattern of anchors only */
                m->last = s;
            return true;
        }
    }
    return false;
}

mn_cue_pat **mn_cue_pats_compile(const char *const *srcs, size_t n)
{
    mn_cue_pat **out = mn_calloc(n ? n : 1, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        out[i] = mn_cue_pat_compile(srcs[i]);
        if (!out[i]) {
            fprintf(stderr, "mnemo: %s\n", mn_error_last());
            abort();
        }
    }
    return out;
}
