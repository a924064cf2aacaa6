/*
 * vector_store.c - the SQLite side of store_vector.h: embedding models,
 * vectors per memory and chunk, the built-in model's terms and corpus.
 *
 * Schema v5 (src/store/schema_v5.sql) keeps vectors in step with what they
 * embed by triggers, so nothing here has to: a row to embed is a row with
 * no vector for the model. The texts are assembled from schema v3's
 * full-text views (memories_fts_src, chunks_fts_src), the one definition of
 * a row's searchable text; see store_vector.h for the layout.
 *
 * The vector cache (store/vector_cache.c, shared with the PostgreSQL back
 * end). A top-k needs every vector of a model in one contiguous array. Reading 100,000 rows on each
 * search would dominate its cost, so the last MN_VSET_CACHE sets loaded stay in the process, shared
 * (reference counted, immutable) and keyed by database path, project,
 * model, owner kind and the model row's nonce (a model dropped and
 * trained again under the same name gets a new nonce). A set is served
 * again while its kind's epoch - moved by every transaction that writes
 * or removes one of the model's vectors of that kind, in any process
 * (epoch_move below for writes, schema v19's triggers for updates and
 * deletes) - is the one it was loaded at: a memory saved leaves the chunks'
 * set as it was. The
 * epoch is read before the rows, so a set is never older than its epoch:
 * a write racing the load only makes the next load read again. Between
 * processes, a set loaded from the rows is also written to a file beside
 * the store, which the next process maps when it names the same epoch
 * (vector_file.c).
 */
#include "common.h"
#include <math.h>
#include <sqlite3.h>

#include "store/store_vector.h"
#include "store/sqlite/sqlite_internal.h"
#include "store/sqlite/vector_file.h"
#include "store/vector_cache.h"
#include "util/util.h"

static int step_done(mn_store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : mn_sqlite__fail(s, what);
}

static bool is_memory(const char *owner_kind)
{
    return strcmp(owner_kind, "memory") == 0;
}

static int check_kind(const char *owner_kind)
{
    if (!owner_kind || (strcmp(owner_kind, "memory") != 0 && strcmp(owner_kind, "chunk") != 0))
        return mn_error_set(MN_EINVAL, "vector owner kind '%s' must be memory or chunk",
                            owner_kind ? owner_kind : "(null)");
    return 0;
}

static size_t padded(size_t dim)
{
    return (dim + MN_VECTOR_LANES - 1) / MN_VECTOR_LANES * MN_VECTOR_LANES;
}

/* ---- models ---- */

int mn_sqlite__embed_model_put(mn_store *s, const mn_embed_model_rec *m)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    if (!m->model || !*m->model || m->dim < 1 || m->dim > 8192)
        return mn_error_set(MN_EINVAL, "embedding model '%s' of dimension %zu is not valid",
                            m->model ? m->model : "", m->dim);
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT INTO embed_models(model, project_id, dim, docs, params, nonce, created_at) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(model) DO NOTHING");
    if (!st)
        return mn_error_last_code();
    char nonce[MN_ID_LEN + 1];
    mn_id_new(nonce);
    sqlite3_bind_text(st, 1, m->model, -1, SQLITE_STATIC);
    if (m->per_project)
        sqlite3_bind_int64(st, 2, s->project_id);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)m->dim);
    sqlite3_bind_int64(st, 4, m->docs);
    if (m->params)
        sqlite3_bind_text(st, 5, m->params, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, nonce, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, m->created_at ? m->created_at : mn_time_now_ms());
    int rc = step_done(s, st, "cannot record an embedding model");
    if (rc)
        return rc;
    /* an existing row with another dimension would make every vector unreadable */
    mn_embed_model_rec have;
    if ((rc = mn_store_embed_model_get(s, m->model, &have)) != 0)
        return rc;
    if (have.dim != m->dim)
        return mn_error_set(MN_EINVAL,
                            "embedding model '%s' is stored with dimension %zu, not %zu: drop its "
                            "vectors first",
                            m->model, have.dim, m->dim);
    return 0;
}

#define MODEL_COLUMNS "model, project_id IS NOT NULL, dim, docs, params, created_at, synced_epoch"

