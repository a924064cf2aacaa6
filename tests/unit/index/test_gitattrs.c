/*
 * test_gitattrs.c - the roles a project declares in .gitattributes
 * (src/index/gitattrs.c) and what classify and the index make of them:
 * jq's own lines (its Bison and flex output generated, its vendor/
 * vendored), git's pattern rules (a name at any depth, a path from the
 * root, `**`, the last matching line deciding, `-attr`, `attr=false` and
 * `!attr`), lines that say nothing (comments, macros, quoted and negative
 * patterns, directory-only patterns, other attributes and values), a
 * bundle's files (walk.c) vendored; then an index of a real tree whose
 * stored roles follow the file as it changes.
 */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>

#include "index/classify.h"
#include "index/gitattrs.h"
#include "index/index.h"
#include "store/store_index.h"
#include "test.h"
#include "test_fs.h"
#include "test_roles.h"

static char base[64];

static mn_gitattrs parse(const char *text)
{
    mn_gitattrs a;
    mn_gitattrs_parse(&a, text, strlen(text));
    return a;
}

/* The role classify gives path (a C file with a plain head) under the attributes. */
static const char *role(const mn_gitattrs *a, const char *path, const char *head)
{
    mn_file_class c;
    mn_declared d = {NULL, a, 0};
    mn_classify_declared(&c, path, head, strlen(head), strlen(head), &d);
    return mn_role_name(c.role);
}

#define PLAIN "int f(void) { return 1; }\n"

/* jq's .gitattributes, as it is at its HEAD. */
static void test_jq(void)
{
    mn_gitattrs a = parse(".gitattributes export-ignore\n"
                          ".gitignore export-ignore\n"
                          "* text=auto eol=lf\n"
                          "vendor/** linguist-vendored\n"
                          "\n"
                          "# generated files\n"
                          "src/lexer.[ch] linguist-generated=true\n"
                          "src/parser.[ch] linguist-generated=true\n"
                          "tests/man.test linguist-generated=true\n"
                          "jq.1.prebuilt linguist-generated=true\n");
    CHECK(a.n == 5 && a.hash != 0);
    CHECK(!strcmp(role(&a, "src/lexer.h", PLAIN), "generated"));
    CHECK(!strcmp(role(&a, "src/parser.c", PLAIN), "generated"));
    CHECK(!strcmp(role(&a, "src/parser.y", PLAIN), "config"));
    CHECK(!strcmp(role(&a, "src/jv_parse.c", PLAIN), "source"));
    CHECK(!strcmp(role(&a, "vendor/decNumber/decNumber.c", PLAIN), "vendored"));
    CHECK(!strcmp(role(&a, "tests/man.test", PLAIN), "generated"));
    /* anchored at the root: a src/ below is another path */
    CHECK(!strcmp(role(&a, "lib/src/parser.c", PLAIN), "source"));
    /* without the attributes, the same files by the conventions alone */
    CHECK(!strcmp(role(NULL, "src/lexer.h", PLAIN), "source"));
    CHECK(!strcmp(role(NULL, "vendor/decNumber/decNumber.c", PLAIN), "vendored"));
    mn_gitattrs_release(&a);
}

static void test_patterns(void)
{
    mn_gitattrs a = parse("*.gen.c linguist-generated\n"           /* a name at any depth */
                          "/third/** linguist-vendored\n"          /* leading slash: the root */
                          "docs/**/*.c -linguist-documentation\n"  /* code under docs/ */
                          "dist/app.js linguist-generated=false\n" /* a dist/ that is source */
                          "vendor/own/** -linguist-vendored\n"     /* a first-party vendor/ */
                          "notes/*.c linguist-documentation\n"
                          "keep.gen.c !linguist-generated\n"); /* back to unspecified */
    CHECK(a.n == 7);
    CHECK(!strcmp(role(&a, "a/b/x.gen.c", PLAIN), "generated"));
    CHECK(!strcmp(role(&a, "x.gen.c", PLAIN), "generated"));
    CHECK(!strcmp(role(&a, "third/z/lib.c", PLAIN), "vendored"));
    CHECK(!strcmp(role(&a, "src/third/lib.c", PLAIN), "source"));
    CHECK(!strcmp(role(&a, "docs/examples/demo.c", PLAIN), "source"));
    CHECK(!strcmp(role(NULL, "docs/examples/demo.c", PLAIN), "doc"));
    CHECK(!strcmp(role(&a, "dist/app.js", "export const a = 1;\n"), "source"));
    CHECK(!strcmp(role(NULL, "dist/app.js", "export const a = 1;\n"), "generated"));
    CHECK(!strcmp(role(&a, "vendor/own/lib.c", PLAIN), "source"));
    CHECK(!strcmp(role(&a, "vendor/other/lib.c", PLAIN), "vendored"));
    CHECK(!strcmp(role(&a, "notes/howto.c", PLAIN), "doc"));
    /* `!attr` undoes the earlier line: the conventions decide again */
    CHECK(!strcmp(role(&a, "keep.gen.c", PLAIN), "source"));
    CHECK(!strcmp(role(&a, "keep.gen.c", "/* A Bison parser, made by GNU Bison 3.8.2.  */\n"),
                  "generated"));
    /* unset generated: not even a generator's banner makes it generated */
    mn_gitattrs b = parse("parse.c -linguist-generated\n");
    CHECK(!strcmp(role(&b, "src/parse.c", "/* A Bison parser, made by GNU Bison 3.8.2.  */\n"),
                  "source"));
    /* the last line that matches decides */
    mn_gitattrs c = parse("*.c linguist-generated\nsrc/main.c linguist-generated=false\n");
    CHECK(!strcmp(role(&c, "src/main.c", PLAIN), "source"));
    CHECK(!strcmp(role(&c, "src/other.c", PLAIN), "generated"));
    mn_gitattrs_release(&a);
    mn_gitattrs_release(&b);
    mn_gitattrs_release(&c);
}

