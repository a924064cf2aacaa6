/*
 * test_yaml.c - JSON <-> YAML: exact round trips of tricky and random
 * values, byte-identical re-emission, how plain scalars resolve, the
 * readability of the output, and the refusals (syntax, duplicate keys,
 * non-scalar keys, alias bombs, nesting depth, invalid UTF-8).
 */
#include "common.h"

#include <float.h>
#include <math.h>

#include "util/yaml.h"
#include "test.h"

/* Strict equality: same types (1 vs 1.0), key order, bytes, sign of zero. */
static bool same(const json_t *a, const json_t *b)
{
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_OBJECT: {
        if (json_object_size(a) != json_object_size(b))
            return false;
        void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);
        for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
                         ib = json_object_iter_next((json_t *)b, ib)) {
            size_t la = json_object_iter_key_len(ia), lb = json_object_iter_key_len(ib);
            if (la != lb || memcmp(json_object_iter_key(ia), json_object_iter_key(ib), la) != 0)
                return false;
            if (!same(json_object_iter_value(ia), json_object_iter_value(ib)))
                return false;
        }
        return !ia && !ib;
    }
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++) {
            if (!same(json_array_get(a, i), json_array_get(b, i)))
                return false;
        }
        return true;
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    case JSON_INTEGER:
        return json_integer_value(a) == json_integer_value(b);
    case JSON_REAL: {
        double x = json_real_value(a), y = json_real_value(b);
        return memcmp(&x, &y, sizeof(x)) == 0;
    }
    default:
        return true;
    }
}

/* Emit v alone and in a stream; both must parse back to v and re-emit the same bytes. */
static bool round_trips(const json_t *v)
{
    mn_buf y1 = MN_BUF_INIT, y2 = MN_BUF_INIT, s1 = MN_BUF_INIT, s2 = MN_BUF_INIT;
    json_t *back = NULL, *sback = NULL, *docs = json_pack("[OO]", v, v);
    bool ok = false;

    if (mn_yaml_emit(&y1, v) != 0 || mn_yaml_parse_docs(&back, y1.ptr, y1.len) != 0)
        goto out;
    if (json_array_size(back) != 1 || !same(v, json_array_get(back, 0)))
        goto out;
    if (mn_yaml_emit(&y2, json_array_get(back, 0)) != 0 || y1.len != y2.len ||
        memcmp(y1.ptr, y2.ptr, y1.len) != 0)
        goto out;
    if (mn_yaml_emit_docs(&s1, docs) != 0 || mn_yaml_parse_docs(&sback, s1.ptr, s1.len) != 0)
        goto out;
    if (!same(docs, sback) || mn_yaml_emit_docs(&s2, sback) != 0 || s1.len != s2.len ||
        memcmp(s1.ptr, s2.ptr, s1.len) != 0)
        goto out;
    ok = true;
out:
    if (!ok) {
        char *dump = json_dumps(v, JSON_ENCODE_ANY);
        fprintf(stderr, "no round trip for %s (%s)\n--- yaml:\n%s---\n", dump, mn_error_last(),
                y1.ptr);
        free(dump);
    }
    json_decref(back);
    json_decref(sback);
    json_decref(docs);
    mn_buf_release(&y1);
    mn_buf_release(&y2);
    mn_buf_release(&s1);
    mn_buf_release(&s2);
    return ok;
}

