/*
 * op_search.c - the search operation: JSON in, the retrieval engine
 * (src/retrieve/), JSON out; what search serves is recorded so that
 * feedback (op_feedback.c) can name it.
 *
 * The semantic signal uses the configured embedder (embed.* keys) over the
 * vectors already stored: search neither trains the built-in model nor
 * embeds what has no vector yet (indexing and saving keep them in step), so
 * a search costs at most one query embedding. Without an embedder, or
 * when it fails, the answer says so in its notes.
 *
 * search records each answer in the served table (op, query, the items
 * with their scores and signals) and counts a hit on every memory it
 * returns, in one log transaction after the read (mn_store_begin_log: on
 * PostgreSQL it takes no project lock, so a read never queues behind the
 * project's writers, the model's trainer among them); the answer's id comes
 * back as `served`. Recording is best effort (mn_api__record_served, which
 * context and recall use too): a store that cannot be written (read-only,
 * a full disk) still answers, with a note saying nothing was recorded and
 * why. Served rows are kept as config served.max_age and served.max_rows
 * say, pruned in the transaction that adds one.
 *
 * feedback takes item ids and a signal. With `served`, the items must be
 * in that answer (their type comes from it); without, the type is read
 * from the id: chunk:<n> is code, a memory id (or a unique prefix of one)
 * a memory, anything else a file path. Memories' counters move (used,
 * ignored; refined moves neither: the query was at fault, not the item),
 * and one feedback row per item is written, all in one transaction.
 */
#include "common.h"
#include <inttypes.h>

#include "api/api_internal.h"
#include "remote/remote.h"
#include "retrieve/branch.h"
#include "retrieve/embed.h"
#include "retrieve/retrieve.h"

int mn_op_search(mn_ctx *ctx, const json_t *args, json_t **out);
/* config.c (the embed.* keys) */

static const char *const type_names[] = {"memory", "code", "file"};

/* Copy the filters of the input into the request (the strings stay in args). */
static void read_filters(mn_search_request *r, const json_t *args)
{
    const json_t *f = json_object_get(args, "filters");
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(f, "kind"), i,
                       v) if (r->filter.nkinds < MN_SEARCH_MAX_FILTER)
        r->filter.kinds[r->filter.nkinds++] = json_string_value(v);
    json_array_foreach(json_object_get(f, "level"), i, v)
    {
        int level = -1;
        if (json_is_integer(v))
            level = (int)json_integer_value(v);
        else if (json_is_string(v)) {
            const char *s = json_string_value(v);
            level = s[0] == 'L' ? s[1] - '0' : s[0] - '0';
        }
        bool seen = false;
        for (size_t j = 0; j < r->filter.nlevels; j++)
            seen = seen || r->filter.levels[j] == level;
        if (level >= 0 && level <= 3 && !seen && r->filter.nlevels < 4)
            r->filter.levels[r->filter.nlevels++] = level;
    }
    json_array_foreach(json_object_get(f, "tags"), i, v) if (r->filter.ntags < MN_SEARCH_MAX_FILTER)
        r->filter.tags[r->filter.ntags++] = json_string_value(v);
    json_array_foreach(json_object_get(f, "paths"), i,
                       v) if (r->filter.npaths < MN_SEARCH_MAX_FILTER)
        r->filter.paths[r->filter.npaths++] = json_string_value(v);
    r->filter.paths_keep_l0 = true;
    json_array_foreach(json_object_get(f, "status"), i,
                       v) if (r->filter.nstatuses < MN_SEARCH_MAX_FILTER)
        r->filter.statuses[r->filter.nstatuses++] = json_string_value(v);
    r->status_given = r->filter.nstatuses > 0;
}

static json_t *signals_json(const mn_signals *s)
{
    json_t *o = json_object();
    struct {
        unsigned bit;
        const char *name;
        double v;
    } all[] = {
        {MN_SIG_LEXICAL, "lexical", s->lexical},
        {MN_SIG_SEMANTIC, "semantic", s->semantic},
        {MN_SIG_GRAPH, "graph", s->graph},
        {MN_SIG_RECENCY, "recency", s->recency},
        {MN_SIG_USEFULNESS, "usefulness", s->usefulness},
        {MN_SIG_SCOPE, "scope", s->scope},
        {MN_SIG_LEVEL, "level", s->level},
        {MN_SIG_CONVERSATION, "conversation", s->conversation},
        {MN_SIG_SPEAKER, "speaker", s->speaker},
        {MN_SIG_WHEN, "when", s->when},
        {MN_SIG_HISTORY, "history", s->history},
        {MN_SIG_NAMES, "names", s->names},
        {MN_SIG_FILE, "named_path", s->named_path},
        {MN_SIG_FILE, "title", s->title},
        {MN_SIG_FILE, "path_words", s->path_words},
        {MN_SIG_FILE, "share", s->share},
        {MN_SIG_FILE, "fault", s->fault},
        {MN_SIG_FILE, "message", s->message},
        {MN_SIG_FILE, "graph_gap", s->graph_gap},
        {MN_SIG_FILE, "role", s->role},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++)
        if (s->has & all[i].bit)
            json_object_set_new(o, all[i].name, json_real(all[i].v));
    return o;
}

