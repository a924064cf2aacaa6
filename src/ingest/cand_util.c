/*
 * cand_util.c - helpers the extractors share: candidates (add, key, title,
 * evidence), text hygiene (valid UTF-8, one-line, clipped, normalised,
 * scrubbed), versions, and the definition lines of thirteen languages.
 *
 * Definitions are read off single lines, not parsed: the API extractor
 * looks at the removed and added lines of a hunk, and parsing both
 * versions of every touched file with tree-sitter costs ~10 ms per file
 * (psf/requests' history would take minutes). A line defines something
 * when it opens with the language's keyword for it (def, class, func, fn,
 * function, ...) after its modifiers; C and C++ definitions are lines at
 * column 0 that look like `type name(args)` without a closing ';'. Public
 * API: Python names without a leading '_', Go names with a capital, Rust
 * `pub`, Java/C#/Kotlin `public` (Kotlin: anything not private/internal),
 * JavaScript/TypeScript `export`, Ruby and PHP not private, C not static.
 */
#include "common.h"
#include <ctype.h>
#include <xxhash.h>

#include "ingest/ingest_internal.h"
#include "memory/scrub.h"
#include "util/util.h"

#define EVIDENCE_LINES 12
#define EVIDENCE_CHARS 900

/* ---- candidates ---- */

mn_candidate *mn_candidate_add(mn_candidate_vec *v, const char *kind, const char *memory_kind,
                               double confidence)
{
    mn_candidate c;
    memset(&c, 0, sizeof(c));
    c.kind = kind;
    c.memory_kind = memory_kind;
    c.confidence = confidence;
    mn_buf_init(&c.body);
    c.paths = json_array();
    c.tags = json_array();
    c.links = json_array();
    mn_vec_push(v, c);
    return &v->items[v->len - 1];
}

void mn_candidates_release(mn_candidate_vec *v)
{
    for (size_t i = 0; i < v->len; i++) {
        mn_candidate *c = &v->items[i];
        free(c->key);
        free(c->title);
        mn_buf_release(&c->body);
        free(c->reasons);
        json_decref(c->paths);
        json_decref(c->symbols);
        json_decref(c->tags);
        json_decref(c->links);
        free(c->file);
        free(c->hunk);
        free(c->supersedes_commit);
        free(c->state_key);
        json_decref(c->supersedes_states);
    }
    mn_vec_release(v);
}

void mn_candidate_key(mn_candidate *c, const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    free(c->key);
    c->key = mn_buf_detach(&b);
}

void mn_candidate_title(mn_candidate *c, const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    free(c->title);
    c->title = mn_ingest_clip(b.ptr ? b.ptr : "", 200);
    mn_buf_release(&b);
}

void mn_strv_add(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    if (!s || !*s)
        return;
    json_array_foreach(arr, i, v) if (!strcmp(json_string_value(v), s)) return;
    json_array_append_new(arr, json_string(s));
}

/* At most EVIDENCE_LINES lines of each side, EVIDENCE_CHARS in all. */
static void put_side(mn_buf *b, const char *text, char mark, size_t *lines)
{
    for (const char *p = text; p && *p && *lines < EVIDENCE_LINES && b->len < EVIDENCE_CHARS;) {
        size_t n = strcspn(p, "\n");
        size_t room = EVIDENCE_CHARS - b->len;
        mn_buf_putc(b, mark);
        mn_buf_put(b, p, n < room ? n : mn_utf8_floor(p, n, room));
        mn_buf_putc(b, '\n');
        (*lines)++;
        p += n + (p[n] == '\n');
    }
}

void mn_candidate_intro(mn_candidate *c, const mn_commit_view *v)
{
    mn_buf_printf(&c->body, "%sCommit message: %s", c->body.len ? "\n" : "", v->subject);
}

static void evidence_to_body(mn_candidate *c)
{
    if (!c->hunk || !*c->hunk)
        return;
    mn_buf_printf(&c->body, "%sEvidence (%s):\n```diff\n%s```\n", c->body.len ? "\n\n" : "",
                  c->file ? c->file : "", c->hunk);
}

