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

/*
 * Follow one line's characters: multi-line strings (*ml: 1 inside """, 2
 * inside '''), one-line strings, comments, and the depth of the arrays a
 * value leaves open across lines (args = [ ... ]), so that a "[" that
 * starts a line inside one is not taken for a table header.
 */
static void scan_chars(const char *p, const char *e, int *ml, int *depth)
{
    while (p < e) {
        if (*ml) {
            const char *delim = *ml == 1 ? "\"\"\"" : "'''";
            if (e - p >= 3 && !memcmp(p, delim, 3)) {
                *ml = 0;
                p += 3;
            } else {
                p += *ml == 1 && *p == '\\' && p + 1 < e ? 2 : 1;
            }
            continue;
        }
        if (*p == '#' || *p == '\n')
            return;
        if (e - p >= 3 && (!memcmp(p, "\"\"\"", 3) || !memcmp(p, "'''", 3))) {
            *ml = *p == '"' ? 1 : 2;
            p += 3;
        } else if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (p < e && *p != q && *p != '\n')
                p += q == '"' && *p == '\\' && p + 1 < e ? 2 : 1;
            if (p < e && *p == q)
                p++;
        } else {
            if (*p == '[')
                (*depth)++;
            else if (*p == ']' && *depth > 0)
                (*depth)--;
            p++;
        }
    }
}

