/*
 * yaml.c - JSON values to and from YAML through libyaml's event API.
 *
 * Emitting walks the value recursively (depth is capped at MAX_DEPTH, so the
 * recursion is bounded) and feeds libyaml one event per node. The only
 * decision made here is the style of each string scalar:
 *  - characters libyaml would mangle or that people cannot see (C0 and C1
 *    controls, tab, CR, DEL, U+2028/2029, U+FEFF) force double quotes, which
 *    libyaml escapes;
 *  - other strings with a line break ask for a literal block (`|`); libyaml
 *    picks the chomping and indentation indicators and falls back to double
 *    quotes by itself when a block cannot carry the text (trailing spaces on
 *    a line, for instance);
 *  - a string that our own resolver (the one the parser uses) would read as
 *    null, bool, number or an error, or that a YAML 1.1 reader could take
 *    for one (1_000, 12:30, 2024-01-02, y, <<), is marked non-plain-implicit,
 *    which makes libyaml single-quote it;
 *  - everything else is offered as plain, and libyaml quotes it anyway when
 *    plain would not read back (leading "- ", ": ", " #", edge spaces...).
 * Characters outside the BMP go through placeholders (see swap_astral), as
 * libyaml would otherwise escape every emoji and double-quote its string.
 * Reals are printed with the fewest of 15..17 significant digits that
 * strtod reads back to the same double, and always carry a '.', so 1.0 stays
 * a real. This assumes LC_NUMERIC is "C" (mnemo never changes it).
 *
 * Parsing keeps an explicit stack of open collections (no recursion) and
 * builds jansson values as events arrive. Plain scalars go through
 * resolve_plain(); mapping keys keep their text. Anchors live in a small
 * open-addressing hash table scoped to the current document; an alias is a
 * json_deep_copy of the anchored node, and every anchor remembers how many
 * nodes, string bytes and levels its node holds so that an expansion past
 * the caps is refused before anything is copied (billion laughs). All work
 * is linear in the input apart from those bounded copies.
 *
 * Invariants: everything the emitter accepts, the parser reads back with
 * identical types, key order and bytes; on error the emitters leave `out`
 * as they found it and the parser returns no value.
 */
#include "common.h"

#include <math.h>
#include <yaml.h>

#include "util/yaml.h"

#define MAX_DEPTH       64
#define MAX_ALIAS_NODES 1000000u
#define MAX_ALIAS_BYTES ((size_t)64 << 20)

#define TAG_PREFIX "tag:yaml.org,2002:"

/* ---- scalar resolution (shared by parser and emitter) ---- */

typedef enum { K_STR, K_NULL, K_BOOL, K_INT, K_REAL, K_BAD } scalar_kind;

static bool ieq(const char *s, size_t n, const char *word)
{
    size_t wn = strlen(word);
    if (n != wn)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return false;
    }
    return true;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t span_digits(const char *s, size_t n, size_t i)
{
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* YAML 1.2 core float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool is_core_float(const char *s, size_t n)
{
    size_t i = 0, j;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i < n && s[i] == '.') {
        j = span_digits(s, n, i + 1);
        if (j == i + 1)
            return false;
        i = j;
    } else {
        j = span_digits(s, n, i);
        if (j == i)
            return false;
        i = j;
        if (i < n && s[i] == '.')
            i = span_digits(s, n, i + 1);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        j = span_digits(s, n, i);
        if (j == i)
            return false;
        i = j;
    }
    return i == n;
}