static const char *const tricky[] = {"",
                                     "yes",
                                     "no",
                                     "on",
                                     "off",
                                     "Yes",
                                     "NO",
                                     "On",
                                     "OFF",
                                     "y",
                                     "n",
                                     "Y",
                                     "true",
                                     "false",
                                     "True",
                                     "FALSE",
                                     "null",
                                     "Null",
                                     "NULL",
                                     "nULL",
                                     "~",
                                     "0x1F",
                                     "0o17",
                                     "0b101",
                                     "017",
                                     "1e3",
                                     "1E3",
                                     "1.",
                                     ".5",
                                     "-1",
                                     "+1",
                                     "1_000",
                                     "12:30",
                                     "1:2:3",
                                     "2024-01-02",
                                     "2024-01-02 10:00:00 +1",
                                     ".inf",
                                     "-.inf",
                                     ".NaN",
                                     "+.INF",
                                     "99999999999999999999",
                                     "1e999",
                                     "-",
                                     "--",
                                     "---",
                                     "...",
                                     "- a",
                                     "-a",
                                     ": x",
                                     "x:",
                                     "a: b",
                                     "a :b",
                                     "#x",
                                     "a #b",
                                     "a#b",
                                     "?",
                                     "? x",
                                     "!x",
                                     "&a",
                                     "*a",
                                     "|",
                                     ">",
                                     "%x",
                                     "@x",
                                     "`x",
                                     "'",
                                     "\"",
                                     "\\",
                                     "[",
                                     "]",
                                     "{",
                                     "}",
                                     ",",
                                     "a, b",
                                     "{a: b}",
                                     "<<",
                                     "=",
                                     " lead",
                                     "trail ",
                                     " both ",
                                     "  ",
                                     "\t",
                                     "a\tb",
                                     "\n",
                                     "\n\n",
                                     "a\n",
                                     "a\n\n",
                                     "\na",
                                     " \na",
                                     "a \nb",
                                     "a\n b",
                                     "a\n\n\nb\n",
                                     "line1\r\nline2\r\n",
                                     "\r",
                                     "a\rb",
                                     "\x01\x02\x1f\x7f",
                                     "\xc2\x85nel",
                                     "a\xe2\x80\xa8"
                                     "b",
                                     "\xe2\x80\xa9",
                                     "\xef\xbb\xbf"
                                     "bom",
                                     "caf\xc3\xa9",
                                     "\xf0\x9f\x98\x80 emoji",
                                     "\xee\x80\x80 pua \xf0\x9f\x98\x80",
                                     "\xef\xbf\xbe",
                                     "\xe4\xb8\xad\xe6\x96\x87",
                                     "\xc2\xa0nbsp\xc2\xa0",
                                     "  indented\n    more\n",
                                     "trailing\n  ",
                                     "last line no newline\nx",
                                     "tabs\n\tin block\n",
                                     "x\n# not a comment\n",
                                     "---\n...\n",
                                     "  \n  \n",
                                     "a\n \n",
                                     "0",
                                     "-0",
                                     "00",
                                     "0.0",
                                     "1.0"};

static void test_tricky_strings(void)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(tricky); i++) {
        json_t *s = json_string(tricky[i]);
        json_t *obj = json_object(), *arr = json_pack("[s,O,s]", "before", s, "after");
        json_object_set(obj, tricky[i], s);
        json_object_set_new(obj, "next", json_string("v"));
        json_t *nested = json_pack("{s:{s:[O]}}", "a", "b", obj);
        CHECK(round_trips(s));
        CHECK(round_trips(obj));
        CHECK(round_trips(arr));
        CHECK(round_trips(nested));
        json_decref(s);
        json_decref(obj);
        json_decref(arr);
        json_decref(nested);
    }
    /* Embedded NUL bytes, in a value and in a key. */
    json_t *nul = json_stringn("a\0b", 3);
    json_t *obj = json_object();
    json_object_setn(obj, "k\0ey", 4, nul);
    CHECK(round_trips(nul));
    CHECK(round_trips(obj));
    json_decref(nul);
    json_decref(obj);
    /* A long line must not be folded, nor a long key. */
    mn_buf big = MN_BUF_INIT;
    for (int i = 0; i < 500; i++)
        mn_buf_puts(&big, "word ");
    json_t *long_s = json_stringn(big.ptr, big.len);
    json_t *long_k = json_object();
    json_object_setn(long_k, big.ptr, big.len, long_s);
    CHECK(round_trips(long_s));
    CHECK(round_trips(long_k));
    json_decref(long_s);
    json_decref(long_k);
    mn_buf_release(&big);
}

