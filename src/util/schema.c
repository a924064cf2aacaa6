/*
 * schema.c - the JSON Schema subset validator (see schema.h for the subset).
 *
 * mn_schema_validate walks the schema and the value together. The field
 * path ("context.trigger_keywords[2]") is kept in one mn_buf, pushed before
 * descending and truncated back after, so no allocation happens per level.
 * The first failure stops the walk; its message is built in a second
 * mn_buf and copied into the thread's error at the end. Before the walk, a
 * pass over the value refuses anything nested deeper than
 * MN_SCHEMA_MAX_DEPTH containers, which also bounds the recursion of the
 * walk itself (a schema is a finite tree, so anyOf/oneOf add only a
 * constant).
 *
 * Order of checks inside one schema, so the first message is the most
 * useful one: type, const, enum, then the keywords of the value's type
 * (for objects: unknown fields, then missing required fields, then each
 * field's value in the value's order; for arrays: size, then each item,
 * then uniqueness), then anyOf/oneOf. When every branch of an anyOf/oneOf
 * fails on type alone the message merges their types ("must be a string
 * or an array"); otherwise it names the first branch that got past its
 * type check as the hint.
 *
 * Invariants: everything copied from the value into a message goes
 * through put_shown (at most SHOW_MAX code points, control and
 * line-breaking characters escaped), so a message is always one line.
 * Messages are cut at MSG_MAX bytes on a code point boundary before they
 * reach mn_error_set, whose buffer is larger.
 */
#include "common.h"
#include "util/schema.h"
#include "util/buf.h"

#define SHOW_MAX         60  /* code points of user text shown in a message */
#define LIST_MAX_ITEMS   12  /* names or enum values listed before "..." */
#define LIST_MAX_BYTES   240 /* bytes of such a list before "..." */
#define MSG_MAX          900 /* bytes of a whole message */
#define SCHEMA_MAX_DEPTH 64  /* nested subschemas accepted by mn_schema_check */

enum {
    T_STRING = 1 << 0,
    T_INTEGER = 1 << 1,
    T_NUMBER = 1 << 2,
    T_BOOLEAN = 1 << 3,
    T_OBJECT = 1 << 4,
    T_ARRAY = 1 << 5,
    T_NULL = 1 << 6
};

static const struct {
    const char *name;
    const char *phrase;
    unsigned bit;
} type_names[] = {
    {"string", "a string", T_STRING},  {"integer", "an integer", T_INTEGER},
    {"number", "a number", T_NUMBER},  {"boolean", "a boolean", T_BOOLEAN},
    {"object", "an object", T_OBJECT}, {"array", "an array", T_ARRAY},
    {"null", "null", T_NULL},
};

/* ---- text helpers ---------------------------------------------------- */

/*
 * Decode one UTF-8 sequence at s[0..len). Returns its length and stores the
 * code point, or returns 0 for a malformed sequence (jansson only hands out
 * valid UTF-8, but a message must never depend on that).
 */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    size_t n;
    uint32_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        c &= 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        c &= 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    *cp = c;
    return n;
}

/* Code points in a valid UTF-8 string: the bytes that do not continue one. */
static size_t utf8_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/*
 * Append s[0..len) for a one-line message: at most `max` code points, then
 * "..."; newlines, tabs and other C0/C1 controls, DEL and the Unicode line
 * and paragraph separators are written as escapes.
 */
static void put_shown(mn_buf *b, const char *s, size_t len, size_t max)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, shown = 0;
    while (i < len) {
        uint32_t cp;
        size_t n;
        if (shown == max) {
            mn_buf_puts(b, "...");
            return;
        }
        n = utf8_decode(u + i, len - i, &cp);
        if (n == 0) {
            mn_buf_printf(b, "\\x%02x", u[i]);
            i++;
        } else if (cp == '\n') {
            mn_buf_puts(b, "\\n");
        } else if (cp == '\r') {
            mn_buf_puts(b, "\\r");
        } else if (cp == '\t') {
            mn_buf_puts(b, "\\t");
        } else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029) {
            mn_buf_printf(b, "\\u%04x", (unsigned)cp);
        } else {
            mn_buf_put(b, s + i, n);
        }
        i += n;
        shown++;
    }
}

static void put_real(mn_buf *b, double d)
{
    char tmp[40];
    snprintf(tmp, sizeof(tmp), "%.15g", d);
    if (strtod(tmp, NULL) != d)
        snprintf(tmp, sizeof(tmp), "%.17g", d);
    mn_buf_puts(b, tmp);
}

/*
 * Append a JSON value for a message. Strings are quoted when `quote` (a
 * value the user sent) and bare otherwise (names in an enum list).
 */
