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

/* Whether the process maps the file at path (a line of /proc/self/maps ending in it: a
 * SQLite store's -shm, also mapped, ends otherwise). */
static inline bool file_mapped(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    size_t n = strlen(path);
    bool found = false;
    if (!f)
        abort(); /* Linux: the tests that ask run there */
    while (!found && fgets(line, sizeof(line), f)) {
        size_t len = strcspn(line, "\n");
        found = len >= n && memcmp(line + len - n, path, n) == 0;
    }
    fclose(f);
    return found;
}

#endif