static int parse_radix(const char *s, size_t n, unsigned base, json_int_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = is_digit(s[i]) ? (unsigned)(s[i] - '0') : (unsigned)((s[i] | 0x20) - 'a' + 10);
        if (v > ((uint64_t)INT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = (json_int_t)v;
    return 0;
}

/*
 * What a plain scalar of n bytes means; s[n] must be '\0' (jansson and
 * libyaml strings both are). When out is not NULL it receives the value of
 * a non-string kind; *why explains K_BAD.
 */
static scalar_kind resolve_plain(const char *s, size_t n, json_t **out, const char **why)
{
    json_int_t iv = 0;
    size_t i = 0;

    if (n == 0 || ieq(s, n, "~") || ieq(s, n, "null")) {
        if (out)
            *out = json_null();
        return K_NULL;
    }
    if (n > 5 || memchr(s, '\0', n))
        goto number;
    if (ieq(s, n, "true") || ieq(s, n, "yes") || ieq(s, n, "on")) {
        if (out)
            *out = json_true();
        return K_BOOL;
    }
    if (ieq(s, n, "false") || ieq(s, n, "no") || ieq(s, n, "off")) {
        if (out)
            *out = json_false();
        return K_BOOL;
    }

number:
    if (s[0] == '+' || s[0] == '-')
        i = 1;
    if (ieq(s + i, n - i, ".inf") || ieq(s + i, n - i, ".nan")) {
        *why = "infinity and NaN cannot be represented; quote the value to keep it as text";
        return K_BAD;
    }
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
        bool hex = s[1] == 'x';
        size_t k = 2;
        while (k < n && (hex ? is_hex(s[k]) : (s[k] >= '0' && s[k] <= '7')))
            k++;
        if (k == n) {
            if (parse_radix(s + 2, n - 2, hex ? 16 : 8, &iv) < 0) {
                *why = "integer out of range; quote the value to keep it as text";
                return K_BAD;
            }
            if (out)
                *out = json_integer(iv);
            return K_INT;
        }
        return K_STR;
    }
    if (i < n && span_digits(s, n, i) == n) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE || end != s + n) {
            *why = "integer out of range; quote the value to keep it as text";
            return K_BAD;
        }
        if (out)
            *out = json_integer(v);
        return K_INT;
    }
    if (is_core_float(s, n)) {
        char *end;
        double d = strtod(s, &end);
        if (end != s + n || d == HUGE_VAL || d == -HUGE_VAL) {
            *why = "number out of range; quote the value to keep it as text";
            return K_BAD;
        }
        if (out)
            *out = json_real(d);
        return K_REAL;
    }
    return K_STR;
}

/*
 * Strings a YAML 1.1 reader (PyYAML, older tools) would take for something
 * else although our resolver keeps them as text: quoting them costs a little
 * readability and keeps the files portable.
 */
static bool yaml11_ambiguous(const char *s, size_t n)
{
    if (ieq(s, n, "y") || ieq(s, n, "n") || ieq(s, n, "<<") || ieq(s, n, "="))
        return true;
    if (n >= 8 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
        s[4] == '-')
        return true; /* a timestamp, 2024-01-02 or 2024-01-02 10:00:00 */
    bool numberish = (n > 0 && is_digit(s[0])) ||
                     (n > 1 && (s[0] == '+' || s[0] == '-' || s[0] == '.') && is_digit(s[1]));
    if (!numberish)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        /* the characters of YAML 1.1 numbers: digits, hex, 0x/0o/0b, _ . : + - e */
        if (!(is_hex(c) || c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == '_' || c == '.' ||
              c == ':' || c == '+' || c == '-'))
            return false;
    }
    return true; /* 1_000, 0b101, 12:30:00, 1.2.3: number-like enough to quote */
}

/* True when s holds a character that must be written as an escape. */
static bool needs_escapes(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            return true;
        if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
            return true; /* C1 controls, NEL among them */
        if (c == 0xe2 && i + 2 < n && p[i + 1] == 0x80 && (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))
            return true; /* line and paragraph separators */
        if (c == 0xef && i + 2 < n && p[i + 1] == 0xbb && p[i + 2] == 0xbf)
            return true; /* byte order mark */
    }
    return false;
}

/*
 * A one-line excerpt of s for an error message: at most 40 bytes, cut on a
 * character boundary, with controls and invalid bytes shown as '?'.
 */