static json_t *item_json(const mn_search_item *it)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(type_names[it->type]));
    json_object_set_new(o, "id", json_string(it->id));
    json_object_set_new(o, "title", json_string(it->title ? it->title : ""));
    if (it->kind)
        json_object_set_new(o, "kind", json_string(it->kind));
    if (it->type == MN_ITEM_MEMORY)
        json_object_set_new(o, "level", json_integer(it->level));
    if (it->path)
        json_object_set_new(o, "path", json_string(it->path));
    if (it->type == MN_ITEM_CODE) {
        json_object_set_new(o, "start_line", json_integer(it->start_line));
        json_object_set_new(o, "end_line", json_integer(it->end_line));
    }
    json_object_set_new(o, "score", json_real(it->score));
    json_object_set_new(o, "signals", signals_json(&it->sig));
    /* a snippet cut inside a UTF-8 sequence by FTS5 would make json_string fail */
    json_t *snip = json_string(it->snippet ? it->snippet : "");
    json_object_set_new(o, "snippet", snip ? snip : json_string(""));
    if (it->status)
        json_object_set_new(o, "status", json_string(it->status));
    return o;
}

/*
 * The audit row of an answer: who read, with which op, the answer's served
 * id and the ids of what it served - never the question (served keeps it,
 * scrubbed) nor any text of the items. Read rows are pruned with the limits
 * of served (audit_store.c), in this same transaction.
 */
static int audit_read(mn_ctx *ctx, const char *op, int64_t served, const json_t *items, int64_t now,
                      int64_t max_age, int64_t max_rows)
{
    json_t *ids = json_array();
    size_t i;
    const json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *iid = json_string_value(json_object_get(it, "id"));
        if (iid)
            json_array_append_new(ids, json_string(iid));
    }
    json_t *detail = json_pack("{s:I,s:o}", "served", (json_int_t)served, "ids", ids);
    int rc = mn_store_audit(ctx->store, ctx->actor, op, NULL, detail);
    json_decref(detail);
    if (rc == 0)
        rc = mn_store_audit_prune_reads(ctx->store, now, max_age, max_rows, served);
    return rc;
}

void mn_api__record_served(mn_ctx *ctx, const char *op, const char *query, const json_t *items,
                           const int64_t *rows, size_t nrows, int64_t *id, json_t *notes)
{
    int64_t max_age = 0, max_rows = 0, now = mn_time_now_ms();
    const char *ro = mn_store_read_only_reason(ctx->store);
    int rc;
    *id = 0;
    if (ro) {
        json_array_append_new(notes, json_pack("s++", "this answer was not recorded (", ro,
                                               "): feedback cannot name it"));
        return;
    }
    /* the question is kept only as the answers are given: without its secrets (an agent
     * pasting a token into a question) */
    const mn_scanner *sc = NULL;
    mn_buf clean = MN_BUF_INIT;
    if (query && (rc = mn_api__scanner(ctx, &sc)) == 0)
        rc = mn_scan_redact(&clean, sc, query, strlen(query), ctx->redact_out, NULL);
    else
        rc = 0;
    if (rc == 0 && (rc = mn_api__served_limits(ctx, &max_age, &max_rows)) == 0 &&
        (rc = mn_store_begin_log(ctx->store)) == 0) {
        rc = mn_store_served_add(ctx->store, id, op, query ? clean.ptr : NULL, items);
        if (rc == 0 && nrows)
            rc = mn_store_memories_touch(ctx->store, rows, nrows, now);
        if (rc == 0)
            rc = mn_store_served_prune(ctx->store, now, max_age, max_rows, *id);
        if (rc == 0)
            rc = audit_read(ctx, op, *id, items, now, max_age, max_rows);
        if (rc)
            mn_store_rollback(ctx->store);
        else
            rc = mn_store_commit(ctx->store);
    }
    mn_buf_release(&clean);
    if (rc) {
        /* the answer was read; only its record is lost (a full disk, a lock held too long) */
        *id = 0;
        json_array_append_new(notes, json_pack("s++", "this answer was not recorded (",
                                               mn_error_last(), "): feedback cannot name it"));
        mn_error_clear();
    }
}

/* The answer's items as the served table keeps them; the memories' row ids into rows. */
static json_t *served_items(const mn_search_result *res, int64_t *rows, size_t *nrows)
{
    json_t *items = json_array();
    *nrows = 0;
    for (size_t i = 0; i < res->n; i++) {
        const mn_search_item *it = &res->items[i];
        json_array_append_new(items, json_pack("{s:s,s:s,s:f,s:o}", "kind", type_names[it->type],
                                               "id", it->id, "score", it->score, "signals",
                                               signals_json(&it->sig)));
        if (it->type == MN_ITEM_MEMORY)
            rows[(*nrows)++] = it->rowid;
    }
    return items;
}

