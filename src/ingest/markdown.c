/*
 * markdown.c - documents cut by their headings (markdown.h).
 *
 * One pass over the lines marks the headings (fenced code is skipped: a
 * "# comment" in a shell block is no heading), then the cut level is
 * chosen and the sections are the text between cut headings. Links are
 * read from each section: [text](target) with a relative target (no
 * scheme, no leading '#'), its "#anchor" dropped, resolved against the
 * document's directory ("../" kept within the project: a target that
 * climbs out is dropped); [[Name]] and [[Name|alias]] are Obsidian's
 * wikilinks, resolved by name later (docs.c).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "ingest/markdown.h"
#include "util/yaml.h"

typedef struct {
    size_t line; /* 0-based index of the heading line */
    size_t end;  /* first line after the heading (2 lines for setext) */
    int level;
    char *text;
} heading;

typedef MN_VEC(heading) heading_vec;

typedef struct {
    const char **start;
    size_t *len;
    size_t n;
} lines_t;

static void split_lines(lines_t *l, const char *text, size_t len)
{
    size_t cap = 16;
    l->start = mn_calloc(cap, sizeof(char *));
    l->len = mn_calloc(cap, sizeof(size_t));
    l->n = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l->n == cap) {
            cap *= 2;
            l->start = mn_realloc(l->start, cap * sizeof(char *));
            l->len = mn_realloc(l->len, cap * sizeof(size_t));
        }
        l->start[l->n] = p;
        l->len[l->n++] = n && p[n - 1] == '\r' ? n - 1 : n;
        p = nl ? nl + 1 : end;
    }
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    return true;
}

static bool all_of(const char *s, size_t n, char c, size_t *count)
{
    size_t k = 0;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != c)
            return false;
        k++;
    }
    *count = k;
    return k > 0;
}

static char *heading_text(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '#' || s[n - 1] == '\t'))
        n--; /* closing #s of an ATX heading */
    /* {#custom-id} of some dialects */
    if (n > 2 && s[n - 1] == '}') {
        const char *open = memrchr(s, '{', n);
        if (open && open + 1 < s + n && open[1] == '#')
            n = (size_t)(open - s);
        while (n && s[n - 1] == ' ')
            n--;
    }
    return mn_ingest_one_line(s, n);
}

static bool fence_line(const char *s, size_t n, char *fence)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i + 3 <= n && (s[i] == '`' || s[i] == '~') && s[i + 1] == s[i] && s[i + 2] == s[i]) {
        if (!*fence)
            *fence = s[i];
        else if (*fence == s[i])
            *fence = 0;
        return true;
    }
    return false;
}

static bool is_rst(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && !strcmp(path + n - 4, ".rst")) || (n > 4 && !strcmp(path + n - 4, ".txt"));
}

static void find_markdown(heading_vec *out, const lines_t *l, size_t from)
{
    char fence = 0;
    for (size_t i = from; i < l->n; i++) {
        const char *s = l->start[i];
        size_t n = l->len[i];
        if (fence_line(s, n, &fence) || fence)
            continue;
        size_t h = 0;
        while (h < n && s[h] == '#')
            h++;
        if (h >= 1 && h <= 6 && (h == n || s[h] == ' ' || s[h] == '\t')) {
            heading x = {i, i + 1, (int)h, heading_text(s + h, n - h)};
            if (*x.text)
                mn_vec_push(out, x);
            else
                free(x.text);
            continue;
        }
        /* setext: a text line underlined by === or --- (not a list item, not after a blank) */
        size_t k;
        if (i + 1 < l->n && !blank(s, n) && s[0] != ' ' && s[0] != '-' && s[0] != '*' &&
            s[0] != '|' && s[0] != '>' &&
            (all_of(l->start[i + 1], l->len[i + 1], '=', &k) ||
             (all_of(l->start[i + 1], l->len[i + 1], '-', &k) && k >= 3))) {
            heading x = {i, i + 2, l->start[i + 1][0] == '=' ? 1 : 2, heading_text(s, n)};
            mn_vec_push(out, x);
            i++;
        }
    }
}