static void test_numbers_and_constants(void)
{
    json_t *v = json_pack("[I,I,I,i,f,f,f,f,f,f,f,f,f,f,b,b,n]", (json_int_t)INT64_MAX,
                          (json_int_t)INT64_MIN, (json_int_t)0, -7, 1.0, -0.0, 0.0, 0.1, 1e300,
                          5e-324, DBL_MAX, -DBL_MIN, 123456789012345680000.0, 1.0 / 3.0, 1, 0);
    REQUIRE(v);
    CHECK(round_trips(v));
    mn_buf y = MN_BUF_INIT;
    json_t *one = json_real(1.0), *big = json_real(1e300);
    CHECK_OK(mn_yaml_emit(&y, one));
    CHECK_STR(y.ptr, "1.0\n");
    mn_buf_clear(&y);
    CHECK_OK(mn_yaml_emit(&y, big));
    CHECK_STR(y.ptr, "1.0e+300\n");
    mn_buf_release(&y);
    json_decref(one);
    json_decref(big);
    json_decref(v);
}

/* ---- random values ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t x = rng_state; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 2685821657736338717u;
}

static const char *const pieces[] = {"a",
                                     "b",
                                     "word",
                                     " ",
                                     "  ",
                                     "\n",
                                     "\n\n",
                                     "\t",
                                     "\r",
                                     "\r\n",
                                     "#",
                                     ":",
                                     ": ",
                                     "-",
                                     "- ",
                                     "?",
                                     "'",
                                     "\"",
                                     "\\",
                                     "[",
                                     "]",
                                     "{",
                                     "}",
                                     ",",
                                     "&",
                                     "*",
                                     "!",
                                     "|",
                                     ">",
                                     "%",
                                     "@",
                                     "`",
                                     "~",
                                     "yes",
                                     "No",
                                     "null",
                                     "true",
                                     "0",
                                     "1",
                                     "42",
                                     ".",
                                     "e",
                                     "E5",
                                     "0x",
                                     "1F",
                                     "+",
                                     "...",
                                     "---",
                                     "\xc3\xa9",
                                     "\xf0\x9f\x98\x80",
                                     "\xc2\x85",
                                     "\xe2\x80\xa8",
                                     "\xef\xbb\xbf",
                                     "\x01",
                                     "\x7f",
                                     "\xc2\xa0",
                                     "<<",
                                     "=",
                                     ".inf",
                                     "\xee\x80\x80",
                                     "\xee\x80\x81",
                                     "\xf0\x9f\x9a\x80",
                                     "\xef\xbf\xbe",
                                     "\xf4\x8f\xbf\xbf"};

static json_t *random_string(void)
{
    mn_buf b = MN_BUF_INIT;
    int n = (int)(rng() % 7);
    for (int i = 0; i < n; i++)
        mn_buf_puts(&b, pieces[rng() % MN_ARRAY_SIZE(pieces)]);
    if (rng() % 40 == 0)
        mn_buf_put(&b, "\0z", 2);
    json_t *s = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return s;
}

static json_t *random_value(int depth)
{
    unsigned kind = (unsigned)(rng() % (depth < 6 ? 10 : 7));
    switch (kind) {
    case 0:
        return json_integer((json_int_t)rng() >> (rng() % 64));
    case 1: {
        double d;
        uint64_t bits = rng();
        memcpy(&d, &bits, sizeof(d));
        if (isnan(d) || isinf(d))
            d = (double)(int64_t)rng() / 1024.0;
        return json_real(rng() % 2 ? d : (double)(rng() % 100));
    }
    case 2:
        return rng() % 3 == 0 ? json_null() : json_boolean(rng() % 2);
    case 3:
    case 4:
    case 5:
    case 6:
        return random_string();
    case 7:
    case 8: {
        json_t *a = json_array();
        int n = (int)(rng() % 5);
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        int n = (int)(rng() % 5);
        for (int i = 0; i < n; i++) {
            json_t *k = random_string();
            json_object_setn_new(o, json_string_value(k), json_string_length(k),
                                 random_value(depth + 1));
            json_decref(k);
        }
        return o;
    }
    }
}

static void test_random_round_trip(void)
{
    rng_state = 0x9e3779b97f4a7c15u;
    int failures = 0;
    for (int i = 0; i < 2000 && failures < 5; i++) {
        json_t *v = random_value(0);
        if (!round_trips(v))
            failures++;
        json_decref(v);
    }
    CHECK(failures == 0);
}

/* ---- parsing ---- */

