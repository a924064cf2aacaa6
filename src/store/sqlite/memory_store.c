/*
 * memory_store.c - the memories and their links in the SQLite back end:
 * insert, replace, get, resolve an id prefix, list and count with
 * filters, forget, purge, backlinks. A memory row converts to and from the
 * canonical JSON through the field table of fields.h (bind_field,
 * column_json), so adding a field is one line there and one migration; its
 * citations, links and fingerprint are side tables written with the row.
 */
#include "common.h"
#include <sqlite3.h>
#include <zlib.h>

#include "store/store.h"
#include "store/fields.h"
#include "store/sqlite/sqlite_internal.h"

#define MN_EXCERPT_MAX_STORED (16u << 20) /* sanity bound on a stored excerpt */

static int bind_field(mn_store *s, sqlite3_stmt *st, int *idx, const mn_field *f, const json_t *v)
{
    int i = (*idx)++;
    switch (f->type) {
    case MN_F_TEXT:
        mn_sqlite__bind_text(st, i, json_string_value(v));
        break;
    case MN_F_STRV:
        if (json_is_array(v) && json_array_size(v) > 0) {
            char *txt = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);
            sqlite3_bind_text(st, i, txt, -1, free);
        } else {
            sqlite3_bind_null(st, i);
        }
        break;
    case MN_F_LEVEL: {
        const char *l = json_string_value(v);
        sqlite3_bind_int(st, i, l && l[0] == 'L' && l[1] >= '0' && l[1] <= '3' ? l[1] - '0' : 2);
        break;
    }
    case MN_F_REAL:
        if (json_is_number(v))
            sqlite3_bind_double(st, i, json_number_value(v));
        else
            sqlite3_bind_null(st, i);
        break;
    case MN_F_COUNT:
        sqlite3_bind_int64(st, i, json_is_integer(v) ? json_integer_value(v) : 0);
        break;
    case MN_F_TIME: {
        int64_t ms;
        if (json_is_string(v) && mn_time_parse(&ms, json_string_value(v)) == 0)
            sqlite3_bind_int64(st, i, ms);
        else if (v && !json_is_null(v))
            return mn_error_set(MN_EINVAL, "field '%s' must be an RFC 3339 time", f->key);
        else
            sqlite3_bind_null(st, i);
        break;
    }
    case MN_F_EXCERPT: {
        int j = (*idx)++;
        const char *txt = json_string_value(v);
        if (!txt || !*txt) {
            sqlite3_bind_null(st, i);
            sqlite3_bind_null(st, j);
            break;
        }
        size_t len = strlen(txt);
        uLongf clen = compressBound(len);
        Bytef *z = mn_malloc(clen);
        if (compress2(z, &clen, (const Bytef *)txt, len, 6) != Z_OK) {
            free(z);
            return mn_error_set(MN_EINTERNAL, "cannot compress a conversation excerpt");
        }
        sqlite3_bind_blob(st, i, z, (int)clen, free);
        sqlite3_bind_int64(st, j, (sqlite3_int64)len);
        break;
    }
    case MN_F_OBJECT:
        if (json_is_object(v)) {
            char *txt = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);
            sqlite3_bind_text(st, i, txt, -1, free);
        } else {
            sqlite3_bind_null(st, i);
        }
        break;
    }
    MN_UNUSED(s);
    return 0;
}

/* SQL text for the field columns, built once from the table. */
static void build_sql(mn_store *s)
{
    if (sq(s)->insert_sql)
        return;
    mn_field_sql f;
    mn_field_sql_build(&f, '?');
    int n = f.params + 1;
    mn_buf ins = MN_BUF_INIT, rep = MN_BUF_INIT, get = MN_BUF_INIT;
    /* saved_at (schema v10): when this store took the memory in, the clock of its kind's
     * time to live; the store's own, never exported */
    mn_buf_printf(&ins,
                  "INSERT INTO memories (%suid, project_id, content_hash, saved_at) "
                  "VALUES (%s?%d, ?%d, ?%d, ?%d)",
                  f.cols.ptr, f.vals.ptr, n, n + 1, n + 2, n + 3);
    mn_buf_printf(&rep,
                  "UPDATE memories SET %scontent_hash = ?%d WHERE uid = ?%d AND project_id = ?%d",
                  f.sets.ptr, n + 2, n, n + 1);
    mn_buf_printf(&get, "SELECT %sid, uid FROM memories", f.cols.ptr);
    sq(s)->insert_sql = mn_buf_detach(&ins);
    sq(s)->replace_sql = mn_buf_detach(&rep);
    sq(s)->select_sql = mn_buf_detach(&get);
    sq(s)->field_params = f.params;
    mn_field_sql_release(&f);
}