static void read_model(sqlite3_stmt *st, mn_embed_model_rec *out)
{
    out->model = (const char *)sqlite3_column_text(st, 0);
    out->per_project = sqlite3_column_int(st, 1) != 0;
    out->dim = (size_t)sqlite3_column_int64(st, 2);
    out->docs = sqlite3_column_int64(st, 3);
    out->params = (const char *)sqlite3_column_text(st, 4);
    out->created_at = sqlite3_column_int64(st, 5);
    out->synced_epoch = sqlite3_column_int64(st, 6);
}

int mn_sqlite__embed_model_get(mn_store *s, const char *model, mn_embed_model_rec *out)
{
    sqlite3_stmt *st =
        mn_sqlite__stmt(s, "SELECT " MODEL_COLUMNS " FROM embed_models WHERE model = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* no string of the row outlives the reset (a statement left on a row would hold its
         * read snapshot open): the name is the caller's, params are not read here */
        read_model(st, out);
        out->model = model;
        out->params = NULL;
        sqlite3_reset(st);
        return 0;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return mn_sqlite__fail(s, "cannot read an embedding model");
    return mn_error_set(MN_ENOTFOUND, "embedding model '%s' not found", model);
}

int mn_sqlite__embed_models_each(mn_store *s, const char *prefix,
                                 int (*cb)(void *payload, const mn_embed_model_rec *m),
                                 void *payload)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, step;
    /* not the statement cache: a callback may call mn_store_embed_model_get */
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT " MODEL_COLUMNS " FROM embed_models "
                           "WHERE (project_id IS NULL OR project_id = ?1) "
                           "AND substr(model, 1, length(?2)) = ?2 "
                           "ORDER BY created_at DESC, rowid DESC",
                           -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot list embedding models");
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, prefix ? prefix : "", -1, SQLITE_TRANSIENT);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        mn_embed_model_rec m;
        read_model(st, &m);
        rc = cb(payload, &m);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot list embedding models");
    sqlite3_finalize(st);
    return rc;
}

int mn_sqlite__embed_models_drop(mn_store *s, const char *keep, int64_t *vectors)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    static const char *const sql[] = {
        /* vectors of this project's rows under any other model */
        "DELETE FROM vectors WHERE model IS NOT ?1 AND ("
        "(owner_kind = 'memory' AND owner_id IN (SELECT id FROM memories WHERE project_id = ?2)) "
        "OR (owner_kind = 'chunk' AND owner_id IN (SELECT c.id FROM chunks c "
        "JOIN files f ON f.id = c.file_id WHERE f.project_id = ?2)))",
        /* vectors no model row owns */
        "DELETE FROM vectors WHERE model IS NOT ?1 AND model NOT IN (SELECT model FROM "
        "embed_models) AND ?2 = ?2",
        /* this project's models, and shared ones left without vectors */
        "DELETE FROM embed_models WHERE model IS NOT ?1 AND (project_id = ?2 OR (project_id IS "
        "NULL AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = embed_models.model)))",
    };
    int64_t removed = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        sqlite3_stmt *st = mn_sqlite__stmt(s, sql[i]);
        if (!st)
            return mn_error_last_code();
        if (keep)
            sqlite3_bind_text(st, 1, keep, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, s->project_id);
        int rc = step_done(s, st, "cannot drop embedding models");
        if (rc)
            return rc;
        if (i < 2)
            removed += sqlite3_changes(sq(s)->db);
    }
    if (vectors)
        *vectors = removed;
    return 0;
}

int mn_sqlite__embed_model_synced(mn_store *s, const char *model, int64_t epoch)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    /* and the corpus's chunk side (schema v19) when the corpus is still at that epoch
       (mn_embed_mark_synced checks it in the same transaction) */
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE embed_models SET synced_epoch = ?2, synced_chunks = coalesce((SELECT epoch - "
           "memory_epoch FROM embed_corpus WHERE id = 1 AND epoch = ?2), -1) WHERE model = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, epoch);
    return step_done(s, st, "cannot record a sync");
}

int mn_sqlite__embed_chunks_current(mn_store *s, const char *model, bool *current)
{
    *current = false;
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "SELECT EXISTS (SELECT 1 FROM embed_models m, embed_corpus c WHERE m.model = ?1 AND "
           "c.id = 1 AND m.synced_chunks = c.epoch - c.memory_epoch)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *current = sqlite3_column_int(st, 0) != 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot read the corpus epoch");
}

