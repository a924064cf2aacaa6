/*
 * tomledit.c - put or remove one TOML table of our own, as lines of text.
 *
 * Codex keeps its settings in a TOML file that people write by hand, with
 * comments and an order of their own, so mnemo never re-serialises it: it
 * finds the lines of its table ([mcp_servers.mnemo]) and replaces or
 * deletes just those. A line scanner is enough for that: it knows table
 * headers (with quoted or spaced name parts), multi-line strings (so a
 * "[" inside one is not a header), and keys. A table ends at the next
 * header; its comments and blank lines at the end belong to what follows.
 *
 * It refuses (MN_EINVAL) when the table is defined in a way a textual edit
 * could break: as an inline table or dotted keys (mcp_servers = {...},
 * mcp_servers.mnemo.command = ..., or mnemo = {...} under [mcp_servers]).
 */
#include "common.h"

#include "agent/agent.h"

typedef struct {
    size_t start, end; /* the line, with its newline */
    bool header;       /* a [table] or [[array]] header */
    bool blank;        /* only blanks or a comment */
    bool in_string;    /* inside a multi-line string */
    char name[256];    /* the header's normalised name ("a.b") */
    const char *key;   /* first character of a key line */
} tline;

/* Normalise a header name: parts unquoted, blanks around dots dropped. */
static void header_name(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    while (p < end && *p != ']') {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && (*p == '"' || *p == '\'')) {
            char q = *p++;
            while (p < end && *p != q && n + 1 < cap)
                out[n++] = *p++;
            if (p < end)
                p++;
        } else {
            while (p < end && *p != '.' && *p != ']' && *p != ' ' && *p != '\t' && n + 1 < cap)
                out[n++] = *p++;
        }
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p == '.' && n + 1 < cap) {
            out[n++] = '.';
            p++;
        } else if (p < end && *p != ']') {
            break;
        }
    }
    out[n] = '\0';
}

static size_t count_delims(const char *p, const char *end, const char *delim)
{
    size_t n = 0;
    for (; p + 3 <= end; p++)
        if (!memcmp(p, delim, 3)) {
            n++;
            p += 2;
        }
    return n;
}

static size_t scan_lines(const char *s, size_t len, tline **out)
{
    size_t n = 0, cap = 0, pos = 0;
    tline *v = NULL;
    int ml = 0; /* 0, or 1 inside """, 2 inside ''' */
    while (pos < len) {
        const char *nl = memchr(s + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - s) + 1 : len;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = mn_realloc(v, cap * sizeof(*v));
        }
        tline *l = &v[n++];
        memset(l, 0, sizeof(*l));
        l->start = pos;
        l->end = end;
        l->in_string = ml != 0;
        const char *p = s + pos, *e = s + end;
        if (!ml) {
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            l->blank = p == e || *p == '\n' || *p == '\r' || *p == '#';
            if (!l->blank && *p == '[') {
                l->header = true;
                const char *q = p + 1 + (p + 1 < e && p[1] == '[');
                header_name(q, e, l->name, sizeof(l->name));
            } else if (!l->blank) {
                l->key = p;
            }
        }
        /* an odd number of delimiters opens or closes a multi-line string */
        if (ml != 2 && count_delims(s + pos, e, "\"\"\"") % 2)
            ml = ml ? 0 : 1;
        else if (ml != 1 && count_delims(s + pos, e, "'''") % 2)
            ml = ml ? 0 : 2;
        pos = end;
    }
    *out = v;
    return n;
}

static bool key_starts(const char *key, const char *end, const char *word)
{
    size_t n = strlen(word);
    if (*key == '"' || *key == '\'')
        key++;
    if ((size_t)(end - key) < n || memcmp(key, word, n) != 0)
        return false;
    char c = key[n];
    return c == ' ' || c == '\t' || c == '=' || c == '.' || c == '"' || c == '\'';
}

/*
 * Find the table: *first and *last are the lines of its header and of its
 * last key (the same line for an empty table); *found false when absent.
 */
