/*
 * parse_docs.c - what a symbol says of itself: a Python docstring, the
 * comment above a definition, and the signature, collapsed to one line
 * (part of parse.c; parse_internal.h). All strings go to the result's arena,
 * capped (MN_PARSE_SIGNATURE_MAX and friends).
 */
#include "index/parse_internal.h"

/* Docstring of a Python function or class, cleaned, or NULL. */
const char *mn_parse__python_docstring(ctx *c, TSNode def)
{
    TSNode body = ts_node_child_by_field_name(def, "body", 4);
    if (ts_node_is_null(body))
        return NULL;
    TSNode first = ts_node_named_child(body, 0);
    if (!mn_parse__node_is(first, "expression_statement"))
        return NULL;
    TSNode s = ts_node_named_child(first, 0);
    if (!mn_parse__node_is(s, "string"))
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
        while (s0 < s1 && mn_parse__is_ws((unsigned char)c->src[s0]))
            s0++;
        while (s1 > s0 && mn_parse__is_ws((unsigned char)c->src[s1 - 1]))
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
    return b->len ? mn_parse__emit_buf(&c->out->arena, b, MN_PARSE_DOCSTRING_MAX) : NULL;
}

bool mn_parse__starts(const char *s, size_t n, const char *lit)
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
        if (mn_parse__starts(s, n, *m)) {
            size_t l = strlen(*m);
            s += l;
            n -= l;
            break;
        }
    }
    while (n && mn_parse__is_ws((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && mn_parse__is_ws((unsigned char)s[n - 1]))
        n--;
    if ((!n && !b->len) || (n && !mn_parse__has_alnum(s, n)))
        return; /* leading blank lines, "# =====" rulers */
    if (b->len)
        mn_buf_putc(b, '\n');
    mn_buf_put(b, s, n);
}

/*
 * The comment block that ends on the line right above `line` (no blank line
 * between): its lines [*top, *bottom]. False when that line is no comment.
 */
bool mn_parse__comment_above(const ctx *c, int64_t line, int64_t *top_out, int64_t *bottom_out)
{
    if (!c->spec || !c->len)
        return false;
    unsigned fl = c->spec->flags;
    int64_t top = 0, bottom = 0; /* comment lines [top, bottom] */
    int64_t l = line - 1;
    for (int steps = 0; l >= 1 && steps < 200; steps++) {
        uint32_t a = mn_parse__line_start(c, l), e = mn_parse__line_end(c, l);
        while (a < e && mn_parse__is_ws((unsigned char)c->src[a]))
            a++;
        while (e > a && mn_parse__is_ws((unsigned char)c->src[e - 1]))
            e--;
        const char *s = c->src + a;
        size_t n = e - a;
        if (!n)
            break;
        if (((fl & F_RUST) && mn_parse__starts(s, n, "#[")) ||
            ((fl & F_CSHARP) && s[0] == '[' && s[n - 1] == ']')) {
            if (bottom)
                break; /* attributes come after the doc comment */
            l--;
            continue;
        }
        if ((fl & C_SLASH) && mn_parse__starts(s, n, "//")) {
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
                ka = mn_parse__line_start(c, k);
                open = memmem(c->src + ka, mn_parse__line_end(c, k) - ka, "/*", 2);
                if (open)
                    break;
            }
            /* only a comment that starts its line, not code with a trailing comment */
            if (!open)
                break;
            while (ka < (uint32_t)(open - c->src) && mn_parse__is_ws((unsigned char)c->src[ka]))
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
        if ((fl & C_HASH) && s[0] == '#' && !(l == 1 && mn_parse__starts(s, n, "#!")) &&
            !((fl & F_RUST) && mn_parse__starts(s, n, "#!"))) {
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
const char *mn_parse__leading_comment(ctx *c, uint32_t at, int64_t *first_line)
{
    if (!c->spec || !c->len)
        return NULL;
    int64_t line = mn_parse__line_of(c, at);
    for (uint32_t i = mn_parse__line_start(c, line); i < at; i++)
        if (!mn_parse__is_ws((unsigned char)c->src[i]))
            return NULL;
    int64_t top, bottom;
    if (!mn_parse__comment_above(c, line, &top, &bottom))
        return NULL;
    mn_buf *b = &c->p->tmp;
    mn_buf_clear(b);
    for (int64_t k = top; k <= bottom && b->len <= 4 * MN_PARSE_DOCSTRING_MAX; k++) {
        uint32_t a = mn_parse__line_start(c, k), e = mn_parse__line_end(c, k);
        while (a < e && mn_parse__is_ws((unsigned char)c->src[a]))
            a++;
        while (e > a && mn_parse__is_ws((unsigned char)c->src[e - 1]))
            e--;
        put_comment_line(b, c->src + a, e - a);
    }
    while (b->len && b->ptr[b->len - 1] == '\n')
        mn_buf_truncate(b, b->len - 1);
    *first_line = top;
    return b->len ? mn_parse__emit_buf(&c->out->arena, b, MN_PARSE_DOCSTRING_MAX) : NULL;
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
        if (mn_parse__type_in(ts_node_type(ch), bodies))
            return ch;
    }
    TSNode none = {0};
    return none;
}

const char *mn_parse__signature_of(ctx *c, const raw_def *d)
{
    uint32_t ns = ts_node_start_byte(d->name);
    int64_t name_line = mn_parse__line_of(c, ns);
    /* from the wrapper when it shares the line ("export const", "type"), else
     * the definition, past lines of annotations ("@Entity", "[Serializable]") */
    uint32_t ds = ts_node_start_byte(d->def);
    uint32_t start = mn_parse__line_of(c, d->start) == mn_parse__line_of(c, ds) ? d->start : ds;
    for (int64_t l = mn_parse__line_of(c, start); l < name_line; l++) {
        const char *s = c->src + start;
        size_t n = mn_parse__line_end(c, l) > start ? mn_parse__line_end(c, l) - start : 0;
        if (!n || !(s[0] == '@' || s[0] == '[' || mn_parse__starts(s, n, "#[")))
            break;
        start = mn_parse__line_start(c, l + 1);
        while (start < ns && mn_parse__is_ws((unsigned char)c->src[start]))
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
        mn_parse__put_collapsed(b, c->src + start, ts_node_start_byte(tbody) - start);
        mn_buf_putc(b, ' ');
        mn_parse__put_collapsed(b, c->src + ns, ts_node_end_byte(d->name) - ns);
        return mn_parse__emit_buf(&c->out->arena, b, MN_PARSE_SIGNATURE_MAX);
    }
    uint32_t end = mn_parse__line_end(c, name_line);
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
    mn_parse__put_collapsed(b, c->src + start, end - start);
    /* trailing '{', ':' (Python), ';' (prototypes), " =" (Ruby's endless def) */
    while (b->len) {
        char last = b->ptr[b->len - 1];
        if (last == '{' || last == ':' || last == ';' || mn_parse__is_ws((unsigned char)last) ||
            (last == '=' && b->len >= 2 && b->ptr[b->len - 2] == ' '))
            mn_buf_truncate(b, b->len - 1);
        else
            break;
    }
    return b->len ? mn_parse__emit_buf(&c->out->arena, b, MN_PARSE_SIGNATURE_MAX) : NULL;
}
