/*
 * semantic_signal.c - the semantic signal of a search: the memories and
 * chunks whose stored vectors are nearest the query's (semantic.h), merged
 * into the candidates the lexical signal found.
 *
 * The query is embedded once, when the search starts, and the vectors are
 * scanned on a thread of their own while the full-text candidates are
 * found (semantic.h: mn_semantic_topk_start); the rows are merged when the
 * search reaches this signal. Each owner kind asked for gets its top
 * `limit` rows by cosine. A memory the lexical search did not find is
 * fetched through the request's filters (status, kind, level, tags, paths:
 * semantic hits come back whatever their status) and joins the candidates
 * with bm25 0; a chunk likewise, with its file. A file's semantic evidence
 * is the best cosine among its chunks. When the embedder cannot embed the
 * query (an HTTP server down), the search goes on without the signal and
 * the answer's notes say why.
 */
#include "common.h"
#include <inttypes.h>

#include "retrieve/embed.h"
#include "retrieve/retrieve_internal.h"
#include "retrieve/semantic.h"

typedef struct {
    int64_t id;
    double score;
} near_row;

typedef MN_VEC(near_row) near_vec;

static int on_near(void *payload, int64_t owner_id, double score)
{
    near_row r = {owner_id, score};
    mn_vec_push((near_vec *)payload, r);
    return 0;
}

static double score_of(const near_vec *v, int64_t id)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i].id == id)
            return v->items[i].score;
    return 0;
}

static int on_memory_row(void *payload, const mn_memory_hit *h)
{
    mn_search_ctx *c = ((void **)payload)[0];
    const near_vec *near = ((void **)payload)[1];
    mn_search_memory(c, h)->semantic = score_of(near, h->rowid);
    return 0;
}

static int memories(mn_search_ctx *c, size_t part)
{
    near_vec near = MN_VEC_INIT;
    MN_VEC(int64_t) missing = MN_VEC_INIT;
    int rc = mn_semantic_topk_finish(c->sem, part, on_near, &near);
    for (size_t i = 0; rc == 0 && i < near.len; i++) {
        bool found = false;
        for (size_t j = 0; j < c->memories.len && !found; j++) {
            if (c->memories.items[j].rowid == near.items[i].id) {
                c->memories.items[j].semantic = near.items[i].score;
                found = true;
            }
        }
        if (!found)
            mn_vec_push(&missing, near.items[i].id);
    }
    if (rc == 0 && missing.len) {
        mn_memory_query q = c->req->filter;
        q.match = NULL;
        void *payload[2] = {c, &near};
        rc = mn_store_memories_by_rowid(c->store, &q, missing.items, missing.len, on_memory_row,
                                        payload);
    }
    mn_vec_release(&near);
    mn_vec_release(&missing);
    return rc;
}

static int on_chunk_row(void *payload, const mn_chunk_hit *h)
{
    mn_search_ctx *c = ((void **)payload)[0];
    const near_vec *near = ((void **)payload)[1];
    mn_chunk_cand k = {0};
    k.id = h->id;
    k.file_id = h->file_id;
    k.symbol_id = h->symbol_id;
    k.start_line = h->start_line;
    k.end_line = h->end_line;
    k.path = h->path ? mn_arena_strdup(c->arena, h->path) : NULL;
    k.role = h->role ? mn_arena_strdup(c->arena, h->role) : NULL;
    k.symbol = h->symbol ? mn_arena_strdup(c->arena, h->symbol) : NULL;
    k.qualified_name = h->qualified_name ? mn_arena_strdup(c->arena, h->qualified_name) : NULL;
    k.symbol_kind = h->symbol_kind ? mn_arena_strdup(c->arena, h->symbol_kind) : NULL;
    k.semantic = score_of(near, h->id);
    mn_vec_push(&c->chunks, k);
    mn_file_cand *f = mn_search_file(c, h->file_id, h->path, h->role);
    if (k.semantic > f->semantic) {
        f->semantic = k.semantic;
        if (f->best_chunk == 0)
            f->best_chunk = h->id;
    }
    return 0;
}

static int chunks(mn_search_ctx *c, size_t part)
{
    near_vec near = MN_VEC_INIT;
    MN_VEC(int64_t) missing = MN_VEC_INIT;
    int rc = mn_semantic_topk_finish(c->sem, part, on_near, &near);
    for (size_t i = 0; rc == 0 && i < near.len; i++) {
        bool found = false;
        for (size_t j = 0; j < c->chunks.len && !found; j++) {
            mn_chunk_cand *k = &c->chunks.items[j];
            if (k->id == near.items[i].id) {
                k->semantic = near.items[i].score;
                mn_file_cand *f = mn_search_file(c, k->file_id, k->path, k->role);
                if (k->semantic > f->semantic)
                    f->semantic = k->semantic;
                found = true;
            }
        }
        if (!found)
            mn_vec_push(&missing, near.items[i].id);
    }
    if (rc == 0 && missing.len) {
        void *payload[2] = {c, &near};
        rc = mn_store_chunks_by_id(c->store, missing.items, missing.len, on_chunk_row, payload);
    }
    mn_vec_release(&near);
    mn_vec_release(&missing);
    return rc;
}

int mn_semantic_start(mn_search_ctx *c, unsigned kinds, size_t limit)
{
    mn_embedder *e = c->req->embedder;
    const char *owners[2];
    size_t n = 0;
    if (!e)
        return 0;
    if (mn_semantic_query_init(&c->sq, e, c->req->query) != 0) {
        /* the search goes on with the other signals, and says so */
        mn_buf note = MN_BUF_INIT;
        mn_buf_printf(&note, "semantic search unavailable: %s", mn_error_last());
        c->semantic_note = mn_arena_strndup(c->arena, note.ptr, note.len);
        mn_buf_release(&note);
        mn_error_clear();
        return 0;
    }
    if (c->sq.scale <= 0)
        return 0; /* nothing in the query the model knows */
    if (kinds & MN_SEARCH_MEMORY)
        owners[n++] = "memory";
    if (kinds & (MN_SEARCH_CODE | MN_SEARCH_FILE))
        owners[n++] = "chunk";
    return mn_semantic_topk_start(c->store, &c->sq, owners, n, limit, &c->sem);
}

int mn_semantic_candidates(mn_search_ctx *c, unsigned kinds)
{
    int rc = 0;
    size_t part = 0;
    if (!c->sem)
        return 0;
    if (kinds & MN_SEARCH_MEMORY)
        rc = memories(c, part++);
    if (rc == 0 && (kinds & (MN_SEARCH_CODE | MN_SEARCH_FILE)))
        rc = chunks(c, part);
    return rc;
}

void mn_semantic_end(mn_search_ctx *c)
{
    mn_semantic_job_free(c->sem);
    c->sem = NULL;
    mn_semantic_query_release(&c->sq);
}
