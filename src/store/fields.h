/*
 * fields.h - the canonical memory JSON shape, as data.
 *
 * One row per stored field: where it sits in the JSON (group and key), the
 * column it is stored in, and how it converts. Both back ends build their
 * SQL and their JSON from this table, and its order is the key order of
 * every memory mnemo prints or exports, which keeps exports deterministic
 * (a byte-identical round trip). docs/memory-format.md describes the shape.
 */
#ifndef MN_STORE_FIELDS_H
#define MN_STORE_FIELDS_H

#include <jansson.h>
#include <stddef.h>

#include "util/buf.h"

typedef enum {
    MN_F_TEXT,    /* string <-> TEXT; omitted when NULL */
    MN_F_STRV,    /* array of strings <-> JSON text; omitted when empty */
    MN_F_LEVEL,   /* "L0".."L3" <-> 0..3 */
    MN_F_REAL,    /* number <-> REAL; omitted when NULL */
    MN_F_COUNT,   /* integer <-> INTEGER, always present (default 0) */
    MN_F_TIME,    /* RFC 3339 string <-> ms INTEGER; omitted when NULL */
    MN_F_EXCERPT, /* string <-> zlib BLOB + excerpt_len */
    MN_F_OBJECT   /* object <-> JSON text; omitted when NULL */
} mn_field_type;

typedef struct {
    const char *group; /* NULL: top level; else "context", "scope", ... */
    const char *key;
    const char *column;
    mn_field_type type;
} mn_field;

extern const mn_field mn_memory_fields[];
extern const size_t mn_memory_field_count;

/** The JSON value of a field in a memory object, or NULL. */
json_t *mn_field_get(const json_t *mem, const mn_field *f);
/** Set a field's value (steals value), creating its group object if needed. */
void mn_field_set(json_t *mem, const mn_field *f, json_t *value);

/** The SQL pieces of the field columns, in table order (the excerpt's length after it). */
typedef struct {
    mn_buf cols; /* "a, b, " */
    mn_buf vals; /* "?1, ?2, " (or "$1, $2, ") */
    mn_buf sets; /* "a = ?1, b = ?2, " */
    int params;  /* how many parameters they take, numbered from 1 */
} mn_field_sql;

/**
 * Build the field columns' SQL with parameters written as mark (SQLite's
 * '?', PostgreSQL's '$') and numbered from 1; the SELECT list is cols.
 * Release with mn_field_sql_release.
 */
void mn_field_sql_build(mn_field_sql *out, char mark);
void mn_field_sql_release(mn_field_sql *sql);

#endif
