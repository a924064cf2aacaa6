/*
 * test_ini.c - the INI reader: sections, both separators, comments,
 * continuation lines (setup.cfg's install_requires), sections and keys set
 * twice, lines it skips, CRLF, and text it refuses to read (a NUL byte,
 * invalid UTF-8).
 */
#include "common.h"

#include "util/ini.h"
#include "test.h"

static bool parses_to(const char *text, size_t len, const char *want)
{
    json_t *got = mn_ini_parse(text, len), *w = json_loads(want, 0, NULL);
    bool ok = got && w && json_equal(got, w);
    if (!ok) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fprintf(stderr, "ini %.*s\n  got  %s\n  want %s\n", (int)len, text, g ? g : "NULL", want);
        free(g);
    }
    json_decref(got);
    json_decref(w);
    return ok;
}

#define PARSES_TO(text, want) parses_to(text, strlen(text), want)

static void test_setup_cfg(void)
{
    CHECK(PARSES_TO("root = yes\n"
                    "[metadata]\n"
                    "name = shop\n"
                    "Description:  A shop  \n"
                    "# a comment\n"
                    "; another\n"
                    "[options]\n"
                    "install_requires =\n"
                    "    requests>=2\n"
                    "    # not a requirement\n"
                    "    flask\n"
                    "python_requires = >=3.8\n"
                    "[options.entry_points]\n"
                    "console_scripts =\n"
                    "    shop = shop.cli:main\n",
                    "{\"\": {\"root\": \"yes\"},"
                    " \"metadata\": {\"name\": \"shop\", \"Description\": \"A shop\"},"
                    " \"options\": {\"install_requires\": \"requests>=2\\nflask\","
                    " \"python_requires\": \">=3.8\"},"
                    " \"options.entry_points\": {\"console_scripts\": \"shop = shop.cli:main\"}}"));
    /* a value on the key's line and continuations after it */
    CHECK(PARSES_TO("[testenv]\ncommands = pytest\n  coverage report\n",
                    "{\"\": {}, \"testenv\": {\"commands\": \"pytest\\ncoverage report\"}}"));
}

static void test_twice_and_skipped(void)
{
    /* a section named twice is one section; a key set twice keeps its last value */
    CHECK(PARSES_TO("[a]\nx = 1\n[b]\ny = 2\n[a]\nz = 3\nx = 4\n",
                    "{\"\": {}, \"a\": {\"x\": \"4\", \"z\": \"3\"}, \"b\": {\"y\": \"2\"}}"));
    /* no separator, an empty key: skipped; an indented line with no key before it is a key */
    CHECK(PARSES_TO("just words\n= value\n  k = v\n[*]\nindent_style = space\n",
                    "{\"\": {\"k\": \"v\"}, \"*\": {\"indent_style\": \"space\"}}"));
    /* a header starts a new key list: no continuation crosses it */
    CHECK(PARSES_TO("a = 1\n[s]\n  b = 2\n", "{\"\": {\"a\": \"1\"}, \"s\": {\"b\": \"2\"}}"));
    CHECK(PARSES_TO("[s]\r\nk = v\r\n", "{\"\": {}, \"s\": {\"k\": \"v\"}}"));
    CHECK(PARSES_TO("", "{\"\": {}}"));
}

static void test_refused(void)
{
    static const char nul[] = "[s]\nk = v\0w\n";
    CHECK(parses_to(nul, sizeof(nul) - 1, "{\"\": {}}"));
    CHECK(PARSES_TO("[s\xff]\nk = v\n", "{\"\": {}}"));
    CHECK(PARSES_TO("k = \xc3\n", "{\"\": {}}"));
}

MN_TEST_MAIN(MN_TEST(test_setup_cfg), MN_TEST(test_twice_and_skipped), MN_TEST(test_refused))
