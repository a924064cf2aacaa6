/*
 * pg_vector.c - embeddings on PostgreSQL (store_vector.h): models, vectors
 * per memory and chunk, the built-in model's terms and corpus, with the
 * semantics of sqlite/vector_store.c.
 *
 * Vectors are int8 in bytea with their scale (schema_v2.sql); the top-k is
 * exact and runs in mnemo over the set vectors_load returns (as on SQLite;
 * pgvector, where an installation has it, is only detected: see
 * mn_pg__pgvector_available). The triggers of schema_v2.sql keep vectors in
 * step with what they embed, so a row to embed is a row with no vector for
 * the model; they move a model's epoch on every write of its vectors and a
 * project's corpus epoch on every change of what is embedded.
 *
 * The text a row is embedded with is the one SQLite's full-text views give
 * (schema_v3.sql's memories_fts_src, chunks_fts_src): a chunk's is put
 * together in SQL; a memory's in C (memory_text), because its lists are
 * JSON text that SQLite joins with json_valid/json_extract, which
 * PostgreSQL 15 cannot test without raising an error.
 *
 * Loaded sets are the shared cache's (store/vector_cache.c), keyed by the
 * store's location, project, model, kind and the model's nonce; a set is
 * served again while its kind's epoch - moved by the database's triggers,
 * whichever server wrote, per kind since schema v6 - stays. The epoch is
 * read before the rows.
 */
#include "common.h"
#include <math.h>

#include "store/postgres/pg_internal.h"
#include "store/store_vector.h"
#include "store/vector_cache.h"
#include "util/util.h"
#include "util/vec.h"

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

static double col_real(mn_store *s, const PGresult *r, int row, int col)
{
    const char *v = mn_pg__col(s, r, row, col);
    return v ? strtod(v, NULL) : 0;
}

/* ---- the text of a memory (schema_v3.sql's memories_fts_src, store_vector.h) ---- */

/*
 * A JSON list column as SQLite's view joins it: valid JSON -> the items of
 * its array (strings as they are, integers and reals as SQLite prints them,
 * true/false as 1/0, nested values as JSON, nulls left out) joined by sep;
 * not JSON -> the text itself; NULL -> nothing.
 */
static void join_list(mn_buf *b, const char *v, const char *sep)
{
    if (!v)
        return;
    json_t *j = json_loads(v, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!j) {
        mn_buf_puts(b, v);
        return;
    }
    bool any = false;
    size_t i;
    json_t *it;
    json_array_foreach(j, i, it)
    {
        if (json_is_null(it))
            continue;
        if (any)
            mn_buf_puts(b, sep);
        any = true;
        if (json_is_string(it)) {
            mn_buf_put(b, json_string_value(it), json_string_length(it));
        } else if (json_is_integer(it)) {
            mn_buf_printf(b, "%lld", (long long)json_integer_value(it));
        } else if (json_is_real(it)) {
            mn_buf_printf(b, "%.15g", json_real_value(it));
        } else if (json_is_boolean(it)) {
            mn_buf_puts(b, json_is_true(it) ? "1" : "0");
        } else {
            char *t = json_dumps(it, JSON_COMPACT | JSON_ENCODE_ANY);
            if (t)
                mn_buf_puts(b, t);
            free(t);
        }
    }
    json_decref(j);
}

/* SQLite's trim(X, set) in place. */
static void trim_set(mn_buf *b, const char *set)
{
    size_t start = 0, end = b->len;
    while (start < end && b->ptr[start] && strchr(set, b->ptr[start]))
        start++;
    while (end > start && b->ptr[end - 1] && strchr(set, b->ptr[end - 1]))
        end--;
    if (start)
        memmove(b->ptr, b->ptr + start, end - start);
    mn_buf_truncate(b, end - start);
}

/* The byte length of the first n code points of s (all of it when shorter). */
static size_t utf8_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (s[i] && n > 0) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        n--;
    }
    return i;
}

/* The columns MEMORY_COLUMNS names, from `first` on, in this order. */
#define MEMORY_COLUMNS                                                                      \
    "o.title, o.trigger_keywords, o.tags, o.body, o.situation, o.solution, o.what_failed, " \
    "o.error_messages, o.files_modified, o.scope_paths, o.scope_symbols"

/*
 * The text a memory is embedded with, from the MEMORY_COLUMNS of row at
 * `first` (vector_store.c's MEMORY_TEXT over memories_fts_src): the title
 * (left out when it is within the first length(title) + 16 characters of
 * the body), the keywords and tags, the body and the context, one per line.
 */