int mn_sqlite__embed_corpus_epoch(mn_store *s, int64_t *out)
{
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT epoch FROM embed_corpus WHERE id = 1");
    if (!st)
        return mn_error_last_code();
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE
               ? 0
               : mn_sqlite__fail(s, "cannot read the corpus epoch");
}

/* ---- vectors ---- */

/*
 * A vector of model and owner_kind was written: move the model's epoch and
 * the kind's, once per transaction (schema v17; the first vector of a bulk
 * write pays for the rest; v19 the kind's). Updates and deletes move them by
 * trigger. A transaction that writes both kinds in turn moves them again:
 * a move too many only costs a cache a load.
 */
static int epoch_move(mn_store *s, const char *model, const char *owner_kind)
{
    mn_buf key = MN_BUF_INIT;
    mn_buf_printf(&key, "%s\x1f%s", model, owner_kind);
    if (sq(s)->epoch_moved && strcmp(sq(s)->epoch_moved, key.ptr) == 0) {
        mn_buf_release(&key);
        return 0;
    }
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "UPDATE embed_models SET epoch = epoch + 1, memory_epoch = memory_epoch + (?2 = "
           "'memory'), chunk_epoch = chunk_epoch + (?2 = 'chunk') WHERE model = ?1");
    if (!st) {
        mn_buf_release(&key);
        return mn_error_last_code();
    }
    sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, owner_kind, -1, SQLITE_STATIC);
    int rc = step_done(s, st, "cannot move a model's epoch");
    if (rc == 0) {
        free(sq(s)->epoch_moved);
        sq(s)->epoch_moved = mn_buf_detach(&key);
    }
    mn_buf_release(&key);
    return rc;
}

int mn_sqlite__vector_put(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                          const int8_t *q, size_t dim, float scale)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    if (!isfinite(scale) || scale < 0)
        return mn_error_set(MN_EINVAL, "vector scale must be a finite number >= 0");
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, "INSERT OR REPLACE INTO vectors(owner_kind, owner_id, model, dim, encoding, scale, "
           "data) SELECT ?1, ?2, ?3, ?4, 'i8', ?5, ?6 FROM embed_models "
           "WHERE model = ?3 AND dim = ?4");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, owner_kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, owner_id);
    sqlite3_bind_text(st, 3, model, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)dim);
    sqlite3_bind_double(st, 5, scale);
    sqlite3_bind_blob(st, 6, q, (int)dim, SQLITE_STATIC);
    if ((rc = step_done(s, st, "cannot store a vector")) != 0)
        return rc;
    if (sqlite3_changes(sq(s)->db) == 0)
        return mn_error_set(MN_EINVAL, "embedding model '%s' of dimension %zu is not recorded",
                            model, dim);
    return epoch_move(s, model, owner_kind);
}

int mn_sqlite__vector_get(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                          int8_t **out, size_t *dim, float *scale)
{
    *out = NULL;
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT dim, scale, data FROM vectors "
                                          "WHERE owner_kind = ?1 AND owner_id = ?2 AND model = ?3");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, owner_kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, owner_id);
    sqlite3_bind_text(st, 3, model, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot read a vector");
        return mn_error_set(MN_ENOTFOUND, "no vector of %s %lld for model '%s'", owner_kind,
                            (long long)owner_id, model);
    }
    size_t d = (size_t)sqlite3_column_int64(st, 0), len = (size_t)sqlite3_column_bytes(st, 2);
    if (d < 1 || d > 8192 || len != d) {
        sqlite3_reset(st);
        return mn_error_set(MN_ECORRUPT, "vector of %s %lld for model '%s' is damaged", owner_kind,
                            (long long)owner_id, model);
    }
    *out = mn_calloc(1, padded(d));
    memcpy(*out, sqlite3_column_blob(st, 2), d);
    *dim = d;
    *scale = (float)sqlite3_column_double(st, 1);
    sqlite3_reset(st);
    return 0;
}

