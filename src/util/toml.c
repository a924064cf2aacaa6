/*
 * toml.c - TOML text read into JSON values (toml.h says what comes out).
 *
 * A recursive-descent reader over the bytes, with no tokenizer: t_space
 * skips white space, comments and newlines, t_key reads a dotted key as an
 * array of its parts, t_value a value of any type, and mn_toml_parse the
 * lines (a [table], a [[table array]], or key = value followed by the end
 * of the line). Invariants: t->p never passes t->end; every value a
 * function returns is a new reference, or NULL after a syntax error, which
 * leaves no partial value in the document; `cur` is always an object
 * inside the root, so a key is set only where a table exists.
 */
#include "common.h"

#include "util/buf.h"
#include "util/toml.h"

typedef struct {
    const char *p, *end;
    int depth;
} toml;

static void t_ws(toml *t)
{
    while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
        t->p++;
}

static void t_comment(toml *t)
{
    if (t->p < t->end && *t->p == '#')
        while (t->p < t->end && *t->p != '\n')
            t->p++;
}

/* White space, comments and newlines. */
static void t_space(toml *t)
{
    for (;;) {
        t_ws(t);
        t_comment(t);
        if (t->p < t->end && (*t->p == '\n' || *t->p == '\r')) {
            t->p++;
            continue;
        }
        return;
    }
}

/* The rest of a line: white space, a comment, then a newline or the end. */
static bool t_eol(toml *t)
{
    t_ws(t);
    t_comment(t);
    if (t->p < t->end && *t->p == '\r')
        t->p++;
    if (t->p >= t->end)
        return true;
    if (*t->p == '\n') {
        t->p++;
        return true;
    }
    return false;
}

static void put_utf8(mn_buf *b, uint32_t c)
{
    char u[4];
    size_t n;
    if (c < 0x80) {
        u[0] = (char)c, n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | (c >> 6)), u[1] = (char)(0x80 | (c & 0x3F)), n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | (c >> 12)), u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F)), n = 3;
    } else {
        u[0] = (char)(0xF0 | (c >> 18)), u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3F)), u[3] = (char)(0x80 | (c & 0x3F)), n = 4;
    }
    mn_buf_put(b, u, n);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A basic ("...", """...""") or literal ('...', '''...''') string at t->p. */
