/*
 * test_roles.h - the role a store holds for a file, read through the store's
 * own listing (mn_store_files_each), for the tests of the roles a project
 * declares (test_testpaths.c, test_gitattrs.c). Include after common.h.
 */
#ifndef MN_TEST_ROLES_H
#define MN_TEST_ROLES_H

#include "store/store_index.h"

typedef struct {
    const char *path;
    char role[16];
} test_role_query;

static inline int test_role__on_file(void *payload, const mn_file_rec *f)
{
    test_role_query *r = payload;
    if (!strcmp(f->path, r->path))
        snprintf(r->role, sizeof(r->role), "%s", f->role ? f->role : "");
    return 0;
}

/* The stored role of path ("" when the store has no such file); r holds the answer. */
static inline const char *stored_role(mn_store *s, const char *path, test_role_query *r)
{
    r->path = path;
    r->role[0] = '\0';
    if (mn_store_files_each(s, NULL, test_role__on_file, r) != 0)
        return "";
    return r->role;
}

#endif
