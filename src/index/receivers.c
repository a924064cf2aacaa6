/*
 * receivers.c - the type of a call's receiver, from the file alone (see
 * receivers.h for what is inferred).
 *
 * How it works. One pre-order walk of the tree with a TSTreeCursor (no
 * recursion, no ts_node_parent) records the scopes (functions and classes,
 * as byte ranges with their parent, in start order) and the bindings each
 * scope declares: (scope, name) -> one type, or "unknown" when a binding
 * has no type or two bindings disagree. A call is then answered by finding
 * its innermost scope (binary search on the starts, then up the parents)
 * and walking out until a scope declares the receiver; self-like receivers
 * take the nearest class scope's name instead.
 *
 * Each language is one row of `langs`: its self-like receivers, the node
 * types of its classes and functions, and a function that reads the
 * bindings one node declares. Types go through clean_type: qualifiers such
 * as const/struct/mut, pointers and references, and generic arguments go;
 * a few wrappers (Optional[X], Option<X>, Box<X>, shared_ptr<X>...) give
 * their argument; what is left must be a dotted name.
 *
 * Invariants: every string handed back lives in the caller's arena; the
 * walk's scratch is freed before returning; nodes are used only while the
 * caller's tree lives.
 */
#include "common.h"

#include "index/receivers.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

#define TYPE_MAX 200

typedef struct walker walker;

typedef struct {
    const char *name;
    const char *const *selves;    /* receivers meaning the enclosing class */
    const char *const *classes;   /* node types of class scopes */
    const char *class_field;      /* the field naming a class ("name"; Rust impl: "type") */
    const char *const *functions; /* node types of function scopes */
    bool fields_visible;          /* a class body's bindings are seen by its methods */
    void (*bind)(walker *w, TSNode n, const char *type);
} rx_lang;

typedef struct {
    uint32_t start, end;
    int parent;
    bool is_class;
    const char *owner; /* class name (class scope, or a C++ Foo::m function), arena */
} scope;

typedef struct {
    const char *type; /* NULL: unknown */
} binding;

struct walker {
    const rx_lang *L;
    const char *src;
    uint32_t len;
    mn_arena *arena;
    MN_VEC(scope) scopes;
    MN_VEC(int) stack; /* open scopes */
    MN_VEC(binding) binds;
    mn_map by_key; /* "scope\x1fname" -> binding index + 1 */
    mn_buf tmp;
};

/* ---- helpers ---- */

static bool type_in(const char *t, const char *const *set)
{
    for (; set && *set; set++)
        if (!strcmp(t, *set))
            return true;
    return false;
}

static TSNode field(TSNode n, const char *name)
{
    return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static bool is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static bool ident_byte(unsigned char ch)
{
    return ch >= 0x80 || (ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'z') ||
           ch == '_' || ch == '$';
}

static bool word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t wl = strlen(w);
    return i + wl <= n && !memcmp(s + i, w, wl) &&
           (i + wl == n || !ident_byte((unsigned char)s[i + wl]));
}

/*
 * A type as a dotted name: "const Foo&" -> "Foo", "*pkg.Bar" -> "pkg.Bar",
 * "std::shared_ptr<Foo>" -> "Foo", "Optional[Foo]" -> "Foo", "'Foo'" ->
 * "Foo", "Vec<u8>" -> "Vec". NULL when no name is left.
 */
