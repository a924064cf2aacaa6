/*
 * pg_neardup.c - every memory's near-duplicate fingerprint and LSH keys in
 * the PostgreSQL back end, and the lookup of the memories sharing a key
 * with a new text (store.h: mn_store_memory_neighbours). The meaning is
 * sqlite/neardup_store.c's (its opening comment says why each bound):
 * the fingerprint is the mn_fingerprint struct byte for byte (bytea), a key
 * is written for at most KEY_POPULAR + 1 memories, a key more memories hold
 * is left out of a lookup, the memories sharing the most keys come first
 * (at most CANDIDATES_MAX), their fingerprints estimate the Jaccard
 * similarity, and the texts of the best `limit` are read.
 *
 * What differs: every key is written with its memory (SQLite defers the
 * newest memories' keys to save random page writes of its one file; here
 * a save is a few statements more in one round trip each, and no lookup
 * scans fingerprints), and a lookup is three statements whatever the number
 * of keys: the keys' holders through one LATERAL join (each key's first
 * KEY_POPULAR + 1), the candidates' fingerprints, the best texts.
 * Consolidation reads many memories' fingerprints at once
 * (mn_pg__fingerprints_each, store_review.h). Fingerprints of another
 * MN_FINGERPRINT_VERSION (meta
 * 'fingerprint_version') are recomputed when a writable store is opened,
 * under the migration lock.
 */
#include "common.h"

#include "store/postgres/pg_internal.h"
#include "store/store.h"
#include "store/store_review.h"
#include "util/vec.h"

#define CANDIDATES_MAX 64
#define KEY_POPULAR    64

static void fingerprint_of(mn_fingerprint *fp, const json_t *mem)
{
    mn_buf text = MN_BUF_INIT;
    mn_memory_fingerprint_text(&text, mem);
    mn_fingerprint_compute(fp, text.ptr, text.len);
    mn_buf_release(&text);
}

/* A fingerprint from bytea in text form; false when it is not one. */
static bool fp_of(mn_fingerprint *out, const char *hex)
{
    size_t n = 0;
    unsigned char *b = mn_pg__unhex(hex, &n);
    bool ok = b && n == sizeof(*out);
    if (ok)
        memcpy(out, b, sizeof(*out));
    free(b);
    return ok;
}

/* "{k1,k2,...}": a bigint[] parameter of the keys (uint64 stored as int64, as in SQLite). */
static char *key_array(const uint64_t *keys, size_t n)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(&b, "%s%lld", i ? "," : "", (long long)(int64_t)keys[i]);
    mn_buf_putc(&b, '}');
    return mn_buf_detach(&b);
}

static int put(mn_store *s, int64_t rowid, const mn_fingerprint *fp)
{
    mn_pg_params p = {0};
    int rc;
    mn_pg__int(&p, rowid);
    if ((rc = mn_pg__exec(s, "DELETE FROM memory_keys WHERE memory_id = $1", &p,
                          "cannot store a fingerprint")) != 0)
        return rc;
    mn_pg__int(&p, rowid);
    mn_pg__bytes(&p, fp, sizeof(*fp));
    if ((rc = mn_pg__exec(s,
                          "INSERT INTO memory_fingerprints(memory_id, fp) VALUES ($1, $2) ON "
                          "CONFLICT (memory_id) DO UPDATE SET fp = excluded.fp",
                          &p, "cannot store a fingerprint")) != 0)
        return rc;
    uint64_t keys[MN_LSH_KEYS];
    mn_fingerprint_bands(keys, fp);
    /* each key unless KEY_POPULAR + 1 memories hold it already (one statement for all) */
    mn_pg__take(&p, key_array(keys, MN_LSH_KEYS));
    mn_pg__int(&p, rowid);
    mn_pg__int(&p, KEY_POPULAR + 1);
    return mn_pg__exec(s,
                       "INSERT INTO memory_keys(key, memory_id) SELECT DISTINCT k, $2::bigint FROM "
                       "unnest($1::bigint[]) k WHERE (SELECT count(*) FROM (SELECT 1 FROM "
                       "memory_keys WHERE key = k LIMIT $3) h) < $3 ON CONFLICT DO NOTHING",
                       &p, "cannot store a fingerprint's keys");
}