static const char *excerpt(char out[48], const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n && o < 40) {
        size_t clen = p[i] < 0x80 ? 1 : p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : p[i] >= 0xc2 ? 2 : 0;
        bool ok = clen > 0 && i + clen <= n && o + clen <= 40;
        for (size_t k = 1; ok && k < clen; k++)
            ok = (p[i + k] & 0xc0) == 0x80;
        if (!ok || p[i] < 0x20 || p[i] == 0x7f) {
            out[o++] = '?';
            i += ok ? clen : 1;
            continue;
        }
        memcpy(out + o, s + i, clen);
        o += clen;
        i += clen;
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* ---- emitter ---- */

/*
 * libyaml's emitter counts characters outside the BMP (emoji) as
 * unprintable: it escapes them ("\U0001F600") and so forces the whole
 * string into double quotes, a multi-line body included. To keep such text
 * readable, each of them is swapped for a private-use character of the BMP
 * (U+E000..U+F8FF) that occurs nowhere in the value, and swapped back in the
 * finished output, where libyaml has written placeholders raw in every
 * style. Should the free placeholders run out, the remaining characters
 * are left to libyaml's escapes.
 */
#define PUA_FIRST    0xE000u
#define PUA_COUNT    (0xF8FFu - PUA_FIRST + 1)
#define ASTRAL_SLOTS 16384u /* > 2 * PUA_COUNT, a power of two */

typedef struct {
    uint32_t cp;  /* 0: empty */
    uint32_t pua; /* its placeholder */
} astral_slot;

typedef struct {
    yaml_emitter_t em;
    bool astral;                              /* the value has non-BMP characters */
    uint32_t pua_used[(PUA_COUNT + 31) / 32]; /* private-use characters of the value */
    uint32_t next_pua;                        /* next placeholder to consider */
    astral_slot *slots;                       /* code point -> placeholder */
    uint32_t *by_pua;                         /* placeholder - PUA_FIRST -> code point */
    mn_buf tmp;
} emit_ctx;

static void scan_text(emit_ctx *e, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        if (p[i] >= 0xf0) {
            e->astral = true;
        } else if ((p[i] == 0xee || p[i] == 0xef) && i + 2 < n) {
            uint32_t cp = ((p[i] & 0x0fu) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
            if (cp >= PUA_FIRST && cp - PUA_FIRST < PUA_COUNT)
                e->pua_used[(cp - PUA_FIRST) / 32] |= 1u << ((cp - PUA_FIRST) % 32);
        }
    }
}

/* Note the private-use and non-BMP characters of v (deeper levels are refused later). */
static void scan_value(emit_ctx *e, const json_t *v, int depth)
{
    const char *key;
    size_t klen;
    json_t *child;

    if (depth > MAX_DEPTH)
        return;
    if (json_is_string(v)) {
        scan_text(e, json_string_value(v), json_string_length(v));
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            scan_value(e, json_array_get(v, i), depth + 1);
    } else if (json_is_object(v)) {
        json_object_keylen_foreach((json_t *)v, key, klen, child)
        {
            scan_text(e, key, klen);
            scan_value(e, child, depth + 1);
        }
    }
}

/* The placeholder of code point cp, or 0 when none is left. */
static uint32_t placeholder(emit_ctx *e, uint32_t cp)
{
    if (!e->slots) {
        e->slots = mn_calloc(ASTRAL_SLOTS, sizeof(*e->slots));
        e->by_pua = mn_calloc(PUA_COUNT, sizeof(*e->by_pua));
    }
    size_t i = (cp * 2654435761u) & (ASTRAL_SLOTS - 1);
    while (e->slots[i].cp && e->slots[i].cp != cp)
        i = (i + 1) & (ASTRAL_SLOTS - 1);
    if (e->slots[i].cp)
        return e->slots[i].pua;
    while (e->next_pua < PUA_COUNT && (e->pua_used[e->next_pua / 32] >> (e->next_pua % 32)) & 1u)
        e->next_pua++;
    if (e->next_pua >= PUA_COUNT)
        return 0;
    e->slots[i].cp = cp;
    e->slots[i].pua = PUA_FIRST + e->next_pua;
    e->by_pua[e->next_pua++] = cp;
    return e->slots[i].pua;
}

/* s with its non-BMP characters swapped for placeholders, in e->tmp. */
static void swap_astral(emit_ctx *e, const char **s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)*s;
    size_t len = *n, i = 0;

    mn_buf_clear(&e->tmp);
    while (i < len) {
        uint32_t cp = 0, pua = 0;
        if (p[i] >= 0xf0 && p[i] <= 0xf4 && i + 4 <= len && (p[i + 1] & 0xc0) == 0x80 &&
            (p[i + 2] & 0xc0) == 0x80 && (p[i + 3] & 0xc0) == 0x80) {
            cp = ((p[i] & 0x07u) << 18) | ((p[i + 1] & 0x3fu) << 12) | ((p[i + 2] & 0x3fu) << 6) |
                 (p[i + 3] & 0x3fu);
            if (cp >= 0x10000 && cp <= 0x10ffff)
                pua = placeholder(e, cp);
        }
        if (pua) {
            char u[3] = {(char)(0xe0 | (pua >> 12)), (char)(0x80 | ((pua >> 6) & 0x3f)),
                         (char)(0x80 | (pua & 0x3f))};
            mn_buf_put(&e->tmp, u, 3);
            i += 4;
        } else {
            mn_buf_putc(&e->tmp, (char)p[i]);
            i++;
        }
    }
    *s = e->tmp.ptr;
    *n = e->tmp.len;
}

