/*
 * test_fs.h - file helpers the unit tests share (include after common.h).
 */
#ifndef MN_TEST_FS_H
#define MN_TEST_FS_H

#include <dirent.h>
#include <unistd.h>

#include "util/buf.h"

/* rm -rf path: the scratch directories tests make with mkdtemp. */
static inline void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            mn_buf p = MN_BUF_INIT;
            mn_buf_printf(&p, "%s/%s", path, e->d_name);
            rm_rf(p.ptr);
            mn_buf_release(&p);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

#endif
