/*
 * agent_fs.c - replace another program's configuration file safely.
 *
 * The new content goes to a temporary file beside the target, is synced,
 * and is renamed over it, so a crash leaves the old file or the new one,
 * never half of each. The file keeps its mode (~/.claude.json is private);
 * a symbolic link (dotfiles kept in a repository) is resolved first, so the
 * link stays and its target changes.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "util/util.h"

int mn_agent_write_file(const char *path, const char *data, size_t len)
{
    char *real = realpath(path, NULL);
    const char *target = real ? real : path;
    mn_buf tmp = MN_BUF_INIT, dir = MN_BUF_INIT;
    struct stat st;
    mode_t mode = 0644;
    int rc = 0, fd = -1;

    if (stat(target, &st) == 0)
        mode = st.st_mode & 07777;
    const char *slash = strrchr(target, '/');
    if (slash && slash != target) {
        mn_buf_put(&dir, target, (size_t)(slash - target));
        if ((rc = mn_fs_mkdir_p(dir.ptr)) != 0)
            goto out;
    }
    mn_buf_printf(&tmp, "%s.mnemo-tmp.%d", target, (int)getpid());
    fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = mn_error_set(MN_EIO, "cannot create '%s': %s", tmp.ptr, strerror(errno));
        goto out;
    }
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = mn_error_set(MN_EIO, "cannot write '%s': %s", tmp.ptr, strerror(errno));
            goto out;
        }
        done += (size_t)n;
    }
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
        rc = mn_error_set(MN_EIO, "cannot write '%s': %s", tmp.ptr, strerror(errno));
        goto out;
    }
    if (close(fd) != 0) {
        fd = -1;
        rc = mn_error_set(MN_EIO, "cannot write '%s': %s", tmp.ptr, strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp.ptr, target) != 0)
        rc = mn_error_set(MN_EIO, "cannot replace '%s': %s", target, strerror(errno));
out:
    if (fd >= 0)
        close(fd);
    if (rc && tmp.len)
        unlink(tmp.ptr);
    mn_buf_release(&tmp);
    mn_buf_release(&dir);
    free(real);
    return rc;
}