static int64_t memory_rowid(mn_store *s, const char *id)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT id FROM memories WHERE uid = ?1 AND project_id = ?2");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    int64_t rowid = 0;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        rowid = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        rowid = -1, mn_sqlite__error(s, rc, "cannot read a memory");
    sqlite3_reset(st);
    if (rowid == 0)
        mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rowid;
}

/* Side tables that mirror list fields: tags, scope paths, citations. */
static int write_side_tables(mn_store *s, int64_t rowid, const json_t *mem)
{
    int fprc = mn_sqlite__fingerprint_put(s, rowid, mem);
    if (fprc)
        return fprc;
    static const char *const del[] = {
        "DELETE FROM memory_tags WHERE memory_id = ?1",
        "DELETE FROM memory_paths WHERE memory_id = ?1",
        "DELETE FROM citations WHERE memory_id = ?1",
    };
    int rc;
    for (size_t i = 0; i < MN_ARRAY_SIZE(del); i++) {
        sqlite3_stmt *st = mn_sqlite__stmt(s, del[i]);
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, rowid);
        if ((rc = mn_sqlite__step_done(s, st, "cannot update a memory")) != 0)
            return rc;
    }
    const json_t *scope = json_object_get(mem, "scope");
    struct {
        const char *key, *sql;
    } lists[] = {
        {"tags", "INSERT OR IGNORE INTO memory_tags(tag, memory_id) VALUES (?1, ?2)"},
        {"paths", "INSERT OR IGNORE INTO memory_paths(path, memory_id) VALUES (?1, ?2)"},
    };
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(scope, lists[l].key), i, v)
        {
            sqlite3_stmt *st = mn_sqlite__stmt(s, lists[l].sql);
            if (!st)
                return mn_error_last_code();
            sqlite3_bind_text(st, 1, json_string_value(v), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 2, rowid);
            if ((rc = mn_sqlite__step_done(s, st, "cannot store a memory")) != 0)
                return rc;
        }
    }
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(mem, "citations"), i, c)
    {
        /* text, stale and checked_at come back as they were read (schema v10); a citation
         * whose file was indexed again since it was checked (or never checked) waits for
         * the next check: a rewrite never loses a mark the index left */
        sqlite3_stmt *st = mn_sqlite__stmt(
            s, "INSERT INTO citations(memory_id, seq, path, symbol, start_line, end_line, "
               "content_hash, text, stale, checked_at, dirty) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
               "?7, ?8, ?9, ?10, CASE WHEN ?10 IS NULL THEN 1 ELSE coalesce((SELECT "
               "f.indexed_at > ?10 FROM files f WHERE f.project_id = ?11 AND f.path = ?3), "
               "?9 = 0 AND ?7 IS NOT NULL) END)");
        if (!st)
            return mn_error_last_code();
        sqlite3_bind_int64(st, 1, rowid);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        mn_sqlite__bind_text(st, 3, json_string_value(json_object_get(c, "path")));
        mn_sqlite__bind_text(st, 4, json_string_value(json_object_get(c, "symbol")));
        json_t *sl = json_object_get(c, "start_line"), *el = json_object_get(c, "end_line");
        if (json_is_integer(sl))
            sqlite3_bind_int64(st, 5, json_integer_value(sl));
        if (json_is_integer(el))
            sqlite3_bind_int64(st, 6, json_integer_value(el));
        mn_sqlite__bind_text(st, 7, json_string_value(json_object_get(c, "hash")));
        mn_sqlite__bind_text(st, 8, json_string_value(json_object_get(c, "text")));
        const char *stale = json_string_value(json_object_get(c, "stale"));
        sqlite3_bind_int(st, 9, !stale ? 0 : !strcmp(stale, "gone") ? 2 : 1);
        int64_t checked = 0;
        const char *ct = json_string_value(json_object_get(c, "checked_at"));
        if (ct && mn_time_parse(&checked, ct) == 0)
            sqlite3_bind_int64(st, 10, checked);
        else
            sqlite3_bind_null(st, 10);
        sqlite3_bind_int64(st, 11, s->project_id);
        if ((rc = mn_sqlite__step_done(s, st, "cannot store a citation")) != 0)
            return rc;
    }
    return 0;
}

