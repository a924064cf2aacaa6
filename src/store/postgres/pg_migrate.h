/*
 * pg_migrate.h - the functions of store_migrate.h this back end implements
 * in pg_migrate.c (`mnemo migrate`), listed for the back end's table
 * (pg_internal.h: MN_PG_OTHER_FILES).
 */
#ifndef MN_PG_MIGRATE_H
#define MN_PG_MIGRATE_H

#define MN_PG_MIGRATE_FNS(X) \
    X(projects_each)         \
    X(audit_put)

#endif
