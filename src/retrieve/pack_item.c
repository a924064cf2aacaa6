/*
 * pack_item.c - one item of `context` written for an agent: its head
 * line, its units (pack_internal.h), the reason it is there.
 *
 * A memory: the head names its kind, title, short id (the first 12
 * characters of its id: `feedback` and `mnemo show` take it) and the
 * reason; rules and patterns also who saved them. Then every field given
 * at save time, each a unit: the body a sentence a unit (split after . ! ?
 * before an upper-case letter, a digit or a quote, never inside a quoted
 * string or a code span), then situation ("When:", for a decision
 * "Because:"), error messages, what failed, solution ("Fix:"),
 * alternatives, files modified, scope, links and citations, keywords, who
 * saved it and when, the conversation excerpt. Units are ranked by what a
 * shortened form should keep first: for a decision its reason (always
 * kept: a form without it does not exist) and the decisions it replaced;
 * for the others the first sentence, the fix, the error messages, the
 * situation. A shortened memory ends with a line naming its whole id for
 * `mnemo show` (and mnemo://memory/ID over MCP).
 *
 * Code: the head is `path:line` (the first line shown), the symbol and the
 * reason, then the chunk's lines as they are, in a fence, from the lines
 * the search's snippet found (its anchor and the line above) down to the
 * end of the chunk, at most CODE_LINES lines and none longer than
 * CODE_LINE_BYTES (the window ends before one). A chunk that is one line
 * only naming other code (an alias `_print_IDFT = _print_DFT`, an import, a
 * re-export) is no place to look: pk_trivial_code.
 *
 * Reasons: "matches `a`, `b`" names up to three of the question's words
 * (identifiers and longer words first, stop words never) found at the
 * start of a word in the item's text.
 */
#include "common.h"
#include <ctype.h>

#include "retrieve/pack_internal.h"
#include "text/tokenize.h"
#include "store/store_search.h"
#include "util/buf.h"
#include "util/util.h"

#define CODE_LINES      30  /* lines of code an item shows, at most */
#define CODE_LINE_BYTES 400 /* a longer line (minified, data) ends the window */
#define WORDS_MAX       24  /* question words kept for reasons */
#define MATCHES_MAX     3   /* named in one reason */
#define SHORT_ID        12  /* characters of an id shown */

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

size_t pk_count(pk_ctx *c, const char *text)
{
    return mn_tokens_count(c->counter, text, strlen(text));
}

/* ---- the question's words ---- */

static bool word_char(unsigned char ch)
{
    return isalnum(ch) || ch == '_' || ch >= 0x80;
}

/* An identifier rather than a word: _ . digits or an inner capital. */
static bool identifier_like(const char *w)
{
    for (const char *p = w; *p; p++)
        if (*p == '_' || *p == '.' || isdigit((unsigned char)*p) ||
            (p > w && isupper((unsigned char)*p)))
            return true;
    return false;
}

static int cmp_words(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    bool ix = identifier_like(x), iy = identifier_like(y);
    if (ix != iy)
        return ix ? -1 : 1;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx > ly ? -1 : 1) : 0;
}

