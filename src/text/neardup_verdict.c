/*
 * neardup_verdict.c - the verdict on a pair of texts: duplicate, conflicting
 * or distinct (interface in neardup.h).
 *
 * Two readings of each text:
 *  - its content terms (neardup_terms.h: stemmed, stop words dropped) for the
 *    similarity: jw = Jaccard of the term sets, jc = Jaccard of the
 *    character 4-gram sets of the term streams, similarity = (jw + jc) / 2;
 *  - its surface words (below) for what similarity cannot see: a word is a
 *    run of letters, digits, marks and '_', with '.', '-', '/' and
 *    apostrophes kept between two such characters ("2.31.0", "foo.py",
 *    "don't", "n'est"), case-folded, marks stripped ("plutôt" -> "plutot").
 *
 * The verdict, in this order:
 *  1. the same exact fingerprint: duplicate;
 *  2. contained = the smaller text has >= CONTAIN_MIN_TERMS terms and
 *     >= contain_min of them are in the larger; similarity < near_min and
 *     not contained: distinct;
 *  3. a conflict: conflicting. The signals, each cheap and language-light
 *     (for a pair near only by containment, the smaller text is compared with
 *     the larger one's sentences that say the same, swords_view):
 *     - revert: the parity of "revert"/"undo"/"roll back"/"back out" words
 *       differs ('Revert "X"' against X; 'Revert "Revert "X""' is X again;
 *       "reverts commit <sha>" restates the subject and does not count);
 *     - negation: the count of negation words differs (not, no, never, nor,
 *       cannot, *n't; не, нет, ни, никогда, нельзя; ne, n'*, pas, jamais,
 *       aucun, rien; nicht, kein, nie). "No longer" counts here too;
 *     - alternatives: around "instead of", "rather than", "in favo(u)r of",
 *       "vs", "вместо", "au lieu de", "plutôt que" (kind ALT) and "from X to
 *       Y", "replace X with/by Y", "X -> Y" (kind CHANGE) the nearest
 *       content words left (X) and right (Y) are taken; the same kind with X
 *       and Y swapped, or with one of them changed, is a conflict; so is one
 *       text replacing Y by X while the other names Y and not X;
 *     - numbers: a number or version present only in a and another only in b
 *       (a changed value; a number on one side only is more detail, not a
 *       conflict). Numbers are digit groups with '.', ',', ':' or '-' inside
 *       ("2.31.0", "2024-01-15"), a leading "v" dropped, a unit suffix
 *       dropped ("30ms" -> 30), a name ending in digits kept whole
 *       ("python3"); "#123" references and hex hashes are not numbers;
 *     - units: a number both sides share, with a unit only one side gives it
 *       and another only the other gives it ("30 seconds" / "30 minutes");
 *     - opposites: a word only in one text whose opposite is only in the
 *       other ("pass" / "fail"; the list `opposites`);
 *     - order: nearly the same terms (jw >= ORDER_MIN_JW) with two blocks
 *       swapped around a pivot ("by value, not by index" / "by index, not by
 *       value"; blocks_swapped).
 *     The newer side is the one with more change words ("no longer", "now",
 *     "instead", "switched", "replaced", "migrated", "deprecated",
 *     "anymore", "теперь", "вместо", "désormais", "maintenant"...), a revert
 *     counting for its side; none when they tie.
 *  4. another subject, distinct: an identifier (a word with '_', '.', '/',
 *     a digit after letters, an inner capital, or an option after '-' or
 *     '--'; paths compared by their last part) only in a and another only in
 *     b ("fix typo in foo.py" / "fix typo in bar.py"); or 1 to
 *     SUBST_MAX_TERMS terms replaced on each side (jw >= SUBST_MIN_JW) whose
 *     words may name a subject (not stop words, numbers or common words:
 *     "during collection" / "during teardown");
 *  5. similarity >= dup_min, or contained: duplicate; otherwise distinct.
 * Thresholds: MN_NEARDUP_OPTS_INIT, chosen by the ablation in
 * docs/internals/neardup.md. Nothing here is language-specific beyond the
 * short word lists above.
 */
#include <utf8proc.h>
#include <xxhash.h>

#include "common.h"
#include "text/neardup.h"
#include "text/neardup_terms.h"
#include "text/tokenize.h"
#include "util/buf.h"

/* Blocks swapped count only between texts whose term sets are this close,
 * and only blocks of at most SWAP_MAX_BLOCK terms (an alternative is a word
 * or a short phrase; a clause moved whole is a rewording). */
#define ORDER_MIN_JW   0.8
#define SWAP_MAX_BLOCK 6
/* A substitution: at most this many terms replaced on each side, term sets this close. */
#define SUBST_MAX_TERMS 3
#define SUBST_MIN_JW    0.5
/* Containment: the smaller text has at least this many terms (shorter ones say too little). */
#define CONTAIN_MIN_TERMS 4

/* ---- surface words ---- */

enum {
    W_DIGIT = 1,   /* has a digit */
    W_ALPHA = 2,   /* has a letter */
    W_IDENT = 4,   /* looks like an identifier or a path */
    W_HASHREF = 8, /* right after '#': an issue or PR reference */
    W_OPTION = 16  /* after "-" or "--" at a word start: a command-line option */
};

typedef struct {
    size_t off, len; /* folded form in the words' buffer */
    unsigned flags;
    bool arrow_before; /* "->", "=>" or "→" between the previous word and this one */
    unsigned sentence; /* number of the sentence or line the word is in, from 0 */
    size_t start, end; /* byte span in the text */
} sword;

typedef struct {
    mn_buf folded; /* every word's folded form, NUL-separated */
    sword *w;
    size_t n, cap;
    uint64_t *hashes; /* xxh3 of every folded word, sorted (has_word) */
    bool view;        /* folded belongs to another swords (swords_view) */
} swords;

static bool word_cp(utf8proc_int32_t cp)
{
    if (cp < 0x80) /* ASCII without a property lookup */
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
               cp == '_';
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:
        return true;
    default:
        return false;
    }
}

static bool connector_cp(utf8proc_int32_t cp)
{
    return cp == '.' || cp == '-' || cp == '/' || cp == '\'' || cp == 0x2019;
}

/* Code point at text[i] (or -1 for a byte that is not UTF-8) and its length. */
static utf8proc_int32_t cp_at(const char *text, size_t len, size_t i, size_t *n)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t k =
        utf8proc_iterate((const utf8proc_uint8_t *)text + i, (utf8proc_ssize_t)(len - i), &cp);
    if (k <= 0) {
        *n = 1;
        return -1;
    }
    *n = (size_t)k;
    return cp;
}