static void put_value(mn_buf *b, const json_t *v, bool quote)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        if (quote)
            mn_buf_putc(b, '\'');
        put_shown(b, json_string_value(v), json_string_length(v), SHOW_MAX);
        if (quote)
            mn_buf_putc(b, '\'');
        break;
    case JSON_INTEGER:
        mn_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        put_real(b, json_real_value(v));
        break;
    case JSON_TRUE:
        mn_buf_puts(b, "true");
        break;
    case JSON_FALSE:
        mn_buf_puts(b, "false");
        break;
    case JSON_NULL:
        mn_buf_puts(b, "null");
        break;
    case JSON_OBJECT:
    case JSON_ARRAY:
        if (quote) {
            mn_buf_puts(b, json_is_object(v) ? "an object" : "an array");
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            if (s) {
                put_shown(b, s, strlen(s), SHOW_MAX);
                free(s);
            }
        }
        break;
    }
}

static const char *plural(json_int_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Cut a message to at most `max` bytes on a code point boundary. */
static void cut_message(mn_buf *b, size_t max)
{
    size_t at = max - 3;
    if (b->len <= max)
        return;
    while (at > 0 && ((unsigned char)b->ptr[at] & 0xc0) == 0x80)
        at--;
    mn_buf_truncate(b, at);
    mn_buf_puts(b, "...");
}

/* ---- numbers --------------------------------------------------------- */

/* Compare an integer with a real exactly, also beyond 2^53. */
static int cmp_int_real(json_int_t i, double r)
{
    json_int_t t;
    if (r >= 9223372036854775808.0)
        return -1;
    if (r < -9223372036854775808.0)
        return 1;
    t = (json_int_t)r; /* toward zero; exact, as r is in range */
    if ((double)t > r)
        t--; /* floor for negative non-integers */
    if (i != t)
        return i < t ? -1 : 1;
    return (double)t < r ? -1 : 0;
}

/* -1, 0 or 1 as a <, == or > b; both are JSON numbers. */
static int cmp_number(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b);
        return (x > y) - (x < y);
    }
    if (json_is_integer(a))
        return cmp_int_real(json_integer_value(a), json_real_value(b));
    if (json_is_integer(b))
        return -cmp_int_real(json_integer_value(b), json_real_value(a));
    return (json_real_value(a) > json_real_value(b)) - (json_real_value(a) < json_real_value(b));
}

/* ---- date-time (RFC 3339 section 5.6) ------------------------------- */

static bool read_digits(const char *s, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int days_in_month(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return days[m - 1];
}

/*
 * YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM); "t" and "z" may be lower
 * case. A leap second (:60) is accepted only at 23:59 UTC.
 */
static bool is_date_time(const char *s, size_t len)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
    size_t i = 19;
    if (len < 20 || !read_digits(s, 4, &y) || s[4] != '-' || !read_digits(s + 5, 2, &mo) ||
        s[7] != '-' || !read_digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
        !read_digits(s + 11, 2, &h) || s[13] != ':' || !read_digits(s + 14, 2, &mi) ||
        s[16] != ':' || !read_digits(s + 17, 2, &sec))
        return false;
    if (s[i] == '.') {
        size_t start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return false;
    }
    if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
        sign = s[i] == '+' ? 1 : -1;
        if (len - i < 6 || !read_digits(s + i + 1, 2, &oh) || s[i + 3] != ':' ||
            !read_digits(s + i + 4, 2, &om))
            return false;
        i += 6;
    } else {
        return false;
    }
    if (i != len || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
        sec > 60 || oh > 23 || om > 59)
        return false;
    if (sec == 60) {
        int utc = ((h * 60 + mi - sign * (oh * 60 + om)) % 1440 + 1440) % 1440;
        if (utc != 23 * 60 + 59)
            return false;
    }
    return true;
}

/* ---- types ----------------------------------------------------------- */

static unsigned type_bit(const json_t *name)
{
    const char *s = json_string_value(name);
    for (size_t i = 0; s && i < MN_ARRAY_SIZE(type_names); i++)
        if (strcmp(s, type_names[i].name) == 0)
            return type_names[i].bit;
    return 0;
}

/* The types a "type" keyword allows; 0 (anything) when it is malformed. */
static unsigned type_mask(const json_t *t)
{
    unsigned mask = 0;
    if (json_is_string(t))
        return type_bit(t);
    for (size_t i = 0; i < json_array_size(t); i++)
        mask |= type_bit(json_array_get(t, i));
    return mask;
}

static bool type_matches(unsigned mask, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        return mask & T_STRING;
    case JSON_INTEGER:
        return mask & (T_INTEGER | T_NUMBER);
    case JSON_REAL:
        return mask & T_NUMBER;
    case JSON_TRUE:
    case JSON_FALSE:
        return mask & T_BOOLEAN;
    case JSON_OBJECT:
        return mask & T_OBJECT;
    case JSON_ARRAY:
        return mask & T_ARRAY;
    case JSON_NULL:
        return mask & T_NULL;
    }
    return false;
}