void pk_words_init(pk_ctx *c, const char *q)
{
    c->words = NULL;
    c->nwords = 0;
    size_t cap = 0;
    for (const char *p = q ? q : ""; *p;) {
        if (!word_char((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *s = p;
        while (*p && (word_char((unsigned char)*p) ||
                      (*p == '.' && word_char((unsigned char)p[1]) && p > s)))
            p++;
        size_t n = (size_t)(p - s);
        if (n < 3 || n > 64 || isdigit((unsigned char)*s))
            continue;
        char lower[65];
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)tolower((unsigned char)s[i]);
        lower[n] = '\0';
        if (mn_lang_is_stopword(MN_LANG_EN, lower, n))
            continue;
        bool dup = false;
        for (size_t i = 0; i < c->nwords && !dup; i++)
            dup = strlen(c->words[i]) == n && !strncasecmp(c->words[i], s, n);
        if (dup)
            continue;
        if (c->nwords == cap) {
            cap = cap ? 2 * cap : 16;
            c->words = mn_realloc(c->words, cap * sizeof(*c->words));
        }
        c->words[c->nwords++] = mn_strndup(s, n);
    }
    if (c->nwords > 1)
        qsort(c->words, c->nwords, sizeof(*c->words), cmp_words);
    while (c->nwords > WORDS_MAX)
        free(c->words[--c->nwords]);
}

void pk_ctx_release(pk_ctx *c)
{
    for (size_t i = 0; i < c->nwords; i++)
        free(c->words[i]);
    free(c->words);
    size_t pos = 0;
    const char *key;
    void *value;
    while (mn_map_next(&c->cited, &pos, &key, &value))
        free(value);
    mn_map_release(&c->cited);
}

/* Whether w occurs in text at the start of a word, ignoring case. */
static bool has_word(const char *text, const char *w)
{
    for (const char *p = strcasestr(text, w); p; p = strcasestr(p + 1, w))
        if (p == text || !word_char((unsigned char)p[-1]))
            return true;
    return false;
}

char *pk_matches(const pk_ctx *c, const char *text)
{
    mn_buf b = MN_BUF_INIT;
    size_t found = 0;
    for (size_t i = 0; i < c->nwords && found < MATCHES_MAX; i++) {
        if (!has_word(text, c->words[i]))
            continue;
        mn_buf_printf(&b, "%s`%s`", found ? ", " : "matches ", c->words[i]);
        found++;
    }
    return found ? mn_buf_detach(&b) : NULL;
}

/* ---- units ---- */

void pk_unit_add(pk_entry *e, char *text, int place)
{
    if (e->nunits == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->units = mn_realloc(e->units, e->cap * sizeof(*e->units));
    }
    e->units[e->nunits++] = (pk_unit){text, PK_UNCOUNTED, place};
}

/*
 * "<indent><label><text>\n" with the text's own line breaks kept, each
 * further line indented by indent + 2 (so that it stays inside the list
 * item); runs of blank lines become one, trailing space and \r go.
 */
static char *field_text(const char *indent, const char *label, const char *text)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s%s", indent, label);
    const char *p = text;
    bool first = true, blank = false;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n == 0) {
            blank = !first;
        } else {
            if (!first)
                mn_buf_printf(&b, "\n%s%s  ", blank ? "\n" : "", indent);
            /* a line of its own may start with spaces: keep them (code in a body) */
            mn_buf_put(&b, p, n);
            first = false;
            blank = false;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    mn_buf_putc(&b, '\n');
    return mn_buf_detach(&b);
}

static bool abbreviation(const char *start, const char *dot)
{
    static const char *const abbr[] = {"e.g", "i.e", "etc", "vs", "cf",     "mr",  "mrs",
                                       "ms",  "dr",  "fig", "no", "approx", "incl"};
    const char *w = dot;
    while (w > start && (isalpha((unsigned char)w[-1]) || w[-1] == '.'))
        w--;
    size_t n = (size_t)(dot - w);
    if (n == 1)
        return true; /* an initial, "A. Smith" */
    for (size_t i = 0; i < MN_ARRAY_SIZE(abbr); i++)
        if (strlen(abbr[i]) == n && !strncasecmp(w, abbr[i], n))
            return true;
    return false;
}

/*
 * Where the sentences of one line of prose end: after . ! ? (and closing
 * quotes or brackets) followed by spaces and an upper-case letter, a digit,
 * a quote or a backquote; never inside a `code span` or a "quoted string",
 * nor inside a 'quoted string' (a quote not between two letters: not an
 * apostrophe), unless the single quotes do not pair up on the line (then
 * they are apostrophes of another kind and are ignored). Calls cb with
 * each sentence, trimmed.
 */
/* The quotes open after s[i]: backticks, double quotes, and (with use_single) single quotes
 * that are not an apostrophe between two letters. */
static void quote_step(const char *s, size_t len, size_t i, int use_single, int *back, int *dbl,
                       int *sgl)
{
    char ch = s[i];
    if (ch == '`')
        *back ^= 1;
    else if (ch == '"' && !*back)
        *dbl ^= 1;
    else if (ch == '\'' && !*back && !*dbl && use_single &&
             !(i > 0 && isalpha((unsigned char)s[i - 1]) && i + 1 < len &&
               isalpha((unsigned char)s[i + 1])))
        *sgl ^= 1;
}

static void sentences(const char *s, size_t len, void (*cb)(void *, const char *, size_t),
                      void *payload)
{
    for (int use_single = 1; use_single >= 0; use_single--) {
        int back = 0, dbl = 0, sgl = 0;
        for (size_t i = 0; i < len; i++)
            quote_step(s, len, i, use_single, &back, &dbl, &sgl);
        if (use_single && sgl)
            continue; /* the single quotes do not pair: read them as apostrophes */
        const char *start = s;
        back = dbl = sgl = 0;
        for (size_t i = 0; i < len; i++) {
            char ch = s[i];
            quote_step(s, len, i, use_single, &back, &dbl, &sgl);
            if (back || dbl || sgl || (ch != '.' && ch != '!' && ch != '?'))
                continue;
            size_t j = i + 1;
            while (j < len && (s[j] == ')' || s[j] == ']' || s[j] == '"' || s[j] == '\''))
                j++;
            if (j >= len || s[j] != ' ')
                continue;
            size_t k = j;
            while (k < len && s[k] == ' ')
                k++;
            if (k >= len)
                continue;
            unsigned char next = (unsigned char)s[k];
            if (!(isupper(next) || isdigit(next) || next == '`' || next == '"' || next == '\'' ||
                  next >= 0x80))
                continue;
            if (ch == '.' && abbreviation(start, s + i))
                continue;
            cb(payload, start, (size_t)(s + j - start));
            start = s + k;
            i = k - 1;
        }
        if (start < s + len)
            cb(payload, start, (size_t)(s + len - start));
        return;
    }
}

typedef struct {
    pk_entry *e;
    int place;    /* display places: body sentences take place, place + 1, ... */
    size_t count; /* sentences so far */
} body_state;

static void add_sentence(void *payload, const char *s, size_t n)
{
    body_state *b = payload;
    mn_buf u = MN_BUF_INIT;
    mn_buf_puts(&u, "  ");
    mn_buf_put(&u, s, n);
    mn_buf_putc(&u, '\n');
    pk_unit_add(b->e, mn_buf_detach(&u), b->place++);
    b->count++;
}

/*
 * The body as units: each line of prose cut into sentences, a line that
 * looks like code or a list (indented, or starting with - * > | #) kept
 * whole. Returns the number of units added.
 */
static size_t body_units(pk_entry *e, const char *body, int place)
{
    body_state st = {e, place, 0};
    for (const char *p = body; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n) {
            bool literal = p[0] == ' ' || p[0] == '\t' || strchr("-*>|#", p[0]) ||
                           (n >= 3 && !strncmp(p, "```", 3));
            if (literal)
                add_sentence(&st, p, n);
            else
                sentences(p, n, add_sentence, &st);
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    return st.count;
}

/* Importance ranks: units are reordered by these after they are all added. */
typedef struct {
    pk_unit u;
    int rank;
    size_t seq;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The values of a JSON string array, joined by sep; "" when empty. */
static void put_list(mn_buf *b, const json_t *a, const char *sep)
{
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v)
    {
        if (json_is_string(v))
            mn_buf_printf(b, "%s%s", i ? sep : "", json_string_value(v));
    }
}

/* A text field or an array of texts (alternatives may be either). */
static void put_text_or_list(mn_buf *b, const json_t *v)
{
    if (json_is_string(v))
        mn_buf_puts(b, json_string_value(v));
    else if (json_is_array(v))
        put_list(b, v, "; ");
}

static void put_flat(mn_buf *b, const char *s)
{
    for (; *s; s++)
        mn_buf_putc(b, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
}

/* ---- memories ---- */

/* Importance ranks (lower first into a shortened form). */
enum {
    R_REASON,    /* a decision's reason: always kept */
    R_FIRST,     /* the body's first sentence */
    R_FIX,       /* solution */
    R_ERRORS,    /* error messages */
    R_SITUATION, /* a gotcha's situation */
    R_CHAIN,     /* the decisions a decision replaced or came from */
    R_FAILED,    /* what failed */
    R_BODY,      /* the rest of the body */
    R_ALTERNATIVE,
    R_FILES,
    R_SCOPE,
    R_LINKS,
    R_SAVED,
    R_KEYWORDS,
    R_EXCERPT
};

/* Display places (the order written). */
enum {
    P_BODY = 0, /* + sentence index */
    P_SITUATION = 10000,
    P_ERRORS,
    P_FAILED,
    P_FIX,
    P_ALTERNATIVE,
    P_FILES,
    P_SCOPE,
    P_LINKS,
    P_KEYWORDS,
    P_SAVED,
    P_EXCERPT,
    P_CHAIN
};

void pk_memory_entry(pk_ctx *c, pk_entry *e, const json_t *mem, const char *status,
                     const char *reason, bool causal, int idlen)
{
    const char *kind = jstr(mem, "kind"), *title = jstr(mem, "title"), *body = jstr(mem, "body"),
               *id = jstr(mem, "id");
    const json_t *ctx = json_object_get(mem, "context"), *scope = json_object_get(mem, "scope"),
                 *prov = json_object_get(mem, "provenance");
    bool decision = !strcmp(kind, "decision");
    mn_buf h = MN_BUF_INIT;

    /* the head */
    mn_buf_puts(&h, "- ");
    if (!decision)
        mn_buf_printf(&h, "**%s** ", kind);
    put_flat(&h, title);
    mn_buf_printf(&h, " (%.*s)", idlen, id);
    /* another status is said as it is: "from branch X (not merged)" (retrieve/branch_filter.c) */
    if (status && strcmp(status, "active") != 0) {
        if (!strcmp(status, "stale"))
            mn_buf_puts(&h, " [stale: the code it cites changed]");
        else if (!strcmp(status, "pending"))
            mn_buf_puts(&h, " [pending review]");
        else
            mn_buf_printf(&h, " [%s]", status);
    }
    if (reason && *reason)
        mn_buf_printf(&h, " -- %s", reason);
    if (!strcmp(kind, "rule") || !strcmp(kind, "pattern")) {
        const char *src = jstr(prov, "source"), *author = jstr(prov, "author");
        if (*author || *src) {
            mn_buf_puts(&h, reason && *reason ? "; saved by " : " -- saved by ");
            mn_buf_puts(&h, *author ? author : src);
            if (*author && *src)
                mn_buf_printf(&h, " (%s)", src);
        }
    }
    mn_buf_putc(&h, '\n');
    e->head = mn_buf_detach(&h);

    /* the units, then ranked */
    size_t n0 = e->nunits;
    ranked *r = NULL;
    size_t nr = 0, capr = 0;
#define ADD_UNIT(text, place, rank)                                    \
    do {                                                               \
        if (nr == capr) {                                              \
            capr = capr ? 2 * capr : 16;                               \
            r = mn_realloc(r, capr * sizeof(*r));                      \
        }                                                              \
        r[nr] = (ranked){{(text), PK_UNCOUNTED, (place)}, (rank), nr}; \
        nr++;                                                          \
    } while (0)

    /* the body, unless it only repeats the title */
    if (*body && strncmp(body, title, strlen(body)) != 0) {
        size_t before = e->nunits;
        size_t n = body_units(e, body, P_BODY);
        for (size_t i = 0; i < n; i++)
            ADD_UNIT(e->units[before + i].text, e->units[before + i].place,
                     decision && !*jstr(ctx, "situation") ? R_REASON
                     : i == 0                             ? R_FIRST
                                                          : R_BODY);
        e->nunits = before; /* taken over by r */
    }
    const char *situation = jstr(ctx, "situation");
    if (*situation)
        ADD_UNIT(field_text("  ", decision ? "Because: " : "When: ", situation), P_SITUATION,
                 decision ? R_REASON : R_SITUATION);
    const json_t *errs = json_object_get(ctx, "error_messages");
    if (json_array_size(errs)) {
        mn_buf b = MN_BUF_INIT;
        size_t i;
        const json_t *m;
        json_array_foreach(errs, i, m)
        {
            char *line =
                field_text("  ", "Error: ", json_string_value(m) ? json_string_value(m) : "");
            mn_buf_puts(&b, line);
            free(line);
        }
        ADD_UNIT(mn_buf_detach(&b), P_ERRORS, R_ERRORS);
    }
    const char *failed = jstr(ctx, "what_failed");
    if (*failed)
        ADD_UNIT(field_text("  ", "Tried, did not work: ", failed), P_FAILED, R_FAILED);
    const char *solution = jstr(ctx, "solution");
    if (*solution)
        ADD_UNIT(field_text("  ", "Fix: ", solution), P_FIX, R_FIX);
    const json_t *alt = json_object_get(ctx, "alternatives");
    if (!alt)
        alt = json_object_get(mem, "alternatives");
    if ((json_is_string(alt) && *json_string_value(alt)) || json_array_size(alt)) {
        mn_buf a = MN_BUF_INIT;
        put_text_or_list(&a, alt);
        ADD_UNIT(field_text("  ", "Alternatives: ", a.ptr ? a.ptr : ""), P_ALTERNATIVE,
                 decision ? R_CHAIN : R_ALTERNATIVE);
        mn_buf_release(&a);
    }
    const json_t *files = json_object_get(ctx, "files_modified");
    if (json_array_size(files)) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_puts(&b, "  Files: ");
        put_list(&b, files, ", ");
        mn_buf_putc(&b, '\n');
        ADD_UNIT(mn_buf_detach(&b), P_FILES, R_FILES);
    }
    {
        mn_buf b = MN_BUF_INIT;
        static const char *const parts[][2] = {
            {"paths", "paths "}, {"symbols", "symbols "}, {"tags", "tags "}};
        for (size_t i = 0; i < MN_ARRAY_SIZE(parts); i++) {
            const json_t *a = json_object_get(scope, parts[i][0]);
            if (!json_array_size(a))
                continue;
            mn_buf_puts(&b, b.len ? "; " : "  Scope: ");
            mn_buf_puts(&b, parts[i][1]);
            put_list(&b, a, ", ");
        }
        if (*jstr(scope, "branch"))
            mn_buf_printf(&b, "%sbranch %s", b.len ? "; " : "  Scope: ", jstr(scope, "branch"));
        if (b.len) {
            mn_buf_putc(&b, '\n');
            ADD_UNIT(mn_buf_detach(&b), P_SCOPE, R_SCOPE);
        }
        mn_buf_release(&b);
    }
    {
        /* links other than the causal chain (shown under a decision), and citations */
        mn_buf b = MN_BUF_INIT;
        size_t i;
        const json_t *l;
        json_array_foreach(json_object_get(mem, "links"), i, l)
        {
            const char *lk = jstr(l, "kind"), *to = jstr(l, "to");
            if (decision && causal && (!strcmp(lk, "supersedes") || !strcmp(lk, "caused_by")) &&
                !strchr(to, ':'))
                continue;
            mn_buf_printf(&b, "%s%s %s", b.len ? "; " : "  Links: ", lk, to);
        }
        json_array_foreach(json_object_get(mem, "citations"), i, l)
        {
            mn_buf_printf(&b, "%s%s", b.len ? "; " : "  Links: ", jstr(l, "path"));
            if (json_integer_value(json_object_get(l, "start_line")) > 0)
                mn_buf_printf(&b, ":%lld-%lld",
                              (long long)json_integer_value(json_object_get(l, "start_line")),
                              (long long)json_integer_value(json_object_get(l, "end_line")));
            if (*jstr(l, "symbol"))
                mn_buf_printf(&b, " %s", jstr(l, "symbol"));
        }
        if (b.len) {
            mn_buf_putc(&b, '\n');
            ADD_UNIT(mn_buf_detach(&b), P_LINKS, R_LINKS);
        }
        mn_buf_release(&b);
    }
    const json_t *kw = json_object_get(ctx, "trigger_keywords");
    if (json_array_size(kw)) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_puts(&b, "  Keywords: ");
        put_list(&b, kw, ", ");
        mn_buf_putc(&b, '\n');
        ADD_UNIT(mn_buf_detach(&b), P_KEYWORDS, R_KEYWORDS);
    }
    {
        static const char *const parts[][2] = {{"commit", "commit "},
                                               {"task", "task "},
                                               {"dialog", "dialog "},
                                               {"session", "session "}};
        mn_buf b = MN_BUF_INIT;
        const char *author = jstr(prov, "author"), *src = jstr(prov, "source"),
                   *created = jstr(mem, "created_at");
        mn_buf_puts(&b, "  Saved");
        if (*author)
            mn_buf_printf(&b, " by %s", author);
        if (*src)
            mn_buf_printf(&b, " (%s)", src);
        if (strlen(created) >= 10)
            mn_buf_printf(&b, " on %.10s", created);
        for (size_t i = 0; i < MN_ARRAY_SIZE(parts); i++)
            if (*jstr(prov, parts[i][0]))
                mn_buf_printf(&b, ", %s%s", parts[i][1], jstr(prov, parts[i][0]));
        mn_buf_putc(&b, '\n');
        if (b.len > strlen("  Saved\n"))
            ADD_UNIT(mn_buf_detach(&b), P_SAVED, R_SAVED);
        mn_buf_release(&b);
    }
    const char *excerpt = jstr(ctx, "conversation_excerpt");
    if (*excerpt)
        ADD_UNIT(field_text("  ", "Excerpt: ", excerpt), P_EXCERPT, R_EXCERPT);
    if (decision && causal) {
        /* the chain: pack.c walks it and adds a unit per link (R_CHAIN, P_CHAIN + i) */
        size_t before = e->nunits;
        pk_chain_units(c, e, mem, P_CHAIN);
        for (size_t i = before; i < e->nunits; i++)
            ADD_UNIT(e->units[i].text, e->units[i].place, R_CHAIN);
        e->nunits = before;
    }
#undef ADD_UNIT
    if (nr > 1)
        qsort(r, nr, sizeof(*r), cmp_ranked);
    e->nunits = n0;
    e->min_units = 0;
    for (size_t i = 0; i < nr; i++) {
        pk_unit_add(e, r[i].u.text, r[i].u.place);
        if (r[i].rank == R_REASON)
            e->min_units = i + 1;
    }
    free(r);
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "  (Shortened: the whole memory is `mnemo show %s`.)\n", id);
    e->pointer = mn_buf_detach(&p);
    e->pointer_tokens = PK_UNCOUNTED;
    e->head_tokens = PK_UNCOUNTED;
}

