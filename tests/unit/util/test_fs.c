/*
 * test_fs.c - file helpers in a scratch directory: atomic write then read
 * back, private (0600) and never through a link planted at its temporary
 * name, the size cap (MN_ETOOBIG), missing files (MN_ENOTFOUND), mkdir -p,
 * abspath normalization, and append_line_once being idempotent; the
 * confinement helpers (read_regular refuses a link and a FIFO, realpath
 * and path_within) and the privacy ones (mkdir_private, make_private).
 */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "util/util.h"
#include "test.h"
#include "test_fs.h"

static char tmp[64];

static void setup(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/mnemo-test-fs-XXXXXX");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        exit(2);
    }
}

static char *in_tmp(const char *name)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", tmp, name);
    return mn_buf_detach(&p);
}

static size_t count_entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_write_read(void)
{
    char *path = in_tmp("file.txt");
    const char data[] = "line one\nline two\0binary";
    CHECK_OK(mn_fs_write_atomic(path, data, sizeof(data)));
    mn_buf b = MN_BUF_INIT;
    CHECK_OK(mn_fs_read(&b, path, 1024));
    CHECK(b.len == sizeof(data));
    CHECK(memcmp(b.ptr, data, sizeof(data)) == 0);
    mn_buf_release(&b);

    /* replacing keeps no temporary file behind */
    CHECK_OK(mn_fs_write_atomic(path, "new", 3));
    CHECK_OK(mn_fs_read(&b, path, 1024));
    CHECK_STR(b.ptr, "new");
    mn_buf_release(&b);
    CHECK(count_entries(tmp) == 1);

    /* private whatever the umask lets through */
    mode_t mask = umask(022);
    struct stat st;
    CHECK_OK(mn_fs_write_atomic(path, "new", 3));
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    umask(mask);

    /* an empty file */
    CHECK_OK(mn_fs_write_atomic(path, "", 0));
    CHECK_OK(mn_fs_read(&b, path, 1024));
    CHECK(b.len == 0);
    mn_buf_release(&b);

    /* a larger file crosses the read chunk size */
    size_t big_len = 200000;
    char *big = mn_malloc(big_len);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)('a' + i % 23);
    CHECK_OK(mn_fs_write_atomic(path, big, big_len));
    CHECK_OK(mn_fs_read(&b, path, big_len));
    CHECK(b.len == big_len && memcmp(b.ptr, big, big_len) == 0);
    mn_buf_release(&b);
    free(big);

    /* writing into a missing directory fails with a message naming it */
    char *bad = in_tmp("no/such/dir/f");
    CHECK(mn_fs_write_atomic(bad, "x", 1) == MN_EIO);
    CHECK(strstr(mn_error_last(), "no/such/dir") != NULL);
    free(bad);
    free(path);
}

/*
 * A symbolic link planted where the temporary file would be (the old name,
 * PATH.tmp.<pid>, could be guessed) is not written through, and the file
 * put in place is a regular one, 0600 under umask 022; so is a link at the
 * target itself, which is replaced.
 */