static void memory_text(mn_store *s, const PGresult *r, int row, int first, mn_buf *out)
{
    const char *col[11];
    for (int i = 0; i < 11; i++)
        col[i] = mn_pg__col(s, r, row, first + i);
    const char *title = col[0], *body = col[3] ? col[3] : "";
    mn_buf kw = MN_BUF_INIT, ctx = MN_BUF_INIT;
    join_list(&kw, col[1], " ");
    mn_buf_putc(&kw, ' ');
    join_list(&kw, col[2], " ");
    trim_set(&kw, " ");
    for (int i = 4; i <= 6; i++)
        if (col[i]) {
            mn_buf_puts(&ctx, col[i]);
            mn_buf_putc(&ctx, '\n');
        }
    join_list(&ctx, col[7], "\n");
    for (int i = 8; i <= 10; i++) {
        mn_buf_putc(&ctx, '\n');
        join_list(&ctx, col[i], " ");
    }
    trim_set(&ctx, " \n");
    mn_buf_truncate(out, 0);
    if (!title) /* NULL || ...: SQLite's text is NULL, read as empty */
        goto out;
    size_t head = utf8_prefix(body, mn_utf8_len(title, strlen(title)) + 16);
    char *prefix = mn_strndup(body, head);
    if (!strstr(prefix, title)) {
        mn_buf_puts(out, title);
        mn_buf_putc(out, '\n');
    }
    free(prefix);
    if (kw.len) {
        mn_buf_put(out, kw.ptr, kw.len);
        mn_buf_putc(out, '\n');
    }
    mn_buf_puts(out, body);
    if (ctx.len) {
        mn_buf_putc(out, '\n');
        mn_buf_put(out, ctx.ptr, ctx.len);
    }
out:
    mn_buf_release(&kw);
    mn_buf_release(&ctx);
}

/* A chunk's text (chunks_fts_src: path, names, signature, doc, code), in SQL; o is the chunk. */
#define CHUNK_TEXT                                                                              \
    "coalesce(f.path || chr(10), '') || coalesce(CASE WHEN y.id IS NULL THEN NULL WHEN "        \
    "y.qualified_name = y.name THEN y.name ELSE y.name || ' ' || y.qualified_name END || "      \
    "chr(10), '') || coalesce(y.signature || chr(10), '') || coalesce(y.docstring || chr(10), " \
    "'') || coalesce(o.text, '')"
#define CHUNK_JOINS \
    "LEFT JOIN files f ON f.id = o.file_id LEFT JOIN symbols y ON y.id = o.symbol_id"

/* ---- models ---- */

int mn_pg__embed_model_put(mn_store *s, const mn_embed_model_rec *m)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    if (!m->model || !*m->model || m->dim < 1 || m->dim > 8192)
        return mn_error_set(MN_EINVAL, "embedding model '%s' of dimension %zu is not valid",
                            m->model ? m->model : "", m->dim);
    char nonce[MN_ID_LEN + 1];
    mn_id_new(nonce);
    mn_pg_params p = {0};
    mn_pg__text(&p, m->model);
    if (m->per_project)
        mn_pg__int(&p, s->project_id);
    else
        mn_pg__text(&p, NULL);
    mn_pg__int(&p, (int64_t)m->dim);
    mn_pg__int(&p, m->docs);
    mn_pg__text(&p, m->params);
    mn_pg__text(&p, nonce);
    mn_pg__int(&p, m->created_at ? m->created_at : mn_time_now_ms());
    int rc = mn_pg__exec(s,
                         "INSERT INTO embed_models(model, project_id, dim, docs, params, nonce, "
                         "created_at) VALUES ($1, $2::bigint, $3, $4, $5, $6, $7) ON CONFLICT "
                         "(model) DO NOTHING",
                         &p, "cannot record an embedding model");
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

static void read_model(mn_store *s, const PGresult *r, int row, mn_embed_model_rec *out)
{
    out->model = mn_pg__col(s, r, row, 0);
    out->per_project = mn_pg__col(s, r, row, 1)[0] == 't';
    out->dim = (size_t)mn_pg__col_int(s, r, row, 2);
    out->docs = mn_pg__col_int(s, r, row, 3);
    out->params = mn_pg__col(s, r, row, 4);
    out->created_at = mn_pg__col_int(s, r, row, 5);
    out->synced_epoch = mn_pg__col_int(s, r, row, 6);
}

int mn_pg__embed_model_get(mn_store *s, const char *model, mn_embed_model_rec *out)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    PGresult *r = mn_pg__run(s, "SELECT " MODEL_COLUMNS " FROM embed_models WHERE model = $1", &p,
                             "cannot read an embedding model");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) == 1) {
        read_model(s, r, 0, out);
        out->model = model; /* no string of the result outlives it */
        out->params = NULL;
    } else {
        rc = mn_error_set(MN_ENOTFOUND, "embedding model '%s' not found", model);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__embed_models_each(mn_store *s, const char *prefix,
                             int (*cb)(void *payload, const mn_embed_model_rec *m), void *payload)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, prefix ? prefix : "");
    /* starts_with, not LIKE: a prefix holding % or _ means itself */
    PGresult *r = mn_pg__run(s,
                             "SELECT " MODEL_COLUMNS " FROM embed_models WHERE (project_id IS NULL "
                             "OR project_id = $1) AND starts_with(model, $2) ORDER BY created_at "
                             "DESC, seq DESC",
                             &p, "cannot list embedding models");
    if (!r)
        return mn_error_last_code();
    int rc = 0, n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        mn_embed_model_rec m;
        read_model(s, r, i, &m);
        rc = cb(payload, &m);
    }
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__embed_models_drop(mn_store *s, const char *keep, int64_t *vectors)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    static const char *const sql[] = {
        /* vectors of this project's rows under any other model */
        "DELETE FROM vectors WHERE model IS DISTINCT FROM $1::text AND project_id = $2",
        /* vectors no model row owns */
        "DELETE FROM vectors WHERE model IS DISTINCT FROM $1::text AND model NOT IN (SELECT "
        "model FROM embed_models) AND $2::bigint IS NOT NULL",
        /* this project's models, and shared ones left without vectors */
        "DELETE FROM embed_models WHERE model IS DISTINCT FROM $1::text AND (project_id = $2 OR "
        "(project_id IS NULL AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = "
        "embed_models.model)))",
    };
    int64_t removed = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        mn_pg_params p = {0};
        mn_pg__text(&p, keep);
        mn_pg__int(&p, s->project_id);
        PGresult *r = mn_pg__run(s, sql[i], &p, "cannot drop embedding models");
        if (!r)
            return mn_error_last_code();
        if (i < 2)
            removed += mn_pg__changed(s, r);
        pg(s)->pq->clear(r);
    }
    if (vectors)
        *vectors = removed;
    return 0;
}