/* "a string", "a string or null", "a string, an array or null". */
static void put_types(mn_buf *b, unsigned mask)
{
    size_t total = 0, done = 0;
    if (mask & T_NUMBER)
        mask &= ~(unsigned)T_INTEGER;
    for (size_t i = 0; i < MN_ARRAY_SIZE(type_names); i++)
        total += (mask & type_names[i].bit) != 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(type_names); i++) {
        if (!(mask & type_names[i].bit))
            continue;
        if (done)
            mn_buf_puts(b, done + 1 == total ? " or " : ", ");
        mn_buf_puts(b, type_names[i].phrase);
        done++;
    }
}

/* ---- the validator --------------------------------------------------- */

typedef struct {
    mn_buf path; /* "a.b[3].c", shown form (escaped and cut per segment) */
    mn_buf msg;  /* the message of the last failure */
    /* What the last failure was, for merging anyOf/oneOf branches. */
    bool type_fail;       /* a "type" mismatch ... */
    size_t fail_path_len; /* ... at this path length ... */
    unsigned fail_types;  /* ... against these types */
} vctx;

static size_t path_push_key(mn_buf *path, const char *key, size_t len)
{
    size_t old = path->len;
    if (old)
        mn_buf_putc(path, '.');
    put_shown(path, key, len, SHOW_MAX);
    return old;
}

static size_t path_push_index(mn_buf *path, size_t i)
{
    size_t old = path->len;
    mn_buf_printf(path, "[%zu]", i);
    return old;
}

/* Start a failure message with no prefix; returns the buffer to append to. */
static mn_buf *msg_begin(vctx *c)
{
    mn_buf_clear(&c->msg);
    c->type_fail = false;
    c->fail_path_len = c->path.len;
    return &c->msg;
}

/* The prefix naming the current value: "field 'a.b': " or "input: ". */
static void put_prefix(mn_buf *b, const mn_buf *path)
{
    if (path->len)
        mn_buf_printf(b, "field '%s': ", path->ptr);
    else
        mn_buf_puts(b, "input: ");
}

/* Start a failure message about the current value. */
static mn_buf *msg_field(vctx *c)
{
    mn_buf *b = msg_begin(c);
    put_prefix(b, &c->path);
    return b;
}

static int fail_type(vctx *c, unsigned mask)
{
    mn_buf *b = msg_field(c);
    mn_buf_puts(b, "must be ");
    put_types(b, mask);
    c->type_fail = true;
    c->fail_types = mask;
    return MN_EINVAL;
}

static int validate_node(vctx *c, const json_t *s, const json_t *v);

static char fold(char ch)
{
    return (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
}

/* Optimal string alignment distance, ASCII case folded; SIZE_MAX if long. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXLEN = 64 };
    size_t rows[3][MAXLEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    if (la > MAXLEN || lb > MAXLEN)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        char ca = fold(a[i - 1]);
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            char cb = fold(b[j - 1]);
            size_t best = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == fold(b[j - 2]) && fold(a[i - 2]) == cb &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

/* The property name closest to an unknown key, if close enough to suggest. */
static const char *closest_name(const json_t *props, const char *key, size_t klen)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (void *it = json_object_iter((json_t *)props); it;
         it = json_object_iter_next((json_t *)props, it)) {
        const char *name = json_object_iter_key(it);
        size_t nlen = strlen(name);
        size_t d = edit_distance(key, klen, name, nlen);
        /* Short names would match anything: only case differences. */
        size_t limit = nlen <= 2 ? 0 : nlen < 6 ? 1 : nlen < 12 ? 2 : 3;
        if (d <= limit && d < best_d) {
            best = name;
            best_d = d;
        }
    }
    return best;
}

/* Append "a, b, c" (names of an object, or values of an array), cut long. */
static void put_list(mn_buf *b, const json_t *names_or_values)
{
    size_t start = b->len, n = 0;
    if (json_is_object(names_or_values)) {
        json_t *o = (json_t *)names_or_values;
        for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it), n++) {
            const char *name = json_object_iter_key(it);
            if (n == LIST_MAX_ITEMS || b->len - start > LIST_MAX_BYTES) {
                mn_buf_puts(b, ", ...");
                return;
            }
            mn_buf_puts(b, n ? ", " : "");
            put_shown(b, name, strlen(name), SHOW_MAX);
        }
        return;
    }
    for (n = 0; n < json_array_size(names_or_values); n++) {
        if (n == LIST_MAX_ITEMS || b->len - start > LIST_MAX_BYTES) {
            mn_buf_puts(b, ", ...");
            return;
        }
        mn_buf_puts(b, n ? ", " : "");
        put_value(b, json_array_get(names_or_values, n), false);
    }
}

