/*
 * chunk_files.c - which file a code chunk belongs to, held in memory as
 * runs of chunk ids, so that "which files are a word's chunks in" reads
 * the word's posting list and nothing else.
 *
 * Ownership (retrieve/lexical.c) asks it for up to 24 words a query, each
 * up to 5,000 chunks: joined to chunks and files in SQL that was two row
 * lookups a chunk, 10 ms of CPU of a `context` on sympy. An index run
 * writes a file's chunks together, so their ids are consecutive: the map
 * is a few runs per file (sympy: 45,000 chunks, ~2,300 runs), read once
 * from the chunks_file index (file_id, id: no chunk text is read) and
 * binary-searched after.
 *
 * One map per store file and project, shared by the connections and
 * threads of the process (the HTTP server's workers each have their own
 * connection), refcounted so that a replaced map stays valid for whoever
 * still holds it. It holds while the chunk index has the same highest row
 * id and number of rows, the key of the other caches of search_store.c: a
 * re-index gives new ids to a file's new chunks.
 */
#include "common.h"
#include <pthread.h>
#include <stdlib.h>

#include "store/sqlite/chunk_files.h"
#include "util/vec.h"

struct mn_chunk_files {
    int refs;
    uint64_t path_hash;
    int64_t project, top, ndocs;
    size_t n;
    struct run {
        int64_t lo, hi, file;
    } * runs; /* by lo, not overlapping */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mn_chunk_files *current; /* the last map built: one store per process is the rule */

static void unref(mn_chunk_files *m)
{
    if (m && --m->refs == 0) {
        free(m->runs);
        free(m);
    }
}

void mn_chunk_files_release(mn_chunk_files *m)
{
    pthread_mutex_lock(&lock);
    unref(m);
    pthread_mutex_unlock(&lock);
}

static int cmp_run(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Rows come file by file, ids ascending within a file (the order of the index: no sort). */
static int build(mn_store *s, mn_chunk_files *m)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT c.file_id, c.id FROM files f JOIN chunks c INDEXED BY chunks_file ON "
           "c.file_id = f.id WHERE f.project_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, m->project);
    MN_VEC(struct run) runs = MN_VEC_INIT;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t file = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
        struct run *last = runs.len ? &runs.items[runs.len - 1] : NULL;
        if (last && last->file == file && last->hi + 1 == id) {
            last->hi = id;
        } else {
            struct run r = {id, id, file};
            mn_vec_push(&runs, r);
        }
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        mn_vec_release(&runs);
        return mn_error_set(MN_EIO, "cannot read the chunks of '%s': %s", s->path,
                            sqlite3_errmsg(s->db));
    }
    if (runs.len > 1)
        qsort(runs.items, runs.len, sizeof(*runs.items), cmp_run);
    m->runs = runs.items;
    m->n = runs.len;
    return 0;
}

int mn_chunk_files_get(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs,
                       mn_chunk_files **out)
{
    *out = NULL;
    pthread_mutex_lock(&lock);
    mn_chunk_files *m = current;
    if (m && m->path_hash == path_hash && m->project == s->project_id && m->top == top &&
        m->ndocs == ndocs) {
        m->refs++;
        *out = m;
    }
    pthread_mutex_unlock(&lock);
    if (*out)
        return 0;
    /* built outside the lock: two threads may both build, the last one stays */
    m = mn_calloc(1, sizeof(*m));
    m->refs = 1;
    m->path_hash = path_hash;
    m->project = s->project_id;
    m->top = top;
    m->ndocs = ndocs;
    int rc = build(s, m);
    if (rc) {
        free(m);
        return rc;
    }
    pthread_mutex_lock(&lock);
    unref(current);
    current = m;
    m->refs++; /* the cache's reference and the caller's */
    pthread_mutex_unlock(&lock);
    *out = m;
    return 0;
}

int64_t mn_chunk_files_file(const mn_chunk_files *m, int64_t chunk)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->runs[mid].hi < chunk)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->runs[lo].lo <= chunk ? m->runs[lo].file : 0;
}