int mn_pg__fingerprint_put(mn_store *s, int64_t rowid, const json_t *mem)
{
    mn_fingerprint fp, old;
    fingerprint_of(&fp, mem);
    mn_pg_params p = {0};
    mn_pg__int(&p, rowid);
    PGresult *r = mn_pg__run(s, "SELECT fp FROM memory_fingerprints WHERE memory_id = $1", &p,
                             "cannot read a fingerprint");
    if (!r)
        return mn_error_last_code();
    bool same = pg(s)->pq->ntuples(r) == 1 && fp_of(&old, mn_pg__col(s, r, 0, 0)) &&
                memcmp(&fp, &old, sizeof(fp)) == 0;
    pg(s)->pq->clear(r);
    return same ? 0 : put(s, rowid, &fp); /* the text did not change: nothing to write */
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

int mn_pg__memory_neighbours(mn_store *s, const mn_fingerprint *fp, size_t limit,
                             int (*cb)(void *payload, const mn_memory_neighbour *n), void *payload)
{
    uint64_t keys[MN_LSH_KEYS];
    MN_VEC(cand) cands = MN_VEC_INIT;
    MN_VEC(int64_t) ids = MN_VEC_INIT;
    mn_pg_params p = {0};
    PGresult *r = NULL;
    int rc = 0;
    if (!fp->n_terms || !limit)
        return 0;
    mn_fingerprint_bands(keys, fp);
    /* the holders of each key, the first KEY_POPULAR + 1; a key with more is left out */
    mn_pg__take(&p, key_array(keys, MN_LSH_KEYS));
    mn_pg__int(&p, KEY_POPULAR + 1);
    r = mn_pg__run(s,
                   "SELECT k.i, h.memory_id FROM unnest($1::bigint[]) WITH ORDINALITY k(key, i) "
                   "CROSS JOIN LATERAL (SELECT memory_id FROM memory_keys WHERE key = k.key "
                   "LIMIT $2) h ORDER BY k.i",
                   &p, "cannot look up near-duplicates");
    if (!r)
        return mn_error_last_code();
    int n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n;) {
        int end = row;
        while (end < n && strcmp(mn_pg__col(s, r, end, 0), mn_pg__col(s, r, row, 0)) == 0)
            end++;
        if (end - row <= KEY_POPULAR)
            for (int k = row; k < end; k++)
                mn_vec_push(&ids, mn_pg__col_int(s, r, k, 1));
        row = end;
    }
    pg(s)->pq->clear(r);
    r = NULL;
    /* each memory once, with the number of keys it shares */
    if (ids.len > 1)
        qsort(ids.items, ids.len, sizeof(int64_t), by_rowid);
    for (size_t i = 0; i < ids.len;) {
        size_t j = i;
        while (j < ids.len && ids.items[j] == ids.items[i])
            j++;
        cand c = {ids.items[i], 0, (int)(j - i)};
        mn_vec_push(&cands, c);
        i = j;
    }
    mn_vec_release(&ids);
    if (!cands.len)
        goto out;
    if (cands.len > CANDIDATES_MAX) {
        qsort(cands.items, cands.len, sizeof(cand), by_shared);
        cands.len = CANDIDATES_MAX;
    }
    /* their fingerprints, of this project's memories only */
    mn_buf arr = MN_BUF_INIT;
    mn_buf_putc(&arr, '{');
    for (size_t i = 0; i < cands.len; i++)
        mn_buf_printf(&arr, "%s%lld", i ? "," : "", (long long)cands.items[i].rowid);
    mn_buf_putc(&arr, '}');
    mn_pg__take(&p, mn_buf_detach(&arr));
    mn_pg__int(&p, s->project_id);
    r = mn_pg__run(s,
                   "SELECT f.memory_id, f.fp FROM memory_fingerprints f JOIN memories m ON m.id = "
                   "f.memory_id WHERE f.memory_id = ANY($1::bigint[]) AND m.project_id = $2",
                   &p, "cannot look up near-duplicates");
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    n = pg(s)->pq->ntuples(r);
    size_t kept = 0;
    for (size_t i = 0; i < cands.len; i++) {
        cands.items[i].jaccard = -1; /* another project's, or no fingerprint: dropped */
        for (int row = 0; row < n; row++) {
            mn_fingerprint other;
            if (mn_pg__col_int(s, r, row, 0) == cands.items[i].rowid &&
                fp_of(&other, mn_pg__col(s, r, row, 1))) {
                cands.items[i].jaccard = mn_fingerprint_jaccard(fp, &other);
                break;
            }
        }
        if (cands.items[i].jaccard >= 0)
            cands.items[kept++] = cands.items[i];
    }
    cands.len = kept;
    pg(s)->pq->clear(r);
    r = NULL;
    if (cands.len > 1)
        qsort(cands.items, cands.len, sizeof(cand), by_jaccard);
    for (size_t i = 0, given = 0; i < cands.len && given < limit && rc == 0; i++) {
        mn_pg__int(&p, cands.items[i].rowid);
        mn_pg__int(&p, s->project_id);
        r = mn_pg__run(s,
                       "SELECT uid, kind, status, deleted_at IS NOT NULL, title, body, situation, "
                       "solution, what_failed FROM memories WHERE id = $1 AND project_id = $2",
                       &p, "cannot read a near-duplicate");
        if (!r) {
            rc = mn_error_last_code();
            break;
        }
        if (pg(s)->pq->ntuples(r) == 1) {
            mn_memory_neighbour nb = {mn_pg__col(s, r, 0, 0),           mn_pg__col(s, r, 0, 1),
                                      mn_pg__col(s, r, 0, 2),           mn_pg__col(s, r, 0, 4),
                                      mn_pg__col(s, r, 0, 5),           mn_pg__col(s, r, 0, 6),
                                      mn_pg__col(s, r, 0, 7),           mn_pg__col(s, r, 0, 8),
                                      mn_pg__col(s, r, 0, 3)[0] == 't', cands.items[i].jaccard};
            rc = cb(payload, &nb);
            given++;
        }
        pg(s)->pq->clear(r);
        r = NULL;
    }
out:
    mn_vec_release(&cands);
    return rc;
}