static int bind_memory(mn_store *s, sqlite3_stmt *st, const json_t *mem)
{
    int idx = 1, rc;
    for (size_t i = 0; i < mn_memory_field_count; i++)
        if ((rc = bind_field(s, st, &idx, &mn_memory_fields[i],
                             mn_field_get(mem, &mn_memory_fields[i]))))
            return rc;
    char hash[17];
    mn_store_content_hash(hash, mem);
    sqlite3_bind_text(st, idx, json_string_value(json_object_get(mem, "id")), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, idx + 1, s->project_id);
    sqlite3_bind_text(st, idx + 2, hash, -1, SQLITE_TRANSIENT);
    if (sqlite3_bind_parameter_count(st) >= idx + 3) /* insert only: saved_at */
        sqlite3_bind_int64(st, idx + 3, mn_time_now_ms());
    return 0;
}

int mn_sqlite__memory_insert(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    build_sql(s);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->insert_sql);
    if (!st)
        return mn_error_last_code();
    int rc = bind_memory(s, st, mem);
    if (rc)
        return rc;
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return mn_error_set(MN_EEXISTS, "memory '%s' exists already", id);
    if (rc != SQLITE_DONE)
        return mn_sqlite__error(s, rc, "cannot store memory");
    return write_side_tables(s, sqlite3_last_insert_rowid(sq(s)->db), mem);
}

int mn_sqlite__memory_replace(mn_store *s, const json_t *mem)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    const char *id = json_string_value(json_object_get(mem, "id"));
    MN_ASSERT_OR(id != NULL, MN_EINTERNAL);
    int64_t rowid = memory_rowid(s, id);
    if (rowid <= 0)
        return mn_error_last_code();
    build_sql(s);
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->replace_sql);
    if (!st)
        return mn_error_last_code();
    int rc = bind_memory(s, st, mem);
    if (rc)
        return rc;
    if ((rc = mn_sqlite__step_done(s, st, "cannot update memory")) != 0)
        return rc;
    return write_side_tables(s, rowid, mem);
}

static json_t *column_json(mn_store *s, sqlite3_stmt *st, int *col, const mn_field *f)
{
    int i = (*col)++;
    int type = sqlite3_column_type(st, i);
    switch (f->type) {
    case MN_F_TEXT:
        if (type == SQLITE_NULL)
            return NULL;
        return json_stringn((const char *)sqlite3_column_text(st, i),
                            (size_t)sqlite3_column_bytes(st, i));
    case MN_F_STRV: {
        if (type == SQLITE_NULL)
            return NULL;
        json_t *a = json_loadb((const char *)sqlite3_column_text(st, i),
                               (size_t)sqlite3_column_bytes(st, i), 0, NULL);
        if (!json_is_array(a)) {
            json_decref(a);
            mn_error_set(MN_ECORRUPT, "database '%s': column %s is not a JSON array", s->path,
                         f->column);
            return NULL;
        }
        return a;
    }
    case MN_F_LEVEL: {
        char l[3] = {'L', (char)('0' + (sqlite3_column_int(st, i) & 3)), 0};
        return json_string(l);
    }
    case MN_F_REAL:
        return type == SQLITE_NULL ? NULL : json_real(sqlite3_column_double(st, i));
    case MN_F_COUNT:
        return json_integer(sqlite3_column_int64(st, i));
    case MN_F_TIME: {
        if (type == SQLITE_NULL)
            return NULL;
        char t[32];
        mn_time_format(t, sqlite3_column_int64(st, i));
        return json_string(t);
    }
    case MN_F_EXCERPT: {
        int j = (*col)++;
        if (type == SQLITE_NULL)
            return NULL;
        sqlite3_int64 len = sqlite3_column_int64(st, j);
        if (len <= 0 || len > (sqlite3_int64)MN_EXCERPT_MAX_STORED) {
            mn_error_set(MN_ECORRUPT, "database '%s': bad excerpt length", s->path);
            return NULL;
        }
        uLongf out_len = (uLongf)len;
        Bytef *raw = mn_malloc((size_t)len + 1);
        int zr = uncompress(raw, &out_len, sqlite3_column_blob(st, i),
                            (uLong)sqlite3_column_bytes(st, i));
        json_t *v = NULL;
        if (zr == Z_OK && out_len == (uLongf)len)
            v = json_stringn((const char *)raw, (size_t)len);
        else
            mn_error_set(MN_ECORRUPT, "database '%s': a conversation excerpt is damaged", s->path);
        free(raw);
        return v;
    }
    case MN_F_OBJECT: {
        if (type == SQLITE_NULL)
            return NULL;
        json_t *o = json_loadb((const char *)sqlite3_column_text(st, i),
                               (size_t)sqlite3_column_bytes(st, i), 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            mn_error_set(MN_ECORRUPT, "database '%s': column %s is not a JSON object", s->path,
                         f->column);
            return NULL;
        }
        return o;
    }
    }
    return NULL;
}

