/*
 * terms_store.c - the SQLite side of store_terms.h: reads of the FTS5
 * vocabulary of the code chunks.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/store_terms.h"
#include "store/sqlite/sqlite_internal.h"

int mn_sqlite__chunk_count(mn_store *s, int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT count(*) FROM chunks_fts_docsize");
    if (!st)
        return mn_error_last_code();
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count chunks");
}

int mn_sqlite__chunk_term_df(mn_store *s, const char *term, size_t len, int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT doc FROM chunks_vocab WHERE term = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, term, (int)len, SQLITE_STATIC);
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW || step == SQLITE_DONE
               ? 0
               : mn_sqlite__fail(s, "cannot read term frequencies");
}