/* Lines that say nothing about the roles keep nothing, and a binary file stays binary. */
static void test_ignored_lines(void)
{
    mn_gitattrs a = parse("# src/a.c linguist-generated\n"
                          "[attr]gen linguist-generated\n"
                          "\"src/b c.c\" linguist-generated\n"
                          "!src/c.c linguist-generated\n"
                          "build/ linguist-generated\n"
                          "src/d.c linguist-generated=yes\n"
                          "src/e.c -linguist-generated=true\n"
                          "src/f.c linguist-language=C diff\n"
                          "src/g.c linguist-generatedx\n"
                          "   \r\n"
                          "src/h.c\n");
    CHECK(a.n == 0 && a.hash == 0);
    for (const char *const *p =
             (const char *const[]){"src/a.c", "src/b c.c", "src/c.c", "build/x.c", "src/d.c",
                                   "src/e.c", "src/f.c", "src/g.c", "src/h.c", NULL};
         *p; p++)
        CHECK(!strcmp(role(&a, *p, PLAIN), "source"));
    mn_gitattrs_release(&a);
    /* a line with CRLF ending and tabs is read */
    mn_gitattrs b = parse("\tsrc/x.c\tlinguist-generated\r\n");
    CHECK(b.n == 1 && !strcmp(role(&b, "src/x.c", PLAIN), "generated"));
    mn_file_class c;
    mn_gitattrs d = parse("*.png linguist-generated\n");
    mn_declared dd = {NULL, &d, 0};
    mn_classify_declared(&c, "img/a.png", "\x89PNG\r\n\x1a\n\0", 9, 9, &dd);
    CHECK(c.binary && c.role != MN_ROLE_GENERATED);
    mn_gitattrs_release(&b);
    mn_gitattrs_release(&d);
    /* no file, an empty one, a directory in its place: nothing */
    mn_gitattrs e;
    mn_gitattrs_read(&e, "/nonexistent-mnemo-root");
    CHECK(e.n == 0 && e.hash == 0);
    mn_gitattrs_read(&e, NULL);
    CHECK(e.n == 0);
    mn_gitattrs_parse(&e, NULL, 0);
    CHECK(e.n == 0 && mn_gitattrs_lookup(&e, "a.c").generated == MN_ATTR_UNSPECIFIED);
    mn_gitattrs_release(&e);
    CHECK(mn_gitattrs_lookup(NULL, "a.c").vendored == MN_ATTR_UNSPECIFIED);
}

/* Below a bundle (walk.c): vendored, unless the project unsets linguist-vendored there or the
 * file is documentation by its directory. */
static void test_bundle(void)
{
    mn_gitattrs a = parse("src/decNumber/** -linguist-vendored\n");
    mn_file_class c;
    mn_declared d = {NULL, NULL, strlen("lib/bench")};
    mn_classify_declared(&c, "lib/bench/src/timer.cc", PLAIN, strlen(PLAIN), strlen(PLAIN), &d);
    CHECK(c.role == MN_ROLE_VENDORED);
    d.bundle = strlen("lib/bench/docs");
    mn_classify_declared(&c, "lib/bench/docs/guide.c", PLAIN, strlen(PLAIN), strlen(PLAIN), &d);
    CHECK(c.role == MN_ROLE_DOC);
    d.attrs = &a;
    d.bundle = strlen("src/decNumber");
    mn_classify_declared(&c, "src/decNumber/decNumber.c", PLAIN, strlen(PLAIN), strlen(PLAIN), &d);
    CHECK(c.role == MN_ROLE_SOURCE);
    d.bundle = 0;
    mn_classify_declared(&c, "lib/bench/src/timer.cc", PLAIN, strlen(PLAIN), strlen(PLAIN), &d);
    CHECK(c.role == MN_ROLE_SOURCE);
    mn_gitattrs_release(&a);
}