static int load_citations(mn_store *s, json_t *mem, int64_t rowid)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT path, symbol, start_line, end_line, content_hash, text, stale, "
                           "checked_at FROM citations WHERE memory_id = ?1 ORDER BY seq");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    json_t *arr = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *c = json_object();
        json_object_set_new(c, "path", json_string((const char *)sqlite3_column_text(st, 0)));
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            json_object_set_new(c, "symbol", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(c, "start_line", json_integer(sqlite3_column_int64(st, 2)));
        if (sqlite3_column_type(st, 3) != SQLITE_NULL)
            json_object_set_new(c, "end_line", json_integer(sqlite3_column_int64(st, 3)));
        if (sqlite3_column_type(st, 4) != SQLITE_NULL)
            json_object_set_new(c, "hash", json_string((const char *)sqlite3_column_text(st, 4)));
        if (sqlite3_column_type(st, 5) != SQLITE_NULL)
            json_object_set_new(c, "text", json_string((const char *)sqlite3_column_text(st, 5)));
        int stale = sqlite3_column_int(st, 6);
        if (stale)
            json_object_set_new(c, "stale", json_string(stale == 2 ? "gone" : "changed"));
        if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
            char t[32];
            mn_time_format(t, sqlite3_column_int64(st, 7));
            json_object_set_new(c, "checked_at", json_string(t));
        }
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, c);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return mn_sqlite__error(s, rc, "cannot read citations");
    }
    if (arr)
        json_object_set_new(mem, "citations", arr);
    return 0;
}

static int load_links(mn_store *s, json_t *mem, int64_t rowid)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT l.kind, coalesce(m.uid, l.dst_ref), l.note, l.created_at FROM links l "
           "LEFT JOIN memories m ON m.id = l.dst_memory_id WHERE l.src_id = ?1 ORDER BY l.id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    json_t *arr = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *l = json_object();
        char t[32];
        json_object_set_new(l, "kind", json_string((const char *)sqlite3_column_text(st, 0)));
        json_object_set_new(l, "to", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(l, "note", json_string((const char *)sqlite3_column_text(st, 2)));
        mn_time_format(t, sqlite3_column_int64(st, 3));
        json_object_set_new(l, "created_at", json_string(t));
        if (!arr)
            arr = json_array();
        json_array_append_new(arr, l);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return mn_sqlite__error(s, rc, "cannot read links");
    }
    if (arr)
        json_object_set_new(mem, "links", arr);
    return 0;
}

