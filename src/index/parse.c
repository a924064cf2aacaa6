/*
 * parse.c - symbols, references and chunks of one file (see parse.h for
 * what is extracted and the kind mapping).
 *
 * How it works. One TSQuery per language is compiled on first use from the
 * grammar's tags.scm followed by queries/<language>.scm. Before compiling,
 * the text is cut into its top-level patterns and only those with a capture
 * parse.c uses are kept (tags.scm's @reference.type and friends would cost
 * query time for nothing). When the grammar rejects a pattern (a node type
 * it lacks: typescript's tags reuse javascript's), ts_query_new reports the
 * offset; that pattern is dropped and the rest compiled again.
 *
 * Capture names:
 *   @name                     the defined or called name
 *   @definition.<kind>        a definition (kind normalized in map_kind)
 *   @reference.call/.send     a call (@name is the callee's name)
 *   @import                   an import: the node's text, quotes removed
 *   @import.keep              ... delimiters kept (C/C++ includes)
 *   @import.relative          ... made "./x" unless it starts with '.' or '/'
 *   @import.from              a Python from-import statement
 *   @import.rust              a Rust use tree, expanded
 *   @import.decl              a Java import or C# using declaration
 *   @import.php               a PHP use declaration, groups expanded
 *   @inherit, @inherit.owner  a base type (and, for Rust impls, the type)
 *   anything else (@doc, @_x) is only there for predicates or ignored.
 *
 * Predicates. The C runtime evaluates none; parse.c applies #eq?, #not-eq?,
 * #any-of?, #not-any-of?, #match?, #not-match? (and their any- forms, on the
 * first node of a capture) to each match. Regexes are POSIX extended (as
 * written in grammars' queries in practice); one that regcomp refuses is
 * treated as satisfied. Directives (#set!, #strip!, #select-adjacent!) are
 * ignored: docstrings are found here. A pattern with any other predicate
 * (ruby's #is-not? local needs scope analysis) is disabled rather than
 * guessed.
 *
 * Invariants: every TSNode is used before its tree is deleted; every string
 * of a result goes through emit() (valid UTF-8, no NUL, capped) into the
 * result's arena; the parser's scratch vectors are reused from file to file,
 * so a parse mallocs only when a file is larger than any before it.
 * Nothing recurses over the syntax tree: deeply nested input cannot exhaust
 * the stack.
 */
#include <regex.h>

#include <tree_sitter/api.h>
#include <xxhash.h>

#include "common.h"

#include "index/grammars.h"
#include "index/parse.h"
#include "index/receivers.h"
#include "util/buf.h"

/* Our own queries, embedded by cmake/embed.cmake from src/index/queries/. */
extern const char mn_query_python[], mn_query_javascript[], mn_query_typescript[], mn_query_go[],
    mn_query_rust[], mn_query_java[], mn_query_c[], mn_query_cpp[], mn_query_ruby[], mn_query_php[],
    mn_query_csharp[], mn_query_bash[];

#define QUALIFIED_MAX       512 /* a longer qualified name is just the name */
#define TARGET_MAX          512
#define NAME_MAX_LEN        256
#define CONTAINER_DEPTH_MAX 32
/* lines of a comment between symbols that goes with the next (section_comment) */
#define SECTION_COMMENT_LINES 3

/* ---- languages ---- */

enum {
    C_HASH = 1 << 0,    /* '#' line comments */
    C_SLASH = 1 << 1,   /* '//' and block comments */
    F_PYTHON = 1 << 2,  /* docstrings, constant vs variable */
    F_RUBY = 1 << 3,    /* a method in a module is a method */
    F_RUST = 1 << 4,    /* #[...] attribute lines above items */
    F_CSHARP = 1 << 5,  /* [...] attribute lines above members */
    F_GO = 1 << 6,      /* receivers */
    F_CFAMILY = 1 << 7, /* declarators, prototypes */
    F_SHELL = 1 << 8    /* quotes anywhere in a word: "$DIR"/x.sh */
};

typedef struct {
    const char *name;    /* as mn_classify names it */
    const char *grammar; /* as grammars.h names it */
    const char *own;     /* queries/<name>.scm */
    unsigned flags;
    const char *const *not_calls; /* names never recorded as calls */
} lang_spec;

static const char *const js_not_calls[] = {"require", NULL};
static const char *const ruby_not_calls[] = {"require", "require_relative", "load", "include",
                                             "extend",  "prepend",          NULL};
static const char *const bash_not_calls[] = {
    "source", ".",    "echo",    "printf",   "cd",   "export", "local", "set",  "unset",
    "shift",  "exit", "return",  "read",     "test", "[",      "[[",    "true", "false",
    "eval",   "exec", "declare", "readonly", "trap", "wait",   "let",   NULL};

static const lang_spec langs[] = {
    {"python", "python", mn_query_python, C_HASH | F_PYTHON, NULL},
    {"javascript", "javascript", mn_query_javascript, C_SLASH, js_not_calls},
    {"typescript", "typescript", mn_query_typescript, C_SLASH, js_not_calls},
    {"tsx", "tsx", mn_query_typescript, C_SLASH, js_not_calls},
    {"go", "go", mn_query_go, C_SLASH | F_GO, NULL},
    {"rust", "rust", mn_query_rust, C_SLASH | F_RUST, NULL},
    {"java", "java", mn_query_java, C_SLASH, NULL},
    {"c", "c", mn_query_c, C_SLASH | F_CFAMILY, NULL},
    {"cpp", "cpp", mn_query_cpp, C_SLASH | F_CFAMILY, NULL},
    {"ruby", "ruby", mn_query_ruby, C_HASH | F_RUBY, ruby_not_calls},
    {"php", "php", mn_query_php, C_SLASH | C_HASH, NULL},
    {"csharp", "c_sharp", mn_query_csharp, C_SLASH | F_CSHARP, NULL},
    {"bash", "bash", mn_query_bash, C_HASH | F_SHELL, bash_not_calls},
};

static const lang_spec *spec_of(const char *language)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(langs); i++)
        if (strcmp(langs[i].name, language) == 0)
            return &langs[i];
    return NULL;
}

/* ---- compiled queries ---- */

enum {
    ROLE_NONE,
    ROLE_NAME,
    ROLE_DEF,
    ROLE_CALL,
    ROLE_IMPORT,
    ROLE_IMPORT_KEEP,
    ROLE_IMPORT_RELATIVE,
    ROLE_IMPORT_FROM,
    ROLE_IMPORT_RUST,
    ROLE_IMPORT_DECL,
    ROLE_IMPORT_PHP,
    ROLE_INHERIT,
    ROLE_INHERIT_OWNER
};

enum { P_EQ, P_MATCH, P_ANY_OF };

typedef struct {
    uint8_t op;
    bool negate;
    uint32_t cap;    /* capture id tested */
    uint32_t cap2;   /* for #eq? @a @b, else UINT32_MAX */
    const char *str; /* for #eq? @a "s" (owned by the query) */
    uint32_t len;
    regex_t *re;       /* for #match?; NULL when regcomp refused it */
    uint32_t first, n; /* for #any-of?: strings in lang_state.strs */
} predicate;

typedef struct {
    uint32_t first, n; /* predicates in lang_state.preds */
} pattern_preds;

typedef struct {
    const char *ptr;
    uint32_t len;
} str_ref;

typedef struct {
    bool tried;
    const lang_spec *spec; /* NULL for a grammar without a spec */
    const mn_grammar *grammar;
    TSQuery *query;
    uint8_t *roles;        /* per capture id */
    const char **def_kind; /* per capture id, for ROLE_DEF: the tag's kind */
    pattern_preds *pats;   /* per pattern */
    MN_VEC(predicate) preds;
    MN_VEC(str_ref) strs;
    mn_parse_query_info info;
} lang_state;

/* ---- scratch records ---- */

typedef struct {
    uint32_t start, end; /* outer span (wrappers included) */
    TSPoint sp, ep;
    TSNode def; /* the definition node, normalized */
    TSNode name;
    uint32_t scope_start, scope_end; /* a qualifier outside the parents: receiver, impl, Foo:: */
    const char *kind;
    uint32_t seq;
    bool proto; /* a C/C++ declaration without a body */
} raw_def;

enum { REF_IMPORT, REF_CALL, REF_INHERIT };
static const char *const ref_kind_names[] = {"import", "call", "inherit"};

typedef struct {
    uint32_t pos;
    uint32_t seq;
    uint8_t kind;
    const char *target; /* in the result's arena */
    const char *owner;  /* Rust impl Trait for <owner>, or NULL */
    const char *recv;   /* a call's receiver as written (in the source), or NULL */
    uint32_t recv_len;
} raw_ref;

typedef struct {
    int parent; /* final symbol index, or -1 */
    int first_child, next_sibling;
    int64_t chunk_line; /* first line of its chunk (its leading comment) */
    uint32_t chunk_byte;
} sym_extra;

typedef struct {
    int src;
    uint8_t kind;
    const char *target;
    uint32_t seq;
    uint32_t count;
} ref_slot;

struct mn_parser {
    TSParser *ts;
    TSQueryCursor *cursor;
    TSTreeCursor tcursor; /* reset onto a node when needed; valid once has_tcursor */
    bool has_tcursor;
    lang_state *states; /* parallel to mn_grammars() */
    size_t nstates;
    /* scratch */
    MN_VEC(raw_def) defs;
    MN_VEC(raw_ref) refs;
    MN_VEC(uint32_t) line_starts;
    MN_VEC(sym_extra) extra;
    MN_VEC(int) map;
    MN_VEC(int) stack;
    MN_VEC(ref_slot) slots;
    mn_buf tmp, tmp2;
};

/* What a parse works on. */
typedef struct {
    mn_parser *p;
    mn_parse_result *out;
    const lang_spec *spec;
    lang_state *L;
    const char *src;
    uint32_t len;
} ctx;

/* ---- text helpers ---- */

static bool node_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return c ? 1 : 0;
    size_t need;
    uint32_t min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    uint32_t cp = c & (0x7F >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

/*
 * A copy of s[0..n) in the arena: valid UTF-8 (invalid bytes and NULs become
 * U+FFFD), NUL-terminated, at most cap bytes (cut before a character that
 * would not fit). *used, when not NULL, gets the source bytes consumed.
 */
static char *emit_n(mn_arena *a, const char *s, size_t n, size_t cap, size_t *used)
{
    size_t room = n * 3 < cap ? n * 3 : cap;
    char *out = mn_arena_alloc(a, room + 1);
    size_t o = 0, i = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (i < n) {
        size_t l = utf8_len(u + i, n - i);
        if (l) {
            if (o + l > room)
                break;
            memcpy(out + o, u + i, l);
            o += l;
            i += l;
        } else {
            if (o + 3 > room)
                break;
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    if (used)
        *used = i;
    return out;
}

static char *emit(mn_arena *a, const char *s, size_t n, size_t cap)
{
    return emit_n(a, s, n, cap, NULL);
}

static char *emit_buf(mn_arena *a, const mn_buf *b, size_t cap)
{
    return emit(a, b->ptr, b->len, cap);
}

static void hash_hex(const char *s, size_t n, char out[MN_HASH_HEX])
{
    static const char hex[] = "0123456789abcdef";
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(s, n));
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[c.digest[i] >> 4];
        out[2 * i + 1] = hex[c.digest[i] & 15];
    }
    out[32] = '\0';
}

/*
 * Append s[0..n) with runs of whitespace made one space (none after '(' or
 * '[', nor before ')', ']' or ','), leading and trailing whitespace dropped.
 */
static void put_collapsed(mn_buf *b, const char *s, size_t n)
{
    bool space = false, newline = false;
    for (size_t i = 0; i < n; i++) {
        if (is_ws((unsigned char)s[i])) {
            space = b->len > 0;
            newline |= s[i] == '\n';
            continue;
        }
        char prev = b->len ? b->ptr[b->len - 1] : ' ';
        /* "char *\nname(" is "char *name(" */
        bool star = newline && prev == '*' && b->len >= 2 && b->ptr[b->len - 2] == ' ';
        if (space && !star && prev != '(' && prev != '[' && s[i] != ')' && s[i] != ']' &&
            s[i] != ',')
            mn_buf_putc(b, ' ');
        newline = false;
        space = false;
        mn_buf_putc(b, s[i]);
    }
}

/* ---- lines ---- */

static void index_lines(ctx *c)
{
    mn_parser *p = c->p;
    p->line_starts.len = 0;
    if (c->len == 0)
        return;
    mn_vec_push(&p->line_starts, 0);
    const char *s = c->src, *end = c->src + c->len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl || nl + 1 >= end)
            break;
        mn_vec_push(&p->line_starts, (uint32_t)(nl + 1 - c->src));
        s = nl + 1;
    }
}

