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
 * The parts (parse_internal.h is what they share): parse_query.c compiles
 * a language's query and applies the predicates; parse.c runs the query
 * pass, turns definitions into symbols (qualified names, parents) with
 * parse_docs.c's docstrings, leading comments and signatures; parse_refs.c
 * records imports, calls and bases and merges them per enclosing symbol;
 * parse_chunks.c cuts the file into chunks along the symbols;
 * parse_markdown.c does sections, symbols and chunks of markdown.
 *
 * Invariants: every TSNode is used before its tree is deleted; every string
 * of a result goes through mn_parse__emit() (valid UTF-8, no NUL, capped) into the
 * result's arena; the parser's scratch vectors are reused from file to file,
 * so a parse mallocs only when a file is larger than any before it.
 * Nothing recurses over the syntax tree: deeply nested input cannot exhaust
 * the stack.
 */
#include <xxhash.h>

#include "index/parse_internal.h"
#include "index/receivers.h"

/* Our own queries, embedded by cmake/embed.cmake from src/index/queries/. */
extern const char mn_query_python[], mn_query_javascript[], mn_query_typescript[], mn_query_go[],
    mn_query_rust[], mn_query_java[], mn_query_c[], mn_query_cpp[], mn_query_ruby[], mn_query_php[],
    mn_query_csharp[], mn_query_bash[];

/* ---- languages ---- */

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

const lang_spec *mn_parse__spec_of(const char *language)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(langs); i++)
        if (strcmp(langs[i].name, language) == 0)
            return &langs[i];
    return NULL;
}

/* ---- text helpers ---- */

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

char *mn_parse__emit(mn_arena *a, const char *s, size_t n, size_t cap)
{
    return emit_n(a, s, n, cap, NULL);
}

char *mn_parse__emit_buf(mn_arena *a, const mn_buf *b, size_t cap)
{
    return mn_parse__emit(a, b->ptr, b->len, cap);
}