/* Put the non-BMP characters back in place of their placeholders in out[start..]. */
static void restore_astral(emit_ctx *e, mn_buf *out, size_t start)
{
    const unsigned char *p = (const unsigned char *)out->ptr;
    mn_buf res = MN_BUF_INIT;
    size_t i = start, copied = start;

    mn_buf_grow(&res, out->len - start + out->len / 8);
    while (i + 2 < out->len) {
        if (p[i] == 0xee || p[i] == 0xef) {
            uint32_t pua = ((p[i] & 0x0fu) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
            uint32_t cp =
                pua >= PUA_FIRST && pua - PUA_FIRST < PUA_COUNT ? e->by_pua[pua - PUA_FIRST] : 0;
            if (cp) {
                char u[4] = {(char)(0xf0 | (cp >> 18)), (char)(0x80 | ((cp >> 12) & 0x3f)),
                             (char)(0x80 | ((cp >> 6) & 0x3f)), (char)(0x80 | (cp & 0x3f))};
                mn_buf_put(&res, out->ptr + copied, i - copied);
                mn_buf_put(&res, u, 4);
                i += 3;
                copied = i;
                continue;
            }
        }
        i++;
    }
    mn_buf_put(&res, out->ptr + copied, out->len - copied);
    mn_buf_truncate(out, start);
    mn_buf_put(out, res.ptr, res.len);
    mn_buf_release(&res);
}

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    mn_buf_put(data, buffer, size);
    return 1;
}

static int emitter_error(yaml_emitter_t *em)
{
    return mn_error_set(MN_EINVAL, "yaml: cannot emit: %s",
                        em->problem ? em->problem : "out of memory");
}

/* yaml_emitter_emit owns the event from here on, on failure too. */
static int emit_event(emit_ctx *e, yaml_event_t *ev)
{
    if (!yaml_emitter_emit(&e->em, ev))
        return emitter_error(&e->em);
    return 0;
}

static int emit_scalar(emit_ctx *e, const char *s, size_t n, int plain_implicit,
                       yaml_scalar_style_t style)
{
    yaml_event_t ev;
    if (n > INT_MAX)
        return mn_error_set(MN_EINVAL, "yaml: string of %zu bytes is too long", n);
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, plain_implicit, 1,
                                      style))
        return mn_error_set(MN_EINVAL, "yaml: string '%.40s' is not valid utf-8", s);
    return emit_event(e, &ev);
}

static int emit_string(emit_ctx *e, const char *s, size_t n)
{
    const char *why;
    if (e->astral)
        swap_astral(e, &s, &n);
    if (needs_escapes(s, n))
        return emit_scalar(e, s, n, 0, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    if (memchr(s, '\n', n))
        return emit_scalar(e, s, n, 0, YAML_LITERAL_SCALAR_STYLE);
    if (resolve_plain(s, n, NULL, &why) != K_STR || yaml11_ambiguous(s, n))
        return emit_scalar(e, s, n, 0, YAML_PLAIN_SCALAR_STYLE); /* libyaml quotes it */
    return emit_scalar(e, s, n, 1, YAML_PLAIN_SCALAR_STYLE);
}

static void format_real(char *buf, size_t cap, double d)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    char *e = strchr(buf, 'e');
    if (strchr(buf, '.'))
        return;
    /* Keep it a real for us (1.0) and for YAML 1.1 readers (1.0e+300). */
    size_t len = strlen(buf), at = e ? (size_t)(e - buf) : len;
    if (len + 3 > cap)
        return;
    memmove(buf + at + 2, buf + at, len - at + 1);
    buf[at] = '.';
    buf[at + 1] = '0';
}