static const char *clean_type(walker *w, const char *s, size_t n, int depth)
{
    static const char *const skip[] = {"const",    "struct",   "class", "enum",     "union",
                                       "mut",      "dyn",      "impl",  "volatile", "final",
                                       "typename", "readonly", NULL};
    static const char *const wrappers[] = {"Optional",   "typing.Optional",
                                           "t.Optional", "Option",
                                           "Box",        "Rc",
                                           "Arc",        "RefCell",
                                           "shared_ptr", "std.shared_ptr",
                                           "unique_ptr", "std.unique_ptr",
                                           "weak_ptr",   "std.weak_ptr",
                                           "Ref",        "Type",
                                           "type",       NULL};
    size_t i = 0;
    for (;;) {
        while (i < n && (strchr(" \t\r\n:&*?'\"", s[i]) != NULL))
            i++;
        bool kw = false;
        for (const char *const *k = skip; *k && !kw; k++)
            if (word_at(s, n, i, *k)) {
                i += strlen(*k);
                kw = true;
            }
        if (!kw)
            break;
    }
    mn_buf *b = &w->tmp;
    mn_buf_clear(b);
    while (i < n && b->len < TYPE_MAX) {
        unsigned char ch = (unsigned char)s[i];
        if (ident_byte(ch) && ch != '$') {
            mn_buf_putc(b, (char)ch);
            i++;
        } else if (ch == '.' || ch == '\\') {
            mn_buf_putc(b, '.');
            i++;
        } else if (ch == ':' && i + 1 < n && s[i + 1] == ':') {
            mn_buf_putc(b, '.');
            i += 2;
        } else {
            break;
        }
    }
    if (!b->len || b->ptr[0] == '.' || b->ptr[b->len - 1] == '.' ||
        (b->ptr[0] >= '0' && b->ptr[0] <= '9'))
        return NULL;
    if (i < n && (s[i] == '<' || s[i] == '[') && depth < 3) {
        bool wrap = false;
        for (const char *const *k = wrappers; *k && !wrap; k++)
            wrap = !strcmp(b->ptr, *k);
        if (wrap) /* the first argument, up to its own end */
            return clean_type(w, s + i + 1, n - i - 1, depth + 1);
    }
    return mn_arena_strndup(w->arena, b->ptr, b->len);
}

static const char *node_type_text(walker *w, TSNode n)
{
    if (ts_node_is_null(n))
        return NULL;
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e <= a || e > w->len || e - a > 4 * TYPE_MAX)
        return NULL;
    return clean_type(w, w->src + a, e - a, 0);
}

static bool capitalized_last(const char *t)
{
    const char *dot = strrchr(t, '.');
    const char *last = dot ? dot + 1 : t;
    return *last >= 'A' && *last <= 'Z';
}

/* ---- scopes and bindings ---- */

static int current_scope(walker *w)
{
    return w->stack.len ? w->stack.items[w->stack.len - 1] : 0;
}

/* Record that the current scope binds the name at node n to type (NULL: unknown). */
static void bind_name(walker *w, TSNode n, const char *type)
{
    if (ts_node_is_null(n))
        return;
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e <= a || e - a > 128 || e > w->len)
        return;
    char key[160];
    snprintf(key, sizeof(key), "%d\x1f%.*s", current_scope(w), (int)(e - a), w->src + a);
    size_t ix = (size_t)mn_map_get(&w->by_key, key);
    if (!ix) {
        binding b = {type};
        mn_vec_push(&w->binds, b);
        mn_map_set(&w->by_key, key, (void *)(size_t)w->binds.len);
        return;
    }
    binding *b = &w->binds.items[ix - 1];
    if (b->type && (!type || strcmp(b->type, type) != 0))
        b->type = NULL;
}

/* The identifier a C/C++ declarator declares (through pointers, references, initializers). */
static TSNode declarator_name(TSNode d)
{
    for (int depth = 0; depth < 8 && !ts_node_is_null(d); depth++) {
        const char *t = ts_node_type(d);
        if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier"))
            return d;
        if (!strcmp(t, "function_declarator") || !strcmp(t, "array_declarator"))
            return (TSNode){0};
        TSNode inner = field(d, "declarator");
        d = ts_node_is_null(inner) ? ts_node_named_child(d, 0) : inner;
    }
    return (TSNode){0};
}

/* ---- languages ---- */

static void bind_python(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "assignment")) {
        TSNode left = field(n, "left");
        if (!is(left, "identifier"))
            return;
        TSNode ty = field(n, "type"), right = field(n, "right");
        const char *type = NULL;
        if (!ts_node_is_null(ty)) {
            type = node_type_text(w, ty);
        } else if (is(right, "call")) {
            TSNode fn = field(right, "function");
            if (is(fn, "identifier") || is(fn, "attribute")) {
                type = node_type_text(w, fn);
                if (type && !capitalized_last(type))
                    type = NULL;
            }
        }
        bind_name(w, left, type);
    } else if (!strcmp(t, "typed_parameter")) {
        TSNode name = ts_node_named_child(n, 0);
        if (is(name, "identifier"))
            bind_name(w, name, node_type_text(w, field(n, "type")));
    } else if (!strcmp(t, "typed_default_parameter")) {
        bind_name(w, field(n, "name"), node_type_text(w, field(n, "type")));
    } else if (!strcmp(t, "default_parameter")) {
        bind_name(w, field(n, "name"), NULL);
    } else if (!strcmp(t, "parameters") || !strcmp(t, "lambda_parameters")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (is(c, "identifier"))
                bind_name(w, c, NULL);
        }
    } else if (!strcmp(t, "for_statement") || !strcmp(t, "for_in_clause")) {
        TSNode left = field(n, "left");
        if (is(left, "identifier"))
            bind_name(w, left, NULL);
    } else if (!strcmp(t, "as_pattern_target")) {
        TSNode c = ts_node_named_child(n, 0);
        if (is(c, "identifier"))
            bind_name(w, c, NULL);
    }
}

