/*
 * test_walk.c - mn_walk on trees built in a scratch directory: a git
 * repository with nested .gitignore files, info/exclude, core.excludesFile,
 * .mnemoignore, an ignored directory holding a force-added file, untracked
 * files, a symlink loop, a file over the size cap, a non-UTF-8 name, a
 * FIFO, node_modules, a nested repository; the same tree walked from a
 * subdirectory and with tracked files only; an empty repository; a plain
 * directory with .gitignore files applied by mnemo's own matcher; a path
 * deeper than the path cap; and 20,000 files (timed, memory checked). Each
 * asserts the exact list of paths. The wildmatch port is checked against
 * cases from git's own test suite.
 */
#include "common.h"
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "index/walk.h"
#include "util/util.h"
#include "test.h"

static char tmp[64];

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-walk-XXXXXX");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        exit(2);
    }
    /* Keep the user's and the system's git configuration out of the tests. */
    mn_buf home = MN_BUF_INIT;
    mn_buf_printf(&home, "%s/home", tmp);
    mkdir(home.ptr, 0755);
    setenv("HOME", home.ptr, 1);
    setenv("XDG_CONFIG_HOME", home.ptr, 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    mn_buf_release(&home);
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    mn_buf cmd = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd.ptr);
    if (rc != 0)
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd.ptr);
    mn_buf_release(&cmd);
    return rc;
}

static void teardown(void)
{
    run("rm -rf '%s'", tmp);
}

/* Create dir/rel with content, making parent directories. */
static void put(const char *dir, const char *rel, const char *content)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", dir, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    int fd = open(p.ptr, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(p.ptr);
        exit(2);
    }
    size_t n = strlen(content);
    if (write(fd, content, n) != (ssize_t)n)
        exit(2);
    close(fd);
    mn_buf_release(&p);
}

static char *path_in(const char *dir, const char *rel)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", dir, rel);
    return mn_buf_detach(&p);
}

typedef struct {
    mn_buf list;    /* "path\n" per entry, with a '*' after tracked ones */
    size_t stop_at; /* stop (return 7) after this many entries; 0 = never */
    size_t seen;
    bool full_ok; /* full_path ended with path and existed */
} collector;

static int collect(void *payload, const mn_walk_entry *e)
{
    collector *c = payload;
    struct stat sb;
    size_t pl = strlen(e->path), fl = strlen(e->full_path);
    if (fl < pl || strcmp(e->full_path + fl - pl, e->path) != 0 || lstat(e->full_path, &sb) != 0 ||
        (uint64_t)sb.st_size != e->size || e->mtime_ms <= 0)
        c->full_ok = false;
    mn_buf_printf(&c->list, "%s%s\n", e->path, e->tracked ? "*" : "");
    c->seen++;
    return c->stop_at && c->seen >= c->stop_at ? 7 : 0;
}

static void collector_init(collector *c)
{
    mn_buf_init(&c->list);
    c->stop_at = 0;
    c->seen = 0;
    c->full_ok = true;
}

#define GIT "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main"