static json_t *parse_one(const char *text)
{
    json_t *docs = NULL;
    if (mn_yaml_parse_docs(&docs, text, strlen(text)) != 0) {
        fprintf(stderr, "parse of '%s' failed: %s\n", text, mn_error_last());
        return NULL;
    }
    json_t *v = json_incref(json_array_get(docs, 0));
    json_decref(docs);
    return v;
}

static bool parses_to(const char *yaml, const char *json)
{
    json_t *want = json_loads(json, JSON_DECODE_ANY, NULL);
    json_t *got = parse_one(yaml);
    bool ok = want && got && same(want, got);
    if (!ok) {
        char *dump = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
        fprintf(stderr, "'%s' parsed to %s, want %s\n", yaml, dump ? dump : "(error)", json);
        free(dump);
    }
    json_decref(want);
    json_decref(got);
    return ok;
}

static void test_resolution(void)
{
    CHECK(parses_to("[yes, No, ON, off, TRUE, false]", "[true,false,true,false,true,false]"));
    CHECK(parses_to("[null, Null, NULL, ~, ]", "[null,null,null,null]"));
    CHECK(parses_to("a:\nb: ~", "{\"a\":null,\"b\":null}"));
    CHECK(parses_to("[0x1F, 0o17, 017, -5, +5, 9223372036854775807, -9223372036854775808]",
                    "[31,15,17,-5,5,9223372036854775807,-9223372036854775808]"));
    CHECK(parses_to("[1e3, 1.5, .5, -1., 1.0e+300]", "[1000.0,1.5,0.5,-1.0,1e300]"));
    CHECK(parses_to("- 'yes'\n- \"1\"\n- !!str 2\n- ! 3\n- |\n  4\n- >-\n  5\n  6\n",
                    "[\"yes\",\"1\",\"2\",\"3\",\"4\\n\",\"5 6\"]"));
    CHECK(parses_to("[!!int '7', !!float 2, !!bool 'no', !!null '']", "[7,2.0,false,null]"));
    CHECK(parses_to("[y, n, 1_000, 0b1, 12:30, 2024-01-02, 0x, a b]",
                    "[\"y\",\"n\",\"1_000\",\"0b1\",\"12:30\",\"2024-01-02\",\"0x\",\"a b\"]"));
    CHECK(parses_to("{1: a, true: b, null: c}", "{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\"}"));
    CHECK(parses_to("z: 1\na: 2\nm: 3", "{\"z\":1,\"a\":2,\"m\":3}"));
    CHECK(parses_to("a: &x {k: [1, 2]}\nb: *x\nc: &k key\n*k : w",
                    "{\"a\":{\"k\":[1,2]},\"b\":{\"k\":[1,2]},\"c\":\"key\",\"key\":\"w\"}"));
    CHECK(parses_to("\xef\xbb\xbf"
                    "a: 1",
                    "{\"a\":1}"));
}

static void test_multi_document(void)
{
    json_t *docs = NULL;
    const char *text = "--- 1\n---\na: b\n...\n--- [x]\n---\n";
    REQUIRE_OK(mn_yaml_parse_docs(&docs, text, strlen(text)));
    json_t *want = json_loads("[1, {\"a\":\"b\"}, [\"x\"], null]", 0, NULL);
    CHECK(same(docs, want));
    json_decref(want);
    json_decref(docs);

    REQUIRE_OK(mn_yaml_parse_docs(&docs, NULL, 0));
    CHECK(json_array_size(docs) == 0);
    json_decref(docs);

    /* Anchors are per document. */
    text = "--- &a 1\n--- *a\n";
    CHECK(mn_yaml_parse_docs(&docs, text, strlen(text)) == MN_EINVAL);
    CHECK(docs == NULL);
    CHECK(strstr(mn_error_last(), "line 2") != NULL);

    /* An emitted stream has one "---" per document. */
    json_t *in = json_pack("[{s:s},s,[],{}]", "id", "m1", "two");
    mn_buf y = MN_BUF_INIT;
    REQUIRE_OK(mn_yaml_emit_docs(&y, in));
    CHECK_STR(y.ptr, "---\nid: m1\n--- two\n--- []\n--- {}\n");
    REQUIRE_OK(mn_yaml_parse_docs(&docs, y.ptr, y.len));
    CHECK(same(in, docs));
    json_decref(docs);
    json_decref(in);
    mn_buf_release(&y);
}