/*
 * The live rows of this project of one kind (o), their text (t: schema
 * v3's full-text views) and their vector for model ?2 (v), as FROM clauses.
 * ?1 is the project.
 */
#define MEMORY_ROWS                                                             \
    "memories o JOIN memories_fts_src t ON t.id = o.id LEFT JOIN vectors v ON " \
    "v.owner_kind = 'memory' AND v.owner_id = o.id AND v.model = ?2 "           \
    "WHERE o.project_id = ?1 AND o.deleted_at IS NULL"
#define CHUNK_ROWS                                                                           \
    "chunks o JOIN chunks_fts_src t ON t.id = o.id LEFT JOIN files f ON f.id = o.file_id "   \
    "LEFT JOIN docs d ON d.id = o.doc_id LEFT JOIN vectors v ON v.owner_kind = 'chunk' AND " \
    "v.owner_id = o.id AND v.model = ?2 WHERE coalesce(f.project_id, d.project_id) = ?1"
/* The text embedded (store_vector.h); the title is left out when the body starts with it. */
#define MEMORY_TEXT                                                                        \
    "CASE WHEN instr(substr(t.body, 1, length(t.title) + 16), t.title) > 0 THEN '' "       \
    "ELSE t.title || char(10) END || coalesce(nullif(t.keywords, '') || char(10), '') || " \
    "coalesce(t.body, '') || coalesce(char(10) || nullif(t.context, ''), '')"
#define CHUNK_TEXT                                                                 \
    "coalesce(t.path || char(10), '') || coalesce(t.names || char(10), '') || "    \
    "coalesce(t.signature || char(10), '') || coalesce(t.doc || char(10), '') || " \
    "coalesce(t.body, '')"

/* ---- loading (the shared sets: store/vector_cache.c) ---- */

/* 1 when no other project than this store's owns rows of the kind (so
   every vector of the model is this project's), 0 when one does, -1 on
   error. Range searches on the project_id-led unique indexes: no scan. */
static int sole_owner(mn_store *s, const char *owner_kind)
{
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, is_memory(owner_kind)
               ? "SELECT EXISTS (SELECT 1 FROM memories WHERE project_id < ?1) OR EXISTS (SELECT "
                 "1 FROM memories WHERE project_id > ?1)"
               : "SELECT EXISTS (SELECT 1 FROM files WHERE project_id < ?1) OR EXISTS (SELECT 1 "
                 "FROM files WHERE project_id > ?1) OR EXISTS (SELECT 1 FROM docs WHERE "
                 "project_id < ?1) OR EXISTS (SELECT 1 FROM docs WHERE project_id > ?1)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    int others = step == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_reset(st);
    if (others < 0)
        return mn_sqlite__fail(s, "cannot tell whose vectors these are"), -1;
    return others == 0;
}

