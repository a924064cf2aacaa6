/*
 * testpaths.c - the test code a project declares (testpaths.h says which
 * manifests and keys). classify.c knows the conventions of test names;
 * a project that keeps its tests elsewhere says so in its manifests
 * (pytest's `testpaths = ["testing"]`, a Gradle source set in
 * src/integration/java), and there its word is the rule.
 *
 * Each manifest is read at the root of the tree, bounded, without
 * following a link; JSON through jansson, TOML and INI through util/, XML
 * and Gradle scripts scanned as text. Paths are kept repo-relative and
 * normalised ("./test/" -> "test", "<rootDir>/src" -> "src"); one that
 * leaves the tree ("../x") is dropped.
 */
#include "common.h"
#include <ctype.h>
#include <jansson.h>

#include "index/testpaths.h"
#include "util/ini.h"
#include "util/toml.h"
#include "util/util.h"

void mn_test_paths_add(mn_test_paths *tp, const char *path, size_t len)
{
    while (len && (*path == ' ' || *path == '\t'))
        path++, len--;
    while (len && (path[len - 1] == ' ' || path[len - 1] == '\t' || path[len - 1] == '\r' ||
                   path[len - 1] == '/'))
        len--;
    if (len >= 10 && memcmp(path, "<rootDir>", 9) == 0)
        path += 9, len -= 9;
    while (len >= 2 && path[0] == '.' && path[1] == '/')
        path += 2, len -= 2;
    while (len && *path == '/') /* <rootDir>/x: the root's x */
        path++, len--;
    if (len == 0 || (len == 1 && *path == '.') || tp->n >= MN_TEST_PATHS_MAX)
        return;
    for (size_t i = 0; i + 1 < len; i++)
        if (path[i] == '.' && path[i + 1] == '.' && (i == 0 || path[i - 1] == '/'))
            return; /* outside the tree */
    for (size_t i = 0; i < len; i++)
        if (path[i] == '\\' || path[i] == '\0' || path[i] == '\n')
            return;
    for (size_t i = 0; i < tp->n; i++)
        if (strlen(tp->paths[i]) == len && memcmp(tp->paths[i], path, len) == 0)
            return;
    tp->paths[tp->n++] = mn_strndup(path, len);
}

bool mn_test_paths_has(const mn_test_paths *tp, const char *path)
{
    if (!tp || !path)
        return false;
    size_t pl = strlen(path);
    for (size_t i = 0; i < tp->n; i++) {
        size_t l = strlen(tp->paths[i]);
        if (pl >= l && memcmp(path, tp->paths[i], l) == 0 && (pl == l || path[l] == '/'))
            return true;
    }
    return false;
}

void mn_test_paths_release(mn_test_paths *tp)
{
    for (size_t i = 0; i < tp->n; i++)
        free(tp->paths[i]);
    memset(tp, 0, sizeof(*tp));
}

/* root/name into buf; false when absent, a link, not a regular file or too large. */
static bool read_root(mn_buf *buf, const char *root, const char *name)
{
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/%s", root, name);
    mn_buf_clear(buf);
    int rc = mn_fs_read_regular(buf, path.ptr, MN_TEST_PATHS_READ_MAX);
    mn_buf_release(&path);
    mn_error_clear();
    return rc == 0 && buf->len > 0 && !memchr(buf->ptr, '\0', buf->len);
}

/* A value of testpaths: a TOML array of strings, or an INI string of words. */
static void add_words(mn_test_paths *tp, const json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e) if (json_is_string(e))
            mn_test_paths_add(tp, json_string_value(e), json_string_length(e));
        return;
    }
    if (!json_is_string(v))
        return;
    const char *s = json_string_value(v);
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',')
            s++;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r' && *e != ',')
            e++;
        /* pytest splits the value as a shell would: "astropy" is astropy */
        if (e - s >= 2 && (*s == '"' || *s == '\'') && e[-1] == *s)
            mn_test_paths_add(tp, s + 1, (size_t)(e - s - 2));
        else if (e > s)
            mn_test_paths_add(tp, s, (size_t)(e - s));
        s = e;
    }
}

static bool names_test_files(const char *pattern)
{
    return strstr(pattern, "test") || strstr(pattern, "spec") || strstr(pattern, "Test");
}

/*
 * The literal directory before a glob's first wildcard: "<rootDir>/test/"
 * then a wildcard: "test". Only when the rest takes every file there: in
 * create-react-app's patterns, "<rootDir>/src/" then a wildcard and
 * "__tests__" (or ".test.js"), the rest names the test files and src/
 * holds the sources too (classify.c knows those names).
 */
static void glob_dir(mn_test_paths *tp, const char *g)
{
    const char *w = g + strcspn(g, "*?[{(!");
    const char *slash = NULL;
    for (const char *p = g; p < w; p++)
        if (*p == '/')
            slash = p;
    if (slash && !names_test_files(slash + 1))
        mn_test_paths_add(tp, g, (size_t)(slash - g));
}