/* A stale memory: one whole line, its title and id, not its text (it may no longer hold). */
void pk_stale_entry(pk_entry *e, const json_t *mem, int idlen)
{
    mn_buf h = MN_BUF_INIT;
    mn_buf_printf(&h, "- **%s** ", jstr(mem, "kind"));
    put_flat(&h, jstr(mem, "title"));
    mn_buf_printf(&h, " (%.*s; `mnemo stale` shows what changed)\n", idlen, jstr(mem, "id"));
    e->head = mn_buf_detach(&h);
    e->head_tokens = PK_UNCOUNTED;
}

void pk_cite_paths(pk_ctx *c, const json_t *mem)
{
    const json_t *ctx = json_object_get(mem, "context"), *scope = json_object_get(mem, "scope");
    mn_buf who = MN_BUF_INIT;
    mn_buf_printf(&who, "cited by the %s %.*s", jstr(mem, "kind"), SHORT_ID, jstr(mem, "id"));
    const json_t *lists[] = {json_object_get(ctx, "files_modified"),
                             json_object_get(scope, "paths")};
    for (size_t k = 0; k < MN_ARRAY_SIZE(lists); k++) {
        size_t i;
        const json_t *v;
        json_array_foreach(lists[k], i, v)
        {
            const char *p = json_string_value(v);
            if (p && *p && !mn_map_has(&c->cited, p))
                mn_map_set(&c->cited, p, mn_strdup(who.ptr));
        }
    }
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(mem, "citations"), i, l)
    {
        const char *p = jstr(l, "path");
        if (*p && !mn_map_has(&c->cited, p))
            mn_map_set(&c->cited, p, mn_strdup(who.ptr));
    }
    json_array_foreach(json_object_get(mem, "links"), i, l)
    {
        const char *to = jstr(l, "to");
        if (!strncmp(to, "file:", 5) && to[5] && !mn_map_has(&c->cited, to + 5))
            mn_map_set(&c->cited, to + 5, mn_strdup(who.ptr));
    }
    mn_buf_release(&who);
}