int mn_pg__embed_model_synced(mn_store *s, const char *model, int64_t epoch)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    mn_pg__int(&p, epoch);
    mn_pg__int(&p, s->project_id);
    /* and the corpus's chunk side (schema v6) when the corpus is still at that epoch
       (mn_embed_mark_synced checks it in the same transaction) */
    return mn_pg__exec(
        s,
        "UPDATE embed_models SET synced_epoch = $2, synced_chunks = coalesce((SELECT "
        "epoch - memory_epoch FROM embed_corpus WHERE project_id = $3 AND epoch = "
        "$2), -1) WHERE model = $1",
        &p, "cannot record a sync");
}

int mn_pg__embed_chunks_current(mn_store *s, const char *model, bool *current)
{
    *current = false;
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT 1 FROM embed_models m, embed_corpus c WHERE m.model = $1 AND "
                             "c.project_id = $2 AND m.synced_chunks = c.epoch - c.memory_epoch",
                             &p, "cannot read the corpus epoch");
    if (!r)
        return mn_error_last_code();
    *current = pg(s)->pq->ntuples(r) > 0;
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__embed_corpus_epoch(mn_store *s, int64_t *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s, "SELECT epoch FROM embed_corpus WHERE project_id = $1", &p,
                             "cannot read the corpus epoch");
    if (!r)
        return mn_error_last_code();
    *out = pg(s)->pq->ntuples(r) == 1 ? mn_pg__col_int(s, r, 0, 0) : 0;
    pg(s)->pq->clear(r);
    return 0;
}

/* ---- rows written in batches ---- */

/*
 * The vectors and the built-in model's terms are written many at a time:
 * vector_put and embed_term_put keep their rows in the handle (one model and
 * dimension, vectors or terms), and one statement writes them (unnest of
 * arrays, the vectors' bytes one binary parameter cut by substring) when
 * WRITES_ROWS or WRITES_BYTES are reached, before any other statement of
 * the handle runs (mn_pg__run, so a read in the transaction sees them), and
 * before the COMMIT, which is a statement too; a rollback forgets them. The
 * model's trainer wrote a vector or a term a round trip each, up to 65,536
 * terms and 4,096 vectors a transaction, under the project's write lock,
 * and on a loaded machine every round trip waits for the scheduler: the
 * saves of the project waited seconds behind it (docs/internals/load.md).
 * The rows are the ones the statements of one row wrote: the same values
 * (%.17g, as mn_pg__real), the same conflict rule (the last put of a key
 * wins, as the row-at-a-time upserts made it), the same check that the
 * vectors' model is recorded with that dimension. An error (a model not
 * recorded) is reported by the call that wrote them, which may be a later
 * put or the commit: either way the transaction fails as a whole, as its
 * caller's rollback then makes it.
 */
#define WRITES_ROWS  2048      /* rows a statement writes, at most */
#define WRITES_BYTES (4 << 20) /* of vector bytes */

struct mn_pg_writes {
    bool of_terms; /* embed_terms rows; else vectors */
    char *model;
    size_t dim;
    MN_VEC(bool) mem;      /* vectors: owner kind memory (else chunk) */
    MN_VEC(int64_t) ids;   /* vectors: owner id */
    MN_VEC(char *) terms;  /* terms: the term */
    MN_VEC(double) idfs;   /* terms: idf */
    MN_VEC(double) scales; /* both */
    mn_buf data;           /* both: dim bytes a row */
};

static void writes_clear(mn_pg_writes *w)
{
    for (size_t i = 0; i < w->terms.len; i++)
        free(w->terms.items[i]);
    w->mem.len = w->ids.len = w->terms.len = w->idfs.len = w->scales.len = 0;
    mn_buf_truncate(&w->data, 0);
}

void mn_pg__writes_forget(mn_store *s)
{
    mn_pg_writes *w = pg(s)->writes;
    if (w)
        writes_clear(w);
}

