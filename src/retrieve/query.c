/*
 * query.c - what a question says, for the ranking: the words for the
 * full-text index, and the code it names.
 *
 * People locate code with what an issue or a question names: identifiers
 * (`PairGrid`, parse_header, xr.Dataset.interp), file paths
 * (src/flask/app.py, a frame of a traceback), and the module paths of
 * dotted names (requests.sessions -> requests/sessions.py). A bag of words
 * (BM25) sees these only as words among the prose. So the text is scanned
 * once for "mentions", each with a strength: how surely it names code.
 *
 *   strength of a name =
 *       1.0  its shape is code: snake_case, camelCase, PascalCase with two
 *            capitals or more, a name with digits and letters
 *       0.8  in code context: inside a ``` block, `backticks`, a >>> line,
 *            a traceback, followed by "(", or part of a dotted name
 *       0.6  a capitalised word in prose (Dataset, Session: class-like)
 *       0.3  a __dunder__ name (every class has one)
 *       0.25 any other word of 4 bytes or more (prose that may be a name)
 *     the best of these over its occurrences, times (1 + 0.25 ln count).
 *   a path (has a '/' and a file extension, or a file name with a known
 *     code extension): 1.5; from a traceback frame: 2.0
 *   a link to a file of a repository (https://github.com/o/r/blob/<ref>/
 *     a/b.py, GitLab's /-/blob/ too): the path after the ref, 2.0, matched
 *     whole; to a line of it (#L12), the reporter points at the code
 *     (graph.c treats it as the deepest traceback frame)
 *   a dotted name a.b.c: the module path a/b/c (and a/b), 1.2; the
 *     qualified name b.c, 1.5; each component as a name, 0.8
 *   traceback frames (File "x.py", line 3, in f  /  File x.py:3, in C.f
 *     (IPython 8)  /  x.py in f(...)): the path at 2.0 and the function at
 *     1.2 (its qualified name C.f at 1.5), with the frame's position (the
 *     last frames are nearest the fault).
 *   error messages of exception lines ("ValueError: cannot align ..."):
 *     the longest run of plain words, for a phrase search (graph.c).
 *
 * Lines that are the same in every issue of a project say nothing about
 * this one and are skipped: environment dumps (env_line) and the task-list
 * items of issue templates ("- [x] Minimal example").
 *
 * Whether a mention names anything is decided later, against the index
 * (graph.c): most prose words name no symbol and cost one index probe.
 *
 * The full-text query takes at most MN_QUERY_MAX_WORDS distinct words; when
 * a text has more (a long issue), the ones kept are those with the highest
 * strength as names, then the most frequent, in their order in the text.
 * The FTS5 expression itself is built by the store (mn_store_fts_text_query:
 * the "mnemo" tokenizer's surface forms, quoted and OR-ed).
 */
#include "common.h"
#include <ctype.h>
#include <math.h>

#include "retrieve/retrieve_internal.h"

#define MAX_TOKEN 512 /* bytes of one path-like token considered */

typedef struct {
    mn_query_info *q;
    mn_arena *arena;
    mn_map index; /* "<kind>:<text>" -> index + 1 into mentions */
    size_t cap;
    /* words for the full-text query */
    struct word {
        const char *w;
        size_t len, first;
        int count;
        double strength;
    } * words;
    size_t nwords, words_cap;
    mn_map word_index; /* lower-cased word -> index + 1 */
    /* frames printed innermost first (query_trace.c): each one's mention
     * and number, turned round within its block of frames at the end */
    MN_VEC(struct occurrence {
        size_t mention;
        int frame;
    })
    occurrences;
    MN_VEC(struct frame_block {
        int from;
        int to;
    })
    blocks;
    int block_from; /* the first frame of the block being read; 0: none */
    /* an error line without a message ("x.YException:" then the message on
     * the lines below, as Mockito and Rust since 1.73 print them): the next
     * line that is no frame is its message */
    bool message_below;
} scan;

/* Identifiers that say nothing about where code is: keywords and the most common builtins. */
static const char *const code_stop[] = {
    "self",   "cls",    "None",    "True",   "False",  "def",     "class",      "return",
    "import", "from",   "print",   "lambda", "yield",  "pass",    "raise",      "assert",
    "with",   "while",  "elif",    "else",   "except", "finally", "global",     "nonlocal",
    "async",  "await",  "len",     "str",    "int",    "float",   "list",       "dict",
    "set",    "tuple",  "type",    "object", "range",  "super",   "isinstance", "this",
    "null",   "true",   "false",   "var",    "let",    "const",   "function",   "new",
    "void",   "public", "private", "static", "struct", "for",     "and",        "not",
    "args",   "kwargs",
};

/* Words of prose that are names in some code base but not meant as one in a sentence. */
static const char *const prose_stop[] = {
    "the",     "that",    "have",    "this",      "when",     "what",   "which",   "there", "their",
    "would",   "should",  "could",   "about",     "into",     "also",   "some",    "then",  "than",
    "them",    "they",    "were",    "been",      "being",    "does",   "doesn",   "didn",  "isn",
    "wasn",    "aren",    "here",    "just",      "like",     "only",   "other",   "such",  "these",
    "those",   "very",    "will",    "your",      "after",    "before", "because", "where", "using",
    "used",    "use",     "example", "following", "expected", "actual", "output",  "error", "issue",
    "problem", "version", "python",  "code",      "file",     "files",  "work",    "works", "get",
    "make",    "need",    "want",    "thanks",    "please",   "seems",  "think",   "know",  "still",
};

static bool in_list(const char *const *list, size_t n, const char *w, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(list[i], w, len) == 0)
            return true;
    return false;
}