static int fail_unknown_field(vctx *c, const json_t *props, const char *key, size_t klen)
{
    mn_buf *b = msg_begin(c);
    size_t old = path_push_key(&c->path, key, klen);
    const char *near = props ? closest_name(props, key, klen) : NULL;
    mn_buf_printf(b, "unknown field '%s'", c->path.ptr);
    mn_buf_truncate(&c->path, old);
    if (near) {
        mn_buf_puts(b, ", did you mean '");
        put_shown(b, near, strlen(near), SHOW_MAX);
        mn_buf_puts(b, "'?");
    }
    if (json_object_size(props)) {
        mn_buf_puts(b, " (expected one of: ");
        put_list(b, props);
        mn_buf_putc(b, ')');
    } else {
        mn_buf_puts(b, " (no fields are accepted here)");
    }
    return MN_EINVAL;
}

static int check_object(vctx *c, const json_t *s, const json_t *v)
{
    json_t *o = (json_t *)v;
    const json_t *props = json_object_get(s, "properties");
    const json_t *extra = json_object_get(s, "additionalProperties");
    const json_t *req = json_object_get(s, "required");
    if (!json_is_object(props))
        props = NULL;

    if (json_is_false(extra)) {
        for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
            const char *key = json_object_iter_key(it);
            size_t klen = json_object_iter_key_len(it);
            if (!props || !json_object_getn(props, key, klen))
                return fail_unknown_field(c, props, key, klen);
        }
    }
    for (size_t i = 0; i < json_array_size(req); i++) {
        const json_t *name = json_array_get(req, i);
        if (!json_is_string(name) ||
            json_object_getn(v, json_string_value(name), json_string_length(name)))
            continue;
        mn_buf *b = msg_begin(c);
        size_t old = path_push_key(&c->path, json_string_value(name), json_string_length(name));
        mn_buf_printf(b, "missing required field '%s'", c->path.ptr);
        mn_buf_truncate(&c->path, old);
        return MN_EINVAL;
    }
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        const json_t *sub = props ? json_object_getn(props, key, klen) : NULL;
        size_t old;
        int rc;
        if (!sub && json_is_object(extra))
            sub = extra;
        if (!sub)
            continue;
        old = path_push_key(&c->path, key, klen);
        rc = validate_node(c, sub, json_object_iter_value(it));
        mn_buf_truncate(&c->path, old);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_array(vctx *c, const json_t *s, const json_t *v)
{
    const json_t *k;
    const json_t *items = json_object_get(s, "items");
    size_t n = json_array_size(v);

    if ((k = json_object_get(s, "minItems")) && json_is_integer(k) &&
        (json_int_t)n < json_integer_value(k)) {
        json_int_t min = json_integer_value(k);
        if (min == 1)
            mn_buf_puts(msg_field(c), "must not be empty");
        else
            mn_buf_printf(msg_field(c), "must have at least %" JSON_INTEGER_FORMAT " %s", min,
                          plural(min, "item", "items"));
        return MN_EINVAL;
    }
    if ((k = json_object_get(s, "maxItems")) && json_is_integer(k) &&
        (json_int_t)n > json_integer_value(k)) {
        json_int_t max = json_integer_value(k);
        mn_buf_printf(msg_field(c), "must have at most %" JSON_INTEGER_FORMAT " %s (got %zu)", max,
                      plural(max, "item", "items"), n);
        return MN_EINVAL;
    }
    if (items) {
        for (size_t i = 0; i < n; i++) {
            size_t old = path_push_index(&c->path, i);
            int rc = validate_node(c, items, json_array_get(v, i));
            mn_buf_truncate(&c->path, old);
            if (rc)
                return rc;
        }
    }
    /* Quadratic, but arrays reaching here are capped by maxItems or the
     * request size limit, and json_equal stops at the first difference. */
    if (json_is_true(json_object_get(s, "uniqueItems"))) {
        for (size_t j = 1; j < n; j++) {
            for (size_t i = 0; i < j; i++) {
                if (json_equal(json_array_get(v, i), json_array_get(v, j))) {
                    mn_buf_printf(msg_field(c),
                                  "must not contain duplicates (items %zu and %zu are equal)", i,
                                  j);
                    return MN_EINVAL;
                }
            }
        }
    }
    return 0;
}

static int check_string(vctx *c, const json_t *s, const json_t *v)
{
    const json_t *k;
    const char *str = json_string_value(v);
    size_t len = json_string_length(v);
    json_int_t chars = (json_int_t)utf8_count(str, len);

    if ((k = json_object_get(s, "minLength")) && json_is_integer(k) &&
        chars < json_integer_value(k)) {
        json_int_t min = json_integer_value(k);
        if (min == 1)
            mn_buf_puts(msg_field(c), "must not be empty");
        else
            mn_buf_printf(msg_field(c), "shorter than %" JSON_INTEGER_FORMAT " %s", min,
                          plural(min, "character", "characters"));
        return MN_EINVAL;
    }
    if ((k = json_object_get(s, "maxLength")) && json_is_integer(k) &&
        chars > json_integer_value(k)) {
        json_int_t max = json_integer_value(k);
        mn_buf_printf(msg_field(c), "longer than %" JSON_INTEGER_FORMAT " %s", max,
                      plural(max, "character", "characters"));
        return MN_EINVAL;
    }
    k = json_object_get(s, "format");
    if (json_is_string(k) && strcmp(json_string_value(k), "date-time") == 0 &&
        !is_date_time(str, len)) {
        mn_buf *b = msg_field(c);
        mn_buf_puts(b, "must be a date-time like 2026-11-21T05:37:25Z (got ");
        put_value(b, v, true);
        mn_buf_putc(b, ')');
        return MN_EINVAL;
    }
    return 0;
}