static int64_t nlines(const ctx *c)
{
    return (int64_t)c->p->line_starts.len;
}

/* 1-based line of byte b. */
static int64_t line_of(const ctx *c, uint32_t b)
{
    const uint32_t *ls = c->p->line_starts.items;
    size_t lo = 0, hi = c->p->line_starts.len;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (ls[mid] <= b)
            lo = mid;
        else
            hi = mid;
    }
    return (int64_t)lo + 1;
}

static uint32_t line_start(const ctx *c, int64_t line)
{
    return c->p->line_starts.items[line - 1];
}

/* End of a line, its newline excluded. */
static uint32_t line_end(const ctx *c, int64_t line)
{
    uint32_t e = line < nlines(c) ? c->p->line_starts.items[line] : c->len;
    if (e > line_start(c, line) && c->src[e - 1] == '\n')
        e--;
    if (e > line_start(c, line) && c->src[e - 1] == '\r')
        e--;
    return e;
}

static bool has_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'z') || ch >= 0x80)
            return true;
    }
    return false;
}

/* ---- query compilation ---- */

typedef struct {
    uint32_t start, len;
} form;

typedef MN_VEC(form) form_vec;

/*
 * Cut query text into its top-level patterns: each runs from an opening
 * '(' or '[' at depth 0 to the next one (so trailing captures and
 * quantifiers stay with their pattern). Strings and ';' comments are skipped.
 */
static void split_forms(const char *q, size_t n, form_vec *out)
{
    int depth = 0;
    long cur = -1;
    for (size_t i = 0; i < n; i++) {
        char ch = q[i];
        if (ch == ';') {
            while (i < n && q[i] != '\n')
                i++;
        } else if (ch == '"') {
            for (i++; i < n && q[i] != '"'; i++)
                if (q[i] == '\\')
                    i++;
        } else if (ch == '(' || ch == '[') {
            if (depth == 0) {
                if (cur >= 0) {
                    form f = {(uint32_t)cur, (uint32_t)(i - (size_t)cur)};
                    mn_vec_push(out, f);
                }
                cur = (long)i;
            }
            depth++;
        } else if (ch == ')' || ch == ']') {
            if (depth > 0)
                depth--;
        }
    }
    if (cur >= 0) {
        form f = {(uint32_t)cur, (uint32_t)(n - (size_t)cur)};
        mn_vec_push(out, f);
    }
}

static bool form_is_useful(const char *q, form f)
{
    static const char *const wanted[] = {"@definition.", "@reference.call", "@reference.send",
                                         "@import", "@inherit"};
    for (size_t w = 0; w < MN_ARRAY_SIZE(wanted); w++) {
        size_t wl = strlen(wanted[w]);
        for (uint32_t i = 0; i + wl <= f.len; i++)
            if (q[f.start + i] == '@' && memcmp(q + f.start + i, wanted[w], wl) == 0)
                return true;
    }
    return false;
}

static uint8_t role_of(const char *name, uint32_t len, const char **kind)
{
    *kind = NULL;
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(name, lit, len) == 0)
    if (IS("name"))
        return ROLE_NAME;
    if (len > 11 && memcmp(name, "definition.", 11) == 0) {
        *kind = name + 11;
        return ROLE_DEF;
    }
    if (IS("reference.call") || IS("reference.send"))
        return ROLE_CALL;
    if (IS("import"))
        return ROLE_IMPORT;
    if (IS("import.keep"))
        return ROLE_IMPORT_KEEP;
    if (IS("import.relative"))
        return ROLE_IMPORT_RELATIVE;
    if (IS("import.from"))
        return ROLE_IMPORT_FROM;
    if (IS("import.rust"))
        return ROLE_IMPORT_RUST;
    if (IS("import.decl"))
        return ROLE_IMPORT_DECL;
    if (IS("import.php"))
        return ROLE_IMPORT_PHP;
    if (IS("inherit"))
        return ROLE_INHERIT;
    if (IS("inherit.owner"))
        return ROLE_INHERIT_OWNER;
#undef IS
    return ROLE_NONE;
}

/* Read the predicates of every pattern; disable the patterns we cannot evaluate. */
static void load_predicates(lang_state *L)
{
    TSQuery *q = L->query;
    uint32_t npat = ts_query_pattern_count(q);
    L->pats = mn_calloc(npat ? npat : 1, sizeof(*L->pats));
    for (uint32_t pi = 0; pi < npat; pi++) {
        uint32_t nsteps;
        const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(q, pi, &nsteps);
        L->pats[pi].first = (uint32_t)L->preds.len;
        bool disable = false;
        uint32_t i = 0;
        while (i < nsteps) {
            uint32_t j = i;
            while (j < nsteps && st[j].type != TSQueryPredicateStepTypeDone)
                j++;
            /* steps i..j-1: name, args */
            if (j > i && st[i].type == TSQueryPredicateStepTypeString) {
                uint32_t nl;
                const char *name = ts_query_string_value_for_id(q, st[i].value_id, &nl);
                /* [any-][not-]eq?, [any-][not-]match?, [not-]any-of? */
                const char *op = name;
                size_t ol = nl;
                bool negate = false;
                if (ol > 4 && memcmp(op, "any-", 4) == 0 &&
                    !(ol == 7 && !memcmp(op, "any-of?", 7))) {
                    op += 4; /* any-: tested on the first node, like the rest */
                    ol -= 4;
                }
                if (ol > 4 && memcmp(op, "not-", 4) == 0) {
                    negate = true;
                    op += 4;
                    ol -= 4;
                }
                uint32_t nargs = j - i - 1;
                const TSQueryPredicateStep *args = st + i + 1;
                predicate pr = {0};
                pr.negate = negate;
                pr.cap2 = UINT32_MAX;
                if (name[nl - 1] == '!') {
                    /* a directive (#set!, #strip!...): nothing to check */
                } else if (ol == 3 && memcmp(op, "eq?", 3) == 0) {
                    if (nargs != 2 || args[0].type != TSQueryPredicateStepTypeCapture) {
                        disable = true;
                    } else {
                        pr.op = P_EQ;
                        pr.cap = args[0].value_id;
                        if (args[1].type == TSQueryPredicateStepTypeCapture)
                            pr.cap2 = args[1].value_id;
                        else
                            pr.str = ts_query_string_value_for_id(q, args[1].value_id, &pr.len);
                        mn_vec_push(&L->preds, pr);
                    }
                } else if (ol == 6 && memcmp(op, "match?", 6) == 0) {
                    if (nargs != 2 || args[0].type != TSQueryPredicateStepTypeCapture ||
                        args[1].type != TSQueryPredicateStepTypeString) {
                        disable = true;
                    } else {
                        pr.op = P_MATCH;
                        pr.cap = args[0].value_id;
                        uint32_t rl;
                        const char *rx = ts_query_string_value_for_id(q, args[1].value_id, &rl);
                        char *z = mn_strndup(rx, rl);
                        pr.re = mn_malloc(sizeof(*pr.re));
                        if (regcomp(pr.re, z, REG_EXTENDED | REG_NOSUB) != 0) {
                            free(pr.re);
                            pr.re = NULL; /* treated as satisfied */
                        }
                        free(z);
                        mn_vec_push(&L->preds, pr);
                    }
                } else if (ol == 7 && memcmp(op, "any-of?", 7) == 0) {
                    if (nargs < 1 || args[0].type != TSQueryPredicateStepTypeCapture) {
                        disable = true;
                    } else {
                        pr.op = P_ANY_OF;
                        pr.cap = args[0].value_id;
                        pr.first = (uint32_t)L->strs.len;
                        for (uint32_t k = 1; k < nargs; k++) {
                            if (args[k].type != TSQueryPredicateStepTypeString) {
                                disable = true;
                                break;
                            }
                            str_ref s;
                            s.ptr = ts_query_string_value_for_id(q, args[k].value_id, &s.len);
                            mn_vec_push(&L->strs, s);
                        }
                        pr.n = (uint32_t)L->strs.len - pr.first;
                        mn_vec_push(&L->preds, pr);
                    }
                } else {
                    disable = true; /* #is?, #is-not? ...: cannot evaluate */
                }
            }
            i = j + 1;
        }
        L->pats[pi].n = (uint32_t)L->preds.len - L->pats[pi].first;
        if (disable) {
            ts_query_disable_pattern(q, pi);
            L->info.disabled++;
        }
    }
}

static void compile_language(lang_state *L)
{
    L->tried = true;
    const char *tags = L->grammar->tags_query;
    const char *own = L->spec ? L->spec->own : NULL;
    mn_buf all = MN_BUF_INIT, joined = MN_BUF_INIT;
    form_vec forms = MN_VEC_INIT;
    MN_VEC(uint32_t) at = MN_VEC_INIT; /* start of each kept form in joined */
    if (tags)
        mn_buf_puts(&all, tags);
    mn_buf_putc(&all, '\n');
    if (own)
        mn_buf_puts(&all, own);
    split_forms(all.ptr, all.len, &forms);
    size_t kept = 0;
    for (size_t i = 0; i < forms.len; i++)
        if (form_is_useful(all.ptr, forms.items[i]))
            forms.items[kept++] = forms.items[i];
    forms.len = kept;

    const TSLanguage *lang = L->grammar->language();
    for (int attempt = 0; attempt < 256 && forms.len; attempt++) {
        mn_buf_clear(&joined);
        at.len = 0;
        for (size_t i = 0; i < forms.len; i++) {
            mn_vec_push(&at, (uint32_t)joined.len);
            mn_buf_put(&joined, all.ptr + forms.items[i].start, forms.items[i].len);
            mn_buf_putc(&joined, '\n');
        }
        uint32_t off = 0;
        TSQueryError err = TSQueryErrorNone;
        L->query = ts_query_new(lang, joined.ptr, (uint32_t)joined.len, &off, &err);
        if (L->query)
            break;
        /* drop the pattern holding the error and try again */
        size_t bad = 0;
        while (bad + 1 < forms.len && at.items[bad + 1] <= off)
            bad++;
        memmove(forms.items + bad, forms.items + bad + 1,
                (forms.len - bad - 1) * sizeof(*forms.items));
        forms.len--;
        L->info.dropped_forms++;
    }
    if (L->query) {
        uint32_t ncap = ts_query_capture_count(L->query);
        L->roles = mn_calloc(ncap ? ncap : 1, 1);
        L->def_kind = mn_calloc(ncap ? ncap : 1, sizeof(*L->def_kind));
        for (uint32_t i = 0; i < ncap; i++) {
            uint32_t nl;
            const char *name = ts_query_capture_name_for_id(L->query, i, &nl);
            L->roles[i] = role_of(name, nl, &L->def_kind[i]);
        }
        load_predicates(L);
        L->info.compiled = true;
        L->info.patterns = ts_query_pattern_count(L->query);
    }
    mn_vec_release(&at);
    mn_vec_release(&forms);
    mn_buf_release(&joined);
    mn_buf_release(&all);
}

static lang_state *state_for(mn_parser *p, const char *language, const lang_spec **spec_out)
{
    const lang_spec *spec = spec_of(language);
    const char *gname = spec ? spec->grammar : language;
    *spec_out = spec;
    const mn_grammar *g = mn_grammar_find(gname);
    if (!g)
        return NULL;
    size_t n;
    const mn_grammar *all = mn_grammars(&n);
    size_t ix = (size_t)(g - all);
    if (ix >= p->nstates)
        return NULL;
    lang_state *L = &p->states[ix];
    if (!L->tried) {
        L->spec = spec;
        L->grammar = g;
        L->info.has_grammar = true;
        compile_language(L);
    }
    return L;
}

static void free_state(lang_state *L)
{
    for (size_t i = 0; i < L->preds.len; i++) {
        if (L->preds.items[i].re) {
            regfree(L->preds.items[i].re);
            free(L->preds.items[i].re);
        }
    }
    mn_vec_release(&L->preds);
    mn_vec_release(&L->strs);
    free(L->pats);
    free(L->roles);
    free(L->def_kind);
    if (L->query)
        ts_query_delete(L->query);
}

