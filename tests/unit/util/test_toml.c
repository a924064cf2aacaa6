/*
 * test_toml.c - the lenient TOML reader: documents as projects write them
 * (tables, arrays of tables, dotted and quoted keys, inline tables,
 * multi-line arrays with comments), every kind of string and escape,
 * numbers in each base, dates and other bare words kept as text, what
 * leniency accepts (keys set twice, tables reopened), and syntax errors:
 * the line named, the document before it kept, the nesting limit.
 */
#include "common.h"

#include "util/buf.h"
#include "util/toml.h"
#include "test.h"

/* Parse text; true when it gives exactly the JSON `want` (types included: 1 is not 1.0). */
static bool parses_to(const char *text, const char *want)
{
    json_t *got = NULL, *w = json_loads(want, 0, NULL);
    int rc = mn_toml_parse(&got, text, strlen(text));
    bool ok = rc == 0 && w && json_equal(got, w);
    if (!ok) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fprintf(stderr, "toml %s\n  got  %s (rc %d)\n  want %s\n", text, g ? g : "NULL", rc, want);
        free(g);
    }
    json_decref(got);
    json_decref(w);
    return ok;
}

/* Parse text that has a syntax error: the error names `line`, and what was read is `want`. */
static bool fails_at(const char *text, int line, const char *want)
{
    json_t *got = NULL, *w = json_loads(want, 0, NULL);
    int rc = mn_toml_parse(&got, text, strlen(text));
    char msg[64];
    snprintf(msg, sizeof(msg), "toml: line %d: syntax error", line);
    bool ok = rc == MN_EINVAL && strstr(mn_error_last(), msg) && w && json_equal(got, w);
    if (!ok) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fprintf(stderr, "toml %s\n  got  %s (rc %d: %s)\n  want %s at line %d\n", text,
                g ? g : "NULL", rc, mn_error_last(), want, line);
        free(g);
    }
    mn_error_clear();
    json_decref(got);
    json_decref(w);
    return ok;
}

static void test_manifest(void)
{
    CHECK(parses_to(
        "# a manifest\n"
        "[build-system]\n"
        "requires = [\"hatchling\"]  # the backend\n"
        "build-backend = \"hatchling.build\"\n"
        "\n"
        "[project]\n"
        "name = \"shop\"\n"
        "dependencies = [\n"
        "  \"requests>=2\",  # http\n"
        "  # a comment line inside the array\n"
        "  'flask',\n"
        "]\n"
        "scripts.shop = \"shop.cli:main\"\n"
        "\"py.name\" = 1\n"
        "[project.urls]\n"
        "Home = \"https://example.org\"\n"
        "[tool.poetry.dependencies]\n"
        "python = \"^3.10\"\n"
        "attrs = { version = \"23\", optional = true, extras.x = [] }\n",
        "{\"build-system\": {\"requires\": [\"hatchling\"],"
        " \"build-backend\": \"hatchling.build\"},"
        " \"project\": {\"name\": \"shop\", \"dependencies\": [\"requests>=2\", \"flask\"],"
        " \"scripts\": {\"shop\": \"shop.cli:main\"}, \"py.name\": 1,"
        " \"urls\": {\"Home\": \"https://example.org\"}},"
        " \"tool\": {\"poetry\": {\"dependencies\": {\"python\": \"^3.10\","
        " \"attrs\": {\"version\": \"23\", \"optional\": true, \"extras\": {\"x\": []}}}}}}"));
    /* arrays of tables: a key or a sub-table goes into the last element */
    CHECK(parses_to("[[bin]]\nname = \"a\"\n[[bin]]\nname = \"b\"\n[bin.meta]\nx = 1\n"
                    "[[bin.tests]]\nt = 1\n",
                    "{\"bin\": [{\"name\": \"a\"},"
                    " {\"name\": \"b\", \"meta\": {\"x\": 1}, \"tests\": [{\"t\": 1}]}]}"));
    CHECK(parses_to("", "{}"));
    CHECK(parses_to("\r\n# only a comment\r\n a = 1 \r\n", "{\"a\": 1}"));
}