/* The repository of the main test; returns its root (caller frees). */
static char *make_repo(void)
{
    char *root = path_in(tmp, "repo");
    mn_fs_mkdir_p(root);
    if (run(GIT " init -q '%s'", root) != 0)
        exit(2);
    put(root, ".gitignore", "*.log\nbuild/\n!keep.log\n/secret.txt\n");
    put(root, ".mnemoignore", "# mnemo only\nfixtures/big/\n*.snap\n");
    put(root, "a.py", "print(1)\n");
    put(root, "b.log", "log\n");
    put(root, "keep.log", "kept\n");
    put(root, "build/out.o", "obj\n");
    put(root, "build/tracked.txt", "forced\n");
    put(root, "src/.gitignore", "gen/\n*.tmp\n");
    put(root, "src/main.c", "int main(void) { return 0; }\n");
    put(root, "src/x.tmp", "tmp\n");
    put(root, "src/gen/g.c", "int g;\n");
    put(root, "secret.txt", "s\n");
    put(root, "src/secret.txt", "not secret here\n");
    put(root, "fixtures/big/data.json", "{}\n");
    put(root, "fixtures/small.json", "{}\n");
    put(root, "ui.snap", "snap\n");
    if (run("cd '%s' && " GIT " add .gitignore .mnemoignore a.py src/.gitignore src/main.c "
            "fixtures ui.snap && " GIT " add -f build/tracked.txt && " GIT " commit -q -m init",
            root) != 0)
        exit(2);
    /* untracked, after the commit */
    put(root, "build/new.txt", "new\n");
    put(root, "src/util/u.c", "int u;\n");
    put(root, "local-notes.md", "mine\n");
    put(root, "x.swp", "swap\n");
    put(root, "node_modules/x/index.js", "module.exports = 1;\n");
    put(root, ".mnemo/mnemo.db", "db\n");
    put(root, "nested/n.py", "n = 1\n");
    run(GIT " init -q '%s/nested'", root);
    put(root, ".git/info/exclude", "local-notes.md\n");
    put(tmp, "global-ignore", "*.swp\n");
    run(GIT " -C '%s' config core.excludesFile '%s/global-ignore'", root, tmp);
    char *p = path_in(root, "loop");
    CHECK(symlink(".", p) == 0);
    free(p);
    p = path_in(root, "link.py");
    CHECK(symlink("a.py", p) == 0);
    free(p);
    p = path_in(root, "fifo");
    CHECK(mkfifo(p, 0644) == 0);
    free(p);
    p = path_in(root, "big.txt");
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && ftruncate(fd, 5000) == 0);
    close(fd);
    free(p);
    put(root, "caf\xe9.py", "x = 1\n");
    return root;
}

static void test_git_repo(void)
{
    setup();
    char *root = make_repo();
    collector c;
    collector_init(&c);
    mn_walk_options opts = MN_WALK_OPTIONS_INIT;
    opts.max_file_size = 1000;
    mn_walk_stats st;
    CHECK_OK(mn_walk(root, &opts, collect, &c, &st));
    CHECK_STR(c.list.ptr, ".gitignore*\n"
                          ".mnemoignore*\n"
                          "a.py*\n"
                          "build/tracked.txt*\n"
                          "fixtures/small.json*\n"
                          "keep.log\n"
                          "src/.gitignore*\n"
                          "src/main.c*\n"
                          "src/secret.txt\n"
                          "src/util/u.c\n");
    CHECK(c.full_ok);
    CHECK(st.git);
    CHECK(st.files == 10);
    /* b.log, build/out.o, build/new.txt, secret.txt, local-notes.md, x.swp, src/x.tmp, src/gen,
     * fixtures/big, ui.snap */
    CHECK(st.skipped_ignored == 10);
    CHECK(st.skipped_large == 1);
    CHECK(st.skipped_bad_name == 1);
    CHECK(st.skipped_symlink == 2);
    CHECK(st.skipped_special == 1);
    CHECK(st.skipped_nested_repo == 1);
    CHECK(st.skipped_tool_dir == 1);
    CHECK(st.skipped_unreadable == 0);
    if (st.skipped_ignored != 10)
        fprintf(stderr, "skipped_ignored = %zu\n", st.skipped_ignored);
    mn_buf_release(&c.list);

    /* tracked files only */
    collector_init(&c);
    opts.include_untracked = false;
    CHECK_OK(mn_walk(root, &opts, collect, &c, &st));
    CHECK_STR(c.list.ptr, ".gitignore*\n"
                          ".mnemoignore*\n"
                          "a.py*\n"
                          "build/tracked.txt*\n"
                          "fixtures/small.json*\n"
                          "src/.gitignore*\n"
                          "src/main.c*\n");
    mn_buf_release(&c.list);

    /* from a subdirectory: paths relative to it, the repository's rules still apply */
    collector_init(&c);
    char *sub = path_in(root, "src/");
    CHECK_OK(mn_walk(sub, NULL, collect, &c, &st));
    CHECK_STR(c.list.ptr, ".gitignore*\n"
                          "main.c*\n"
                          "secret.txt\n"
                          "util/u.c\n");
    CHECK(c.full_ok);
    CHECK(st.git);
    free(sub);
    mn_buf_release(&c.list);

    /* the callback stops the walk and its value comes back */
    collector_init(&c);
    c.stop_at = 2;
    CHECK(mn_walk(root, NULL, collect, &c, &st) == 7);
    CHECK(st.files == 2);
    CHECK_STR(c.list.ptr, ".gitignore*\n.mnemoignore*\n");
    mn_buf_release(&c.list);

    free(root);
    teardown();
}