void mn_candidate_evidence(mn_candidate *c, const char *file, const mn_hunk *h)
{
    mn_buf b = MN_BUF_INIT;
    size_t lines = 0;
    free(c->file);
    free(c->hunk);
    c->file = mn_strdup(file ? file : "");
    if (h) {
        mn_buf_printf(&b, "@@ -%lld,%lld +%lld,%lld @@%s%s\n", (long long)h->old_start,
                      (long long)h->old_lines, (long long)h->new_start, (long long)h->new_lines,
                      *h->header ? " " : "", h->header);
        put_side(&b, h->removed, '-', &lines);
        put_side(&b, h->added, '+', &lines);
    }
    c->hunk = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    evidence_to_body(c);
}

void mn_candidate_evidence_text(mn_candidate *c, const char *file, const char *text, size_t len)
{
    mn_buf b = MN_BUF_INIT;
    size_t lines = 0;
    char *copy = mn_strndup(text ? text : "", text ? len : 0);
    free(c->file);
    free(c->hunk);
    c->file = mn_strdup(file ? file : "");
    mn_buf_printf(&b, "@@ new file @@\n");
    put_side(&b, copy, '+', &lines);
    free(copy);
    c->hunk = mn_buf_detach(&b);
    evidence_to_body(c);
}

/* ---- text ---- */

void mn_ingest_utf8_fix(char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (c == 0) {
            s[i++] = '?';
            continue;
        }
        if (n == 0 || i + n > len || !mn_utf8_valid(s + i, n)) {
            s[i++] = '?';
            continue;
        }
        i += n;
    }
}

char *mn_ingest_scrub_text(const mn_ingest_env *env, const char *s, size_t len)
{
    const mn_memory_settings *cfg = env ? env->settings : NULL;
    if (!cfg || !cfg->scanner || !cfg->redact || !mn_scan_any(cfg->scanner, s, len, cfg->redact))
        return mn_strndup(s, len);
    mn_buf b = MN_BUF_INIT;
    if (mn_scan_redact(&b, cfg->scanner, s, len, cfg->redact, NULL) != 0) {
        /* the engine failed: keep nothing rather than the secret */
        mn_buf_release(&b);
        mn_error_clear();
        return mn_strdup("[REDACTED]");
    }
    return b.ptr ? mn_buf_detach(&b) : mn_strdup("");
}

/*
 * Scrub, then cut. A token cut in half no longer matches its rule, so the
 * scrub after a cut (the save pipeline's) keeps most of it: whatever is cut
 * is scrubbed first. Only the part a cut keeps is scanned, with CUT_SLACK
 * bytes after it: longer than any built-in rule's match (a private key's
 * body runs to 60,000 bytes), so a secret that starts before the cut is
 * seen whole, and a 60 MB tool output is not scanned for 64 KiB of it.
 */
#define CUT_SLACK ((size_t)64 << 10)

char *mn_ingest_scrub_cut(const mn_ingest_env *env, const char *s, size_t len, size_t max)
{
    size_t window = len > max && len - max > CUT_SLACK ? max + CUT_SLACK : len;
    char *clean = mn_ingest_scrub_text(env, s ? s : "", s ? window : 0);
    size_t n = strlen(clean);
    char *out = mn_ingest_text_dup(clean, n > max ? mn_utf8_floor(clean, n, max) : n);
    free(clean);
    return out;
}

char *mn_ingest_clip_scrubbed(const mn_ingest_env *env, const char *s, size_t max)
{
    size_t len = strlen(s);
    if (mn_utf8_len(s, len) <= max)
        return mn_strdup(s);
    /* a code point is at most 4 bytes: what the clip keeps lies in the first 4 * max */
    char *clean = mn_ingest_scrub_cut(env, s, len, len > 4 * max ? 4 * max : len);
    char *out = mn_ingest_clip(clean, max);
    free(clean);
    return out;
}