static void bind_js(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "variable_declarator")) {
        TSNode name = field(n, "name");
        if (!is(name, "identifier"))
            return;
        TSNode ty = field(n, "type"), value = field(n, "value");
        const char *type = NULL;
        if (!ts_node_is_null(ty))
            type = node_type_text(w, ty);
        else if (is(value, "new_expression"))
            type = node_type_text(w, field(value, "constructor"));
        bind_name(w, name, type);
    } else if (!strcmp(t, "required_parameter") || !strcmp(t, "optional_parameter")) {
        TSNode name = field(n, "pattern");
        if (is(name, "identifier"))
            bind_name(w, name, node_type_text(w, field(n, "type")));
    } else if (!strcmp(t, "formal_parameters")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (is(c, "identifier"))
                bind_name(w, c, NULL);
            else if (is(c, "assignment_pattern") && is(field(c, "left"), "identifier"))
                bind_name(w, field(c, "left"), NULL);
        }
    }
}

/* Java's `var x = new Foo()` and C#'s: the created type. */
static const char *created_type(walker *w, TSNode value)
{
    if (is(value, "object_creation_expression"))
        return node_type_text(w, field(value, "type"));
    return NULL;
}

static void bind_java(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "local_variable_declaration") || !strcmp(t, "field_declaration")) {
        TSNode ty = field(n, "type");
        const char *type = node_type_text(w, ty);
        bool var = type && !strcmp(type, "var");
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode d = ts_node_named_child(n, i);
            if (!is(d, "variable_declarator"))
                continue;
            bind_name(w, field(d, "name"), var ? created_type(w, field(d, "value")) : type);
        }
    } else if (!strcmp(t, "formal_parameter") || !strcmp(t, "catch_formal_parameter") ||
               !strcmp(t, "enhanced_for_statement")) {
        bind_name(w, field(n, "name"), node_type_text(w, field(n, "type")));
    }
}

static void bind_csharp(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "variable_declaration")) {
        TSNode ty = field(n, "type");
        bool var = is(ty, "implicit_type");
        const char *type = var ? NULL : node_type_text(w, ty);
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode d = ts_node_named_child(n, i);
            if (!is(d, "variable_declarator"))
                continue;
            const char *dt = type;
            if (var) {
                dt = NULL;
                uint32_t m = ts_node_named_child_count(d);
                for (uint32_t j = 0; j < m && !dt; j++)
                    dt = created_type(w, ts_node_named_child(d, j));
            }
            bind_name(w, field(d, "name"), dt);
        }
    } else if (!strcmp(t, "parameter")) {
        bind_name(w, field(n, "name"), node_type_text(w, field(n, "type")));
    } else if (!strcmp(t, "foreach_statement")) {
        TSNode ty = field(n, "type");
        bind_name(w, field(n, "left"), is(ty, "implicit_type") ? NULL : node_type_text(w, ty));
    }
}

/* Go: the type a value has when it is `Foo{...}` or `&Foo{...}`. */
static const char *go_value_type(walker *w, TSNode v)
{
    if (is(v, "unary_expression"))
        v = field(v, "operand");
    if (is(v, "composite_literal"))
        return node_type_text(w, field(v, "type"));
    return NULL;
}

static void bind_go(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "parameter_declaration") || !strcmp(t, "var_spec")) {
        TSNode ty = field(n, "type");
        const char *type = ts_node_is_null(ty) ? NULL : node_type_text(w, ty);
        TSNode value = field(n, "value");
        uint32_t k = ts_node_child_count(n), names = 0;
        for (uint32_t i = 0; i < k; i++) {
            const char *f = ts_node_field_name_for_child(n, i);
            if (!f || strcmp(f, "name") != 0)
                continue;
            const char *vt = type;
            if (!vt && is(value, "expression_list"))
                vt = go_value_type(w, ts_node_named_child(value, names));
            bind_name(w, ts_node_child(n, i), vt);
            names++;
        }
    } else if (!strcmp(t, "short_var_declaration")) {
        TSNode left = field(n, "left"), right = field(n, "right");
        uint32_t k = ts_node_named_child_count(left);
        uint32_t rk = ts_node_named_child_count(right);
        for (uint32_t i = 0; i < k; i++) {
            TSNode name = ts_node_named_child(left, i);
            if (!is(name, "identifier"))
                continue;
            const char *vt = k == rk ? go_value_type(w, ts_node_named_child(right, i)) : NULL;
            bind_name(w, name, vt);
        }
    }
}