static void test_write_no_follow(void)
{
    mode_t old = umask(022);
    char *dir = in_tmp("nofollow"), *victim = in_tmp("nofollow/victim.txt");
    char *path = in_tmp("nofollow/out.jsonl");
    mn_buf planted = MN_BUF_INIT, b = MN_BUF_INIT;
    struct stat st;
    REQUIRE_OK(mn_fs_mkdir_p(dir));
    FILE *f = fopen(victim, "w");
    REQUIRE(f && fputs("VICTIM\n", f) >= 0 && fclose(f) == 0);
    mn_buf_printf(&planted, "%s.tmp.%d", path, (int)getpid());
    REQUIRE(symlink(victim, planted.ptr) == 0);

    CHECK_OK(mn_fs_write_atomic(path, "private\n", 8));
    CHECK_OK(mn_fs_read(&b, victim, 1024));
    CHECK_STR(b.ptr, "VICTIM\n");
    mn_buf_clear(&b);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK_OK(mn_fs_read(&b, path, 1024));
    CHECK_STR(b.ptr, "private\n");
    mn_buf_clear(&b);
    /* the link is left (it is not ours), and no temporary file is: victim, link, out */
    CHECK(lstat(planted.ptr, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(count_entries(dir) == 3);

    /* a link at the target is replaced by the file, what it pointed to left alone */
    CHECK(unlink(path) == 0);
    REQUIRE(symlink(victim, path) == 0);
    CHECK_OK(mn_fs_write_atomic(path, "again\n", 6));
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK_OK(mn_fs_read(&b, victim, 1024));
    CHECK_STR(b.ptr, "VICTIM\n");
    mn_buf_release(&b);

    /* a mode asked for is given exactly (a git hook must be executable) */
    CHECK_OK(mn_fs_write_atomic_mode(path, "#!/bin/sh\n", 10, 0755));
    CHECK(lstat(path, &st) == 0 && (st.st_mode & 0777) == 0755);
    mn_buf_release(&planted);
    umask(old);
    free(dir);
    free(victim);
    free(path);
}

static void test_read_limits(void)
{
    char *path = in_tmp("sized");
    char data[1000];
    memset(data, 'x', sizeof(data));
    CHECK_OK(mn_fs_write_atomic(path, data, sizeof(data)));
    mn_buf b = MN_BUF_INIT;
    CHECK_OK(mn_fs_read(&b, path, 1000)); /* exactly the cap is fine */
    CHECK(b.len == 1000);
    mn_buf_release(&b);
    mn_error_clear();
    CHECK(mn_fs_read(&b, path, 999) == MN_ETOOBIG);
    CHECK(strstr(mn_error_last(), "sized") != NULL);
    CHECK(strstr(mn_error_last(), "999") != NULL);
    mn_buf_release(&b);

    char *missing = in_tmp("missing");
    CHECK(mn_fs_read(&b, missing, 1000) == MN_ENOTFOUND);
    CHECK(strstr(mn_error_last(), "missing") != NULL);
    CHECK(b.len == 0);
    mn_buf_release(&b);
    /* a directory cannot be read as a file */
    CHECK(mn_fs_read(&b, tmp, 1000) == MN_EIO);
    mn_buf_release(&b);
    free(missing);
    free(path);
}

static void test_mkdir_p(void)
{
    char *deep = in_tmp("a/b/c/d");
    CHECK(!mn_fs_exists(deep));
    CHECK_OK(mn_fs_mkdir_p(deep));
    CHECK(mn_fs_is_dir(deep));
    mode_t mask = umask(0);
    umask(mask);
    struct stat st;
    CHECK(stat(deep, &st) == 0 && (st.st_mode & 0777) == (0755 & ~mask));
    /* again: fine */
    CHECK_OK(mn_fs_mkdir_p(deep));
    /* a trailing slash and doubled slashes */
    char *slashed = in_tmp("x//y/");
    CHECK_OK(mn_fs_mkdir_p(slashed));
    char *y = in_tmp("x/y");
    CHECK(mn_fs_is_dir(y));
    free(y);
    free(slashed);

    /* a file in the way */
    char *file = in_tmp("a/b/file");
    CHECK_OK(mn_fs_write_atomic(file, "x", 1));
    CHECK(mn_fs_is_dir(deep));
    CHECK(!mn_fs_is_dir(file));
    CHECK(mn_fs_exists(file));
    CHECK(mn_fs_mkdir_p(file) == MN_EIO);
    CHECK(strstr(mn_error_last(), "not a directory") != NULL);
    char *under = in_tmp("a/b/file/sub");
    CHECK(mn_fs_mkdir_p(under) == MN_EIO);
    free(under);
    free(file);
    free(deep);
    /* the empty path is refused, not read past */
    CHECK(mn_fs_mkdir_p("") != 0);
}

static void test_abspath(void)
{
    char *p;
    p = mn_fs_abspath("/a/b/../c/./d//e/");
    CHECK_STR(p, "/a/c/d/e");
    free(p);
    p = mn_fs_abspath("/");
    CHECK_STR(p, "/");
    free(p);
    p = mn_fs_abspath("/..");
    CHECK_STR(p, "/");
    free(p);
    p = mn_fs_abspath("/a/../..");
    CHECK_STR(p, "/");
    free(p);
    p = mn_fs_abspath("//x///y");
    CHECK_STR(p, "/x/y");
    free(p);
    p = mn_fs_abspath("/a/./b/.");
    CHECK_STR(p, "/a/b");
    free(p);
    p = mn_fs_abspath("/a/..b/c");
    CHECK_STR(p, "/a/..b/c");
    free(p);

    /* relative paths are resolved against the current directory */
    char cwd[PATH_MAX], *saved = getcwd(cwd, sizeof(cwd)) ? mn_strdup(cwd) : NULL;
    REQUIRE(saved != NULL);
    REQUIRE(chdir(tmp) == 0);
    char real[PATH_MAX];
    REQUIRE(getcwd(real, sizeof(real)) != NULL);
    p = mn_fs_abspath("sub/../file");
    mn_buf want = MN_BUF_INIT;
    mn_buf_printf(&want, "%s/file", real);
    CHECK_STR(p, want.ptr);
    free(p);
    p = mn_fs_abspath(".");
    CHECK_STR(p, real);
    free(p);
    p = mn_fs_abspath("..");
    char *slash = strrchr(real, '/');
    mn_buf_clear(&want);
    mn_buf_put(&want, real, (size_t)(slash - real));
    CHECK_STR(p, want.len ? want.ptr : "/");
    free(p);
    mn_buf_release(&want);
    CHECK(chdir(saved) == 0);
    free(saved);
}

static void test_append_line_once(void)
{
    char *path = in_tmp("exclude");
    mn_buf b = MN_BUF_INIT;

    /* creates the file */
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_read(&b, path, 4096));
    CHECK_STR(b.ptr, "/.mnemo/\n");
    mn_buf_release(&b);
    /* idempotent */
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_read(&b, path, 4096));
    CHECK_STR(b.ptr, "/.mnemo/\n");
    mn_buf_release(&b);

    /* existing content without a final newline; a line that only shares a prefix */
    CHECK_OK(mn_fs_write_atomic(path, "# comment\n/.mnemo/x", 19));
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_read(&b, path, 4096));
    CHECK_STR(b.ptr, "# comment\n/.mnemo/x\n/.mnemo/\n");
    mn_buf_release(&b);
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_append_line_once(path, "# comment"));
    CHECK_OK(mn_fs_read(&b, path, 4096));
    CHECK_STR(b.ptr, "# comment\n/.mnemo/x\n/.mnemo/\n");
    mn_buf_release(&b);

    /* the line present as the last line without a newline */
    CHECK_OK(mn_fs_write_atomic(path, "a\n/.mnemo/", 10));
    CHECK_OK(mn_fs_append_line_once(path, "/.mnemo/"));
    CHECK_OK(mn_fs_read(&b, path, 4096));
    CHECK_STR(b.ptr, "a\n/.mnemo/");
    mn_buf_release(&b);

    /* git's file keeps the mode it had */
    struct stat st;
    CHECK(chmod(path, 0644) == 0);
    CHECK_OK(mn_fs_append_line_once(path, "/.other/"));
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    free(path);
}