static int emit_node(emit_ctx *e, const json_t *v, int depth)
{
    yaml_event_t ev;
    char num[64];
    int rc = 0;

    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        size_t klen;
        json_t *child;
        if (depth >= MAX_DEPTH)
            return mn_error_set(MN_EINVAL, "yaml: value nests deeper than %d levels", MAX_DEPTH);
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                            json_object_size(v) ? YAML_BLOCK_MAPPING_STYLE
                                                                : YAML_FLOW_MAPPING_STYLE);
        if ((rc = emit_event(e, &ev)) < 0)
            return rc;
        json_object_keylen_foreach((json_t *)v, key, klen, child)
        {
            if ((rc = emit_string(e, key, klen)) < 0 || (rc = emit_node(e, child, depth + 1)) < 0)
                return rc;
        }
        yaml_mapping_end_event_initialize(&ev);
        return emit_event(e, &ev);
    }
    case JSON_ARRAY: {
        if (depth >= MAX_DEPTH)
            return mn_error_set(MN_EINVAL, "yaml: value nests deeper than %d levels", MAX_DEPTH);
        size_t n = json_array_size(v);
        yaml_sequence_start_event_initialize(
            &ev, NULL, NULL, 1, n ? YAML_BLOCK_SEQUENCE_STYLE : YAML_FLOW_SEQUENCE_STYLE);
        if ((rc = emit_event(e, &ev)) < 0)
            return rc;
        for (size_t i = 0; i < n; i++) {
            if ((rc = emit_node(e, json_array_get(v, i), depth + 1)) < 0)
                return rc;
        }
        yaml_sequence_end_event_initialize(&ev);
        return emit_event(e, &ev);
    }
    case JSON_STRING:
        return emit_string(e, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return emit_scalar(e, num, strlen(num), 1, YAML_PLAIN_SCALAR_STYLE);
    case JSON_REAL:
        format_real(num, sizeof(num), json_real_value(v));
        return emit_scalar(e, num, strlen(num), 1, YAML_PLAIN_SCALAR_STYLE);
    case JSON_TRUE:
        return emit_scalar(e, "true", 4, 1, YAML_PLAIN_SCALAR_STYLE);
    case JSON_FALSE:
        return emit_scalar(e, "false", 5, 1, YAML_PLAIN_SCALAR_STYLE);
    case JSON_NULL:
        return emit_scalar(e, "null", 4, 1, YAML_PLAIN_SCALAR_STYLE);
    }
    return mn_error_set(MN_EINVAL, "yaml: unknown json type");
}

/* Emit the elements of docs, or the single value `one` when it is set. */
static int emit_stream(mn_buf *out, const json_t *docs, const json_t *one)
{
    emit_ctx e;
    yaml_event_t ev;
    size_t start = out->len;
    size_t n = one ? 1 : json_array_size(docs);
    int rc = 0;

    memset(&e, 0, sizeof(e));
    mn_buf_init(&e.tmp);
    if (!yaml_emitter_initialize(&e.em))
        return mn_error_set(MN_ENOMEM, "yaml: out of memory");
    yaml_emitter_set_output(&e.em, write_handler, out);
    yaml_emitter_set_unicode(&e.em, 1);
    yaml_emitter_set_width(&e.em, -1);
    yaml_emitter_set_indent(&e.em, 2);
    yaml_emitter_set_break(&e.em, YAML_LN_BREAK);
    scan_value(&e, one ? one : docs, one ? 0 : -1);

    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if ((rc = emit_event(&e, &ev)) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, one ? 1 : 0);
        if ((rc = emit_event(&e, &ev)) < 0)
            goto out;
        if ((rc = emit_node(&e, one ? one : json_array_get(docs, i), 0)) < 0)
            goto out;
        yaml_document_end_event_initialize(&ev, 1);
        if ((rc = emit_event(&e, &ev)) < 0)
            goto out;
    }
    yaml_stream_end_event_initialize(&ev);
    if ((rc = emit_event(&e, &ev)) < 0)
        goto out;
    if (!yaml_emitter_flush(&e.em)) {
        rc = emitter_error(&e.em);
        goto out;
    }
    if (e.by_pua)
        restore_astral(&e, out, start);

out:
    yaml_emitter_delete(&e.em);
    free(e.slots);
    free(e.by_pua);
    mn_buf_release(&e.tmp);
    if (rc < 0)
        mn_buf_truncate(out, start);
    return rc;
}

int mn_yaml_emit_docs(mn_buf *out, const json_t *docs)
{
    if (!json_is_array(docs))
        return mn_error_set(MN_EINVAL, "yaml: documents must be a json array");
    return emit_stream(out, docs, NULL);
}

int mn_yaml_emit(mn_buf *out, const json_t *value)
{
    if (!value)
        return mn_error_set(MN_EINVAL, "yaml: no value to emit");
    return emit_stream(out, NULL, value);
}