/* ---- predicates ---- */

static bool capture_text(const ctx *c, const TSQueryMatch *m, uint32_t cap, const char **s,
                         uint32_t *n)
{
    for (uint16_t i = 0; i < m->capture_count; i++) {
        if (m->captures[i].index == cap) {
            uint32_t a = ts_node_start_byte(m->captures[i].node);
            uint32_t b = ts_node_end_byte(m->captures[i].node);
            *s = c->src + a;
            *n = b - a;
            return true;
        }
    }
    return false;
}

static bool predicates_hold(const ctx *c, const TSQueryMatch *m)
{
    const lang_state *L = c->L;
    const pattern_preds *pp = &L->pats[m->pattern_index];
    for (uint32_t k = 0; k < pp->n; k++) {
        const predicate *pr = &L->preds.items[pp->first + k];
        const char *s;
        uint32_t n;
        if (!capture_text(c, m, pr->cap, &s, &n))
            continue; /* an optional capture that did not match */
        bool ok = true;
        if (pr->op == P_EQ) {
            const char *t = pr->str;
            uint32_t tn = pr->len;
            if (pr->cap2 != UINT32_MAX && !capture_text(c, m, pr->cap2, &t, &tn))
                continue;
            ok = n == tn && memcmp(s, t, n) == 0;
        } else if (pr->op == P_MATCH) {
            if (!pr->re)
                continue;
            char z[NAME_MAX_LEN];
            size_t zl = n < sizeof(z) - 1 ? n : sizeof(z) - 1;
            memcpy(z, s, zl);
            z[zl] = '\0';
            ok = regexec(pr->re, z, 0, NULL, 0) == 0;
        } else {
            ok = false;
            for (uint32_t i = 0; i < pr->n && !ok; i++) {
                const str_ref *r = &L->strs.items[pr->first + i];
                ok = r->len == n && memcmp(r->ptr, s, n) == 0;
            }
        }
        if (ok == pr->negate)
            return false;
    }
    return true;
}

/* ---- definitions ---- */

static bool type_in(const char *t, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(t, *set) == 0)
            return true;
    return false;
}

/* The normalized kind of a definition, or NULL to drop it. */
static const char *map_kind(const ctx *c, const char *tag, TSNode def, TSNode name)
{
    const char *t = ts_node_type(def);
    static const char *const structs[] = {"struct_item", "struct_specifier",   "union_specifier",
                                          "union_item",  "struct_declaration", NULL};
    static const char *const enums[] = {"enum_item", "enum_specifier", "enum_declaration", NULL};
    static const char *const traits[] = {"trait_item", "trait_declaration", NULL};
    static const char *const types[] = {"type_item", "type_alias_declaration", "type_alias",
                                        "type_definition", NULL};
    static const char *const modules[] = {"namespace_definition",
                                          "namespace_declaration",
                                          "internal_module",
                                          "module",
                                          "mod_item",
                                          NULL};
    static const char *const macros[] = {"macro_definition", "preproc_function_def", NULL};
    if (strcmp(tag, "field") == 0)
        return NULL;
    if (type_in(t, structs))
        return "struct";
    if (type_in(t, enums))
        return "enum";
    if (type_in(t, traits))
        return "trait";
    if (type_in(t, types))
        return "type";
    if (type_in(t, modules))
        return "module";
    if (type_in(t, macros))
        return "macro";
    if (strcmp(t, "interface_declaration") == 0 || strcmp(t, "annotation_type_declaration") == 0)
        return "interface";
    if (strcmp(t, "preproc_def") == 0)
        return "constant";
    if (strcmp(t, "type_spec") == 0) {
        TSNode ty = ts_node_child_by_field_name(def, "type", 4);
        if (node_is(ty, "struct_type"))
            return "struct";
        if (node_is(ty, "interface_type"))
            return "interface";
        return "type";
    }
    if (strcmp(tag, "constant") == 0 && (c->spec && (c->spec->flags & F_PYTHON))) {
        for (uint32_t i = ts_node_start_byte(name); i < ts_node_end_byte(name); i++) {
            char ch = c->src[i];
            if (ch >= 'a' && ch <= 'z')
                return "variable";
        }
        return "constant";
    }
    static const char *const known[] = {"function", "method",   "class", "interface", "module",
                                        "constant", "type",     "macro", "enum",      "struct",
                                        "trait",    "variable", NULL};
    for (const char *const *k = known; *k; k++)
        if (strcmp(tag, *k) == 0)
            return *k;
    return NULL; /* an unknown tag kind: not a symbol we can name */
}

/* A C/C++ function_declarator's definition: function_definition, or a declaration. */
static bool c_declarator_owner(TSNode *def, bool *proto)
{
    static const char *const through[] = {"pointer_declarator",       "reference_declarator",
                                          "parenthesized_declarator", "attributed_declarator",
                                          "function_declarator",      NULL};
    static const char *const places[] = {"translation_unit",
                                         "declaration_list",
                                         "field_declaration_list",
                                         "preproc_if",
                                         "preproc_ifdef",
                                         "preproc_else",
                                         "preproc_elif",
                                         "linkage_specification",
                                         "template_declaration",
                                         "preproc_elifdef",
                                         NULL};
    TSNode n = *def;
    for (int i = 0; i < 8; i++) {
        TSNode up = ts_node_parent(n);
        if (ts_node_is_null(up))
            return false;
        const char *t = ts_node_type(up);
        if (type_in(t, through)) {
            n = up;
            continue;
        }
        if (strcmp(t, "function_definition") == 0) {
            *def = up;
            *proto = false;
            return true;
        }
        if (strcmp(t, "declaration") == 0 || strcmp(t, "field_declaration") == 0) {
            TSNode where = ts_node_parent(up);
            if (ts_node_is_null(where) || !type_in(ts_node_type(where), places))
                return false;
            *def = up;
            *proto = true;
            return true;
        }
        return false;
    }
    return false;
}

/* Wrappers that belong to a definition's span. */
static bool is_wrapper(TSNode up)
{
    static const char *const always[] = {"decorated_definition", "export_statement",
                                         "template_declaration", "ambient_declaration", NULL};
    static const char *const single[] = {"lexical_declaration", "variable_declaration",
                                         "type_declaration",    "const_declaration",
                                         "var_declaration",     NULL};
    if (ts_node_is_null(up))
        return false;
    const char *t = ts_node_type(up);
    if (type_in(t, always))
        return true;
    return type_in(t, single) && ts_node_named_child_count(up) == 1;
}

/*
 * Whether the definition at byte `at` may sit in a wrapper (is_wrapper), from
 * the text around it: something before it on its line ("export const f =",
 * "type T struct", "template <class T> T f"), or a previous line that is a
 * decorator ("@cache"), may end one ("  frozen=True)") or ends a template
 * header ("template <class T>").
 * Only then is ts_node_parent paid for: it walks down from the root.
 */
static bool may_be_wrapped(const ctx *c, uint32_t at)
{
    uint32_t i = at;
    while (i > 0 && c->src[i - 1] != '\n') {
        if (!is_ws((unsigned char)c->src[i - 1]))
            return true;
        i--;
    }
    /* the previous non-blank line */
    while (i > 0 && is_ws((unsigned char)c->src[i - 1]))
        i--;
    if (i == 0)
        return false;
    uint32_t e = i;
    while (i > 0 && c->src[i - 1] != '\n')
        i--;
    while (i < e && is_ws((unsigned char)c->src[i]))
        i++;
    return c->src[i] == '@' || c->src[e - 1] == '>' || c->src[e - 1] == ')';
}

/* Strip pointer, reference and generic wrappers off a type node. */
static TSNode base_type(TSNode n)
{
    for (int i = 0; i < 6 && !ts_node_is_null(n); i++) {
        const char *t = ts_node_type(n);
        if (strcmp(t, "generic_type") == 0) {
            TSNode in = ts_node_child_by_field_name(n, "type", 4);
            n = ts_node_is_null(in) ? ts_node_named_child(n, 0) : in;
        } else if (strcmp(t, "pointer_type") == 0 || strcmp(t, "reference_type") == 0 ||
                   strcmp(t, "parenthesized_type") == 0) {
            TSNode in = ts_node_child_by_field_name(n, "type", 4);
            n = ts_node_is_null(in) ? ts_node_named_child(n, 0) : in;
        } else {
            break;
        }
    }
    return n;
}

static void add_def(ctx *c, TSNode def, TSNode name, const char *tag)
{
    bool proto = false;
    const char *t = ts_node_type(def);
    if (c->spec && (c->spec->flags & F_CFAMILY)) {
        if (strcmp(t, "function_declarator") == 0) {
            if (!c_declarator_owner(&def, &proto))
                return;
        } else if (strcmp(t, "declaration") == 0) {
            def = ts_node_child_by_field_name(def, "type", 4); /* union u {...} x; */
            if (ts_node_is_null(def))
                return;
        }
        t = ts_node_type(def);
        if (ends_with(t, "_specifier") &&
            ts_node_is_null(ts_node_child_by_field_name(def, "body", 4)))
            return; /* `struct x *p`: a use, not a definition */
    }
    if (ts_node_end_byte(name) <= ts_node_start_byte(name))
        return;
    const char *kind = map_kind(c, tag, def, name);
    if (!kind)
        return;

    raw_def d = {0};
    d.def = def;
    d.name = name;
    d.kind = kind;
    d.proto = proto;
    d.seq = (uint32_t)c->p->defs.len;

    TSNode outer = def;
    for (int i = 0; i < 3 && may_be_wrapped(c, ts_node_start_byte(outer)); i++) {
        TSNode up = ts_node_parent(outer);
        if (!is_wrapper(up))
            break;
        outer = up;
    }
    d.start = ts_node_start_byte(outer);
    d.end = ts_node_end_byte(outer);
    d.sp = ts_node_start_point(outer);
    d.ep = ts_node_end_point(outer);

    /* a qualifier written with the name: Widget::draw, class Foo::Bar */
    uint32_t nstart = ts_node_start_byte(name);
    bool colons = nstart >= 2 && c->src[nstart - 1] == ':' && c->src[nstart - 2] == ':';
    TSNode np = colons ? ts_node_parent(name) : name, top = name;
    while (colons && !ts_node_is_null(np) &&
           (node_is(np, "qualified_identifier") || node_is(np, "scope_resolution")) &&
           ts_node_end_byte(np) == ts_node_end_byte(name)) {
        top = np;
        np = ts_node_parent(np);
    }
    if (ts_node_start_byte(top) < ts_node_start_byte(name)) {
        d.scope_start = ts_node_start_byte(top);
        d.scope_end = ts_node_start_byte(name);
    }
    /* a receiver: func (r *Repo) Save() */
    if (c->spec && (c->spec->flags & F_GO) && strcmp(t, "method_declaration") == 0) {
        TSNode recv = ts_node_child_by_field_name(def, "receiver", 8);
        TSNode param = ts_node_is_null(recv) ? recv : ts_node_named_child(recv, 0);
        TSNode ty = ts_node_is_null(param)
                        ? param
                        : base_type(ts_node_child_by_field_name(param, "type", 4));
        if (!ts_node_is_null(ty)) {
            d.scope_start = ts_node_start_byte(ty);
            d.scope_end = ts_node_end_byte(ty);
        }
    }
    /* an impl block: impl<T> Point<T> { fn new() } */
    if (c->spec && (c->spec->flags & F_RUST) && strcmp(kind, "method") == 0 &&
        (strcmp(t, "function_item") == 0 || strcmp(t, "function_signature_item") == 0)) {
        TSNode list = ts_node_parent(def);
        TSNode impl = node_is(list, "declaration_list") ? ts_node_parent(list) : list;
        if (node_is(impl, "impl_item")) {
            TSNode ty = base_type(ts_node_child_by_field_name(impl, "type", 4));
            if (!ts_node_is_null(ty)) {
                d.scope_start = ts_node_start_byte(ty);
                d.scope_end = ts_node_end_byte(ty);
            }
        }
    }
    mn_vec_push(&c->p->defs, d);
}

/* ---- references ---- */

static void push_ref(ctx *c, uint8_t kind, uint32_t pos, const char *target, const char *owner)
{
    if (!target || !*target)
        return;
    raw_ref r = {pos, (uint32_t)c->p->refs.len, kind, target, owner, NULL, 0};
    mn_vec_push(&c->p->refs, r);
}

