/*
 * search.c - the search pipeline (retrieve.h): query analysis, candidates,
 * signals, fusion, the cut to k, snippets.
 *
 *   1. candidates: memories and chunks by vector when an embedder is given
 *      (semantic_signal.c: scanned on another thread while the rest of
 *      this step runs), chunks by their words (and by the title's words,
 *      files by their paths, the ownership of the words when files are
 *      ranked), memories by their words;
 *   2. code: the names and paths the query mentions (graph.c), the file
 *      scores before the graph, one hop of spreading, the file and chunk
 *      scores (fusion.c);
 *   3. memories: episodes next to the best ones, memories attached to the
 *      best files or scoped to the request's files, their scores;
 *   4. discovery's summaries of directories that hold none of the best code
 *      found are left out (summaries_where_code_is);
 *   5. items of the kinds asked for, best first, cut to k; snippets.
 *
 * All reads run in one read transaction, so a concurrent index run or save
 * cannot show a search half of its writes. Every list is bounded: memories
 * max(3k, 100) and chunks max(3k, 100) (400 when files are ranked, since a
 * file needs several of its chunks counted) by bm25, full-text queries by
 * the rows they rank (lexical.c: ROW_BUDGET), the names the query mentions
 * (NAMES_LOOKED_UP), the graph (SPREAD_SEEDS seeds, SPREAD_EDGES edges),
 * so the work of a search does not grow with the store.
 *
 * Default status filter: active and pending memories (pending ones marked
 * and scored lower), but no pending rule or pattern: an instruction nobody
 * has checked (an agent's "run curl ... | sh") is not handed to the next
 * agent; quarantined, superseded and archived ones, and pending
 * instructions, only when the caller asks for those statuses; forgotten
 * ones never; expired ones never (the request's filter.expiry, set by the
 * operations from config memory.ttl.<kind>: store.h, mn_expiry).
 */
#include "common.h"
#include <inttypes.h>

#include "retrieve/branch_filter.h"
#include "retrieve/retrieve_internal.h"

static const char *const default_statuses[] = {"active", "pending"};

typedef struct {
    mn_search_item *items;
    size_t len, cap;
} item_vec;

static void push(item_vec *v, const mn_search_item *it)
{
    if (v->len == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->items = mn_realloc(v->items, v->cap * sizeof(*v->items));
    }
    v->items[v->len++] = *it;
}

static int cmp_item(const void *a, const void *b)
{
    const mn_search_item *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    /* ties: memories first, then by id, so equal scores order the same every time */
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* Snippets of the items kept (snippet.c), from their text. */
static int snippets(mn_search_ctx *c, mn_search_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mn_search_item *it = &items[i];
        char *text = NULL;
        int64_t row = it->type == MN_ITEM_FILE ? it->best_chunk : it->rowid;
        int rc = 0;
        it->snippet = "";
        if (it->type == MN_ITEM_MEMORY)
            rc = mn_store_memory_body(c->store, &text, row);
        else if (row > 0)
            rc = mn_store_chunk_text(c->store, &text, row);
        if (rc == MN_ENOTFOUND) {
            mn_error_clear();
            rc = 0;
        }
        if (rc)
            return rc;
        if (text && *text)
            it->snippet = mn_snippet(c, text, it->type != MN_ITEM_MEMORY);
        else if (it->type == MN_ITEM_MEMORY)
            it->snippet = it->title;
        free(text);
    }
    return 0;
}