int mn_sqlite__vectors_load(mn_store *s, const char *model, const char *owner_kind,
                            const mn_vector_set **out)
{
    *out = NULL;
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    /* the kind's epoch (schema v19): a memory's vector leaves the chunks' set valid */
    sqlite3_stmt *st = mn_sqlite__stmt(s, "SELECT CASE ?2 WHEN 'memory' THEN memory_epoch ELSE "
                                          "chunk_epoch END, nonce, dim FROM embed_models WHERE "
                                          "model = ?1");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, owner_kind, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            return mn_sqlite__fail(s, "cannot read an embedding model");
        *out = &mn_vset_new(1)->pub; /* no such model: nothing to rank */
        return 0;
    }
    int64_t epoch = sqlite3_column_int64(st, 0);
    size_t dim = (size_t)sqlite3_column_int64(st, 2);
    const char *nonce_col = (const char *)sqlite3_column_text(st, 1);
    char *nonce = mn_strdup(nonce_col ? nonce_col : "");
    mn_buf key = MN_BUF_INIT;
    mn_buf_printf(&key, "%s\x1f%lld\x1f%s\x1f%s\x1f%s", s->path, (long long)s->project_id, model,
                  owner_kind, nonce);
    sqlite3_reset(st);

    mn_vset *v = mn_vset_cache_get(key.ptr, epoch);
    if (v) {
        mn_buf_release(&key);
        free(nonce);
        *out = &v->pub;
        return 0;
    }
    v = mn_vset_new(dim);
    v->key = mn_buf_detach(&key);
    v->epoch = epoch;
    mn_vfile_key fk = {s->path, s->project_id, owner_kind, model, nonce, epoch, dim, v->pub.stride};
    if (mn_vfile_open(&v->file, &fk) == 0) {
        free(nonce);
        v->pub.n = v->file.n;
        v->pub.ids = v->file.ids;
        v->pub.scales = v->file.scales;
        v->pub.data = v->file.data;
        mn_vset_cache_put(v);
        *out = &v->pub;
        return 0;
    }
    /* When no other project owns chunks (or memories) - the common case:
       one repository's .mnemo/ - no join is needed to tell whose vectors these are: vectors never
       outlive what they embed (schema v5's triggers), so every row of the
       model is the project's. The joins cost more than the read itself on a
       large index (45k chunk vectors: ~60 ms against ~15 ms), and a hook
       process loads them once per prompt. Rows come in the index's order;
       nothing needs them sorted by id. */
    int one_project = sole_owner(s, owner_kind);
    if (one_project < 0) {
        free(nonce);
        mn_vector_set_release(&v->pub);
        return mn_error_last_code();
    }
    st = one_project ? mn_sqlite__stmt(s, "SELECT owner_id, scale, data FROM vectors WHERE "
                                          "model = ?2 AND owner_kind = ?4 AND dim = ?3")
                     : mn_sqlite__stmt(
                           s, is_memory(owner_kind)
                                  ? "SELECT v.owner_id, v.scale, v.data FROM vectors v JOIN "
                                    "memories o ON o.id = v.owner_id WHERE v.model = ?2 AND "
                                    "v.owner_kind = 'memory' AND o.project_id = ?1 AND "
                                    "o.deleted_at IS NULL AND v.dim = ?3 ORDER BY v.owner_id"
                                  : "SELECT v.owner_id, v.scale, v.data FROM vectors v JOIN "
                                    "chunks o ON o.id = v.owner_id LEFT JOIN files f ON f.id = "
                                    "o.file_id LEFT JOIN docs d ON d.id = o.doc_id WHERE v.model = "
                                    "?2 AND v.owner_kind = 'chunk' AND coalesce(f.project_id, "
                                    "d.project_id) = ?1 AND v.dim = ?3 ORDER BY v.owner_id");
    if (!st) {
        free(nonce);
        mn_vector_set_release(&v->pub);
        return mn_error_last_code();
    }
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)dim);
    if (one_project) /* ?1 is unused there, which SQLite allows: ?4 sets the count */
        sqlite3_bind_text(st, 4, owner_kind, -1, SQLITE_STATIC);
    size_t cap = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        mn_vset_push(v, &cap, sqlite3_column_int64(st, 0), (float)sqlite3_column_double(st, 1),
                     sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2));
    sqlite3_reset(st);
    if (step != SQLITE_DONE) {
        rc = mn_sqlite__fail(s, "cannot read vectors");
        free(nonce);
        mn_vector_set_release(&v->pub);
        return rc;
    }
    v->pub.ids = v->ids;
    v->pub.data = v->data;
    v->pub.scales = v->scales;
    if (!s->read_only) /* for the next process (a hook per prompt) */
        mn_vfile_write(&fk, v->pub.n, v->ids, v->scales, v->data);
    free(nonce);
    mn_vset_cache_put(v);
    *out = &v->pub;
    return 0;
}

int mn_sqlite__vectors_keep(mn_store *s, const char *model)
{
    /* loading a set writes its file when the file does not name the current epoch */
    static const char *const kinds[] = {"chunk", "memory"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(kinds); i++) {
        const mn_vector_set *set = NULL;
        int rc = mn_sqlite__vectors_load(s, model, kinds[i], &set);
        if (rc)
            return rc;
        mn_vector_set_release(set);
    }
    return 0;
}

int mn_sqlite__vector_search(mn_store *s, const char **out)
{
    MN_UNUSED(s);
    *out = "int8 vectors in SQLite rows, exact top-k in mnemo";
    return 0;
}