static void fold_put(mn_buf *b, utf8proc_int32_t cp)
{
    if (cp < 0x80) {
        mn_buf_putc(b, (char)(cp >= 'A' && cp <= 'Z' ? cp - 'A' + 'a' : cp));
        return;
    }
    if (cp == 0x2019)
        cp = '\'';
    utf8proc_int32_t dec[32];
    int last = 0;
    utf8proc_ssize_t m = utf8proc_decompose_char(
        cp, dec, 32, UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK | UTF8PROC_IGNORE,
        &last);
    if (m < 0 || m > 32) {
        dec[0] = cp;
        m = 1;
    }
    for (utf8proc_ssize_t k = 0; k < m; k++) {
        utf8proc_int32_t c = dec[k] == 0x0451 ? 0x0435 : dec[k]; /* ё -> е */
        utf8proc_uint8_t enc[4];
        utf8proc_ssize_t e = utf8proc_encode_char(c, enc);
        mn_buf_put(b, enc, (size_t)e);
    }
}

static bool is_hex_hash(const char *s, size_t n)
{
    if (n < 7)
        return false;
    bool digit = false, letter = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            digit = true;
        else if (c >= 'a' && c <= 'f')
            letter = true;
        else
            return false;
    }
    return digit && letter;
}

static void swords_read(swords *sw, const char *text, size_t len)
{
    size_t i = 0;
    bool arrow = false;
    unsigned sentence = 0;
    bool sentence_end = false;
    while (i < len) {
        size_t n;
        utf8proc_int32_t cp = cp_at(text, len, i, &n);
        if (cp < 0 || !word_cp(cp)) {
            if (cp == 0x2192 || ((cp == '-' || cp == '=') && i + 1 < len && text[i + 1] == '>'))
                arrow = true;
            if (cp == '.' || cp == '!' || cp == '?' || cp == '\n' || cp == ';')
                sentence_end = true;
            i += n;
            continue;
        }
        if (sentence_end && sw->n)
            sentence++;
        sentence_end = false;
        if (sw->n == sw->cap) {
            sw->cap = sw->cap ? sw->cap * 2 : 64;
            sw->w = mn_realloc(sw->w, sw->cap * sizeof(*sw->w));
        }
        sword *w = &sw->w[sw->n++];
        memset(w, 0, sizeof(*w));
        w->arrow_before = arrow;
        w->sentence = sentence;
        w->start = i;
        arrow = false;
        w->off = sw->folded.len;
        if (i > 0 && text[i - 1] == '#')
            w->flags |= W_HASHREF;
        if (i > 0 && text[i - 1] == '-' && (i == 1 || text[i - 2] == '-' || text[i - 2] == ' '))
            w->flags |= W_OPTION; /* -k, --capture: a command-line option names one thing */
        bool prev_lower = false;
        size_t letters_then_digit = 0, alpha_seen = 0;
        while (i < len) {
            cp = cp_at(text, len, i, &n);
            if (cp < 0)
                break;
            if (!word_cp(cp)) {
                size_t n2;
                utf8proc_int32_t next = i + n < len ? cp_at(text, len, i + n, &n2) : -1;
                if (!connector_cp(cp) || next < 0 || !word_cp(next))
                    break;
                if (cp != '\'' && cp != 0x2019 && cp != '-')
                    w->flags |= W_IDENT; /* foo.py, src/x, but not 2.31.0 (cleared below) */
                fold_put(&sw->folded, cp);
                prev_lower = false;
                i += n;
                continue;
            }
            utf8proc_category_t cat = utf8proc_category(cp);
            if (cat == UTF8PROC_CATEGORY_ND) {
                w->flags |= W_DIGIT;
                if (alpha_seen)
                    letters_then_digit = 1;
            } else if (cp == '_') {
                w->flags |= W_IDENT;
            } else if (cat <= UTF8PROC_CATEGORY_LO) {
                w->flags |= W_ALPHA;
                alpha_seen = 1;
                if (cat == UTF8PROC_CATEGORY_LU && prev_lower)
                    w->flags |= W_IDENT; /* camelCase */
            }
            prev_lower = cat == UTF8PROC_CATEGORY_LL;
            fold_put(&sw->folded, cp);
            i += n;
        }
        w->len = sw->folded.len - w->off;
        w->end = i;
        mn_buf_putc(&sw->folded, '\0');
        const char *f = sw->folded.ptr + w->off;
        if (letters_then_digit || (w->flags & W_OPTION))
            w->flags |= W_IDENT;
        if (!(w->flags & W_ALPHA) || (f[0] >= '0' && f[0] <= '9') || is_hex_hash(f, w->len))
            w->flags &= ~(unsigned)W_IDENT; /* numbers, versions and hashes are not names */
    }
    sw->hashes = mn_malloc((sw->n + 1) * sizeof(*sw->hashes));
    for (size_t k = 0; k < sw->n; k++)
        sw->hashes[k] = XXH3_64bits(sw->folded.ptr + sw->w[k].off, sw->w[k].len);
    mn_neardup__sort_unique(sw->hashes, sw->n);
}

static void swords_release(swords *sw)
{
    if (!sw->view)
        mn_buf_release(&sw->folded);
    free(sw->w);
    free(sw->hashes);
    memset(sw, 0, sizeof(*sw));
}

static const char *wtext(const swords *sw, size_t i)
{
    return sw->folded.ptr + sw->w[i].off;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x);

/*
 * The sentences of big that say what small says: those at least half of
 * whose content terms (big_terms, read from the same text) are in small's
 * term set. When a short text is contained in a long one (a commit's
 * subject, and the same subject with the pull request's description), the
 * signals compare the short text with these sentences only: a "not" in a
 * paragraph the short text does not have is no negation of what it says.
 */
