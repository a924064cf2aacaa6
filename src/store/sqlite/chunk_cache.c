/*
 * chunk_cache.c - what searches need to know of every code chunk, held in
 * memory: which file it is in, and its length in tokens.
 *
 * Files. Ownership (retrieve/lexical.c) asks which files a word's chunks
 * are in, for up to 24 words a query, up to 5,000 chunks each: joined to
 * chunks and files in SQL that was two row lookups per chunk, 10 ms of CPU
 * of a `context` on sympy. An index run writes a file's chunks together,
 * so their ids are consecutive: the map is a few runs of ids per file
 * (sympy: 45,531 chunks, ~2,300 runs), read from the chunks_file index
 * (file_id, id: no chunk text is read) and binary-searched after.
 *
 * Lengths. Ranking reads each matching row's length from the full-text
 * index's docsize table: a B-tree seek per row, a quarter of ranking the
 * 12,000 chunks a file search may rank. The lengths of all chunks are one
 * scan of that table (~2.5 ms for sympy, mn_fts_read_doc_sizes), an array
 * of 16-bit counts by id (a chunk is a bounded window; a longer one is
 * left 0, and ranking reads its length from the table).
 *
 * The map is built by the first ownership lookup of a process (get), and
 * the lengths by the first chunk ranking that finds the map there (peek).
 * Then both are shared by every search of the process.
 *
 * Between processes, both are kept in "<store>-chunks-<project>" (written
 * by the process that built them, with the same key and an xxh3 of the
 * payload; the vectors file's scheme, vector_file.c): `mnemo hook` without
 * a server, one question per process, read them in 0.2 ms instead of
 * building them (6-9 ms of its ~40). One cache per
 * store file and project, shared by the connections and threads of the
 * process (the HTTP server's workers each have their own connection),
 * refcounted so that a replaced cache stays valid for whoever holds it. It
 * holds while the chunk index has the same highest row id and number of
 * rows, the key of the other caches of search_store.c: a re-index gives
 * new ids to a file's new chunks.
 */
#include "common.h"
#include <pthread.h>
#include <stdlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/sqlite/chunk_cache.h"
#include "store/sqlite/vector_file.h"
#include "util/buf.h"
#include "util/vec.h"

#define SIZES_MAX_SPAN (16u << 20) /* ids a length array may span: 32 MB */

struct mn_chunk_cache {
    int refs;
    uint64_t path_hash;
    int64_t project, top, ndocs;
    size_t n;
    struct run {
        int64_t lo, hi, file;
    } * runs; /* by lo, not overlapping */
    mn_fts_doc_sizes sizes;
    uint16_t *ntok;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mn_chunk_cache *current; /* the last one built: one store per process is the rule */

static void unref(mn_chunk_cache *c)
{
    if (c && --c->refs == 0) {
        free(c->runs);
        free(c->ntok);
        free(c);
    }
}

void mn_chunk_cache_release(mn_chunk_cache *c)
{
    pthread_mutex_lock(&lock);
    unref(c);
    pthread_mutex_unlock(&lock);
}

static int cmp_run(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int failed(mn_store *s, const char *what)
{
    return mn_error_set(MN_EIO, "cannot read the %s of '%s': %s", what, s->path,
                        sqlite3_errmsg(sq(s)->db));
}

/* Rows come file by file, ids ascending within a file (the order of the index: no sort). */
static int build_runs(mn_store *s, mn_chunk_cache *c)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT c.file_id, c.id FROM files f JOIN chunks c INDEXED BY chunks_file ON "
           "c.file_id = f.id WHERE f.project_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, c->project);
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
        return failed(s, "chunks");
    }
    if (runs.len > 1)
        qsort(runs.items, runs.len, sizeof(*runs.items), cmp_run);
    c->runs = runs.items;
    c->n = runs.len;
    return 0;
}

/* Every chunk's length, all projects' (the full-text index is shared); none when too sparse. */
static int build_sizes(mn_store *s, mn_chunk_cache *c)
{
    if (mn_fts_read_doc_sizes(sq(s)->db, "chunks_fts_docsize", SIZES_MAX_SPAN, &c->ntok,
                              &c->sizes) != SQLITE_OK)
        return failed(s, "chunk lengths");
    return 0;
}

/* An empty cache for this state of the index, with one reference (the caller's). */
static mn_chunk_cache *cache_new(const mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs)
{
    mn_chunk_cache *c = mn_calloc(1, sizeof(*c));
    c->refs = 1;
    c->path_hash = path_hash;
    c->project = s->project_id;
    c->top = top;
    c->ndocs = ndocs;
    return c;
}

/* ---- the file beside the store ---- */

#define CHUNK_FILE_MAGIC "MNCHNK01"

typedef struct {
    char magic[8];
    int64_t project, top, ndocs, first;
    uint64_t nruns, nsizes, payload_hash;
} file_header;

static void file_path(mn_buf *b, const mn_store *s, int64_t project)
{
    mn_buf_printf(b, "%s-chunks-%lld", s->path, (long long)project);
}

static void file_write(const mn_store *s, const mn_chunk_cache *c)
{
    size_t runs = c->n * sizeof(struct run), sizes = c->ntok ? c->sizes.n * sizeof(uint16_t) : 0;
    size_t len = sizeof(file_header) + runs + sizes;
    char *buf = mn_malloc(len);
    file_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, CHUNK_FILE_MAGIC, sizeof(h.magic));
    h.project = c->project;
    h.top = c->top;
    h.ndocs = c->ndocs;
    h.first = c->ntok ? c->sizes.first : 0;
    h.nruns = c->n;
    h.nsizes = c->ntok ? c->sizes.n : 0;
    if (runs)
        memcpy(buf + sizeof(h), c->runs, runs);
    if (sizes)
        memcpy(buf + sizeof(h) + runs, c->ntok, sizes);
    h.payload_hash = XXH3_64bits(buf + sizeof(h), runs + sizes);
    memcpy(buf, &h, sizeof(h));
    mn_buf path = MN_BUF_INIT;
    file_path(&path, s, c->project);
    if (!mn_sidecar_write(path.ptr, buf, len))
        mn_log(MN_LOG_DEBUG, "cannot keep the chunk map in '%s': %s", path.ptr, strerror(errno));
    mn_buf_release(&path);
    free(buf);
}