/* One row of select_sql to canonical JSON; the statement is positioned on a row. */
static int row_to_json(mn_store *s, sqlite3_stmt *st, json_t **out)
{
    json_t *mem = json_object();
    int col = 0, rc = 0;
    int64_t rowid;
    json_object_set_new(mem, "id", json_null()); /* keep "id" first */
    mn_error_clear();
    for (size_t i = 0; i < mn_memory_field_count; i++) {
        const mn_field *f = &mn_memory_fields[i];
        json_t *v = column_json(s, st, &col, f);
        if (!v) {
            if (mn_error_last_code() == MN_ECORRUPT) {
                rc = MN_ECORRUPT;
                goto out;
            }
            continue;
        }
        if (json_is_array(v) && json_array_size(v) == 0) {
            json_decref(v);
            continue;
        }
        mn_field_set(mem, f, v);
    }
    rowid = sqlite3_column_int64(st, col);
    json_object_set_new(mem, "id", json_string((const char *)sqlite3_column_text(st, col + 1)));
    *out = mem;
    (void)rowid;
    return 0;
out:
    json_decref(mem);
    return rc;
}

static int complete_memory(mn_store *s, json_t *mem, int64_t rowid)
{
    int rc = load_citations(s, mem, rowid);
    if (rc == 0)
        rc = load_links(s, mem, rowid);
    return rc;
}

int mn_sqlite__memory_get(mn_store *s, json_t **out, const char *id)
{
    mn_buf sql = MN_BUF_INIT;
    json_t *mem = NULL;
    int rc;
    *out = NULL;
    if (!sq(s)->get_sql) { /* built once: formatting it cost ~6% of a get */
        build_sql(s);
        mn_buf_printf(&sql, "%s WHERE uid = ?1 AND project_id = ?2", sq(s)->select_sql);
        sq(s)->get_sql = mn_buf_detach(&sql);
    }
    sqlite3_stmt *st = mn_sqlite__stmt(s, sq(s)->get_sql);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    }
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return mn_sqlite__error(s, rc, "cannot read memory");
    }
    int64_t rowid = sqlite3_column_int64(st, sq(s)->field_params);
    rc = row_to_json(s, st, &mem);
    sqlite3_reset(st);
    if (rc == 0)
        rc = complete_memory(s, mem, rowid);
    if (rc)
        json_decref(mem);
    else
        *out = mem;
    return rc;
}

int mn_sqlite__memory_resolve(mn_store *s, char out[MN_ID_LEN + 1], const char *prefix)
{
    size_t n = strlen(prefix);
    char upper[MN_ID_LEN + 1];
    if (!mn_id_is_prefix(prefix))
        return mn_error_set(MN_EINVAL, "'%.60s' is not a memory id", prefix);
    for (size_t i = 0; i <= n; i++) /* ids are stored upper-case; Crockford is case-blind */
        upper[i] = prefix[i] >= 'a' && prefix[i] <= 'z' ? (char)(prefix[i] - 'a' + 'A') : prefix[i];
    prefix = upper;
    /* INDEXED BY keeps the planner on the key (project_id, uid), a range
     * scan inside the project: without statistics it may take another index
     * that starts with project_id (memories_hash, memories_listing) and read
     * every memory of the project, O(n) per lookup instead of O(log n). */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT uid FROM memories INDEXED BY memories_uid WHERE project_id = ?1 AND uid >= ?2 "
           "AND uid < ?2 || '~' ORDER BY uid LIMIT 2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, prefix, (int)n, SQLITE_TRANSIENT);
    int found = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(st, 0);
        if (found == 0)
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
        if (strcmp(uid, prefix) == 0) { /* an exact id wins over longer ones */
            snprintf(out, MN_ID_LEN + 1, "%s", uid);
            found = 1;
            break;
        }
        found++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return mn_sqlite__error(s, rc, "cannot look up memory");
    if (found == 0)
        return mn_error_set(MN_ENOTFOUND, "memory '%s' not found", prefix);
    if (found > 1)
        return mn_error_set(MN_EAMBIGUOUS, "memory id '%s' is ambiguous: give more characters",
                            prefix);
    return 0;
}

int mn_sqlite__memory_find_hash(mn_store *s, char out[MN_ID_LEN + 1], const char *hash)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT uid FROM memories WHERE project_id = ?1 AND content_hash = ?2 "
                           "AND deleted_at IS NULL ORDER BY uid LIMIT 1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        snprintf(out, MN_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        return MN_ENOTFOUND;
    return mn_sqlite__error(s, rc, "cannot look up memory");
}