/* ---- parser ---- */

typedef struct {
    char *name; /* NULL: empty slot */
    json_t *node;
    size_t nodes, bytes; /* what a copy costs */
    int height;          /* levels of collections in node */
} anchor;

typedef struct {
    anchor *slots;
    size_t cap, count; /* cap is 0 or a power of two */
} anchor_table;

typedef struct {
    json_t *node;
    char *key; /* pending mapping key (owned), or NULL */
    size_t key_len;
    char *anchor; /* to register when the collection ends (owned) */
    size_t nodes0, bytes0;
    int height; /* highest child so far */
} frame;

typedef struct {
    yaml_parser_t parser;
    const char *data;
    size_t len;
    frame stack[MAX_DEPTH];
    int depth;
    json_t *root;
    anchor_table anchors;
    size_t nodes, bytes;             /* created in this stream, copies included */
    size_t alias_nodes, alias_bytes; /* created by alias copies */
} parse_ctx;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static anchor *anchor_slot(anchor_table *t, const char *name)
{
    size_t mask = t->cap - 1, i = (size_t)hash_name(name) & mask;
    while (t->slots[i].name && strcmp(t->slots[i].name, name) != 0)
        i = (i + 1) & mask;
    return &t->slots[i];
}

static anchor *anchor_find(anchor_table *t, const char *name)
{
    if (!t->cap)
        return NULL;
    anchor *a = anchor_slot(t, name);
    return a->name ? a : NULL;
}

/* Takes a reference to node; a later anchor of the same name replaces it. */
static void anchor_put(anchor_table *t, const char *name, json_t *node, size_t nodes, size_t bytes,
                       int height)
{
    if ((t->count + 1) * 2 > t->cap) {
        anchor_table grown = {mn_calloc(t->cap ? t->cap * 2 : 16, sizeof(anchor)),
                              t->cap ? t->cap * 2 : 16, t->count};
        for (size_t i = 0; i < t->cap; i++) {
            if (t->slots[i].name)
                *anchor_slot(&grown, t->slots[i].name) = t->slots[i];
        }
        free(t->slots);
        *t = grown;
    }
    anchor *a = anchor_slot(t, name);
    if (a->name) {
        json_decref(a->node);
    } else {
        a->name = mn_strdup(name);
        t->count++;
    }
    a->node = json_incref(node);
    a->nodes = nodes;
    a->bytes = bytes;
    a->height = height;
}

static void anchors_clear(anchor_table *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].name) {
            free(t->slots[i].name);
            json_decref(t->slots[i].node);
        }
    }
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

static int perr(const yaml_mark_t *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(const yaml_mark_t *m, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return mn_error_set(MN_EINVAL, "yaml: line %zu, column %zu: %s", m->line + 1, m->column + 1,
                        msg);
}

static int parser_error(parse_ctx *c)
{
    yaml_parser_t *p = &c->parser;
    const char *problem = p->problem ? p->problem : "out of memory";
    yaml_mark_t m = p->problem_mark;

    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry a byte offset only: count lines up to it. */
        size_t off = p->problem_offset < c->len ? p->problem_offset : c->len;
        memset(&m, 0, sizeof(m));
        for (size_t i = 0; i < off; i++) {
            if (c->data[i] == '\n') {
                m.line++;
                m.column = 0;
            } else if (((unsigned char)c->data[i] & 0xc0) != 0x80) {
                m.column++;
            }
        }
        return perr(&m, "%s", problem);
    }
    if (p->context && p->context_mark.line != m.line)
        return perr(&m, "%s %s started at line %zu", problem, p->context, p->context_mark.line + 1);
    if (p->context)
        return perr(&m, "%s %s", problem, p->context);
    return perr(&m, "%s", problem);
}

/* Add a finished value (stolen) to the open collection, or make it the root. */
static void add_value(parse_ctx *c, json_t *v, int height)
{
    if (c->depth == 0) {
        c->root = v;
        return;
    }
    frame *f = &c->stack[c->depth - 1];
    if (f->height < height)
        f->height = height;
    if (json_is_array(f->node)) {
        json_array_append_new(f->node, v);
    } else {
        json_object_setn_new_nocheck(f->node, f->key, f->key_len, v);
        free(f->key);
        f->key = NULL;
    }
}