static int fail_bound(vctx *c, const char *what, const json_t *bound, const json_t *v)
{
    mn_buf *b = msg_field(c);
    mn_buf_printf(b, "must be %s ", what);
    put_value(b, bound, false);
    mn_buf_puts(b, " (got ");
    put_value(b, v, true);
    mn_buf_putc(b, ')');
    return MN_EINVAL;
}

static int check_number(vctx *c, const json_t *s, const json_t *v)
{
    const json_t *k;
    if ((k = json_object_get(s, "minimum")) && json_is_number(k) && cmp_number(v, k) < 0)
        return fail_bound(c, "at least", k, v);
    if ((k = json_object_get(s, "exclusiveMinimum")) && json_is_number(k) && cmp_number(v, k) <= 0)
        return fail_bound(c, "greater than", k, v);
    if ((k = json_object_get(s, "maximum")) && json_is_number(k) && cmp_number(v, k) > 0)
        return fail_bound(c, "at most", k, v);
    if ((k = json_object_get(s, "exclusiveMaximum")) && json_is_number(k) && cmp_number(v, k) >= 0)
        return fail_bound(c, "less than", k, v);
    return 0;
}

/*
 * anyOf (one = false) or oneOf (one = true). Each branch runs on the same
 * path; a failing branch leaves its message in c->msg, which is read here
 * before the next branch overwrites it.
 */
static int check_alternatives(vctx *c, const json_t *branches, const json_t *v, bool one)
{
    size_t n = json_array_size(branches);
    size_t base = c->path.len, matched = 0, first_match = 0;
    unsigned types = 0;
    bool all_type = true;
    mn_buf hint = MN_BUF_INIT, prefix = MN_BUF_INIT;
    int rc = 0;

    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (validate_node(c, json_array_get(branches, i), v) == 0) {
            if (!one)
                goto out;
            if (matched++ == 0) {
                first_match = i;
                continue;
            }
            mn_buf_printf(msg_field(c), "matches more than one allowed form (forms %zu and %zu)",
                          first_match + 1, i + 1);
            rc = MN_EINVAL;
            goto out;
        }
        if (c->type_fail && c->fail_path_len == base) {
            types |= c->fail_types;
        } else if (all_type) {
            all_type = false;
            mn_buf_put(&hint, c->msg.ptr, c->msg.len);
        }
    }
    if (matched == 1)
        goto out;
    if (all_type && types) {
        rc = fail_type(c, types);
        goto out;
    }
    {
        mn_buf *b = msg_field(c);
        mn_buf_puts(b, "does not match any allowed form");
        if (hint.len) {
            const char *h = hint.ptr;
            put_prefix(&prefix, &c->path);
            if (strncmp(h, prefix.ptr, prefix.len) == 0)
                h += prefix.len;
            mn_buf_printf(b, " (%s)", h);
        }
    }
    rc = MN_EINVAL;
out:
    mn_buf_release(&hint);
    mn_buf_release(&prefix);
    return rc;
}

static int validate_node(vctx *c, const json_t *s, const json_t *v)
{
    const json_t *k;
    int rc = 0;

    if (json_is_false(s)) {
        mn_buf_puts(msg_field(c), "is not allowed");
        return MN_EINVAL;
    }
    if (!json_is_object(s))
        return 0; /* true, or a malformed schema: mn_schema_check refuses those */

    if ((k = json_object_get(s, "type"))) {
        unsigned mask = type_mask(k);
        if (mask && !type_matches(mask, v))
            return fail_type(c, mask);
    }
    if ((k = json_object_get(s, "const")) && !json_equal(k, v)) {
        mn_buf *b = msg_field(c);
        mn_buf_puts(b, "must be ");
        put_value(b, k, false);
        mn_buf_puts(b, " (got ");
        put_value(b, v, true);
        mn_buf_putc(b, ')');
        return MN_EINVAL;
    }
    if ((k = json_object_get(s, "enum")) && json_is_array(k)) {
        size_t i, n = json_array_size(k);
        for (i = 0; i < n; i++)
            if (json_equal(json_array_get(k, i), v))
                break;
        if (i == n) {
            mn_buf *b = msg_field(c);
            mn_buf_puts(b, n == 1 ? "must be " : "must be one of ");
            put_list(b, k);
            mn_buf_puts(b, " (got ");
            put_value(b, v, true);
            mn_buf_putc(b, ')');
            return MN_EINVAL;
        }
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        rc = check_object(c, s, v);
        break;
    case JSON_ARRAY:
        rc = check_array(c, s, v);
        break;
    case JSON_STRING:
        rc = check_string(c, s, v);
        break;
    case JSON_INTEGER:
    case JSON_REAL:
        rc = check_number(c, s, v);
        break;
    default:
        break;
    }
    if (rc)
        return rc;
    if ((k = json_object_get(s, "anyOf")) && (rc = check_alternatives(c, k, v, false)))
        return rc;
    if ((k = json_object_get(s, "oneOf")) && (rc = check_alternatives(c, k, v, true)))
        return rc;
    return 0;
}

