/*
 * jsonedit.c - edit a JSON document as text, touching only what changes.
 *
 * A parse records, for each value, where it lies in the text (its span),
 * and for members where their key starts; containers link their children.
 * An edit is one splice of the text computed from those spans, and the
 * text is parsed again before the next one (the files are small). The
 * parser takes strict JSON plus what JSONC allows (// and block comments,
 * a trailing comma), since VS Code's files may carry both; a comment is
 * kept where it is.
 *
 * Where new text goes and how it looks:
 *  - a member is appended after the last member of its object, on a line
 *    of its own indented like its siblings (a one-line object gets
 *    ", member" instead); an empty object becomes a block;
 *  - removing a member removes it with the comma and the space that tie it
 *    to its neighbour, so inserting then removing restores the bytes;
 *  - values are rendered with the document's indentation unit (that of
 *    the root's first member, else two spaces).
 */
#include "common.h"

#include "agent/agent.h"

#define MAX_DEPTH 256

enum { JN_OBJ, JN_ARR, JN_STR, JN_NUM, JN_LIT };

typedef struct {
    int type;
    size_t start, end;   /* the value: [start, end) */
    size_t mstart;       /* the member's key (objects) or the value (arrays) */
    size_t kstart, kend; /* the key with its quotes */
    int parent, first, last, next, prev;
    size_t count;
} jnode;

typedef struct {
    const char *s;
    size_t len, pos;
    jnode *n;
    size_t nn, cap;
    int depth;
    const char *err;
    size_t errpos;
} jdoc;

static int fail(jdoc *d, const char *msg)
{
    if (!d->err) {
        d->err = msg;
        d->errpos = d->pos;
    }
    return -1;
}

static void skip_ws(jdoc *d)
{
    while (d->pos < d->len) {
        char c = d->s[d->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            d->pos++;
        } else if (c == '/' && d->pos + 1 < d->len && d->s[d->pos + 1] == '/') {
            while (d->pos < d->len && d->s[d->pos] != '\n')
                d->pos++;
        } else if (c == '/' && d->pos + 1 < d->len && d->s[d->pos + 1] == '*') {
            const char *end = memmem(d->s + d->pos + 2, d->len - d->pos - 2, "*/", 2);
            if (!end) {
                fail(d, "unterminated comment");
                d->pos = d->len;
                return;
            }
            d->pos = (size_t)(end - d->s) + 2;
        } else {
            return;
        }
    }
}

static int new_node(jdoc *d, int type, int parent)
{
    if (d->nn == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->n = mn_realloc(d->n, d->cap * sizeof(*d->n));
    }
    jnode *n = &d->n[d->nn];
    memset(n, 0, sizeof(*n));
    n->type = type;
    n->start = n->mstart = d->pos;
    n->parent = parent;
    n->first = n->last = n->next = n->prev = -1;
    return (int)d->nn++;
}

static void link_child(jdoc *d, int parent, int child)
{
    jnode *p = &d->n[parent];
    if (p->last >= 0) {
        d->n[p->last].next = child;
        d->n[child].prev = p->last;
    } else {
        p->first = child;
    }
    p->last = child;
    p->count++;
}

static int scan_string(jdoc *d)
{
    d->pos++; /* the opening quote */
    while (d->pos < d->len) {
        unsigned char c = (unsigned char)d->s[d->pos];
        if (c == '"') {
            d->pos++;
            return 0;
        }
        if (c < 0x20)
            return fail(d, "control character in a string");
        if (c == '\\') {
            if (d->pos + 1 >= d->len)
                break;
            char e = d->s[d->pos + 1];
            if (e == 'u') {
                for (int i = 2; i < 6; i++)
                    if (d->pos + i >= d->len ||
                        !strchr("0123456789abcdefABCDEF", d->s[d->pos + i]) || !d->s[d->pos + i])
                        return fail(d, "bad \\u escape in a string");
                d->pos += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || !e)
                return fail(d, "bad escape in a string");
            d->pos += 2;
            continue;
        }
        d->pos++;
    }
    return fail(d, "unterminated string");
}

static bool digit(jdoc *d)
{
    return d->pos < d->len && d->s[d->pos] >= '0' && d->s[d->pos] <= '9';
}