static void test_errors(void)
{
    setup();
    collector c;
    collector_init(&c);
    mn_walk_stats st;
    char *missing = path_in(tmp, "missing");
    CHECK(mn_walk(missing, NULL, collect, &c, &st) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "missing") != NULL);
    put(tmp, "file", "x\n");
    char *file = path_in(tmp, "file");
    CHECK(mn_walk(file, NULL, collect, &c, NULL) == MN_EINVAL);
    mn_walk_options opts = MN_WALK_OPTIONS_INIT;
    opts.version = 99;
    CHECK(mn_walk(tmp, &opts, collect, &c, NULL) == MN_EINVAL);
    mn_walk_options_init(&opts);
    CHECK(opts.version == MN_WALK_OPTIONS_VERSION && opts.max_file_size == 1u << 20 &&
          opts.include_untracked);
    free(missing);
    free(file);
    mn_buf_release(&c.list);
    teardown();
}

/* A repository without commits, and one without any file at all. */
static void test_empty_repo(void)
{
    setup();
    char *root = path_in(tmp, "empty");
    mn_fs_mkdir_p(root);
    CHECK(run(GIT " init -q '%s'", root) == 0);
    collector c;
    collector_init(&c);
    mn_walk_stats st;
    CHECK_OK(mn_walk(root, NULL, collect, &c, &st));
    CHECK_STR(c.list.ptr, "");
    CHECK(st.git && st.files == 0 && st.dirs == 1);
    put(root, ".gitignore", "*.o\n");
    put(root, "a.txt", "a\n");
    put(root, "x.o", "obj\n");
    CHECK_OK(mn_walk(root, NULL, collect, &c, &st));
    CHECK_STR(c.list.ptr, ".gitignore\na.txt\n");
    CHECK(st.skipped_ignored == 1);
    mn_buf_release(&c.list);

    /* an empty plain directory */
    char *plain = path_in(tmp, "plain-empty");
    mn_fs_mkdir_p(plain);
    collector_init(&c);
    CHECK_OK(mn_walk(plain, NULL, collect, &c, &st));
    CHECK_STR(c.list.ptr, "");
    CHECK(!st.git && st.files == 0);
    free(plain);
    free(root);
    mn_buf_release(&c.list);
    teardown();
}