/* Refuse containers nested deeper than MN_SCHEMA_MAX_DEPTH; `level` counts v. */
static int check_depth(vctx *c, const json_t *v, int level)
{
    if (!json_is_object(v) && !json_is_array(v))
        return 0;
    if (level > MN_SCHEMA_MAX_DEPTH) {
        mn_buf_printf(msg_field(c), "nested too deeply (at most %d levels)", MN_SCHEMA_MAX_DEPTH);
        return MN_EINVAL;
    }
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            size_t old = path_push_index(&c->path, i);
            int rc = check_depth(c, json_array_get(v, i), level + 1);
            mn_buf_truncate(&c->path, old);
            if (rc)
                return rc;
        }
        return 0;
    }
    json_t *o = (json_t *)v;
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
        size_t old =
            path_push_key(&c->path, json_object_iter_key(it), json_object_iter_key_len(it));
        int rc = check_depth(c, json_object_iter_value(it), level + 1);
        mn_buf_truncate(&c->path, old);
        if (rc)
            return rc;
    }
    return 0;
}

int mn_schema_validate(const json_t *schema, const json_t *value)
{
    vctx c = {MN_BUF_INIT, MN_BUF_INIT, false, 0, 0};
    int rc;

    MN_ASSERT_OR(schema && value, MN_EINTERNAL);
    rc = check_depth(&c, value, 1);
    if (rc == 0)
        rc = validate_node(&c, schema, value);
    if (rc) {
        cut_message(&c.msg, MSG_MAX);
        mn_error_set(rc, "%s", c.msg.ptr);
    }
    mn_buf_release(&c.path);
    mn_buf_release(&c.msg);
    return rc;
}

/* ---- the schema checker ---------------------------------------------- */

typedef enum {
    KW_TYPE,        /* a type name or a non-empty array of distinct ones */
    KW_PROPERTIES,  /* an object of schemas */
    KW_REQUIRED,    /* an array of distinct strings */
    KW_SCHEMA,      /* a schema (an object or a boolean) */
    KW_ENUM,        /* a non-empty array */
    KW_ANY,         /* any JSON value */
    KW_COUNT,       /* a non-negative integer */
    KW_NUMBER,      /* a number */
    KW_BOOL,        /* true or false */
    KW_SCHEMAS,     /* a non-empty array of schemas */
    KW_FORMAT,      /* a known format name */
    KW_STRING,      /* a string */
    KW_ARRAY,       /* an array */
    KW_UNSUPPORTED, /* a JSON Schema keyword this validator does not implement */
} kw_kind;

static const struct {
    const char *name;
    kw_kind kind;
} keywords[] = {
    {"type", KW_TYPE},
    {"properties", KW_PROPERTIES},
    {"required", KW_REQUIRED},
    {"additionalProperties", KW_SCHEMA},
    {"enum", KW_ENUM},
    {"const", KW_ANY},
    {"minLength", KW_COUNT},
    {"maxLength", KW_COUNT},
    {"minimum", KW_NUMBER},
    {"maximum", KW_NUMBER},
    {"exclusiveMinimum", KW_NUMBER},
    {"exclusiveMaximum", KW_NUMBER},
    {"items", KW_SCHEMA},
    {"minItems", KW_COUNT},
    {"maxItems", KW_COUNT},
    {"uniqueItems", KW_BOOL},
    {"anyOf", KW_SCHEMAS},
    {"oneOf", KW_SCHEMAS},
    {"format", KW_FORMAT},
    {"description", KW_STRING},
    {"title", KW_STRING},
    {"default", KW_ANY},
    {"examples", KW_ARRAY},
    {"$schema", KW_STRING},
    {"$comment", KW_STRING},
    {"deprecated", KW_BOOL},
    {"readOnly", KW_BOOL},
    {"writeOnly", KW_BOOL},
    {"pattern", KW_UNSUPPORTED},
    {"patternProperties", KW_UNSUPPORTED},
    {"propertyNames", KW_UNSUPPORTED},
    {"minProperties", KW_UNSUPPORTED},
    {"maxProperties", KW_UNSUPPORTED},
    {"dependentRequired", KW_UNSUPPORTED},
    {"dependentSchemas", KW_UNSUPPORTED},
    {"unevaluatedProperties", KW_UNSUPPORTED},
    {"unevaluatedItems", KW_UNSUPPORTED},
    {"prefixItems", KW_UNSUPPORTED},
    {"contains", KW_UNSUPPORTED},
    {"minContains", KW_UNSUPPORTED},
    {"maxContains", KW_UNSUPPORTED},
    {"multipleOf", KW_UNSUPPORTED},
    {"allOf", KW_UNSUPPORTED},
    {"not", KW_UNSUPPORTED},
    {"if", KW_UNSUPPORTED},
    {"then", KW_UNSUPPORTED},
    {"else", KW_UNSUPPORTED},
    {"$ref", KW_UNSUPPORTED},
    {"$dynamicRef", KW_UNSUPPORTED},
    {"$defs", KW_UNSUPPORTED},
    {"definitions", KW_UNSUPPORTED},
    {"$id", KW_UNSUPPORTED},
    {"$anchor", KW_UNSUPPORTED},
    {"$dynamicAnchor", KW_UNSUPPORTED},
    {"$vocabulary", KW_UNSUPPORTED},
    {"contentEncoding", KW_UNSUPPORTED},
    {"contentMediaType", KW_UNSUPPORTED},
    {"contentSchema", KW_UNSUPPORTED},
};

