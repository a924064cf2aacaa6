/*
 * neardup_store.c - every memory's near-duplicate fingerprint and LSH keys
 * (schema v9), kept with the memory, and the lookup of the memories that
 * share a key with a new text (store.h: mn_store_memory_neighbours).
 *
 * Writes: mn_sqlite__fingerprint_put runs wherever a memory's row is written
 * (insert and replace, sqlite_store.c: write_side_tables), so every writer -
 * the save pipeline, import, discovery, an update - leaves keys that match
 * the memory's text; ON DELETE CASCADE removes them with it. A replace whose
 * text did not change (a status, a counter, tags) finds the same fingerprint
 * stored and writes nothing.
 *
 * The newest memories' keys wait in their fingerprints. A key row goes to a
 * random page of the key index, and a memory has 33: written at each save,
 * they were 33 pages of the WAL per save, half of its time at 100k
 * memories, and the checkpoints that follow. So the memories above meta
 * 'fingerprint_keys_through' (at most RECENT_MAX of them) have their
 * fingerprint row only, appended in id order; the lookup reads those rows
 * (a range of the rowid, a few pages) and computes their keys. When more
 * than RECENT_MAX wait, the save that finds them writes their keys in one
 * go and moves the mark: the same rows written, in one transaction in
 * RECENT_MAX, whose pages are written once. A memory at or below the mark
 * (an update, an id reused after the last one was removed) gets its keys
 * at once. A store without the meta row (written before) has every key
 * written: the mark is the highest memory id that has keys.
 *
 * Lookup: the memories holding each of the text's MN_LSH_KEYS keys, a key
 * at a time; a key that more than KEY_POPULAR memories hold is left out
 * (a band every memory of a template shares, a common opening: like a stop
 * word, it says little, and a near-duplicate shares many other keys). So a
 * key is written for at most KEY_POPULAR + 1 memories: past that, a row
 * would never be read, and each is a random page of the index written (a
 * save's keys were half its time when every one was written). A key held
 * by KEY_POPULAR + 1 stays popular until a holder is forgotten; it then
 * serves the KEY_POPULAR left, not the later ones it did not keep. The
 * memories sharing the most keys come first (at most CANDIDATES_MAX), then
 * each one's fingerprint estimates its Jaccard similarity, then the text of
 * the best `limit` only. On real commit messages a text has ~8 candidates
 * (p95 ~40, docs/internals/neardup.md). Without the popular keys left out,
 * bench_store's generated memories (one vocabulary) drew 256 candidates a
 * save at 100k memories, most through a key 1,000-7,000 memories hold.
 *
 * Fingerprints made by another MN_FINGERPRINT_VERSION (meta
 * 'fingerprint_version'; none before v9) are all recomputed when a writable
 * store is opened (mn_sqlite__fingerprints_check): ~20 us a memory.
 */
#include "common.h"
#include <sqlite3.h>

#include "store/sqlite/sqlite_internal.h"
#include "store/store.h"
#include "util/vec.h"

#define CANDIDATES_MAX 64
#define KEY_POPULAR    64
#define RECENT_MAX     256 /* memories whose keys wait in their fingerprint rows */

static void fingerprint_of(mn_fingerprint *fp, const json_t *mem)
{
    mn_buf text = MN_BUF_INIT;
    mn_memory_fingerprint_text(&text, mem);
    mn_fingerprint_compute(fp, text.ptr, text.len);
    mn_buf_release(&text);
}

/* The fingerprint stored for a memory: 1 found (in *out), 0 none, < 0 error. */
static int stored_fp(mn_store *s, int64_t rowid, mn_fingerprint *out)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT fp FROM memory_fingerprints WHERE memory_id = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, rowid);
    int step = sqlite3_step(st), found = 0;
    if (step == SQLITE_ROW && sqlite3_column_bytes(st, 0) == (int)sizeof(*out)) {
        memcpy(out, sqlite3_column_blob(st, 0), sizeof(*out));
        found = 1;
    }
    sqlite3_reset(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot read a fingerprint");
    return found;
}

