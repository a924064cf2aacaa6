/*
 * fts_tidy.c - rebuilding a full-text index into one b-tree once commits
 * have left it in many (mn_store_fts_tidy).
 *
 * Every commit that writes to an FTS5 index adds a b-tree ("segment");
 * FTS5 merges them when 16 pile up on a level (crisismerge), so a store
 * written a row per commit holds 1-20 of them, and one filled in bulk a
 * dozen large ones. A query seeks each segment for each word and merges
 * the postings they hold: 100,000 memories saved one by one left 13
 * segments (31, 8, 8 MB and smaller), and sympy's first index 12 in the
 * chunks' index. Rebuilt into one, the bench questions' memory stage ran
 * 10-17% faster (11% fewer instructions, callgrind) and their chunk stage
 * 8-20% (the same ranks: a rebuild changes how postings are laid out, not
 * what they say).
 *
 * A rebuild rewrites the whole index (0.6 s for 100,000 memories, 0.3 s
 * for sympy's chunks, in a write transaction other writers wait for), so
 * it runs where no one waits for an answer: between questions
 * (mn_ctx_prepare, a server after a write) and after an index run
 * (index.c). And only when it pays: more than MAX_SEGMENTS segments, and
 * those beside the largest holding at least 1/REST_SHARE of its leaves. A
 * dozen one-row segments beside a large one cost 7% more instructions
 * than one segment (a dozen large ones: 11%), and rebuilding for them
 * after every few saves would rewrite the whole index each time; with the
 * share, each rebuild follows at least 1/16 of the index written anew, so
 * the rewriting stays a bounded multiple of what was written. The index
 * run also rebuilds the code's indexes when replaced files have left many
 * delete markers, whatever the segments (mn_store_code_fts_optimize, at
 * the end of this file).
 */
#include "common.h"

#include "store/sqlite/sqlite_internal.h"
#include "store/store_index.h"
#include "store/store_search.h"

#define MAX_SEGMENTS 8
#define REST_SHARE   16

/*
 * FTS5 keeps a segment's leaves (pages of ~4 KB) in its %_data table under
 * the row ids (segid << 37) + page, height 0 (FTS5_SEGMENT_ROWID in
 * SQLite's fts5Int.h, part of its file format); a merge in progress has
 * dropped its first ones. So a segment's size in leaves is two seeks, its
 * last id less its first, where reading the blocks was 15 ms warm and 250
 * ms cold for 100,000 memories.
 */
#define SEGMENT_LEAVES(t)                                                                          \
    "SELECT (SELECT max(id) FROM " t "_data WHERE id >= segid << 37 AND id < (segid << 37) + "     \
    "(1 << 31)) - (SELECT min(id) FROM " t "_data WHERE id >= segid << 37 AND id < (segid << 37) " \
    "+ (1 << 31)) + 1 FROM (SELECT DISTINCT segid FROM " t "_idx)"

static const struct {
    const char *segments, *leaves, *rebuild;
} tables[] = {
    [MN_FTS_MEMORIES] = {"SELECT count(DISTINCT segid) FROM memories_fts_idx",
                         SEGMENT_LEAVES("memories_fts"),
                         "INSERT INTO memories_fts(memories_fts) VALUES('optimize')"},
    [MN_FTS_CHUNKS] = {"SELECT count(DISTINCT segid) FROM chunks_fts_idx",
                       SEGMENT_LEAVES("chunks_fts"),
                       "INSERT INTO chunks_fts(chunks_fts) VALUES('optimize')"},
    [MN_FTS_FILES] = {"SELECT count(DISTINCT segid) FROM files_fts_idx",
                      SEGMENT_LEAVES("files_fts"),
                      "INSERT INTO files_fts(files_fts) VALUES('optimize')"},
};

static int failed(mn_store *s, int step)
{
    return mn_error_set(step == SQLITE_BUSY ? MN_EBUSY : MN_EIO,
                        "cannot read a full-text index's segments in '%s': %s", s->path,
                        sqlite3_errmsg(sq(s)->db));
}

static int segments(mn_store *s, mn_fts_table table, int64_t *n)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, tables[table].segments);
    if (!st)
        return mn_error_last_code();
    int step = sqlite3_step(st);
    *n = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : failed(s, step);
}

/* Whether the segments beside the largest hold enough of the index to rebuild it for. */
static int worth_it(mn_store *s, mn_fts_table table, bool *yes)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, tables[table].leaves);
    if (!st)
        return mn_error_last_code();
    int64_t largest = 0, all = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t b = sqlite3_column_int64(st, 0);
        all += b;
        largest = b > largest ? b : largest;
    }
    sqlite3_reset(st);
    if (step != SQLITE_DONE)
        return failed(s, step);
    *yes = (all - largest) * REST_SHARE >= largest;
    return 0;
}

int mn_sqlite__fts_tidy(mn_store *s, mn_fts_table table, bool *rebuilt)
{
    int64_t n = 0;
    *rebuilt = false;
    MN_ASSERT_OR((size_t)table < MN_ARRAY_SIZE(tables), MN_EINTERNAL);
    if (s->read_only)
        return 0;
    bool yes = false;
    int rc = segments(s, table, &n);
    if (rc || n <= MAX_SEGMENTS || (rc = worth_it(s, table, &yes)) != 0 || !yes)
        return rc;
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    /* again under the write lock: another process (a server and `mnemo index`) may have
     * rebuilt it since the look above, which took no lock so that a tidy index costs none */
    if ((rc = segments(s, table, &n)) == 0 && n > MAX_SEGMENTS)
        rc = mn_sqlite__exec(s, tables[table].rebuild);
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    if ((rc = mn_store_commit(s)) == 0)
        *rebuilt = n > MAX_SEGMENTS;
    return rc;
}

int mn_sqlite__code_fts_optimize(mn_store *s)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    if ((rc = mn_sqlite__exec(s, tables[MN_FTS_CHUNKS].rebuild)) != 0 ||
        (rc = mn_sqlite__exec(s, tables[MN_FTS_FILES].rebuild)) != 0) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}