/* At most MN_GITATTRS_RULES lines are kept, on any input. */
static void test_bounded(void)
{
    mn_buf t = MN_BUF_INIT;
    for (int i = 0; i < MN_GITATTRS_RULES + 50; i++)
        mn_buf_printf(&t, "f%d.c linguist-generated\n", i);
    mn_gitattrs a;
    mn_gitattrs_parse(&a, t.ptr, t.len);
    CHECK(a.n == MN_GITATTRS_RULES);
    CHECK(!strcmp(role(&a, "f0.c", PLAIN), "generated"));
    CHECK(!strcmp(role(&a, "f600.c", PLAIN), "source"));
    mn_gitattrs_release(&a);
    mn_buf_release(&t);
}

static void put(const char *root, const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", root, rel);
    char *dir = mn_strdup(p.ptr);
    *strrchr(dir, '/') = '\0';
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "mkdir -p '%s'", dir);
    if (system(cmd.ptr) != 0)
        abort();
    mn_buf_release(&cmd);
    free(dir);
    FILE *f = fopen(p.ptr, "w");
    REQUIRE(f != NULL);
    fputs(text, f);
    fclose(f);
    mn_buf_release(&p);
}

/* The index: the declared roles stored; the file changed, the roles follow without an edit. */
static void test_index(void)
{
    char root[128];
    snprintf(root, sizeof(root), "%s/tree", base);
    put(root, "src/lexer.h", "#ifndef YY_H\n#define YY_H 1\nint yylex(void);\n#endif\n");
    put(root, "src/parser.c",
        "/* A Bison parser, made by GNU Bison 3.8.2.  */\nint yyparse(void);\n");
    put(root, "src/main.c", "int main(void) { return 0; }\n");
    put(root, "lib/num/dec.c", "int dec_add(int a, int b) { return a + b; }\n");
    put(root, "third/big/COPYING", "GPL\n");
    put(root, "third/big/big.c", "int big_add(int a, int b) { return a + b; }\n");
    put(root, "deps/tiny/tiny.c", "int tiny_sub(int a, int b) { return a - b; }\n");
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/db.sqlite", base);
    REQUIRE_OK(mn_store_open(&s, db.ptr, &o));
    mn_buf_release(&db);
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    mn_index_stats is;
    io.threads = 1;
    io.history = false;
    test_role_query r;
    /* no .gitattributes: the banner alone */
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "src/parser.c", &r), "generated"));
    CHECK(!strcmp(stored_role(s, "src/lexer.h", &r), "source"));
    CHECK(!strcmp(stored_role(s, "lib/num/dec.c", &r), "source"));
    /* a directory with a license of its own and no manifest: another project's code */
    CHECK(!strcmp(stored_role(s, "third/big/big.c", &r), "vendored"));
    /* declared: on the next run, though no file it names changed */
    put(root, ".gitattributes",
        "src/lexer.[ch] linguist-generated=true\nlib/num/** linguist-vendored\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "src/lexer.h", &r), "generated"));
    CHECK(!strcmp(stored_role(s, "lib/num/dec.c", &r), "vendored"));
    CHECK(!strcmp(stored_role(s, "src/main.c", &r), "source"));
    /* an unrelated attribute added: the same roles, nothing re-read */
    put(root, ".gitattributes",
        "* text=auto\nsrc/lexer.[ch] linguist-generated=true\nlib/num/** linguist-vendored\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(is.parsed <= 1); /* .gitattributes itself */
    /* a license added beside files that did not change: they are another project's now (the
     * run that sees the new bundle re-reads the tree), and its own again once it is gone */
    CHECK(!strcmp(stored_role(s, "deps/tiny/tiny.c", &r), "source"));
    put(root, "deps/tiny/LICENSE.txt", "MIT\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "deps/tiny/tiny.c", &r), "vendored"));
    mn_buf lic = MN_BUF_INIT;
    mn_buf_printf(&lic, "%s/deps/tiny/LICENSE.txt", root);
    CHECK(unlink(lic.ptr) == 0);
    mn_buf_release(&lic);
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "deps/tiny/tiny.c", &r), "source"));
    REQUIRE_OK(mn_index_run(s, root, &io, &is)); /* and no second full run after that */
    CHECK(is.parsed == 0);
    /* the declaration gone: the conventions again */
    put(root, ".gitattributes", "* text=auto\n");
    REQUIRE_OK(mn_index_run(s, root, &io, &is));
    CHECK(!strcmp(stored_role(s, "src/lexer.h", &r), "source"));
    CHECK(!strcmp(stored_role(s, "lib/num/dec.c", &r), "source"));
    CHECK(!strcmp(stored_role(s, "src/parser.c", &r), "generated"));
    mn_store_free(s);
}

static void setup(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-test-gitattrs-XXXXXX");
    if (!mkdtemp(base))
        abort();
}

static void teardown(void)
{
    rm_rf(base);
}

MN_TEST_MAIN(MN_TEST(setup), MN_TEST(test_jq), MN_TEST(test_patterns), MN_TEST(test_ignored_lines),
             MN_TEST(test_bundle), MN_TEST(test_bounded), MN_TEST(test_index), MN_TEST(teardown))