/* WHERE clause and bindings for a filter; parameters are numbered from 1. */
static void filter_sql(mn_buf *sql, const mn_memory_filter *f)
{
    mn_buf_puts(sql, " WHERE project_id = ?1");
    if (f->only_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NOT NULL");
    else if (!f->include_deleted)
        mn_buf_puts(sql, " AND deleted_at IS NULL");
    if (f->kind)
        mn_buf_puts(sql, " AND kind = ?2");
    if (f->level >= 0)
        mn_buf_puts(sql, " AND level = ?3");
    if (f->status)
        mn_buf_puts(sql, " AND status = ?4");
    if (f->tag)
        mn_buf_puts(sql, " AND id IN (SELECT memory_id FROM memory_tags WHERE tag = ?5)");
    if (f->path)
        mn_buf_puts(sql, " AND id IN (SELECT memory_id FROM memory_paths WHERE path = ?6 OR "
                         "(path > ?6 || '/' AND path < ?6 || '0') OR "
                         "(?6 > path || '/' AND ?6 < path || '0'))");
    if (f->source)
        mn_buf_puts(sql, " AND source = ?7");
    if (f->since)
        mn_buf_puts(sql, " AND updated_at >= ?8");
    if (f->expiry.at) {
        int next = 9;
        mn_buf_puts(sql, f->expiry.only ? " AND " : " AND NOT ");
        mn_sqlite__expired_sql(sql, "", &f->expiry, &next);
    }
    /* named: numbered after the expiry's parameters, however many they are */
    if (f->after && !f->newest_first)
        mn_buf_puts(sql, " AND uid > :after");
}

static void filter_bind(mn_store *s, sqlite3_stmt *st, const mn_memory_filter *f)
{
    sqlite3_bind_int64(st, 1, s->project_id);
    mn_sqlite__bind_text(st, 2, f->kind);
    sqlite3_bind_int(st, 3, f->level);
    mn_sqlite__bind_text(st, 4, f->status);
    mn_sqlite__bind_text(st, 5, f->tag);
    mn_sqlite__bind_text(st, 6, f->path);
    mn_sqlite__bind_text(st, 7, f->source);
    sqlite3_bind_int64(st, 8, f->since);
    if (f->expiry.at) {
        int next = 9;
        mn_sqlite__expired_bind(st, &f->expiry, &next);
    }
    if (f->after && !f->newest_first)
        mn_sqlite__bind_text(st, sqlite3_bind_parameter_index(st, ":after"), f->after);
}

int mn_sqlite__memory_list(mn_store *s, const mn_memory_filter *f,
                           int (*cb)(void *payload, json_t *mem), void *payload)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st = NULL;
    int rc = 0, step;
    build_sql(s);
    mn_buf_puts(&sql, sq(s)->select_sql);
    filter_sql(&sql, f);
    /* memories_updated indexes updated_at; uid breaks ties so that pages never overlap */
    mn_buf_puts(&sql, f->newest_first ? " ORDER BY updated_at DESC, uid DESC" : " ORDER BY uid");
    if (f->limit > 0)
        mn_buf_printf(&sql, " LIMIT %lld", (long long)f->limit);
    else if (f->offset > 0)
        mn_buf_puts(&sql, " LIMIT -1");
    if (f->offset > 0)
        mn_buf_printf(&sql, " OFFSET %lld", (long long)f->offset);
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        rc = mn_sqlite__error(s, sqlite3_errcode(sq(s)->db), "cannot list memories");
        goto out;
    }
    filter_bind(s, st, f);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *mem;
        int64_t rowid = sqlite3_column_int64(st, sq(s)->field_params);
        if ((rc = row_to_json(s, st, &mem)) != 0)
            goto out;
        if ((rc = complete_memory(s, mem, rowid)) == 0)
            rc = cb(payload, mem);
        json_decref(mem);
        if (rc)
            goto out;
    }
    if (step != SQLITE_DONE)
        rc = mn_sqlite__error(s, step, "cannot list memories");
out:
    sqlite3_finalize(st);
    mn_buf_release(&sql);
    return rc;
}