/* ---- code ---- */

static const char *fence_language(const char *path)
{
    static const char *const map[][2] = {
        {".py", "python"}, {".c", "c"},           {".h", "c"},           {".cc", "cpp"},
        {".cpp", "cpp"},   {".hpp", "cpp"},       {".js", "javascript"}, {".mjs", "javascript"},
        {".jsx", "jsx"},   {".ts", "typescript"}, {".tsx", "tsx"},       {".go", "go"},
        {".rs", "rust"},   {".java", "java"},     {".rb", "ruby"},       {".php", "php"},
        {".cs", "csharp"}, {".sh", "bash"},       {".md", "markdown"},   {".rst", "rst"},
        {".json", "json"}, {".toml", "toml"},     {".yaml", "yaml"},     {".yml", "yaml"},
        {".sql", "sql"}};
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return "";
    for (size_t i = 0; i < MN_ARRAY_SIZE(map); i++)
        if (!strcmp(dot, map[i][0]))
            return map[i][1];
    return "";
}

void pk_code_entry(pk_entry *e, const mn_search_item *it, const char *reason)
{
    e->path = it->path;
    e->snippet = it->snippet;
    e->chunk_id = it->type == MN_ITEM_CODE ? it->rowid : it->best_chunk;
    e->symbol = it->type == MN_ITEM_CODE && it->title && it->path &&
                        strncmp(it->title, it->path, strlen(it->path)) != 0
                    ? it->title
                    : NULL;
    e->fenced = true;
    e->fence_tokens = PK_UNCOUNTED;
    /* the head is written by pk_code_build, once the first line shown is known */
    e->head = mn_strdup(reason ? reason : "");
    e->head_tokens = PK_UNCOUNTED;
}