static void swords_view(swords *out, const swords *big, const mn_neardup_terms *big_terms,
                        const uint64_t *small_set, size_t n_small)
{
    memset(out, 0, sizeof(*out));
    out->view = true;
    out->folded = big->folded;
    out->w = mn_malloc((big->n + 1) * sizeof(*out->w));
    size_t t = 0; /* big's terms are in text order, as its words are */
    for (size_t i = 0; i < big->n;) {
        size_t end = i, content = 0, shared = 0;
        while (end < big->n && big->w[end].sentence == big->w[i].sentence)
            end++;
        size_t from = big->w[i].start, to = big->w[end - 1].end;
        while (t < big_terms->n_terms && big_terms->spans[2 * t] < from)
            t++;
        for (; t < big_terms->n_terms && big_terms->spans[2 * t] < to; t++) {
            content++;
            shared += in_sorted(small_set, n_small, big_terms->terms[t]);
        }
        if (content && 2 * shared >= content)
            for (size_t k = i; k < end; k++)
                out->w[out->n++] = big->w[k];
        i = end;
    }
    out->hashes = mn_malloc((out->n + 1) * sizeof(*out->hashes));
    for (size_t k = 0; k < out->n; k++)
        out->hashes[k] = XXH3_64bits(out->folded.ptr + out->w[k].off, out->w[k].len);
    mn_neardup__sort_unique(out->hashes, out->n);
}

static bool weq(const swords *sw, size_t i, const char *s)
{
    return i < sw->n && strcmp(wtext(sw, i), s) == 0;
}

static bool in_list(const char *w, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (w[0] == list[i][0] && strcmp(w, list[i]) == 0) /* the first byte spares most calls */
            return true;
    return false;
}

static bool ends_with(const char *w, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && memcmp(w + n - k, suffix, k) == 0;
}

/* ---- signals ---- */

static const char *const negations[] = {"not", "no", "never", "nor", "cannot", "neither", "nobody",
                                        "nothing", "nowhere",
                                        /* Russian */
                                        "не", "нет", "ни", "никогда", "нельзя", "ничего",
                                        /* French ("ne ... pas" counts twice on both sides alike) */
                                        "ne", "pas", "jamais", "aucun", "aucune", "rien",
                                        /* German, Spanish */
                                        "nicht", "kein", "keine", "nie", "nunca", NULL};

static int count_negations(const swords *sw)
{
    int count = 0;
    for (size_t i = 0; i < sw->n; i++) {
        const char *w = wtext(sw, i);
        size_t n = sw->w[i].len;
        if (in_list(w, negations) || ends_with(w, n, "n't") ||
            (n > 2 && w[0] == 'n' && w[1] == '\''))
            count++;
    }
    return count;
}

static bool is_revert(const swords *sw, size_t i)
{
    const char *w = wtext(sw, i);
    /* "This reverts commit <sha>" names the revert its subject already made */
    if (weq(sw, i + 1, "commit") ||
        (i + 1 < sw->n && is_hex_hash(wtext(sw, i + 1), sw->w[i + 1].len)))
        return false;
    if (strncmp(w, "revert", 6) == 0 || strcmp(w, "undo") == 0 || strcmp(w, "undid") == 0 ||
        strcmp(w, "rollback") == 0 || strcmp(w, "backout") == 0)
        return true;
    if ((strncmp(w, "roll", 4) == 0 || strncmp(w, "back", 4) == 0) &&
        (weq(sw, i + 1, "back") || weq(sw, i + 1, "out")) && strcmp(w, "back") != 0)
        return true;
    return false;
}

static int count_reverts(const swords *sw)
{
    int count = 0;
    for (size_t i = 0; i < sw->n; i++)
        count += is_revert(sw, i);
    return count;
}

static const char *const change_words[] = {
    "now", "instead", "anymore", "switched", "switch", "switching", "replaced", "replaces",
    "migrated", "deprecated", "superseded", "supersedes", "nowadays", "henceforth",
    /* Russian */
    "теперь", "вместо", "отныне", "заменили", "заменен", "заменена",
    /* French */
    "desormais", "maintenant", "remplace", "remplacee", NULL};

static int count_change_words(const swords *sw)
{
    int count = 0;
    bool french_ne = false;
    for (size_t i = 0; i < sw->n; i++) {
        const char *w = wtext(sw, i);
        if (strcmp(w, "ne") == 0 || (sw->w[i].len > 2 && w[0] == 'n' && w[1] == '\''))
            french_ne = true;
        if (in_list(w, change_words))
            count++;
        else if (strcmp(w, "longer") == 0 && i > 0 && weq(sw, i - 1, "no"))
            count++; /* no longer */
        else if (strcmp(w, "plus") == 0 && french_ne)
            count++; /* ne ... plus */
        else if (strcmp(w, "больше") == 0 && weq(sw, i + 1, "не"))
            count++;
        else if (strcmp(w, "moved") == 0 && weq(sw, i + 1, "to"))
            count++;
    }
    return count + count_reverts(sw);
}

/*
 * Opposites: a word of one column in one text only and its partner in the
 * other text only is a changed conclusion ("tests pass" / "tests fail").
 * Entries are stems matched with an inflection: the word is the stem plus
 * one of "", s, es, e, ed, d, ing, er, ly ("enabl" matches enable, enabled,
 * enabling). General pairs of English (and a few Russian and French ones),
 * not read off the labelled set.
 */
static const char *const opposites[][2] = {
    {"pass", "fail"},
    {"work", "fail"},
    {"succeed", "fail"},
    {"success", "failure"},
    {"enabl", "disabl"},
    {"allow", "deny"},
    {"allow", "forbid"},
    {"allow", "disallow"},
    {"accept", "reject"},
    {"add", "remov"},
    {"keep", "drop"},
    {"keep", "remov"},
    {"kept", "dropped"},
    {"kept", "removed"},
    {"includ", "exclud"},
    {"show", "hid"},
    {"visible", "hidden"},
    {"shown", "hidden"},
    {"before", "after"},
    {"earlier", "later"},
    {"first", "last"},
    {"min", "max"},
    {"minimum", "maximum"},
    {"more", "less"},
    {"more", "fewer"},
    {"higher", "lower"},
    {"increas", "decreas"},
    {"larger", "smaller"},
    {"faster", "slower"},
    {"start", "stop"},
    {"open", "clos"},
    {"on", "off"},
    {"true", "false"},
    {"sync", "async"},
    {"synchronous", "asynchronous"},
    {"lazy", "eager"},
    {"lazily", "eagerly"},
    {"public", "private"},
    {"local", "remote"},
    {"upper", "lower"},
    {"leading", "trailing"},
    {"prefix", "suffix"},
    {"input", "output"},
    {"valid", "invalid"},
    {"required", "optional"},
    {"mandatory", "optional"},
    {"safe", "unsafe"},
    {"secure", "insecure"},
    {"supported", "unsupported"},
    {"above", "below"},
    {"inside", "outside"},
    {"lock", "unlock"},
    {"ascending", "descending"},
    {"increment", "decrement"},
    {"compress", "decompress"},
    {"encrypt", "decrypt"},
    {"win", "lose"},
    {"enter", "exit"},
    {"install", "uninstall"},
    {"import", "export"},
    {"read", "write"},
    {"client", "server"},
    {"light", "dark"},
    {"включ", "выключ"},
    {"до", "после"},
    {"больше", "меньше"},
    {"avant", "apres"},
    {"active", "desactive"},
    {"premier", "dernier"},
};