/* The mark: memories above it have no key rows yet (see the opening comment). */
static int keys_through(mn_store *s, int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = "
           "'fingerprint_keys_through'), (SELECT max(memory_id) FROM memory_keys), 0)");
    if (!st)
        return mn_error_last_code();
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot read the fingerprint keys' mark");
}

static int set_keys_through(mn_store *s, int64_t through)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT OR REPLACE INTO meta(key, value) VALUES ('fingerprint_keys_through', ?1)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, through);
    int step = sqlite3_step(st);
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot write the fingerprint keys' mark");
}

/* The key rows of one memory; a key already held by more than KEY_POPULAR is not written. */
static int write_keys(mn_store *s, int64_t rowid, const mn_fingerprint *fp)
{
    uint64_t keys[MN_LSH_KEYS];
    mn_fingerprint_bands(keys, fp);
    sqlite3_stmt *key =
        mn_sqlite__stmt(s, "INSERT OR IGNORE INTO memory_keys(key, memory_id) SELECT ?1, ?2 "
                           "WHERE (SELECT count(*) FROM (SELECT 1 FROM memory_keys WHERE key = ?1 "
                           "LIMIT ?3)) < ?3");
    if (!key)
        return mn_error_last_code();
    for (size_t i = 0; i < MN_LSH_KEYS; i++) {
        sqlite3_bind_int64(key, 1, (sqlite3_int64)keys[i]);
        sqlite3_bind_int64(key, 2, rowid);
        sqlite3_bind_int(key, 3, KEY_POPULAR + 1);
        int step = sqlite3_step(key);
        sqlite3_reset(key);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot store a fingerprint's keys");
    }
    return 0;
}

/* The keys of the memories above the mark, once more than RECENT_MAX wait; the mark moves. */
static int flush_recent(mn_store *s, int64_t through)
{
    sqlite3_stmt *count = mn_sqlite__stmt(
        s,
        "SELECT count(*) FROM (SELECT 1 FROM memory_fingerprints WHERE memory_id > ?1 LIMIT ?2)");
    if (!count)
        return mn_error_last_code();
    sqlite3_bind_int64(count, 1, through);
    sqlite3_bind_int(count, 2, RECENT_MAX + 1);
    int step = sqlite3_step(count);
    int64_t waiting = step == SQLITE_ROW ? sqlite3_column_int64(count, 0) : 0;
    sqlite3_reset(count);
    if (step != SQLITE_ROW)
        return mn_sqlite__fail(s, "cannot count the fingerprints waiting for keys");
    if (waiting <= RECENT_MAX)
        return 0;
    sqlite3_stmt *st = NULL;
    /* prepared apart: write_keys steps its own statements meanwhile */
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT memory_id, fp FROM memory_fingerprints WHERE memory_id > ?1 "
                           "ORDER BY memory_id",
                           -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot read the fingerprints waiting for keys");
    sqlite3_bind_int64(st, 1, through);
    int rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_fingerprint fp;
        through = sqlite3_column_int64(st, 0);
        if (sqlite3_column_bytes(st, 1) != (int)sizeof(fp))
            continue; /* not a fingerprint of this version: recomputed at the next open */
        memcpy(&fp, sqlite3_column_blob(st, 1), sizeof(fp));
        rc = write_keys(s, through, &fp);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read the fingerprints waiting for keys");
    sqlite3_finalize(st);
    return rc ? rc : set_keys_through(s, through);
}

/* Store rowid's fingerprint; its key rows now when keys_now, else they wait (flush_recent). */
static int put(mn_store *s, int64_t rowid, const mn_fingerprint *fp, bool keys_now)
{
    sqlite3_stmt *del = mn_sqlite__stmt(s, "DELETE FROM memory_keys WHERE memory_id = ?1");
    sqlite3_stmt *ins = mn_sqlite__stmt(
        s, "INSERT OR REPLACE INTO memory_fingerprints(memory_id, fp) VALUES (?1, ?2)");
    if (!del || !ins)
        return mn_error_last_code();
    sqlite3_bind_int64(del, 1, rowid);
    int step = sqlite3_step(del);
    sqlite3_reset(del);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot store a fingerprint");
    sqlite3_bind_int64(ins, 1, rowid);
    sqlite3_bind_blob(ins, 2, fp, (int)sizeof(*fp), SQLITE_STATIC);
    step = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot store a fingerprint");
    return keys_now ? write_keys(s, rowid, fp) : 0;
}