/* Rust: `Foo::new(..)`, `Foo::default()`, `Foo::with_x(..)`, `Foo { .. }`. */
static const char *rust_value_type(walker *w, TSNode v)
{
    if (is(v, "struct_expression"))
        return node_type_text(w, field(v, "name"));
    if (!is(v, "call_expression"))
        return NULL;
    TSNode fn = field(v, "function");
    if (!is(fn, "scoped_identifier"))
        return NULL;
    TSNode path = field(fn, "path"), name = field(fn, "name");
    if (ts_node_is_null(path) || ts_node_is_null(name))
        return NULL;
    uint32_t a = ts_node_start_byte(name), e = ts_node_end_byte(name);
    const char *s = w->src + a;
    size_t len = e - a;
    bool ctor = (len == 3 && !memcmp(s, "new", 3)) || (len == 7 && !memcmp(s, "default", 7)) ||
                (len > 5 && !memcmp(s, "with_", 5)) || (len > 4 && !memcmp(s, "new_", 4));
    if (!ctor)
        return NULL;
    const char *type = node_type_text(w, path);
    return type && capitalized_last(type) ? type : NULL;
}

static void bind_rust(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "let_declaration") || !strcmp(t, "parameter")) {
        TSNode pat = field(n, "pattern");
        if (is(pat, "mut_pattern"))
            pat = ts_node_named_child(pat, ts_node_named_child_count(pat) - 1);
        if (!is(pat, "identifier"))
            return;
        TSNode ty = field(n, "type");
        const char *type =
            ts_node_is_null(ty) ? rust_value_type(w, field(n, "value")) : node_type_text(w, ty);
        bind_name(w, pat, type);
    }
}

static void bind_c(walker *w, TSNode n, const char *t)
{
    if (strcmp(t, "declaration") != 0 && strcmp(t, "parameter_declaration") != 0 &&
        strcmp(t, "field_declaration") != 0)
        return;
    TSNode ty = field(n, "type");
    const char *type = NULL;
    bool automatic = is(ty, "placeholder_type_specifier");
    if (is(ty, "struct_specifier") || is(ty, "class_specifier") || is(ty, "union_specifier"))
        type = node_type_text(w, field(ty, "name"));
    else if (is(ty, "type_identifier") || is(ty, "qualified_identifier") || is(ty, "template_type"))
        type = node_type_text(w, ty);
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        const char *f = ts_node_field_name_for_child(n, i);
        if (!f || strcmp(f, "declarator") != 0)
            continue;
        TSNode d = ts_node_child(n, i);
        const char *dt = type;
        if (automatic) {
            TSNode value = is(d, "init_declarator") ? field(d, "value") : (TSNode){0};
            dt = is(value, "new_expression") ? node_type_text(w, field(value, "type")) : NULL;
        }
        TSNode name = declarator_name(d);
        if (!ts_node_is_null(name))
            bind_name(w, name, dt);
    }
}

static void bind_php(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "assignment_expression")) {
        TSNode left = field(n, "left"), right = field(n, "right");
        if (!is(left, "variable_name"))
            return;
        const char *type = NULL;
        if (is(right, "object_creation_expression")) {
            TSNode c = ts_node_named_child(right, 0);
            if (is(c, "name") || is(c, "qualified_name"))
                type = node_type_text(w, c);
        }
        bind_name(w, left, type);
    } else if (!strcmp(t, "simple_parameter")) {
        TSNode ty = field(n, "type");
        bind_name(w, field(n, "name"), ts_node_is_null(ty) ? NULL : node_type_text(w, ty));
    }
}