static bool skip_space(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
    return **p != '\0';
}

/* A dotted name (a.b.c) at *p; moves past it. */
static bool dotted_name(const char **p)
{
    const char *s = *p;
    if (!(isalpha((unsigned char)*s) || *s == '_' || *s == '$'))
        return false;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.')
        s++;
    *p = s;
    return true;
}

/* One line: an alias or trivial assignment, an import, a re-export. */
static bool trivial_line(const char *line)
{
    const char *p = line;
    if (!skip_space(&p))
        return false;
    static const char *const starts[] = {"import ",          "from ",  "export * from", "export {",
                                         "pub use ",         "use ",   "#include",      "require(",
                                         "module.exports =", "__all__"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(starts); i++)
        if (!strncmp(p, starts[i], strlen(starts[i])))
            return true;
    /* [const|let|var] name [: type] = name|None|True|False|null|nil|[]|{}|() [;] */
    static const char *const decl[] = {"const ", "let ", "var "};
    for (size_t i = 0; i < MN_ARRAY_SIZE(decl); i++)
        if (!strncmp(p, decl[i], strlen(decl[i])))
            p += strlen(decl[i]);
    if (!dotted_name(&p))
        return false;
    skip_space(&p);
    if (*p == ':') { /* an annotation */
        p++;
        while (*p && *p != '=')
            p++;
    }
    if (*p != '=' || p[1] == '=')
        return false;
    p++;
    if (!skip_space(&p))
        return false;
    static const char *const empty[] = {"None", "True", "False", "null", "nil", "[]", "{}", "()"};
    bool value = false;
    for (size_t i = 0; i < MN_ARRAY_SIZE(empty) && !value; i++)
        if (!strncmp(p, empty[i], strlen(empty[i]))) {
            const char *q = p + strlen(empty[i]);
            if (!(isalnum((unsigned char)*q) || *q == '_')) {
                p = q;
                value = true;
            }
        }
    if (!value && !dotted_name(&p))
        return false;
    skip_space(&p);
    if (*p == ';')
        p++;
    skip_space(&p);
    return *p == '\0' || *p == '#' || (*p == '/' && p[1] == '/');
}