static bool is_stop_name(const char *w, size_t len, bool code)
{
    if (in_list(code_stop, MN_ARRAY_SIZE(code_stop), w, len))
        return true;
    return !code && in_list(prose_stop, MN_ARRAY_SIZE(prose_stop), w, len);
}

static bool word_char(unsigned char ch)
{
    return isalnum(ch) || ch == '_' || ch >= 0x80;
}

static bool path_char(unsigned char ch)
{
    return word_char(ch) || ch == '.' || ch == '/' || ch == '\\' || ch == '-' || ch == '~';
}

double mn_query_code_shape(const char *w, size_t len)
{
    bool lower = false, upper_after_lower = false, inner_us = false, digit = false, alpha = false;
    int uppers = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)w[i];
        if (ch >= 0x80)
            return 0; /* not an identifier of code we know */
        if (islower(ch)) {
            lower = true;
            alpha = true;
        } else if (isupper(ch)) {
            uppers++;
            alpha = true;
            if (lower)
                upper_after_lower = true;
        } else if (isdigit(ch)) {
            digit = true;
        } else if (ch == '_' && i > 0 && i + 1 < len && w[i - 1] != '_' && w[i + 1] != '_') {
            inner_us = true;
        }
    }
    if (len >= 4 && w[0] == '_' && w[1] == '_' && w[len - 1] == '_' && w[len - 2] == '_')
        return 0.3;
    if (inner_us && alpha)
        return 1.0;
    if (upper_after_lower && lower)
        return 1.0; /* camelCase, PascalCase with an inner capital */
    if (uppers >= 2 && lower)
        return 1.0; /* HTTPServer */
    if (digit && alpha && len >= 3 && !isdigit((unsigned char)w[0]))
        return 0.7; /* utf8, int64, md5sum */
    return 0;
}

static const char *const code_ext[] = {
    "py",  "pyi",   "js",   "jsx",  "ts",    "tsx",    "mjs",   "cjs",    "c",     "h",
    "cc",  "cpp",   "hpp",  "cxx",  "go",    "rs",     "java",  "kt",     "rb",    "php",
    "cs",  "swift", "m",    "mm",   "scala", "sh",     "bash",  "lua",    "pl",    "r",
    "sql", "cfg",   "toml", "ini",  "yml",   "yaml",   "json",  "md",     "rst",   "txt",
    "xml", "html",  "css",  "scss", "vue",   "svelte", "proto", "gradle", "cmake", "mk",
};

static bool is_code_ext(const char *e, size_t len)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(code_ext); i++)
        if (strlen(code_ext[i]) == len && strncasecmp(code_ext[i], e, len) == 0)
            return true;
    return false;
}

static void add_mention(scan *sc, mn_mention_kind kind, const char *text, size_t len,
                        double strength, int frame, int link)
{
    if (len == 0 || len > MAX_TOKEN || strength <= 0)
        return;
    mn_query_info *q = sc->q;
    char key[MAX_TOKEN + 4];
    snprintf(key, sizeof(key), "%d:%.*s", (int)kind, (int)len, text);
    size_t at = (size_t)(uintptr_t)mn_map_get(&sc->index, key);
    if (at) {
        mn_mention *m = &q->mentions[at - 1];
        if (strength > m->strength)
            m->strength = strength;
        if (frame > m->frame)
            m->frame = frame;
        if (link > m->link)
            m->link = link;
        m->count++;
        return;
    }
    if (q->nmentions >= MN_QUERY_MAX_MENTIONS)
        return;
    if (q->nmentions == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 32;
        mn_mention *grown = mn_arena_alloc(sc->arena, cap * sizeof(*grown));
        if (q->nmentions)
            memcpy(grown, q->mentions, q->nmentions * sizeof(*grown));
        q->mentions = grown;
        sc->cap = cap;
    }
    mn_mention *m = &q->mentions[q->nmentions++];
    m->kind = kind;
    m->text = mn_arena_strndup(sc->arena, text, len);
    m->strength = strength;
    m->count = 1;
    m->frame = frame;
    m->link = link;
    mn_map_set(&sc->index, key, (void *)(uintptr_t)q->nmentions);
}

/* A word for the full-text query (every word of the text goes through here). */
static void add_word(scan *sc, const char *w, size_t len, size_t pos, double strength)
{
    char key[130];
    if (len == 0 || len > 120)
        return;
    for (size_t i = 0; i < len; i++)
        key[i] = (char)tolower((unsigned char)w[i]);
    key[len] = '\0';
    size_t at = (size_t)(uintptr_t)mn_map_get(&sc->word_index, key);
    if (at) {
        struct word *x = &sc->words[at - 1];
        x->count++;
        if (strength > x->strength)
            x->strength = strength;
        return;
    }
    if (sc->nwords == sc->words_cap) {
        sc->words_cap = sc->words_cap ? sc->words_cap * 2 : 64;
        sc->words = mn_realloc(sc->words, sc->words_cap * sizeof(*sc->words));
    }
    sc->words[sc->nwords] = (struct word){w, len, pos, 1, strength};
    sc->nwords++;
    mn_map_set(&sc->word_index, key, (void *)(uintptr_t)sc->nwords);
}

/* A name: strength from its shape and context (see the header). */
static void add_name(scan *sc, const char *w, size_t len, bool code_ctx, bool called, int frame)
{
    if (len < 3 || len > 100 || isdigit((unsigned char)w[0]) ||
        is_stop_name(w, len, code_ctx || called || frame))
        return;
    double s = mn_query_code_shape(w, len);
    if (s == 0.3) {
        add_mention(sc, MN_MENTION_NAME, w, len, 0.3, frame, 0);
        return;
    }
    if ((code_ctx || called || frame) && s < 0.8)
        s = 0.8;
    if (s == 0 && isupper((unsigned char)w[0]))
        s = 0.6;
    if (s == 0 && len >= 4)
        s = 0.25;
    add_mention(sc, MN_MENTION_NAME, w, len, s, frame, 0);
}