void mn_pg__writes_free(mn_store *s)
{
    mn_pg_writes *w = pg(s)->writes;
    if (!w)
        return;
    writes_clear(w);
    mn_vec_release(&w->mem);
    mn_vec_release(&w->ids);
    mn_vec_release(&w->terms);
    mn_vec_release(&w->idfs);
    mn_vec_release(&w->scales);
    mn_buf_release(&w->data);
    free(w->model);
    free(w);
    pg(s)->writes = NULL;
}

static size_t writes_rows(const mn_pg_writes *w)
{
    return w ? (w->of_terms ? w->terms.len : w->ids.len) : 0;
}

bool mn_pg__writes_pending(mn_store *s)
{
    return writes_rows(pg(s)->writes) > 0;
}

/* Make the handle's buffer one of `terms` rows of model/dim: what it holds of others is written
 * first. */
static int writes_for(mn_store *s, bool terms, const char *model, size_t dim)
{
    mn_pg_writes *w = pg(s)->writes;
    if (!w) {
        w = pg(s)->writes = mn_calloc(1, sizeof(*w));
        mn_buf_init(&w->data);
    }
    if (w->model && w->of_terms == terms && w->dim == dim && strcmp(w->model, model) == 0)
        return 0;
    int rc = mn_pg__writes_flush(s);
    if (rc)
        return rc;
    free(w->model);
    w->model = mn_strdup(model);
    w->of_terms = terms;
    w->dim = dim;
    return 0;
}

/* Row order for finding keys put twice: by key, then by position. */
static int by_key(const void *a, const void *b, void *arg)
{
    const mn_pg_writes *w = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c;
    if (w->of_terms)
        c = strcmp(w->terms.items[i], w->terms.items[j]);
    else
        c = w->mem.items[i] != w->mem.items[j]
                ? (w->mem.items[i] ? 1 : -1)
                : (w->ids.items[i] > w->ids.items[j]) - (w->ids.items[i] < w->ids.items[j]);
    return c ? c : (i > j) - (i < j);
}

static int by_position(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (i > j) - (i < j);
}

static bool same_key(const mn_pg_writes *w, size_t i, size_t j)
{
    return w->of_terms ? strcmp(w->terms.items[i], w->terms.items[j]) == 0
                       : w->mem.items[i] == w->mem.items[j] && w->ids.items[i] == w->ids.items[j];
}

int mn_pg__writes_flush(mn_store *s)
{
    mn_pg_writes *w = pg(s)->writes;
    size_t n = writes_rows(w);
    if (n == 0)
        return 0;
    /* the rows to write: the last put of each key (one statement cannot upsert a row twice), in
     * the order they were put */
    size_t *keep = mn_malloc(n * sizeof(size_t)), kept = 0;
    for (size_t i = 0; i < n; i++)
        keep[i] = i;
    qsort_r(keep, n, sizeof(size_t), by_key, w);
    for (size_t i = 0; i < n; i++)
        if (i + 1 == n || !same_key(w, keep[i], keep[i + 1]))
            keep[kept++] = keep[i];
    qsort(keep, kept, sizeof(size_t), by_position);
    mn_buf a = MN_BUF_INIT, b = MN_BUF_INIT, c = MN_BUF_INIT, bytes = MN_BUF_INIT;
    mn_buf_putc(&a, '{');
    mn_buf_putc(&b, '{');
    mn_buf_putc(&c, '{');
    for (size_t k = 0; k < kept; k++) {
        size_t i = keep[k];
        const char *sep = k ? "," : "";
        if (w->of_terms) {
            mn_buf_puts(&a, sep);
            mn_buf_putc(&a, '"');
            for (const char *t = w->terms.items[i]; *t; t++) {
                if (*t == '"' || *t == '\\')
                    mn_buf_putc(&a, '\\');
                mn_buf_putc(&a, *t);
            }
            mn_buf_putc(&a, '"');
            mn_buf_printf(&b, "%s%.17g", sep, w->idfs.items[i]);
        } else {
            mn_buf_printf(&a, "%s%s", sep, w->mem.items[i] ? "memory" : "chunk");
            mn_buf_printf(&b, "%s%lld", sep, (long long)w->ids.items[i]);
        }
        mn_buf_printf(&c, "%s%.17g", sep, w->scales.items[i]);
        mn_buf_put(&bytes, w->data.ptr + i * w->dim, w->dim);
    }
    mn_buf_putc(&a, '}');
    mn_buf_putc(&b, '}');
    mn_buf_putc(&c, '}');
    free(keep);
    mn_pg_params p = {0};
    mn_pg__text(&p, w->model);
    mn_pg__int(&p, (int64_t)w->dim);
    mn_pg__take(&p, mn_buf_detach(&a));
    mn_pg__take(&p, mn_buf_detach(&b));
    mn_pg__take(&p, mn_buf_detach(&c));
    mn_pg__bytes(&p, bytes.ptr ? bytes.ptr : "", bytes.len);
    mn_buf_release(&bytes);
    bool terms = w->of_terms;
    const char *model = mn_strdup(w->model);
    size_t dim = w->dim;
    /* the rows leave the buffer before the statement runs: mn_pg__run writes what is pending */
    writes_clear(w);
    int rc = 0;
    if (terms) {
        rc = mn_pg__exec(
            s,
            "INSERT INTO embed_terms(model, term, idf, scale, vec) SELECT $1::text, "
            "u.t, u.idf, u.sc, substring($6::bytea FROM ((u.i - 1) * $2::int + "
            "1)::int FOR $2::int) FROM unnest($3::text[], $4::float8[], $5::float8[]) WITH "
            "ORDINALITY AS u(t, idf, sc, i) ON CONFLICT (model, term) DO UPDATE SET "
            "idf = EXCLUDED.idf, scale = EXCLUDED.scale, vec = EXCLUDED.vec",
            &p, "cannot store term vectors");
    } else {
        mn_pg__int(&p, s->project_id);
        PGresult *r = mn_pg__run(
            s,
            "INSERT INTO vectors(project_id, owner_kind, owner_id, model, dim, encoding, scale, "
            "data) SELECT $7::bigint, u.k, u.id, $1::text, $2::int, 'i8', u.sc, "
            "substring($6::bytea "
            "FROM ((u.i - 1) * $2::int + 1)::int FOR $2::int) FROM unnest($3::text[], "
            "$4::bigint[], $5::float8[]) WITH ORDINALITY AS u(k, id, sc, i) WHERE EXISTS (SELECT 1 "
            "FROM embed_models WHERE model = $1::text AND dim = $2::int) ON CONFLICT (owner_kind, "
            "owner_id, model) DO UPDATE SET "
            "project_id = EXCLUDED.project_id, dim = EXCLUDED.dim, encoding = 'i8', scale = "
            "EXCLUDED.scale, data = EXCLUDED.data",
            &p, "cannot store vectors");
        if (!r) {
            rc = mn_error_last_code();
        } else {
            int64_t changed = mn_pg__changed(s, r);
            pg(s)->pq->clear(r);
            if (changed != (int64_t)kept)
                rc = mn_error_set(
                    MN_EINVAL, "embedding model '%s' of dimension %zu is not recorded", model, dim);
        }
    }
    free((char *)model);
    return rc;
}