static bool stem_match(const char *w, const char *stem)
{
    static const char *const endings[] = {"", "s", "es", "e", "ed", "d", "ing", "er", "ly", NULL};
    if (w[0] != stem[0])
        return false;
    size_t n = strlen(stem);
    return strncmp(w, stem, n) == 0 && in_list(w + n, endings);
}

/* The first word of sw matching stem, or NULL. */
static const char *find_stem(const swords *sw, const char *stem)
{
    for (size_t i = 0; i < sw->n; i++)
        if (stem_match(wtext(sw, i), stem))
            return wtext(sw, i);
    return NULL;
}

static bool is_stop(const char *w, size_t n)
{
    return mn_lang_is_stopword(MN_LANG_EN, w, n) || mn_lang_is_stopword(MN_LANG_FR, w, n) ||
           mn_lang_is_stopword(MN_LANG_RU, w, n);
}

static bool is_cue(const char *w)
{
    static const char *const cues[] = {"instead", "rather",   "favor",  "favour",   "vs",
                                       "versus",  "use",      "prefer", "lieu",     "plutot",
                                       "вместо",  "from",     "to",     "with",     "by",
                                       "replace", "replaced", "switch", "switched", NULL};
    return in_list(w, cues);
}

/* The nearest content word from i going in direction dir (+1/-1) within 4 words. */
static ssize_t content_word(const swords *sw, ssize_t i, int dir)
{
    for (int steps = 0; steps < 4 && i >= 0 && (size_t)i < sw->n; steps++, i += dir) {
        const char *w = wtext(sw, (size_t)i);
        if (!is_stop(w, sw->w[i].len) && !is_cue(w) && !in_list(w, negations) &&
            !(sw->w[i].flags & W_HASHREF))
            return i;
    }
    return -1;
}

typedef enum { PIV_ALT = 1, PIV_CHANGE = 2 } pivot_kind;

typedef struct {
    pivot_kind kind;
    const char *x, *y; /* folded words; x is preferred / new, y is replaced / old */
} pivot;

#define MAX_PIVOTS 8

static size_t find_pivots(const swords *sw, pivot *out)
{
    size_t n = 0;
    for (size_t i = 0; i < sw->n && n < MAX_PIVOTS; i++) {
        ssize_t x = -1, y = -1;
        pivot_kind kind = PIV_ALT;
        const char *w = wtext(sw, i);
        if ((strcmp(w, "instead") == 0 && weq(sw, i + 1, "of")) ||
            (strcmp(w, "rather") == 0 && weq(sw, i + 1, "than")) ||
            (strcmp(w, "plutot") == 0 && weq(sw, i + 1, "que")) ||
            ((strcmp(w, "favor") == 0 || strcmp(w, "favour") == 0) && weq(sw, i + 1, "of")) ||
            (strcmp(w, "lieu") == 0 && weq(sw, i + 1, "de"))) {
            x = content_word(sw, (ssize_t)i - 1 - (strcmp(w, "lieu") == 0), -1);
            y = content_word(sw, (ssize_t)i + 2, +1);
        } else if (strcmp(w, "vs") == 0 || strcmp(w, "versus") == 0 || strcmp(w, "вместо") == 0) {
            x = content_word(sw, (ssize_t)i - 1, -1);
            y = content_word(sw, (ssize_t)i + 1, +1);
        } else if (strcmp(w, "from") == 0) {
            /* from Y to X: the word before the next "to" within 5 words */
            for (size_t j = i + 2; j < sw->n && j <= i + 5; j++)
                if (weq(sw, j, "to")) {
                    y = content_word(sw, (ssize_t)j - 1, -1);
                    x = content_word(sw, (ssize_t)j + 1, +1);
                    if (y <= (ssize_t)i)
                        y = -1;
                    break;
                }
            kind = PIV_CHANGE;
        } else if (strncmp(w, "replac", 6) == 0) {
            /* replace Y with/by X */
            for (size_t j = i + 2; j < sw->n && j <= i + 5; j++)
                if (weq(sw, j, "with") || weq(sw, j, "by")) {
                    y = content_word(sw, (ssize_t)j - 1, -1);
                    x = content_word(sw, (ssize_t)j + 1, +1);
                    if (y <= (ssize_t)i)
                        y = -1;
                    break;
                }
            kind = PIV_CHANGE;
        } else if (sw->w[i].arrow_before && i > 0) {
            y = content_word(sw, (ssize_t)i - 1, -1);
            x = content_word(sw, (ssize_t)i, +1);
            kind = PIV_CHANGE;
        }
        if (x >= 0 && y >= 0 && strcmp(wtext(sw, (size_t)x), wtext(sw, (size_t)y)) != 0) {
            out[n].kind = kind;
            out[n].x = wtext(sw, (size_t)x);
            out[n].y = wtext(sw, (size_t)y);
            n++;
        }
    }
    return n;
}

static bool has_word(const swords *sw, const char *w)
{
    return in_sorted(sw->hashes, sw->n, XXH3_64bits(w, strlen(w)));
}

/* ---- numbers ---- */

typedef struct {
    char v[40];
    char unit[24]; /* the next word when it is a unit, else "" */
} number;

#define MAX_NUMBERS 64

static const char *const units[] = {
    /* English */
    "ms", "millisecond", "milliseconds", "s", "sec", "secs", "second", "seconds", "min", "mins",
    "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "d", "day", "days", "week", "weeks",
    "month", "months", "year", "years", "b", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "byte",
    "bytes", "bit", "bits", "percent", "px", "em", "rem", "times", "retries", "attempts", "threads",
    "workers", "cores", "connections", "lines", "items", "runs", "sessions",
    /* Russian */
    "мс", "секунда", "секунды", "секунд", "минута", "минуты", "минут", "час", "часа", "часов",
    "день", "дня", "дней", "неделя", "недели", "недель", "месяц", "месяца", "месяцев", "год",
    "года", "лет", "байт", "байта", "байтов", "раз", "раза", "повтор", "повтора", "повторов",
    /* French */
    "seconde", "secondes", "heure", "heures", "jour", "jours", "semaine", "semaines", "mois", "an",
    "ans", "annee", "annees", "octet", "octets", "ko", "mo", "go", "fois", "sessions", "executions",
    NULL};

