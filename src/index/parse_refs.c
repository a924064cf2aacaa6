/*
 * parse_refs.c - a file's references: imports in each language's form, calls
 * (with their receivers), base types; then each reference is given its
 * enclosing symbol and repeats are merged into one with a count (part of
 * parse.c; parse_internal.h).
 *
 * Every target goes through the result's arena (emit); import forms that
 * nest (Rust use trees) are expanded with a budget, not by recursion
 * without bound.
 */
#include "index/receivers.h"
#include "index/parse_internal.h"

static const char *const ref_kind_names[] = {"import", "call", "inherit"};

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
    while (a < e && mn_parse__is_ws((unsigned char)c->src[a]))
        a++;
    while (e > a && mn_parse__is_ws((unsigned char)c->src[e - 1]))
        e--;
    if (e - a >= 2) {
        char q = c->src[a];
        if ((q == '"' || q == '\'' || q == '`') && c->src[e - 1] == q) {
            a++;
            e--;
        }
    }
    mn_parse__put_collapsed(b, c->src + a, e - a);
}

static void put_node(const ctx *c, mn_buf *b, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    mn_parse__put_collapsed(b, c->src + a, e - a);
}

static void import_buf(ctx *c, uint32_t pos, mn_buf *b)
{
    if (b->len)
        push_ref(c, REF_IMPORT, pos, mn_parse__emit_buf(&c->out->arena, b, TARGET_MAX), NULL);
}

void mn_parse__import_simple(ctx *c, TSNode n, uint8_t role)
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
void mn_parse__import_python_from(ctx *c, TSNode n)
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
        if (mn_parse__node_is(nm, "aliased_import"))
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
void mn_parse__import_rust_tree(ctx *c, TSNode n, mn_buf *prefix, uint32_t pos, int depth,
                                int *budget)
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
        mn_parse__import_rust_tree(c, ts_node_child_by_field_name(n, "list", 4), prefix, pos,
                                   depth + 1, budget);
    } else if (strcmp(t, "use_list") == 0) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i<cnt && * budget> 0; i++)
            mn_parse__import_rust_tree(c, ts_node_named_child(n, i), prefix, pos, depth + 1,
                                       budget);
    } else if (strcmp(t, "use_as_clause") == 0) {
        mn_parse__import_rust_tree(c, ts_node_child_by_field_name(n, "path", 4), prefix, pos,
                                   depth + 1, budget);
    } else if (strcmp(t, "use_wildcard") == 0) {
        TSNode inner = ts_node_named_child(n, 0);
        if (!ts_node_is_null(inner))
            mn_parse__import_rust_tree(c, inner, prefix, pos, depth + 1, budget);
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

void mn_parse__import_decl(ctx *c, TSNode n)
{
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    uint32_t cnt = ts_node_named_child_count(n);
    if (mn_parse__node_is(n, "import_declaration")) {
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
            if (mn_parse__node_is(ts_node_child(n, i), "static"))
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
            if (mn_parse__node_is(ch, "qualified_name") || mn_parse__node_is(ch, "identifier"))
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
        if (mn_parse__node_is(ch, "name") || mn_parse__node_is(ch, "qualified_name") ||
            mn_parse__node_is(ch, "namespace_name"))
            return ch;
    }
    TSNode none = {0};
    return none;
}

void mn_parse__import_php(ctx *c, TSNode n)
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
        if (!mn_parse__node_is(cl, "namespace_use_clause"))
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
bool mn_parse__normalize_dotted(mn_buf *b, bool strip_receiver)
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
void mn_parse__add_call(ctx *c, TSNode name)
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
    if (!mn_parse__normalize_dotted(b, true)) {
        mn_buf_clear(b);
        put_node(c, b, name);
        if (!mn_parse__normalize_dotted(b, true))
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
    push_ref(c, REF_CALL, ns, mn_parse__emit_buf(&c->out->arena, b, TARGET_MAX), NULL);
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
void mn_parse__type_receivers(ctx *c, TSNode root, const char *language)
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
        r->target = mn_parse__emit_buf(&c->out->arena, b, TARGET_MAX);
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
        if (mn_parse__is_ws((unsigned char)ch) || ch == '*' || ch == '&')
            continue;
        mn_buf_putc(b, ch);
    }
    if (!mn_parse__normalize_dotted(b, false))
        return NULL;
    return mn_parse__emit_buf(&c->out->arena, b, TARGET_MAX);
}

void mn_parse__add_inherit(ctx *c, TSNode base, TSNode owner)
{
    const char *target = type_name(c, base, &c->p->tmp);
    if (!target)
        return;
    const char *own = NULL;
    if (!ts_node_is_null(owner)) {
        TSNode ty = mn_parse__base_type(owner);
        own = type_name(c, ty, &c->p->tmp);
    }
    push_ref(c, REF_INHERIT, ts_node_start_byte(base), target, own);
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

void mn_parse__build_refs(ctx *c)
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
                if (!strcmp(sy[j].name, r->owner) &&
                    mn_parse__kind_is(sy[j].kind, mn_parse__classlike)) {
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