static void test_read_regular(void)
{
    char *target = in_tmp("secret.txt"), *link = in_tmp("link.txt"), *fifo = in_tmp("fifo");
    REQUIRE_OK(mn_fs_write_atomic(target, "top secret", 10));
    REQUIRE(symlink(target, link) == 0);
    REQUIRE(mkfifo(fifo, 0600) == 0);
    mn_buf b = MN_BUF_INIT;
    /* a regular file reads as with mn_fs_read */
    CHECK_OK(mn_fs_read_regular(&b, target, 1024));
    CHECK(b.len == 10 && memcmp(b.ptr, "top secret", 10) == 0);
    /* a link is not followed, though mn_fs_read would follow it */
    mn_buf_clear(&b);
    CHECK(mn_fs_read_regular(&b, link, 1024) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "symbolic link") != NULL);
    CHECK(b.len == 0);
    /* a FIFO is neither waited on nor read (this would hang if it were opened blocking) */
    CHECK(mn_fs_read_regular(&b, fifo, 1024) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "not a regular file") != NULL);
    /* size cap before reading, and a missing file */
    CHECK(mn_fs_read_regular(&b, target, 5) == MN_ETOOBIG);
    char *missing = in_tmp("missing.txt");
    CHECK(mn_fs_read_regular(&b, missing, 1024) == MN_ENOTFOUND);
    mn_buf_release(&b);
    free(target);
    free(link);
    free(fifo);
    free(missing);
}

/* a file read from its end: the whole when it fits, else from the first line that starts in
 * its last max bytes, with how many bytes were left before them */