/* Strip what surrounds a path in text and what is outside the repository. */
static void path_core(const char **p, size_t *len)
{
    const char *s = *p, *e = s + *len;
    static const char *const roots[] = {"site-packages/", "dist-packages/", "node_modules/"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(roots); i++) {
        const char *r = memmem(s, (size_t)(e - s), roots[i], strlen(roots[i]));
        if (r)
            s = r + strlen(roots[i]);
    }
    while (s < e && (*s == '.' || *s == '/' || *s == '~' || *s == '\\'))
        s++; /* ./a, ~/a, /abs: suffix matching does the rest */
    *p = s;
    *len = (size_t)(e - s);
}

/*
 * One path-like token: a path, a file name, a dotted name or a word.
 * tok is at most MAX_TOKEN bytes; `next` is the text after it (for "(" and
 * " in f" of frames).
 */
static void token(scan *sc, const char *tok, size_t len, const char *next, const char *end,
                  bool code_ctx, int *frame_pos)
{
    while (len && (tok[len - 1] == '.' || tok[len - 1] == '-' || tok[len - 1] == '/'))
        len--; /* the end of a sentence, a dash */
    while (len && (tok[0] == '-' || tok[0] == '.') && !(len > 1 && tok[1] == '/'))
        tok++, len--;
    if (len == 0)
        return;
    const char *slash = NULL, *dot = NULL;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] == '/' || tok[i] == '\\')
            slash = tok + i;
        else if (tok[i] == '.')
            dot = tok + i;
    }
    bool called = next < end && *next == '(';
    const char *ext = dot ? dot + 1 : NULL;
    size_t ext_len = ext ? (size_t)(tok + len - ext) : 0;
    bool has_ext = ext && (!slash || dot > slash) && ext_len > 0 && ext_len <= 6;
    if (slash || (has_ext && is_code_ext(ext, ext_len) && memchr(tok, '.', len) == dot)) {
        if (!has_ext)
            return; /* a directory, a URL: not a file */
        /* a frame of an IPython traceback: "path.py in func(...)" */
        int frame = 0;
        const char *in = next;
        while (in < end && *in == ' ')
            in++;
        if (slash && end - in > 3 && memcmp(in, "in ", 3) == 0) {
            const char *f = in + 3, *fe = f;
            while (fe < end && word_char((unsigned char)*fe))
                fe++;
            if (fe > f) {
                frame = ++*frame_pos;
                add_name(sc, f, (size_t)(fe - f), true, true, frame);
            }
        }
        /* a link to a file of a repository on a code host (GitHub, GitLab:
         * .../blob/<ref>/path, a line as #L12): the path after the ref is
         * the file's path in the repository, the reporter pointing at it */
        const char *blob = memmem(tok, len, "/blob/", 6);
        const char *rel = blob ? memchr(blob + 6, '/', (size_t)(tok + len - (blob + 6))) : NULL;
        if (rel && rel + 1 < tok + len) {
            bool line = end - next > 2 && next[0] == '#' && next[1] == 'L' &&
                        isdigit((unsigned char)next[2]);
            add_mention(sc, MN_MENTION_PATH, rel + 1, (size_t)(tok + len - rel - 1), 2.0, 0,
                        line ? 2 : 1);
            return;
        }
        const char *p = tok;
        size_t plen = len;
        path_core(&p, &plen);
        char norm[MAX_TOKEN + 1];
        for (size_t i = 0; i < plen; i++)
            norm[i] = p[i] == '\\' ? '/' : p[i];
        add_mention(sc, MN_MENTION_PATH, norm, plen, frame ? 2.0 : 1.5, frame, 0);
        /* the file's stem is often also a module or class name: a word, no mention */
        return;
    }
    if (dot) {
        /* a dotted name: every component an identifier, else (a version, an
         * IP address) nothing */
        const char *comp[16];
        size_t clen[16], n = 0;
        for (const char *c = tok; c < tok + len && n < 16;) {
            const char *d = memchr(c, '.', (size_t)(tok + len - c));
            size_t l = d ? (size_t)(d - c) : (size_t)(tok + len - c);
            if (l == 0 || isdigit((unsigned char)c[0]))
                return;
            for (size_t i = 0; i < l; i++)
                if (!word_char((unsigned char)c[i]))
                    return;
            comp[n] = c;
            clen[n++] = l;
            c += l + 1;
            if (!d)
                break;
        }
        if (n < 2)
            return;
        for (size_t i = 0; i < n; i++)
            add_name(sc, comp[i], clen[i], true, called && i == n - 1, 0);
        /* module paths: a/b/c and a/b */
        for (size_t upto = n; upto >= 2; upto--) {
            char mod[MAX_TOKEN + 1];
            size_t m = 0;
            for (size_t i = 0; i < upto; i++) {
                if (i)
                    mod[m++] = '/';
                memcpy(mod + m, comp[i], clen[i]);
                m += clen[i];
            }
            add_mention(sc, MN_MENTION_MODULE, mod, m, upto == n ? 1.2 : 1.0, 0, 0);
        }
        /* the qualified name of the last two: Class.method */
        size_t ql = (size_t)(comp[n - 1] + clen[n - 1] - comp[n - 2]);
        add_mention(sc, MN_MENTION_QUALIFIED, comp[n - 2], ql, 1.5, 0, 0);
        return;
    }
    add_name(sc, tok, len, code_ctx, called, 0);
}