static void expect_error(const char *text, const char *needle)
{
    json_t *docs = (json_t *)1;
    int rc = mn_yaml_parse_docs(&docs, text, strlen(text));
    CHECK(rc == MN_EINVAL);
    CHECK(docs == NULL);
    if (!strstr(mn_error_last(), needle)) {
        fprintf(stderr, "error for '%.40s' is '%s', want '%s'\n", text, mn_error_last(), needle);
        CHECK(false);
    }
}

static void test_errors(void)
{
    expect_error("a: 1\nb: [1, 2\nc: 3\n", "yaml: line ");
    expect_error("a: 1\n  b: 2\n", "yaml: line 2, column ");
    expect_error("key: \"unterminated\n", "yaml: line ");
    expect_error("a: 1\nb: 2\na: 3\n", "yaml: line 3, column 1: duplicate key 'a'");
    expect_error("? [a, b]\n: c\n", "mapping keys must be scalars");
    expect_error("{a: 1}: x\n", "yaml: line 1");
    expect_error("&k key: v\n*k : w\n", "line 2, column 1: duplicate key 'key'");
    expect_error("? |\n  a\n  b\n: 1\n? |\n  a\n  b\n: 2\n", "duplicate key 'a?b?'");
    expect_error("- *nope\n", "unknown anchor 'nope'");
    expect_error("&a [*a]\n", "unknown anchor 'a'");
    expect_error("x: .inf\n", "line 1, column 4");
    expect_error("x: 99999999999999999999\n", "integer out of range");
    expect_error("x: !!binary aGVsbG8=\n", "unsupported tag");
    expect_error("x: !!int abc\n", "does not match its tag");
    expect_error("a: \xff\n", "yaml: line 1, column 4");
    expect_error("a: \x01\n", "yaml: line 1");

    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                       "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    expect_error(bomb, "alias bomb");

    /* Depth: 64 nested collections are fine both ways, 65 are refused both ways. */
    mn_buf deep = MN_BUF_INIT;
    for (int i = 0; i < 64; i++)
        mn_buf_putc(&deep, '[');
    for (int i = 0; i < 64; i++)
        mn_buf_putc(&deep, ']');
    json_t *docs = NULL;
    CHECK_OK(mn_yaml_parse_docs(&docs, deep.ptr, deep.len));
    CHECK(round_trips(json_array_get(docs, 0)));
    json_t *deeper = json_array();
    json_array_append(deeper, json_array_get(docs, 0));
    mn_buf y = MN_BUF_INIT;
    mn_buf_puts(&y, "keep");
    CHECK(mn_yaml_emit(&y, deeper) == MN_EINVAL);
    CHECK_STR(y.ptr, "keep");
    json_decref(deeper);
    json_decref(docs);
    mn_buf_clear(&deep);
    for (int i = 0; i < 65; i++)
        mn_buf_puts(&deep, "- ");
    mn_buf_puts(&deep, "x\n");
    expect_error(deep.ptr, "deeper than 64");
    expect_error("a: &a [[[[[[[[[[1]]]]]]]]]]\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                 "[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
                 "deeper than 64");
    mn_buf_release(&deep);

    /* Values YAML cannot carry. */
    json_t *bad = json_pack("{s:o}", "k", json_stringn_nocheck("\xff\xfe", 2));
    CHECK(mn_yaml_emit(&y, bad) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "utf-8") != NULL);
    CHECK_STR(y.ptr, "keep");
    json_t *not_array = json_object();
    CHECK(mn_yaml_emit_docs(&y, not_array) == MN_EINVAL);
    json_decref(not_array);
    json_decref(bad);
    mn_buf_release(&y);
}