/* The number a word stands for, in out (empty when it is none). */
static void number_of(const swords *sw, size_t i, char out[40])
{
    out[0] = '\0';
    const sword *w = &sw->w[i];
    const char *s = wtext(sw, i);
    size_t n = w->len;
    if (!(w->flags & W_DIGIT) || (w->flags & W_HASHREF) ||
        (w->flags & W_IDENT && !(w->flags & W_ALPHA)))
        return;
    if (is_hex_hash(s, n))
        return;
    if (n >= 2 && s[0] == 'v' && s[1] >= '0' && s[1] <= '9') {
        s++;
        n--;
    }
    size_t k = 0;
    if (s[0] >= '0' && s[0] <= '9') {
        /* a digit group with inner separators; a unit or other suffix dropped */
        while (k < n && ((s[k] >= '0' && s[k] <= '9') ||
                         ((s[k] == '.' || s[k] == ',' || s[k] == ':' || s[k] == '-') && k + 1 < n &&
                          s[k + 1] >= '0' && s[k + 1] <= '9')))
            k++;
    } else {
        /* letters then digits at the end (python3, utf16, http2): kept whole */
        bool tail_digits = s[n - 1] >= '0' && s[n - 1] <= '9';
        for (size_t j = 0; j < n; j++)
            if (s[j] == '/' || s[j] == '_' || s[j] == '.')
                tail_digits = false; /* a path or identifier: a name, not a number */
        if (!tail_digits)
            return;
        k = n;
    }
    if (k >= 40)
        k = 39;
    memcpy(out, s, k);
    out[k] = '\0';
}

static size_t find_numbers(const swords *sw, number *out)
{
    size_t n = 0;
    for (size_t i = 0; i < sw->n && n < MAX_NUMBERS; i++) {
        number_of(sw, i, out[n].v);
        if (!out[n].v[0])
            continue;
        out[n].unit[0] = '\0';
        if (i + 1 < sw->n && in_list(wtext(sw, i + 1), units) && sw->w[i + 1].len < 24)
            memcpy(out[n].unit, wtext(sw, i + 1), sw->w[i + 1].len + 1);
        n++;
    }
    return n;
}

static const number *number_find(const number *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].v, s) == 0)
            return &v[i];
    return NULL;
}

/* True when v holds x's number with x's unit. */
static bool number_unit(const number *v, size_t n, const number *x)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].v, x->v) == 0 && strcmp(v[i].unit, x->unit) == 0)
            return true;
    return false;
}

/* ---- identifiers ---- */

/* Identifiers compare by their last path part without '_' and '-':
 * parse_http_header, parseHttpHeader and src/parse-http-header meet. */
static void ident_key(const swords *sw, size_t i, char out[MN_TOK_MAX_BYTES + 1])
{
    const char *s = wtext(sw, i), *slash = strrchr(s, '/');
    if (slash && slash[1])
        s = slash + 1;
    size_t n = 0;
    for (; *s && n < MN_TOK_MAX_BYTES; s++)
        if (*s != '_' && *s != '-')
            out[n++] = *s;
    out[n] = '\0';
}

/* The first identifier of a that b has in no spelling, or NULL (key in buf).
 * b's words' keys are hashed and sorted once: linear in the words, not
 * quadratic, for long texts. */
static const char *ident_only_in(const swords *a, const swords *b, char buf[MN_TOK_MAX_BYTES + 1])
{
    uint64_t *keys = NULL;
    size_t nkeys = 0;
    const char *found_key = NULL;
    for (size_t i = 0; i < a->n && !found_key; i++) {
        if (!(a->w[i].flags & W_IDENT))
            continue;
        if (!keys) {
            char kb[MN_TOK_MAX_BYTES + 1];
            keys = mn_malloc((b->n + 1) * sizeof(*keys));
            for (size_t j = 0; j < b->n; j++) {
                ident_key(b, j, kb);
                keys[j] = XXH3_64bits(kb, strlen(kb));
            }
            nkeys = mn_neardup__sort_unique(keys, b->n);
        }
        ident_key(a, i, buf);
        if (!in_sorted(keys, nkeys, XXH3_64bits(buf, strlen(buf))))
            found_key = buf;
    }
    free(keys);
    return found_key;
}

/*
 * Words of general English that a rewording swaps freely ("made" /
 * "created", "now", "each" / "every"): a substitution between such words is
 * not another subject. Verbs are stems matched with an inflection
 * (stem_match), irregular forms are listed. A general list of the language
 * of technical prose, not read off the labelled set.
 */
static const char *const common_words[] = {
    /* verbs */
    "make", "made", "creat", "build", "built", "use", "using", "giv", "give", "gave", "given",
    "get", "got", "put", "tak", "take", "took", "taken", "report", "run", "ran", "call", "stay",
    "remain", "fall", "fell", "fallen", "return", "need", "want", "let", "help", "try", "tried",
    "see", "saw", "seen", "look", "find", "found", "know", "known", "say", "said", "tell", "told",
    "mean", "meant", "seem", "appear", "become", "became", "happen", "occur", "cause", "caus",
    "provid", "provide", "produc", "produce", "generat", "generate", "emit", "print", "display",
    "list", "contain", "hold", "held", "have", "has", "had", "go", "goes", "went", "gone", "come",
    "came", "begin", "began", "end", "finish", "continu", "continue", "mak", "done", "did", "does",
    "do", "work", "handl", "handle", "treat", "consider", "regard", "describ", "describe",
    "explain", "document", "mention", "note", "ensur", "ensure", "allow", "support", "accept",
    "require", "requir", "expect", "leav", "leave", "left", "bring", "brought", "place", "set",
    "pass", "check", "verify", "test", "fix", "correct", "improv", "improve", "chang", "change",
    "updat", "update", "modif", "adjust", "clean", "tidy", "clarif", "clarify",
    /* adverbs, adjectives, others */
    "now", "then", "also", "again", "still", "already", "just", "only", "even", "yet", "ever",
    "always", "often", "usually", "sometimes", "anymore", "longer", "together", "along", "each",
    "every", "all", "any", "some", "several", "many", "much", "most", "per", "such", "like", "same",
    "other", "another", "both", "either", "whole", "entire", "full", "fully", "new", "old",
    "current", "currently", "clear", "clearer", "clearly", "proper", "properly", "correctly",
    "right", "wrong", "good", "better", "best", "bad", "worse", "simple", "simply", "easy",
    "easily", "possible", "possibly", "actually", "really", "instead", "rather", "twice", "once",
    "second", "third", "first", "last", "next", "previous", "previously", "before", "after",
    "during", "while", "since", "until", "via", "through", "across", "within", "without", "against",
    "among", "between", "around", "about", "upon", "onto", "towards", "thing", "things", "way",
    "ways", "case", "cases", "time", "times", "part", "kind", "sort", "type", "lot", "bit", "fact",
    "point", "example", "e", "g", "i", "etc", "eg", "ie", "ok", NULL};