/*
 * Command-line options the line names (issue 22): "--name" and
 * "--name=value" anywhere (no prose word starts with two dashes), at 1.0;
 * a short option "-x" (one letter or digit, or the first of a bundle "-vv",
 * "-rA") only in code (a code line or between backticks), at 0.8: in prose
 * a dash is punctuation. Each is an MN_MENTION_OPTION, looked up among the
 * options the index holds (graph.c: declared).
 */
static void cli_options(scan *sc, const char *l, const char *eol, bool code)
{
    int ticks = 0;
    for (const char *p = l; p < eol; p++) {
        if (*p == '`')
            ticks++;
        if (*p != '-' || (p > l && !strchr(" \t`(\"'[=", p[-1])))
            continue;
        bool two = p + 1 < eol && p[1] == '-';
        const char *n = p + (two ? 2 : 1), *e = n;
        if (n >= eol || !isalnum((unsigned char)*n))
            continue;
        while (e < eol && (isalnum((unsigned char)*e) || *e == '_' || *e == '-'))
            e++;
        if (two && e - n >= 2 && e[-1] != '-')
            add_mention(sc, MN_MENTION_OPTION, p, (size_t)(e - p), 1.0, 0, 0);
        else if (!two && (code || ticks % 2 == 1) && isalpha((unsigned char)*n))
            add_mention(sc, MN_MENTION_OPTION, p, 2, 0.8, 0, 0);
        p = e - 1;
    }
}

/*
 * A Python traceback frame:
 *     File "path", line N, in name          (the interpreter)
 *     File path:N, in Class.method(args)    (IPython 8 and later)
 * The frame's function is a name; a dotted one (Class.method) also its
 * qualified name.
 */
static bool python_frame(scan *sc, const char *line, const char *end, int *frame_pos)
{
    const char *f = memmem(line, (size_t)(end - line), "File ", 5);
    if (!f)
        return false;
    const char *p = f + 5, *pe;
    if (p < end && *p == '"') {
        p++;
        pe = memchr(p, '"', (size_t)(end - p));
    } else {
        /* path:N, in  (a path without spaces, then the line number) */
        pe = p;
        while (pe < end && path_char((unsigned char)*pe))
            pe++;
        const char *d = pe + 1;
        if (pe >= end || *pe != ':' || d >= end || !isdigit((unsigned char)*d) ||
            !memchr(p, '/', (size_t)(pe - p)))
            return false;
        while (d < end && isdigit((unsigned char)*d))
            d++;
        if (end - d < 5 || memcmp(d, ", in ", 5) != 0)
            return false;
    }
    if (!pe || pe == p || pe - p > MAX_TOKEN)
        return false;
    int frame = ++*frame_pos;
    const char *in = memmem(pe, (size_t)(end - pe), ", in ", 5);
    if (in) {
        const char *n = in + 5, *ne = n, *last = n;
        while (ne < end && (word_char((unsigned char)*ne) || *ne == '.')) {
            if (*ne == '.')
                last = ne + 1;
            ne++;
        }
        if (ne > last && !(ne - n == 8 && memcmp(n, "<module>", 8) == 0)) {
            add_name(sc, last, (size_t)(ne - last), true, true, frame);
            if (last > n + 1 && ne - n <= MAX_TOKEN) {
                /* the qualified name: its last two components */
                const char *q = last - 1;
                while (q > n && q[-1] != '.')
                    q--;
                add_mention(sc, MN_MENTION_QUALIFIED, q, (size_t)(ne - q), 1.5, frame, 0);
            }
        }
    }
    const char *core = p;
    size_t clen = (size_t)(pe - p);
    path_core(&core, &clen);
    char norm[MAX_TOKEN + 1];
    for (size_t i = 0; i < clen; i++)
        norm[i] = core[i] == '\\' ? '/' : core[i];
    add_mention(sc, MN_MENTION_PATH, norm, clen, 2.0, frame, 0);
    return true;
}

/* The index of a mention (after add_mention), or SIZE_MAX when it was not kept. */
static size_t mention_at(scan *sc, mn_mention_kind kind, const char *text, size_t len)
{
    char key[MAX_TOKEN + 4];
    snprintf(key, sizeof(key), "%d:%.*s", (int)kind, (int)len, text);
    size_t at = (size_t)(uintptr_t)mn_map_get(&sc->index, key);
    return at ? at - 1 : SIZE_MAX;
}

/* A mention of a frame: numbered now, or later when its trace lists the innermost first. */
static void frame_mention(scan *sc, mn_mention_kind kind, const char *text, size_t len,
                          double strength, int frame, bool reversed)
{
    if (!reversed) {
        add_mention(sc, kind, text, len, strength, frame, 0);
        return;
    }
    add_mention(sc, kind, text, len, strength, 0, 0);
    size_t at = mention_at(sc, kind, text, len);
    if (at != SIZE_MAX) {
        struct occurrence o = {at, frame};
        mn_vec_push(&sc->occurrences, o);
    }
}

/*
 * A frame of another language's trace, or a compiler's error location
 * (query_trace.c): its file at 2.0, its function and Type.function as a
 * Python frame's. A Java frame names its file alone: the class's package
 * is its directory (com.x.Y.m(Y.java:12): com/x/Y.java).
 */
