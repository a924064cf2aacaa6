/*
 * pg_more.h - the store functions of the PostgreSQL back end defined in
 * pg_tokens.c (access tokens), pg_vector.c (embeddings), pg_ingest.c
 * (ingested git history, tasks, documents), pg_life.c (citation checks,
 * the life cycle) and pg_scan.c (the secret scan). pg_internal.h's
 * MN_PG_OTHER_FILES includes this list, so pg_store.c's table names them.
 */
#ifndef MN_PG_MORE_H
#define MN_PG_MORE_H

#define MN_PG_MORE_FNS(X) \
    X(token_add)          \
    X(token_find)         \
    X(token_list)         \
    X(token_revoke)       \
    X(token_touch)

#endif