int mn_sqlite__fingerprint_put(mn_store *s, int64_t rowid, const json_t *mem)
{
    mn_fingerprint fp, old;
    fingerprint_of(&fp, mem);
    int found = stored_fp(s, rowid, &old);
    if (found < 0)
        return found;
    if (found && memcmp(&fp, &old, sizeof(fp)) == 0)
        return 0; /* the text did not change */
    int64_t through = 0;
    int rc = keys_through(s, &through);
    if (rc == 0)
        rc = put(s, rowid, &fp, rowid <= through);
    if (rc == 0 && rowid > through)
        rc = flush_recent(s, through);
    return rc;
}

typedef struct {
    int64_t rowid;
    double jaccard;
    int shared; /* keys shared with the text */
} cand;

static int by_rowid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_shared(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->shared != y->shared)
        return x->shared > y->shared ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static int by_jaccard(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->jaccard != y->jaccard)
        return x->jaccard > y->jaccard ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

typedef MN_VEC(int64_t) id_vec;

/* The memories above the mark sharing keys with the text: each one once per key shared. */
static int recent_matches(mn_store *s, const mn_fingerprint *fp, const bool popular[MN_LSH_KEYS],
                          void *out)
{
    id_vec *ids = out;
    int64_t through = 0;
    int rc = keys_through(s, &through);
    sqlite3_stmt *st = rc == 0 ? mn_sqlite__stmt(s, "SELECT memory_id, fp FROM memory_fingerprints "
                                                    "WHERE memory_id > ?1")
                               : NULL;
    if (!st)
        return rc ? rc : mn_error_last_code();
    sqlite3_bind_int64(st, 1, through);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_fingerprint other;
        bool shared[MN_LSH_KEYS];
        if (sqlite3_column_bytes(st, 1) != (int)sizeof(other))
            continue;
        memcpy(&other, sqlite3_column_blob(st, 1), sizeof(other));
        if (!mn_fingerprint_shared_keys(shared, fp, &other))
            continue;
        for (size_t i = 0; i < MN_LSH_KEYS; i++)
            if (shared[i] && !popular[i])
                mn_vec_push(ids, sqlite3_column_int64(st, 0));
    }
    sqlite3_reset(st);
    return step == SQLITE_DONE ? 0 : mn_sqlite__fail(s, "cannot look up near-duplicates");
}