/* Text of n with surrounding quotes (and whitespace) removed, into b. */
static void put_unquoted(const ctx *c, mn_buf *b, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    while (a < e && is_ws((unsigned char)c->src[a]))
        a++;
    while (e > a && is_ws((unsigned char)c->src[e - 1]))
        e--;
    if (e - a >= 2) {
        char q = c->src[a];
        if ((q == '"' || q == '\'' || q == '`') && c->src[e - 1] == q) {
            a++;
            e--;
        }
    }
    put_collapsed(b, c->src + a, e - a);
}

static void put_node(const ctx *c, mn_buf *b, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    put_collapsed(b, c->src + a, e - a);
}

static void import_buf(ctx *c, uint32_t pos, mn_buf *b)
{
    if (b->len)
        push_ref(c, REF_IMPORT, pos, emit_buf(&c->out->arena, b, TARGET_MAX), NULL);
}

static void import_simple(ctx *c, TSNode n, uint8_t role)
{
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    if (role == ROLE_IMPORT_KEEP) {
        put_node(c, b, n);
    } else if (c->spec && (c->spec->flags & F_SHELL)) {
        size_t o = 0;
        put_node(c, b, n);
        for (size_t i = 0; i < b->len; i++)
            if (b->ptr[i] != '"' && b->ptr[i] != '\'')
                b->ptr[o++] = b->ptr[i];
        mn_buf_truncate(b, o);
    } else {
        put_unquoted(c, b, n);
        if (role == ROLE_IMPORT_RELATIVE && b->len && b->ptr[0] != '.' && b->ptr[0] != '/') {
            mn_buf_clear(b);
            mn_buf_puts(b, "./");
            put_unquoted(c, b, n);
        }
    }
    import_buf(c, ts_node_start_byte(n), b);
}

/* from M import a, b: M; or ".a", ".b" when M is only dots. */
static void import_python_from(ctx *c, TSNode n)
{
    TSNode mod = ts_node_child_by_field_name(n, "module_name", 11);
    if (ts_node_is_null(mod))
        return;
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    put_node(c, b, mod);
    bool dots = b->len > 0 && strspn(b->ptr, ".") == b->len;
    size_t ndots = b->len;
    bool any = false;
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = 0; dots && i < count && i < 256; i++) {
        const char *field = ts_node_field_name_for_named_child(n, i);
        if (!field || strcmp(field, "name") != 0)
            continue;
        TSNode nm = ts_node_named_child(n, i);
        if (node_is(nm, "aliased_import"))
            nm = ts_node_child_by_field_name(nm, "name", 4);
        if (ts_node_is_null(nm))
            continue;
        mn_buf_truncate(b, ndots);
        put_node(c, b, nm);
        import_buf(c, ts_node_start_byte(n), b);
        any = true;
    }
    if (!any) {
        mn_buf_truncate(b, ndots);
        mn_buf_clear(b);
        put_node(c, b, mod);
        import_buf(c, ts_node_start_byte(n), b);
    }
}

/* use a::{b, c::d as e, f::*}: one target per leaf. prefix holds "a::". */
static void import_rust_tree(ctx *c, TSNode n, mn_buf *prefix, uint32_t pos, int depth, int *budget)
{
    if (ts_node_is_null(n) || depth > 8 || *budget <= 0)
        return;
    const char *t = ts_node_type(n);
    size_t keep = prefix->len;
    if (strcmp(t, "scoped_use_list") == 0) {
        TSNode path = ts_node_child_by_field_name(n, "path", 4);
        if (!ts_node_is_null(path)) {
            put_node(c, prefix, path);
            mn_buf_puts(prefix, "::");
        }
        import_rust_tree(c, ts_node_child_by_field_name(n, "list", 4), prefix, pos, depth + 1,
                         budget);
    } else if (strcmp(t, "use_list") == 0) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i<cnt && * budget> 0; i++)
            import_rust_tree(c, ts_node_named_child(n, i), prefix, pos, depth + 1, budget);
    } else if (strcmp(t, "use_as_clause") == 0) {
        import_rust_tree(c, ts_node_child_by_field_name(n, "path", 4), prefix, pos, depth + 1,
                         budget);
    } else if (strcmp(t, "use_wildcard") == 0) {
        TSNode inner = ts_node_named_child(n, 0);
        if (!ts_node_is_null(inner))
            import_rust_tree(c, inner, prefix, pos, depth + 1, budget);
    } else if (strcmp(t, "self") == 0 && prefix->len >= 2) {
        mn_buf *b = &c->p->tmp2;
        mn_buf_clear(b);
        mn_buf_put(b, prefix->ptr, prefix->len - 2); /* a::{self} is a */
        import_buf(c, pos, b);
        (*budget)--;
    } else if (strcmp(t, "attribute_item") != 0 && strcmp(t, "visibility_modifier") != 0) {
        mn_buf *b = &c->p->tmp2;
        mn_buf_clear(b);
        mn_buf_put(b, prefix->ptr, prefix->len);
        put_node(c, b, n);
        import_buf(c, pos, b);
        (*budget)--;
    }
    mn_buf_truncate(prefix, keep);
}

static void import_decl(ctx *c, TSNode n)
{
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    uint32_t cnt = ts_node_named_child_count(n);
    if (node_is(n, "import_declaration")) {
        bool is_static = false, star = false;
        TSNode path = {0};
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode ch = ts_node_named_child(n, i);
            const char *t = ts_node_type(ch);
            if (strcmp(t, "scoped_identifier") == 0 || strcmp(t, "identifier") == 0)
                path = ch;
            else if (strcmp(t, "asterisk") == 0)
                star = true;
        }
        for (uint32_t i = 0; i < ts_node_child_count(n) && i < 4; i++)
            if (node_is(ts_node_child(n, i), "static"))
                is_static = true;
        if (ts_node_is_null(path))
            return;
        put_node(c, b, path);
        if (star) {
            mn_buf_puts(b, ".*");
        } else if (is_static) {
            char *dot = strrchr(b->ptr, '.'); /* import static a.B.m: the class a.B */
            if (dot)
                mn_buf_truncate(b, (size_t)(dot - b->ptr));
        }
    } else {
        /* using [static] [Alias =] A.B; the last name is the namespace */
        TSNode last = {0};
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode ch = ts_node_named_child(n, i);
            if (node_is(ch, "qualified_name") || node_is(ch, "identifier"))
                last = ch;
        }
        if (ts_node_is_null(last))
            return;
        put_node(c, b, last);
    }
    import_buf(c, ts_node_start_byte(n), b);
}

static TSNode first_name_child(TSNode n)
{
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode ch = ts_node_named_child(n, i);
        if (node_is(ch, "name") || node_is(ch, "qualified_name") || node_is(ch, "namespace_name"))
            return ch;
    }
    TSNode none = {0};
    return none;
}

static void import_php(ctx *c, TSNode n)
{
    mn_buf *b = &c->p->tmp;
    uint32_t pos = ts_node_start_byte(n);
    TSNode group = ts_node_child_by_field_name(n, "body", 4);
    uint32_t cnt = ts_node_named_child_count(n);
    if (!ts_node_is_null(group)) {
        TSNode prefix = first_name_child(n);
        uint32_t gc = ts_node_named_child_count(group);
        for (uint32_t i = 0; i < gc && i < 256; i++) {
            TSNode cl = ts_node_named_child(group, i);
            TSNode nm = first_name_child(cl);
            if (ts_node_is_null(nm))
                continue;
            mn_buf_clear(b);
            if (!ts_node_is_null(prefix)) {
                put_node(c, b, prefix);
                mn_buf_putc(b, '\\');
            }
            put_node(c, b, nm);
            import_buf(c, pos, b);
        }
        return;
    }
    for (uint32_t i = 0; i < cnt && i < 256; i++) {
        TSNode cl = ts_node_named_child(n, i);
        if (!node_is(cl, "namespace_use_clause"))
            continue;
        TSNode nm = first_name_child(cl);
        if (ts_node_is_null(nm))
            continue;
        mn_buf_clear(b);
        put_node(c, b, nm);
        import_buf(c, pos, b);
    }
}

/*
 * A dotted name from b's content: "::", "->" and '\\' become '.', leading
 * dots and a self/this receiver go. Returns false when what is left is not a
 * plain name (spaces, parentheses, brackets...).
 */
static bool normalize_dotted(mn_buf *b, bool strip_receiver)
{
    size_t o = 0;
    for (size_t i = 0; i < b->len; i++) {
        char ch = b->ptr[i];
        if (ch == ':' && i + 1 < b->len && b->ptr[i + 1] == ':') {
            b->ptr[o++] = '.';
            i++;
        } else if (ch == '-' && i + 1 < b->len && b->ptr[i + 1] == '>') {
            b->ptr[o++] = '.';
            i++;
        } else if (ch == '\\') {
            b->ptr[o++] = '.';
        } else {
            unsigned char u = (unsigned char)ch;
            bool ok = u >= 0x80 || (u >= '0' && u <= '9') || ((u | 32) >= 'a' && (u | 32) <= 'z') ||
                      u == '_' || u == '$' || u == '.' || u == '@' || u == '!' || u == '?';
            if (!ok)
                return false;
            b->ptr[o++] = ch;
        }
    }
    mn_buf_truncate(b, o);
    size_t lead = 0;
    while (lead < b->len && (b->ptr[lead] == '.' || b->ptr[lead] == '@'))
        lead++;
    if (strip_receiver) {
        static const char *const receivers[] = {"self.", "this.", "cls.", "$this.", "Self.", NULL};
        for (const char *const *r = receivers; *r; r++) {
            size_t rl = strlen(*r);
            if (b->len - lead > rl && memcmp(b->ptr + lead, *r, rl) == 0) {
                lead += rl;
                break;
            }
        }
    }
    if (lead) {
        memmove(b->ptr, b->ptr + lead, b->len - lead);
        mn_buf_truncate(b, b->len - lead);
    }
    return b->len > 0 && b->ptr[b->len - 1] != '.';
}

static bool ident_byte(unsigned char ch)
{
    return ch >= 0x80 || (ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'z') ||
           ch == '_' || ch == '$';
}

/*
 * A call at `name`: the callee is the dotted chain written before the name
 * ("os.path." + "join", "$this->" + "save", "ns::" + "go"), found by
 * scanning the text backwards rather than climbing the tree (ts_node_parent
 * costs a walk from the root).
 */
static void add_call(ctx *c, TSNode name)
{
    uint32_t ns = ts_node_start_byte(name), ne = ts_node_end_byte(name);
    if (ne <= ns || ne - ns > NAME_MAX_LEN)
        return;
    uint32_t a = ns;
    while (a > 0 && ns - a < TARGET_MAX) {
        unsigned char ch = (unsigned char)c->src[a - 1];
        if (ident_byte(ch) || ch == '.' || ch == '@' || ch == '\\')
            a--;
        else if ((ch == ':' || ch == '>') && a >= 2 && c->src[a - 2] == (ch == ':' ? ':' : '-'))
            a -= 2;
        else
            break;
    }
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    mn_buf_put(b, c->src + a, ne - a);
    if (!normalize_dotted(b, true)) {
        mn_buf_clear(b);
        put_node(c, b, name);
        if (!normalize_dotted(b, true))
            return;
    }
    if (b->ptr[0] == '$') { /* PHP: $obj->f() is obj.f; $f() is no name */
        if (!memchr(b->ptr, '.', b->len))
            return;
        memmove(b->ptr, b->ptr + 1, b->len - 1);
        mn_buf_truncate(b, b->len - 1);
    }
    if (memchr(b->ptr, '/', b->len))
        return;
    if (c->spec && c->spec->not_calls) {
        for (const char *const *nc = c->spec->not_calls; *nc; nc++)
            if (strcmp(b->ptr, *nc) == 0)
                return;
    }
    push_ref(c, REF_CALL, ns, emit_buf(&c->out->arena, b, TARGET_MAX), NULL);
    /* `recv.name`, `recv->name`, `recv::name`: one identifier before the name */
    uint32_t sep = ns >= a + 2 && (c->src[ns - 1] == '>' || c->src[ns - 1] == ':') ? 2
                   : ns >= a + 1 && c->src[ns - 1] == '.'                          ? 1
                                                                                   : 0;
    uint32_t r = a;
    while (r < ns - sep && (ident_byte((unsigned char)c->src[r])))
        r++;
    if (sep && r == ns - sep && r > a && c->p->refs.len &&
        c->p->refs.items[c->p->refs.len - 1].pos == ns) {
        c->p->refs.items[c->p->refs.len - 1].recv = c->src + a;
        c->p->refs.items[c->p->refs.len - 1].recv_len = r - a;
    }
}