/* A testRegex's leading directory: "/test/.*\\.js$", "^test/": test; not when the rest
 * names the test files ("^src/.*\\.test\\.js$": src holds sources too). */
static void regex_dir(mn_test_paths *tp, const char *r)
{
    if (*r == '^')
        r++;
    if (*r == '/')
        r++;
    const char *e = r;
    while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') ||
           *e == '_' || *e == '-')
        e++;
    if (e > r && *e == '/' && !names_test_files(e + 1))
        mn_test_paths_add(tp, r, (size_t)(e - r));
}

/* The words of a value (add_words' reading) as a JSON array of strings. */
static json_t *words_of(const json_t *v)
{
    mn_test_paths tmp = {0};
    add_words(&tmp, v);
    json_t *a = json_array();
    for (size_t i = 0; i < tmp.n; i++)
        json_array_append_new(a, json_string(tmp.paths[i]));
    mn_test_paths_release(&tmp);
    return a;
}

/*
 * One pytest configuration section. testpaths are where pytest looks for
 * tests, not test code: which files there are tests is python_files' word
 * (default "test_*.py *_test.py", names classify.c knows). Projects that
 * keep their tests inside the package declare the package: sympy
 * `testpaths = sympy doc/src`, matplotlib `lib examples` (python_files =
 * test_*.py), astropy `"astropy" "docs"`; reading those as test trees made
 * every source file of sympy and matplotlib a test. So, as Jest's roots: the testpaths are test
 * trees only when python_files takes every file under them (no pattern names a test convention:
 * `python_files = *.py`); a pattern with a directory (pytest's own, "testing/python/" then a
 * wildcard) names that directory.
 */
static void pytest_section(mn_test_paths *tp, const json_t *section)
{
    json_t *paths = words_of(json_object_get(section, "testpaths"));
    json_t *files = words_of(json_object_get(section, "python_files"));
    bool conventions = json_array_size(files) == 0; /* the default names test files */
    size_t i;
    json_t *e;
    json_array_foreach(files, i, e)
    {
        conventions |= names_test_files(json_string_value(e));
        glob_dir(tp, json_string_value(e));
    }
    if (!conventions)
        json_array_foreach(paths, i, e)
            mn_test_paths_add(tp, json_string_value(e), json_string_length(e));
    json_decref(paths);
    json_decref(files);
}

static void pytest(mn_test_paths *tp, const char *root, mn_buf *buf)
{
    if (read_root(buf, root, "pyproject.toml")) {
        json_t *doc = NULL;
        mn_toml_parse(&doc, buf->ptr, buf->len);
        mn_error_clear();
        pytest_section(tp, json_object_get(json_object_get(json_object_get(doc, "tool"), "pytest"),
                                           "ini_options"));
        json_decref(doc);
    }
    static const struct {
        const char *file, *section;
    } inis[] = {{"pytest.ini", "pytest"}, {"tox.ini", "pytest"}, {"setup.cfg", "tool:pytest"}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(inis); i++) {
        if (!read_root(buf, root, inis[i].file))
            continue;
        json_t *doc = mn_ini_parse(buf->ptr, buf->len);
        pytest_section(tp, json_object_get(doc, inis[i].section));
        json_decref(doc);
    }
}

static void jest_config(mn_test_paths *tp, const json_t *jest)
{
    if (!json_is_object(jest))
        return;
    const json_t *match = json_object_get(jest, "testMatch"),
                 *regex = json_object_get(jest, "testRegex");
    bool conventions = false, any = false;
    size_t i;
    const json_t *e;
    json_array_foreach(match, i, e) if (json_is_string(e))
    {
        any = true;
        conventions |= names_test_files(json_string_value(e));
        glob_dir(tp, json_string_value(e));
    }
    if (json_is_string(regex)) {
        any = true;
        conventions |= names_test_files(json_string_value(regex));
        regex_dir(tp, json_string_value(regex));
    }
    json_array_foreach(regex, i, e) if (json_is_string(e))
    {
        any = true;
        conventions |= names_test_files(json_string_value(e));
        regex_dir(tp, json_string_value(e));
    }
    /* the roots hold tests and sources alike unless the patterns take every
     * file under them */
    if (any && !conventions)
        json_array_foreach(json_object_get(jest, "roots"), i, e) if (json_is_string(e))
            mn_test_paths_add(tp, json_string_value(e), json_string_length(e));
}