static bool trace_frame(scan *sc, const char *l, const char *end, const char *prev,
                        const char *prev_end, int *frame_pos)
{
    mn_trace_frame_info f;
    int kind = mn_trace_frame(l, end, prev, prev_end, &f);
    if (!kind || f.path_len + f.package_len + 1 > MAX_TOKEN)
        return false;
    bool reversed = kind == 1;
    int frame = ++*frame_pos;
    if (reversed && !sc->block_from)
        sc->block_from = frame;
    char path[MAX_TOKEN + 1];
    size_t n = 0;
    for (size_t i = 0; i < f.package_len; i++)
        path[n++] = f.package[i] == '.' ? '/' : f.package[i];
    if (n)
        path[n++] = '/';
    const char *core = f.path;
    size_t clen = f.path_len;
    path_core(&core, &clen);
    for (size_t i = 0; i < clen; i++)
        path[n++] = core[i] == '\\' ? '/' : core[i];
    frame_mention(sc, MN_MENTION_PATH, path, n, 2.0, frame, reversed);
    if (f.func && f.func_len >= 3 && f.func_len <= 100 && !is_stop_name(f.func, f.func_len, true)) {
        frame_mention(sc, MN_MENTION_NAME, f.func, f.func_len, 0.8, frame, reversed);
        if (f.owner && f.owner_len + f.func_len + 1 <= MAX_TOKEN) {
            char qn[MAX_TOKEN + 1];
            int ql = snprintf(qn, sizeof(qn), "%.*s.%.*s", (int)f.owner_len, f.owner,
                              (int)f.func_len, f.func);
            frame_mention(sc, MN_MENTION_QUALIFIED, qn, (size_t)ql, 1.5, frame, reversed);
        }
    }
    return true;
}

/* The end of a block of innermost-first frames (an error line, the end of the text). */
static void close_block(scan *sc, int frame_pos)
{
    if (sc->block_from) {
        struct frame_block b = {sc->block_from, frame_pos};
        mn_vec_push(&sc->blocks, b);
    }
    sc->block_from = 0;
}

/* Each block's frames turned round: its innermost frame gets its last number. */
static void turn_frames(scan *sc)
{
    for (size_t i = 0; i < sc->occurrences.len; i++) {
        const struct occurrence *o = &sc->occurrences.items[i];
        int frame = o->frame;
        for (size_t b = 0; b < sc->blocks.len; b++)
            if (frame >= sc->blocks.items[b].from && frame <= sc->blocks.items[b].to) {
                frame = sc->blocks.items[b].from + sc->blocks.items[b].to - frame;
                break;
            }
        mn_mention *m = &sc->q->mentions[o->mention];
        if (frame > m->frame)
            m->frame = frame;
    }
}

/* The name l..p ends in Error, Exception or Warning (and is longer). */
static bool ends_in_kind(const char *l, const char *p)
{
    static const char *const kinds[] = {"Error", "Exception", "Warning"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(kinds); i++) {
        size_t kl = strlen(kinds[i]);
        if ((size_t)(p - l) > kl && memcmp(p - kl, kinds[i], kl) == 0)
            return true;
    }
    return false;
}

/*
 * A line of an environment dump ("numpy: 1.18.1", "OS: Linux",
 * "requests==2.0", JSON such as  "version": "2.27.0",): the versions an
 * issue template asks for. Their words
 * name packages, not the code at fault, and are rare enough in the code to
 * outweigh everything else; such lines are skipped.
 */
static bool env_line(const char *l, const char *end)
{
    const char *p = l;
    bool quoted = p < end && *p == '"'; /* "name": "1.2.3", (a JSON dump) */
    if (quoted)
        p++;
    const char *key = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'))
        p++;
    if (p == key || p >= end || ends_in_kind(key, p))
        return false; /* an exception's name: "x.YException: " (the message below), "KeyError: x" */
    if (quoted && *p++ != '"')
        return false;
    if (!quoted && p + 1 < end && p[0] == '=' && p[1] == '=')
        return true; /* pip freeze */
    if (p >= end || *p != ':' || (p + 1 < end && p[1] == ':'))
        return false;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    /* the value: one word, or a version number and whatever follows it;
     * in JSON also an object's opening brace or a short quoted string */
    if (p < end && isdigit((unsigned char)*p))
        return true;
    if (quoted && p < end && *p == '{')
        return true;
    const char *v = p;
    if (quoted && p < end && *p == '"') {
        const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
        if (!q)
            return false;
        p = q + 1;
    } else {
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
    }
    if (quoted && p < end && *p == ',')
        p++;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p == end && p - v < 40;
}

/*
 * An exception line: "ValueError: message", "pkg.errors.FooError: message"
 * (a name ending in Error, Exception or Warning, then ": "). The message is
 * kept as its longest run of plain words (quoted values, numbers and
 * punctuation break a run: they are the formatted parts), when it has
 * MN_QUERY_MESSAGE_MIN words or more; graph.c looks for it as a phrase.
 * Other languages' error lines too (query_trace.c: "Caused by: x.YException:
 * msg", Go's "panic: msg", rustc's "error[E0308]: msg", "a.cpp:1:2: error:
 * msg"). True when the line is an error line: it ends a block of frames.
 */
static bool message_run(scan *sc, const char *msg, const char *end);

/* Only spaces and a '\r' from p to end. */
static bool blank_from(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p == end;
}