static size_t scan_lines(const char *s, size_t len, tline **out)
{
    size_t n = 0, cap = 0, pos = 0;
    tline *v = NULL;
    int ml = 0, depth = 0;
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
        /* inside a value that goes on: a multi-line string or array */
        l->in_string = ml != 0 || depth > 0;
        const char *p = s + pos, *e = s + end;
        if (!l->in_string) {
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
        if (l->header)
            depth = 0; /* the brackets of a header are not an array */
        else
            scan_chars(s + pos, e, &ml, &depth);
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

/* The key a line of body or of the table names: its word before " =" or "=". */
static mn_slice key_word(const char *p, const char *end)
{
    if (p < end && (*p == '"' || *p == '\'')) { /* "command" = ... is command too */
        const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
        if (q)
            return mn_slice_of(p + 1, (size_t)(q - p - 1));
    }
    const char *k = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '=' && *p != '\n')
        p++;
    return mn_slice_of(k, (size_t)(p - k));
}

/* The line of table line first's key word (and the lines its value goes on), or false. */
static bool find_key(const char *s, const tline *v, size_t n, size_t first, mn_slice word,
                     size_t *from, size_t *to)
{
    for (size_t i = first + 1; i < n && !v[i].header; i++) {
        if (!v[i].key)
            continue;
        mn_slice k = key_word(v[i].key, s + v[i].end);
        if (k.len != word.len || memcmp(k.ptr, word.ptr, word.len))
            continue;
        size_t j = i + 1;
        while (j < n && v[j].in_string)
            j++;
        *from = v[i].start;
        *to = v[j - 1].end;
        return true;
    }
    return false;
}

typedef struct {
    size_t from, to;
    const char *with;
    size_t wlen;
} tedit;

/*
 * The table exists: bring each key line of body up to date where it is,
 * or put it after the header; every other line (the user's keys, comments,
 * sub-tables) stays byte for byte.
 */
static void update_keys(const mn_buf *text, const tline *v, size_t n, size_t first,
                        const char *body, mn_buf *out)
{
    tedit ed[16];
    size_t ne = 0, at = v[first].end;
    bool hdr_nl = at > 0 && text->ptr[at - 1] == '\n';
    for (const char *p = body; *p && ne < MN_ARRAY_SIZE(ed);) {
        const char *nl = strchr(p, '\n');
        size_t llen = nl ? (size_t)(nl - p) + 1 : strlen(p), from, to;
        if (find_key(text->ptr, v, n, first, key_word(p, p + llen), &from, &to)) {
            /* a last line without its newline compares as if it had one */
            bool eof_nl = to == text->len && text->ptr[to - 1] != '\n';
            if (to - from + eof_nl != llen || memcmp(text->ptr + from, p, to - from))
                ed[ne++] = (tedit){from, to, p, llen - eof_nl};
        } else {
            ed[ne++] = (tedit){at, at, p, llen};
        }
        p += llen;
    }
    /* in the order of the text; insertions after the header go first */
    for (size_t i = 1; i < ne; i++)
        for (size_t j = i; j > 0 && (ed[j].from < ed[j - 1].from ||
                                     (ed[j].from == ed[j - 1].from && ed[j].to == ed[j].from &&
                                      ed[j - 1].to != ed[j - 1].from));
             j--) {
            tedit t = ed[j];
            ed[j] = ed[j - 1];
            ed[j - 1] = t;
        }
    size_t pos = 0;
    for (size_t i = 0; i < ne; i++) {
        mn_buf_put(out, text->ptr + pos, ed[i].from - pos);
        if (ed[i].from == at && ed[i].to == at && !hdr_nl) {
            mn_buf_putc(out, '\n');
            hdr_nl = true;
        }
        mn_buf_put(out, ed[i].with, ed[i].wlen);
        pos = ed[i].to;
    }
    if (ne)
        mn_buf_put(out, text->ptr + pos, text->len - pos);
}

int mn_tomledit_set_table(mn_buf *text, const char *name, const char *body, bool *changed)
{
    tline *v = NULL;
    size_t n = scan_lines(text->ptr, text->len, &v), first = 0, last = 0;
    bool found;
    int rc = find_table(text->ptr, v, n, name, &first, &last, &found);
    mn_buf out = MN_BUF_INIT;
    *changed = false;
    if (rc)
        goto out;
    if (found) {
        update_keys(text, v, n, first, body, &out);
        if (!out.len)
            goto out; /* our keys were up to date */
    } else {
        mn_buf_put(&out, text->ptr, text->len);
        if (out.len && out.ptr[out.len - 1] != '\n')
            mn_buf_putc(&out, '\n');
        if (out.len && !(out.len >= 2 && out.ptr[out.len - 2] == '\n'))
            mn_buf_putc(&out, '\n');
        mn_buf_printf(&out, "[%s]\n%s", name, body);
    }
    mn_buf_release(text);
    *text = out;
    mn_buf_init(&out);
    *changed = true;
out:
    free(v);
    mn_buf_release(&out);
    return rc;
}

/* A line with nothing on it (a comment is something). */
static bool empty_line(const tline *l)
{
    return l->blank && !l->in_string && l->end - l->start <= 2;
}

/* Whether a key line names one of body's keys. */
static bool our_key(const char *key, const char *end, const char *body)
{
    mn_slice k = key_word(key, end);
    for (const char *p = body; *p;) {
        const char *nl = strchr(p, '\n');
        size_t llen = nl ? (size_t)(nl - p) + 1 : strlen(p);
        mn_slice b = key_word(p, p + llen);
        if (b.len == k.len && !memcmp(b.ptr, k.ptr, k.len))
            return true;
        p += llen;
    }
    return false;
}

int mn_tomledit_remove_table(mn_buf *text, const char *name, const char *body, bool *changed)
{
    *changed = false;
    size_t nlen = strlen(name);
    tline *v = NULL;
    size_t n = scan_lines(text->ptr, text->len, &v), first = n, last = 0;
    bool found;
    int rc = find_table(text->ptr, v, n, name, &first, &last, &found);
    if (rc || !found)
        goto out;
    /* what we would delete holds only our keys: else it is the user's too */
    for (size_t i = 0; i < n; i++)
        if (v[i].header && !strncmp(v[i].name, name, nlen) && v[i].name[nlen] == '.') {
            rc = mn_error_set(MN_EINVAL,
                              "[%s] has a sub-table [%s] of yours: remove the table by hand", name,
                              v[i].name);
            goto out;
        }
    for (size_t i = first + 1; i <= last; i++)
        if ((v[i].key && !our_key(v[i].key, text->ptr + v[i].end, body)) ||
            (v[i].blank && !empty_line(&v[i]))) {
            rc = mn_error_set(MN_EINVAL,
                              "[%s] holds lines of yours (line %zu): remove the table by hand",
                              name, i + 1);
            goto out;
        }
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
out:
    free(v);
    return rc;
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