static void find_rst(heading_vec *out, const lines_t *l, size_t from)
{
    char order[16][2]; /* (overlined, char) in order of first appearance */
    int norder = 0;
    for (size_t i = from; i + 1 < l->n; i++) {
        const char *s = l->start[i];
        size_t n = l->len[i];
        if (blank(s, n) || s[0] == ' ')
            continue;
        char c = l->start[i + 1][0];
        size_t k;
        if (!c || !ispunct((unsigned char)c) || !all_of(l->start[i + 1], l->len[i + 1], c, &k) ||
            k < 2 || k < mn_utf8_len(s, n))
            continue;
        bool over = i > 0 && l->len[i - 1] == l->len[i + 1] &&
                    all_of(l->start[i - 1], l->len[i - 1], c, &k);
        int level = 0;
        for (int j = 0; j < norder; j++)
            if (order[j][0] == (char)over && order[j][1] == c)
                level = j + 1;
        if (!level && norder < 16) {
            order[norder][0] = (char)over;
            order[norder][1] = c;
            level = ++norder;
        }
        if (!level)
            continue;
        heading x = {over ? i - 1 : i, i + 2, level, heading_text(s, n)};
        mn_vec_push(out, x);
        i++;
    }
}

static char *slug(const char *s)
{
    mn_buf b = MN_BUF_INIT;
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p >= 0x80) {
            if (dash && b.len)
                mn_buf_putc(&b, '-');
            dash = false;
            mn_buf_putc(&b, (char)tolower(*p));
        } else {
            dash = true;
        }
    }
    return b.ptr ? mn_buf_detach(&b) : mn_strdup("section");
}

static char *join_lines(const lines_t *l, size_t from, size_t to)
{
    if (from >= to || from >= l->n)
        return mn_strdup("");
    const char *s = l->start[from];
    const char *e = l->start[to - 1] + l->len[to - 1];
    while (s < e && (*s == '\n' || *s == '\r'))
        s++;
    size_t n = (size_t)(e - s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return mn_strndup(s, n);
}

/* path of target relative to the document's directory, normalised; NULL when it climbs out. */
static char *resolve(const char *doc_path, const char *t, size_t n)
{
    mn_buf b = MN_BUF_INIT;
    const char *slash = strrchr(doc_path, '/');
    if (slash)
        mn_buf_put(&b, doc_path, (size_t)(slash - doc_path) + 1);
    mn_buf_put(&b, t, n);
    /* normalise . and .. */
    char *raw = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    char *parts[256];
    size_t np = 0;
    bool bad = false;
    for (char *tok = raw, *next; tok && !bad; tok = next) {
        char *sep = strchr(tok, '/');
        next = sep ? sep + 1 : NULL;
        if (sep)
            *sep = '\0';
        if (!*tok || !strcmp(tok, "."))
            continue;
        if (!strcmp(tok, "..")) {
            if (np == 0)
                bad = true;
            else
                np--;
            continue;
        }
        if (np < 256)
            parts[np++] = tok;
    }
    mn_buf o = MN_BUF_INIT;
    for (size_t i = 0; i < np && !bad; i++)
        mn_buf_printf(&o, "%s%s", i ? "/" : "", parts[i]);
    free(raw);
    if (bad || !o.len) {
        mn_buf_release(&o);
        return NULL;
    }
    return mn_buf_detach(&o);
}

void mn_md_links(json_t *links, const char *doc_path, const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; p < end && json_array_size(links) < 64; p++) {
        if (p + 2 < end && p[0] == '[' && p[1] == '[') {
            const char *close = memmem(p + 2, (size_t)(end - p - 2), "]]", 2);
            if (!close || close - p > 300)
                continue;
            const char *bar = memchr(p + 2, '|', (size_t)(close - p - 2));
            const char *hash = memchr(p + 2, '#', (size_t)((bar ? bar : close) - p - 2));
            const char *e = hash ? hash : bar ? bar : close;
            if (e > p + 2) {
                mn_buf b = MN_BUF_INIT;
                mn_buf_puts(&b, "wiki:");
                mn_buf_put(&b, p + 2, (size_t)(e - p - 2));
                mn_strv_add(links, b.ptr);
                mn_buf_release(&b);
            }
            p = close + 1;
            continue;
        }
        if (*p != ']' || p + 1 >= end || p[1] != '(')
            continue;
        const char *t = p + 2;
        const char *close = memchr(t, ')', (size_t)(end - t));
        if (!close || close - t > 500)
            continue;
        size_t n = (size_t)(close - t);
        const char *sp = memchr(t, ' ', n); /* (target "title") */
        if (sp)
            n = (size_t)(sp - t);
        const char *hash = memchr(t, '#', n);
        if (hash)
            n = (size_t)(hash - t);
        if (!n || *t == '#' || *t == '/' || memchr(t, ':', n))
            continue; /* an anchor, an absolute path, a URL (scheme:) */
        char *r = resolve(doc_path, t, n);
        if (r)
            mn_strv_add(links, r);
        free(r);
    }
}