static int find_table(const char *s, tline *v, size_t n, const char *name, size_t *first,
                      size_t *last, bool *found)
{
    /* name's parent table ("mcp_servers") and our key in it ("mnemo") */
    const char *dot = strrchr(name, '.');
    char parent[256] = "";
    const char *leaf = dot ? dot + 1 : name;
    if (dot && (size_t)(dot - name) < sizeof(parent))
        snprintf(parent, sizeof(parent), "%.*s", (int)(dot - name), name);
    const char *cur = "";
    *found = false;
    for (size_t i = 0; i < n; i++) {
        if (v[i].header) {
            cur = v[i].name;
            if (!*found && !strcmp(cur, name)) {
                *found = true;
                *first = *last = i;
            }
            continue;
        }
        if (*found && !strcmp(cur, name) && v[i].in_string)
            *last = i;
        if (!v[i].key)
            continue;
        const char *e = s + v[i].end;
        /* root: "mcp_servers = {" or "mcp_servers.mnemo..."; parent: "mnemo = " */
        if ((!*cur && *parent && key_starts(v[i].key, e, parent)) ||
            (*parent && !strcmp(cur, parent) && key_starts(v[i].key, e, leaf)))
            return mn_error_set(MN_EINVAL,
                                "'%s' is defined with keys or an inline table, not as a [%s] "
                                "table: change it by hand",
                                name, name);
        if (*found && !strcmp(cur, name))
            *last = i;
    }
    return 0;
}

int mn_tomledit_set_table(mn_buf *text, const char *name, const char *body, bool *changed)
{
    tline *v = NULL;
    size_t n = scan_lines(text->ptr, text->len, &v), first = 0, last = 0;
    bool found;
    int rc = find_table(text->ptr, v, n, name, &first, &last, &found);
    mn_buf block = MN_BUF_INIT, out = MN_BUF_INIT;
    *changed = false;
    if (rc)
        goto out;
    mn_buf_printf(&block, "[%s]\n%s", name, body);
    if (found) {
        size_t from = v[first].start, to = v[last].end;
        /* a last line without its newline compares as if it had one */
        bool eof_nl = to == text->len && (to == 0 || text->ptr[to - 1] != '\n');
        if (to - from + eof_nl == block.len && !memcmp(text->ptr + from, block.ptr, to - from))
            goto out;
        mn_buf_put(&out, text->ptr, from);
        mn_buf_put(&out, block.ptr, block.len - (eof_nl ? 1 : 0));
        mn_buf_put(&out, text->ptr + to, text->len - to);
    } else {
        mn_buf_put(&out, text->ptr, text->len);
        if (out.len && out.ptr[out.len - 1] != '\n')
            mn_buf_putc(&out, '\n');
        if (out.len && !(out.len >= 2 && out.ptr[out.len - 2] == '\n'))
            mn_buf_putc(&out, '\n');
        mn_buf_put(&out, block.ptr, block.len);
    }
    mn_buf_release(text);
    *text = out;
    mn_buf_init(&out);
    *changed = true;
out:
    free(v);
    mn_buf_release(&block);
    mn_buf_release(&out);
    return rc;
}

/* A line with nothing on it (a comment is something). */
static bool empty_line(const tline *l)
{
    return l->blank && !l->in_string && l->end - l->start <= 2;
}

int mn_tomledit_remove_table(mn_buf *text, const char *name, bool *changed)
{
    *changed = false;
    size_t nlen = strlen(name);
    for (;;) {
        tline *v = NULL;
        size_t n = scan_lines(text->ptr, text->len, &v), first = n, last = 0;
        bool found;
        int rc = find_table(text->ptr, v, n, name, &first, &last, &found);
        if (rc) {
            free(v);
            return rc;
        }
        /* the table, or else a sub-table [name.*] of it */
        for (size_t i = 0; !found && i < n; i++)
            if (v[i].header && !strncmp(v[i].name, name, nlen) && v[i].name[nlen] == '.') {
                found = true;
                first = last = i;
            }
        if (!found) {
            free(v);
            return 0;
        }
        for (size_t i = first + 1; i < n && !v[i].header; i++)
            if (!v[i].blank || v[i].in_string)
                last = i;
        size_t from = v[first].start, to = v[last].end;
        /* the blank line put before it, when nothing follows or a blank line does */
        if (first > 0 && empty_line(&v[first - 1]) && (last + 1 == n || empty_line(&v[last + 1])))
            from = v[first - 1].start;
        mn_buf out = MN_BUF_INIT;
        mn_buf_put(&out, text->ptr, from);
        mn_buf_put(&out, text->ptr + to, text->len - to);
        mn_buf_release(text);
        *text = out;
        *changed = true;
        free(v);
    }
}

void mn_toml_quote(mn_buf *out, const char *s)
{
    mn_buf_putc(out, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            mn_buf_printf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            mn_buf_printf(out, "\\u%04x", c);
        else
            mn_buf_putc(out, (char)c);
    }
    mn_buf_putc(out, '"');
}