static void jest(mn_test_paths *tp, const char *root, mn_buf *buf)
{
    static const char *const files[] = {"package.json", "jest.config.json"};
    for (size_t f = 0; f < MN_ARRAY_SIZE(files); f++) {
        if (!read_root(buf, root, files[f]))
            continue;
        json_t *doc = json_loadb(buf->ptr, buf->len, 0, NULL);
        jest_config(tp, f == 0 ? json_object_get(doc, "jest") : doc);
        json_decref(doc);
    }
}

/* Every <tag>text</tag> of an XML text. */
static void xml_tags(mn_test_paths *tp, const char *s, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    for (const char *p = strstr(s, open); p; p = strstr(p, open)) {
        p += strlen(open);
        const char *e = strstr(p, close);
        if (!e)
            break;
        if (!memchr(p, '$', (size_t)(e - p))) /* ${project.basedir}/...: not followed */
            mn_test_paths_add(tp, p, (size_t)(e - p));
        p = e;
    }
}

/* The string literals of s[0..len): 'x' and "x". */
static void strings_in(mn_test_paths *tp, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\'' && s[i] != '"')
            continue;
        const char *e = memchr(s + i + 1, s[i], len - i - 1);
        if (!e)
            return;
        mn_test_paths_add(tp, s + i + 1, (size_t)(e - s - i - 1));
        i = (size_t)(e - s);
    }
}

/*
 * Gradle: the srcDir / srcDirs of the test source set. Written as a block
 * (sourceSets { test { java { srcDirs = ['src/it/java'] } } }) or dotted
 * (sourceSets.test.java.srcDir 'x'): the lines holding "srcDir" within the
 * braces of a `test {` inside `sourceSets {`, or starting with
 * "sourceSets.test.".
 */
static void gradle(mn_test_paths *tp, const char *s)
{
    for (const char *l = s; *l;) {
        const char *eol = strchr(l, '\n');
        size_t n = eol ? (size_t)(eol - l) : strlen(l);
        const char *t = l;
        while (t < l + n && (*t == ' ' || *t == '\t'))
            t++;
        if (strncmp(t, "sourceSets.test.", 16) == 0 && memmem(t, n, "srcDir", 6))
            strings_in(tp, t, (size_t)(l + n - t));
        l = eol ? eol + 1 : l + n;
    }
    const char *ss = strstr(s, "sourceSets");
    while (ss) {
        const char *b = ss + 10;
        while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r')
            b++;
        if (*b != '{') {
            ss = strstr(b, "sourceSets");
            continue;
        }
        /* inside sourceSets { ... }: find test { at depth 1 */
        int depth = 0;
        const char *p = b, *test = NULL;
        for (; *p; p++) {
            if (*p == '{')
                depth++;
            else if (*p == '}' && --depth == 0)
                break;
            else if (depth == 1 && !test && strncmp(p, "test", 4) == 0 &&
                     (p == b || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[4])) {
                const char *q = p + 4;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (*q == '{')
                    test = q;
            }
        }
        if (test) {
            int d = 0;
            const char *line = test;
            for (const char *q = test; *q; q++) {
                if (*q == '{')
                    d++;
                else if (*q == '}' && --d == 0)
                    break;
                if (*q == '\n' || q[1] == '\0') {
                    if (memmem(line, (size_t)(q - line), "srcDir", 6))
                        strings_in(tp, line, (size_t)(q - line));
                    line = q + 1;
                }
            }
        }
        ss = *p ? strstr(p, "sourceSets") : NULL;
    }
}

static void jvm(mn_test_paths *tp, const char *root, mn_buf *buf)
{
    if (read_root(buf, root, "pom.xml"))
        xml_tags(tp, buf->ptr, "testSourceDirectory");
    static const char *const files[] = {"build.gradle", "build.gradle.kts"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(files); i++)
        if (read_root(buf, root, files[i]))
            gradle(tp, buf->ptr);
}

static void cargo(mn_test_paths *tp, const char *root, mn_buf *buf)
{
    if (!read_root(buf, root, "Cargo.toml"))
        return;
    json_t *doc = NULL;
    mn_toml_parse(&doc, buf->ptr, buf->len);
    mn_error_clear();
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(doc, "test"), i, t)
    {
        const json_t *p = json_object_get(t, "path");
        if (json_is_string(p))
            mn_test_paths_add(tp, json_string_value(p), json_string_length(p));
    }
    json_decref(doc);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void mn_test_paths_read(mn_test_paths *out, const char *root)
{
    memset(out, 0, sizeof(*out));
    if (!root)
        return;
    mn_buf buf = MN_BUF_INIT;
    pytest(out, root, &buf);
    jest(out, root, &buf);
    jvm(out, root, &buf);
    cargo(out, root, &buf);
    mn_buf_release(&buf);
    qsort(out->paths, out->n, sizeof(char *), cmp_str);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < out->n; i++)
        for (const char *p = out->paths[i];; p++) {
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
            if (!*p)
                break;
        }
    out->hash = out->n ? h : 0;
}