int mn_pg__fingerprints_check(mn_store *s)
{
    char want[16];
    snprintf(want, sizeof(want), "%d", MN_FINGERPRINT_VERSION);
    mn_pg_params p = {0};
    int rc;
    const char *read = "SELECT value FROM meta WHERE key = 'fingerprint_version'";
    PGresult *r = mn_pg__run(s, read, NULL, "cannot read the fingerprint version");
    if (!r)
        return mn_error_last_code();
    bool current = pg(s)->pq->ntuples(r) == 1 && strcmp(mn_pg__col(s, r, 0, 0), want) == 0;
    pg(s)->pq->clear(r);
    if (current || s->read_only)
        return 0;
    /* every memory of every project, once, under the migration lock */
    if ((rc = mn_pg__exec(s, "BEGIN", NULL, "cannot recompute fingerprints")) != 0)
        return rc;
    pg(s)->in_tx = true;
    mn_pg__int(&p, MN_PG_LOCK_KEY);
    if ((rc = mn_pg__exec(s, "SELECT pg_advisory_xact_lock($1::int, 0)", &p,
                          "cannot recompute fingerprints")) != 0)
        goto out;
    r = mn_pg__run(s, read, NULL, "cannot read the fingerprint version");
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    current = pg(s)->pq->ntuples(r) == 1 && strcmp(mn_pg__col(s, r, 0, 0), want) == 0;
    pg(s)->pq->clear(r);
    if (current) /* another process did it while this one waited */
        goto out;
    r = mn_pg__run(s, "SELECT id, title, body, situation, solution, what_failed FROM memories",
                   NULL, "cannot recompute fingerprints");
    if (!r) {
        rc = mn_error_last_code();
        goto out;
    }
    int n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n && rc == 0; row++) {
        json_t *mem = json_pack("{s:s?,s:s?,s:{s:s?,s:s?,s:s?}}", "title", mn_pg__col(s, r, row, 1),
                                "body", mn_pg__col(s, r, row, 2), "context", "situation",
                                mn_pg__col(s, r, row, 3), "solution", mn_pg__col(s, r, row, 4),
                                "what_failed", mn_pg__col(s, r, row, 5));
        mn_fingerprint fp;
        fingerprint_of(&fp, mem);
        json_decref(mem);
        rc = put(s, mn_pg__col_int(s, r, row, 0), &fp);
    }
    pg(s)->pq->clear(r);
    if (rc == 0) {
        mn_pg__text(&p, want);
        rc = mn_pg__exec(s,
                         "INSERT INTO meta(key, value) VALUES ('fingerprint_version', $1) ON "
                         "CONFLICT (key) DO UPDATE SET value = excluded.value",
                         &p, "cannot recompute fingerprints");
    }
out:
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* A text[] literal of the strings ("{\"a\",\"b\"}", each quoted and escaped); NULL when n is 0. */
static char *text_array(const char *const *v, size_t n)
{
    if (!n)
        return NULL;
    mn_buf b = MN_BUF_INIT;
    mn_buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++) {
        mn_buf_puts(&b, i ? ",\"" : "\"");
        for (const char *c = v[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                mn_buf_putc(&b, '\\');
            mn_buf_putc(&b, *c);
        }
        mn_buf_putc(&b, '"');
    }
    mn_buf_putc(&b, '}');
    return mn_buf_detach(&b);
}

/* store_review.h: the fingerprints of many memories at once, newest first (consolidation). */
int mn_pg__fingerprints_each(mn_store *s, const mn_fingerprint_filter *f,
                             int (*cb)(void *payload, const char *uid, const mn_fingerprint *fp),
                             void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__take(&p, text_array(f->kinds, f->nkinds));
    mn_pg__take(&p, text_array(f->statuses, f->nstatuses));
    mn_pg__int(&p, f->since);
    if (f->limit > 0)
        mn_pg__int(&p, f->limit);
    else
        mn_pg__text(&p, NULL); /* LIMIT NULL: all */
    PGresult *r = mn_pg__run(s,
                             "SELECT m.uid, f.fp FROM memories m JOIN memory_fingerprints f ON "
                             "f.memory_id = m.id WHERE m.project_id = $1 AND m.deleted_at IS NULL "
                             "AND ($2::text[] IS NULL OR m.kind = ANY($2::text[])) AND ($3::text[] "
                             "IS NULL OR m.status = ANY($3::text[])) AND m.updated_at >= $4 ORDER "
                             "BY m.updated_at DESC, m.id DESC LIMIT $5::bigint",
                             &p, "cannot read the memories' fingerprints");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int row = 0; row < n && rc == 0; row++) {
        mn_fingerprint fp;
        if (!fp_of(&fp, mn_pg__col(s, r, row, 1)))
            continue; /* made by another build: recomputed when the store is next opened */
        rc = cb(payload, mn_pg__col(s, r, row, 0), &fp);
    }
    pg(s)->pq->clear(r);
    return rc;
}