/*
 * Calls through a receiver whose type the file tells (receivers.c) become
 * "recv:Type.name" ("self:App.register", "app:flask.Flask.run"): the
 * resolver looks the name up in that type and its bases only.
 */
static void type_receivers(ctx *c, TSNode root, const char *language)
{
    MN_VEC(mn_recv_call) calls = MN_VEC_INIT;
    MN_VEC(size_t) which = MN_VEC_INIT;
    for (size_t i = 0; i < c->p->refs.len; i++) {
        const raw_ref *r = &c->p->refs.items[i];
        if (r->kind != REF_CALL || !r->recv)
            continue;
        mn_recv_call rc = {r->pos, r->recv, r->recv_len, NULL};
        mn_vec_push(&calls, rc);
        mn_vec_push(&which, i);
    }
    if (calls.len)
        mn_receivers_infer(language, root, c->src, c->len, calls.items, calls.len, &c->out->arena);
    mn_buf *b = &c->p->tmp;
    for (size_t i = 0; i < calls.len; i++) {
        raw_ref *r = &c->p->refs.items[which.items[i]];
        if (!calls.items[i].type)
            continue;
        const char *name = mn_store_ref_key(r->target);
        const char *recv = r->recv;
        uint32_t rl = r->recv_len;
        if (rl && recv[0] == '$') {
            recv++;
            rl--;
        }
        mn_buf_clear(b);
        mn_buf_printf(b, "%.*s:%s.%s", (int)rl, recv, calls.items[i].type, name);
        r->target = emit_buf(&c->out->arena, b, TARGET_MAX);
    }
    mn_vec_release(&calls);
    mn_vec_release(&which);
}

/* A type as a dotted name without type arguments, pointers or whitespace. */
static const char *type_name(ctx *c, TSNode n, mn_buf *b)
{
    mn_buf_clear(b);
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e - a > TARGET_MAX)
        return NULL;
    for (uint32_t i = a; i < e; i++) {
        char ch = c->src[i];
        if (ch == '<' || ch == '[' || ch == '(')
            break;
        if (is_ws((unsigned char)ch) || ch == '*' || ch == '&')
            continue;
        mn_buf_putc(b, ch);
    }
    if (!normalize_dotted(b, false))
        return NULL;
    return emit_buf(&c->out->arena, b, TARGET_MAX);
}

static void add_inherit(ctx *c, TSNode base, TSNode owner)
{
    const char *target = type_name(c, base, &c->p->tmp);
    if (!target)
        return;
    const char *own = NULL;
    if (!ts_node_is_null(owner)) {
        TSNode ty = base_type(owner);
        own = type_name(c, ty, &c->p->tmp);
    }
    push_ref(c, REF_INHERIT, ts_node_start_byte(base), target, own);
}

/* ---- the query pass ---- */

static void run_query(ctx *c, TSNode root)
{
    lang_state *L = c->L;
    TSQueryCursor *cur = c->p->cursor;
    ts_query_cursor_exec(cur, L->query, root);
    TSQueryMatch m;
    while (ts_query_cursor_next_match(cur, &m)) {
        if (L->pats[m.pattern_index].n && !predicates_hold(c, &m))
            continue;
        TSNode name = {0}, def = {0}, inherit = {0}, owner = {0};
        const char *tag = NULL;
        bool call = false;
        for (uint16_t i = 0; i < m.capture_count; i++) {
            TSNode n = m.captures[i].node;
            uint8_t role = L->roles[m.captures[i].index];
            switch (role) {
            case ROLE_NAME:
                if (ts_node_is_null(name))
                    name = n;
                break;
            case ROLE_DEF:
                def = n;
                tag = L->def_kind[m.captures[i].index];
                break;
            case ROLE_CALL:
                call = true;
                break;
            case ROLE_IMPORT:
            case ROLE_IMPORT_KEEP:
            case ROLE_IMPORT_RELATIVE:
                import_simple(c, n, role);
                break;
            case ROLE_IMPORT_FROM:
                import_python_from(c, n);
                break;
            case ROLE_IMPORT_RUST: {
                mn_buf prefix = MN_BUF_INIT;
                int budget = 64;
                import_rust_tree(c, n, &prefix, ts_node_start_byte(n), 0, &budget);
                mn_buf_release(&prefix);
                break;
            }
            case ROLE_IMPORT_DECL:
                import_decl(c, n);
                break;
            case ROLE_IMPORT_PHP:
                import_php(c, n);
                break;
            case ROLE_INHERIT:
                inherit = n;
                break;
            case ROLE_INHERIT_OWNER:
                owner = n;
                break;
            default:
                break;
            }
        }
        if (!ts_node_is_null(def) && !ts_node_is_null(name))
            add_def(c, def, name, tag);
        else if (call && !ts_node_is_null(name))
            add_call(c, name);
        if (!ts_node_is_null(inherit))
            add_inherit(c, inherit, owner);
    }
}

/* ---- symbols ---- */

static int cmp_defs(const void *x, const void *y)
{
    const raw_def *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    uint32_t as = ts_node_start_byte(a->def), bs = ts_node_start_byte(b->def);
    if (as != bs)
        return as < bs ? -1 : 1;
    uint32_t ae = ts_node_end_byte(a->def), be = ts_node_end_byte(b->def);
    if (ae != be)
        return ae > be ? -1 : 1;
    /* the same node twice: a method beats a function (rust's tags say both) */
    bool am = strcmp(a->kind, "method") == 0, bm = strcmp(b->kind, "method") == 0;
    if (am != bm)
        return am ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_def(const raw_def *a, const raw_def *b)
{
    return a->start == b->start && a->end == b->end &&
           ts_node_start_byte(a->def) == ts_node_start_byte(b->def) &&
           ts_node_end_byte(a->def) == ts_node_end_byte(b->def) &&
           ts_node_symbol(a->def) == ts_node_symbol(b->def);
}

static bool kind_is(const char *k, const char *const *set)
{
    return type_in(k, set);
}

static const char *const classlike[] = {"class", "interface", "struct", "enum", "trait", NULL};
static const char *const containers[] = {"class", "interface", "struct", "enum",
                                         "trait", "module",    NULL};
static const char *const not_scopes[] = {"constant", "variable", "type", "macro", NULL};
static const char *const not_chunked[] = {"constant", "variable", NULL};

/* Append the qualifier s[0..n) ("Foo<T>::", "a::b", "*Repo") as a dotted name. */
static void put_scope(mn_buf *b, const char *s, size_t n)
{
    size_t before = b->len;
    int angle = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '<') {
            angle++;
        } else if (ch == '>' && angle) {
            angle--;
        } else if (!angle && !is_ws((unsigned char)ch) && ch != '*' && ch != '&') {
            mn_buf_putc(b, ch);
        }
    }
    /* drop trailing separators: "Widget::", "App\\" */
    while (b->len > before && strchr(":.\\", b->ptr[b->len - 1]))
        mn_buf_truncate(b, b->len - 1);
    mn_buf tail = {b->ptr + before, b->len - before, 0};
    if (tail.len == 0 || !normalize_dotted(&tail, false)) {
        mn_buf_truncate(b, before);
        return;
    }
    mn_buf_truncate(b, before + tail.len);
}

/* Docstring of a Python function or class, cleaned, or NULL. */
static const char *python_docstring(ctx *c, TSNode def)
{
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    if (ts_node_is_null(body))
        return NULL;
    TSNode first = ts_node_named_child(body, 0);
    if (!node_is(first, "expression_statement"))
        return NULL;
    TSNode s = ts_node_named_child(first, 0);
    if (!node_is(s, "string"))
        return NULL;
    uint32_t a = ts_node_start_byte(s), e = ts_node_end_byte(s);
    while (a < e && strchr("rRuUbBfF", c->src[a]))
        a++;
    size_t q =
        (e - a >= 6 && (memcmp(c->src + a, "\"\"\"", 3) == 0 || memcmp(c->src + a, "'''", 3) == 0))
            ? 3
            : 1;
    if (e - a < 2 * q)
        return NULL;
    a += (uint32_t)q;
    e -= (uint32_t)q;
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    /* each line trimmed; blank lines at both ends dropped */
    uint32_t i = a;
    size_t pending_blank = 0;
    while (i < e) {
        uint32_t j = i;
        while (j < e && c->src[j] != '\n')
            j++;
        uint32_t s0 = i, s1 = j;
        while (s0 < s1 && is_ws((unsigned char)c->src[s0]))
            s0++;
        while (s1 > s0 && is_ws((unsigned char)c->src[s1 - 1]))
            s1--;
        if (s1 == s0) {
            if (b->len)
                pending_blank++;
        } else {
            for (; pending_blank && b->len; pending_blank--)
                mn_buf_putc(b, '\n');
            pending_blank = 0;
            if (b->len)
                mn_buf_putc(b, '\n');
            mn_buf_put(b, c->src + s0, s1 - s0);
        }
        if (b->len > 4 * MN_PARSE_DOCSTRING_MAX)
            break;
        i = j + 1;
    }
    return b->len ? emit_buf(&c->out->arena, b, MN_PARSE_DOCSTRING_MAX) : NULL;
}

static bool starts(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && memcmp(s, lit, l) == 0;
}