/* The cache from the file when its header names this state of the index; NULL otherwise. */
static mn_chunk_cache *file_read(const mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs)
{
    mn_buf path = MN_BUF_INIT;
    file_path(&path, s, s->project_id);
    int fd = open(path.ptr, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    mn_buf_release(&path);
    struct stat st;
    if (fd < 0)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size >= sizeof(file_header) &&
        st.st_size < (1 << 30)) {
        mn_sidecar_make_private(fd, &st);
        len = (size_t)st.st_size;
        buf = mn_malloc(len);
        if (read(fd, buf, len) != (ssize_t)len) {
            free(buf);
            buf = NULL;
        }
    }
    close(fd);
    if (!buf)
        return NULL;
    file_header h;
    memcpy(&h, buf, sizeof(h));
    size_t payload = len - sizeof(h);
    if (memcmp(h.magic, CHUNK_FILE_MAGIC, sizeof(h.magic)) != 0 || h.project != s->project_id ||
        h.top != top || h.ndocs != ndocs || h.nruns > payload / sizeof(struct run) ||
        h.nsizes > payload ||
        h.nruns * sizeof(struct run) + h.nsizes * sizeof(uint16_t) != payload ||
        XXH3_64bits(buf + sizeof(h), payload) != h.payload_hash) {
        free(buf);
        return NULL;
    }
    mn_chunk_cache *c = cache_new(s, path_hash, top, ndocs);
    c->n = (size_t)h.nruns;
    c->runs = mn_malloc((c->n ? c->n : 1) * sizeof(struct run));
    memcpy(c->runs, buf + sizeof(h), c->n * sizeof(struct run));
    if (h.nsizes) {
        c->ntok = mn_malloc((size_t)h.nsizes * sizeof(uint16_t));
        memcpy(c->ntok, buf + sizeof(h) + c->n * sizeof(struct run),
               (size_t)h.nsizes * sizeof(uint16_t));
        c->sizes.first = h.first;
        c->sizes.n = (size_t)h.nsizes;
        c->sizes.ntok = c->ntok;
    }
    free(buf);
    return c;
}

/* Make c the process's cache; the caller keeps its reference. */
static void install(mn_chunk_cache *c)
{
    pthread_mutex_lock(&lock);
    unref(current);
    current = c;
    c->refs++;
    pthread_mutex_unlock(&lock);
}

/* The current cache when it matches, with a reference for the caller. */
static mn_chunk_cache *shared(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs)
{
    pthread_mutex_lock(&lock);
    mn_chunk_cache *c = current;
    if (c && c->path_hash == path_hash && c->project == s->project_id && c->top == top &&
        c->ndocs == ndocs)
        c->refs++;
    else
        c = NULL;
    pthread_mutex_unlock(&lock);
    return c;
}

mn_chunk_cache *mn_chunk_cache_peek(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs)
{
    mn_chunk_cache *c = shared(s, path_hash, top, ndocs);
    if (!c && (c = file_read(s, path_hash, top, ndocs)) != NULL)
        install(c);
    if (c && !__atomic_load_n(&c->ntok, __ATOMIC_ACQUIRE)) {
        /* a later search of a process that built the map: now the lengths, once */
        mn_chunk_cache tmp = {0};
        if (build_sizes(s, &tmp) != 0) {
            mn_error_clear(); /* ranking reads the docsize table, as without them */
            return c;
        }
        pthread_mutex_lock(&lock);
        if (!c->ntok) {
            c->sizes = tmp.sizes;
            __atomic_store_n(&c->ntok, tmp.ntok, __ATOMIC_RELEASE);
            tmp.ntok = NULL;
        }
        pthread_mutex_unlock(&lock);
        free(tmp.ntok);
    }
    return c;
}

int mn_chunk_cache_get(mn_store *s, uint64_t path_hash, int64_t top, int64_t ndocs,
                       mn_chunk_cache **out)
{
    if ((*out = shared(s, path_hash, top, ndocs)) != NULL)
        return 0;
    if ((*out = file_read(s, path_hash, top, ndocs)) != NULL) {
        install(*out);
        return 0;
    }
    /* built outside the lock: two threads may both build, the last one stays */
    mn_chunk_cache *c = cache_new(s, path_hash, top, ndocs);
    int rc = build_runs(s, c);
    if (rc) {
        unref(c);
        return rc;
    }
    /* for the next processes, the lengths too (a file, when the store may be written) */
    if (!s->read_only) {
        if (build_sizes(s, c) != 0)
            mn_error_clear();
        file_write(s, c);
    }
    install(c);
    *out = c;
    return 0;
}

int64_t mn_chunk_cache_file(const mn_chunk_cache *c, int64_t chunk)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->runs[mid].hi < chunk)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->runs[lo].lo <= chunk ? c->runs[lo].file : 0;
}

const mn_fts_doc_sizes *mn_chunk_cache_sizes(const mn_chunk_cache *c)
{
    /* published once, after c->sizes, by mn_chunk_cache_get */
    return __atomic_load_n(&c->ntok, __ATOMIC_ACQUIRE) ? &c->sizes : NULL;
}