/*
 * The formats of draft 2020-12. Only date-time is checked; the others are
 * annotations, listed so that a misspelt name ("datetime") is caught.
 */
static const char *const formats[] = {
    "date-time", "date",          "time", "duration",     "email",        "idn-email",
    "hostname",  "idn-hostname",  "ipv4", "ipv6",         "uri",          "uri-reference",
    "iri",       "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer",
    "regex",
};

typedef struct {
    mn_buf ptr; /* JSON Pointer of the current place, without the "#" */
} cctx;

static size_t ptr_push(mn_buf *ptr, const char *key)
{
    size_t old = ptr->len;
    mn_buf_putc(ptr, '/');
    for (const char *p = key; *p; p++) {
        if (*p == '~')
            mn_buf_puts(ptr, "~0");
        else if (*p == '/')
            mn_buf_puts(ptr, "~1");
        else if ((unsigned char)*p < 0x20)
            mn_buf_printf(ptr, "\\u%04x", (unsigned char)*p);
        else
            mn_buf_putc(ptr, *p);
    }
    return old;
}

static int cfail(cctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int cfail(cctx *c, const char *fmt, ...)
{
    mn_buf msg = MN_BUF_INIT;
    va_list ap;
    mn_buf_printf(&msg, "schema '#%s': ", c->ptr.ptr);
    va_start(ap, fmt);
    mn_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    cut_message(&msg, MSG_MAX);
    mn_error_set(MN_EINVAL, "%s", msg.ptr);
    mn_buf_release(&msg);
    return MN_EINVAL;
}

static int check_node(cctx *c, const json_t *s, int depth);

/* Check the subschema s found under `key`. */
static int check_sub(cctx *c, const char *key, const json_t *s, int depth)
{
    size_t old = ptr_push(&c->ptr, key);
    int rc = check_node(c, s, depth + 1);
    mn_buf_truncate(&c->ptr, old);
    return rc;
}

static int check_type_keyword(cctx *c, const json_t *t)
{
    unsigned seen = 0;
    if (json_is_string(t)) {
        if (!type_bit(t))
            return cfail(c,
                         "unknown type '%s' (expected string, integer, number, boolean, "
                         "object, array or null)",
                         json_string_value(t));
        return 0;
    }
    if (!json_is_array(t) || json_array_size(t) == 0)
        return cfail(c, "must be a type name or a non-empty array of type names");
    for (size_t i = 0; i < json_array_size(t); i++) {
        const json_t *e = json_array_get(t, i);
        unsigned bit = type_bit(e);
        if (!json_is_string(e))
            return cfail(c, "item %zu must be a type name", i);
        if (!bit)
            return cfail(c,
                         "unknown type '%s' (expected string, integer, number, boolean, "
                         "object, array or null)",
                         json_string_value(e));
        if (seen & bit)
            return cfail(c, "lists type '%s' twice", json_string_value(e));
        seen |= bit;
    }
    return 0;
}

/* Check one keyword's value; c->ptr already names the keyword. */
static int check_keyword(cctx *c, kw_kind kind, const json_t *v, int depth)
{
    switch (kind) {
    case KW_TYPE:
        return check_type_keyword(c, v);
    case KW_PROPERTIES: {
        json_t *o = (json_t *)v;
        if (!json_is_object(v))
            return cfail(c, "must be an object of schemas");
        for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
            int rc = check_sub(c, json_object_iter_key(it), json_object_iter_value(it), depth);
            if (rc)
                return rc;
        }
        return 0;
    }
    case KW_REQUIRED:
        if (!json_is_array(v))
            return cfail(c, "must be an array of field names");
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *e = json_array_get(v, i);
            if (!json_is_string(e))
                return cfail(c, "item %zu must be a string", i);
            for (size_t j = 0; j < i; j++)
                if (json_equal(e, json_array_get(v, j)))
                    return cfail(c, "lists '%s' twice", json_string_value(e));
        }
        return 0;
    case KW_SCHEMA:
        return check_node(c, v, depth + 1);
    case KW_ENUM:
        if (!json_is_array(v) || json_array_size(v) == 0)
            return cfail(c, "must be a non-empty array");
        return 0;
    case KW_ANY:
        return 0;
    case KW_COUNT:
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return cfail(c, "must be a non-negative integer");
        return 0;
    case KW_NUMBER:
        if (!json_is_number(v))
            return cfail(c, "must be a number");
        return 0;
    case KW_BOOL:
        if (!json_is_boolean(v))
            return cfail(c, "must be true or false");
        return 0;
    case KW_SCHEMAS:
        if (!json_is_array(v) || json_array_size(v) == 0)
            return cfail(c, "must be a non-empty array of schemas");
        for (size_t i = 0; i < json_array_size(v); i++) {
            size_t old = c->ptr.len;
            int rc;
            mn_buf_printf(&c->ptr, "/%zu", i);
            rc = check_node(c, json_array_get(v, i), depth + 1);
            mn_buf_truncate(&c->ptr, old);
            if (rc)
                return rc;
        }
        return 0;
    case KW_FORMAT:
        if (!json_is_string(v))
            return cfail(c, "must be a string");
        for (size_t i = 0; i < MN_ARRAY_SIZE(formats); i++)
            if (strcmp(json_string_value(v), formats[i]) == 0)
                return 0;
        return cfail(c, "unknown format '%s'", json_string_value(v));
    case KW_STRING:
        if (!json_is_string(v))
            return cfail(c, "must be a string");
        return 0;
    case KW_ARRAY:
        if (!json_is_array(v))
            return cfail(c, "must be an array");
        return 0;
    case KW_UNSUPPORTED:
        break;
    }
    return 0;
}