/* A plain directory: mnemo applies .gitignore files itself. */
static void test_non_git(void)
{
    setup();
    char *root = path_in(tmp, "plain");
    put(root, ".gitignore", "*.log\n/build/\n!important.log\ndocs/**/*.tmp\n");
    put(root, ".mnemoignore", "secret/\n");
    put(root, "a.py", "x\n");
    put(root, "app.log", "x\n");
    put(root, "important.log", "x\n");
    put(root, "build/x", "x\n");
    put(root, "sub/build/y", "x\n");
    put(root, "docs/a/b/c.tmp", "x\n");
    put(root, "docs/c.tmp", "x\n");
    put(root, "docs/readme.md", "x\n");
    put(root, "sub/.gitignore", "local.txt\n*.tmp2\n!x.tmp2\n");
    put(root, "sub/local.txt", "x\n");
    put(root, "sub/deep/local.txt", "x\n");
    put(root, "sub/y.tmp2", "x\n");
    put(root, "sub/x.tmp2", "x\n");
    put(root, "local.txt", "x\n");
    put(root, "secret/s.txt", "x\n");
    put(root, "other/o.py", "x\n");
    put(root, "other/.git/config", "[core]\n");
    put(root, "node_modules/m/index.js", "x\n");
    put(root, "venv/pyvenv.cfg", "home = /usr/bin\n");
    put(root, "venv/lib/site.py", "x\n");
    put(root, "target/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n");
    put(root, "target/debug/out", "x\n");
    put(root, "notcache/CACHEDIR.TAG", "not the signature\n");
    put(root, "d\xff/inside.py", "x\n");
    char *p = path_in(root, "sub/loop");
    CHECK(symlink("..", p) == 0);
    free(p);

    collector c;
    collector_init(&c);
    mn_walk_stats st;
    CHECK_OK(mn_walk(root, NULL, collect, &c, &st));
    CHECK_STR(c.list.ptr, ".gitignore\n"
                          ".mnemoignore\n"
                          "a.py\n"
                          "docs/readme.md\n"
                          "important.log\n"
                          "local.txt\n"
                          "notcache/CACHEDIR.TAG\n"
                          "other/o.py\n"
                          "sub/.gitignore\n"
                          "sub/build/y\n"
                          "sub/x.tmp2\n");
    CHECK(c.full_ok);
    CHECK(!st.git);
    /* app.log, build/, docs/a/b/c.tmp, docs/c.tmp, secret/, sub/local.txt, sub/deep/local.txt,
     * sub/y.tmp2 */
    CHECK(st.skipped_ignored == 8);
    if (st.skipped_ignored != 8)
        fprintf(stderr, "skipped_ignored = %zu\n", st.skipped_ignored);
    CHECK(st.skipped_tool_dir == 3);
    CHECK(st.skipped_symlink == 1);
    CHECK(st.skipped_bad_name == 1);
    CHECK(st.skipped_nested_repo == 0);
    mn_buf_release(&c.list);
    free(root);
    teardown();
}