static bool is_common(const char *w)
{
    for (size_t i = 0; common_words[i]; i++)
        if (stem_match(w, common_words[i]))
            return true;
    return false;
}

/* ---- term order ---- */

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

#define ORDER_MAX_TERMS 256

static bool seq_eq(const uint64_t *x, const uint64_t *y, size_t n)
{
    return n == 0 || memcmp(x, y, n * sizeof(*x)) == 0;
}

/*
 * Two blocks of terms swapped around a pivot: the shared terms of a, in
 * order, are P A Q B R and those of b are P B Q A R, with A, Q and B not
 * empty and A and B at most SWAP_MAX_BLOCK terms ("by value, not by index" /
 * "by index, not by value"; "X instead of Y" / "Y instead of X"). A
 * rewording that moves a whole clause (A B / B A, no pivot between) is not a
 * swap. Texts over ORDER_MAX_TERMS terms are not
 * looked at.
 */
static bool blocks_swapped(const mn_neardup_terms *ta, const mn_neardup_terms *tb,
                           const uint64_t *set_a, size_t nsa, const uint64_t *set_b, size_t nsb)
{
    if (ta->n_terms > ORDER_MAX_TERMS || tb->n_terms > ORDER_MAX_TERMS)
        return false;
    uint64_t x[ORDER_MAX_TERMS], y[ORDER_MAX_TERMS];
    size_t nx = 0, ny = 0;
    for (size_t i = 0; i < ta->n_terms; i++)
        if (in_sorted(set_b, nsb, ta->terms[i]))
            x[nx++] = ta->terms[i];
    for (size_t i = 0; i < tb->n_terms; i++)
        if (in_sorted(set_a, nsa, tb->terms[i]))
            y[ny++] = tb->terms[i];
    if (nx != ny)
        return false;
    size_t p = 0, r = 0;
    while (p < nx && x[p] == y[p])
        p++;
    while (r < nx - p && x[nx - 1 - r] == y[nx - 1 - r])
        r++;
    size_t m = nx - p - r;
    const uint64_t *xm = x + p, *ym = y + p;
    for (size_t la = 1; la + 2 <= m && la <= SWAP_MAX_BLOCK; la++) {
        if (!seq_eq(xm, ym + m - la, la))
            continue;
        for (size_t lb = 1; la + lb + 1 <= m && lb <= SWAP_MAX_BLOCK; lb++) {
            if (seq_eq(xm + m - lb, ym, lb) && seq_eq(xm + la, ym + lb, m - la - lb))
                return true;
        }
    }
    return false;
}

/*
 * The content terms of t that the other text's term set lacks and that may
 * name a subject: their surface (folded to ASCII lower case) is not a stop
 * word, a common word, a number, nor shorter than 3 characters. The first
 * one's surface goes to *first (in buf). Returns how many there are.
 */