static bool at_key(parse_ctx *c)
{
    return c->depth > 0 && json_is_object(c->stack[c->depth - 1].node) &&
           !c->stack[c->depth - 1].key;
}

static int set_key(parse_ctx *c, const char *s, size_t n, const yaml_mark_t *m)
{
    frame *f = &c->stack[c->depth - 1];
    char ex[48];
    if (json_object_getn(f->node, s, n))
        return perr(m, "duplicate key '%s'", excerpt(ex, s, n));
    f->key = mn_malloc(n + 1); /* not strndup: keys may hold NUL bytes */
    memcpy(f->key, s, n);
    f->key[n] = '\0';
    f->key_len = n;
    c->nodes++;
    c->bytes += n;
    return 0;
}

static bool tag_is(const char *tag, const char *name)
{
    return strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0 &&
           strcmp(tag + strlen(TAG_PREFIX), name) == 0;
}

static int scalar_value(const yaml_event_t *ev, json_t **out)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    const char *why = NULL;
    char ex[48];
    scalar_kind k;

    *out = NULL;
    if (tag && strcmp(tag, "!") != 0 && !tag_is(tag, "str")) {
        bool want_null = tag_is(tag, "null"), want_bool = tag_is(tag, "bool");
        bool want_int = tag_is(tag, "int"), want_real = tag_is(tag, "float");
        if (!want_null && !want_bool && !want_int && !want_real)
            return perr(&ev->start_mark, "unsupported tag '%s'", tag);
        k = resolve_plain(s, n, out, &why);
        if (k == K_BAD)
            return perr(&ev->start_mark, "%s", why);
        if (want_real && k == K_INT) {
            json_t *r = json_real((double)json_integer_value(*out));
            json_decref(*out);
            *out = r;
            k = K_REAL;
        }
        if ((want_null && k != K_NULL) || (want_bool && k != K_BOOL) || (want_int && k != K_INT) ||
            (want_real && k != K_REAL)) {
            json_decref(*out);
            *out = NULL;
            return perr(&ev->start_mark, "'%s' does not match its tag '%s'", excerpt(ex, s, n),
                        tag);
        }
    } else if (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        k = resolve_plain(s, n, out, &why);
        if (k == K_BAD)
            return perr(&ev->start_mark, "'%s': %s", excerpt(ex, s, n), why);
    } else {
        k = K_STR;
    }
    if (k == K_STR)
        *out = json_stringn(s, n);
    if (!*out)
        return perr(&ev->start_mark, "cannot make a json value of '%s'", excerpt(ex, s, n));
    return 0;
}

static int on_scalar(parse_ctx *c, const yaml_event_t *ev)
{
    const char *anchor_name = (const char *)ev->data.scalar.anchor;
    json_t *v;
    int rc;

    if (at_key(c)) {
        rc = set_key(c, (const char *)ev->data.scalar.value, ev->data.scalar.length,
                     &ev->start_mark);
        if (rc == 0 && anchor_name) {
            v = json_stringn((const char *)ev->data.scalar.value, ev->data.scalar.length);
            if (!v)
                return perr(&ev->start_mark, "key is not valid utf-8");
            anchor_put(&c->anchors, anchor_name, v, 1, ev->data.scalar.length, 0);
            json_decref(v);
        }
        return rc;
    }
    if ((rc = scalar_value(ev, &v)) < 0)
        return rc;
    c->nodes++;
    if (json_is_string(v))
        c->bytes += json_string_length(v);
    if (anchor_name)
        anchor_put(&c->anchors, anchor_name, v, 1, json_is_string(v) ? json_string_length(v) : 0,
                   0);
    add_value(c, v, 0);
    return 0;
}