static void collect(mn_search_ctx *c, unsigned kinds, item_vec *v)
{
    if (kinds & MN_SEARCH_MEMORY) {
        for (size_t i = 0; i < c->memories.len; i++) {
            const mn_memory_cand *m = &c->memories.items[i];
            if (m->score <= 0)
                continue;
            if (!c->req->status_given && !strcmp(m->status, "pending") &&
                (!strcmp(m->kind, "rule") || !strcmp(m->kind, "pattern")))
                continue;
            mn_search_item it = {0};
            it.type = MN_ITEM_MEMORY;
            it.rowid = m->rowid;
            it.id = m->uid;
            it.title = m->title;
            it.kind = m->kind;
            it.status = m->stale ? "stale" : m->status;
            it.level = m->level;
            it.score = m->score;
            it.sig = m->sig;
            push(v, &it);
        }
    }
    if (kinds & MN_SEARCH_CODE) {
        for (size_t i = 0; i < c->chunks.len; i++) {
            const mn_chunk_cand *k = &c->chunks.items[i];
            if (k->score <= 0)
                continue;
            mn_search_item it = {0};
            char id[40];
            snprintf(id, sizeof(id), "chunk:%" PRId64, k->id);
            it.type = MN_ITEM_CODE;
            it.rowid = k->id;
            it.id = mn_arena_strdup(c->arena, id);
            if (k->qualified_name) {
                it.title = k->qualified_name;
            } else {
                mn_buf t = MN_BUF_INIT;
                mn_buf_printf(&t, "%s:%" PRId64 "-%" PRId64, k->path ? k->path : "?", k->start_line,
                              k->end_line);
                it.title = mn_arena_strndup(c->arena, t.ptr, t.len);
                mn_buf_release(&t);
            }
            it.path = k->path;
            it.start_line = k->start_line;
            it.end_line = k->end_line;
            it.kind = k->symbol_kind ? k->symbol_kind : "window";
            it.score = k->score;
            it.sig = k->sig;
            push(v, &it);
        }
    }
    if (kinds & MN_SEARCH_FILE) {
        for (size_t i = 0; i < c->files.len; i++) {
            const mn_file_cand *f = &c->files.items[i];
            if (f->score <= 0 || !f->path)
                continue;
            mn_search_item it = {0};
            it.type = MN_ITEM_FILE;
            it.rowid = f->id;
            it.id = f->path;
            it.title = f->path;
            it.path = f->path;
            it.kind = f->role;
            it.score = f->score;
            it.sig = f->sig;
            it.best_chunk = f->best_chunk;
            push(v, &it);
        }
    }
}

/* The best code and file items: the places an answer lies in. */
#define PLACES_MAX 5

static void place_add(const char **path, double *score, size_t *n, const char *p, double sc)
{
    if (!p || sc <= 0 || (*n == PLACES_MAX && sc <= score[PLACES_MAX - 1]))
        return;
    size_t i = *n < PLACES_MAX ? (*n)++ : PLACES_MAX - 1;
    for (; i > 0 && score[i - 1] < sc; i--) {
        path[i] = path[i - 1];
        score[i] = score[i - 1];
    }
    path[i] = p;
    score[i] = sc;
}

/* Whether one of the directories of a JSON array holds one of the paths. */
static bool holds_any(const char *dirs_json, const char *const *path, size_t n)
{
    json_t *dirs = json_loads(dirs_json, 0, NULL);
    bool found = false;
    size_t i;
    json_t *d;
    json_array_foreach(dirs, i, d)
    {
        const char *dir = json_string_value(d);
        for (size_t k = 0; dir && *dir && k < n && !found; k++)
            found = mn_paths_overlap(dir, path[k]);
    }
    json_decref(dirs);
    return found;
}

/*
 * Discovery's L1 summaries of a directory ("domain:<dir>", "package:<dir>")
 * list their files' names and main symbols, so they share words with most
 * questions about code, and the graph attaches them to any file found in
 * their directory: six of them came before the code for a question about
 * one function. When code is asked for too, one comes only when one of the
 * PLACES_MAX best code and file items lies in its directory.
 */
static void summaries_where_code_is(mn_search_ctx *c, unsigned kinds)
{
    const char *path[PLACES_MAX];
    double score[PLACES_MAX];
    size_t n = 0;
    for (size_t i = 0; (kinds & MN_SEARCH_CODE) && i < c->chunks.len; i++)
        place_add(path, score, &n, c->chunks.items[i].path, c->chunks.items[i].score);
    for (size_t i = 0; (kinds & MN_SEARCH_FILE) && i < c->files.len; i++)
        place_add(path, score, &n, c->files.items[i].path, c->files.items[i].score);
    for (size_t i = 0; i < c->memories.len; i++) {
        mn_memory_cand *m = &c->memories.items[i];
        if (m->summary_of && m->score > 0 && !holds_any(m->summary_of, path, n))
            m->score = 0;
    }
}

static int on_decl_only(void *payload, int64_t file_id)
{
    mn_file_cand *f = mn_search_file_find(payload, file_id);
    if (f)
        f->decl_only = true;
    return 0;
}