int mn_sqlite__memory_count(mn_store *s, const mn_memory_filter *f, int64_t *out)
{
    mn_buf sql = MN_BUF_INIT;
    sqlite3_stmt *st = NULL;
    int rc = 0;
    mn_buf_puts(&sql, "SELECT count(*) FROM memories");
    filter_sql(&sql, f);
    if (sqlite3_prepare_v2(sq(s)->db, sql.ptr, -1, &st, NULL) != SQLITE_OK) {
        rc = mn_sqlite__error(s, sqlite3_errcode(sq(s)->db), "cannot count memories");
        goto out;
    }
    filter_bind(s, st, f);
    if (sqlite3_step(st) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        rc = mn_sqlite__error(s, sqlite3_errcode(sq(s)->db), "cannot count memories");
out:
    sqlite3_finalize(st);
    mn_buf_release(&sql);
    return rc;
}

int mn_sqlite__memory_set_deleted(mn_store *s, const char *id, int64_t ms)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "UPDATE memories SET deleted_at = CASE WHEN ?1 IS NULL THEN NULL "
                           "ELSE coalesce(deleted_at, ?1) END WHERE uid = ?2 AND project_id = ?3");
    if (!st)
        return mn_error_last_code();
    if (ms)
        sqlite3_bind_int64(st, 1, ms);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, s->project_id);
    int rc = mn_sqlite__step_done(s, st, "cannot forget memory");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rc;
}

int mn_sqlite__memory_purge(mn_store *s, const char *id)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "DELETE FROM memories WHERE uid = ?1 AND project_id = ?2");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    int rc = mn_sqlite__step_done(s, st, "cannot purge memory");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "memory '%s' not found", id);
    return rc;
}

int mn_sqlite__memory_backlinks(mn_store *s, json_t **out, const char *id)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT l.kind, src.uid, l.note, l.created_at FROM links l "
           "JOIN memories dst ON dst.id = l.dst_memory_id JOIN memories src ON src.id = l.src_id "
           "WHERE dst.uid = ?1 AND dst.project_id = ?2 ORDER BY l.id");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, s->project_id);
    json_t *arr = json_array();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char t[32];
        json_t *l = json_object();
        json_object_set_new(l, "kind", json_string((const char *)sqlite3_column_text(st, 0)));
        json_object_set_new(l, "from", json_string((const char *)sqlite3_column_text(st, 1)));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            json_object_set_new(l, "note", json_string((const char *)sqlite3_column_text(st, 2)));
        mn_time_format(t, sqlite3_column_int64(st, 3));
        json_object_set_new(l, "created_at", json_string(t));
        json_array_append_new(arr, l);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        json_decref(arr);
        return mn_sqlite__error(s, rc, "cannot read links");
    }
    *out = arr;
    return 0;
}

/* ---- links ---- */

int mn_sqlite__link_add(mn_store *s, const char *from, const char *kind, const char *to,
                        const char *note, int64_t created_at)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    int64_t dst = 0;
    if (!strchr(to, ':')) {
        dst = memory_rowid(s, to);
        if (dst <= 0)
            return mn_error_last_code();
    }
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO links(src_id, kind, dst_memory_id, dst_ref, note, created_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
    if (dst)
        sqlite3_bind_int64(st, 3, dst);
    else
        sqlite3_bind_text(st, 4, to, -1, SQLITE_TRANSIENT);
    mn_sqlite__bind_text(st, 5, note);
    sqlite3_bind_int64(st, 6, created_at);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE)
        return mn_error_set(MN_EEXISTS, "link %s -[%s]-> %s exists already", from, kind, to);
    if (rc != SQLITE_DONE)
        return mn_sqlite__error(s, rc, "cannot store link");
    return 0;
}

int mn_sqlite__link_remove(mn_store *s, const char *from, const char *kind, const char *to)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int64_t src = memory_rowid(s, from);
    if (src <= 0)
        return mn_error_last_code();
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "DELETE FROM links WHERE src_id = ?1 AND kind = ?2 AND "
           "(dst_ref = ?3 OR dst_memory_id = (SELECT id FROM memories WHERE uid = ?3 AND "
           "project_id = ?4))");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, to, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, s->project_id);
    int rc = mn_sqlite__step_done(s, st, "cannot remove link");
    if (rc == 0 && sqlite3_changes(sq(s)->db) == 0)
        rc = mn_error_set(MN_ENOTFOUND, "no link %s -[%s]-> %s", from, kind, to);
    return rc;
}