char *mn_ingest_clip(const char *s, size_t max)
{
    size_t len = strlen(s);
    if (mn_utf8_len(s, len) <= max)
        return mn_strdup(s);
    size_t cp = 0, cut = 0, space = 0;
    for (size_t i = 0; i < len && cp < max - 1; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            cp++;
            cut = i + 1;
            while (cut < len && ((unsigned char)s[cut] & 0xC0) == 0x80)
                cut++;
            if (s[i] == ' ')
                space = i;
        }
    }
    size_t n = space > cut * 3 / 4 ? space : cut;
    mn_buf b = MN_BUF_INIT;
    mn_buf_put(&b, s, n);
    mn_buf_puts(&b, "…");
    return mn_buf_detach(&b);
}

char *mn_ingest_one_line(const char *s, size_t len)
{
    mn_buf b = MN_BUF_INIT;
    bool space = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = b.len > 0;
            continue;
        }
        if (space)
            mn_buf_putc(&b, ' ');
        space = false;
        mn_buf_putc(&b, c);
    }
    return b.ptr ? mn_buf_detach(&b) : mn_strdup("");
}

char *mn_ingest_norm(const char *s, size_t len)
{
    while (len && (strchr(" \t\n\"'`*_([{<", *s) || *s == '\0')) {
        s++;
        len--;
    }
    while (len && strchr(" \t\n\"'`*_.,;:!?)]}>", s[len - 1]))
        len--;
    char *out = mn_strndup(s, len);
    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return out;
}

void mn_ingest_hash(char out[17], const char *s, size_t len)
{
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(s, len));
}

void mn_lines_each(const char *text, size_t len,
                   int (*cb)(void *payload, const char *line, size_t n), void *payload)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (cb(payload, p, n))
            return;
        p = nl ? nl + 1 : end;
    }
}

/* ---- versions and paths ---- */

int mn_version_major(const char *spec)
{
    int best = -1;
    for (const char *p = spec; p && *p; p++) {
        /* a number starting a version: "v1.9" counts, "py38" and the 2 of "1.2" do not */
        if (!isdigit((unsigned char)*p) ||
            (p > spec && ((isalnum((unsigned char)p[-1]) && p[-1] != 'v') || p[-1] == '.')))
            continue;
        int n = 0;
        while (isdigit((unsigned char)*p) && n < 100000)
            n = n * 10 + (*p++ - '0');
        if (n > best)
            best = n;
        while (*p && (isdigit((unsigned char)*p) || *p == '.'))
            p++;
        if (!*p)
            break;
    }
    return best;
}

bool mn_looks_like_version(const char *s)
{
    if (!s)
        return false;
    if (!strncmp(s, "pypy", 4))
        s += 4;
    if (!isdigit((unsigned char)*s))
        return false;
    int dots = 0;
    for (; *s; s++) {
        if (*s == '.')
            dots++;
        else if (!isdigit((unsigned char)*s) && !(*s == '-' && !strcmp(s, "-dev")) &&
                 strcmp(s, "-dev") != 0)
            return false;
        if (!strcmp(s, "-dev"))
            break;
    }
    return dots >= 1 && dots <= 2;
}

bool mn_cand_noise_path(const mn_delta *d)
{
    switch (d->cls.role) {
    case MN_ROLE_VENDORED:
    case MN_ROLE_GENERATED:
    case MN_ROLE_LOCK:
    case MN_ROLE_TEST:
        return true;
    default:
        break;
    }
    /* fixtures and examples speak of no project's facts */
    static const char *const dirs[] = {"fixtures/",   "testdata/",    "examples/",  "example/",
                                       "samples/",    "docs/_build/", "test/",      "tests/",
                                       "testserver/", "dummyserver/", "testutils/", "test_utils/"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        const char *p = strstr(d->path, dirs[i]);
        if (p && (p == d->path || p[-1] == '/'))
            return true;
    }
    return false;
}

/* ---- definitions ---- */

