/*
 * snippet.c - the few lines of an item shown with it: where the query's
 * words are.
 *
 * FTS5's snippet() re-runs the query on each row and re-tokenizes its text
 * (about 0.2 ms an item, a fifth of a whole search at 100k memories); this
 * finds the window in C instead. The query's weightiest words (query.c)
 * are looked for in the text, case-insensitively (ASCII), at the start of
 * a word; a word not found is looked for again by its first
 * max(4, 70%) bytes, which stands in for its stem (expires -> expir).
 * The first place any of them occurs is the anchor:
 *   prose (memories): SNIPPET_BYTES bytes from a little before it, cut at
 *     spaces, "…" where cut;
 *   code: from the line above the anchor, SNIPPET_LINES lines;
 * with no anchor, the text's beginning. Cuts are on UTF-8 boundaries.
 */
#include "common.h"
#include <ctype.h>

#include "retrieve/retrieve_internal.h"

#define SNIPPET_BYTES  200
#define SNIPPET_BEFORE 60
#define SNIPPET_LINES  4
#define SNIPPET_WORDS  12 /* query words looked for */

static bool word_start(const char *text, const char *p)
{
    if (p == text)
        return true;
    unsigned char before = (unsigned char)p[-1];
    return !(isalnum(before) || before >= 0x80) || (islower(before) && isupper((unsigned char)*p));
}

/* The first place in text where w (its first n bytes) starts a word, or NULL. */
static const char *find_word(const char *text, size_t len, const char *w, size_t n)
{
    if (n == 0 || n > len)
        return NULL;
    for (const char *p = text; p + n <= text + len; p++) {
        if (tolower((unsigned char)*p) != tolower((unsigned char)w[0]))
            continue;
        if (strncasecmp(p, w, n) == 0 && word_start(text, p))
            return p;
    }
    return NULL;
}

static const char *anchor(const mn_search_ctx *c, const char *text, size_t len)
{
    const char *best = NULL;
    for (size_t i = 0; i < c->q.nterms && i < SNIPPET_WORDS; i++) {
        const char *w = c->q.terms[i].word;
        size_t wl = strlen(w);
        const char *at = find_word(text, len, w, wl);
        if (!at && wl > 5) {
            size_t stem = wl * 7 / 10 < 4 ? 4 : wl * 7 / 10;
            at = find_word(text, len, w, stem);
        }
        if (at && (!best || at < best))
            best = at;
    }
    return best;
}

/* Back to the start of a UTF-8 sequence. */
static const char *utf8_back(const char *text, const char *p)
{
    while (p > text && ((unsigned char)*p & 0xC0) == 0x80)
        p--;
    return p;
}

const char *mn_snippet(mn_search_ctx *c, const char *text, bool code)
{
    if (!text)
        return "";
    size_t len = strlen(text);
    const char *at = anchor(c, text, len), *end = text + len, *start, *stop;
    if (code) {
        start = at ? at : text;
        while (start > text && start[-1] != '\n')
            start--;
        if (at && start > text) { /* one line of context above */
            start--;
            while (start > text && start[-1] != '\n')
                start--;
        }
        stop = start;
        for (int i = 0; i < SNIPPET_LINES && stop < end; i++) {
            const char *nl = memchr(stop, '\n', (size_t)(end - stop));
            stop = nl ? nl + 1 : end;
        }
        if ((size_t)(stop - start) > 4 * SNIPPET_BYTES)
            stop = utf8_back(text, start + 4 * SNIPPET_BYTES);
        while (stop > start && (stop[-1] == '\n' || stop[-1] == '\r'))
            stop--;
        return mn_arena_strndup(c->arena, start, (size_t)(stop - start));
    }
    start = at && at - text > SNIPPET_BEFORE ? at - SNIPPET_BEFORE : text;
    if (start > text) {
        while (start < at && *start != ' ' && *start != '\n')
            start++; /* the next word */
        while (start < at && (*start == ' ' || *start == '\n'))
            start++;
    }
    stop = end - start > SNIPPET_BYTES ? start + SNIPPET_BYTES : end;
    if (stop < end) {
        const char *sp = stop;
        while (sp > start + SNIPPET_BYTES / 2 && *sp != ' ')
            sp--;
        stop = *sp == ' ' ? sp : utf8_back(text, stop);
    }
    mn_buf b = MN_BUF_INIT;
    if (start > text)
        mn_buf_puts(&b, "\xe2\x80\xa6");
    for (const char *p = start; p < stop; p++)
        mn_buf_putc(&b, *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p);
    if (stop < end)
        mn_buf_puts(&b, "\xe2\x80\xa6");
    const char *out = mn_arena_strndup(c->arena, b.ptr, b.len);
    mn_buf_release(&b);
    return out;
}
