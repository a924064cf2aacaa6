/*
 * memory_sizes.c - the memories' lengths in tokens, held by a process that
 * answers many questions, for mnemo_bm25 (fts_tokenizer.h:
 * mn_fts_doc_sizes).
 *
 * Ranking a memory reads its length from the full-text index's docsize
 * table: a B-tree seek per row ranked, a fifth of ranking the ~500 rows
 * of an AND of common words over 100k memories (1.99 -> 1.56 ms for one
 * bench question). The lengths of every memory are one scan of that table
 * (~20 ms at 100k), more than a single question saves, so only a
 * long-lived process reads them, between questions
 * (mn_store_memory_sizes_prepare, from mn_ctx_warm: after a server's first
 * request, and in mn_ctx_prepare after a write); a one-shot process never
 * has them and ranks as before.
 *
 * They hold while the full-text index is the one they were read from. The
 * key is an xxh3 of FTS5's structure record (memories_fts_data, id 10),
 * which every write to the index changes: a commit adds a segment, a merge
 * replaces some. A search compares it (one row read) inside its own read
 * transaction and ranks without the array when it is stale; the next
 * prepare reads it again. Scores are the same with or without it: the
 * numbers are the docsize table's, and a length over 65,535 tokens is left
 * 0 for mnemo_bm25 to read there.
 */
#include "common.h"
#include <xxhash.h>

#include "store/sqlite/fts_tokenizer.h"
#include "store/sqlite/memory_sizes.h"
#include "store/sqlite/sqlite_internal.h"

#define SIZES_MAX_SPAN (16u << 20) /* row ids the array may span: 32 MB */

struct mn_memory_sizes {
    uint64_t key;
    uint16_t *ntok;
    mn_fts_doc_sizes sizes;
};

static int failed(mn_store *s)
{
    return mn_error_set(MN_EIO, "cannot read the memories' lengths of '%s': %s", s->path,
                        sqlite3_errmsg(sq(s)->db));
}

/* The index's key (*found false: no structure record, an index never written). */
static int index_key(mn_store *s, uint64_t *key, bool *found)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT block FROM memories_fts_data WHERE id = 10");
    if (!st)
        return mn_error_last_code();
    int step = sqlite3_step(st);
    *found = step == SQLITE_ROW;
    if (*found) {
        const void *p = sqlite3_column_blob(st, 0);
        int len = sqlite3_column_bytes(st, 0);
        *key = XXH3_64bits_withSeed(p, (size_t)len, (uint64_t)len);
    }
    sqlite3_reset(st);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : failed(s);
}

int mn_sqlite__memory_sizes_prepare(mn_store *s)
{
    uint64_t key = 0;
    bool found = false;
    int rc = mn_store_begin_read(s); /* the key and the lengths of one state of the index */
    if (rc)
        return rc;
    if ((rc = index_key(s, &key, &found)) == 0 && found &&
        !(sq(s)->memory_sizes && sq(s)->memory_sizes->key == key)) {
        struct mn_memory_sizes *m = mn_calloc(1, sizeof(*m));
        m->key = key;
        if (mn_fts_read_doc_sizes(sq(s)->db, "memories_fts_docsize", SIZES_MAX_SPAN, &m->ntok,
                                  &m->sizes) != SQLITE_OK)
            rc = failed(s);
        if (rc == 0 && m->ntok) {
            mn_memory_sizes_free(s);
            sq(s)->memory_sizes = m;
        } else {
            free(m);
        }
    }
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    return rc;
}

const mn_fts_doc_sizes *mn_memory_sizes_current(mn_store *s)
{
    uint64_t key = 0;
    bool found = false;
    if (!sq(s)->memory_sizes) /* a one-shot process: nothing to check */
        return NULL;
    if (index_key(s, &key, &found) != 0) {
        mn_error_clear(); /* ranking reads the lengths itself */
        return NULL;
    }
    return found && key == sq(s)->memory_sizes->key ? &sq(s)->memory_sizes->sizes : NULL;
}

void mn_memory_sizes_free(mn_store *s)
{
    if (!sq(s)->memory_sizes)
        return;
    free(sq(s)->memory_sizes->ntok);
    free(sq(s)->memory_sizes);
    sq(s)->memory_sizes = NULL;
}