static bool word_at(const char **p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - *p) < n || memcmp(*p, w, n) != 0)
        return false;
    if (*p + n < end && (isalnum((unsigned char)(*p)[n]) || (*p)[n] == '_'))
        return false;
    *p += n;
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    return true;
}

static bool ident(const char **p, const char *end, char *name, size_t cap)
{
    const char *s = *p;
    if (s >= end ||
        !(isalpha((unsigned char)*s) || *s == '_' || *s == '$' || (unsigned char)*s >= 0x80))
        return false;
    while (*p < end &&
           (isalnum((unsigned char)**p) || **p == '_' || **p == '$' || (unsigned char)**p >= 0x80))
        (*p)++;
    size_t n = (size_t)(*p - s);
    if (n + 1 > cap)
        return false;
    memcpy(name, s, n);
    name[n] = '\0';
    return true;
}

/* Skip any of the words (space separated) in any order; *seen gets those found. */
static void skip_words(const char **p, const char *end, const char *words, mn_buf *seen)
{
    bool again = true;
    while (again) {
        again = false;
        for (const char *w = words; *w;) {
            size_t n = strcspn(w, " ");
            char one[32];
            if (n < sizeof(one)) {
                memcpy(one, w, n);
                one[n] = '\0';
                if (word_at(p, end, one)) {
                    if (seen)
                        mn_buf_printf(seen, " %s ", one);
                    again = true;
                }
            }
            w += n + (w[n] == ' ');
        }
    }
}

static bool has_word(const mn_buf *seen, const char *w)
{
    char pat[40];
    snprintf(pat, sizeof(pat), " %s ", w);
    return seen->ptr && strstr(seen->ptr, pat);
}

static bool lang_is(const char *l, const char *names)
{
    size_t n = strlen(l);
    for (const char *w = names; *w;) {
        size_t m = strcspn(w, " ");
        if (m == n && !memcmp(w, l, n))
            return true;
        w += m + (w[m] == ' ');
    }
    return false;
}