static int scan_number(jdoc *d)
{
    if (d->s[d->pos] == '-')
        d->pos++;
    if (!digit(d))
        return fail(d, "bad number");
    if (d->s[d->pos] == '0')
        d->pos++;
    else
        while (digit(d))
            d->pos++;
    if (d->pos < d->len && d->s[d->pos] == '.') {
        d->pos++;
        if (!digit(d))
            return fail(d, "bad number");
        while (digit(d))
            d->pos++;
    }
    if (d->pos < d->len && (d->s[d->pos] == 'e' || d->s[d->pos] == 'E')) {
        d->pos++;
        if (d->pos < d->len && (d->s[d->pos] == '+' || d->s[d->pos] == '-'))
            d->pos++;
        if (!digit(d))
            return fail(d, "bad number");
        while (digit(d))
            d->pos++;
    }
    return 0;
}

static int parse_value(jdoc *d, int parent);

static int parse_container(jdoc *d, int self, bool obj)
{
    char close = obj ? '}' : ']';
    if (++d->depth > MAX_DEPTH)
        return fail(d, "nested too deeply");
    d->pos++;
    skip_ws(d);
    while (!d->err) {
        if (d->pos >= d->len)
            return fail(d, obj ? "unterminated object" : "unterminated array");
        if (d->s[d->pos] == close)
            break;
        size_t mstart = d->pos, kstart = 0, kend = 0;
        if (obj) {
            if (d->s[d->pos] != '"')
                return fail(d, "expected a key in quotes");
            kstart = d->pos;
            if (scan_string(d))
                return -1;
            kend = d->pos;
            skip_ws(d);
            if (d->pos >= d->len || d->s[d->pos] != ':')
                return fail(d, "expected ':' after a key");
            d->pos++;
            skip_ws(d);
        }
        int child = parse_value(d, self);
        if (child < 0)
            return -1;
        d->n[child].mstart = mstart;
        d->n[child].kstart = kstart;
        d->n[child].kend = kend;
        link_child(d, self, child);
        skip_ws(d);
        if (d->pos < d->len && d->s[d->pos] == ',') {
            d->pos++;
            skip_ws(d); /* a trailing comma (JSONC) ends at the close below */
        } else if (d->pos < d->len && d->s[d->pos] != close) {
            return fail(d, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    if (d->err)
        return -1;
    d->pos++;
    d->n[self].end = d->pos;
    d->depth--;
    return 0;
}

static int parse_value(jdoc *d, int parent)
{
    if (d->pos >= d->len)
        return fail(d, "expected a value");
    char c = d->s[d->pos];
    int self;
    if (c == '{' || c == '[') {
        self = new_node(d, c == '{' ? JN_OBJ : JN_ARR, parent);
        return parse_container(d, self, c == '{') ? -1 : self;
    }
    if (c == '"') {
        self = new_node(d, JN_STR, parent);
        if (scan_string(d))
            return -1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        self = new_node(d, JN_NUM, parent);
        if (scan_number(d))
            return -1;
    } else {
        static const char *const lits[] = {"true", "false", "null"};
        self = -1;
        for (size_t i = 0; i < MN_ARRAY_SIZE(lits); i++) {
            size_t n = strlen(lits[i]);
            if (d->len - d->pos >= n && !memcmp(d->s + d->pos, lits[i], n)) {
                self = new_node(d, JN_LIT, parent);
                d->pos += n;
                break;
            }
        }
        if (self < 0)
            return fail(d, "unexpected character");
    }
    d->n[self].end = d->pos;
    return self;
}

static void doc_release(jdoc *d)
{
    free(d->n);
    memset(d, 0, sizeof(*d));
}

/* Parse text; the root is node 0 and is an object. An empty text reads as {} (no node). */
static int doc_parse(jdoc *d, const char *text, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->s = text;
    d->len = len;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        d->pos = 3; /* a byte order mark stays where it is */
    skip_ws(d);
    if (!d->err && d->pos >= d->len)
        return 0;
    if (!d->err && d->s[d->pos] != '{')
        fail(d, "the document is not a JSON object");
    if (!d->err && parse_value(d, -1) >= 0)
        skip_ws(d);
    if (!d->err && d->pos < d->len)
        fail(d, "text after the end of the document");
    if (d->err) {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < d->errpos && i < len; i++, col++)
            if (text[i] == '\n') {
                line++;
                col = 0;
            }
        int rc =
            mn_error_set(MN_EINVAL, "invalid JSON at line %zu, column %zu: %s", line, col, d->err);
        doc_release(d);
        return rc;
    }
    return 0;
}

int mn_jsonedit_check(const char *text, size_t len)
{
    jdoc d;
    int rc = doc_parse(&d, text, len);
    doc_release(&d);
    return rc;
}

/* A key of the document equals key (keys with escapes are decoded first). */
static bool key_is(const jdoc *d, const jnode *n, const char *key)
{
    const char *k = d->s + n->kstart + 1;
    size_t klen = n->kend - n->kstart - 2;
    if (!memchr(k, '\\', klen))
        return klen == strlen(key) && !memcmp(k, key, klen);
    json_t *v = json_loadb(d->s + n->kstart, n->kend - n->kstart, JSON_DECODE_ANY, NULL);
    bool same = v && json_is_string(v) && !strcmp(json_string_value(v), key);
    json_decref(v);
    return same;
}

static int child_at(const jdoc *d, int node, const char *comp)
{
    const jnode *n = &d->n[node];
    if (n->type == JN_OBJ && comp[0] != '#') {
        for (int c = n->first; c >= 0; c = d->n[c].next)
            if (key_is(d, &d->n[c], comp))
                return c; /* the first one: a duplicate key is left alone */
    } else if (n->type == JN_ARR && comp[0] == '#') {
        long want = strtol(comp + 1, NULL, 10), i = 0;
        for (int c = n->first; c >= 0; c = d->n[c].next, i++)
            if (i == want)
                return c;
    }
    return -1;
}

/*
 * Follow path from the root: *found is how many components exist, the
 * return value the node of the last one (the root when none). Fails when
 * a component meets a value that is not the container it needs.
 */
static int resolve(const jdoc *d, const char *const *path, size_t depth, size_t *found, int *node)
{
    int cur = 0;
    *found = 0;
    for (size_t i = 0; i < depth; i++) {
        int t = d->n[cur].type;
        bool want_arr = path[i][0] == '#';
        if ((want_arr && t != JN_ARR) || (!want_arr && t != JN_OBJ))
            return mn_error_set(MN_EINVAL, "'%s' is not %s", i ? path[i - 1] : "the document",
                                want_arr ? "an array" : "an object");
        int c = child_at(d, cur, path[i]);
        if (c < 0)
            break;
        cur = c;
        (*found)++;
    }
    *node = cur;
    return 0;
}

static json_t *to_json(const jdoc *d, int node)
{
    const jnode *n = &d->n[node];
    if (n->type == JN_OBJ) {
        json_t *o = json_object();
        for (int c = n->first; c >= 0; c = d->n[c].next) {
            json_t *k = json_loadb(d->s + d->n[c].kstart, d->n[c].kend - d->n[c].kstart,
                                   JSON_DECODE_ANY, NULL);
            json_t *v = to_json(d, c);
            if (k && json_is_string(k) && v)
                json_object_set_new(o, json_string_value(k), v);
            else
                json_decref(v);
            json_decref(k);
        }
        return o;
    }
    if (n->type == JN_ARR) {
        json_t *a = json_array();
        for (int c = n->first; c >= 0; c = d->n[c].next) {
            json_t *v = to_json(d, c);
            json_array_append_new(a, v ? v : json_null());
        }
        return a;
    }
    return json_loadb(d->s + n->start, n->end - n->start, JSON_DECODE_ANY, NULL);
}

int mn_jsonedit_get(json_t **out, const char *text, size_t len, const char *const *path,
                    size_t depth)
{
    jdoc d;
    size_t found;
    int node, rc;
    *out = NULL;
    if ((rc = doc_parse(&d, text, len)) != 0)
        return rc;
    if (d.nn && (rc = resolve(&d, path, depth, &found, &node)) == 0 && found == depth)
        *out = to_json(&d, node);
    doc_release(&d);
    return rc;
}

/* The whitespace that starts the line holding pos. */
static mn_slice line_indent(const jdoc *d, size_t pos)
{
    size_t b = pos;
    while (b > 0 && d->s[b - 1] != '\n')
        b--;
    size_t e = b;
    while (e < d->len && (d->s[e] == ' ' || d->s[e] == '\t'))
        e++;
    return mn_slice_of(d->s + b, e - b);
}

static bool has_newline(const jdoc *d, size_t from, size_t to)
{
    return memchr(d->s + from, '\n', to - from) != NULL;
}

/* The indentation unit: what the root's first member adds, when it starts a line. */
static void indent_unit(const jdoc *d, mn_buf *unit)
{
    if (d->nn && d->n[0].first >= 0) {
        const jnode *c = &d->n[d->n[0].first];
        mn_slice root = line_indent(d, d->n[0].start), ind = line_indent(d, c->mstart);
        if (has_newline(d, d->n[0].start, c->mstart) && ind.len > root.len) {
            mn_buf_put(unit, ind.ptr + root.len, ind.len - root.len);
            return;
        }
    }
    mn_buf_puts(unit, "  ");
}

static void put_scalar(mn_buf *out, const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    mn_buf_puts(out, s ? s : "null");
    free(s);
}

/* value as text; unit NULL: on one line; else blocks indented by unit after indent. */
static void render(mn_buf *out, const json_t *v, const char *indent, const char *unit)
{
    bool obj = json_is_object(v);
    if (!obj && !json_is_array(v)) {
        put_scalar(out, v);
        return;
    }
    size_t n = obj ? json_object_size(v) : json_array_size(v);
    if (n == 0) {
        mn_buf_puts(out, obj ? "{}" : "[]");
        return;
    }
    /* an array of scalars stays on one line, as people write ["-y", "pkg"] */
    bool flat = !obj;
    for (size_t i = 0; flat && i < n; i++)
        flat = !json_is_object(json_array_get(v, i)) && !json_is_array(json_array_get(v, i));
    if (flat)
        unit = NULL;
    mn_buf inner = MN_BUF_INIT;
    if (unit)
        mn_buf_printf(&inner, "%s%s", indent, unit);
    mn_buf_putc(out, obj ? '{' : '[');
    size_t i = 0;
    const char *key;
    json_t *x;
    void *it = obj ? json_object_iter((json_t *)v) : NULL;
    for (i = 0; i < n; i++) {
        if (i)
            mn_buf_putc(out, ',');
        if (unit)
            mn_buf_printf(out, "\n%s", inner.ptr);
        else if (i)
            mn_buf_putc(out, ' ');
        if (obj) {
            key = json_object_iter_key(it);
            x = json_object_iter_value(it);
            it = json_object_iter_next((json_t *)v, it);
            json_t *k = json_string(key);
            put_scalar(out, k);
            json_decref(k);
            mn_buf_puts(out, ": ");
        } else {
            x = json_array_get(v, i);
        }
        render(out, x, inner.ptr, unit);
    }
    if (unit)
        mn_buf_printf(out, "\n%s", indent);
    mn_buf_putc(out, obj ? '}' : ']');
    mn_buf_release(&inner);
}

void mn_jsonedit_render(mn_buf *out, const json_t *value)
{
    render(out, value, "", "  ");
    mn_buf_putc(out, '\n');
}

/* Replace [from, to) of text with with. */
static void splice(mn_buf *text, size_t from, size_t to, const char *with, size_t wlen)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_put(&b, text->ptr, from);
    mn_buf_put(&b, with, wlen);
    mn_buf_put(&b, text->ptr + to, text->len - to);
    mn_buf_release(text);
    *text = b;
}

/* The position of a ',' that follows node (JSONC's trailing comma), or 0. */
static size_t comma_after(jdoc *d, int node)
{
    size_t save = d->pos;
    d->pos = d->n[node].end;
    skip_ws(d);
    size_t at = d->pos < d->len && d->s[d->pos] == ',' ? d->pos : 0;
    d->pos = save;
    return at;
}

/* Insert a member (key non-NULL) or an element into container node. */
static void insert_child(mn_buf *text, jdoc *d, int node, const char *key, const json_t *value)
{
    const jnode *n = &d->n[node];
    mn_buf unit = MN_BUF_INIT, item = MN_BUF_INIT, ins = MN_BUF_INIT, ind = MN_BUF_INIT;
    indent_unit(d, &unit);
    mn_slice base = line_indent(d, n->mstart);
    bool block = n->count == 0 || has_newline(d, n->start, d->n[n->first].mstart);
    if (n->count)
        mn_buf_put(&ind, line_indent(d, d->n[n->first].mstart).ptr,
                   line_indent(d, d->n[n->first].mstart).len);
    if (!n->count || !has_newline(d, n->start, d->n[n->first].mstart)) {
        mn_buf_clear(&ind);
        mn_buf_put(&ind, base.ptr, base.len);
        mn_buf_puts(&ind, unit.ptr);
    }
    if (key) {
        json_t *k = json_string(key);
        put_scalar(&item, k);
        json_decref(k);
        mn_buf_puts(&item, ": ");
    }
    render(&item, value, ind.ptr, block ? unit.ptr : NULL);
    if (n->count == 0) {
        mn_buf_printf(&ins, "%c\n%s%s\n%.*s%c", n->type == JN_OBJ ? '{' : '[', ind.ptr, item.ptr,
                      (int)base.len, base.ptr, n->type == JN_OBJ ? '}' : ']');
        splice(text, n->start, n->end, ins.ptr, ins.len);
    } else {
        size_t comma = comma_after(d, n->last);
        if (block && comma)
            mn_buf_printf(&ins, "\n%s%s,", ind.ptr, item.ptr);
        else if (block)
            mn_buf_printf(&ins, ",\n%s%s", ind.ptr, item.ptr);
        else
            mn_buf_printf(&ins, ", %s", item.ptr);
        size_t at = comma ? comma + 1 : d->n[n->last].end;
        splice(text, at, at, ins.ptr, ins.len);
    }
    mn_buf_release(&unit);
    mn_buf_release(&item);
    mn_buf_release(&ins);
    mn_buf_release(&ind);
}

/* Only blanks in [from, to). */
static bool blank_span(const jdoc *d, size_t from, size_t to)
{
    for (; from < to; from++)
        if (!strchr(" \t\r\n", d->s[from]))
            return false;
    return true;
}

/*
 * Remove child c of its container, with the comma and space that tie it to
 * a neighbour; a comment between it and its neighbour stays (it is the
 * user's, about the neighbour).
 */
static void remove_child(mn_buf *text, jdoc *d, int c)
{
    const jnode *n = &d->n[c], *p = &d->n[n->parent];
    size_t comma = comma_after(d, c);
    if (n->next >= 0) {
        size_t from = n->mstart, to = comma + 1, ls = from, e = to;
        while (ls > 0 && (d->s[ls - 1] == ' ' || d->s[ls - 1] == '\t'))
            ls--;
        while (e < d->len && (d->s[e] == ' ' || d->s[e] == '\t' || d->s[e] == '\r'))
            e++;
        if ((ls == 0 || d->s[ls - 1] == '\n') && e < d->len && d->s[e] == '\n')
            from = ls, to = e + 1; /* our member had its lines: they go */
        else
            to = e; /* on a line with others: the member, its comma, the blanks after */
        if (blank_span(d, comma + 1, d->n[n->next].mstart) && blank_span(d, n->end, comma))
            to = d->n[n->next].mstart, from = n->mstart; /* as it was inserted */
        splice(text, from, to, "", 0);
    } else if (n->prev >= 0) {
        size_t pc = comma_after(d, n->prev);
        if (blank_span(d, pc + 1, n->mstart) && blank_span(d, d->n[n->prev].end, pc)) {
            splice(text, d->n[n->prev].end, n->end, "", 0);
        } else {
            /* a comment before us stays: cut from our line's start, and the comma */
            size_t from = n->mstart;
            while (from > pc + 1 && strchr(" \t\r\n", d->s[from - 1]))
                from--;
            size_t to = comma ? comma + 1 : n->end;
            splice(text, from, to, "", 0);
            if (!comma) /* no trailing comma of ours: the neighbour's goes */
                splice(text, pc, pc + 1, "", 0);
        }
    } else {
        splice(text, p->start, p->end, p->type == JN_OBJ ? "{}" : "[]", 2);
    }
}

/* value wrapped in objects for path[from..depth-1] below the last existing one. */
static json_t *wrap(const char *const *path, size_t from, size_t depth, const json_t *value)
{
    json_t *v = json_deep_copy(value);
    for (size_t i = depth; i-- > from + 1;) {
        json_t *o = json_object();
        json_object_set_new(o, path[i], v);
        v = o;
    }
    return v;
}

static int edit(mn_buf *text, const char *const *path, size_t depth, const json_t *value,
                bool append, bool *changed)
{
    jdoc d;
    size_t found;
    int node, rc;
    *changed = false;
    if ((rc = doc_parse(&d, text->ptr, text->len)) != 0)
        return rc;
    if (!d.nn) { /* an empty file: a new document */
        json_t *root = json_object(), *v = append ? json_pack("[O]", value) : NULL;
        json_object_set_new(root, path[0], wrap(path, 0, depth, v ? v : value));
        json_decref(v);
        mn_buf_clear(text);
        mn_jsonedit_render(text, root);
        json_decref(root);
        *changed = true;
        return 0;
    }
    if ((rc = resolve(&d, path, depth, &found, &node)) != 0)
        goto out;
    if (found == depth && append) {
        if (d.n[node].type != JN_ARR) {
            rc = mn_error_set(MN_EINVAL, "'%s' is not an array", path[depth - 1]);
            goto out;
        }
        insert_child(text, &d, node, NULL, value);
        *changed = true;
    } else if (found == depth) {
        json_t *cur = to_json(&d, node);
        if (!cur || !json_equal(cur, value)) {
            mn_buf unit = MN_BUF_INIT, v = MN_BUF_INIT, ind = MN_BUF_INIT;
            indent_unit(&d, &unit);
            mn_slice base = line_indent(&d, d.n[node].mstart);
            mn_buf_put(&ind, base.ptr, base.len);
            bool block = has_newline(&d, d.n[0].start, d.n[0].end);
            render(&v, value, ind.ptr, block ? unit.ptr : NULL);
            splice(text, d.n[node].start, d.n[node].end, v.ptr, v.len);
            mn_buf_release(&unit);
            mn_buf_release(&v);
            mn_buf_release(&ind);
            *changed = true;
        }
        json_decref(cur);
    } else if (path[found][0] == '#') {
        rc = mn_error_set(MN_EINVAL, "no element %s in '%s'", path[found],
                          found ? path[found - 1] : "the document");
    } else {
        json_t *v = append ? json_pack("[O]", value) : NULL;
        json_t *w = wrap(path, found, depth, v ? v : value);
        insert_child(text, &d, node, path[found], w);
        json_decref(w);
        json_decref(v);
        *changed = true;
    }
out:
    doc_release(&d);
    return rc;
}

int mn_jsonedit_set(mn_buf *text, const char *const *path, size_t depth, const json_t *value,
                    bool *changed)
{
    MN_ASSERT_OR(depth > 0, MN_EINTERNAL);
    return edit(text, path, depth, value, false, changed);
}

int mn_jsonedit_append(mn_buf *text, const char *const *path, size_t depth, const json_t *value)
{
    bool changed;
    MN_ASSERT_OR(depth > 0, MN_EINTERNAL);
    return edit(text, path, depth, value, true, &changed);
}

int mn_jsonedit_remove(mn_buf *text, const char *const *path, size_t depth, size_t keep,
                       bool *changed)
{
    *changed = false;
    while (depth > 0 && (!*changed || depth > keep)) {
        jdoc d;
        size_t found;
        int node, rc;
        if ((rc = doc_parse(&d, text->ptr, text->len)) != 0)
            return rc;
        if (!d.nn || (rc = resolve(&d, path, depth, &found, &node)) != 0 || found < depth ||
            (*changed && d.n[node].count > 0)) {
            doc_release(&d);
            return rc;
        }
        remove_child(text, &d, node);
        *changed = true;
        doc_release(&d);
        depth--; /* then the container, if this left it empty */
    }
    return 0;
}