/*
 * The team's remotes (remote/remote.h), when memories are asked: up to k memories of each,
 * after the local items and in their server's order (scores of two stores do not compare),
 * with the same filters. Each is marked with its remote's name and is not in the served
 * record: feedback on it belongs to its server. A remote that fails is a note.
 */
static void add_remotes(mn_ctx *ctx, const json_t *args, size_t k, json_t *out)
{
    json_t *notes = json_array();
    mn_remote_answer remote;
    mn_remote_query q = {json_string_value(json_object_get(args, "query")),
                         json_object_get(args, "filters"),
                         json_object_get(args, "as_of"),
                         k,
                         0,
                         NULL};
    if (mn_remote_gather(&remote, ctx, &q, notes) != 0) {
        json_array_append_new(
            notes, json_pack("s+", "the team's remotes were not asked: ", mn_error_last()));
        mn_error_clear();
    }
    size_t i;
    json_t *it;
    json_array_foreach(remote.items, i, it)
    {
        json_object_set_new(it, "signals", json_object());
        json_array_append(json_object_get(out, "items"), it);
    }
    if (json_array_size(notes)) {
        if (!json_object_get(out, "notes"))
            json_object_set_new(out, "notes", json_array());
        json_array_extend(json_object_get(out, "notes"), notes);
    }
    json_decref(notes);
    mn_remote_answer_release(&remote);
}

int mn_op_search(mn_ctx *ctx, const json_t *args, json_t **out)
{
    int rc = mn_api__search(ctx, "search", args, out);
    const json_t *kinds = json_object_get(args, "kinds");
    size_t i;
    const json_t *k;
    bool memories = !json_array_size(kinds);
    json_array_foreach(kinds, i, k) memories = memories || !strcmp(json_string_value(k), "memory");
    if (rc == 0 && memories) {
        const json_t *given = json_object_get(args, "k");
        add_remotes(ctx, args, given ? (size_t)json_integer_value(given) : 10, *out);
    }
    return rc;
}

int mn_api__search(mn_ctx *ctx, const char *op, const json_t *args, json_t **out)
{
    mn_search_request r = {0};
    mn_search_result res;
    char *semantic_note = NULL;
    const char *files[64];
    size_t i;
    json_t *v;
    r.query = json_string_value(json_object_get(args, "query"));
    json_array_foreach(json_object_get(args, "kinds"), i, v)
    {
        const char *k = json_string_value(v);
        r.kinds |= strcmp(k, "memory") == 0 ? MN_SEARCH_MEMORY
                   : strcmp(k, "code") == 0 ? MN_SEARCH_CODE
                                            : MN_SEARCH_FILE;
    }
    json_t *k = json_object_get(args, "k");
    r.k = k ? (size_t)json_integer_value(k) : 10;
    read_filters(&r, args);
    /* what expired is not served; citations the index marked are checked first */
    int rc = mn_api__expiry(ctx, &r.filter.expiry);
    if (rc)
        return rc;
    mn_api__citations_current(ctx);
    json_array_foreach(json_object_get(args, "files"), i, v) if (r.nfiles < MN_ARRAY_SIZE(files))
        files[r.nfiles++] = json_string_value(v);
    r.files = files;
    rc = mn_api__as_of(args, &r.now_ms);
    if (rc)
        return rc;
    mn_embedder *e = NULL;
    rc = mn_api__embedder(ctx, true, &e, &semantic_note);
    r.semantic_note = semantic_note;
    r.embedder = e;
    /* branches: memories of another branch, not merged, are left out (or marked) */
    r.branch = mn_branch_view_new(ctx->root, json_is_true(json_object_get(args, "all_branches")));
    if (rc == 0)
        rc = mn_search_run(ctx->store, &r, &res);
    mn_branch_view_free(r.branch, ctx->store);
    mn_embedder_free(e);
    if (rc) {
        free(semantic_note);
        return rc;
    }
    json_t *items = json_array();
    for (i = 0; i < res.n; i++)
        json_array_append_new(items, item_json(&res.items[i]));
    *out = json_pack("{s:o,s:I}", "items", items, "total", (json_int_t)res.total);
    json_t *notes = json_array();
    for (i = 0; i < res.nnotes; i++)
        json_array_append_new(notes, json_string(res.notes[i]));
    int64_t served = 0, *rows = mn_malloc((res.n ? res.n : 1) * sizeof(int64_t));
    size_t nrows;
    json_t *record = served_items(&res, rows, &nrows);
    mn_api__record_served(ctx, op, r.query, record, rows, nrows, &served, notes);
    json_decref(record);
    free(rows);
    if (served)
        json_object_set_new(*out, "served", json_integer(served));
    if (json_array_size(notes))
        json_object_set_new(*out, "notes", notes);
    else
        json_decref(notes);
    mn_search_result_release(&res);
    free(semantic_note);
    return 0;
}