static bool exception_line(scan *sc, const char *l, const char *end)
{
    if (end - l > 2 && l[0] == 'E' && (l[1] == ' ' || l[1] == '\t')) /* pytest's "E   Error: ..." */
        for (l++; l < end && (*l == ' ' || *l == '\t');)
            l++;
    bool own = false; /* other languages' error lines (query_trace.c) */
    const char *msg_end;
    const char *after = mn_trace_error(l, end, &own, &msg_end);
    if (own) {
        sc->message_below = !message_run(sc, after, msg_end) && blank_from(after, msg_end);
        return true;
    }
    bool prefixed = after != l;
    l = after;
    const char *p = l;
    while (p < end && (word_char((unsigned char)*p) || *p == '.' || *p == '$'))
        p++;
    if (p < end && *p == ':' && blank_from(p + 1, end) && (prefixed || p > l)) {
        /* "Caused by: x.Y:" or "x.YException:" alone, the message on the next line */
        sc->message_below = prefixed || ends_in_kind(l, p);
        return sc->message_below || prefixed;
    }
    if (p == end && prefixed)
        return true; /* "Caused by: java.lang.NullPointerException" */
    if (p + 2 > end || p[0] != ':' || p[1] != ' ')
        return false;
    if (!ends_in_kind(l, p))
        return prefixed;
    message_run(sc, p + 2, end);
    return true;
}

/*
 * The message of an error line from msg on: its longest run of plain words
 * (see above). False when msg holds no run of MN_QUERY_MESSAGE_MIN words.
 */
static bool message_run(scan *sc, const char *msg, const char *end)
{
    mn_query_info *q = sc->q;
    if (q->nmessages >= MN_QUERY_MAX_MESSAGES)
        return true; /* enough messages: none is looked for below either */
    /* words: a letter or '_' first, word characters, then a space, the end
     * or punctuation (which ends the run after the word) */
    const char *best = NULL, *best_end = NULL, *run = NULL;
    int best_n = 0, run_n = 0;
    for (const char *m = msg; m < end;) {
        const char *we = m;
        bool plain = isalpha((unsigned char)*m) || *m == '_';
        while (plain && we < end && word_char((unsigned char)*we))
            we++;
        bool sep = we == end || *we == ' ' || *we == '\r';
        bool stop = we < end && *we && strchr(".,:;", *we);
        if (plain && (sep || stop)) {
            if (!run)
                run = m, run_n = 0;
            run_n++;
            if (run_n > best_n)
                best = run, best_end = we, best_n = run_n;
            if (stop)
                run = NULL;
            m = we < end ? we + 1 : we;
            continue;
        }
        /* a quoted value, a number, a symbol: the run ends, skip the token */
        run = NULL;
        while (m < end && *m != ' ')
            m++;
        while (m < end && *m == ' ')
            m++;
    }
    if (best_n < MN_QUERY_MESSAGE_MIN)
        return false;
    q->messages[q->nmessages++] = mn_arena_strndup(sc->arena, best, (size_t)(best_end - best));
    return true;
}

/*
 * "import xarray as xr" (an example's first lines): xr.where then means
 * xarray's where, and graph.c prefers the definitions the package's
 * __init__ imports. Only plain dotted module names and an identifier alias.
 */
static void import_alias(scan *sc, const char *l, const char *end)
{
    mn_query_info *q = sc->q;
    if (q->naliases >= MN_QUERY_MAX_ALIASES || end - l < 12 || memcmp(l, "import ", 7) != 0)
        return;
    const char *m = l + 7, *p = m;
    while (p < end && (word_char((unsigned char)*p) || *p == '.'))
        p++;
    const char *m_end = p;
    if (m_end == m || end - p < 5 || memcmp(p, " as ", 4) != 0)
        return;
    const char *a = p + 4, *a_end = a, *rest;
    while (a_end < end && word_char((unsigned char)*a_end))
        a_end++;
    for (rest = a_end; rest < end && (*rest == ' ' || *rest == '\r');)
        rest++;
    if (a_end == a || (rest < end && *rest != '#'))
        return;
    q->aliases[q->naliases].alias = mn_arena_strndup(sc->arena, a, (size_t)(a_end - a));
    q->aliases[q->naliases++].module = mn_arena_strndup(sc->arena, m, (size_t)(m_end - m));
}

static bool starts_with(const char *s, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - s) >= n && memcmp(s, prefix, n) == 0;
}

/*
 * A task-list item of an issue template ("- [x] Minimal example — ...",
 * "* [ ] I searched the existing issues"): the same boilerplate in every
 * issue of a project, so its words are common to all of them and say
 * nothing about this one; such lines are skipped.
 */
static bool checkbox_line(const char *l, const char *end)
{
    if (end - l < 6 || (l[0] != '-' && l[0] != '*') || l[1] != ' ' || l[2] != '[' || l[4] != ']')
        return false;
    return l[3] == ' ' || l[3] == 'x' || l[3] == 'X';
}

/*
 * The text with its HTML comments blanked (spaces, newlines kept, so
 * every offset still points at the same place): GitHub does not show
 * them, and in an issue they hold the template's instructions ("Paste the
 * output of xr.show_versions() here"), the same in every issue. NULL when
 * the text has none; an unclosed comment runs to the end, as GitHub reads
 * it.
 */
static char *uncommented(const char *text, size_t len, mn_arena *arena)
{
    const char *open = memmem(text, len, "<!--", 4);
    if (!open)
        return NULL;
    char *out = mn_arena_strndup(arena, text, len);
    for (char *p = out + (open - text), *end = out + len; p;) {
        char *close = memmem(p + 4, (size_t)(end - p - 4), "-->", 3);
        char *stop = close ? close + 3 : end;
        for (char *c = p; c < stop; c++)
            if (*c != '\n')
                *c = ' ';
        p = stop < end ? memmem(stop, (size_t)(end - stop), "<!--", 4) : NULL;
    }
    return out;
}

/* One line of the text: [l, eol), l after the indentation; skip: left out of the query. */
typedef struct {
    const char *line, *l, *eol;
    bool env, blank, fence, skip;
} text_line;