static void test_strings(void)
{
    CHECK(parses_to("a = \"tab\\there \\\"q\\\" back\\\\slash \\u00e9 \\U0001F600 \\e\"",
                    "{\"a\": \"tab\\there \\\"q\\\" back\\\\slash \\u00e9 \\ud83d\\ude00 "
                    "\\u001b\"}"));
    CHECK(parses_to("a = 'C:\\path\\n'", "{\"a\": \"C:\\\\path\\\\n\"}"));
    /* multi-line: the first newline dropped, a line-ending backslash eats what follows */
    CHECK(parses_to("a = \"\"\"\none \\\n    two\nthree\"\"\"", "{\"a\": \"one two\\nthree\"}"));
    CHECK(parses_to("a = '''\nraw \\n\nlines'''", "{\"a\": \"raw \\\\n\\nlines\"}"));
    /* up to two quotes right before the closing three belong to the string */
    CHECK(parses_to("a = \"\"\"say \"hi\"\"\"\"\"", "{\"a\": \"say \\\"hi\\\"\\\"\"}"));
    CHECK(parses_to("a = \"\"", "{\"a\": \"\"}"));
    CHECK(fails_at("a = 1\nb = \"open\nc = 2\n", 2, "{\"a\": 1}"));
    CHECK(fails_at("a = \"\\q\"", 1, "{}"));
    CHECK(fails_at("a = \"\\uD800\"", 1, "{}"));
    CHECK(fails_at("a = \"\\u12\"", 1, "{}"));
}

static void test_scalars(void)
{
    CHECK(parses_to("a = 1_000\nb = -7\nc = 0xff\nd = 0o17\ne = 0b101\nf = 3.5\ng = 1e3\n"
                    "h = true\ni = false\n",
                    "{\"a\": 1000, \"b\": -7, \"c\": 255, \"d\": 15, \"e\": 5, \"f\": 3.5,"
                    " \"g\": 1000.0, \"h\": true, \"i\": false}"));
    /* dates, times, infinities and other bare words are kept as their text */
    CHECK(parses_to("a = 1979-05-27T07:32:00Z\nb = 1979-05-27 07:32:00\nc = 07:32:00\n"
                    "d = inf\ne = nan\nf = bare\n",
                    "{\"a\": \"1979-05-27T07:32:00Z\", \"b\": \"1979-05-27 07:32:00\","
                    " \"c\": \"07:32:00\", \"d\": \"inf\", \"e\": \"nan\", \"f\": \"bare\"}"));
    /* too big for 64 bits: a real */
    CHECK(parses_to("a = 99999999999999999999", "{\"a\": 1e20}"));
}

static void test_lenient(void)
{
    /* set twice: the last value wins; a table reopened is the same table */
    CHECK(parses_to("a = 1\na = 2\n[t]\nx = 1\n[u]\n[t]\ny = 2\n",
                    "{\"a\": 2, \"t\": {\"x\": 1, \"y\": 2}, \"u\": {}}"));
    CHECK(parses_to("a = [1, \"two\", [3], {b = 4}]", "{\"a\": [1, \"two\", [3], {\"b\": 4}]}"));
}

static void test_errors(void)
{
    CHECK(fails_at("a = 1\n[t\nb = 2\n", 2, "{\"a\": 1}"));
    CHECK(fails_at("a = 1\n\njust words\n", 3, "{\"a\": 1}"));
    CHECK(fails_at("[t]\nx = \n", 2, "{\"t\": {}}"));
    CHECK(fails_at("a = [1, 2\nb = 3\n", 2, "{}"));
    CHECK(fails_at("a = {b = 1", 1, "{}"));
    /* the value is read before the rest of its line is found wrong */
    CHECK(fails_at("a = 1 b = 2\nc = 3\n", 1, "{\"a\": 1}"));
    /* a key through a value that is not a table */
    CHECK(fails_at("a = 1\na.b = 2\n", 2, "{\"a\": 1}"));
    CHECK(fails_at("a = 1\n[a.b]\n", 2, "{\"a\": 1}"));
}

static void test_depth(void)
{
    mn_buf ok = MN_BUF_INIT, deep = MN_BUF_INIT;
    mn_buf_puts(&ok, "a = ");
    mn_buf_puts(&deep, "a = ");
    for (int i = 0; i < 64; i++)
        mn_buf_putc(&ok, '[');
    for (int i = 0; i < 64; i++)
        mn_buf_putc(&ok, ']');
    for (int i = 0; i < 65; i++)
        mn_buf_putc(&deep, '[');
    for (int i = 0; i < 65; i++)
        mn_buf_putc(&deep, ']');
    json_t *v = NULL;
    CHECK(mn_toml_parse(&v, ok.ptr, ok.len) == 0);
    json_t *x = json_object_get(v, "a");
    int levels = 0;
    while (json_is_array(x))
        levels++, x = json_array_get(x, 0);
    CHECK(levels == 64);
    json_decref(v);
    CHECK(mn_toml_parse(&v, deep.ptr, deep.len) == MN_EINVAL);
    CHECK(v && json_object_size(v) == 0);
    mn_error_clear();
    json_decref(v);
    mn_buf_release(&ok);
    mn_buf_release(&deep);
}

MN_TEST_MAIN(MN_TEST(test_manifest), MN_TEST(test_strings), MN_TEST(test_scalars),
             MN_TEST(test_lenient), MN_TEST(test_errors), MN_TEST(test_depth))
