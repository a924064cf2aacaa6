/*
 * test_receivers.c - calls resolved through their receiver's type
 * (index/receivers.c infers it, index/resolve.c looks the method up in that
 * class and its bases), on real files indexed into a real store.
 *
 * In each language two classes define a method of the same name, so the
 * name alone is ambiguous and stayed unresolved before: the call must now
 * reach the method of the receiver's class (self/this, a parameter's or
 * variable's declared type, an object made by a constructor), or of a base
 * when the class does not define it. A receiver whose type is known but no
 * class of the repository (a std::string, a pathlib.Path) must stay
 * unresolved even where the repository defines the name once: the name
 * alone took the repository's own `size` or `exists` for them. C and C++
 * calls go to a function's definition, not its prototype in a header.
 */
#include "common.h"
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/index.h"
#include "store/store_index.h"
#include "test.h"
#include "test_fs.h"

static char base[64];

/* Write files (pairs of path, text; NULL ends) into a new directory and index it. */
static char *index_tree(const char *const *files)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-test-recv-XXXXXX");
    if (!mkdtemp(base))
        return NULL;
    mn_buf p = MN_BUF_INIT;
    for (size_t i = 0; files[i]; i += 2) {
        mn_buf_clear(&p);
        mn_buf_printf(&p, "%s/src/%s", base, files[i]);
        for (char *c = p.ptr + strlen(base) + 1; *c; c++) { /* make the directories */
            if (*c == '/') {
                *c = '\0';
                mkdir(p.ptr, 0755);
                *c = '/';
            }
        }
        FILE *f = fopen(p.ptr, "w");
        if (f) {
            fputs(files[i + 1], f);
            fclose(f);
        }
    }
    mn_buf_clear(&p);
    mn_buf_printf(&p, "%s/src", base);
    char *root = mn_buf_detach(&p);
    mn_buf db = MN_BUF_INIT;
    mn_buf_printf(&db, "%s/index.db", base);
    mn_store *s = NULL;
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    mn_index_stats st;
    io.threads = 1;
    int rc = mn_store_open(&s, db.ptr, &o);
    if (rc == 0)
        rc = mn_index_run(s, root, &io, &st);
    mn_store_free(s);
    free(root);
    if (rc != 0) {
        mn_buf_release(&db);
        return NULL;
    }
    return mn_buf_detach(&db);
}

/*
 * Where the call from the symbol `from` (qualified name) to a name whose key
 * is `key` points: "path:qualified name", "-" when unresolved, "?" when
 * there is no such edge (or more than one).
 */
static char *target(const char *db, const char *from, const char *key)
{
    static const char *const sql =
        "SELECT coalesce(f.path || ':' || d.qualified_name, '-') FROM edges e "
        "JOIN symbols s ON e.src_kind = 'symbol' AND s.id = e.src_id "
        "LEFT JOIN symbols d ON d.id = e.dst_id LEFT JOIN files f ON f.id = d.file_id "
        "WHERE e.kind = 'call' AND s.qualified_name = ?1 AND e.dst_key = ?2";
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    char *out = NULL;
    int rows = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            free(out);
            out = mn_strdup((const char *)sqlite3_column_text(st, 0));
            rows++;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    if (rows != 1) {
        free(out);
        out = mn_strdup("?");
    }
    return out;
}

#define TARGET(db, from, key, want)         \
    do {                                    \
        char *got_ = target(db, from, key); \
        CHECK_STR(got_, want);              \
        free(got_);                         \
    } while (0)

static void done(char *db)
{
    free(db);
    rm_rf(base);
}