static void test_readability(void)
{
    json_t *m = json_pack("{s:s,s:s,s:[s,s],s:s,s:s,s:i,s:s,s:[],s:{}}", "id", "m-42", "body",
                          "First line.\nSecond line: with colon.\n\n- a list item\n", "tags",
                          "build", "yes", "title", "Fix the flaky test", "note", "no newline\nend",
                          "count", 3, "when", "2024-05-01T10:00:00Z", "refs", "meta");
    mn_buf y = MN_BUF_INIT;
    REQUIRE_OK(mn_yaml_emit(&y, m));
    CHECK_STR(y.ptr, "id: m-42\n"
                     "body: |\n"
                     "  First line.\n"
                     "  Second line: with colon.\n"
                     "\n"
                     "  - a list item\n"
                     "tags:\n"
                     "- build\n"
                     "- 'yes'\n"
                     "title: Fix the flaky test\n"
                     "note: |-\n"
                     "  no newline\n"
                     "  end\n"
                     "count: 3\n"
                     "when: '2024-05-01T10:00:00Z'\n"
                     "refs: []\n"
                     "meta: {}\n");
    CHECK(round_trips(m));
    json_decref(m);
    mn_buf_release(&y);
}

static void test_astral_characters(void)
{
    /* Emoji stay raw, and do not push a body out of its literal block. */
    json_t *m = json_pack("{s:s,s:s}", "title", "ship it \xf0\x9f\x9a\x80", "body",
                          "done \xe2\x9c\x85\nnext \xf0\x9f\x98\x80\xee\x80\x80\n");
    mn_buf y = MN_BUF_INIT;
    REQUIRE_OK(mn_yaml_emit(&y, m));
    CHECK_STR(y.ptr, "title: ship it \xf0\x9f\x9a\x80\n"
                     "body: |\n"
                     "  done \xe2\x9c\x85\n"
                     "  next \xf0\x9f\x98\x80\xee\x80\x80\n");
    CHECK(round_trips(m));
    json_decref(m);

    /* Every private-use character taken: the emoji fall back to escapes. */
    mn_buf all = MN_BUF_INIT;
    for (unsigned cp = 0xe000; cp <= 0xf8ff; cp++) {
        char u[3] = {(char)(0xe0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3f)),
                     (char)(0x80 | (cp & 0x3f))};
        mn_buf_put(&all, u, 3);
    }
    mn_buf_puts(&all, "\xf0\x9f\x98\x80");
    json_t *s = json_pack("[s%,s]", all.ptr, all.len, "\xf0\x9f\x9a\x80");
    CHECK(round_trips(s));
    mn_buf_clear(&y);
    REQUIRE_OK(mn_yaml_emit(&y, s));
    CHECK(strstr(y.ptr, "\\U0001F680") != NULL);
    json_decref(s);
    mn_buf_release(&all);
    mn_buf_release(&y);
}

static void test_large_input(void)
{
    /* Linear, not quadratic: 200,000 small mappings and one 8 MB scalar. */
    json_t *a = json_array();
    for (int i = 0; i < 200000; i++)
        json_array_append_new(a, json_pack("{s:i,s:s}", "n", i, "s", "text"));
    mn_buf big = MN_BUF_INIT;
    for (int i = 0; i < (8 << 20) / 16; i++)
        mn_buf_puts(&big, "0123456789abcde\n");
    json_array_append_new(a, json_stringn(big.ptr, big.len));
    mn_buf y = MN_BUF_INIT;
    json_t *back = NULL;
    REQUIRE_OK(mn_yaml_emit(&y, a));
    REQUIRE_OK(mn_yaml_parse_docs(&back, y.ptr, y.len));
    CHECK(same(a, json_array_get(back, 0)));
    json_decref(back);
    json_decref(a);
    mn_buf_release(&y);
    mn_buf_release(&big);
}

MN_TEST_MAIN(MN_TEST(test_tricky_strings), MN_TEST(test_numbers_and_constants),
             MN_TEST(test_random_round_trip), MN_TEST(test_resolution),
             MN_TEST(test_multi_document), MN_TEST(test_errors), MN_TEST(test_readability),
             MN_TEST(test_astral_characters), MN_TEST(test_large_input))