int mn_sqlite__memory_neighbours(mn_store *s, const mn_fingerprint *fp, size_t limit,
                                 int (*cb)(void *payload, const mn_memory_neighbour *n),
                                 void *payload)
{
    uint64_t keys[MN_LSH_KEYS];
    MN_VEC(cand) cands = MN_VEC_INIT;
    int rc = 0;
    if (!fp->n_terms || !limit)
        return 0;
    mn_fingerprint_bands(keys, fp);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT memory_id FROM memory_keys WHERE key = ?1 LIMIT ?2");
    if (!st)
        return mn_error_last_code();
    id_vec ids = MN_VEC_INIT;
    bool popular[MN_LSH_KEYS] = {false};
    int step;
    for (size_t i = 0; i < MN_LSH_KEYS && rc == 0; i++) {
        size_t before = ids.len;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)keys[i]);
        sqlite3_bind_int(st, 2, KEY_POPULAR + 1);
        while ((step = sqlite3_step(st)) == SQLITE_ROW)
            mn_vec_push(&ids, sqlite3_column_int64(st, 0));
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot look up near-duplicates");
        else if (ids.len - before > KEY_POPULAR)
            ids.len = before, popular[i] = true;
    }
    if (rc == 0)
        rc = recent_matches(s, fp, popular, &ids);
    /* each memory once, with the number of keys it shares */
    if (ids.len > 1)
        qsort(ids.items, ids.len, sizeof(int64_t), by_rowid);
    for (size_t i = 0; i < ids.len && rc == 0;) {
        size_t j = i;
        while (j < ids.len && ids.items[j] == ids.items[i])
            j++;
        cand c = {ids.items[i], 0, (int)(j - i)};
        mn_vec_push(&cands, c);
        i = j;
    }
    mn_vec_release(&ids);
    if (rc)
        goto out;
    if (cands.len > CANDIDATES_MAX) {
        qsort(cands.items, cands.len, sizeof(cand), by_shared);
        cands.len = CANDIDATES_MAX;
    }
    for (size_t i = 0; i < cands.len; i++) {
        mn_fingerprint other;
        int found = stored_fp(s, cands.items[i].rowid, &other);
        if (found < 0) {
            rc = found;
            goto out;
        }
        cands.items[i].jaccard = found ? mn_fingerprint_jaccard(fp, &other) : 0;
    }
    if (cands.len > 1)
        qsort(cands.items, cands.len, sizeof(cand), by_jaccard);
    sqlite3_stmt *get = mn_sqlite__stmt(
        s, "SELECT uid, kind, status, deleted_at IS NOT NULL, title, body, situation, solution, "
           "what_failed FROM memories WHERE id = ?1 AND project_id = ?2");
    if (!get) {
        rc = mn_error_last_code();
        goto out;
    }
    for (size_t i = 0, given = 0; i < cands.len && given < limit && rc == 0; i++) {
        sqlite3_bind_int64(get, 1, cands.items[i].rowid);
        sqlite3_bind_int64(get, 2, s->project_id);
        step = sqlite3_step(get);
        if (step == SQLITE_ROW) {
            mn_memory_neighbour n = {
                col_text(get, 0),      col_text(get, 1), col_text(get, 2),
                col_text(get, 4),      col_text(get, 5), col_text(get, 6),
                col_text(get, 7),      col_text(get, 8), sqlite3_column_int(get, 3) != 0,
                cands.items[i].jaccard};
            rc = cb(payload, &n);
            given++;
        } else if (step != SQLITE_DONE) {
            rc = mn_sqlite__fail(s, "cannot read a near-duplicate");
        }
        sqlite3_reset(get);
    }
out:
    mn_vec_release(&cands);
    return rc;
}

int mn_sqlite__fingerprints_check(mn_store *s)
{
    char want[16];
    snprintf(want, sizeof(want), "%d", MN_FINGERPRINT_VERSION);
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT value FROM meta WHERE key = 'fingerprint_version'");
    if (!st)
        return mn_error_last_code();
    int step = sqlite3_step(st);
    bool current = step == SQLITE_ROW && col_text(st, 0) && strcmp(col_text(st, 0), want) == 0;
    sqlite3_reset(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot read the fingerprint version");
    if (current || s->read_only)
        return 0;
    /* every memory of every project, once: a store made before v9, or by another version */
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    sqlite3_stmt *all = NULL;
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT id, title, body, situation, solution, what_failed FROM memories",
                           -1, &all, NULL) != SQLITE_OK) {
        rc = mn_sqlite__fail(s, "cannot recompute fingerprints");
        goto out;
    }
    while (rc == 0 && (step = sqlite3_step(all)) == SQLITE_ROW) {
        json_t *mem = json_pack("{s:s?,s:s?,s:{s:s?,s:s?,s:s?}}", "title", col_text(all, 1), "body",
                                col_text(all, 2), "context", "situation", col_text(all, 3),
                                "solution", col_text(all, 4), "what_failed", col_text(all, 5));
        mn_fingerprint fp;
        fingerprint_of(&fp, mem);
        json_decref(mem);
        rc = put(s, sqlite3_column_int64(all, 0), &fp, true);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot recompute fingerprints");
    sqlite3_finalize(all);
    if (rc == 0) /* every memory has its keys now */
        rc = mn_sqlite__exec(s, "INSERT OR REPLACE INTO meta(key, value) SELECT "
                                "'fingerprint_keys_through', coalesce(max(id), 0) FROM memories");
    if (rc == 0) {
        mn_buf sql = MN_BUF_INIT;
        mn_buf_printf(
            &sql, "INSERT OR REPLACE INTO meta(key, value) VALUES ('fingerprint_version', '%s')",
            want);
        rc = mn_sqlite__exec(s, sql.ptr);
        mn_buf_release(&sql);
    }
out:
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}