static void test_python(void)
{
    static const char *const files[] = {"shapes/base.py",
                                        "class Base:\n"
                                        "    def area(self):\n"
                                        "        return 0\n",
                                        "shapes/square.py",
                                        "from shapes.base import Base\n"
                                        "\n"
                                        "class Square(Base):\n"
                                        "    def draw(self):\n"
                                        "        return self.area()\n",
                                        "shapes/circle.py",
                                        "class Circle:\n"
                                        "    def area(self):\n"
                                        "        return 3\n"
                                        "    def draw(self):\n"
                                        "        return self.area()\n",
                                        "shapes/disk.py",
                                        "def exists(x):\n"
                                        "    return x\n",
                                        "shapes/ser.py",
                                        "from shapes.text import dumps\n"
                                        "\n"
                                        "class Ser:\n"
                                        "    def dumps(self, v):\n"
                                        "        return dumps(v)\n",
                                        "shapes/text.py",
                                        "def dumps(v):\n"
                                        "    return str(v)\n",
                                        "shapes/canvas.py",
                                        "class Canvas:\n"
                                        "    def draw(self):\n"
                                        "        return 1\n"
                                        "\n"
                                        "class Easel:\n"
                                        "    def draw(self):\n"
                                        "        return 2\n",
                                        "tests/test_module.py",
                                        "import easel\n"
                                        "\n"
                                        "def test_module():\n"
                                        "    easel.draw()\n",
                                        "tests/test_canvas.py",
                                        "def test_draw(canvas, shape):\n"
                                        "    canvas.draw()\n"
                                        "    shape.draw()\n",
                                        "main.py",
                                        "import pathlib\n"
                                        "from shapes.square import Square\n"
                                        "from shapes.circle import Circle\n"
                                        "\n"
                                        "def render(s: Square, p: pathlib.Path):\n"
                                        "    k = Circle()\n"
                                        "    k.draw()\n"
                                        "    s.draw()\n"
                                        "    p.exists()\n",
                                        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "Square.draw", "area", "shapes/base.py:Base.area"); /* through the base */
    TARGET(db, "Circle.draw", "area", "shapes/circle.py:Circle.area");
    TARGET(db, "render", "draw", "?"); /* two edges: k.draw and s.draw */
    char *sql_db = db;
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    /* each of render's draw calls to its own class */
    REQUIRE(sqlite3_open_v2(sql_db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(h,
                               "SELECT e.dst_name || '>' || coalesce(d.qualified_name, '-') "
                               "FROM edges e JOIN symbols s ON s.id = e.src_id "
                               "LEFT JOIN symbols d ON d.id = e.dst_id WHERE e.kind = 'call' "
                               "AND s.qualified_name = 'render' AND e.dst_key = 'draw' "
                               "ORDER BY 1",
                               -1, &st, NULL) == SQLITE_OK);
    mn_buf got = MN_BUF_INIT;
    while (sqlite3_step(st) == SQLITE_ROW)
        mn_buf_printf(&got, "%s;", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    CHECK_STR(got.ptr, "k:Circle.draw>Circle.draw;s:Square.draw>Square.draw;");
    mn_buf_release(&got);
    /* a Path is no class of the repository: its exists() is not shapes/disk.py's */
    TARGET(db, "render", "exists", "-");
    /* a plain dumps() in the method dumps is not the method itself (it would be self.dumps) */
    TARGET(db, "Ser.dumps", "dumps", "shapes/text.py:dumps");
    /* an untyped receiver named after a class (a pytest fixture `canvas`): that class's
     * draw; `shape` names no class, and three classes define draw */
    char *sites = NULL;
    REQUIRE(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(h,
                               "SELECT group_concat(x, ';') FROM (SELECT e.dst_name || '>' || "
                               "coalesce(d.qualified_name, '-') AS x FROM edges e "
                               "JOIN symbols s ON s.id = e.src_id "
                               "LEFT JOIN symbols d ON d.id = e.dst_id WHERE e.kind = 'call' "
                               "AND s.qualified_name = 'test_draw' ORDER BY 1)",
                               -1, &st, NULL) == SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        sites = mn_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    CHECK_STR(sites, "canvas.draw>Canvas.draw;shape.draw>-");
    free(sites);
    /* a module the file imports (easel, not in the repository) is not an instance of the
     * class Easel */
    TARGET(db, "test_module", "draw", "-");
    done(db);
}

static void test_java(void)
{
    static const char *const files[] = {"a/Dog.java",
                                        "package a;\n"
                                        "class Dog extends Animal {\n"
                                        "  void speak() {}\n"
                                        "  void meet(Cat c) { c.speak(); }\n"
                                        "  void walk() { this.speak(); breathe(); }\n"
                                        "  void list(java.util.List<String> l) { l.clear(); }\n"
                                        "}\n",
                                        "a/Cat.java",
                                        "package a;\n"
                                        "class Cat { void speak() {} }\n",
                                        "a/Animal.java",
                                        "package a;\n"
                                        "class Animal { void breathe() {} }\n"
                                        "class Shelf { void clear() {} }\n",
                                        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "Dog.meet", "speak", "a/Cat.java:Cat.speak");
    TARGET(db, "Dog.walk", "speak", "a/Dog.java:Dog.speak");
    /* a List is no class here: Shelf's clear is not its clear */
    TARGET(db, "Dog.list", "clear", "-");
    done(db);
}

static void test_go(void)
{
    static const char *const files[] = {"cmd/command.go",
                                        "package cmd\n"
                                        "\n"
                                        "type Command struct{}\n"
                                        "\n"
                                        "func (c *Command) Flags() int { return 1 }\n"
                                        "\n"
                                        "func (c *Command) Run() int { return c.Flags() }\n",
                                        "cmd/set.go",
                                        "package cmd\n"
                                        "\n"
                                        "type FlagSet struct{}\n"
                                        "\n"
                                        "func (f FlagSet) Flags() int { return 2 }\n"
                                        "\n"
                                        "func Use() int {\n"
                                        "\tfs := &FlagSet{}\n"
                                        "\treturn fs.Flags()\n"
                                        "}\n",
                                        "cmd/exec.go",
                                        "package cmd\n"
                                        "\n"
                                        "func Exec(c *Command) int { return c.Flags() }\n",
                                        "cmd/zz.go",
                                        "package cmd\n"
                                        "\n"
                                        "func helper() int { return 1 }\n",
                                        "cmd/main.go",
                                        "package cmd\n"
                                        "\n"
                                        "import \"example.com/m/status\"\n"
                                        "\n"
                                        "func Main() int { return status.New() + helper() }\n",
                                        "status/a.go",
                                        "package status\n",
                                        "status/status.go",
                                        "package status\n"
                                        "\n"
                                        "func New() int { return 1 }\n",
                                        "codes/codes.go",
                                        "package codes\n"
                                        "\n"
                                        "func New() int { return 2 }\n"
                                        "func helper() int { return 2 }\n",
                                        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "Command.Run", "Flags", "cmd/command.go:Command.Flags");
    TARGET(db, "Use", "Flags", "cmd/set.go:FlagSet.Flags");
    TARGET(db, "Exec", "Flags", "cmd/command.go:Command.Flags"); /* a parameter's type */
    /* pkg.F: the F of the imported package's directory (the import resolves to its first
     * file, status/a.go); F: the caller's own package's */
    TARGET(db, "Main", "New", "status/status.go:New");
    TARGET(db, "Main", "helper", "cmd/zz.go:helper");
    done(db);
}

static void test_rust(void)
{
    static const char *const files[] = {
        "src/lib.rs",
        "struct Foo {}\n"
        "impl Foo {\n"
        "    fn new() -> Foo { Foo {} }\n"
        "    fn go(&self) { self.stop(); }\n"
        "    fn stop(&self) {}\n"
        "}\n"
        "struct Bar {}\n"
        "impl Bar {\n"
        "    fn stop(&self) {}\n"
        "}\n"
        "fn main() { let b = Bar {}; b.stop(); let c = Bar::new(); }\n",
        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "Foo.go", "stop", "src/lib.rs:Foo.stop");
    TARGET(db, "main", "stop", "src/lib.rs:Bar.stop");
    TARGET(db, "main", "new", "-"); /* Bar has no new: not Foo's */
    done(db);
}

static void test_typescript(void)
{
    static const char *const files[] = {"src/shapes.ts",
                                        "export class Square {\n"
                                        "  draw(): void {}\n"
                                        "  twice(): void { this.draw(); }\n"
                                        "}\n"
                                        "export class Circle {\n"
                                        "  draw(): void {}\n"
                                        "}\n"
                                        "export function paint(s: Square): void {\n"
                                        "  const c = new Circle();\n"
                                        "  c.draw();\n"
                                        "}\n",
                                        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "Square.twice", "draw", "src/shapes.ts:Square.draw");
    TARGET(db, "paint", "draw", "src/shapes.ts:Circle.draw");
    done(db);
}

static void test_c_cpp(void)
{
    static const char *const files[] = {
        "lib/util.h",
        "int util_add(int a, int b);\n",
        "lib/util.c",
        "#include \"util.h\"\n"
        "int util_add(int a, int b) { return a + b; }\n",
        "app/main.c",
        "#include \"../lib/util.h\"\n"
        "int main(void) { return util_add(1, 2); }\n",
        "gui/widget.cc",
        "#include <string>\n"
        "class Box { public: int size() { return 1; } };\n"
        "class Bag { public: int size() { return 2; } int count(); };\n"
        "int Bag::count() { return this->size(); }\n"
        "int measure(Box &b) { std::string s; s.length(); return b.size(); }\n"
        "class Text { public: int length() { return 0; } };\n",
        NULL};
    char *db = index_tree(files);
    REQUIRE(db);
    TARGET(db, "main", "util_add", "lib/util.c:util_add"); /* the definition, not util.h's */
    TARGET(db, "Bag.count", "size", "gui/widget.cc:Bag.size");
    TARGET(db, "measure", "size", "gui/widget.cc:Box.size");
    TARGET(db, "measure", "length", "-"); /* std::string's, not Text's */
    done(db);
}

MN_TEST_MAIN(MN_TEST(test_python), MN_TEST(test_java), MN_TEST(test_go), MN_TEST(test_rust),
             MN_TEST(test_typescript), MN_TEST(test_c_cpp))