int mn_md_parse(mn_md_doc *out, const char *path, const char *text, size_t len)
{
    lines_t l;
    heading_vec hs = MN_VEC_INIT;
    memset(out, 0, sizeof(*out));
    out->links = json_array();
    split_lines(&l, text, len);
    size_t body = 0;
    /* front matter: "---" first, "---" (or "...") closing */
    if (l.n && l.len[0] == 3 && !strncmp(l.start[0], "---", 3)) {
        for (size_t i = 1; i < l.n; i++) {
            if ((l.len[i] == 3 &&
                 (!strncmp(l.start[i], "---", 3) || !strncmp(l.start[i], "...", 3)))) {
                json_t *docs = NULL;
                const char *fs = i > 1 ? l.start[1] : l.start[i];
                size_t fn = i > 1 ? (size_t)(l.start[i] - fs) : 0;
                if (fn && mn_yaml_parse_docs(&docs, fs, fn) == 0 &&
                    json_is_object(json_array_get(docs, 0)))
                    out->front = json_incref(json_array_get(docs, 0));
                mn_error_clear();
                json_decref(docs);
                body = i + 1;
                break;
            }
        }
    }
    if (is_rst(path))
        find_rst(&hs, &l, body);
    else
        find_markdown(&hs, &l, body);
    int top = 7, ntop = 0;
    for (size_t i = 0; i < hs.len; i++)
        if (hs.items[i].level < top)
            top = hs.items[i].level;
    for (size_t i = 0; i < hs.len; i++)
        ntop += hs.items[i].level == top;
    int cut = ntop == 1 ? top + 1 : top;
    const char *ftitle = json_string_value(json_object_get(out->front, "title"));
    if (ftitle && *ftitle)
        out->title = mn_ingest_one_line(ftitle, strlen(ftitle));
    else if (ntop == 1 || (hs.len && hs.items[0].level == top))
        out->title = mn_strdup(hs.items[0].text);
    else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        out->title = mn_strndup(base, dot && dot > base ? (size_t)(dot - base) : strlen(base));
    }
    /* the sections */
    out->sections = mn_calloc(hs.len + 1, sizeof(mn_md_section));
    size_t start = body;
    const char *heading_of = "";
    int level = 0;
    size_t hline = 0;
    json_t *anchors = json_object();
    for (size_t i = 0; i <= hs.len; i++) {
        bool last = i == hs.len;
        if (!last && (hs.items[i].level > cut))
            continue;
        if (!last && ntop == 1 && hs.items[i].level == top) { /* the title line: skip it */
            start = hs.items[i].end;
            continue;
        }
        size_t stop = last ? l.n : hs.items[i].line;
        char *t = join_lines(&l, start, stop);
        if (*t || level > 0) {
            mn_md_section *s = &out->sections[out->nsections++];
            s->heading = mn_strdup(heading_of);
            s->level = level;
            s->text = t;
            s->line = hline + 1;
            char *sl = level ? slug(heading_of) : mn_strdup("preamble");
            json_int_t seen = json_integer_value(json_object_get(anchors, sl));
            json_object_set_new(anchors, sl, json_integer(seen + 1));
            if (seen) {
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "%s-%lld", sl, (long long)seen + 1);
                free(sl);
                sl = mn_buf_detach(&b);
            }
            s->anchor = sl;
            mn_md_links(out->links, path, t, strlen(t));
        } else {
            free(t);
        }
        if (!last) {
            heading_of = hs.items[i].text;
            level = hs.items[i].level;
            hline = hs.items[i].line;
            start = hs.items[i].end;
        }
    }
    json_decref(anchors);
    for (size_t i = 0; i < hs.len; i++)
        free(hs.items[i].text);
    mn_vec_release(&hs);
    free(l.start);
    free(l.len);
    return 0;
}

void mn_md_doc_release(mn_md_doc *d)
{
    json_decref(d->front);
    json_decref(d->links);
    free(d->title);
    for (size_t i = 0; i < d->nsections; i++) {
        free(d->sections[i].heading);
        free(d->sections[i].anchor);
        free(d->sections[i].text);
    }
    free(d->sections);
    memset(d, 0, sizeof(*d));
}

const mn_md_section *mn_md_find(const mn_md_doc *d, const char *names)
{
    for (size_t i = 0; i < d->nsections; i++) {
        const char *h = d->sections[i].heading;
        for (const char *n = names; *n;) {
            size_t len = strcspn(n, "|");
            if (strlen(h) == len && !strncasecmp(h, n, len))
                return &d->sections[i];
            n += len + (n[len] == '|');
        }
    }
    return NULL;
}
