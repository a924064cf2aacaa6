/*
 * gitattrs.c - the linguist attributes of a project's root .gitattributes
 * (gitattrs.h).
 */
#include "common.h"

#include "index/gitattrs.h"
#include "index/walk.h"
#include "util/buf.h"
#include "util/util.h"

#define NOT_NAMED (-1) /* the line does not name the attribute */

struct mn_gitattrs_rule {
    char *pattern;
    bool basename; /* no '/' in the pattern: it matches a name at any depth */
    signed char generated, vendored, documentation; /* an mn_attr_state, or NOT_NAMED */
};

static const char *const attr_names[3] = {"linguist-generated", "linguist-vendored",
                                          "linguist-documentation"};

static signed char *attr_slot(struct mn_gitattrs_rule *r, int i)
{
    return i == 0 ? &r->generated : i == 1 ? &r->vendored : &r->documentation;
}

/* One attribute token: its index in attr_names and its state, or -1 for the others. */
static int attr_of(const char *tok, size_t len, signed char *state)
{
    mn_attr_state st = MN_ATTR_SET;
    if (len && (*tok == '-' || *tok == '!')) {
        st = *tok == '-' ? MN_ATTR_UNSET : MN_ATTR_UNSPECIFIED;
        tok++, len--;
    }
    const char *eq = memchr(tok, '=', len);
    size_t nlen = eq ? (size_t)(eq - tok) : len;
    for (int i = 0; i < 3; i++) {
        if (strlen(attr_names[i]) != nlen || memcmp(tok, attr_names[i], nlen) != 0)
            continue;
        if (eq) { /* Linguist reads "true" and "false"; other values say nothing */
            size_t vlen = len - nlen - 1;
            if (st != MN_ATTR_SET)
                return -1;
            if (vlen == 4 && !memcmp(eq + 1, "true", 4))
                st = MN_ATTR_SET;
            else if (vlen == 5 && !memcmp(eq + 1, "false", 5))
                st = MN_ATTR_UNSET;
            else
                return -1;
        }
        *state = (signed char)st;
        return i;
    }
    return -1;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void fnv(uint64_t *h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ (unsigned char)s[i]) * 1099511628211ull;
}

/* One line of the file: a rule kept when its pattern is one we read and it names an attribute. */
static void parse_line(mn_gitattrs *out, const char *p, const char *end, uint64_t *h)
{
    while (p < end && is_space(*p))
        p++;
    /* a comment, a macro, a quoted pattern (not read) or a negative one (git refuses it) */
    if (p == end || *p == '#' || *p == '"' || *p == '!' ||
        (end - p >= 6 && !memcmp(p, "[attr]", 6)))
        return;
    const char *pat = p;
    while (p < end && !is_space(*p))
        p++;
    size_t plen = (size_t)(p - pat);
    if (plen && pat[plen - 1] == '/') /* matches directories only: no file's attribute */
        return;
    struct mn_gitattrs_rule r = {NULL, false, NOT_NAMED, NOT_NAMED, NOT_NAMED};
    bool named = false;
    while (p < end) {
        while (p < end && is_space(*p))
            p++;
        const char *tok = p;
        while (p < end && !is_space(*p))
            p++;
        signed char st;
        int i = tok < p ? attr_of(tok, (size_t)(p - tok), &st) : -1;
        if (i >= 0) {
            *attr_slot(&r, i) = st;
            named = true;
        }
    }
    if (!named || out->n >= MN_GITATTRS_RULES)
        return;
    if (*pat == '/') /* anchored at the root, where this file is */
        pat++, plen--;
    if (!plen)
        return;
    r.pattern = mn_strndup(pat, plen);
    r.basename = !memchr(r.pattern, '/', plen);
    out->rules[out->n++] = r;
    fnv(h, pat, plen);
    char states[3] = {(char)('0' + r.generated + 1), (char)('0' + r.vendored + 1),
                      (char)('0' + r.documentation + 1)};
    fnv(h, states, sizeof(states));
}

void mn_gitattrs_parse(mn_gitattrs *out, const char *text, size_t len)
{
    memset(out, 0, sizeof(*out));
    if (!text || !len)
        return;
    out->rules = mn_calloc(MN_GITATTRS_RULES, sizeof(*out->rules));
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        parse_line(out, p, le, &h);
        p = nl ? nl + 1 : end;
    }
    out->hash = out->n ? h : 0;
}

void mn_gitattrs_read(mn_gitattrs *out, const char *root)
{
    memset(out, 0, sizeof(*out));
    if (!root)
        return;
    mn_buf path = MN_BUF_INIT, text = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/.gitattributes", root);
    if (mn_fs_read_regular(&text, path.ptr, MN_GITATTRS_READ_MAX) == 0 &&
        !memchr(text.ptr, '\0', text.len))
        mn_gitattrs_parse(out, text.ptr, text.len);
    mn_error_clear();
    mn_buf_release(&text);
    mn_buf_release(&path);
}

mn_linguist mn_gitattrs_lookup(const mn_gitattrs *a, const char *path)
{
    mn_linguist out = {MN_ATTR_UNSPECIFIED, MN_ATTR_UNSPECIFIED, MN_ATTR_UNSPECIFIED};
    if (!a || !path)
        return out;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    for (size_t i = 0; i < a->n; i++) {
        const struct mn_gitattrs_rule *r = &a->rules[i];
        if (!mn_index__wildmatch(r->pattern, r->basename ? base : path))
            continue;
        if (r->generated != NOT_NAMED)
            out.generated = (mn_attr_state)r->generated;
        if (r->vendored != NOT_NAMED)
            out.vendored = (mn_attr_state)r->vendored;
        if (r->documentation != NOT_NAMED)
            out.documentation = (mn_attr_state)r->documentation;
    }
    return out;
}

void mn_gitattrs_release(mn_gitattrs *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        free(a->rules[i].pattern);
    free(a->rules);
    memset(a, 0, sizeof(*a));
}