#define DUMP_LOOK    5 /* non-blank lines looked at from a dump's first */
#define DUMP_MIN     3 /* of which environment lines */
#define DUMP_HEADING 3 /* non-blank lines before it that introduce it */

static bool has_word(const char *l, const char *end)
{
    for (; l < end; l++)
        if (isalnum((unsigned char)*l))
            return true;
    return false;
}

/*
 * Which lines the query leaves out: the lines of an environment dump
 * (env_line), the task-list items of a template (checkbox_line), and the
 * lines that introduce a dump, up to DUMP_HEADING lines with words before
 * its first line, blank lines and rules ("-----") not counted ("Output
 * of xr.show_versions()", "INSTALLED VERSIONS", "$ python -m
 * requests.help"): the template's words again, and they name the
 * project's own version printer (print_versions.py, help.py), which every
 * such issue would point at. A dump: DUMP_MIN environment lines among
 * DUMP_LOOK non-blank ones. Fences are never left out (they open and
 * close code), nor the first line (an issue's title).
 */
static void mark_skipped(text_line *ls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ls[i].skip = ls[i].env || checkbox_line(ls[i].l, ls[i].eol);
    for (size_t i = 0; i < n; i++) {
        if (!ls[i].env || (i > 0 && ls[i - 1].env))
            continue;
        size_t seen = 0, env = 0;
        for (size_t j = i; j < n && seen < DUMP_LOOK; j++)
            if (!ls[j].blank) {
                seen++;
                env += ls[j].env;
            }
        if (env < DUMP_MIN)
            continue;
        size_t heading = 0;
        for (size_t j = i; j-- > 1 && heading < DUMP_HEADING;) { /* line 0: the title */
            if (ls[j].blank || ls[j].fence || !has_word(ls[j].l, ls[j].eol))
                continue; /* rules ("------") count for nothing */
            if (ls[j].env)
                break; /* the end of the dump before: its heading was marked */
            ls[j].skip = true;
            heading++;
        }
    }
}

static bool is_test_word(const char *w, size_t len)
{
    static const char *const words[] = {"test",     "tests",    "testing", "pytest",
                                        "unittest", "testcase", "fixture", "fixtures"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(words); i++)
        if (strlen(words[i]) == len && strncasecmp(words[i], w, len) == 0)
            return true;
    return false;
}