static json_t *t_string(toml *t)
{
    char q = *t->p;
    bool multi = t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q;
    mn_buf b = MN_BUF_INIT;
    t->p += multi ? 3 : 1;
    if (multi && t->p < t->end && *t->p == '\r')
        t->p++;
    if (multi && t->p < t->end && *t->p == '\n')
        t->p++;
    for (;;) {
        if (t->p >= t->end)
            goto fail;
        char c = *t->p;
        if (c == q) {
            if (!multi) {
                t->p++;
                break;
            }
            if (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q) {
                size_t extra = 0; /* """"" ends with two quotes of content */
                while (extra < 2 && t->p + 3 + extra < t->end && t->p[3 + extra] == q)
                    extra++;
                mn_buf_put(&b, t->p, extra);
                t->p += 3 + extra;
                break;
            }
        } else if (!multi && (c == '\n' || c == '\r')) {
            goto fail;
        } else if (q == '"' && c == '\\') {
            if (++t->p >= t->end)
                goto fail;
            char e = *t->p++;
            const char *simple = strchr("btnfr\"\\e", e);
            if (e && simple) {
                static const char out[] = "\b\t\n\f\r\"\\\x1b";
                mn_buf_putc(&b, out[simple - "btnfr\"\\e"]);
                continue;
            }
            if (e == 'u' || e == 'U') {
                int n = e == 'u' ? 4 : 8;
                uint32_t cp = 0;
                if (t->end - t->p < n)
                    goto fail;
                for (int i = 0; i < n; i++) {
                    int h = hexval(t->p[i]);
                    if (h < 0)
                        goto fail;
                    cp = cp * 16 + (uint32_t)h;
                }
                t->p += n;
                if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                    goto fail;
                put_utf8(&b, cp);
                continue;
            }
            if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
                /* a line-ending backslash eats the white space that follows */
                while (t->p < t->end &&
                       (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r'))
                    t->p++;
                continue;
            }
            goto fail;
        }
        mn_buf_putc(&b, c);
        t->p++;
    }
    json_t *s = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return s;
fail:
    mn_buf_release(&b);
    return NULL;
}

static bool t_bare(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* A dotted key as an array of its parts. */
static json_t *t_key(toml *t)
{
    json_t *parts = json_array();
    for (;;) {
        json_t *k = NULL;
        t_ws(t);
        if (t->p < t->end && (*t->p == '"' || *t->p == '\'')) {
            if (!(t->end - t->p >= 3 && t->p[1] == *t->p && t->p[2] == *t->p))
                k = t_string(t);
        } else {
            const char *s = t->p;
            while (t->p < t->end && t_bare(*t->p))
                t->p++;
            if (t->p > s)
                k = json_stringn(s, (size_t)(t->p - s));
        }
        if (!k) {
            json_decref(parts);
            return NULL;
        }
        json_array_append_new(parts, k);
        t_ws(t);
        if (t->p < t->end && *t->p == '.') {
            t->p++;
            continue;
        }
        return parts;
    }
}

/* The table at keys[0..n) below tbl, created as needed (arrays of tables: their last). */
static json_t *t_descend(json_t *tbl, const json_t *keys, size_t n)
{
    for (size_t i = 0; i < n && tbl; i++) {
        const char *k = json_string_value(json_array_get(keys, i));
        json_t *v = json_object_get(tbl, k);
        if (!v) {
            v = json_object();
            json_object_set_new(tbl, k, v);
        }
        if (json_is_array(v))
            v = json_array_get(v, json_array_size(v) - 1);
        tbl = json_is_object(v) ? v : NULL;
    }
    return tbl;
}

/* tbl[keys...] = v (stolen); false when a key on the way is not a table. */
static bool t_set(json_t *tbl, const json_t *keys, json_t *v)
{
    size_t n = json_array_size(keys);
    json_t *parent = t_descend(tbl, keys, n - 1);
    if (!parent) {
        json_decref(v);
        return false;
    }
    json_object_set_new(parent, json_string_value(json_array_get(keys, n - 1)), v);
    return true;
}

static json_t *t_scalar(const char *s, size_t n)
{
    char tmp[64], *end;
    size_t j = 0;
    if (n == 4 && !memcmp(s, "true", 4))
        return json_true();
    if (n == 5 && !memcmp(s, "false", 5))
        return json_false();
    if (n < sizeof(tmp)) {
        for (size_t i = 0; i < n; i++)
            if (s[i] != '_')
                tmp[j++] = s[i];
        tmp[j] = '\0';
        int base = 10;
        const char *num = tmp;
        if (j > 2 && tmp[0] == '0' && (tmp[1] == 'x' || tmp[1] == 'o' || tmp[1] == 'b')) {
            base = tmp[1] == 'x' ? 16 : tmp[1] == 'o' ? 8 : 2;
            num = tmp + 2;
        }
        errno = 0;
        long long v = strtoll(num, &end, base);
        if (j && !*end && !errno && end != num)
            return json_integer(v);
        double dv = strtod(tmp, &end);
        if (j && !*end && end != tmp && dv == dv && dv - dv == 0)
            return json_real(dv);
    }
    return json_stringn(s, n); /* dates, times, inf, nan: kept as text */
}

static json_t *t_value(toml *t)
{
    json_t *v = NULL;
    if (t->p >= t->end || t->depth >= 64)
        return NULL;
    t->depth++;
    char c = *t->p;
    if (c == '"' || c == '\'') {
        v = t_string(t);
    } else if (c == '[') {
        t->p++;
        v = json_array();
        for (;;) {
            t_space(t);
            if (t->p < t->end && *t->p == ']') {
                t->p++;
                break;
            }
            json_t *e = t_value(t);
            if (!e)
                goto fail;
            json_array_append_new(v, e);
            t_space(t);
            if (t->p < t->end && *t->p == ',') {
                t->p++;
                continue;
            }
            if (t->p < t->end && *t->p == ']') {
                t->p++;
                break;
            }
            goto fail;
        }
    } else if (c == '{') {
        t->p++;
        v = json_object();
        for (;;) {
            t_space(t);
            if (t->p < t->end && *t->p == '}') {
                t->p++;
                break;
            }
            json_t *k = t_key(t);
            if (!k)
                goto fail;
            t_ws(t);
            if (t->p >= t->end || *t->p != '=') {
                json_decref(k);
                goto fail;
            }
            t->p++;
            t_ws(t);
            json_t *e = t_value(t);
            bool ok = e && t_set(v, k, e);
            json_decref(k);
            if (!ok)
                goto fail;
            t_space(t);
            if (t->p < t->end && *t->p == ',') {
                t->p++;
                continue;
            }
            if (t->p < t->end && *t->p == '}') {
                t->p++;
                break;
            }
            goto fail;
        }
    } else {
        const char *s = t->p;
        while (t->p < t->end && !strchr(" \t\r\n,]}#", *t->p))
            t->p++;
        /* a date and a time separated by a space */
        if (t->p - s == 10 && s[4] == '-' && s[7] == '-' && t->end - t->p > 1 && *t->p == ' ' &&
            t->p[1] >= '0' && t->p[1] <= '9') {
            t->p++;
            while (t->p < t->end && !strchr(" \t\r\n,]}#", *t->p))
                t->p++;
        }
        if (t->p == s)
            goto fail;
        v = t_scalar(s, (size_t)(t->p - s));
    }
    t->depth--;
    return v;
fail:
    t->depth--;
    json_decref(v);
    return NULL;
}

/* The 1-based line of position p in text. */
static size_t line_of(const char *text, const char *p)
{
    size_t n = 1;
    for (const char *c = text; c < p; c++)
        n += *c == '\n';
    return n;
}

int mn_toml_parse(json_t **out, const char *text, size_t len)
{
    toml t = {text, text + len, 0};
    json_t *root = json_object(), *cur = root;
    for (;;) {
        t_space(&t);
        if (t.p >= t.end)
            break;
        if (*t.p == '[') {
            bool arr = t.end - t.p >= 2 && t.p[1] == '[';
            t.p += arr ? 2 : 1;
            json_t *k = t_key(&t), *next = NULL;
            if (!k)
                goto broken;
            t_ws(&t);
            if (t.end - t.p >= (arr ? 2 : 1) && *t.p == ']' && (!arr || t.p[1] == ']')) {
                size_t nk = json_array_size(k);
                json_t *parent = t_descend(root, k, nk - 1);
                const char *last = json_string_value(json_array_get(k, nk - 1));
                json_t *ex = parent ? json_object_get(parent, last) : NULL;
                t.p += arr ? 2 : 1;
                if (parent && arr) {
                    if (!ex) {
                        ex = json_array();
                        json_object_set_new(parent, last, ex);
                    }
                    if (json_is_array(ex)) {
                        next = json_object();
                        json_array_append_new(ex, next);
                    }
                } else if (parent) {
                    if (!ex) {
                        ex = json_object();
                        json_object_set_new(parent, last, ex);
                    }
                    if (json_is_array(ex))
                        ex = json_array_get(ex, json_array_size(ex) - 1);
                    next = json_is_object(ex) ? ex : NULL;
                }
            }
            json_decref(k);
            if (!next || !t_eol(&t))
                goto broken;
            cur = next;
            continue;
        }
        json_t *k = t_key(&t);
        if (!k)
            goto broken;
        t_ws(&t);
        if (t.p >= t.end || *t.p != '=') {
            json_decref(k);
            goto broken;
        }
        t.p++;
        t_ws(&t);
        json_t *v = t_value(&t);
        bool ok = v && t_set(cur, k, v);
        json_decref(k);
        if (!ok || !t_eol(&t))
            goto broken;
    }
    *out = root;
    return 0;
broken:
    *out = root;
    return mn_error_set(MN_EINVAL, "toml: line %zu: syntax error, the rest is not read",
                        line_of(text, t.p));
}