int mn_sqlite__vectors_count(mn_store *s, const char *model, const char *owner_kind, int64_t *have,
                             int64_t *missing)
{
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, is_memory(owner_kind) ? "SELECT count(*), count(v.owner_id) FROM " MEMORY_ROWS
                                 : "SELECT count(*), count(v.owner_id) FROM " CHUNK_ROWS);
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(st);
    int64_t all = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    int64_t with = step == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
    sqlite3_reset(st);
    if (step != SQLITE_ROW)
        return mn_sqlite__fail(s, "cannot count vectors");
    if (have)
        *have = with;
    if (missing)
        *missing = all - with;
    return 0;
}

int mn_sqlite__vectors_missing(mn_store *s, const char *model, const char *owner_kind, size_t limit,
                               int (*cb)(void *payload, int64_t owner_id, const char *text,
                                         size_t len),
                               void *payload)
{
    int rc = check_kind(owner_kind), step;
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    /* prepared here, not cached: the callback may use the store */
    if (sqlite3_prepare_v2(sq(s)->db,
                           is_memory(owner_kind) ? "SELECT o.id, " MEMORY_TEXT " FROM " MEMORY_ROWS
                                                   " AND v.owner_id IS NULL ORDER BY o.id LIMIT ?3"
                                                 : "SELECT o.id, " CHUNK_TEXT " FROM " CHUNK_ROWS
                                                   " AND v.owner_id IS NULL ORDER BY o.id LIMIT ?3",
                           -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot look for rows to embed");
    sqlite3_bind_int64(st, 1, s->project_id);
    sqlite3_bind_text(st, 2, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, limit ? (sqlite3_int64)limit : -1);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 1);
        rc = cb(payload, sqlite3_column_int64(st, 0), text ? text : "",
                (size_t)sqlite3_column_bytes(st, 1));
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot look for rows to embed");
    sqlite3_finalize(st);
    return rc;
}

int mn_sqlite__vectors_gc(mn_store *s, int64_t *removed)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    static const char *const sql[] = {
        "DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id NOT IN "
        "(SELECT id FROM memories WHERE deleted_at IS NULL)",
        "DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id NOT IN (SELECT id FROM "
        "chunks)",
        "DELETE FROM vectors WHERE model NOT IN (SELECT model FROM embed_models)",
    };
    int64_t n = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        sqlite3_stmt *st = mn_sqlite__stmt(s, sql[i]);
        if (!st)
            return mn_error_last_code();
        int rc = step_done(s, st, "cannot remove orphan vectors");
        if (rc)
            return rc;
        n += sqlite3_changes(sq(s)->db);
    }
    if (removed)
        *removed = n;
    return 0;
}

/* ---- the built-in model's corpus ---- */