static int cmp_word_priority(const void *a, const void *b)
{
    const struct word *x = a, *y = b;
    if (x->strength != y->strength)
        return x->strength > y->strength ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_word_pos(const void *a, const void *b)
{
    const struct word *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_term(const void *a, const void *b)
{
    const mn_query_term *x = a, *y = b;
    return x->weight > y->weight ? -1 : x->weight < y->weight;
}

/*
 * The terms of a full-text query of free text (mn_store_fts_text_query:
 * terms joined by " OR ", each a phrase "..." or a group ("A" OR "a"), a
 * phrase's own quote doubled), at most max, each its own expression: the
 * title's words are counted one by one to bound its query (lexical.c),
 * and some of them are none of the query's terms (not among its best
 * MN_QUERY_MAX_WORDS words, or words query.c leaves out of the text's).
 */
static size_t split_terms(const char *match, const char **out, size_t max, mn_arena *arena)
{
    size_t n = 0;
    const char *start = match;
    int depth = 0;
    bool quoted = false;
    for (const char *p = match;; p++) {
        if (*p == '"') {
            if (quoted && p[1] == '"')
                p++; /* "" inside a phrase */
            else
                quoted = !quoted;
            continue;
        }
        if (quoted && *p)
            continue;
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        bool sep = depth == 0 && !strncmp(p, " OR ", 4);
        if (!*p || sep) {
            if (p > start && n < max)
                out[n++] = mn_arena_strndup(arena, start, (size_t)(p - start));
            if (!*p)
                break;
            p += 3;
            start = p + 1;
        }
    }
    return n;
}

int mn_query_analyse(mn_query_info *q, const char *text, size_t len, mn_arena *arena)
{
    memset(q, 0, sizeof(*q));
    q->text = text;
    q->len = len;
    scan sc = {q, arena,       MN_MAP_INIT, 0,           NULL, 0,
               0, MN_MAP_INIT, MN_VEC_INIT, MN_VEC_INIT, 0,    false};
    bool fence = false, traceback = false;
    int frame_pos = 0, test_words = 0;
    /* the text read: comments blanked (offsets unchanged), cut into lines */
    const char *read = uncommented(text, len, arena);
    if (!read)
        read = text;
    const char *end = read + len;
    MN_VEC(text_line) lines = MN_VEC_INIT;
    for (const char *line = read; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        text_line tl = {line, line, eol, false, false, false, false};
        while (tl.l < eol && (*tl.l == ' ' || *tl.l == '\t'))
            tl.l++;
        tl.blank = tl.l == eol || (tl.l + 1 == eol && *tl.l == '\r');
        tl.fence = starts_with(tl.l, eol, "```") || starts_with(tl.l, eol, "~~~");
        tl.env = !tl.fence && env_line(tl.l, eol);
        mn_vec_push(&lines, tl);
        line = eol + 1;
    }
    mark_skipped(lines.items, lines.len);
    for (size_t li = 0; li < lines.len; li++) {
        const char *line = lines.items[li].line, *l = lines.items[li].l, *eol = lines.items[li].eol;
        bool indented = l - line >= 4 || (l > line && *line == '\t');
        if (lines.items[li].fence) {
            fence = !fence;
            continue;
        }
        if (!traceback && lines.items[li].skip)
            continue;
        if (memmem(l, (size_t)(eol - l), "Traceback (most recent call last)", 33))
            traceback = true;
        else if (traceback && l == line && eol > l && !starts_with(l, eol, "File"))
            traceback = strchr(":-~", *l) != NULL; /* the exception line ends it */
        bool code = fence || traceback || indented || starts_with(l, eol, ">>>") ||
                    starts_with(l, eol, "$ ") || starts_with(l, eol, "In [");
        /* a frame of another language: its mentions are the frame's alone
         * (its dotted names are a class's and a package's, not module paths) */
        bool py_frame = python_frame(&sc, l, eol, &frame_pos);
        bool other_frame =
            !py_frame && trace_frame(&sc, l, eol, li ? lines.items[li - 1].l : NULL,
                                     li ? lines.items[li - 1].eol : NULL, &frame_pos);
        cli_options(&sc, l, eol, code);
        /* the message of the error line above; a frame or another error line there
         * means it has none */
        bool below = sc.message_below && !lines.items[li].blank;
        if (below)
            sc.message_below = false;
        bool error_line = exception_line(&sc, l, eol);
        if (error_line)
            close_block(&sc, frame_pos);
        else if (below && !other_frame && !py_frame)
            message_run(&sc, l, eol);
        import_alias(&sc, starts_with(l, eol, ">>> ") ? l + 4 : l, eol);
        bool tick = false;
        for (const char *p = l; p < eol;) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '`') {
                tick = !tick;
                p++;
                continue;
            }
            if (!path_char(ch)) {
                p++;
                continue;
            }
            const char *t = p;
            while (p < eol && path_char((unsigned char)*p))
                p++;
            size_t tl = (size_t)(p - t);
            if (tl <= MAX_TOKEN && !other_frame)
                token(&sc, t, tl, p, eol, code || tick, &frame_pos);
            /* its words, for the full-text query */
            for (const char *w = t; w < p;) {
                if (!word_char((unsigned char)*w)) {
                    w++;
                    continue;
                }
                const char *we = w;
                while (we < p && word_char((unsigned char)*we))
                    we++;
                size_t wl = (size_t)(we - w);
                double s = mn_query_code_shape(w, wl);
                if ((code || tick) && s < 0.5)
                    s = 0.5;
                add_word(&sc, w, wl, (size_t)(w - read), s);
                if (!code && !tick && is_test_word(w, wl))
                    test_words++;
                w = we;
            }
        }
    }
    mn_vec_release(&lines);
    close_block(&sc, frame_pos);
    turn_frames(&sc);
    mn_vec_release(&sc.occurrences);
    mn_vec_release(&sc.blocks);
    q->nframes = frame_pos;
    q->about_tests = test_words > 0;

    /* the full-text query: the best MN_QUERY_MAX_WORDS words, in text order */
    size_t keep = sc.nwords;
    size_t maxw = MN_QUERY_MAX_WORDS;
    if (keep > maxw) {
        qsort(sc.words, sc.nwords, sizeof(*sc.words), cmp_word_priority);
        keep = maxw;
        qsort(sc.words, keep, sizeof(*sc.words), cmp_word_pos);
    }
    mn_buf words = MN_BUF_INIT, match = MN_BUF_INIT;
    for (size_t i = 0; i < keep; i++) {
        mn_buf_put(&words, sc.words[i].w, sc.words[i].len);
        mn_buf_putc(&words, ' ');
    }
    q->nwords = mn_store_fts_text_query(&match, words.ptr, words.len, MN_QUERY_MAX_WORDS);
    if (q->nwords)
        q->match = mn_arena_strndup(arena, match.ptr, match.len);
    /* the words on their own, for per-term signals, by weight =
     * (1 + strength + 1 if in the title) * (1 + 0.3 ln count) */
    const char *nl = memchr(text, '\n', len);
    size_t title_end = nl && nl - text < 300 ? (size_t)(nl - text) : 0;
    {
        size_t n = 0;
        mn_query_term *t = mn_arena_alloc(arena, (keep ? keep : 1) * sizeof(*t));
        for (size_t i = 0; i < keep; i++) {
            const struct word *w = &sc.words[i];
            mn_buf_clear(&match);
            if (mn_store_fts_text_query(&match, w->w, w->len, 1) == 0)
                continue;
            t[n].word = mn_arena_strndup(arena, w->w, w->len);
            t[n].match = mn_arena_strndup(arena, match.ptr, match.len);
            t[n].in_title = w->first < title_end;
            t[n].weight =
                (1 + w->strength + (t[n].in_title ? 1.0 : 0)) * (1 + 0.3 * log((double)w->count));
            n++;
        }
        qsort(t, n, sizeof(*t), cmp_term);
        q->terms = t;
        q->nterms = n;
    }
    /* a title: a first line of a few words above more text (an issue) */
    if (nl && nl - text < 300) {
        const char *rest = nl;
        while (rest < text + len && isspace((unsigned char)*rest))
            rest++;
        mn_buf_clear(&match);
        size_t n = 0;
        if (rest < text + len && (n = mn_store_fts_text_query(&match, text, (size_t)(nl - text),
                                                              MN_QUERY_MAX_WORDS)) > 0) {
            q->title_match = mn_arena_strndup(arena, match.ptr, match.len);
            q->title_terms = mn_arena_alloc(arena, n * sizeof(*q->title_terms));
            q->ntitle_terms = split_terms(q->title_match, q->title_terms, n, arena);
        }
    }
    mn_buf_release(&words);
    mn_buf_release(&match);
    free(sc.words);
    mn_map_release(&sc.index);
    mn_map_release(&sc.word_index);
    return 0;
}
