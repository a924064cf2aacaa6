/*
 * parse_markdown.c - markdown without a grammar (part of parse.c;
 * parse_internal.h): ATX and setext headings are the symbols (nested by
 * level), fenced code is never a heading, and each section is a chunk.
 */
#include "index/parse_internal.h"

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
    while (l && mn_parse__is_ws((unsigned char)*t)) {
        t++;
        l--;
    }
    while (l && mn_parse__is_ws((unsigned char)t[l - 1]))
        l--;
    /* closing #s, when preceded by a space */
    size_t k = l;
    while (k && t[k - 1] == '#')
        k--;
    if (k < l && (k == 0 || t[k - 1] == ' ' || t[k - 1] == '\t')) {
        l = k;
        while (l && mn_parse__is_ws((unsigned char)t[l - 1]))
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
    while (j < n && mn_parse__is_ws((unsigned char)s[j]))
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

void mn_parse__markdown(ctx *c)
{
    mn_parser *p = c->p;
    mn_parse_result *out = c->out;
    int64_t nl = mn_parse__nlines(c);
    MN_VEC(md_heading) hs = MN_VEC_INIT;
    bool in_fence = false;
    char fch = 0;
    size_t flen = 0;
    int64_t l = 1;
    /* front matter */
    if (nl >= 1) {
        uint32_t a = mn_parse__line_start(c, 1), e = mn_parse__line_end(c, 1);
        if (e - a == 3 && memcmp(c->src + a, "---", 3) == 0) {
            for (int64_t k = 2; k <= nl && k < 500; k++) {
                uint32_t ka = mn_parse__line_start(c, k), ke = mn_parse__line_end(c, k);
                if ((ke - ka == 3 &&
                     (!memcmp(c->src + ka, "---", 3) || !memcmp(c->src + ka, "...", 3)))) {
                    l = k + 1;
                    break;
                }
            }
        }
    }
    for (; l <= nl; l++) {
        uint32_t a = mn_parse__line_start(c, l), e = mn_parse__line_end(c, l);
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
            uint32_t na = mn_parse__line_start(c, l + 1), ne = mn_parse__line_end(c, l + 1);
            int st = md_setext(c->src + na, ne - na);
            if (st) {
                const char *ts = s;
                size_t tl = n;
                while (tl && mn_parse__is_ws((unsigned char)*ts)) {
                    ts++;
                    tl--;
                }
                while (tl && mn_parse__is_ws((unsigned char)ts[tl - 1]))
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
        s.name = mn_parse__emit(&out->arena, c->src + h->text_a, h->text_n, NAME_MAX_LEN);
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
            q->len <= QUALIFIED_MAX ? mn_parse__emit_buf(&out->arena, q, QUALIFIED_MAX) : s.name;
        int64_t end = nl;
        for (size_t j = i + 1; j < nh; j++)
            if (hs.items[j].level <= h->level) {
                end = hs.items[j].line - 1;
                break;
            }
        while (end > h->line && mn_parse__blank_line(c, end))
            end--;
        s.start_line = h->line;
        s.end_line = end;
        s.start_byte = mn_parse__line_start(c, h->line);
        s.end_byte = mn_parse__line_end(c, end);
        uint32_t ha = mn_parse__line_start(c, h->line), he = mn_parse__line_end(c, h->line);
        mn_buf_clear(&p->tmp);
        mn_parse__put_collapsed(&p->tmp, c->src + ha, he - ha);
        s.signature = mn_parse__emit_buf(&out->arena, &p->tmp, MN_PARSE_SIGNATURE_MAX);
        mn_parse__hash_hex(c->src + s.start_byte, (size_t)(s.end_byte - s.start_byte), s.hash);
        mn_vec_push(&out->symbols, s);
    }
    /* chunks: the preamble in windows, each section's own lines */
    int64_t first = nh ? hs.items[0].line : nl + 1;
    if (first > 1)
        mn_parse__gap_chunks(c, -1, 1, first - 1);
    for (size_t i = 0; i < nh; i++) {
        int64_t l0 = hs.items[i].line;
        int64_t l1 = i + 1 < nh ? hs.items[i + 1].line - 1 : nl;
        while (l1 > l0 && mn_parse__blank_line(c, l1))
            l1--;
        mn_parse__span_chunks(c, (int)i, l0, l1, mn_parse__line_start(c, l0),
                              mn_parse__line_end(c, l1));
    }
    mn_vec_release(&hs);
}