static size_t subject_terms(const mn_neardup_terms *t, const char *text, const uint64_t *other,
                            size_t n_other, const char **first, char buf[MN_TOK_MAX_BYTES + 1])
{
    size_t count = 0;
    *first = "?";
    for (size_t i = 0; i < t->n_terms; i++) {
        if (in_sorted(other, n_other, t->terms[i]))
            continue;
        size_t from = t->spans[2 * i], to = t->spans[2 * i + 1], n = 0;
        char w[MN_TOK_MAX_BYTES + 1];
        bool digits = true;
        for (size_t k = from; k < to && n < MN_TOK_MAX_BYTES; k++) {
            char c = text[k];
            w[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            digits &= c >= '0' && c <= '9';
        }
        w[n] = '\0';
        if (n < 3 || digits || is_stop(w, n) || is_common(w))
            continue;
        bool repeat = false; /* the same term met earlier in t counts once */
        for (size_t k = 0; k < i && !repeat; k++)
            repeat = t->terms[k] == t->terms[i];
        if (repeat)
            continue;
        if (count++ == 0) {
            memcpy(buf, w, n + 1);
            *first = buf;
        }
        if (count > SUBST_MAX_TERMS)
            break; /* more than a substitution: how many more does not matter */
    }
    return count;
}

/* ---- the verdict ---- */

static void reason(mn_neardup_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void reason(mn_neardup_verdict *v, const char *fmt, ...)
{
    if (v->n_reasons >= MN_NEARDUP_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reasons[v->n_reasons++], MN_NEARDUP_REASON_LEN, fmt, ap);
    va_end(ap);
}

const char *mn_neardup_kind_name(mn_neardup_kind kind)
{
    switch (kind) {
    case MN_NEARDUP_DUPLICATE:
        return "duplicate";
    case MN_NEARDUP_CONFLICTING:
        return "conflicting";
    default:
        return "distinct";
    }
}

/* Conflict signals; returns true when one was found (reasons added). */
static bool find_conflict(mn_neardup_verdict *v, const swords *a, const swords *b, unsigned sig)
{
    bool found = false;
    int ra = count_reverts(a), rb = count_reverts(b);
    if ((sig & MN_NEARDUP_SIG_REVERT) && (ra & 1) != (rb & 1)) {
        reason(v, "revert in %s", ra > rb ? "a" : "b");
        found = true;
    }
    int na = count_negations(a), nb = count_negations(b);
    if ((sig & MN_NEARDUP_SIG_NEGATION) && na != nb) {
        reason(v, "negation: %d in a, %d in b", na, nb);
        found = true;
    }

    pivot pa[MAX_PIVOTS], pb[MAX_PIVOTS];
    size_t npa = 0, npb = 0;
    if (sig & MN_NEARDUP_SIG_ALTERNATIVE) {
        npa = find_pivots(a, pa);
        npb = find_pivots(b, pb);
    }
    for (size_t i = 0; i < npa; i++)
        for (size_t j = 0; j < npb; j++) {
            if (pa[i].kind != pb[j].kind)
                continue;
            bool sx = strcmp(pa[i].x, pb[j].x) == 0, sy = strcmp(pa[i].y, pb[j].y) == 0;
            if (strcmp(pa[i].x, pb[j].y) == 0 && strcmp(pa[i].y, pb[j].x) == 0) {
                reason(v, "swapped alternative: %.24s / %.24s", pa[i].x, pa[i].y);
                found = true;
            } else if (sx != sy) {
                reason(v, "different alternative: %.24s / %.24s", sx ? pa[i].y : pa[i].x,
                       sx ? pb[j].y : pb[j].x);
                found = true;
            }
        }
    /* One side replaces y by x, the other names y and not x. */
    for (int side = 0; side < 2; side++) {
        const pivot *p = side ? pb : pa;
        size_t np = side ? npb : npa;
        const swords *other = side ? a : b;
        size_t nother = side ? npa : npb;
        for (size_t i = 0; i < np && nother == 0; i++)
            if (has_word(other, p[i].y) && !has_word(other, p[i].x)) {
                reason(v, "%s prefers %.24s to %.24s", side ? "b" : "a", p[i].x, p[i].y);
                found = true;
            }
    }

    /* Opposites: only words one side lacks are looked up (a few per pair). */
    for (size_t i = 0; i < a->n && (sig & MN_NEARDUP_SIG_OPPOSITE); i++) {
        const char *wa = wtext(a, i);
        if (has_word(b, wa))
            continue;
        const char *wb = NULL;
        for (size_t k = 0; k < MN_ARRAY_SIZE(opposites) && !wb; k++)
            for (int dir = 0; dir < 2 && !wb; dir++) {
                const char *x = opposites[k][dir], *y = opposites[k][1 - dir];
                if (stem_match(wa, x) && !find_stem(b, x) && !find_stem(a, y))
                    wb = find_stem(b, y);
            }
        if (wb) {
            reason(v, "opposite words: %.24s / %.24s", wa, wb);
            found = true;
            break;
        }
    }

    number xa[MAX_NUMBERS], xb[MAX_NUMBERS];
    size_t nxa = find_numbers(a, xa), nxb = find_numbers(b, xb);
    const char *only_a = NULL, *only_b = NULL;
    for (size_t i = 0; i < nxa && !only_a; i++)
        if (!number_find(xb, nxb, xa[i].v))
            only_a = xa[i].v;
    for (size_t i = 0; i < nxb && !only_b; i++)
        if (!number_find(xa, nxa, xb[i].v))
            only_b = xb[i].v;
    if ((sig & MN_NEARDUP_SIG_NUMBER) && only_a && only_b) {
        reason(v, "changed number: %.24s -> %.24s", only_b, only_a);
        found = true;
    }
    /* A changed unit: a number both share, with a unit only a gives it and one only b gives it. */
    for (size_t i = 0; i < nxa && (sig & MN_NEARDUP_SIG_UNIT); i++) {
        if (!xa[i].unit[0] || !number_find(xb, nxb, xa[i].v) || number_unit(xb, nxb, &xa[i]))
            continue;
        const number *o = NULL;
        for (size_t j = 0; j < nxb && !o; j++)
            if (strcmp(xb[j].v, xa[i].v) == 0 && xb[j].unit[0] && !number_unit(xa, nxa, &xb[j]))
                o = &xb[j];
        if (o) {
            reason(v, "changed unit: %.16s %.16s -> %.16s", xa[i].v, o->unit, xa[i].unit);
            found = true;
            break;
        }
    }
    return found;
}

/*
 * One text of a pair, read once: the new memory is judged against each of
 * its neighbours in turn (memory/nearby.c), and its terms, shingles and
 * words are the same every time. Words (swords) are read only when a pair
 * is near enough to need them.
 */
struct mn_neardup_text {
    const char *text;
    size_t len;
    uint64_t exact;
    mn_neardup_terms t;
    uint64_t *set; /* t.terms sorted and unique */
    size_t n_set;
    swords sw;
    bool sw_read;
};

static void side_read(mn_neardup_text *x, const char *text, size_t len)
{
    memset(x, 0, sizeof(*x));
    mn_buf_init(&x->t.stream);
    mn_buf_init(&x->sw.folded);
    x->text = text;
    x->len = len;
    x->exact = mn_neardup__exact_hash(text, len);
    mn_neardup__terms_read(&x->t, text, len, true);
    x->set = mn_malloc((x->t.n_terms + 1) * sizeof(*x->set));
    if (x->t.n_terms) /* terms is NULL for a text without any */
        memcpy(x->set, x->t.terms, x->t.n_terms * sizeof(*x->set));
    x->n_set = mn_neardup__sort_unique(x->set, x->t.n_terms);
}

static const swords *side_words(mn_neardup_text *x)
{
    if (!x->sw_read) {
        swords_read(&x->sw, x->text, x->len);
        x->sw_read = true;
    }
    return &x->sw;
}

static void side_release(mn_neardup_text *x)
{
    mn_neardup__terms_release(&x->t);
    free(x->set);
    swords_release(&x->sw);
    memset(x, 0, sizeof(*x));
}

int mn_neardup_text_new(mn_neardup_text **out, const char *text, size_t len)
{
    if (!out || (!text && len))
        return mn_error_set(MN_EINVAL, "neardup: 'out' and 'text' must not be NULL");
    *out = mn_malloc(sizeof(**out));
    side_read(*out, text ? text : "", text ? len : 0);
    return 0;
}

void mn_neardup_text_free(mn_neardup_text *t)
{
    if (!t)
        return;
    side_release(t);
    free(t);
}

static int judge_sides(mn_neardup_verdict *out, mn_neardup_text *pa, mn_neardup_text *pb,
                       const mn_neardup_opts *opts);

int mn_neardup_judge(mn_neardup_verdict *out, const char *a, size_t alen, const char *b,
                     size_t blen, const mn_neardup_opts *opts)
{
    if (!out || (!a && alen) || (!b && blen))
        return mn_error_set(MN_EINVAL, "neardup: 'out', 'a' and 'b' must not be NULL");
    mn_neardup_text ta;
    side_read(&ta, a ? a : "", a ? alen : 0);
    int rc = mn_neardup_judge_text(out, &ta, b, blen, opts);
    side_release(&ta);
    return rc;
}

int mn_neardup_judge_text(mn_neardup_verdict *out, mn_neardup_text *a, const char *b, size_t blen,
                          const mn_neardup_opts *opts)
{
    static const mn_neardup_opts defaults = MN_NEARDUP_OPTS_INIT;
    if (!out || !a || (!b && blen))
        return mn_error_set(MN_EINVAL, "neardup: 'out', 'a' and 'b' must not be NULL");
    if (!opts)
        opts = &defaults;
    if (opts->version != MN_NEARDUP_OPTS_VERSION)
        return mn_error_set(MN_EINVAL, "neardup: options of version %u, expected %u", opts->version,
                            MN_NEARDUP_OPTS_VERSION);
    mn_neardup_text tb;
    side_read(&tb, b ? b : "", b ? blen : 0);
    int rc = judge_sides(out, a, &tb, opts);
    side_release(&tb);
    return rc;
}

static int judge_sides(mn_neardup_verdict *out, mn_neardup_text *pa, mn_neardup_text *pb,
                       const mn_neardup_opts *opts)
{
    memset(out, 0, sizeof(*out));
    const char *a = pa->text, *b = pb->text;
    const mn_neardup_terms *ta = &pa->t, *tb = &pb->t;
    const uint64_t *wa = pa->set, *wb = pb->set;
    size_t nwa = pa->n_set, nwb = pb->n_set;
    out->simhash_distance = mn_simhash_distance(mn_neardup__simhash(ta->terms, ta->n_terms),
                                                mn_neardup__simhash(tb->terms, tb->n_terms));
    if (pa->exact == pb->exact) {
        out->kind = MN_NEARDUP_DUPLICATE;
        out->similarity = out->jaccard_words = out->jaccard_chars = 1.0;
        reason(out, "same text");
        return 0;
    }
    out->jaccard_words = mn_neardup__jaccard_sorted(wa, nwa, wb, nwb);
    out->jaccard_chars =
        mn_neardup__jaccard_sorted(ta->shingles, ta->n_shingles, tb->shingles, tb->n_shingles);
    out->similarity = (out->jaccard_words + out->jaccard_chars) / 2;

    /* Contained: the smaller text's terms (at least CONTAIN_MIN_TERMS of
     * them) are nearly all in the larger one, whatever the larger adds (a
     * backport's copy of the pull request's description, a detail): near
     * enough to compare, and a duplicate unless a signal says otherwise,
     * since the merge keeps the larger text. */
    size_t shared = 0;
    for (size_t i = 0; i < nwa; i++)
        shared += in_sorted(wb, nwb, wa[i]);
    size_t smaller = nwa < nwb ? nwa : nwb;
    bool contained = smaller >= CONTAIN_MIN_TERMS && nwa != nwb &&
                     (double)shared >= opts->contain_min * (double)smaller;
    if (out->similarity < opts->near_min && !contained) {
        out->kind = MN_NEARDUP_DISTINCT;
        reason(out, "not similar (%.2f)", out->similarity);
        return 0;
    }
    const swords *sa = side_words(pa), *sb = side_words(pb);
    bool conflict;
    if (contained && out->similarity < opts->dup_min) {
        /* compare the smaller text with the larger one's sentences that say the same */
        bool a_small = nwa < nwb;
        swords view;
        if (a_small)
            swords_view(&view, sb, tb, wa, nwa);
        else
            swords_view(&view, sa, ta, wb, nwb);
        conflict = a_small ? find_conflict(out, sa, &view, opts->signals)
                           : find_conflict(out, &view, sb, opts->signals);
        swords_release(&view);
    } else {
        conflict = find_conflict(out, sa, sb, opts->signals);
    }
    /* Nearly the same words, two blocks swapped around a pivot. */
    if ((opts->signals & MN_NEARDUP_SIG_ORDER) && out->jaccard_words >= ORDER_MIN_JW &&
        blocks_swapped(ta, tb, wa, nwa, wb, nwb)) {
        reason(out, "words swapped");
        conflict = true;
    }
    if (conflict) {
        out->kind = MN_NEARDUP_CONFLICTING;
        int ca = count_change_words(sa), cb = count_change_words(sb);
        out->newer = ca > cb ? MN_NEWER_A : cb > ca ? MN_NEWER_B : MN_NEWER_UNKNOWN;
        return 0;
    }
    char ka[MN_TOK_MAX_BYTES + 1], kb[MN_TOK_MAX_BYTES + 1];
    char sub_buf_a[MN_TOK_MAX_BYTES + 1], sub_buf_b[MN_TOK_MAX_BYTES + 1];
    const char *ia = ident_only_in(sa, sb, ka), *ib = ident_only_in(sb, sa, kb);
    if ((opts->signals & MN_NEARDUP_SIG_SUBJECT) && ia && ib) {
        out->kind = MN_NEARDUP_DISTINCT;
        reason(out, "different subject: %.30s / %.30s", ia, ib);
        return 0;
    }
    /* One to SUBST_MAX_TERMS content terms of each side replaced, the rest the
     * same: another subject said in the same words ("during collection" /
     * "during teardown"), not the same thing said again. Terms whose surface
     * is a common word, a number or too short to be a subject do not count
     * (they are what a rewording changes). */
    if ((opts->signals & MN_NEARDUP_SIG_SUBJECT) && out->jaccard_words >= SUBST_MIN_JW) {
        const char *sub_a = NULL, *sub_b = NULL;
        size_t ua = subject_terms(ta, a, wb, nwb, &sub_a, sub_buf_a);
        size_t ub = subject_terms(tb, b, wa, nwa, &sub_b, sub_buf_b);
        if (ua >= 1 && ub >= 1 && ua <= SUBST_MAX_TERMS && ub <= SUBST_MAX_TERMS) {
            out->kind = MN_NEARDUP_DISTINCT;
            reason(out, "different subject: %.30s / %.30s", sub_a, sub_b);
            return 0;
        }
    }
    if (contained && out->similarity < opts->dup_min) {
        out->kind = MN_NEARDUP_DUPLICATE;
        reason(out, "contained (%zu of %zu terms)", shared, smaller);
    } else if (out->similarity >= opts->dup_min) {
        out->kind = MN_NEARDUP_DUPLICATE;
        reason(out, "similar (%.2f)", out->similarity);
    } else {
        out->kind = MN_NEARDUP_DISTINCT;
        reason(out, "related, below the duplicate threshold (%.2f)", out->similarity);
    }
    return 0;
}
