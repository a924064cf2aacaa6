/*
 * agent_fs.c - replace another program's configuration file safely.
 *
 * The new content goes to a temporary file beside the target, is synced,
 * and is renamed over it, so a crash leaves the old file or the new one,
 * never half of each (mn_fs_write_atomic_mode). That file's name is random
 * and it is made O_EXCL|O_NOFOLLOW, so a link planted beside the target (a
 * cloned repository's .cursor/ may hold any) is never written through.
 * The file keeps its mode (~/.claude.json is private); a symbolic link
 * (dotfiles kept in a repository) is resolved first, so the link stays and
 * its target changes.
 */
#include "common.h"
#include <sys/stat.h>

#include "agent/agent.h"
#include "util/util.h"

int mn_agent_write_file(const char *path, const char *data, size_t len)
{
    char *real = realpath(path, NULL);
    const char *target = real ? real : path;
    mn_buf dir = MN_BUF_INIT;
    struct stat st;
    /* a new file: what a client's own would be (a project's .mcp.json is shared) */
    unsigned mode = 0644;
    int rc = 0;

    if (stat(target, &st) == 0)
        mode = st.st_mode & 07777;
    const char *slash = strrchr(target, '/');
    if (slash && slash != target) {
        mn_buf_put(&dir, target, (size_t)(slash - target));
        if ((rc = mn_fs_mkdir_p(dir.ptr)) != 0)
            goto out;
    }
    rc = mn_fs_write_atomic_mode(target, data, len, mode);
out:
    mn_buf_release(&dir);
    free(real);
    return rc;
}
