/*
 * fs.c - file helpers. Reads are capped (sizes from outside are checked
 * before allocating); writes that replace a file go through a temporary
 * file and rename so a crash leaves the old or the new content, never half.
 *
 * Confinement: what mnemo reads of a repository is read with
 * mn_fs_read_regular (O_NOFOLLOW, O_NONBLOCK, then fstat): a symbolic link
 * put where a file was listed is refused instead of followed out of the
 * work tree, and a FIFO or device swapped in is neither waited on nor read.
 * mn_fs_realpath and mn_fs_path_within decide whether a directory lies
 * inside another once symbolic links are resolved.
 *
 * Privacy: what mn_fs_write_atomic writes is 0600 unless the caller asks
 * for another mode (memories, exports and edits are nobody else's to
 * read), from the moment its temporary file exists: that file has a name
 * no one can guess and is created O_EXCL|O_NOFOLLOW, so a symbolic link
 * planted beside the target is never written through. A store's directory
 * is made with mn_fs_mkdir_private (0700) and
 * mn_fs_make_private takes group and other permissions off a file or
 * directory the current user owns (an older mnemo made them 0644/0755);
 * the caller decides which existing directories are the store's own.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/digest.h"
#include "util/util.h"

/* Read fd to its end into out, within max_size; path names it in errors. */
static int read_fd(mn_buf *out, int fd, const char *path, size_t max_size)
{
    int rc = 0;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = mn_error_set(MN_EIO, "cannot read '%s': %s", path, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (out->len + (size_t)n > max_size) {
            rc = mn_error_set(MN_ETOOBIG, "'%s' is larger than the limit of %zu bytes", path,
                              max_size);
            break;
        }
        mn_buf_put(out, chunk, (size_t)n);
    }
    return rc;
}

int mn_fs_read(mn_buf *out, const char *path, size_t max_size)
{
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mn_error_set(errno == ENOENT ? MN_ENOTFOUND : MN_EIO, "cannot open '%s': %s", path,
                            strerror(errno));
    int rc = read_fd(out, fd, path, max_size);
    if (fd != 0)
        close(fd);
    return rc;
}

int mn_fs_read_regular(mn_buf *out, const char *path, size_t max_size)
{
    return mn_fs_read_tail(out, path, max_size, NULL);
}

int mn_fs_read_tail(mn_buf *out, const char *path, size_t max_size, uint64_t *skipped)
{
    struct stat st;
    int rc, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (skipped)
        *skipped = 0;
    if (fd < 0) {
        if (errno == ELOOP)
            return mn_error_set(MN_EINVAL, "'%s' is a symbolic link: not followed", path);
        return mn_error_set(errno == ENOENT ? MN_ENOTFOUND : MN_EIO, "cannot open '%s': %s", path,
                            strerror(errno));
    }
    if (fstat(fd, &st) != 0)
        rc = mn_error_set(MN_EIO, "cannot read '%s': %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = mn_error_set(MN_EINVAL, "'%s' is not a regular file: not read", path);
    else if ((uint64_t)st.st_size > max_size && !skipped)
        rc = mn_error_set(MN_ETOOBIG, "'%s' is larger than the limit of %zu bytes", path, max_size);
    else if ((uint64_t)st.st_size > max_size) {
        /* the last max_size bytes, from the first line that starts in them */
        off_t from = st.st_size - (off_t)max_size;
        size_t at = out->len; /* what out held before */
        if (lseek(fd, from, SEEK_SET) != from)
            rc = mn_error_set(MN_EIO, "cannot read '%s': %s", path, strerror(errno));
        else if ((rc = read_fd(out, fd, path, at + max_size)) == 0 && out->len > at) {
            const char *nl = memchr(out->ptr + at, '\n', out->len - at);
            size_t cut = nl ? (size_t)(nl - (out->ptr + at)) + 1 : out->len - at;
            memmove(out->ptr + at, out->ptr + at + cut, out->len - at - cut);
            out->len -= cut;
            out->ptr[out->len] = '\0';
            *skipped = (uint64_t)from + cut;
        }
    } else {
        rc = read_fd(out, fd, path, max_size);
    }
    close(fd);
    return rc;
}

/*
 * A new file beside path for the content that will replace it; its name,
 * "PATH.tmp." and 12 random hex digits, in tmp. O_EXCL|O_NOFOLLOW: a name
 * that exists is never opened (above all a symbolic link planted there to
 * make us write through it), another is drawn. Made 0600, so the content
 * is nobody else's to read while it is written; the caller's mode is set
 * once it is complete.
 */
static int create_temp(mn_buf *tmp, const char *path)
{
    for (int tries = 0; tries < 8; tries++) {
        uint8_t r[6];
        char hex[2 * sizeof(r) + 1];
        int rc = mn_random_bytes(r, sizeof(r));
        if (rc)
            return rc;
        mn_hex(hex, r, sizeof(r));
        mn_buf_clear(tmp);
        mn_buf_printf(tmp, "%s.tmp.%s", path, hex);
        int fd = open(tmp->ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    return mn_error_set(MN_EIO, "cannot create '%s': %s", tmp->ptr, strerror(errno));
}

int mn_fs_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode)
{
    mn_buf tmp = MN_BUF_INIT;
    int rc = 0, fd = create_temp(&tmp, path);
    if (fd < 0) {
        rc = fd;
        goto out;
    }
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = mn_error_set(MN_EIO, "cannot write '%s': %s", tmp.ptr, strerror(errno));
            close(fd);
            unlink(tmp.ptr);
            goto out;
        }
        p += n;
        left -= (size_t)n;
    }
    /* the mode asked exactly, not less the umask: a hook must be executable whatever it is */
    int err = fchmod(fd, (mode_t)(mode & 07777)) != 0 || fsync(fd) != 0 ? errno : 0;
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        rc = mn_error_set(MN_EIO, "cannot write '%s': %s", tmp.ptr, strerror(err));
        unlink(tmp.ptr);
        goto out;
    }
    if (rename(tmp.ptr, path) != 0) {
        rc = mn_error_set(MN_EIO, "cannot replace '%s': %s", path, strerror(errno));
        unlink(tmp.ptr);
    }
