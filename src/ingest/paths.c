/*
 * paths.c - paths from outside (an argument, a transcript_path a hook
 * sends) confined to where mnemo may read: the project's root, or another
 * fence the caller names (Claude Code's transcript directory). Symbolic
 * links are resolved first (realpath), so a link inside the project that
 * points out of it is outside too; the check is a prefix check on whole
 * path components.
 */
#include "common.h"

#include "ingest/ingest.h"
#include "util/util.h"

static bool within(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return true;
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int mn_ingest_confine(char **out, char **rel, const char *root, const char *path,
                      const char *const *fences, size_t nfences, const char *what)
{
    char *abs = NULL, *real = NULL;
    *out = NULL;
    if (rel)
        *rel = NULL;
    if (!path || !*path)
        return mn_error_set(MN_EINVAL, "%s: give a path", what);
    if (path[0] == '/' || !root)
        abs = mn_fs_abspath(path);
    else {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s/%s", root, path);
        abs = mn_fs_abspath(b.ptr);
        mn_buf_release(&b);
    }
    /* outside before links are resolved: refused without a look at the file system */
    bool near = false;
    for (size_t i = 0; i < nfences && !near; i++) {
        char *fence = fences[i] ? realpath(fences[i], NULL) : NULL;
        near = fence && (within(fence, abs) || (fences[i] && within(fences[i], abs)));
        free(fence);
    }
    if (!near) {
        int rc = mn_error_set(
            MN_EINVAL, "%s '%s' is outside the project: mnemo reads only inside it", what, abs);
        free(abs);
        return rc;
    }
    real = realpath(abs, NULL);
    if (!real) {
        int e = errno;
        int rc = mn_error_set(e == ENOENT ? MN_ENOTFOUND : MN_EIO, "%s '%s': %s", what, abs,
                              e == ENOENT ? "no such file or directory" : strerror(e));
        free(abs);
        return rc;
    }
    free(abs);
    for (size_t i = 0; i < nfences; i++) {
        char *fence = fences[i] ? realpath(fences[i], NULL) : NULL;
        bool ok = fence && within(fence, real);
        if (ok && rel) {
            size_t n = strlen(fence);
            const char *r = real + n;
            while (*r == '/')
                r++;
            *rel = mn_strdup(*r ? r : ".");
        }
        free(fence);
        if (ok) {
            *out = real;
            return 0;
        }
    }
    int rc = mn_error_set(MN_EINVAL,
                          "%s '%s' is outside the project%s: mnemo reads only inside it "
                          "(symbolic links resolved)",
                          what, real, nfences > 1 ? " and the places allowed" : "");
    free(real);
    return rc;
}