bool mn_def_line(const char *lang, const char *line, size_t n, char *name, size_t cap,
                 bool *public_api, const char **kind, const char **tail)
{
    const char *p = line, *end = line + n;
    mn_buf seen = MN_BUF_INIT;
    bool ok = false, indented;
    *public_api = false;
    *kind = "function";
    if (tail)
        *tail = end;
    if (!lang)
        return false;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    indented = p > line;
    if (lang_is(lang, "python")) {
        skip_words(&p, end, "async", NULL);
        if (word_at(&p, end, "def"))
            *kind = indented ? "method" : "function";
        else if (word_at(&p, end, "class"))
            *kind = "class";
        else
            goto out;
        ok = ident(&p, end, name, cap);
        *public_api = ok && name[0] != '_';
    } else if (lang_is(lang, "javascript typescript tsx")) {
        skip_words(&p, end, "export default async declare abstract", &seen);
        if (word_at(&p, end, "function") || (p < end && *p == '*' && (p++, true)))
            *kind = "function";
        else if (word_at(&p, end, "class"))
            *kind = "class";
        else if (word_at(&p, end, "interface") || word_at(&p, end, "type") ||
                 word_at(&p, end, "enum"))
            *kind = "type";
        else if (has_word(&seen, "export") &&
                 (word_at(&p, end, "const") || word_at(&p, end, "let") || word_at(&p, end, "var")))
            *kind = "function";
        else
            goto out;
        while (p < end && *p == '*')
            p++;
        while (p < end && *p == ' ')
            p++;
        ok = ident(&p, end, name, cap);
        *public_api = ok && has_word(&seen, "export");
    } else if (lang_is(lang, "go")) {
        if (word_at(&p, end, "func")) {
            if (p < end && *p == '(') { /* a method: skip the receiver */
                const char *close = memchr(p, ')', (size_t)(end - p));
                if (!close)
                    goto out;
                p = close + 1;
                while (p < end && *p == ' ')
                    p++;
                *kind = "method";
            }
        } else if (word_at(&p, end, "type")) {
            *kind = "type";
        } else {
            goto out;
        }
        ok = ident(&p, end, name, cap);
        *public_api = ok && isupper((unsigned char)name[0]);
    } else if (lang_is(lang, "rust")) {
        /* pub(crate), pub(super): visible inside the crate only, no public API */
        bool restricted = false;
        if ((size_t)(end - p) > 4 && !strncmp(p, "pub(", 4)) {
            const char *close = memchr(p, ')', (size_t)(end - p));
            if (close) {
                p = close + 1;
                restricted = true;
                while (p < end && *p == ' ')
                    p++;
            }
        }
        skip_words(&p, end, "pub async const unsafe extern", &seen);
        if (word_at(&p, end, "fn"))
            *kind = indented ? "method" : "function";
        else if (word_at(&p, end, "struct") || word_at(&p, end, "enum") ||
                 word_at(&p, end, "trait") || word_at(&p, end, "type"))
            *kind = "type";
        else
            goto out;
        ok = ident(&p, end, name, cap);
        *public_api = ok && has_word(&seen, "pub") && !restricted;
    } else if (lang_is(lang, "java csharp kotlin")) {
        skip_words(&p, end,
                   "public private protected internal static final abstract sealed override "
                   "virtual async open data suspend inline partial readonly synchronized",
                   &seen);
        bool kotlin = !strcmp(lang, "kotlin");
        if (word_at(&p, end, "class") || word_at(&p, end, "interface") ||
            word_at(&p, end, "enum") || word_at(&p, end, "record") || word_at(&p, end, "object") ||
            word_at(&p, end, "struct")) {
            *kind = "class";
            ok = ident(&p, end, name, cap);
        } else if (kotlin && word_at(&p, end, "fun")) {
            *kind = indented ? "method" : "function";
            ok = ident(&p, end, name, cap);
        } else if (!kotlin && seen.len) {
            /* type name( : a method; the last identifier before '(' */
            const char *paren = memchr(p, '(', (size_t)(end - p));
            if (!paren || memchr(p, '=', (size_t)(paren - p)) || memchr(p, ';', (size_t)(end - p)))
                goto out;
            const char *q = paren;
            while (q > p && q[-1] == ' ')
                q--;
            const char *e = q;
            while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))
                q--;
            if (q == e || q == p) /* a constructor call or no return type */
                goto out;
            const char *r = q;
            ok = ident(&r, e, name, cap);
            p = e;
            *kind = "method";
        }
        *public_api = ok && (kotlin ? !has_word(&seen, "private") && !has_word(&seen, "internal")
                                    : has_word(&seen, "public"));
    } else if (lang_is(lang, "ruby")) {
        if (word_at(&p, end, "def")) {
            *kind = indented ? "method" : "function";
            if (p + 5 < end && !strncmp(p, "self.", 5))
                p += 5;
        } else if (word_at(&p, end, "class") || word_at(&p, end, "module")) {
            *kind = "class";
        } else {
            goto out;
        }
        ok = ident(&p, end, name, cap);
        *public_api = ok && name[0] != '_';
    } else if (lang_is(lang, "php")) {
        skip_words(&p, end, "public private protected static final abstract", &seen);
        if (word_at(&p, end, "function"))
            *kind = indented ? "method" : "function";
        else if (word_at(&p, end, "class") || word_at(&p, end, "interface") ||
                 word_at(&p, end, "trait"))
            *kind = "class";
        else
            goto out;
        if (p < end && *p == '&')
            p++;
        ok = ident(&p, end, name, cap);
        *public_api = ok && !has_word(&seen, "private") && !has_word(&seen, "protected");
    } else if (lang_is(lang, "c cpp")) {
        /* column 0, `type name(args)` with no ';' after: a definition, not a prototype */
        if (indented || p >= end || !(isalpha((unsigned char)*p) || *p == '_'))
            goto out;
        if (memchr(p, ';', (size_t)(end - p)) || memchr(p, '=', (size_t)(end - p)))
            goto out;
        skip_words(&p, end, "static inline extern const unsigned signed struct enum", &seen);
        if (word_at(&p, end, "typedef") || word_at(&p, end, "return") || word_at(&p, end, "if") ||
            word_at(&p, end, "else"))
            goto out;
        const char *paren = memchr(p, '(', (size_t)(end - p));
        if (!paren)
            goto out;
        const char *q = paren;
        while (q > p && q[-1] == ' ')
            q--;
        const char *e = q;
        while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == ':'))
            q--;
        if (q == e || q == p) /* `name(` alone: a call or a macro use */
            goto out;
        const char *r = q;
        while (r < e && *r == ':')
            r++;
        ok = ident(&r, e, name, cap);
        /* C++ Class::method: the last part */
        while (ok && r < e && *r == ':') {
            while (r < e && *r == ':')
                r++;
            ok = ident(&r, e, name, cap);
        }
        p = e;
        *public_api = ok && !has_word(&seen, "static");
    }