static void test_read_tail(void)
{
    char *path = in_tmp("transcript.jsonl");
    const char *text = "{\"turn\":1}\n{\"turn\":2}\n{\"turn\":3}\n"; /* 3 lines, 11 bytes each */
    REQUIRE_OK(mn_fs_write_atomic(path, text, strlen(text)));
    mn_buf b = MN_BUF_INIT;
    uint64_t skipped = 99;
    CHECK_OK(mn_fs_read_tail(&b, path, 1024, &skipped));
    CHECK(skipped == 0 && b.len == 33 && memcmp(b.ptr, text, 33) == 0);
    /* 20 bytes: they start inside the second line, so the third alone is read */
    mn_buf_clear(&b);
    CHECK_OK(mn_fs_read_tail(&b, path, 20, &skipped));
    CHECK(b.len == 11 && memcmp(b.ptr, "{\"turn\":3}\n", 11) == 0);
    CHECK(skipped == 22);
    CHECK(b.ptr[b.len] == '\0');
    /* max exactly at a line's start: that line is cut off too, as it may be (the start of a
     * line is not known without the byte before it) */
    mn_buf_clear(&b);
    CHECK_OK(mn_fs_read_tail(&b, path, 11, &skipped));
    CHECK(b.len == 0 && skipped == 33);
    /* without *skipped, a larger file is refused as by mn_fs_read_regular */
    mn_buf_clear(&b);
    CHECK(mn_fs_read_tail(&b, path, 20, NULL) == MN_ETOOBIG);
    mn_buf_release(&b);
    free(path);
}

static void test_realpath_within(void)
{
    char *dir = in_tmp("proj"), *sub = in_tmp("proj/sub"), *out = in_tmp("proj2");
    char *via = in_tmp("proj/escape");
    REQUIRE_OK(mn_fs_mkdir_p(sub));
    REQUIRE_OK(mn_fs_mkdir_p(out));
    REQUIRE(symlink(out, via) == 0);
    char *rdir = mn_fs_realpath(dir), *rsub = mn_fs_realpath(sub), *rout = mn_fs_realpath(out);
    char *rvia = mn_fs_realpath(via);
    REQUIRE(rdir && rsub && rout && rvia);
    CHECK(mn_fs_path_within(rdir, rdir));
    CHECK(mn_fs_path_within(rdir, rsub));
    /* a sibling sharing the prefix is not inside */
    CHECK(!mn_fs_path_within(rdir, rout));
    CHECK(!mn_fs_path_within(rsub, rdir));
    /* a link inside that points outside resolves outside */
    CHECK(strcmp(rvia, rout) == 0);
    CHECK(!mn_fs_path_within(rdir, rvia));
    CHECK(mn_fs_path_within("/", rdir));
    char *missing = in_tmp("nope");
    CHECK(mn_fs_realpath(missing) == NULL);
    free(missing);
    free(rdir);
    free(rsub);
    free(rout);
    free(rvia);
    free(dir);
    free(sub);
    free(out);
    free(via);
}

static void test_private(void)
{
    mode_t old = umask(022);
    char *dir = in_tmp("priv/a/b"), *top = in_tmp("priv"), *file = in_tmp("priv/f");
    struct stat st;
    REQUIRE_OK(mn_fs_mkdir_private(dir));
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK(stat(top, &st) == 0 && (st.st_mode & 0777) == 0700);
    /* an existing directory is left as it is by mkdir_private, tightened by make_private */
    CHECK(chmod(dir, 0755) == 0);
    REQUIRE_OK(mn_fs_mkdir_private(dir));
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0755);
    CHECK(mn_fs_make_private(dir));
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    /* a file loses group and other bits, keeps the owner's */
    REQUIRE_OK(mn_fs_write_atomic(file, "x", 1));
    CHECK(chmod(file, 0644) == 0);
    CHECK(mn_fs_make_private(file));
    CHECK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(!mn_fs_make_private(file)); /* nothing left to take */
    /* a link is left alone, and so is what it points to */
    char *link = in_tmp("priv/l");
    CHECK(chmod(file, 0644) == 0);
    REQUIRE(symlink(file, link) == 0);
    CHECK(!mn_fs_make_private(link));
    CHECK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0644);
    umask(old);
    free(link);
    free(dir);
    free(top);
    free(file);
}

static void test_setup(void)
{
    setup();
    CHECK(mn_fs_is_dir(tmp));
}

static void test_cleanup(void)
{
    rm_rf(tmp);
    CHECK(!mn_fs_exists(tmp));
}

MN_TEST_MAIN(MN_TEST(test_setup), MN_TEST(test_write_read), MN_TEST(test_write_no_follow),
             MN_TEST(test_read_limits), MN_TEST(test_mkdir_p), MN_TEST(test_abspath),
             MN_TEST(test_append_line_once), MN_TEST(test_read_regular), MN_TEST(test_read_tail),
             MN_TEST(test_realpath_within), MN_TEST(test_private), MN_TEST(test_cleanup))