out:
    mn_buf_release(&tmp);
    return rc;
}

int mn_fs_write_atomic(const char *path, const void *data, size_t len)
{
    return mn_fs_write_atomic_mode(path, data, len, 0600);
}

bool mn_fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool mn_fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int mkdir_mode(const char *path, mode_t mode)
{
    if (!*path)
        return mn_error_set(MN_EINVAL, "cannot create a directory with an empty name");
    char *p = mn_strdup(path);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char saved = *s;
            *s = '\0';
            if (mkdir(p, mode) != 0 && errno != EEXIST) {
                rc = mn_error_set(MN_EIO, "cannot create directory '%s': %s", p, strerror(errno));
                break;
            }
            *s = saved;
            if (saved == '\0')
                break;
        }
    }
    free(p);
    if (rc == 0 && !mn_fs_is_dir(path))
        rc = mn_error_set(MN_EIO, "'%s' exists and is not a directory", path);
    return rc;
}

int mn_fs_mkdir_p(const char *path)
{
    return mkdir_mode(path, 0755);
}

int mn_fs_mkdir_private(const char *path)
{
    return mkdir_mode(path, 0700);
}

bool mn_fs_make_private(const char *path)
{
    struct stat st;
    /* lstat: a link is left alone (chmod would change what it points to) */
    if (lstat(path, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) == 0 ||
        !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
        return false;
    /* a read-only file system or a race with a remover: nothing to do about it here */
    return chmod(path, st.st_mode & 0700) == 0;
}

char *mn_fs_realpath(const char *path)
{
    return realpath(path, NULL);
}

bool mn_fs_path_within(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return path[0] == '/';
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *mn_fs_abspath(const char *path)
{
    mn_buf in = MN_BUF_INIT, out = MN_BUF_INIT;
    if (path[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof(cwd)))
            mn_buf_puts(&in, cwd);
        mn_buf_putc(&in, '/');
    }
    mn_buf_puts(&in, path);

    /* normalize ".", ".." and repeated slashes */
    char *save = NULL;
    for (char *tok = strtok_r(in.ptr, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            char *slash = strrchr(out.ptr, '/');
            mn_buf_truncate(&out, slash ? (size_t)(slash - out.ptr) : 0);
            continue;
        }
        mn_buf_putc(&out, '/');
        mn_buf_puts(&out, tok);
    }
    if (out.len == 0)
        mn_buf_putc(&out, '/');
    mn_buf_release(&in);
    return mn_buf_detach(&out);
}

int mn_fs_append_line_once(const char *path, const char *line)
{
    mn_buf cur = MN_BUF_INIT;
    int rc = mn_fs_read(&cur, path, 16 << 20);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        rc = 0;
    }
    if (rc)
        goto out;
    size_t n = strlen(line);
    for (const char *p = cur.ptr; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l == n && memcmp(p, line, n) == 0)
            goto out;
        p += l + (nl ? 1 : 0);
    }
    if (cur.len && cur.ptr[cur.len - 1] != '\n')
        mn_buf_putc(&cur, '\n');
    mn_buf_puts(&cur, line);
    mn_buf_putc(&cur, '\n');
    /* someone else's file (git's info/exclude): it keeps the mode it had */
    struct stat st;
    rc = mn_fs_write_atomic_mode(path, cur.ptr, cur.len,
                                 stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0600);
out:
    mn_buf_release(&cur);
    return rc;
}
