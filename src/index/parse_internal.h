/*
 * parse_internal.h - what the parts of the parser share (parse.c and its
 * parts: parse_query.c, parse_refs.c, parse_docs.c, parse_chunks.c,
 * parse_markdown.c). Not for use outside src/index/parse*.c; parse.h is the
 * interface.
 *
 * The types are the parse's working records: the language table's entries
 * (lang_spec), each language's compiled query (lang_state), the definitions
 * and references found by the query pass (raw_def, raw_ref), and the parser
 * with its scratch vectors (struct mn_parser), reused from file to file. A
 * parse of one file works on a ctx. The small text and line helpers are
 * inline here because every part calls them in its inner loops.
 */
#ifndef MN_INDEX_PARSE_INTERNAL_H
#define MN_INDEX_PARSE_INTERNAL_H

#include <regex.h>

#include <tree_sitter/api.h>

#include "common.h"

#include "index/grammars.h"
#include "index/parse.h"
#include "util/buf.h"

#define QUALIFIED_MAX       512 /* a longer qualified name is just the name */
#define TARGET_MAX          512
#define NAME_MAX_LEN        256
#define CONTAINER_DEPTH_MAX 32
/* lines of a comment between symbols that goes with the next (section_comment) */
#define SECTION_COMMENT_LINES 3

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

/* ---- text and line helpers (parse.c has the others) ---- */

static inline bool mn_parse__node_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static inline bool mn_parse__is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static inline int64_t mn_parse__nlines(const ctx *c)
{
    return (int64_t)c->p->line_starts.len;
}

static inline uint32_t mn_parse__line_start(const ctx *c, int64_t line)
{
    return c->p->line_starts.items[line - 1];
}

/* End of a line, its newline excluded. */
static inline uint32_t mn_parse__line_end(const ctx *c, int64_t line)
{
    uint32_t e = line < mn_parse__nlines(c) ? c->p->line_starts.items[line] : c->len;
    if (e > mn_parse__line_start(c, line) && c->src[e - 1] == '\n')
        e--;
    if (e > mn_parse__line_start(c, line) && c->src[e - 1] == '\r')
        e--;
    return e;
}

static inline bool mn_parse__type_in(const char *t, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(t, *set) == 0)
            return true;
    return false;
}

static inline bool mn_parse__kind_is(const char *k, const char *const *set)
{
    return mn_parse__type_in(k, set);
}

static inline bool mn_parse__has_alnum(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'z') || ch >= 0x80)
            return true;
    }
    return false;
}

/* parse.c */
/* the kinds of a class, in the sense of "its functions are methods" */
extern const char *const mn_parse__classlike[];
TSNode mn_parse__base_type(TSNode n);
char *mn_parse__emit(mn_arena *a, const char *s, size_t n, size_t cap);
char *mn_parse__emit_buf(mn_arena *a, const mn_buf *b, size_t cap);
void mn_parse__hash_hex(const char *s, size_t n, char out[MN_HASH_HEX]);
int64_t mn_parse__line_of(const ctx *c, uint32_t b);
void mn_parse__put_collapsed(mn_buf *b, const char *s, size_t n);
const lang_spec *mn_parse__spec_of(const char *language);

/* parse_query.c */
void mn_parse__free_state(lang_state *L);
bool mn_parse__predicates_hold(const ctx *c, const TSQueryMatch *m);
lang_state *mn_parse__state_for(mn_parser *p, const char *language, const lang_spec **spec_out);

/* parse_refs.c */
void mn_parse__add_call(ctx *c, TSNode name);
void mn_parse__add_inherit(ctx *c, TSNode base, TSNode owner);
void mn_parse__build_refs(ctx *c);
void mn_parse__import_decl(ctx *c, TSNode n);
void mn_parse__import_php(ctx *c, TSNode n);
void mn_parse__import_python_from(ctx *c, TSNode n);
void mn_parse__import_rust_tree(ctx *c, TSNode n, mn_buf *prefix, uint32_t pos, int depth,
                                int *budget);
void mn_parse__import_simple(ctx *c, TSNode n, uint8_t role);
bool mn_parse__normalize_dotted(mn_buf *b, bool strip_receiver);
void mn_parse__type_receivers(ctx *c, TSNode root, const char *language);

/* parse_docs.c */
bool mn_parse__comment_above(const ctx *c, int64_t line, int64_t *top_out, int64_t *bottom_out);
const char *mn_parse__leading_comment(ctx *c, uint32_t at, int64_t *first_line);
const char *mn_parse__python_docstring(ctx *c, TSNode def);
const char *mn_parse__signature_of(ctx *c, const raw_def *d);
bool mn_parse__starts(const char *s, size_t n, const char *lit);

/* parse_chunks.c */
bool mn_parse__blank_line(const ctx *c, int64_t l);
void mn_parse__build_chunks(ctx *c);
void mn_parse__gap_chunks(ctx *c, int symbol, int64_t l0, int64_t l1);
void mn_parse__span_chunks(ctx *c, int symbol, int64_t l0, int64_t l1, uint32_t a, uint32_t e);

/* parse_markdown.c */
void mn_parse__markdown(ctx *c);

#endif