/* ---- vectors ---- */

int mn_pg__vector_put(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                      const int8_t *q, size_t dim, float scale)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    if (!isfinite(scale) || scale < 0)
        return mn_error_set(MN_EINVAL, "vector scale must be a finite number >= 0");
    if (!model || dim < 1 || dim > 8192)
        return mn_error_set(MN_EINVAL, "embedding model '%s' of dimension %zu is not recorded",
                            model ? model : "", dim);
    if ((rc = writes_for(s, false, model, dim)) != 0)
        return rc;
    mn_pg_writes *w = pg(s)->writes;
    if (w->ids.len == 0) {
        /* the first row of a batch: the model must be recorded with this dimension (as the row
         * at a time insert said at once; the batch's statement checks it again) */
        mn_pg_params p = {0};
        mn_pg__text(&p, model);
        mn_pg__int(&p, (int64_t)dim);
        PGresult *r = mn_pg__run(s, "SELECT 1 FROM embed_models WHERE model = $1 AND dim = $2", &p,
                                 "cannot read an embedding model");
        if (!r)
            return mn_error_last_code();
        bool recorded = pg(s)->pq->ntuples(r) == 1;
        pg(s)->pq->clear(r);
        if (!recorded)
            return mn_error_set(MN_EINVAL, "embedding model '%s' of dimension %zu is not recorded",
                                model, dim);
    }
    mn_vec_push(&w->mem, is_memory(owner_kind));
    mn_vec_push(&w->ids, owner_id);
    mn_vec_push(&w->scales, scale);
    mn_buf_put(&w->data, q, dim);
    return w->ids.len >= WRITES_ROWS || w->data.len >= WRITES_BYTES ? mn_pg__writes_flush(s) : 0;
}