static int on_alias(parse_ctx *c, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    anchor *a = anchor_find(&c->anchors, name);

    if (!a)
        return perr(&ev->start_mark, "unknown anchor '%.60s' (it must be defined before use)",
                    name);
    if (at_key(c) && !json_is_string(a->node))
        return perr(&ev->start_mark, "alias '%.60s' used as a key must refer to a string", name);
    if (c->alias_nodes + a->nodes > MAX_ALIAS_NODES || c->alias_bytes + a->bytes > MAX_ALIAS_BYTES)
        return perr(&ev->start_mark,
                    "aliases expand to more than %u nodes or %zu bytes; refusing (alias bomb?)",
                    MAX_ALIAS_NODES, MAX_ALIAS_BYTES);
    c->alias_nodes += a->nodes;
    c->alias_bytes += a->bytes;
    if (at_key(c)) /* set_key counts the copied key */
        return set_key(c, json_string_value(a->node), json_string_length(a->node), &ev->start_mark);
    c->nodes += a->nodes;
    c->bytes += a->bytes;
    if (c->depth + a->height > MAX_DEPTH)
        return perr(&ev->start_mark, "alias '%.60s' nests deeper than %d levels", name, MAX_DEPTH);
    json_t *copy = json_deep_copy(a->node);
    if (!copy)
        return mn_error_set(MN_ENOMEM, "yaml: out of memory expanding alias '%.60s'", name);
    add_value(c, copy, a->height);
    return 0;
}

static int on_start(parse_ctx *c, const yaml_event_t *ev)
{
    bool map = ev->type == YAML_MAPPING_START_EVENT;
    const char *tag =
        (const char *)(map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    const char *anchor_name =
        (const char *)(map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);

    if (at_key(c))
        return perr(&ev->start_mark, "mapping keys must be scalars, not %s",
                    map ? "mappings" : "sequences");
    if (tag && strcmp(tag, "!") != 0 && !tag_is(tag, map ? "map" : "seq"))
        return perr(&ev->start_mark, "unsupported tag '%s'", tag);
    if (c->depth >= MAX_DEPTH)
        return perr(&ev->start_mark, "collections nest deeper than %d levels", MAX_DEPTH);
    frame *f = &c->stack[c->depth++];
    memset(f, 0, sizeof(*f));
    f->node = map ? json_object() : json_array();
    if (!f->node) {
        c->depth--;
        return mn_error_set(MN_ENOMEM, "yaml: out of memory");
    }
    f->anchor = anchor_name ? mn_strdup(anchor_name) : NULL;
    c->nodes++;
    f->nodes0 = c->nodes - 1;
    f->bytes0 = c->bytes;
    return 0;
}

static void on_end(parse_ctx *c)
{
    frame *f = &c->stack[--c->depth];
    json_t *v = f->node;
    int height = f->height + 1;
    if (f->anchor) {
        anchor_put(&c->anchors, f->anchor, v, c->nodes - f->nodes0, c->bytes - f->bytes0, height);
        free(f->anchor);
    }
    free(f->key);
    memset(f, 0, sizeof(*f));
    add_value(c, v, height);
}

int mn_yaml_parse_docs(json_t **out, const char *data, size_t len)
{
    parse_ctx c;
    yaml_event_t ev;
    bool have_event = false, done = false;
    json_t *docs;
    int rc = 0;

    *out = NULL;
    MN_ASSERT_OR(data || len == 0, MN_EINVAL);
    docs = json_array();
    memset(&c, 0, sizeof(c));
    if (!data) /* libyaml insists on a pointer */
        data = "";
    c.data = data;
    c.len = len;
    if (!docs || !yaml_parser_initialize(&c.parser)) {
        json_decref(docs);
        return mn_error_set(MN_ENOMEM, "yaml: out of memory");
    }
    yaml_parser_set_input_string(&c.parser, (const unsigned char *)data, len);
    yaml_parser_set_encoding(&c.parser, YAML_UTF8_ENCODING);

    while (!done) {
        if (!yaml_parser_parse(&c.parser, &ev)) {
            rc = parser_error(&c);
            goto out;
        }
        have_event = true;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            anchors_clear(&c.anchors);
            break;
        case YAML_DOCUMENT_END_EVENT:
            json_array_append_new(docs, c.root ? c.root : json_null());
            c.root = NULL;
            break;
        case YAML_SCALAR_EVENT:
            rc = on_scalar(&c, &ev);
            break;
        case YAML_ALIAS_EVENT:
            rc = on_alias(&c, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            rc = on_start(&c, &ev);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            on_end(&c);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        have_event = false;
        if (rc < 0)
            goto out;
    }
    *out = docs;
    docs = NULL;

out:
    if (have_event)
        yaml_event_delete(&ev);
    while (c.depth > 0) {
        frame *f = &c.stack[--c.depth];
        json_decref(f->node);
        free(f->key);
        free(f->anchor);
    }
    json_decref(c.root);
    anchors_clear(&c.anchors);
    yaml_parser_delete(&c.parser);
    json_decref(docs);
    return rc;
}