/* Strip comment markers from one trimmed comment line [s, s+n). */
static void put_comment_line(mn_buf *b, const char *s, size_t n)
{
    if (n >= 2 && s[n - 2] == '*' && s[n - 1] == '/')
        n -= 2;
    static const char *const marks[] = {"///", "//!", "//", "/**", "/*!", "/*", "#", "*", NULL};
    for (const char *const *m = marks; *m; m++) {
        if (starts(s, n, *m)) {
            size_t l = strlen(*m);
            s += l;
            n -= l;
            break;
        }
    }
    while (n && is_ws((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && is_ws((unsigned char)s[n - 1]))
        n--;
    if ((!n && !b->len) || (n && !has_alnum(s, n)))
        return; /* leading blank lines, "# =====" rulers */
    if (b->len)
        mn_buf_putc(b, '\n');
    mn_buf_put(b, s, n);
}

/*
 * The comment block that ends on the line right above `line` (no blank line
 * between): its lines [*top, *bottom]. False when that line is no comment.
 */
static bool comment_above(const ctx *c, int64_t line, int64_t *top_out, int64_t *bottom_out)
{
    if (!c->spec || !c->len)
        return false;
    unsigned fl = c->spec->flags;
    int64_t top = 0, bottom = 0; /* comment lines [top, bottom] */
    int64_t l = line - 1;
    for (int steps = 0; l >= 1 && steps < 200; steps++) {
        uint32_t a = line_start(c, l), e = line_end(c, l);
        while (a < e && is_ws((unsigned char)c->src[a]))
            a++;
        while (e > a && is_ws((unsigned char)c->src[e - 1]))
            e--;
        const char *s = c->src + a;
        size_t n = e - a;
        if (!n)
            break;
        if (((fl & F_RUST) && starts(s, n, "#[")) ||
            ((fl & F_CSHARP) && s[0] == '[' && s[n - 1] == ']')) {
            if (bottom)
                break; /* attributes come after the doc comment */
            l--;
            continue;
        }
        if ((fl & C_SLASH) && starts(s, n, "//")) {
            if (!bottom)
                bottom = l;
            top = l;
            l--;
            continue;
        }
        if ((fl & C_SLASH) && n >= 2 && s[n - 2] == '*' && s[n - 1] == '/') {
            if (!bottom)
                bottom = l;
            /* up to the line opening the block */
            int64_t k = l;
            const char *open = NULL;
            uint32_t ka = 0;
            for (int up = 0; k >= 1 && up < 200; up++, k--) {
                ka = line_start(c, k);
                open = memmem(c->src + ka, line_end(c, k) - ka, "/*", 2);
                if (open)
                    break;
            }
            /* only a comment that starts its line, not code with a trailing comment */
            if (!open)
                break;
            while (ka < (uint32_t)(open - c->src) && is_ws((unsigned char)c->src[ka]))
                ka++;
            if (c->src + ka != open) {
                if (bottom == l)
                    bottom = 0;
                break;
            }
            top = k;
            l = k - 1;
            continue;
        }
        if ((fl & C_HASH) && s[0] == '#' && !(l == 1 && starts(s, n, "#!")) &&
            !((fl & F_RUST) && starts(s, n, "#!"))) {
            if (!bottom)
                bottom = l;
            top = l;
            l--;
            continue;
        }
        break;
    }
    if (!bottom)
        return false;
    *top_out = top;
    *bottom_out = bottom;
    return true;
}

/*
 * The comment block right above the line of byte `at` (which must start its
 * line, bar whitespace). Sets *first_line to its first line (or leaves it).
 */
static const char *leading_comment(ctx *c, uint32_t at, int64_t *first_line)
{
    if (!c->spec || !c->len)
        return NULL;
    int64_t line = line_of(c, at);
    for (uint32_t i = line_start(c, line); i < at; i++)
        if (!is_ws((unsigned char)c->src[i]))
            return NULL;
    int64_t top, bottom;
    if (!comment_above(c, line, &top, &bottom))
        return NULL;
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    for (int64_t k = top; k <= bottom && b->len <= 4 * MN_PARSE_DOCSTRING_MAX; k++) {
        uint32_t a = line_start(c, k), e = line_end(c, k);
        while (a < e && is_ws((unsigned char)c->src[a]))
            a++;
        while (e > a && is_ws((unsigned char)c->src[e - 1]))
            e--;
        put_comment_line(b, c->src + a, e - a);
    }
    while (b->len && b->ptr[b->len - 1] == '\n')
        mn_buf_truncate(b, b->len - 1);
    *first_line = top;
    return b->len ? emit_buf(&c->out->arena, b, MN_PARSE_DOCSTRING_MAX) : NULL;
}

static TSNode body_of(TSNode def)
{
    static const char *const bodies[] = {"block",
                                         "statement_block",
                                         "compound_statement",
                                         "declaration_list",
                                         "field_declaration_list",
                                         "class_body",
                                         "enum_body",
                                         "interface_body",
                                         "enum_variant_list",
                                         "enumerator_list",
                                         "body_statement",
                                         "constructor_body",
                                         "enum_member_declaration_list",
                                         NULL};
    TSNode b = ts_node_child_by_field_name(def, "body", 4);
    if (!ts_node_is_null(b))
        return b;
    TSNode v = ts_node_child_by_field_name(def, "value", 5);
    if (!ts_node_is_null(v)) {
        b = ts_node_child_by_field_name(v, "body", 4);
        if (!ts_node_is_null(b))
            return b;
    }
    uint32_t n = ts_node_named_child_count(def);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        TSNode ch = ts_node_named_child(def, i);
        if (type_in(ts_node_type(ch), bodies))
            return ch;
    }
    TSNode none = {0};
    return none;
}

static const char *signature_of(ctx *c, const raw_def *d)
{
    uint32_t ns = ts_node_start_byte(d->name);
    int64_t name_line = line_of(c, ns);
    /* from the wrapper when it shares the line ("export const", "type"), else
     * the definition, past lines of annotations ("@Entity", "[Serializable]") */
    uint32_t ds = ts_node_start_byte(d->def);
    uint32_t start = line_of(c, d->start) == line_of(c, ds) ? d->start : ds;
    for (int64_t l = line_of(c, start); l < name_line; l++) {
        const char *s = c->src + start;
        size_t n = line_end(c, l) > start ? line_end(c, l) - start : 0;
        if (!n || !(s[0] == '@' || s[0] == '[' || starts(s, n, "#[")))
            break;
        start = line_start(c, l + 1);
        while (start < ns && is_ws((unsigned char)c->src[start]))
            start++;
    }
    TSNode body = body_of(d->def);
    /* typedef struct {...} name: the body comes before the name */
    TSNode ty = ts_node_is_null(body) ? ts_node_child_by_field_name(d->def, "type", 4) : body;
    TSNode tbody = ts_node_is_null(ty) ? ty : ts_node_child_by_field_name(ty, "body", 4);
    if (ts_node_is_null(body) && !ts_node_is_null(tbody) && ts_node_start_byte(tbody) < ns &&
        ts_node_start_byte(tbody) > start) {
        mn_buf *b = &c->p->tmp;
        mn_buf_clear(b);
        put_collapsed(b, c->src + start, ts_node_start_byte(tbody) - start);
        mn_buf_putc(b, ' ');
        put_collapsed(b, c->src + ns, ts_node_end_byte(d->name) - ns);
        return emit_buf(&c->out->arena, b, MN_PARSE_SIGNATURE_MAX);
    }
    uint32_t end = line_end(c, name_line);
    if (!ts_node_is_null(body) && ts_node_start_byte(body) > ns) {
        end = ts_node_start_byte(body);
        /* up to the last token before the body, so a comment there stays out */
        uint32_t bs = ts_node_start_byte(body), be = ts_node_end_byte(body), last = 0;
        TSTreeCursor *tc = &c->p->tcursor;
        ts_tree_cursor_reset(tc, d->def);
        for (bool ok = ts_tree_cursor_goto_first_child(tc); ok;
             ok = ts_tree_cursor_goto_next_sibling(tc)) {
            TSNode ch = ts_tree_cursor_current_node(tc);
            uint32_t cs = ts_node_start_byte(ch), ce = ts_node_end_byte(ch);
            if (cs == bs && ce == be) {
                if (last > start)
                    end = last;
                break;
            }
            if (cs >= bs)
                break;
            if (!strstr(ts_node_type(ch), "comment"))
                last = ce;
        }
    }
    if (end > d->end)
        end = d->end;
    if (end < start)
        end = start;
    if (end - start > 4 * MN_PARSE_SIGNATURE_MAX)
        end = start + 4 * MN_PARSE_SIGNATURE_MAX;
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    put_collapsed(b, c->src + start, end - start);
    /* trailing '{', ':' (Python), ';' (prototypes), " =" (Ruby's endless def) */
    while (b->len) {
        char last = b->ptr[b->len - 1];
        if (last == '{' || last == ':' || last == ';' || is_ws((unsigned char)last) ||
            (last == '=' && b->len >= 2 && b->ptr[b->len - 2] == ' '))
            mn_buf_truncate(b, b->len - 1);
        else
            break;
    }
    return b->len ? emit_buf(&c->out->arena, b, MN_PARSE_SIGNATURE_MAX) : NULL;
}

static int64_t end_line_of(TSPoint sp, TSPoint ep)
{
    int64_t e = (int64_t)ep.row + 1;
    if (ep.column == 0 && ep.row > sp.row)
        e--;
    return e;
}

static int cmp_qualified(const void *x, const void *y, void *arg)
{
    const mn_symbol_rec *s = arg;
    int a = *(const int *)x, b = *(const int *)y;
    int r = strcmp(s[a].qualified_name, s[b].qualified_name);
    return r ? r : (a > b) - (a < b);
}

static void build_symbols(ctx *c)
{
    mn_parser *p = c->p;
    mn_parse_result *out = c->out;
    raw_def *defs = p->defs.items;
    size_t n = p->defs.len;
    if (!n)
        return;
    qsort(defs, n, sizeof(*defs), cmp_defs);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || !same_def(&defs[k - 1], &defs[i]))
            defs[k++] = defs[i];
    n = p->defs.len = k;

    /* parents: a stack of the spans we are inside */
    MN_VEC(int) parent = MN_VEC_INIT;
    mn_vec_reserve(&parent, n);
    p->stack.len = 0;
    for (size_t i = 0; i < n; i++) {
        while (p->stack.len) {
            const raw_def *top = &defs[p->stack.items[p->stack.len - 1]];
            if (top->start <= defs[i].start && defs[i].end <= top->end)
                break;
            p->stack.len--;
        }
        parent.items[i] = p->stack.len ? p->stack.items[p->stack.len - 1] : -1;
        mn_vec_push(&p->stack, (int)i);
    }
    parent.len = n;

    /* records; qualified names from the nearest parent that scopes names */
    mn_vec_reserve(&out->symbols, n);
    p->map.len = 0;
    mn_vec_reserve(&p->map, n);
    mn_buf *q = &p->tmp2;
    for (size_t i = 0; i < n; i++) {
        raw_def *d = &defs[i];
        int sp = parent.items[i];
        while (sp >= 0 && kind_is(out->symbols.items[p->map.items[sp]].kind, not_scopes))
            sp = parent.items[sp];
        mn_symbol_rec s = {0};
        /* the name; "A::B" / "A.B" / "A\\B" written as a name is scope + name */
        mn_buf_clear(q);
        uint32_t na = ts_node_start_byte(d->name), ne = ts_node_end_byte(d->name);
        if (ne - na > NAME_MAX_LEN)
            ne = na + NAME_MAX_LEN;
        mn_buf *nb = &p->tmp;
        mn_buf_clear(nb);
        mn_buf_put(nb, c->src + na, ne - na);
        size_t cut = 0;
        for (size_t j = 0; j < nb->len; j++) {
            if (nb->ptr[j] == '.' || nb->ptr[j] == '\\')
                cut = j + 1;
            else if (nb->ptr[j] == ':' && j + 1 < nb->len && nb->ptr[j + 1] == ':')
                cut = j + 2;
        }
        if (cut >= nb->len)
            cut = 0;
        s.name = emit(&out->arena, nb->ptr + cut, nb->len - cut, NAME_MAX_LEN);
        s.kind = d->kind;
        const char *pk = sp >= 0 ? out->symbols.items[p->map.items[sp]].kind : NULL;
        bool in_class = pk && (kind_is(pk, classlike) ||
                               (c->spec && (c->spec->flags & F_RUBY) && !strcmp(pk, "module")));
        bool scoped = d->scope_end > d->scope_start || cut > 0;
        if (!strcmp(s.kind, "function") && in_class)
            s.kind = "method";
        else if (!strcmp(s.kind, "method") && !in_class && !scoped)
            s.kind = "function";
        if (sp >= 0) {
            mn_buf_puts(q, out->symbols.items[p->map.items[sp]].qualified_name);
            mn_buf_putc(q, '.');
        }
        if (d->scope_end > d->scope_start) {
            size_t before = q->len;
            put_scope(q, c->src + d->scope_start, d->scope_end - d->scope_start);
            if (q->len > before)
                mn_buf_putc(q, '.');
        }
        if (cut) {
            size_t before = q->len;
            put_scope(q, nb->ptr, cut);
            if (q->len > before)
                mn_buf_putc(q, '.');
        }
        mn_buf_puts(q, s.name);
        s.qualified_name =
            q->len <= QUALIFIED_MAX ? emit_buf(&out->arena, q, QUALIFIED_MAX) : s.name;
        s.start_line = (int64_t)d->sp.row + 1;
        s.end_line = end_line_of(d->sp, d->ep);
        s.start_byte = d->start;
        s.end_byte = d->end;
        p->map.items[i] = (int)out->symbols.len;
        p->map.len = i + 1;
        mn_vec_push(&out->symbols, s);
    }

    /* prototypes of functions this file also defines */
    bool any_proto = false;
    for (size_t i = 0; i < n; i++)
        any_proto |= defs[i].proto;
    MN_VEC(char) drop = MN_VEC_INIT;
    mn_vec_reserve(&drop, n);
    memset(drop.items, 0, n);
    if (any_proto) {
        MN_VEC(int) order = MN_VEC_INIT;
        mn_vec_reserve(&order, n);
        for (size_t i = 0; i < n; i++)
            order.items[i] = (int)i;
        qsort_r(order.items, n, sizeof(int), cmp_qualified, out->symbols.items);
        for (size_t i = 0; i < n;) {
            size_t j = i;
            bool has_def = false;
            while (j < n && !strcmp(out->symbols.items[order.items[j]].qualified_name,
                                    out->symbols.items[order.items[i]].qualified_name)) {
                has_def |= !defs[order.items[j]].proto;
                j++;
            }
            for (size_t x = i; x < j && has_def; x++)
                if (defs[order.items[x]].proto)
                    drop.items[order.items[x]] = 1;
            i = j;
        }
        mn_vec_release(&order);
    }

    /* compact, remapping parents */
    size_t m = 0;
    p->extra.len = 0;
    mn_vec_reserve(&p->extra, n);
    for (size_t i = 0; i < n; i++) {
        if (drop.items[i]) {
            p->map.items[i] = -1;
            continue;
        }
        out->symbols.items[m] = out->symbols.items[i];
        p->map.items[i] = (int)m;
        int par = parent.items[i];
        while (par >= 0 && p->map.items[par] < 0)
            par = parent.items[par];
        sym_extra x = {par >= 0 ? p->map.items[par] : -1, -1, -1, 0, 0};
        p->extra.items[m] = x;
        defs[m] = defs[i];
        m++;
    }
    out->symbols.len = m;
    p->extra.len = m;
    p->defs.len = m;
    mn_vec_release(&drop);
    mn_vec_release(&parent);

    /* signature, docstring, hash, chunk start */
    for (size_t i = 0; i < m; i++) {
        mn_symbol_rec *s = &out->symbols.items[i];
        raw_def *d = &defs[i];
        s->signature = signature_of(c, d);
        int64_t first = s->start_line;
        const char *doc = NULL;
        if (c->spec && (c->spec->flags & F_PYTHON))
            doc = python_docstring(c, d->def);
        int64_t cfirst = first;
        const char *above = leading_comment(c, d->start, &cfirst);
        if (!doc)
            doc = above;
        s->docstring = doc;
        p->extra.items[i].chunk_line = above ? cfirst : first;
        p->extra.items[i].chunk_byte = above ? line_start(c, cfirst) : d->start;
        hash_hex(c->src + d->start, d->end - d->start, s->hash);
    }
}