int mn_pg__vector_get(mn_store *s, const char *owner_kind, int64_t owner_id, const char *model,
                      int8_t **out, size_t *dim, float *scale)
{
    *out = NULL;
    mn_pg_params p = {0};
    mn_pg__text(&p, owner_kind);
    mn_pg__int(&p, owner_id);
    mn_pg__text(&p, model);
    PGresult *r = mn_pg__run(s,
                             "SELECT dim, scale, data FROM vectors WHERE owner_kind = $1 AND "
                             "owner_id = $2 AND model = $3",
                             &p, "cannot read a vector");
    if (!r)
        return mn_error_last_code();
    int rc = 0;
    if (pg(s)->pq->ntuples(r) != 1) {
        rc = mn_error_set(MN_ENOTFOUND, "no vector of %s %lld for model '%s'", owner_kind,
                          (long long)owner_id, model);
        goto out;
    }
    size_t d = (size_t)mn_pg__col_int(s, r, 0, 0), len = 0;
    unsigned char *bytes = mn_pg__unhex(mn_pg__col(s, r, 0, 2), &len);
    if (!bytes || d < 1 || d > 8192 || len != d) {
        free(bytes);
        rc = mn_error_set(MN_ECORRUPT, "vector of %s %lld for model '%s' is damaged", owner_kind,
                          (long long)owner_id, model);
        goto out;
    }
    size_t stride = (d + MN_VECTOR_LANES - 1) / MN_VECTOR_LANES * MN_VECTOR_LANES;
    *out = mn_calloc(1, stride);
    memcpy(*out, bytes, d);
    free(bytes);
    *dim = d;
    *scale = (float)col_real(s, r, 0, 1);
out:
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__vectors_load(mn_store *s, const char *model, const char *owner_kind,
                        const mn_vector_set **out)
{
    *out = NULL;
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    mn_pg__text(&p, owner_kind);
    /* the kind's epoch (schema v6): a memory's vector leaves the chunks' set valid */
    PGresult *r = mn_pg__run(s,
                             "SELECT CASE $2 WHEN 'memory' THEN memory_epoch ELSE chunk_epoch END, "
                             "nonce, dim FROM embed_models WHERE model = $1",
                             &p, "cannot read an embedding model");
    if (!r)
        return mn_error_last_code();
    if (pg(s)->pq->ntuples(r) != 1) {
        pg(s)->pq->clear(r);
        *out = &mn_vset_new(1)->pub; /* no such model: nothing to rank */
        return 0;
    }
    int64_t epoch = mn_pg__col_int(s, r, 0, 0);
    size_t dim = (size_t)mn_pg__col_int(s, r, 0, 2);
    mn_buf key = MN_BUF_INIT;
    mn_buf_printf(&key, "pg\x1f%s\x1f%lld\x1f%s\x1f%s\x1f%s", s->path, (long long)s->project_id,
                  model, owner_kind, mn_pg__col(s, r, 0, 1));
    pg(s)->pq->clear(r);
    mn_vset *v = mn_vset_cache_get(key.ptr, epoch);
    if (v) {
        mn_buf_release(&key);
        *out = &v->pub;
        return 0;
    }
    v = mn_vset_new(dim);
    v->key = mn_buf_detach(&key);
    v->epoch = epoch;
    /* the triggers keep only live owners' vectors: the project's rows are the set */
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, model);
    mn_pg__text(&p, owner_kind);
    mn_pg__int(&p, (int64_t)dim);
    r = mn_pg__run(s,
                   "SELECT owner_id, scale, data FROM vectors WHERE project_id = $1 AND model = $2 "
                   "AND owner_kind = $3 AND dim = $4 ORDER BY owner_id",
                   &p, "cannot read vectors");
    if (!r) {
        rc = mn_error_last_code();
        mn_vector_set_release(&v->pub);
        return rc;
    }
    size_t cap = 0;
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        unsigned char *bytes = mn_pg__unhex(mn_pg__col(s, r, i, 2), &len);
        mn_vset_push(v, &cap, mn_pg__col_int(s, r, i, 0), (float)col_real(s, r, i, 1), bytes,
                     bytes ? len : 0);
        free(bytes);
    }
    pg(s)->pq->clear(r);
    v->pub.ids = v->ids;
    v->pub.data = v->data;
    v->pub.scales = v->scales;
    mn_vset_cache_put(v);
    *out = &v->pub;
    return 0;
}

/*
 * pgvector: the issue asks to use it where an installation has it. It is
 * not packaged for Debian 12 nor installed here, so the bytea path is the
 * one built and tested; this says which is in use and what the server
 * offers, from the catalogs (nothing is created).
 */
int mn_pg__vector_search(mn_store *s, const char **out)
{
    PGresult *r = mn_pg__run(s,
                             "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector'), "
                             "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')",
                             NULL, "cannot read the server's extensions");
    if (!r)
        return mn_error_last_code();
    bool installed = mn_pg__col(s, r, 0, 0)[0] == 't', available = mn_pg__col(s, r, 0, 1)[0] == 't';
    pg(s)->pq->clear(r);
    *out = installed   ? "int8 vectors as bytea, exact top-k in mnemo (pgvector is installed in "
                         "this database; not used yet)"
           : available ? "int8 vectors as bytea, exact top-k in mnemo (pgvector is available on "
                         "this server, not installed)"
                       : "int8 vectors as bytea, exact top-k in mnemo (pgvector is not available "
                         "on this server)";
    return 0;
}

/* The live rows of this project of one kind (o) and their vector for model $2 (v); $1 the project.
 */
#define MEMORY_ROWS                                                                        \
    "memories o LEFT JOIN vectors v ON v.owner_kind = 'memory' AND v.owner_id = o.id AND " \
    "v.model = $2 WHERE o.project_id = $1 AND o.deleted_at IS NULL"
#define CHUNK_ROWS                                                                              \
    "chunks o LEFT JOIN vectors v ON v.owner_kind = 'chunk' AND v.owner_id = o.id AND v.model " \
    "= $2 WHERE o.project_id = $1"

int mn_pg__vectors_count(mn_store *s, const char *model, const char *owner_kind, int64_t *have,
                         int64_t *missing)
{
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, model);
    PGresult *r =
        mn_pg__run(s,
                   is_memory(owner_kind) ? "SELECT count(*), count(v.owner_id) FROM " MEMORY_ROWS
                                         : "SELECT count(*), count(v.owner_id) FROM " CHUNK_ROWS,
                   &p, "cannot count vectors");
    if (!r)
        return mn_error_last_code();
    int64_t all = mn_pg__col_int(s, r, 0, 0), with = mn_pg__col_int(s, r, 0, 1);
    pg(s)->pq->clear(r);
    if (have)
        *have = with;
    if (missing)
        *missing = all - with;
    return 0;
}