int mn_sqlite__embed_corpus_count(mn_store *s, int64_t *out)
{
    /* Asked before each search whose corpus moved (is the built-in model still fit?): when
       no other project has files or documents here, every chunk is this project's and the
       count needs no join (67,000 chunks: ~1 ms against ~30). */
    int one_project = sole_owner(s, "chunk");
    if (one_project < 0)
        return mn_error_last_code();
    sqlite3_stmt *st = mn_sqlite__stmt(
        s, one_project
               ? "SELECT (SELECT count(*) FROM memories WHERE project_id = ?1 AND deleted_at IS "
                 "NULL) + (SELECT count(*) FROM chunks)"
               : "SELECT (SELECT count(*) FROM memories WHERE project_id = ?1 AND deleted_at IS "
                 "NULL) + (SELECT count(*) FROM chunks o LEFT JOIN files f ON f.id = o.file_id "
                 "LEFT JOIN docs d ON d.id = o.doc_id WHERE coalesce(f.project_id, d.project_id) "
                 "= ?1)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_int64(st, 1, s->project_id);
    int step = sqlite3_step(st);
    *out = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return step == SQLITE_ROW ? 0 : mn_sqlite__fail(s, "cannot count the corpus");
}

int mn_sqlite__embed_corpus_each(mn_store *s, int (*cb)(void *payload, const mn_embed_doc *d),
                                 void *payload)
{
    /* memories: by the session or dialog they name (else one stream), in save order;
       chunks: a file's (or a document's) in line order */
    static const char *const sql[] = {
        "SELECT o.id, 'm:' || coalesce(o.session_ref, o.dialog_ref, ''), " MEMORY_TEXT
        " FROM memories o JOIN memories_fts_src t ON t.id = o.id WHERE o.project_id = ?1 AND "
        "o.deleted_at IS NULL ORDER BY coalesce(o.session_ref, o.dialog_ref, ''), o.id",
        "SELECT o.id, CASE WHEN o.file_id IS NOT NULL THEN 'f:' || o.file_id ELSE 'd:' || "
        "o.doc_id END, " CHUNK_TEXT
        " FROM chunks o JOIN chunks_fts_src t ON t.id = o.id LEFT JOIN files f ON f.id = "
        "o.file_id LEFT JOIN docs d ON d.id = o.doc_id WHERE coalesce(f.project_id, "
        "d.project_id) = ?1 ORDER BY o.file_id, o.doc_id, o.start_line, o.id",
    };
    int rc = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql) && rc == 0; i++) {
        sqlite3_stmt *st = NULL;
        int step = SQLITE_DONE;
        if (sqlite3_prepare_v2(sq(s)->db, sql[i], -1, &st, NULL) != SQLITE_OK)
            return mn_sqlite__fail(s, "cannot read the corpus");
        sqlite3_bind_int64(st, 1, s->project_id);
        while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
            mn_embed_doc d = {i == 0 ? "memory" : "chunk", sqlite3_column_int64(st, 0),
                              (const char *)sqlite3_column_text(st, 1),
                              (const char *)sqlite3_column_text(st, 2),
                              (size_t)sqlite3_column_bytes(st, 2)};
            if (!d.text)
                d.text = "";
            if (!d.stream)
                d.stream = "";
            rc = cb(payload, &d);
        }
        if (rc == 0 && step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot read the corpus");
        sqlite3_finalize(st);
    }
    return rc;
}

/* ---- the built-in model's terms ---- */

int mn_sqlite__embed_term_put(mn_store *s, const char *model, const char *term, size_t len,
                              double idf, const int8_t *q, size_t dim, float scale)
{
    MN_ASSERT_OR(sq(s)->in_tx, MN_EINTERNAL);
    sqlite3_stmt *st = mn_sqlite__stmt(s, "INSERT OR REPLACE INTO embed_terms(model, term, idf, "
                                          "scale, vec) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st)
        return mn_error_last_code();
    sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, term, (int)len, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, idf);
    sqlite3_bind_double(st, 4, scale);
    sqlite3_bind_blob(st, 5, q, (int)dim, SQLITE_STATIC);
    return step_done(s, st, "cannot store a term vector");
}

int mn_sqlite__embed_terms_get(mn_store *s, const char *model, const char *const *terms, size_t n,
                               int (*cb)(void *payload, size_t which, double idf, const int8_t *q,
                                         size_t qlen, float scale),
                               void *payload)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT idf, scale, vec FROM embed_terms WHERE model = ?1 AND term = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot read term vectors");
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_text(st, 2, terms[i], -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            rc = cb(payload, i, sqlite3_column_double(st, 0),
                    (const int8_t *)sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2),
                    (float)sqlite3_column_double(st, 1));
        else if (step != SQLITE_DONE)
            rc = mn_sqlite__fail(s, "cannot read term vectors");
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int mn_sqlite__embed_terms_each(mn_store *s, const char *model,
                                int (*cb)(void *payload, const char *term, size_t len, double idf,
                                          const int8_t *q, size_t qlen, float scale),
                                void *payload)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, step = SQLITE_DONE;
    if (sqlite3_prepare_v2(sq(s)->db,
                           "SELECT term, idf, scale, vec FROM embed_terms WHERE model = ?1", -1,
                           &st, NULL) != SQLITE_OK)
        return mn_sqlite__fail(s, "cannot read term vectors");
    sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = cb(payload, (const char *)sqlite3_column_text(st, 0),
                (size_t)sqlite3_column_bytes(st, 0), sqlite3_column_double(st, 1),
                (const int8_t *)sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3),
                (float)sqlite3_column_double(st, 2));
    if (rc == 0 && step != SQLITE_DONE)
        rc = mn_sqlite__fail(s, "cannot read term vectors");
    sqlite3_finalize(st);
    return rc;
}