bool pk_trivial_code(const char *text)
{
    const char *only = NULL;
    size_t only_len = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *s = p;
        while (s < p + n && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        bool comment = s == p + n || *s == '#' || (s[0] == '/' && s + 1 < p + n && s[1] == '/');
        if (!comment) {
            if (only)
                return false; /* two lines of code */
            only = s;
            only_len = (size_t)(p + n - s);
        }
        p = nl ? nl + 1 : p + n;
    }
    if (!only)
        return false;
    char *line = mn_strndup(only, only_len);
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
        line[--l] = '\0';
    bool t = trivial_line(line);
    free(line);
    return t;
}

static int chunk_start_of(void *payload, const mn_chunk_hit *h)
{
    *(int64_t *)payload = h->start_line;
    return 0;
}

static const char *fence_close(const pk_entry *e)
{
    return !strncmp(e->fence_open, "  ~~~", 5) ? "  ~~~\n" : "  ```\n";
}

bool pk_code_build(pk_ctx *c, pk_entry *e)
{
    if (e->built)
        return true;
    e->built = true;
    char *reason = e->head, *text = NULL;
    int64_t first_line = 0;
    if (e->chunk_id > 0 && mn_store_chunk_text(c->store, &text, e->chunk_id) != 0) {
        mn_error_clear();
        text = NULL;
    }
    if (text && pk_trivial_code(text)) {
        free(text);
        return false;
    }
    const json_t *sl = json_object_get(e->item, "start_line");
    int64_t chunk_start = sl ? json_integer_value(sl) : 0;
    if (text) {
        /* the window: from the snippet's first line (the search's anchor and the line above) */
        const char *from = text;
        if (e->snippet && *e->snippet) {
            const char *nl = strchr(e->snippet, '\n');
            size_t n = nl ? (size_t)(nl - e->snippet) : strlen(e->snippet);
            char *first = mn_strndup(e->snippet, n);
            const char *at = n ? strstr(text, first) : NULL;
            free(first);
            if (at) {
                while (at > text && at[-1] != '\n')
                    at--;
                from = at;
            }
        }
        int64_t skipped = 0;
        for (const char *p = text; p < from; p++)
            skipped += *p == '\n';
        if (chunk_start <= 0) /* a file's best chunk: where it starts */
            mn_store_chunks_by_id(c->store, &e->chunk_id, 1, chunk_start_of, &chunk_start);
        mn_error_clear();
        first_line = chunk_start > 0 ? chunk_start + skipped : 0;
        bool tick = strstr(from, "```") != NULL;
        mn_buf fo = MN_BUF_INIT;
        mn_buf_printf(&fo, "  %s%s\n", tick ? "~~~" : "```", fence_language(e->path));
        e->fence_open = mn_buf_detach(&fo);
        size_t lines = 0, last_code = 0;
        for (const char *p = from; *p && lines < CODE_LINES;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            while (n && p[n - 1] == '\r')
                n--;
            if (n > CODE_LINE_BYTES || memchr(p, '\0', n))
                break;
            mn_buf u = MN_BUF_INIT;
            mn_buf_puts(&u, "  ");
            mn_buf_put(&u, p, n);
            mn_buf_putc(&u, '\n');
            pk_unit_add(e, mn_buf_detach(&u), (int)lines);
            lines++;
            bool blank = true;
            for (size_t i = 0; i < n && blank; i++)
                blank = p[i] == ' ' || p[i] == '\t';
            if (!blank)
                last_code = lines;
            p = nl ? nl + 1 : p + strlen(p);
        }
        while (e->nunits > last_code) /* no trailing blank lines */
            free(e->units[--e->nunits].text);
        free(text);
    }
    mn_buf h = MN_BUF_INIT;
    mn_buf_printf(&h, "- `%s", e->path ? e->path : "?");
    if (first_line > 0)
        mn_buf_printf(&h, ":%lld", (long long)first_line);
    mn_buf_puts(&h, "`");
    if (e->symbol) {
        mn_buf_puts(&h, " `");
        put_flat(&h, e->symbol);
        mn_buf_puts(&h, "`");
    }
    if (*reason)
        mn_buf_printf(&h, " -- %s", reason);
    mn_buf_putc(&h, '\n');
    free(reason);
    e->head = mn_buf_detach(&h);
    e->head_tokens = PK_UNCOUNTED;
    if (first_line > 0)
        json_object_set_new(e->item, "line", json_integer(first_line));
    return true;
}