/* ---- references: enclosing symbols, merging ---- */

static int cmp_refs_pos(const void *x, const void *y)
{
    const raw_ref *a = x, *b = y;
    if (a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_slots(const void *x, const void *y)
{
    const ref_slot *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int r = strcmp(a->target, b->target);
    if (r)
        return r;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_slots_seq(const void *x, const void *y)
{
    const ref_slot *a = x, *b = y;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static void build_refs(ctx *c)
{
    mn_parser *p = c->p;
    mn_parse_result *out = c->out;
    size_t n = p->refs.len;
    if (!n)
        return;
    qsort(p->refs.items, n, sizeof(raw_ref), cmp_refs_pos);
    const mn_symbol_rec *sy = out->symbols.items;
    size_t ns = out->symbols.len, si = 0;
    p->stack.len = 0;
    p->slots.len = 0;
    mn_vec_reserve(&p->slots, n);
    for (size_t i = 0; i < n; i++) {
        const raw_ref *r = &p->refs.items[i];
        if (i && r->pos == r[-1].pos && r->kind == r[-1].kind && !strcmp(r->target, r[-1].target))
            continue; /* two patterns, one reference */
        while (si < ns && (uint32_t)sy[si].start_byte <= r->pos) {
            while (p->stack.len &&
                   sy[p->stack.items[p->stack.len - 1]].end_byte <= sy[si].start_byte)
                p->stack.len--;
            mn_vec_push(&p->stack, (int)si);
            si++;
        }
        while (p->stack.len && (uint32_t)sy[p->stack.items[p->stack.len - 1]].end_byte <= r->pos)
            p->stack.len--;
        int src = p->stack.len ? p->stack.items[p->stack.len - 1] : -1;
        if (r->kind == REF_IMPORT) {
            src = -1;
        } else if (r->owner) {
            src = -1;
            for (size_t j = 0; j < ns; j++)
                if (!strcmp(sy[j].name, r->owner) && kind_is(sy[j].kind, classlike)) {
                    src = (int)j;
                    break;
                }
        }
        ref_slot s = {src, r->kind, r->target, (uint32_t)i, 1};
        p->slots.items[p->slots.len++] = s;
    }
    /* merge duplicates: weight = occurrences */
    n = p->slots.len;
    qsort(p->slots.items, n, sizeof(ref_slot), cmp_slots);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        ref_slot *s = &p->slots.items[i];
        if (k && p->slots.items[k - 1].src == s->src && p->slots.items[k - 1].kind == s->kind &&
            !strcmp(p->slots.items[k - 1].target, s->target)) {
            p->slots.items[k - 1].count++;
            continue;
        }
        p->slots.items[k++] = *s;
    }
    qsort(p->slots.items, k, sizeof(ref_slot), cmp_slots_seq);
    mn_vec_reserve(&out->refs, k);
    for (size_t i = 0; i < k; i++) {
        const ref_slot *s = &p->slots.items[i];
        mn_ref_rec r = {s->src, ref_kind_names[s->kind], s->target, (double)s->count};
        out->refs.items[out->refs.len++] = r;
    }
}

/* ---- chunks ---- */

static void add_chunk(ctx *c, int symbol, int64_t l0, int64_t l1, uint32_t a, uint32_t e)
{
    if (e < a)
        e = a;
    mn_chunk_rec ch = {0};
    ch.symbol = symbol;
    ch.start_line = l0;
    ch.end_line = l1 < l0 ? l0 : l1;
    ch.text = emit(&c->out->arena, c->src + a, e - a, MN_PARSE_CHUNK_TEXT_MAX);
    hash_hex(c->src + a, e - a, ch.hash);
    mn_vec_push(&c->out->chunks, ch);
}

/*
 * Whether text is worth a chunk: something beyond punctuation and the words
 * that close blocks ("end", "fi", "done", "esac"; the preprocessor's "#endif"
 * and "#else" lines, with the guard's name in a comment after them).
 */
static bool has_content(const char *s, size_t n)
{
    static const char *const closers[] = {"end", "fi", "done", "esac", "endif", "<?php", NULL};
    size_t i = 0;
    while (i < n) {
        while (i < n && is_ws((unsigned char)s[i]))
            i++;
        if (starts(s + i, n - i, "#endif") || starts(s + i, n - i, "#else")) {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        size_t j = i;
        while (j < n && !is_ws((unsigned char)s[j]))
            j++;
        if (has_alnum(s + i, j - i)) {
            size_t k = j;
            while (k > i && (s[k - 1] == ';' || s[k - 1] == ',' || s[k - 1] == ')'))
                k--;
            bool closer = false;
            for (const char *const *w = closers; *w && !closer; w++)
                closer = strlen(*w) == k - i && memcmp(s + i, *w, k - i) == 0;
            if (!closer)
                return true;
        }
        i = j;
    }
    return false;
}

static bool blank_line(const ctx *c, int64_t l)
{
    uint32_t a = line_start(c, l), e = line_end(c, l);
    for (; a < e; a++)
        if (!is_ws((unsigned char)c->src[a]))
            return false;
    return true;
}

/* Lines [l0, l1] not in any symbol: windows of MN_PARSE_TEXT_WINDOW lines with content. */
static void gap_chunks(ctx *c, int symbol, int64_t l0, int64_t l1)
{
    while (l0 <= l1 && blank_line(c, l0))
        l0++;
    for (int64_t w = l0; w <= l1; w += MN_PARSE_TEXT_WINDOW) {
        while (w <= l1 && blank_line(c, w))
            w++;
        if (w > l1)
            break;
        int64_t we = w + MN_PARSE_TEXT_WINDOW - 1;
        if (we > l1)
            we = l1;
        while (we > w && blank_line(c, we))
            we--;
        uint32_t a = line_start(c, w), e = line_end(c, we);
        if (has_content(c->src + a, e - a))
            add_chunk(c, symbol, w, we, a, e);
    }
}

/*
 * The first line of a short comment that is all lines [l0, l1] hold bar
 * blank ones, such as a section heading between two functions (a block
 * comment "---- served answers ----"); 0 when they hold more. Alone, such a
 * line made a chunk of a few words, which BM25's length normalisation put
 * above the functions it heads; it goes with the symbol after it instead.
 */
static int64_t section_comment(const ctx *c, int64_t l0, int64_t l1)
{
    while (l0 <= l1 && blank_line(c, l0))
        l0++;
    while (l1 >= l0 && blank_line(c, l1))
        l1--;
    int64_t top, bottom;
    if (l0 > l1 || l1 - l0 + 1 > SECTION_COMMENT_LINES ||
        !comment_above(c, l1 + 1, &top, &bottom) || top != l0)
        return 0;
    return l0;
}

/* Bytes [a, e) of lines [l0, l1], in windows of MN_PARSE_SYMBOL_WINDOW lines. */
static void span_chunks(ctx *c, int symbol, int64_t l0, int64_t l1, uint32_t a, uint32_t e)
{
    if (l1 - l0 + 1 <= MN_PARSE_SYMBOL_WINDOW) {
        add_chunk(c, symbol, l0, l1, a, e);
        return;
    }
    for (int64_t w = l0; w <= l1; w += MN_PARSE_SYMBOL_WINDOW) {
        int64_t we = w + MN_PARSE_SYMBOL_WINDOW - 1;
        if (we > l1)
            we = l1;
        uint32_t wa = w == l0 ? a : line_start(c, w);
        uint32_t wb = we == l1 ? e : line_end(c, we);
        if (wa < wb)
            add_chunk(c, symbol, w, we, wa, wb);
    }
}

/* Whether s gets a chunk per member: it has one below its first line. */
static bool has_chunked_child(const ctx *c, int s)
{
    const mn_symbol_rec *sy = c->out->symbols.items;
    for (int ch = c->p->extra.items[s].first_child; ch >= 0;
         ch = c->p->extra.items[ch].next_sibling)
        if (!kind_is(sy[ch].kind, not_chunked) && sy[ch].start_line > sy[s].start_line)
            return true;
    return false;
}

/*
 * The chunks of a region: lines [l0, l1] of `container` (-1: the file), whose
 * children start at `first`.
 */
static void region_chunks(ctx *c, int container, int first, int64_t l0, int64_t l1, int depth)
{
    const mn_symbol_rec *sy = c->out->symbols.items;
    sym_extra *ex = c->p->extra.items;
    int64_t done_line = l0 - 1; /* lines up to here are chunked */
    uint32_t done_byte = l0 >= 1 ? line_start(c, l0) : 0;
    for (int s = first; s >= 0; s = ex[s].next_sibling) {
        if (kind_is(sy[s].kind, not_chunked) || (uint32_t)sy[s].end_byte <= done_byte)
            continue;
        int64_t cl = ex[s].chunk_line;
        uint32_t cb = ex[s].chunk_byte;
        if (cl <= done_line) { /* shares a line with what came before */
            cl = line_of(c, (uint32_t)sy[s].start_byte);
            cb = (uint32_t)sy[s].start_byte;
            if (cb < done_byte)
                cb = done_byte;
        } else {
            /* whole lines: keep the indentation */
            uint32_t ls = line_start(c, cl);
            bool blank = true;
            for (uint32_t i = ls; i < cb && blank; i++)
                blank = is_ws((unsigned char)c->src[i]);
            if (blank)
                cb = ls;
        }
        if (cl - 1 >= done_line + 1 && done_line >= l0) {
            int64_t head = section_comment(c, done_line + 1, cl - 1);
            if (head) {
                cl = head;
                cb = line_start(c, head);
            }
        }
        if (cl - 1 >= done_line + 1)
            gap_chunks(c, container, done_line + 1, cl - 1);
        int64_t el = sy[s].end_line > l1 ? l1 : sy[s].end_line;
        if (kind_is(sy[s].kind, containers) && depth < CONTAINER_DEPTH_MAX &&
            has_chunked_child(c, s)) {
            region_chunks(c, s, ex[s].first_child, cl > done_line ? cl : done_line + 1, el,
                          depth + 1);
        } else {
            uint32_t eb = (uint32_t)sy[s].end_byte, le = line_end(c, el);
            span_chunks(c, s, cl, el, cb, eb > le ? le : eb);
        }
        if (el > done_line)
            done_line = el;
        done_byte = (uint32_t)sy[s].end_byte;
    }
    if (done_line + 1 <= l1)
        gap_chunks(c, container, done_line + 1, l1);
}

static void build_chunks(ctx *c)
{
    if (!c->len)
        return;
    size_t n = c->out->symbols.len;
    sym_extra *ex = c->p->extra.items;
    int top_first = -1, top_last = -1;
    MN_VEC(int) last = MN_VEC_INIT;
    mn_vec_reserve(&last, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        ex[i].first_child = ex[i].next_sibling = -1;
        last.items[i] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        int par = ex[i].parent;
        if (par < 0) {
            if (top_last >= 0)
                ex[top_last].next_sibling = (int)i;
            else
                top_first = (int)i;
            top_last = (int)i;
        } else {
            if (last.items[par] >= 0)
                ex[last.items[par]].next_sibling = (int)i;
            else
                ex[par].first_child = (int)i;
            last.items[par] = (int)i;
        }
    }
    mn_vec_release(&last);
    region_chunks(c, -1, top_first, 1, nlines(c), 0);
}

/* ---- markdown ---- */

static size_t md_indent(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    return i;
}

/* An ATX heading's level (1-6) and text, or 0. */
static int md_atx(const char *s, size_t n, const char **text, size_t *tn)
{
    size_t i = md_indent(s, n);
    if (i > 3)
        return 0;
    size_t h = 0;
    while (i + h < n && s[i + h] == '#')
        h++;
    if (h < 1 || h > 6 || (i + h < n && s[i + h] != ' ' && s[i + h] != '\t'))
        return 0;
    const char *t = s + i + h;
    size_t l = n - i - h;
    while (l && is_ws((unsigned char)*t)) {
        t++;
        l--;
    }
    while (l && is_ws((unsigned char)t[l - 1]))
        l--;
    /* closing #s, when preceded by a space */
    size_t k = l;
    while (k && t[k - 1] == '#')
        k--;
    if (k < l && (k == 0 || t[k - 1] == ' ' || t[k - 1] == '\t')) {
        l = k;
        while (l && is_ws((unsigned char)t[l - 1]))
            l--;
    }
    *text = t;
    *tn = l;
    return (int)h;
}

/* A setext underline: 1 for ===, 2 for ---, else 0. */
static int md_setext(const char *s, size_t n)
{
    size_t i = md_indent(s, n);
    if (i > 3 || i >= n || (s[i] != '=' && s[i] != '-'))
        return 0;
    char ch = s[i];
    size_t j = i;
    while (j < n && s[j] == ch)
        j++;
    while (j < n && is_ws((unsigned char)s[j]))
        j++;
    return j == n ? (ch == '=' ? 1 : 2) : 0;
}

static bool md_fence(const char *s, size_t n, char *ch, size_t *len)
{
    size_t i = md_indent(s, n);
    if (i > 3 || i >= n || (s[i] != '`' && s[i] != '~'))
        return false;
    size_t j = i;
    while (j < n && s[j] == s[i])
        j++;
    if (j - i < 3)
        return false;
    *ch = s[i];
    *len = j - i;
    return true;
}

static bool md_paragraph_line(const char *s, size_t n)
{
    size_t i = md_indent(s, n);
    if (i >= n || i > 3)
        return false;
    const char *t = s + i;
    size_t l = n - i;
    if (t[0] == '>' || t[0] == '|' || t[0] == '<')
        return false;
    if ((t[0] == '-' || t[0] == '*' || t[0] == '+') && (l == 1 || t[1] == ' '))
        return false;
    return true;
}

typedef struct {
    int level;
    int64_t line;
    uint32_t text_a, text_n;
    int64_t head_lines; /* 1 for ATX, 2 for setext */
} md_heading;

static void parse_markdown(ctx *c)
{
    mn_parser *p = c->p;
    mn_parse_result *out = c->out;
    int64_t nl = nlines(c);
    MN_VEC(md_heading) hs = MN_VEC_INIT;
    bool in_fence = false;
    char fch = 0;
    size_t flen = 0;
    int64_t l = 1;
    /* front matter */
    if (nl >= 1) {
        uint32_t a = line_start(c, 1), e = line_end(c, 1);
        if (e - a == 3 && memcmp(c->src + a, "---", 3) == 0) {
            for (int64_t k = 2; k <= nl && k < 500; k++) {
                uint32_t ka = line_start(c, k), ke = line_end(c, k);
                if ((ke - ka == 3 &&
                     (!memcmp(c->src + ka, "---", 3) || !memcmp(c->src + ka, "...", 3)))) {
                    l = k + 1;
                    break;
                }
            }
        }
    }
    for (; l <= nl; l++) {
        uint32_t a = line_start(c, l), e = line_end(c, l);
        const char *s = c->src + a;
        size_t n = e - a;
        char ch;
        size_t fl;
        if (md_fence(s, n, &ch, &fl)) {
            if (!in_fence) {
                in_fence = true;
                fch = ch;
                flen = fl;
            } else if (ch == fch && fl >= flen) {
                in_fence = false;
            }
            continue;
        }
        if (in_fence)
            continue;
        const char *t;
        size_t tn;
        int lev = md_atx(s, n, &t, &tn);
        if (lev && tn) {
            md_heading h = {lev, l, (uint32_t)(t - c->src), (uint32_t)tn, 1};
            mn_vec_push(&hs, h);
            continue;
        }
        if (l < nl && md_paragraph_line(s, n) && !lev) {
            uint32_t na = line_start(c, l + 1), ne = line_end(c, l + 1);
            int st = md_setext(c->src + na, ne - na);
            if (st) {
                const char *ts = s;
                size_t tl = n;
                while (tl && is_ws((unsigned char)*ts)) {
                    ts++;
                    tl--;
                }
                while (tl && is_ws((unsigned char)ts[tl - 1]))
                    tl--;
                md_heading h = {st, l, (uint32_t)(ts - c->src), (uint32_t)tl, 2};
                mn_vec_push(&hs, h);
                l++;
            }
        }
    }
    /* symbols: a section runs to the next heading of its level or above */
    const char *path[7] = {0};
    size_t nh = hs.len;
    mn_vec_reserve(&out->symbols, nh ? nh : 1);
    mn_buf *q = &p->tmp2;
    for (size_t i = 0; i < nh; i++) {
        md_heading *h = &hs.items[i];
        mn_symbol_rec s = {0};
        s.name = emit(&out->arena, c->src + h->text_a, h->text_n, NAME_MAX_LEN);
        s.kind = "section";
        path[h->level] = s.name;
        for (int k = h->level + 1; k <= 6; k++)
            path[k] = NULL;
        mn_buf_clear(q);
        for (int k = 1; k <= h->level; k++) {
            if (!path[k])
                continue;
            if (q->len)
                mn_buf_puts(q, " > ");
            mn_buf_puts(q, path[k]);
        }
        s.qualified_name =
            q->len <= QUALIFIED_MAX ? emit_buf(&out->arena, q, QUALIFIED_MAX) : s.name;
        int64_t end = nl;
        for (size_t j = i + 1; j < nh; j++)
            if (hs.items[j].level <= h->level) {
                end = hs.items[j].line - 1;
                break;
            }
        while (end > h->line && blank_line(c, end))
            end--;
        s.start_line = h->line;
        s.end_line = end;
        s.start_byte = line_start(c, h->line);
        s.end_byte = line_end(c, end);
        uint32_t ha = line_start(c, h->line), he = line_end(c, h->line);
        mn_buf_clear(&p->tmp);
        put_collapsed(&p->tmp, c->src + ha, he - ha);
        s.signature = emit_buf(&out->arena, &p->tmp, MN_PARSE_SIGNATURE_MAX);
        hash_hex(c->src + s.start_byte, (size_t)(s.end_byte - s.start_byte), s.hash);
        mn_vec_push(&out->symbols, s);
    }
    /* chunks: the preamble in windows, each section's own lines */
    int64_t first = nh ? hs.items[0].line : nl + 1;
    if (first > 1)
        gap_chunks(c, -1, 1, first - 1);
    for (size_t i = 0; i < nh; i++) {
        int64_t l0 = hs.items[i].line;
        int64_t l1 = i + 1 < nh ? hs.items[i + 1].line - 1 : nl;
        while (l1 > l0 && blank_line(c, l1))
            l1--;
        span_chunks(c, (int)i, l0, l1, line_start(c, l0), line_end(c, l1));
    }
    mn_vec_release(&hs);
}

/* ---- public ---- */

int mn_parser_new(mn_parser **out)
{
    MN_ASSERT_OR(out != NULL, MN_EINVAL);
    mn_parser *p = mn_calloc(1, sizeof(*p));
    p->ts = ts_parser_new();
    p->cursor = ts_query_cursor_new();
    size_t n;
    mn_grammars(&n);
    p->nstates = n;
    p->states = mn_calloc(n ? n : 1, sizeof(*p->states));
    mn_buf_init(&p->tmp);
    mn_buf_init(&p->tmp2);
    if (!p->ts || !p->cursor) {
        mn_parser_free(p);
        return mn_error_set(MN_EINTERNAL, "cannot create a tree-sitter parser");
    }
    *out = p;
    return 0;
}

void mn_parser_free(mn_parser *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nstates; i++)
        free_state(&p->states[i]);
    free(p->states);
    if (p->cursor)
        ts_query_cursor_delete(p->cursor);
    if (p->has_tcursor)
        ts_tree_cursor_delete(&p->tcursor);
    if (p->ts)
        ts_parser_delete(p->ts);
    mn_vec_release(&p->defs);
    mn_vec_release(&p->refs);
    mn_vec_release(&p->line_starts);
    mn_vec_release(&p->extra);
    mn_vec_release(&p->map);
    mn_vec_release(&p->stack);
    mn_vec_release(&p->slots);
    mn_buf_release(&p->tmp);
    mn_buf_release(&p->tmp2);
    free(p);
}

static bool is_markdown(const char *language, const char *path)
{
    if (language)
        return strcmp(language, "markdown") == 0;
    return path && (ends_with(path, ".md") || ends_with(path, ".markdown"));
}

bool mn_parse_language_supported(const char *language)
{
    if (!language)
        return false;
    if (!strcmp(language, "markdown"))
        return true;
    const lang_spec *spec = spec_of(language);
    return mn_grammar_find(spec ? spec->grammar : language) != NULL;
}

int mn_parser_query_info(mn_parser *p, const char *language, mn_parse_query_info *out)
{
    MN_ASSERT_OR(p && language && out, MN_EINVAL);
    memset(out, 0, sizeof(*out));
    const lang_spec *spec;
    lang_state *L = state_for(p, language, &spec);
    if (!L)
        return mn_error_set(MN_ENOTFOUND, "no grammar for language '%s'", language);
    *out = L->info;
    return 0;
}

void mn_parse_result_release(mn_parse_result *r)
{
    if (!r)
        return;
    mn_arena_release(&r->arena);
    mn_vec_release(&r->symbols);
    mn_vec_release(&r->refs);
    mn_vec_release(&r->chunks);
    r->lines = 0;
    r->syntax_errors = false;
}

void mn_parse_result_content(const mn_parse_result *r, mn_file_content *out)
{
    out->symbols = r->symbols.items;
    out->nsymbols = r->symbols.len;
    out->refs = r->refs.items;
    out->nrefs = r->refs.len;
    out->chunks = r->chunks.items;
    out->nchunks = r->chunks.len;
    out->decls = NULL; /* index/options.c */
    out->ndecls = 0;
}

int mn_parser_parse(mn_parser *p, mn_parse_result *out, const char *language, const char *path,
                    const char *src, size_t len)
{
    MN_ASSERT_OR(p && out, MN_EINVAL);
    if (!src && len)
        return mn_error_set(MN_EINVAL, "no source for '%s'", path ? path : "(unnamed)");
    if (len > MN_PARSE_MAX_INPUT)
        return mn_error_set(MN_ETOOBIG, "file '%s' is too large to parse (%zu bytes)",
                            path ? path : "(unnamed)", len);
    mn_arena_release(&out->arena);
    out->symbols.len = out->refs.len = out->chunks.len = 0;
    out->syntax_errors = false;
    ctx c = {p, out, NULL, NULL, src ? src : "", (uint32_t)len};
    index_lines(&c);
    out->lines = nlines(&c);
    p->defs.len = p->refs.len = p->extra.len = 0;

    if (is_markdown(language, path)) {
        parse_markdown(&c);
        return 0;
    }
    lang_state *L = language ? state_for(p, language, &c.spec) : NULL;
    TSTree *tree = NULL;
    if (L && L->query && ts_parser_set_language(p->ts, L->grammar->language()))
        tree = ts_parser_parse_string(p->ts, NULL, c.src, c.len);
    if (!tree) {
        c.spec = NULL;
        if (c.len)
            gap_chunks(&c, -1, 1, nlines(&c));
        return 0;
    }
    c.L = L;
    TSNode root = ts_tree_root_node(tree);
    if (!p->has_tcursor) {
        p->tcursor = ts_tree_cursor_new(root);
        p->has_tcursor = true;
    }
    out->syntax_errors = ts_node_has_error(root);
    run_query(&c, root);
    if (mn_receivers_supported(language))
        type_receivers(&c, root, language);
    build_symbols(&c);
    build_refs(&c);
    ts_tree_delete(tree);
    build_chunks(&c);
    return 0;
}