/* Paths longer than the cap and unreadable directories: skipped and counted, never fatal. */
static void test_deep_and_unreadable(void)
{
    setup();
    char *root = path_in(tmp, "deep");
    mn_fs_mkdir_p(root);
    char name[201];
    memset(name, 'd', 200);
    name[200] = '\0';
    int dfd = open(root, O_RDONLY | O_DIRECTORY);
    REQUIRE(dfd >= 0);
    for (int i = 0; i < 25; i++) { /* 25 * 201 bytes: over the 4096-byte cap */
        CHECK(mkdirat(dfd, name, 0755) == 0);
        int next = openat(dfd, name, O_RDONLY | O_DIRECTORY);
        close(dfd);
        dfd = next;
        REQUIRE(dfd >= 0);
    }
    int fd = openat(dfd, "bottom.py", O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    close(fd);
    close(dfd);
    put(root, "top.py", "x\n");
    put(root, "locked/inside.py", "x\n");
    char *locked = path_in(root, "locked");
    chmod(locked, 0);

    collector c;
    collector_init(&c);
    mn_walk_stats st;
    CHECK_OK(mn_walk(root, NULL, collect, &c, &st));
    if (geteuid() == 0) {
        /* root reads everything */
        CHECK_STR(c.list.ptr, "locked/inside.py\ntop.py\n");
    } else {
        CHECK_STR(c.list.ptr, "top.py\n");
        CHECK(st.skipped_unreadable == 1);
    }
    CHECK(st.skipped_bad_name + st.skipped_unreadable >= 1);
    chmod(locked, 0755);
    free(locked);
    free(root);
    mn_buf_release(&c.list);
    teardown();
}

static int count_only(void *payload, const mn_walk_entry *e)
{
    size_t *n = payload;
    (*n)++;
    return e->path[0] ? 0 : 1;
}

static double now_ms(void)
{
    return (double)mn_time_mono_ns() / 1e6;
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 20,000 files in 200 directories: streamed, timed, and in a small working set. */
static void test_large_tree(void)
{
    setup();
    char *root = path_in(tmp, "large");
    mn_fs_mkdir_p(root);
    double t0 = now_ms();
    mn_buf p = MN_BUF_INIT;
    for (int d = 0; d < 200; d++) {
        mn_buf_clear(&p);
        mn_buf_printf(&p, "%s/pkg%03d", root, d);
        mn_fs_mkdir_p(p.ptr);
        size_t dl = p.len;
        for (int f = 0; f < 100; f++) {
            mn_buf_truncate(&p, dl);
            mn_buf_printf(&p, "/mod%03d.py", f);
            int fd = open(p.ptr, O_WRONLY | O_CREAT, 0644);
            if (fd >= 0) {
                if (write(fd, "x = 1\n", 6) != 6)
                    CHECK(0);
                close(fd);
            }
        }
    }
    mn_buf_release(&p);
    double t_create = now_ms() - t0;

    long rss0 = max_rss_kb();
    size_t n = 0;
    mn_walk_stats st;
    t0 = now_ms();
    CHECK_OK(mn_walk(root, NULL, count_only, &n, &st));
    double t_plain = now_ms() - t0;
    CHECK(n == 20000 && st.files == 20000 && st.dirs == 201);
    long rss_plain = max_rss_kb() - rss0;

    /* a repository where all are untracked: libgit2 ignore checks for each */
    CHECK(run(GIT " init -q '%s'", root) == 0);
    put(root, ".gitignore", "*.pyc\n");
    n = 0;
    t0 = now_ms();
    CHECK_OK(mn_walk(root, NULL, count_only, &n, &st));
    double t_untracked = now_ms() - t0;
    CHECK(n == 20001 && st.git);

    /* all tracked: index lookups instead */
    t0 = now_ms();
    CHECK(run("cd '%s' && " GIT " add -A", root) == 0);
    double t_add = now_ms() - t0;
    n = 0;
    t0 = now_ms();
    CHECK_OK(mn_walk(root, NULL, count_only, &n, &st));
    double t_tracked = now_ms() - t0;
    CHECK(n == 20001);
    long rss_all = max_rss_kb() - rss0;

    printf("large tree: 20000 files created in %.0f ms; walk plain %.0f ms, git untracked %.0f "
           "ms, git tracked %.0f ms (git add %.0f ms); max RSS growth %ld KiB plain, %ld KiB "
           "overall\n",
           t_create, t_plain, t_untracked, t_tracked, t_add, rss_plain, rss_all);
#ifndef MN_SANITIZE
    /* the list is never collected: a plain walk of 20,000 paths stays under 8 MiB */
    CHECK(rss_plain < 8 * 1024);
#endif
    free(root);
    teardown();
}

/* Cases from git's t/t3070-wildmatch.sh (pathname mode). */
static void test_wildmatch(void)
{
    static const struct {
        bool match;
        const char *text, *pat;
    } w[] = {
        {1, "foo", "foo"},
        {0, "foo", "bar"},
        {1, "", ""},
        {1, "foo", "???"},
        {0, "foo", "??"},
        {1, "foo", "*"},
        {1, "foo", "f*"},
        {0, "foo", "*f"},
        {1, "foo", "*foo*"},
        {1, "foobar", "*ob*a*r*"},
        {1, "aaaaaaabababab", "*ab"},
        {1, "foo*", "foo\\*"},
        {0, "foobar", "foo\\*bar"},
        {1, "f\\oo", "f\\\\oo"},
        {1, "ball", "*[al]?"},
        {0, "ten", "[ten]"},
        {1, "ten", "**[!te]"},
        {0, "ten", "**[!ten]"},
        {1, "ten", "t[a-g]n"},
        {0, "ten", "t[!a-g]n"},
        {1, "ton", "t[!a-g]n"},
        {1, "ton", "t[^a-g]n"},
        {1, "a]b", "a[]]b"},
        {1, "a-b", "a[]-]b"},
        {1, "a]b", "a[]-]b"},
        {0, "aab", "a[]-]b"},
        {1, "aab", "a[]a-]b"},
        {1, "]", "]"},
        {0, "foo/baz/bar", "foo*bar"},
        {0, "foo/baz/bar", "foo**bar"},
        {1, "foobazbar", "foo**bar"}, /* a "**" inside a segment is a plain "*" */
        {1, "foo/baz/bar", "foo/**/bar"},
        {1, "foo/baz/bar", "foo/**/**/bar"},
        {1, "foo/b/a/z/bar", "foo/**/bar"},
        {1, "foo/b/a/z/bar", "foo/**/**/bar"},
        {1, "foo/bar", "foo/**/bar"},
        {1, "foo/bar", "foo/**/**/bar"},
        {0, "foo/bar", "foo?bar"},
        {0, "foo/bar", "foo[/]bar"},
        {0, "foo/bar", "foo[^a-z]bar"},
        {0, "foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"},
        {1, "foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"},
        {1, "foo", "**/foo"},
        {1, "XXX/foo", "**/foo"},
        {1, "bar/baz/foo", "**/foo"},
        {0, "bar/baz/foo", "*/foo"},
        {0, "foo/bar/baz", "**/bar*"},
        {1, "deep/foo/bar/baz", "**/bar/*"},
        {0, "deep/foo/bar/baz/", "**/bar/*"},
        {1, "deep/foo/bar/baz/", "**/bar/**"},
        {0, "deep/foo/bar", "**/bar/*"},
        {1, "deep/foo/bar/", "**/bar/**"},
        {0, "foo/bar/baz", "**/bar**"},
        {1, "foo/bar/baz/x", "*/bar/**"},
        {0, "deep/foo/bar/baz/x", "*/bar/**"},
        {1, "deep/foo/bar/baz/x", "**/bar/*/*"},
        {0, "acrt", "a[c-c]st"},
        {1, "acrt", "a[c-c]rt"},
        {0, "]", "[!]-]"},
        {1, "a", "[!]-]"},
        {0, "", "\\"},
        {0, "\\", "\\"},
        {0, "XXX/\\", "*/\\"},
        {1, "XXX/\\", "*/\\\\"},
        {1, "foo", "foo"},
        {1, "@foo", "@foo"},
        {0, "foo", "@foo"},
        {1, "[ab]", "\\[ab]"},
        {1, "[ab]", "[[]ab]"},
        {1, "[ab]", "[[:]ab]"},
        {0, "[ab]", "[[::]ab]"},
        {1, "[ab]", "[[:digit]ab]"},
        {1, "[ab]", "[\\[:]ab]"},
        {1, "?a?b", "\\??\\?b"},
        {1, "abc", "\\a\\b\\c"},
        {0, "foo", ""},
        {1, "foo/bar/baz/to", "**/t[o]"},
        {1, "a1B", "[[:alpha:]][[:digit:]][[:upper:]]"},
        {0, "a", "[[:digit:][:upper:][:space:]]"},
        {1, "A", "[[:digit:][:upper:][:space:]]"},
        {1, "1", "[[:digit:][:upper:][:space:]]"},
        {1, " ", "[[:digit:][:upper:][:space:]]"},
        {0, ".", "[[:digit:][:upper:][:space:]]"},
        {1, ".", "[[:digit:][:punct:][:space:]]"},
        {1, "5", "[[:xdigit:]]"},
        {1, "f", "[[:xdigit:]]"},
        {1, "D", "[[:xdigit:]]"},
        {1, "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1",
         "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"},
        {0, "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1",
         "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"},
        {1, "/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1",
         "/*/*/*/*/*/*/12/*/*/*/m/*/*/*"},
        {0, "/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1",
         "/*/*/*/*/*/*/12/*/*/*/m/*/*/*"},
        {1, "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t"},
        {0, "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t"},
        {0, "foo/bar", "*"},
        {1, "foo/bar", "*/*"},
        {0, "foo/bba/arr", "*/*"},
        {1, "foo/bba/arr", "foo/**"},
        {1, "foo/bba/arr", "foo/**/arr"},
        {0, "foo/bba/arr", "foo*"},
        {1, "XXX/foo", "*/foo"},
        {0, "XXX/foo/", "*/foo"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(w); i++) {
        bool got = mn_index__wildmatch(w[i].pat, w[i].text);
        if (got != w[i].match) {
            fprintf(stderr, "wildmatch('%s', '%s') = %d, want %d\n", w[i].pat, w[i].text, got,
                    w[i].match);
            mn_test__failed_checks++;
        }
    }
    /* pathological backtracking stays fast */
    double t0 = now_ms();
    CHECK(!mn_index__wildmatch(
        "*a*a*a*a*a*a*a*a*a*a*a*a*b",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    CHECK(now_ms() - t0 < 2000);
}

typedef struct {
    mn_buf list; /* "path bundle\n" per entry below a bundle */
} bundles;

static int collect_bundles(void *payload, const mn_walk_entry *e)
{
    bundles *b = payload;
    if (e->bundle)
        mn_buf_printf(&b->list, "%s %.*s\n", e->path, (int)e->bundle, e->path);
    return 0;
}

/*
 * Bundles: another project's code copied in, a directory with a license of its own and no
 * package manifest (jq's src/decNumber with its ICU-license.html, a lib/bench/ with LICENSE and
 * subdirectories); not the root, not a package of the project's own (a crate, an npm package
 * with the project's license), not a file that only mentions a license in its name.
 */
static void test_bundles(void)
{
    setup();
    char *root = path_in(tmp, "bundles");
    put(root, "LICENSE", "MIT\n");
    put(root, "src/main.c", "int main(void) { return 0; }\n");
    put(root, "src/decNumber/ICU-license.html", "<html>ICU</html>\n");
    put(root, "src/decNumber/decNumber.c", "int dec;\n");
    put(root, "lib/bench/LICENSE", "Apache-2.0\n");
    put(root, "lib/bench/src/timer.cc", "int t;\n");
    put(root, "lib/bench/tools/LICENSE.txt", "BSD\n"); /* inside the outer bundle */
    put(root, "lib/bench/tools/compare.py", "x = 1\n");
    put(root, "crates/util/LICENSE", "MIT\n");
    put(root, "crates/util/Cargo.toml", "[package]\nname = \"util\"\n");
    put(root, "crates/util/src/lib.rs", "pub fn f() {}\n");
    put(root, "web/pkg/LICENSE.md", "MIT\n");
    put(root, "web/pkg/package.json", "{}\n");
    put(root, "web/pkg/index.js", "module.exports = 1;\n");
    put(root, "tools/license_check.py", "x = 1\n"); /* a name that mentions a license */
    put(root, "tools/licenses.rst", "x\n");
    bundles b;
    mn_buf_init(&b.list);
    REQUIRE_OK(mn_walk(root, NULL, collect_bundles, &b, NULL));
    const char *want = "lib/bench/LICENSE lib/bench\n"
                       "lib/bench/src/timer.cc lib/bench\n"
                       "lib/bench/tools/LICENSE.txt lib/bench\n"
                       "lib/bench/tools/compare.py lib/bench\n"
                       "src/decNumber/ICU-license.html src/decNumber\n"
                       "src/decNumber/decNumber.c src/decNumber\n";
    if (strcmp(b.list.ptr ? b.list.ptr : "", want) != 0) {
        fprintf(stderr, "bundles:\n%s\nwant:\n%s", b.list.ptr ? b.list.ptr : "", want);
        mn_test__failed_checks++;
    }
    mn_buf_release(&b.list);
    free(root);
    teardown();
}

MN_TEST_MAIN(MN_TEST(test_wildmatch), MN_TEST(test_git_repo), MN_TEST(test_errors),
             MN_TEST(test_empty_repo), MN_TEST(test_non_git), MN_TEST(test_deep_and_unreadable),
             MN_TEST(test_large_tree), MN_TEST(test_bundles))