out:
    if (ok && tail)
        *tail = p;
    mn_buf_release(&seen);
    return ok;
}

/* ---- decisions ---- */

/* Words that open a reason, dropped from the end of a title cut where its reason starts. */
static const char *const reason_openers[] = {
    "because",    "since",   "as",   "so that", "so",        "for", "to avoid", "to",   "due to",
    "потому что", "так как", "т.к.", "чтобы",   "parce que", "car", "afin de",  "pour", "puisque"};

static size_t trim_reason_opener(const char *s, size_t n)
{
    for (bool again = true; again;) {
        again = false;
        while (n && (isspace((unsigned char)s[n - 1]) || strchr(",;:-(", s[n - 1])))
            n--;
        for (size_t i = 0; i < MN_ARRAY_SIZE(reason_openers); i++) {
            size_t m = strlen(reason_openers[i]);
            if (n > m && !strncasecmp(s + n - m, reason_openers[i], m) &&
                (isspace((unsigned char)s[n - m - 1]) || s[n - m - 1] == ',' ||
                 s[n - m - 1] == '(')) {
                n -= m;
                again = true;
                break;
            }
        }
    }
    return n;
}

mn_text_span mn_ingest_cut_reason(const char *text, mn_text_span span, const mn_decision *d)
{
    for (size_t i = 0; i < d->n_reasons; i++) {
        size_t r = d->reasons[i].start;
        if (r > span.start && r < span.end)
            span.end = span.start + trim_reason_opener(text + span.start, r - span.start);
    }
    return span;
}

char *mn_ingest_decision_title(const char *text, const mn_decision *d)
{
    size_t len = strlen(text), a = d->statement.start, b = d->statement.end;
    /* the sentence around the statement: back to a sentence's end, forward to the next */
    while (a > 0) {
        char p = text[a - 1];
        if (p == '\n' && (a < 2 || text[a - 2] == '\n'))
            break;
        if ((p == ' ' || p == '\n') && a >= 2 && strchr(".!?", text[a - 2]))
            break;
        if (p == '\n' && a >= 2 && (text[a - 2] == ':' || a - 1 == 0))
            break;
        a--;
    }
    while (b < len) {
        if (text[b] == '\n' && (b + 1 >= len || text[b + 1] == '\n'))
            break;
        if (strchr(".!?", text[b]) && (b + 1 >= len || text[b + 1] == ' ' || text[b + 1] == '\n'))
            break;
        b++;
    }
    mn_text_span s = {a, b};
    s = mn_ingest_cut_reason(text, s, d);
    char *line = mn_ingest_one_line(text + s.start, s.end - s.start);
    if (mn_utf8_len(line, strlen(line)) > 200 || !*line) {
        /* too long a sentence: the detector's statement */
        free(line);
        mn_text_span st = mn_ingest_cut_reason(text, d->statement, d);
        line = mn_ingest_one_line(text + st.start, st.end - st.start);
    }
    char *out = mn_ingest_clip(line, 200);
    free(line);
    return out;
}