/* Bounds that contradict each other make a field impossible to fill. */
static int check_consistency(cctx *c, const json_t *s)
{
    static const char *const pairs[][2] = {
        {"minLength", "maxLength"},
        {"minItems", "maxItems"},
        {"minimum", "maximum"},
    };
    const json_t *props = json_object_get(s, "properties");
    const json_t *req = json_object_get(s, "required");

    for (size_t i = 0; i < MN_ARRAY_SIZE(pairs); i++) {
        const json_t *lo = json_object_get(s, pairs[i][0]);
        const json_t *hi = json_object_get(s, pairs[i][1]);
        if (lo && hi && cmp_number(lo, hi) > 0)
            return cfail(c, "'%s' is greater than '%s'", pairs[i][0], pairs[i][1]);
    }
    if (json_is_false(json_object_get(s, "additionalProperties"))) {
        for (size_t i = 0; i < json_array_size(req); i++) {
            const char *name = json_string_value(json_array_get(req, i));
            if (!json_object_get(props, name))
                return cfail(c, "required field '%s' is not in 'properties'", name);
        }
    }
    return 0;
}

static int check_node(cctx *c, const json_t *s, int depth)
{
    json_t *o = (json_t *)s;
    if (json_is_boolean(s))
        return 0;
    if (!json_is_object(s))
        return cfail(c, "a schema must be an object or a boolean");
    if (depth > SCHEMA_MAX_DEPTH)
        return cfail(c, "nested too deeply (at most %d subschemas)", SCHEMA_MAX_DEPTH);

    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
        const char *key = json_object_iter_key(it);
        size_t i, old;
        int rc;
        if (strncmp(key, "x-", 2) == 0)
            continue;
        for (i = 0; i < MN_ARRAY_SIZE(keywords); i++)
            if (strcmp(key, keywords[i].name) == 0)
                break;
        if (i == MN_ARRAY_SIZE(keywords))
            return cfail(c, "unknown keyword '%s'", key);
        if (keywords[i].kind == KW_UNSUPPORTED)
            return cfail(c, "keyword '%s' is not supported by mnemo's schema validator", key);
        old = ptr_push(&c->ptr, key);
        rc = check_keyword(c, keywords[i].kind, json_object_iter_value(it), depth);
        mn_buf_truncate(&c->ptr, old);
        if (rc)
            return rc;
    }
    return check_consistency(c, s);
}

int mn_schema_check(const json_t *schema)
{
    cctx c = {MN_BUF_INIT};
    int rc;
    MN_ASSERT_OR(schema, MN_EINTERNAL);
    rc = check_node(&c, schema, 0);
    mn_buf_release(&c.ptr);
    return rc;
}
