/*
 * sentences.c - commit messages, Markdown and conversation turns cut into
 * sentences (the rules are in sentences.h).
 *
 * Two passes. The first classifies lines: blank, left out (quote, fence,
 * HTML comment, table row, trailer), bullet, heading, or text, and where
 * the line's content starts (after a bullet marker or the heading's '#'s).
 * The second walks the paragraphs (runs of kept, non-blank lines) byte by
 * byte, skipping code spans and URLs, and closes a sentence at terminal
 * punctuation, at a bullet or heading, at a line break that looks like the
 * end of a one-line item, and at the end of the paragraph. Offsets always
 * refer to the caller's text; nothing is copied.
 */
#include <utf8proc.h>

#include "common.h"
#include "text/sentences.h"
#include "util/vec.h"

enum { L_BLANK, L_SKIP, L_TEXT, L_BULLET, L_HEADING };

typedef struct {
    size_t start, end; /* the line without its '\n' (and '\r') */
    size_t content;    /* where the content starts (after indentation and marker) */
    int kind;
} line_t;

typedef MN_VEC(line_t) line_vec;
typedef MN_VEC(mn_sentence) sent_vec;

/* Abbreviations whose full stop ends no sentence: lower-case, without the final '.'. */
static const char *const abbrevs[] = {
    /* English */
    "e.g", "i.e", "etc", "vs", "cf", "approx", "ca", "resp", "no", "nr", "fig", "mr", "mrs", "ms",
    "dr", "st", "jr", "sr", "incl", "excl", "misc", "esp", "et al", "al", "min", "max", "ver",
    /* Russian */
    "т.е", "т.к", "т.д", "т.п", "т.н", "др", "пр", "см", "ср", "им", "г", "гг", "напр", "стр",
    "рис", "т", "е", "к", "д", "п", "прим", "тыс", "млн", "ул", "вкл", "искл",
    /* French */
    "p.ex", "c.-à-d", "c-à-d", "env", "ex", "mme", "mlle", "m", "n°", "vol", "chap", "p", "pp"};