int mn_pg__vectors_missing(mn_store *s, const char *model, const char *owner_kind, size_t limit,
                           int (*cb)(void *payload, int64_t owner_id, const char *text, size_t len),
                           void *payload)
{
    int rc = check_kind(owner_kind);
    if (rc)
        return rc;
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    mn_pg__text(&p, model);
    if (limit)
        mn_pg__int(&p, (int64_t)limit);
    else
        mn_pg__text(&p, NULL); /* LIMIT NULL: all */
    bool mem = is_memory(owner_kind);
    PGresult *r = mn_pg__run(s,
                             mem ? "SELECT o.id, " MEMORY_COLUMNS " FROM " MEMORY_ROWS
                                   " AND v.owner_id IS NULL ORDER BY o.id LIMIT $3::bigint"
                                 : "SELECT o.id, " CHUNK_TEXT " FROM chunks o " CHUNK_JOINS
                                   " LEFT JOIN vectors v ON v.owner_kind = 'chunk' AND v.owner_id "
                                   "= o.id AND v.model = $2 WHERE o.project_id = $1 AND "
                                   "v.owner_id IS NULL ORDER BY o.id LIMIT $3::bigint",
                             &p, "cannot look for rows to embed");
    if (!r)
        return mn_error_last_code();
    /* the whole result is here: the callback may use the store */
    mn_buf text = MN_BUF_INIT;
    int n = pg(s)->pq->ntuples(r);
    for (int i = 0; i < n && rc == 0; i++) {
        if (mem) {
            memory_text(s, r, i, 1, &text);
            rc = cb(payload, mn_pg__col_int(s, r, i, 0), text.ptr ? text.ptr : "", text.len);
        } else {
            const char *t = mn_pg__col(s, r, i, 1);
            rc = cb(payload, mn_pg__col_int(s, r, i, 0), t ? t : "", t ? strlen(t) : 0);
        }
    }
    mn_buf_release(&text);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__vectors_gc(mn_store *s, int64_t *removed)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    static const char *const sql[] = {
        "DELETE FROM vectors v WHERE owner_kind = 'memory' AND NOT EXISTS (SELECT 1 FROM "
        "memories m WHERE m.id = v.owner_id AND m.deleted_at IS NULL)",
        "DELETE FROM vectors v WHERE owner_kind = 'chunk' AND NOT EXISTS (SELECT 1 FROM chunks c "
        "WHERE c.id = v.owner_id)",
        "DELETE FROM vectors WHERE model NOT IN (SELECT model FROM embed_models)",
    };
    int64_t n = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql); i++) {
        PGresult *r = mn_pg__run(s, sql[i], NULL, "cannot remove orphan vectors");
        if (!r)
            return mn_error_last_code();
        n += mn_pg__changed(s, r);
        pg(s)->pq->clear(r);
    }
    if (removed)
        *removed = n;
    return 0;
}

/* ---- the built-in model's corpus ---- */

int mn_pg__embed_corpus_count(mn_store *s, int64_t *out)
{
    mn_pg_params p = {0};
    mn_pg__int(&p, s->project_id);
    PGresult *r = mn_pg__run(s,
                             "SELECT (SELECT count(*) FROM memories WHERE project_id = $1 AND "
                             "deleted_at IS NULL) + (SELECT count(*) FROM chunks WHERE project_id "
                             "= $1)",
                             &p, "cannot count the corpus");
    if (!r)
        return mn_error_last_code();
    *out = mn_pg__col_int(s, r, 0, 0);
    pg(s)->pq->clear(r);
    return 0;
}

int mn_pg__embed_corpus_each(mn_store *s, int (*cb)(void *payload, const mn_embed_doc *d),
                             void *payload)
{
    /* memories: by the session or dialog they name (else one stream), in save order; chunks: a
       file's (or a document's) in line order; NULLs first as SQLite orders them */
    static const char *const sql[] = {
        "SELECT o.id, 'm:' || coalesce(o.session_ref, o.dialog_ref, ''), " MEMORY_COLUMNS
        " FROM memories o WHERE o.project_id = $1 AND o.deleted_at IS NULL ORDER BY "
        "coalesce(o.session_ref, o.dialog_ref, '') COLLATE \"C\", o.id",
        "SELECT o.id, CASE WHEN o.file_id IS NOT NULL THEN 'f:' || o.file_id ELSE 'd:' || "
        "o.doc_id END, " CHUNK_TEXT " FROM chunks o " CHUNK_JOINS
        " WHERE o.project_id = $1 ORDER BY o.file_id NULLS FIRST, o.doc_id NULLS FIRST, "
        "o.start_line, o.id",
    };
    int rc = 0;
    mn_buf text = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(sql) && rc == 0; i++) {
        mn_pg_params p = {0};
        mn_pg__int(&p, s->project_id);
        PGresult *r = mn_pg__run(s, sql[i], &p, "cannot read the corpus");
        if (!r) {
            rc = mn_error_last_code();
            break;
        }
        int n = pg(s)->pq->ntuples(r);
        for (int row = 0; row < n && rc == 0; row++) {
            const char *stream = mn_pg__col(s, r, row, 1);
            mn_embed_doc d = {i == 0 ? "memory" : "chunk", mn_pg__col_int(s, r, row, 0),
                              stream ? stream : "", "", 0};
            if (i == 0) {
                memory_text(s, r, row, 2, &text);
                d.text = text.ptr ? text.ptr : "";
                d.len = text.len;
            } else if (mn_pg__col(s, r, row, 2)) {
                d.text = mn_pg__col(s, r, row, 2);
                d.len = strlen(d.text);
            }
            rc = cb(payload, &d);
        }
        pg(s)->pq->clear(r);
    }
    mn_buf_release(&text);
    return rc;
}