/* ---- forms ---- */

size_t pk_form_tokens(pk_ctx *c, pk_entry *e, size_t k)
{
    if (e->head_tokens == PK_UNCOUNTED)
        e->head_tokens = pk_count(c, e->head);
    size_t t = e->head_tokens;
    for (size_t i = 0; i < k && i < e->nunits; i++) {
        if (e->units[i].tokens == PK_UNCOUNTED)
            e->units[i].tokens = pk_count(c, e->units[i].text);
        t += e->units[i].tokens;
    }
    if (k < e->nunits && e->pointer) {
        if (e->pointer_tokens == PK_UNCOUNTED)
            e->pointer_tokens = pk_count(c, e->pointer);
        t += e->pointer_tokens;
    }
    if (k > 0 && e->fenced && e->fence_open) {
        if (e->fence_tokens == PK_UNCOUNTED)
            e->fence_tokens = pk_count(c, e->fence_open) + pk_count(c, fence_close(e));
        t += e->fence_tokens;
    }
    return t;
}

static int cmp_place(const void *a, const void *b)
{
    const pk_unit *x = *(pk_unit *const *)a, *y = *(pk_unit *const *)b;
    return x->place < y->place ? -1 : x->place > y->place;
}

void pk_form_write(const pk_entry *e, size_t k, mn_buf *b)
{
    mn_buf_puts(b, e->head);
    if (k > e->nunits)
        k = e->nunits;
    const pk_unit **order = mn_malloc((k ? k : 1) * sizeof(*order));
    for (size_t i = 0; i < k; i++)
        order[i] = &e->units[i];
    if (k > 1)
        qsort(order, k, sizeof(*order), cmp_place);
    bool fence = k > 0 && e->fenced && e->fence_open;
    if (fence)
        mn_buf_puts(b, e->fence_open);
    for (size_t i = 0; i < k; i++)
        mn_buf_puts(b, order[i]->text);
    if (fence)
        mn_buf_puts(b, fence_close(e));
    if (k < e->nunits && e->pointer)
        mn_buf_puts(b, e->pointer);
    free(order);
}

void pk_entry_release(pk_entry *e)
{
    free(e->head);
    for (size_t i = 0; i < e->nunits; i++)
        free(e->units[i].text);
    free(e->units);
    free(e->pointer);
    free(e->fence_open);
    json_decref(e->item);
}