static void bind_ruby(walker *w, TSNode n, const char *t)
{
    if (!strcmp(t, "assignment")) {
        TSNode left = field(n, "left"), right = field(n, "right");
        if (!is(left, "identifier"))
            return;
        const char *type = NULL;
        if (is(right, "call")) {
            TSNode recv = field(right, "receiver"), m = field(right, "method");
            if ((is(recv, "constant") || is(recv, "scope_resolution")) && !ts_node_is_null(m) &&
                ts_node_end_byte(m) - ts_node_start_byte(m) == 3 &&
                !memcmp(w->src + ts_node_start_byte(m), "new", 3))
                type = node_type_text(w, recv);
        }
        bind_name(w, left, type);
    } else if (!strcmp(t, "method_parameters") || !strcmp(t, "block_parameters")) {
        uint32_t k = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < k; i++) {
            TSNode c = ts_node_named_child(n, i);
            if (is(c, "identifier"))
                bind_name(w, c, NULL);
        }
    }
}

static const char *const py_selves[] = {"self", "cls", NULL};
static const char *const this_selves[] = {"this", NULL};
static const char *const rust_selves[] = {"self", "Self", NULL};
static const char *const php_selves[] = {"$this", "self", "static", NULL};
static const char *const ruby_selves[] = {"self", NULL};

static const char *const py_classes[] = {"class_definition", NULL};
static const char *const py_functions[] = {"function_definition", "lambda", NULL};
static const char *const js_classes[] = {"class_declaration", "class", "abstract_class_declaration",
                                         NULL};
static const char *const js_functions[] = {"function_declaration",
                                           "function_expression",
                                           "function",
                                           "arrow_function",
                                           "method_definition",
                                           "generator_function_declaration",
                                           "generator_function",
                                           NULL};
static const char *const java_classes[] = {"class_declaration", "interface_declaration",
                                           "enum_declaration", "record_declaration", NULL};
static const char *const java_functions[] = {"method_declaration", "constructor_declaration",
                                             "lambda_expression", NULL};
static const char *const cs_classes[] = {"class_declaration", "struct_declaration",
                                         "interface_declaration", "record_declaration", NULL};
static const char *const cs_functions[] = {"method_declaration", "constructor_declaration",
                                           "local_function_statement", "lambda_expression", NULL};
static const char *const go_functions[] = {"function_declaration", "method_declaration",
                                           "func_literal", NULL};
static const char *const rust_classes[] = {"impl_item", NULL};
static const char *const rust_functions[] = {"function_item", "closure_expression", NULL};
static const char *const c_classes[] = {"class_specifier", "struct_specifier", NULL};
static const char *const c_functions[] = {"function_definition", "lambda_expression", NULL};
static const char *const php_classes[] = {"class_declaration", "trait_declaration", NULL};
static const char *const php_functions[] = {"method_declaration", "function_definition",
                                            "anonymous_function", "arrow_function", NULL};
static const char *const ruby_classes[] = {"class", "module", NULL};
static const char *const ruby_functions[] = {"method", "singleton_method", NULL};

static const rx_lang langs[] = {
    {"python", py_selves, py_classes, "name", py_functions, false, bind_python},
    {"javascript", this_selves, js_classes, "name", js_functions, false, bind_js},
    {"typescript", this_selves, js_classes, "name", js_functions, false, bind_js},
    {"tsx", this_selves, js_classes, "name", js_functions, false, bind_js},
    {"java", this_selves, java_classes, "name", java_functions, true, bind_java},
    {"csharp", this_selves, cs_classes, "name", cs_functions, true, bind_csharp},
    {"go", NULL, NULL, "name", go_functions, false, bind_go},
    {"rust", rust_selves, rust_classes, "type", rust_functions, false, bind_rust},
    {"c", NULL, NULL, "name", c_functions, false, bind_c},
    {"cpp", this_selves, c_classes, "name", c_functions, true, bind_c},
    {"php", php_selves, php_classes, "name", php_functions, false, bind_php},
    {"ruby", ruby_selves, ruby_classes, "name", ruby_functions, false, bind_ruby},
};

static const rx_lang *lang_of(const char *language)
{
    for (size_t i = 0; language && i < MN_ARRAY_SIZE(langs); i++)
        if (!strcmp(langs[i].name, language))
            return &langs[i];
    return NULL;
}

bool mn_receivers_supported(const char *language)
{
    return lang_of(language) != NULL;
}

/* C++ `void Foo::m() {}`: "Foo", the class a function outside its body belongs to. */
static const char *cpp_owner(walker *w, TSNode fn)
{
    TSNode d = field(fn, "declarator");
    for (int i = 0; i < 4 && !ts_node_is_null(d) && !is(d, "function_declarator"); i++)
        d = field(d, "declarator");
    if (!is(d, "function_declarator"))
        return NULL;
    TSNode q = field(d, "declarator");
    if (!is(q, "qualified_identifier"))
        return NULL;
    TSNode sc = field(q, "scope");
    if (ts_node_is_null(sc))
        return NULL;
    const char *t = node_type_text(w, sc);
    if (!t)
        return NULL;
    const char *dot = strrchr(t, '.');
    return dot ? dot + 1 : t;
}