/* ---- the built-in model's terms ---- */

int mn_pg__embed_term_put(mn_store *s, const char *model, const char *term, size_t len, double idf,
                          const int8_t *q, size_t dim, float scale)
{
    MN_ASSERT_OR(pg(s)->in_tx, MN_EINTERNAL);
    if (!model || dim < 1 || dim > 8192)
        return mn_error_set(MN_EINVAL, "term vector of dimension %zu is not valid", dim);
    int rc = writes_for(s, true, model, dim);
    if (rc)
        return rc;
    mn_pg_writes *w = pg(s)->writes;
    mn_vec_push(&w->terms, mn_strndup(term, len));
    mn_vec_push(&w->idfs, idf);
    mn_vec_push(&w->scales, scale);
    mn_buf_put(&w->data, q, dim);
    return w->terms.len >= WRITES_ROWS || w->data.len >= WRITES_BYTES ? mn_pg__writes_flush(s) : 0;
}

char *mn_pg__text_array(const char *const *terms, size_t n)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++) {
        if (i)
            mn_buf_putc(&b, ',');
        mn_buf_putc(&b, '"');
        for (const char *c = terms[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                mn_buf_putc(&b, '\\');
            mn_buf_putc(&b, *c);
        }
        mn_buf_putc(&b, '"');
    }
    mn_buf_putc(&b, '}');
    return mn_buf_detach(&b);
}

/* cb for row i of r (columns idf, scale, vec from `first`); `which` the caller's index. */
static int term_row(mn_store *s, const PGresult *r, int i, int first, size_t which,
                    int (*cb)(void *payload, size_t which, double idf, const int8_t *q, size_t qlen,
                              float scale),
                    void *payload)
{
    size_t len = 0;
    unsigned char *q = mn_pg__unhex(mn_pg__col(s, r, i, first + 2), &len);
    int rc = cb(payload, which, col_real(s, r, i, first), (const int8_t *)(q ? q : (void *)""),
                q ? len : 0, (float)col_real(s, r, i, first + 1));
    free(q);
    return rc;
}

int mn_pg__embed_terms_get(mn_store *s, const char *model, const char *const *terms, size_t n,
                           int (*cb)(void *payload, size_t which, double idf, const int8_t *q,
                                     size_t qlen, float scale),
                           void *payload)
{
    if (n == 0)
        return 0;
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    mn_pg__take(&p, mn_pg__text_array(terms, n));
    /* one round trip for the query's terms, reported in the caller's order */
    PGresult *r = mn_pg__run(s,
                             "SELECT u.i, e.idf, e.scale, e.vec FROM unnest($2::text[]) WITH "
                             "ORDINALITY AS u(t, i) JOIN embed_terms e ON e.model = $1 AND e.term "
                             "= u.t ORDER BY u.i",
                             &p, "cannot read term vectors");
    if (!r)
        return mn_error_last_code();
    int rc = 0, rows = pg(s)->pq->ntuples(r);
    for (int i = 0; i < rows && rc == 0; i++)
        rc = term_row(s, r, i, 1, (size_t)(mn_pg__col_int(s, r, i, 0) - 1), cb, payload);
    pg(s)->pq->clear(r);
    return rc;
}

int mn_pg__embed_terms_each(mn_store *s, const char *model,
                            int (*cb)(void *payload, const char *term, size_t len, double idf,
                                      const int8_t *q, size_t qlen, float scale),
                            void *payload)
{
    mn_pg_params p = {0};
    mn_pg__text(&p, model);
    PGresult *r = mn_pg__run(s, "SELECT term, idf, scale, vec FROM embed_terms WHERE model = $1",
                             &p, "cannot read term vectors");
    if (!r)
        return mn_error_last_code();
    int rc = 0, rows = pg(s)->pq->ntuples(r);
    for (int i = 0; i < rows && rc == 0; i++) {
        const char *term = mn_pg__col(s, r, i, 0);
        size_t len = 0;
        unsigned char *q = mn_pg__unhex(mn_pg__col(s, r, i, 3), &len);
        rc = cb(payload, term, strlen(term), col_real(s, r, i, 1),
                (const int8_t *)(q ? q : (void *)""), q ? len : 0, (float)col_real(s, r, i, 2));
        free(q);
    }
    pg(s)->pq->clear(r);
    return rc;
}
