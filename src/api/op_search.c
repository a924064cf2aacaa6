/*
 * op_search.c - the search and feedback operations: JSON in, the retrieval
 * engine (src/retrieve/), JSON out; what search serves is recorded so that
 * feedback can name it.
 *
 * The semantic signal uses the configured embedder (embed.* keys) over the
 * vectors already stored: search neither trains the built-in model nor
 * embeds what has no vector yet (indexing and saving keep them in step), so
 * a search costs at most one query embedding. Without an embedder, or
 * when it fails, the answer says so in its notes.
 *
 * search records each answer in the served table (op, query, the items
 * with their scores and signals) and counts a hit on every memory it
 * returns, in one write transaction after the read; the answer's id comes
 * back as `served`. A read-only store serves without recording.
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
#include "retrieve/branch.h"
#include "retrieve/embed.h"
#include "retrieve/retrieve.h"

int mn_op_search(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_feedback(mn_ctx *ctx, const json_t *args, json_t **out);
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

/* Record the answer and count the memories' hits; *served its id (0: not recorded). */
static int record(mn_ctx *ctx, const mn_search_result *res, const char *query, int64_t *served)
{
    *served = 0;
    json_t *items = json_array();
    int64_t *rows = mn_malloc((res->n ? res->n : 1) * sizeof(int64_t));
    size_t nrows = 0;
    for (size_t i = 0; i < res->n; i++) {
        const mn_search_item *it = &res->items[i];
        json_array_append_new(items, json_pack("{s:s,s:s,s:f,s:o}", "kind", type_names[it->type],
                                               "id", it->id, "score", it->score, "signals",
                                               signals_json(&it->sig)));
        if (it->type == MN_ITEM_MEMORY)
            rows[nrows++] = it->rowid;
    }
    int rc = mn_store_begin(ctx->store);
    if (rc == 0) {
        rc = mn_store_served_add(ctx->store, served, "search", query, items);
        if (rc == 0)
            rc = mn_store_memories_touch(ctx->store, rows, nrows, mn_time_now_ms());
        if (rc)
            mn_store_rollback(ctx->store);
        else
            rc = mn_store_commit(ctx->store);
    }
    free(rows);
    json_decref(items);
    return rc;
}

int mn_op_search(mn_ctx *ctx, const json_t *args, json_t **out)
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
    json_array_foreach(json_object_get(args, "files"), i, v) if (r.nfiles < MN_ARRAY_SIZE(files))
        files[r.nfiles++] = json_string_value(v);
    r.files = files;
    int rc = mn_api__as_of(args, &r.now_ms);
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
    int64_t served = 0;
    if (!mn_store_read_only(ctx->store)) {
        rc = record(ctx, &res, r.query, &served);
        if (rc == 0)
            json_object_set_new(*out, "served", json_integer(served));
    }
    if (res.nnotes) {
        json_t *notes = json_array();
        for (i = 0; i < res.nnotes; i++)
            json_array_append_new(notes, json_string(res.notes[i]));
        json_object_set_new(*out, "notes", notes);
    }
    mn_search_result_release(&res);
    free(semantic_note);
    if (rc) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}

/* The type of an item: from the served answer, else from the shape of its id. */
static int item_type(mn_ctx *ctx, const json_t *served, const char *id, const char **type,
                     char full[MN_ID_LEN + 1])
{
    full[0] = '\0';
    if (served) {
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(served, "items"), i, it)
        {
            if (strcmp(json_string_value(json_object_get(it, "id")), id) == 0) {
                *type = json_string_value(json_object_get(it, "kind"));
                if (strcmp(*type, "memory") == 0)
                    snprintf(full, MN_ID_LEN + 1, "%s", id);
                return 0;
            }
        }
        return mn_error_set(MN_EINVAL, "item '%.80s' is not in served answer %" PRId64, id,
                            (int64_t)json_integer_value(json_object_get(served, "id")));
    }
    if (strncmp(id, "chunk:", 6) == 0) {
        *type = "code";
        return 0;
    }
    if (strlen(id) >= 8 && mn_id_is_prefix(id)) {
        int rc = mn_store_memory_resolve(ctx->store, full, id);
        if (rc == 0) {
            *type = "memory";
            return 0;
        }
        if (rc != MN_ENOTFOUND)
            return rc;
        mn_error_clear();
    }
    *type = "file";
    return 0;
}

static int on_counters(void *payload, const mn_memory_hit *h)
{
    json_array_append_new(payload,
                          json_pack("{s:s,s:I,s:I}", "id", h->uid, "used", (json_int_t)h->used,
                                    "ignored", (json_int_t)h->ignored));
    return 0;
}

int mn_op_feedback(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *signal = json_string_value(json_object_get(args, "signal"));
    const char *note = json_string_value(json_object_get(args, "note"));
    const json_t *items = json_object_get(args, "items");
    json_t *sv = json_object_get(args, "served"), *served = NULL;
    int64_t served_id = sv ? (int64_t)json_integer_value(sv) : 0;
    size_t n = json_array_size(items), nmem = 0, i;
    const char **uids = mn_calloc(n ? n : 1, sizeof(char *));
    char(*full)[MN_ID_LEN + 1] = mn_calloc(n ? n : 1, sizeof(*full));
    json_t *v;
    int rc = 0;
    if (served_id && (rc = mn_store_served_get(ctx->store, &served, served_id)) != 0)
        goto out;
    if ((rc = mn_store_begin(ctx->store)) != 0)
        goto out;
    json_array_foreach(items, i, v)
    {
        const char *id = json_string_value(v), *type = NULL;
        if ((rc = item_type(ctx, served, id, &type, full[i])) != 0)
            break;
        const char *item_id = full[i][0] ? full[i] : id;
        if ((rc = mn_store_feedback_add(ctx->store, served_id, ctx->actor, type, item_id, signal,
                                        note)) != 0)
            break;
        if (strcmp(type, "memory") == 0)
            uids[nmem++] = full[i];
    }
    if (rc == 0)
        rc = mn_store_audit(ctx->store, ctx->actor, "feedback", NULL, args);
    if (rc) {
        mn_store_rollback(ctx->store);
        goto out;
    }
    if ((rc = mn_store_commit(ctx->store)) != 0)
        goto out;
    json_t *mems = json_array();
    rc = mn_store_memories_by_uid(ctx->store, uids, nmem, on_counters, mems);
    if (rc) {
        json_decref(mems);
        goto out;
    }
    *out = json_pack("{s:I,s:o}", "recorded", (json_int_t)n, "memories", mems);
out:
    json_decref(served);
    free(uids);
    free(full);
    return rc;
}