static void open_scope(walker *w, TSNode n, bool is_class)
{
    scope s = {ts_node_start_byte(n), ts_node_end_byte(n), current_scope(w), is_class, NULL};
    if (is_class) {
        s.owner = node_type_text(w, field(n, w->L->class_field));
        if (!s.owner || is(n, "struct_specifier") || is(n, "class_specifier")) {
            /* a C++ class without a body is a reference, not a scope */
            if (ts_node_is_null(field(n, "body")))
                return;
        }
    } else if (w->L->bind == bind_c) {
        s.owner = cpp_owner(w, n);
    }
    mn_vec_push(&w->scopes, s);
    mn_vec_push(&w->stack, (int)(w->scopes.len - 1));
}

static void walk(walker *w, TSNode root)
{
    scope file = {0, w->len, -1, false, NULL};
    mn_vec_push(&w->scopes, file);
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        uint32_t start = ts_node_start_byte(n);
        while (w->stack.len && w->scopes.items[w->stack.items[w->stack.len - 1]].end <= start)
            w->stack.len--;
        if (ts_node_is_named(n)) {
            const char *t = ts_node_type(n);
            /* a scope's own name and parameters are bound inside it */
            if (type_in(t, w->L->classes))
                open_scope(w, n, true);
            else if (type_in(t, w->L->functions))
                open_scope(w, n, false);
            else
                w->L->bind(w, n, t);
        }
        if (ts_tree_cursor_goto_first_child(&cur))
            continue;
        bool moved = false;
        while (!moved) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                moved = true;
            } else if (!ts_tree_cursor_goto_parent(&cur)) {
                break;
            }
        }
        if (!moved)
            break;
    }
    ts_tree_cursor_delete(&cur);
}

/* The innermost scope holding byte pos (scopes are in start order, nested ones after). */
static int scope_at(const walker *w, uint32_t pos)
{
    size_t lo = 0, hi = w->scopes.len;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (w->scopes.items[mid].start <= pos)
            lo = mid;
        else
            hi = mid;
    }
    int s = (int)lo;
    while (s > 0 && !(w->scopes.items[s].start <= pos && pos < w->scopes.items[s].end))
        s = w->scopes.items[s].parent;
    return s;
}

static const char *lookup(walker *w, const mn_recv_call *c)
{
    int s = scope_at(w, c->pos);
    char name[130];
    if (c->recv_len == 0 || c->recv_len > 128)
        return NULL;
    snprintf(name, sizeof(name), "%.*s", (int)c->recv_len, c->recv);
    if (type_in(name, w->L->selves)) {
        for (; s > 0; s = w->scopes.items[s].parent)
            if (w->scopes.items[s].owner)
                return w->scopes.items[s].owner;
        return NULL;
    }
    for (; s >= 0; s = w->scopes.items[s].parent) {
        if (w->scopes.items[s].is_class && !w->L->fields_visible)
            continue;
        char key[160];
        snprintf(key, sizeof(key), "%d\x1f%s", s, name);
        size_t ix = (size_t)mn_map_get(&w->by_key, key);
        if (ix)
            return w->binds.items[ix - 1].type;
    }
    return NULL;
}

void mn_receivers_infer(const char *language, TSNode root, const char *src, uint32_t len,
                        mn_recv_call *calls, size_t n, mn_arena *arena)
{
    const rx_lang *L = lang_of(language);
    for (size_t i = 0; i < n; i++)
        calls[i].type = NULL;
    if (!L || !n)
        return;
    walker w;
    memset(&w, 0, sizeof(w));
    w.tmp = (mn_buf)MN_BUF_INIT; /* a zeroed buffer has no string to grow from */
    w.L = L;
    w.src = src;
    w.len = len;
    w.arena = arena;
    walk(&w, root);
    for (size_t i = 0; i < n; i++)
        calls[i].type = lookup(&w, &calls[i]);
    mn_vec_release(&w.scopes);
    mn_vec_release(&w.stack);
    mn_vec_release(&w.binds);
    mn_map_release(&w.by_key);
    mn_buf_release(&w.tmp);
}