void mn_parse__hash_hex(const char *s, size_t n, char out[MN_HASH_HEX])
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
void mn_parse__put_collapsed(mn_buf *b, const char *s, size_t n)
{
    bool space = false, newline = false;
    for (size_t i = 0; i < n; i++) {
        if (mn_parse__is_ws((unsigned char)s[i])) {
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

/* 1-based line of byte b. */
int64_t mn_parse__line_of(const ctx *c, uint32_t b)
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

/* ---- definitions ---- */

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
    if (mn_parse__type_in(t, structs))
        return "struct";
    if (mn_parse__type_in(t, enums))
        return "enum";
    if (mn_parse__type_in(t, traits))
        return "trait";
    if (mn_parse__type_in(t, types))
        return "type";
    if (mn_parse__type_in(t, modules))
        return "module";
    if (mn_parse__type_in(t, macros))
        return "macro";
    if (strcmp(t, "interface_declaration") == 0 || strcmp(t, "annotation_type_declaration") == 0)
        return "interface";
    if (strcmp(t, "preproc_def") == 0)
        return "constant";
    if (strcmp(t, "type_spec") == 0) {
        TSNode ty = ts_node_child_by_field_name(def, "type", 4);
        if (mn_parse__node_is(ty, "struct_type"))
            return "struct";
        if (mn_parse__node_is(ty, "interface_type"))
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
        if (mn_parse__type_in(t, through)) {
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
            if (ts_node_is_null(where) || !mn_parse__type_in(ts_node_type(where), places))
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
    if (mn_parse__type_in(t, always))
        return true;
    return mn_parse__type_in(t, single) && ts_node_named_child_count(up) == 1;
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
        if (!mn_parse__is_ws((unsigned char)c->src[i - 1]))
            return true;
        i--;
    }
    /* the previous non-blank line */
    while (i > 0 && mn_parse__is_ws((unsigned char)c->src[i - 1]))
        i--;
    if (i == 0)
        return false;
    uint32_t e = i;
    while (i > 0 && c->src[i - 1] != '\n')
        i--;
    while (i < e && mn_parse__is_ws((unsigned char)c->src[i]))
        i++;
    return c->src[i] == '@' || c->src[e - 1] == '>' || c->src[e - 1] == ')';
}

/* Strip pointer, reference and generic wrappers off a type node. */
TSNode mn_parse__base_type(TSNode n)
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
           (mn_parse__node_is(np, "qualified_identifier") ||
            mn_parse__node_is(np, "scope_resolution")) &&
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
                        : mn_parse__base_type(ts_node_child_by_field_name(param, "type", 4));
        if (!ts_node_is_null(ty)) {
            d.scope_start = ts_node_start_byte(ty);
            d.scope_end = ts_node_end_byte(ty);
        }
    }
    /* an impl block: impl<T> Point<T> { fn new() } */
    if (c->spec && (c->spec->flags & F_RUST) && strcmp(kind, "method") == 0 &&
        (strcmp(t, "function_item") == 0 || strcmp(t, "function_signature_item") == 0)) {
        TSNode list = ts_node_parent(def);
        TSNode impl = mn_parse__node_is(list, "declaration_list") ? ts_node_parent(list) : list;
        if (mn_parse__node_is(impl, "impl_item")) {
            TSNode ty = mn_parse__base_type(ts_node_child_by_field_name(impl, "type", 4));
            if (!ts_node_is_null(ty)) {
                d.scope_start = ts_node_start_byte(ty);
                d.scope_end = ts_node_end_byte(ty);
            }
        }
    }
    mn_vec_push(&c->p->defs, d);
}

/* ---- the query pass ---- */

static void run_query(ctx *c, TSNode root)
{
    lang_state *L = c->L;
    TSQueryCursor *cur = c->p->cursor;
    ts_query_cursor_exec(cur, L->query, root);
    TSQueryMatch m;
    while (ts_query_cursor_next_match(cur, &m)) {
        if (L->pats[m.pattern_index].n && !mn_parse__predicates_hold(c, &m))
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
                mn_parse__import_simple(c, n, role);
                break;
            case ROLE_IMPORT_FROM:
                mn_parse__import_python_from(c, n);
                break;
            case ROLE_IMPORT_RUST: {
                mn_buf prefix = MN_BUF_INIT;
                int budget = 64;
                mn_parse__import_rust_tree(c, n, &prefix, ts_node_start_byte(n), 0, &budget);
                mn_buf_release(&prefix);
                break;
            }
            case ROLE_IMPORT_DECL:
                mn_parse__import_decl(c, n);
                break;
            case ROLE_IMPORT_PHP:
                mn_parse__import_php(c, n);
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
            mn_parse__add_call(c, name);
        if (!ts_node_is_null(inherit))
            mn_parse__add_inherit(c, inherit, owner);
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

const char *const mn_parse__classlike[] = {"class", "interface", "struct", "enum", "trait", NULL};
static const char *const not_scopes[] = {"constant", "variable", "type", "macro", NULL};

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
        } else if (!angle && !mn_parse__is_ws((unsigned char)ch) && ch != '*' && ch != '&') {
            mn_buf_putc(b, ch);
        }
    }
    /* drop trailing separators: "Widget::", "App\\" */
    while (b->len > before && strchr(":.\\", b->ptr[b->len - 1]))
        mn_buf_truncate(b, b->len - 1);
    mn_buf tail = {b->ptr + before, b->len - before, 0};
    if (tail.len == 0 || !mn_parse__normalize_dotted(&tail, false)) {
        mn_buf_truncate(b, before);
        return;
    }
    mn_buf_truncate(b, before + tail.len);
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
        while (sp >= 0 && mn_parse__kind_is(out->symbols.items[p->map.items[sp]].kind, not_scopes))
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
        s.name = mn_parse__emit(&out->arena, nb->ptr + cut, nb->len - cut, NAME_MAX_LEN);
        s.kind = d->kind;
        const char *pk = sp >= 0 ? out->symbols.items[p->map.items[sp]].kind : NULL;
        bool in_class = pk && (mn_parse__kind_is(pk, mn_parse__classlike) ||
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
            q->len <= QUALIFIED_MAX ? mn_parse__emit_buf(&out->arena, q, QUALIFIED_MAX) : s.name;
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
        s->signature = mn_parse__signature_of(c, d);
        int64_t first = s->start_line;
        const char *doc = NULL;
        if (c->spec && (c->spec->flags & F_PYTHON))
            doc = mn_parse__python_docstring(c, d->def);
        int64_t cfirst = first;
        const char *above = mn_parse__leading_comment(c, d->start, &cfirst);
        if (!doc)
            doc = above;
        s->docstring = doc;
        p->extra.items[i].chunk_line = above ? cfirst : first;
        p->extra.items[i].chunk_byte = above ? mn_parse__line_start(c, cfirst) : d->start;
        mn_parse__hash_hex(c->src + d->start, d->end - d->start, s->hash);
    }
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
        mn_parse__free_state(&p->states[i]);
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
    const lang_spec *spec = mn_parse__spec_of(language);
    return mn_grammar_find(spec ? spec->grammar : language) != NULL;
}

int mn_parser_query_info(mn_parser *p, const char *language, mn_parse_query_info *out)
{
    MN_ASSERT_OR(p && language && out, MN_EINVAL);
    memset(out, 0, sizeof(*out));
    const lang_spec *spec;
    lang_state *L = mn_parse__state_for(p, language, &spec);
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
    out->lines = mn_parse__nlines(&c);
    p->defs.len = p->refs.len = p->extra.len = 0;

    if (is_markdown(language, path)) {
        mn_parse__markdown(&c);
        return 0;
    }
    lang_state *L = language ? mn_parse__state_for(p, language, &c.spec) : NULL;
    TSTree *tree = NULL;
    if (L && L->query && ts_parser_set_language(p->ts, L->grammar->language()))
        tree = ts_parser_parse_string(p->ts, NULL, c.src, c.len);
    if (!tree) {
        c.spec = NULL;
        if (c.len)
            mn_parse__gap_chunks(&c, -1, 1, mn_parse__nlines(&c));
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
        mn_parse__type_receivers(&c, root, language);
    build_symbols(&c);
    mn_parse__build_refs(&c);
    ts_tree_delete(tree);
    mn_parse__build_chunks(&c);
    return 0;
}