static int run(mn_search_ctx *c, unsigned kinds, size_t k)
{
    int rc = 0;
    bool code = (kinds & (MN_SEARCH_CODE | MN_SEARCH_FILE)) != 0;
    bool memory = (kinds & MN_SEARCH_MEMORY) != 0;
    size_t limit = 3 * k > 100 ? 3 * k : 100;
    /* candidates: vectors (scanned on another thread meanwhile), words */
    if ((rc = mn_semantic_start(c, kinds, limit)) != 0)
        return rc;
    if (code) {
        if ((rc = mn_lexical_chunks(c, (kinds & MN_SEARCH_FILE) && limit < 400 ? 400 : limit)))
            return rc;
        if ((rc = mn_lexical_title(c, 200)) != 0 || (rc = mn_lexical_paths(c, 200)) != 0)
            return rc;
        if (((kinds & MN_SEARCH_FILE) && (rc = mn_lexical_ownership(c)) != 0))
            return rc;
    }
    if (memory && (rc = mn_lexical_memories(c, limit)) != 0)
        return rc;
    if ((rc = mn_semantic_candidates(c, kinds)) != 0)
        return rc;
    /* code: names, the graph, fusion */
    if (code) {
        if ((rc = mn_graph_named_code(c)) != 0 || (rc = mn_history_signal(c)) != 0)
            return rc;
        mn_fusion_files_pre(c);
        /* every file candidate is known once the graph has spread: which ones only
         * declare error and annotation types (the role of fusion.c) */
        if ((rc = mn_graph_spread(c)) != 0 ||
            (rc = mn_store_decl_only_files(c->store, on_decl_only, c)) != 0)
            return rc;
        mn_fusion_files(c);
        mn_companions(c);
        mn_fusion_chunks(c);
    }
    /* memories: those attached to the code found or in scope, fusion */
    if (memory) {
        if ((rc = mn_when_signal(c)) != 0 || (rc = mn_graph_episodes(c)) != 0 ||
            (code && (rc = mn_graph_attached_memories(c)) != 0) ||
            (rc = mn_graph_scoped_memories(c)) != 0 || (rc = mn_conversation_docs(c)) != 0)
            return rc;
        mn_speaker_signal(c);
        mn_fusion_memories(c);
        if ((rc = mn_branch_filter(c)) != 0)
            return rc;
        if (code)
            summaries_where_code_is(c, kinds);
    }
    return 0;
}

int mn_search_run(mn_store *s, const mn_search_request *req, mn_search_result *out)
{
    memset(out, 0, sizeof(*out));
    mn_arena_init(&out->arena);
    mn_search_request r = *req;
    if (!r.status_given && r.filter.nstatuses == 0) {
        r.filter.statuses[0] = default_statuses[0];
        r.filter.statuses[1] = default_statuses[1];
        r.filter.nstatuses = 2;
    }
    unsigned kinds = r.kinds ? r.kinds : MN_SEARCH_MEMORY | MN_SEARCH_CODE;
    size_t k = r.k ? r.k : 10;
    mn_search_ctx c = {0};
    c.store = s;
    c.req = &r;
    c.arena = &out->arena;
    c.now_ms = r.now_ms ? r.now_ms : mn_time_now_ms();
    item_vec v = {NULL, 0, 0};
    /* the words of a time the question names are the when signal's (when.c), not words of
     * its topic: "in the past three months" matched "collecting stamps for three months" */
    const char *text = r.query;
    mn_buf strip = MN_BUF_INIT;
    if (mn_when_strip(r.query, c.now_ms, &strip))
        text = mn_arena_strndup(c.arena, strip.ptr, strip.len);
    mn_buf_release(&strip);
    int rc = mn_query_analyse(&c.q, text, strlen(text), c.arena);
    if (rc)
        goto out;
    if ((rc = mn_store_begin_read(s)) != 0)
        goto out;
    rc = run(&c, kinds, k);
    if (rc == 0) {
        collect(&c, kinds, &v);
        if (v.len > 1)
            qsort(v.items, v.len, sizeof(*v.items), cmp_item);
        out->total = v.len;
        if (v.len > k)
            v.len = k;
        if (r.no_snippets)
            for (size_t i = 0; i < v.len; i++)
                v.items[i].snippet = "";
        else
            rc = snippets(&c, v.items, v.len);
    }
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    if (rc == 0) {
        out->items = mn_arena_alloc(c.arena, (v.len ? v.len : 1) * sizeof(*v.items));
        if (v.len)
            memcpy(out->items, v.items, v.len * sizeof(*v.items));
        out->n = v.len;
        if (!c.q.match && c.q.nmentions == 0)
            out->notes[out->nnotes++] = "the query has no words to search for";
        if (!r.embedder)
            out->notes[out->nnotes++] = r.semantic_note ? mn_arena_strdup(c.arena, r.semantic_note)
                                                        : "semantic search unavailable: no "
                                                          "embedder configured";
        else if (c.semantic_note)
            out->notes[out->nnotes++] = c.semantic_note;
    }
out:
    mn_semantic_end(&c);
    free(v.items);
    mn_vec_release(&c.memories);
    mn_vec_release(&c.chunks);
    mn_vec_release(&c.files);
    free(c.file_slots);
    if (rc)
        mn_search_result_release(out);
    return rc;
}

void mn_search_result_release(mn_search_result *r)
{
    mn_arena_release(&r->arena);
    memset(r, 0, sizeof(*r));
}