static int32_t cp_at(const char *text, size_t len, size_t i, size_t *n)
{
    const uint8_t *s = (const uint8_t *)text;
    *n = 1;
    if (i >= len)
        return -1;
    if (s[i] < 0x80)
        return s[i];
    int32_t cp = -1;
    utf8proc_ssize_t r = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
    if (r <= 0)
        return -1;
    *n = (size_t)r;
    return cp;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static bool is_upper_cp(int32_t cp)
{
    if (cp < 0)
        return false;
    if (cp < 0x80)
        return cp >= 'A' && cp <= 'Z';
    return utf8proc_category(cp) == UTF8PROC_CATEGORY_LU;
}

static bool is_letter_cp(int32_t cp)
{
    if (cp < 0)
        return false;
    if (cp < 0x80)
        return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
    utf8proc_category_t c = utf8proc_category(cp);
    return c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO;
}

static bool starts_with(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len >= n && memcmp(s, lit, n) == 0;
}

/* Length of a bullet marker at s (followed by a space), 0 if none. */
static size_t bullet_len(const char *s, size_t len)
{
    size_t k = 0;
    if (len >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'))
        k = 2;
    else if (len >= 4 && starts_with(s, len, "\xe2\x80\xa2") && s[3] == ' ') /* • */
        k = 4;
    else {
        size_t d = 0;
        while (d < len && d < 3 && s[d] >= '0' && s[d] <= '9')
            d++;
        if (d > 0 && d + 1 < len && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ')
            k = d + 2;
    }
    if (k == 0)
        return 0;
    /* a Markdown checkbox after the marker */
    if (k + 3 < len && s[k] == '[' && (s[k + 1] == ' ' || s[k + 1] == 'x' || s[k + 1] == 'X') &&
        s[k + 2] == ']' && s[k + 3] == ' ')
        k += 4;
    return k;
}

/* "Token: value" with Token made of letters, digits and '-' (a git trailer). */
static bool is_trailer(const char *s, size_t len)
{
    static const char *const known[] = {
        "signed-off-by:", "co-authored-by:", "change-id:",    "reviewed-by:", "acked-by:",
        "tested-by:",     "reported-by:",    "suggested-by:", "helped-by:",   "cc:",
        "fixes:",         "closes:",         "refs:",         "ref:",         "bug:",
        "see-also:",      "assisted-by:",    "spotted-by:"};
    if (len >= 26 && starts_with(s, len, "(cherry picked from commit"))
        return true;
    size_t i = 0;
    while (i < len && i < 40 &&
           (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
            s[i] == '-'))
        i++;
    if (i == 0 || i >= len || s[i] != ':' || i + 1 >= len || s[i + 1] != ' ')
        return false;
    for (size_t k = 0; k < MN_ARRAY_SIZE(known); k++) {
        size_t n = strlen(known[k]);
        if (n == i + 1 && strncasecmp(s, known[k], n) == 0)
            return true;
    }
    /* unknown tokens count only when hyphenated (Foo-by:), as git's own rule for its trailers */
    return memchr(s, '-', i) != NULL;
}

static void classify_lines(line_vec *lines, const char *text, size_t len, unsigned flags)
{
    size_t i = 0;
    bool fence = false, comment = false;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        line_t ln = {i, e, i, L_TEXT};
        size_t end = e;
        while (end > i && is_space(text[end - 1]))
            end--;
        ln.end = end;
        size_t c = i;
        while (c < end && (text[c] == ' ' || text[c] == '\t'))
            c++;
        ln.content = c;
        const char *s = text + c;
        size_t n = end - c;
        if (comment) {
            ln.kind = L_SKIP;
            if (n >= 3 && memmem(s, n, "-->", 3))
                comment = false;
        } else if (n >= 3 && (starts_with(s, n, "```") || starts_with(s, n, "~~~"))) {
            ln.kind = L_SKIP;
            fence = !fence;
        } else if (fence) {
            ln.kind = L_SKIP;
        } else if (n == 0) {
            ln.kind = L_BLANK;
        } else if (s[0] == '>') {
            ln.kind = L_SKIP; /* a quoted reply */
        } else if ((flags & MN_SENT_MARKDOWN) && starts_with(s, n, "<!--")) {
            ln.kind = L_SKIP;
            if (!memmem(s + 4, n - 4, "-->", 3))
                comment = true;
        } else if ((flags & MN_SENT_MARKDOWN) && s[0] == '|') {
            ln.kind = L_SKIP;
        } else if ((flags & MN_SENT_MARKDOWN) && s[0] == '#') {
            size_t h = 0;
            while (h < n && h < 6 && s[h] == '#')
                h++;
            if (h < n && s[h] == ' ') {
                ln.kind = L_HEADING;
                ln.content = c + h + 1;
            }
        } else {
            size_t b = bullet_len(s, n);
            if (b) {
                ln.kind = L_BULLET;
                ln.content = c + b;
            }
        }
        mn_vec_push(lines, ln);
        i = e + 1;
    }
    if (!(flags & MN_SENT_COMMIT))
        return;
    /* trailers: anywhere for the well-known ones, and the whole last paragraph when every line
       of it is a trailer (git's own rule, simplified) */
    size_t last = lines->len;
    while (last > 0 && lines->items[last - 1].kind == L_BLANK)
        last--;
    size_t first = last;
    while (first > 0 && lines->items[first - 1].kind != L_BLANK)
        first--;
    bool all = first < last && first > 0;
    for (size_t k = first; k < last && all; k++) {
        line_t *ln = &lines->items[k];
        if (!is_trailer(text + ln->content, ln->end - ln->content) &&
            !(ln->end - ln->content > 1 && text[ln->content] == ' '))
            all = false;
    }
    for (size_t k = 0; k < lines->len; k++) {
        line_t *ln = &lines->items[k];
        if (ln->kind == L_BLANK || ln->kind == L_SKIP)
            continue;
        const char *s = text + ln->content;
        size_t n = ln->end - ln->content;
        if ((all && k >= first && k < last) ||
            (is_trailer(s, n) &&
             (starts_with(s, n, "Signed-off-by:") || starts_with(s, n, "Co-authored-by:") ||
              starts_with(s, n, "Co-Authored-By:") || starts_with(s, n, "Change-Id:") ||
              starts_with(s, n, "(cherry picked"))))
            ln->kind = L_SKIP;
    }
}

static void emit(sent_vec *out, const char *text, size_t start, size_t end, unsigned flags,
                 unsigned para)
{
    while (start < end && is_space(text[start]))
        start++;
    while (end > start && is_space(text[end - 1]))
        end--;
    while (start < end) {
        size_t stop = end;
        if (stop - start > MN_SENT_MAX_BYTES) {
            stop = start + MN_SENT_MAX_BYTES;
            while (stop > start && ((uint8_t)text[stop] & 0xC0) == 0x80)
                stop--;
        }
        mn_sentence s = {start, stop, flags, para};
        mn_vec_push(out, s);
        flags &= ~(unsigned)(MN_SENT_SUBJECT | MN_SENT_BULLET | MN_SENT_HEADING);
        start = stop;
        while (start < end && is_space(text[start]))
            start++;
    }
}

/* Is the word ending right before the full stop at dot an abbreviation or an initial? */
static bool abbreviation_before(const char *text, size_t line_start, size_t dot)
{
    size_t b = dot;
    while (b > line_start && !is_space(text[b - 1]) && text[b - 1] != '(' && text[b - 1] != '"')
        b--;
    size_t n = dot - b;
    if (n == 0 || n > 12)
        return false;
    char w[16];
    size_t k = 0;
    for (size_t i = b; i < dot && k < sizeof(w) - 1; i++)
        w[k++] = (text[i] >= 'A' && text[i] <= 'Z') ? (char)(text[i] | 0x20) : text[i];
    w[k] = '\0';
    /* Cyrillic capitals of the table (Т.е.) are rare; compare what we have */
    for (size_t i = 0; i < MN_ARRAY_SIZE(abbrevs); i++)
        if (strcmp(w, abbrevs[i]) == 0)
            return true;
    /* an initial: one capital letter */
    size_t cl;
    int32_t cp = cp_at(text, dot, b, &cl);
    if (b + cl == dot && is_upper_cp(cp))
        return true;
    /* Cyrillic abbreviations written with capitals (Т.к.): lower the first letter and retry */
    if (cp >= 0x410 && cp <= 0x42F) {
        char w2[16];
        utf8proc_ssize_t m = utf8proc_encode_char(cp + 0x20, (utf8proc_uint8_t *)w2);
        size_t rest = n - cl;
        if ((size_t)m + rest < sizeof(w2)) {
            memcpy(w2 + m, text + b + cl, rest);
            w2[(size_t)m + rest] = '\0';
            for (size_t i = 0; i < MN_ARRAY_SIZE(abbrevs); i++)
                if (strcmp(w2, abbrevs[i]) == 0)
                    return true;
        }
    }
    return false;
}

/* Does the character at i start a sentence (after a full stop and spaces)? */
static bool opens_sentence(const char *text, size_t len, size_t i)
{
    if (i >= len)
        return true;
    size_t n;
    int32_t cp = cp_at(text, len, i, &n);
    if (is_upper_cp(cp) || (cp >= '0' && cp <= '9'))
        return true;
    if (cp == '"' || cp == '\'' || cp == '`' || cp == '(' || cp == '[' || cp == '*' || cp == '-' ||
        cp == '@' || cp == '#' || cp == 0xAB /* « */ || cp == 0x201C /* “ */ || cp == '>')
        return true;
    /* a letter of a script without case (Han, kana...) */
    if (is_letter_cp(cp) && utf8proc_category(cp) == UTF8PROC_CATEGORY_LO)
        return true;
    return false;
}

/* End of a URL starting at i (scheme or www.), or i when there is none. */
static size_t url_end(const char *text, size_t end, size_t i)
{
    const char *s = text + i;
    size_t n = end - i;
    if (!(starts_with(s, n, "http://") || starts_with(s, n, "https://") ||
          starts_with(s, n, "www.") || starts_with(s, n, "ftp://")))
        return i;
    if (i > 0 && !is_space(text[i - 1]) && text[i - 1] != '(' && text[i - 1] != '<' &&
        text[i - 1] != '[' && text[i - 1] != '"' && text[i - 1] != '\'')
        return i;
    size_t e = i;
    while (e < end && !is_space(text[e]) && text[e] != '>' && text[e] != '"')
        e++;
    while (e > i && strchr(".,;:!?)]'", text[e - 1]))
        e--;
    return e;
}

/* End of the code span whose backtick run starts at i (within [i, end)), or i if unclosed. */
static size_t code_end(const char *text, size_t end, size_t i)
{
    size_t run = 0;
    while (i + run < end && text[i + run] == '`')
        run++;
    size_t j = i + run;
    while (j < end) {
        if (text[j] == '`') {
            size_t r = 0;
            while (j + r < end && text[j + r] == '`')
                r++;
            if (r == run)
                return j + r;
            j += r;
            continue;
        }
        if (text[j] == '\n' && j + 1 < end && text[j + 1] == '\n')
            break;
        j++;
    }
    return i;
}

/* Does the trimmed line end with an issue reference (#123) or a closing parenthesis? */
static bool ends_like_item(const char *text, const line_t *ln)
{
    size_t e = ln->end;
    if (e == ln->content)
        return false;
    if (text[e - 1] == ')')
        return true;
    size_t d = e;
    while (d > ln->content && text[d - 1] >= '0' && text[d - 1] <= '9')
        d--;
    return d < e && d > ln->content && text[d - 1] == '#';
}

static void split_paragraph(sent_vec *out, const char *text, const line_vec *lines, size_t from,
                            size_t to, unsigned para)
{
    size_t p_end = lines->items[to - 1].end;
    size_t start = lines->items[from].content;
    unsigned sflags = 0;
    if (lines->items[from].kind == L_BULLET)
        sflags |= MN_SENT_BULLET;
    if (lines->items[from].kind == L_HEADING)
        sflags |= MN_SENT_HEADING;
    for (size_t li = from; li < to; li++) {
        const line_t *ln = &lines->items[li];
        size_t i = ln->content;
        if (li > from) {
            const line_t *prev = &lines->items[li - 1];
            bool cut = false;
            if (ln->kind == L_BULLET || ln->kind == L_HEADING || prev->kind == L_HEADING)
                cut = true;
            else {
                size_t n;
                int32_t cp = cp_at(text, ln->end, ln->content, &n);
                size_t plen = prev->end - prev->content;
                if (is_upper_cp(cp) && (plen < 48 || ends_like_item(text, prev)))
                    cut = true;
            }
            if (cut) {
                emit(out, text, start, prev->end, sflags, para);
                start = ln->content;
                sflags = ln->kind == L_BULLET    ? MN_SENT_BULLET
                         : ln->kind == L_HEADING ? MN_SENT_HEADING
                                                 : 0;
            }
        }
        while (i < ln->end) {
            char c = text[i];
            if (c == '`') {
                size_t e = code_end(text, p_end, i);
                if (e > i) {
                    i = e;
                    continue;
                }
            }
            if (c == 'h' || c == 'w' || c == 'f') {
                size_t e = url_end(text, ln->end, i);
                if (e > i) {
                    i = e;
                    continue;
                }
            }
            size_t n;
            int32_t cp = cp_at(text, ln->end, i, &n);
            if (cp == '.' || cp == '!' || cp == '?' || cp == 0x2026 /* … */) {
                size_t j = i + n;
                /* the rest of the run, then closing quotes and brackets */
                for (;;) {
                    size_t m;
                    int32_t q = cp_at(text, ln->end, j, &m);
                    if (q == '.' || q == '!' || q == '?' || q == 0x2026 || q == ')' || q == '"' ||
                        q == '\'' || q == 0xBB /* » */ || q == 0x201D /* ” */ || q == ']')
                        j += m;
                    else
                        break;
                }
                bool at_eol = j >= ln->end;
                bool spaced = at_eol || is_space(text[j]);
                if (spaced && cp == '.' && abbreviation_before(text, ln->content, i)) {
                    i = j;
                    continue;
                }
                if (spaced) {
                    size_t k = j;
                    while (k < ln->end && is_space(text[k]))
                        k++;
                    bool next_opens;
                    if (k >= ln->end) {
                        /* the line ends here: the next line (if any) decides */
                        next_opens = true;
                        if (li + 1 < to) {
                            const line_t *nx = &lines->items[li + 1];
                            next_opens = nx->kind == L_BULLET || nx->kind == L_HEADING ||
                                         opens_sentence(text, nx->end, nx->content);
                        }
                    } else {
                        next_opens = opens_sentence(text, ln->end, k);
                    }
                    if (next_opens) {
                        emit(out, text, start, j, sflags, para);
                        sflags = 0;
                        start = k < ln->end ? k : (li + 1 < to ? lines->items[li + 1].content : j);
                        if (k >= ln->end && li + 1 < to) {
                            /* the next line starts a sentence: do not cut again at its start */
                            const line_t *nx = &lines->items[li + 1];
                            if (nx->kind == L_BULLET)
                                sflags = MN_SENT_BULLET;
                            else if (nx->kind == L_HEADING)
                                sflags = MN_SENT_HEADING;
                        }
                    }
                }
                i = j;
                continue;
            }
            i += n;
        }
    }
    if (start < p_end)
        emit(out, text, start, p_end, sflags, para);
}

int mn_sentences_split(mn_sentence **out, size_t *n, const char *text, size_t len, unsigned flags)
{
    *out = NULL;
    *n = 0;
    if (!text || len == 0)
        return 0;
    line_vec lines = MN_VEC_INIT;
    sent_vec sents = MN_VEC_INIT;
    classify_lines(&lines, text, len, flags);
    unsigned para = 0;
    bool subject = (flags & MN_SENT_COMMIT) != 0;
    size_t i = 0;
    while (i < lines.len) {
        if (lines.items[i].kind == L_BLANK || lines.items[i].kind == L_SKIP) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < lines.len && lines.items[j].kind != L_BLANK && lines.items[j].kind != L_SKIP)
            j++;
        size_t before = sents.len;
        split_paragraph(&sents, text, &lines, i, j, para);
        if (subject && sents.len > before)
            sents.items[before].flags |= MN_SENT_SUBJECT; /* git's subject: the first paragraph */
        subject = false;
        if (sents.len > before)
            para++;
        i = j;
    }
    mn_vec_release(&lines);
    *out = sents.items;
    *n = sents.len;
    return 0;
}
