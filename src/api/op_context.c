/*
 * op_context.c - the one call (context) and its data form (recall): make
 * sure the index is fresh (op_index.c: mn_api__ensure_fresh), then hand the
 * question to the packer (retrieve/pack.h) and record what was served, so
 * feedback on it can reach the memories' usefulness counters. Recording is
 * best effort (op_search.c: mn_api__record_served): a store that cannot be
 * written answers all the same, and its notes say what was not recorded.
 *
 * Tokens are counted in the encoding `tokenizer` names, else config
 * context.tokenizer (default o200k_base); without its table, the estimate,
 * and the notes say so. An agent session (`session`, which the hooks pass)
 * gets the project overview with its first answer; later answers in it
 * carry only the overview lines that hold the question's words, and are
 * recorded with the session for implicit feedback. An answer outside a
 * session ends with a line naming its served id for feedback.
 */
#include "common.h"

#include "api/api_internal.h"
#include "api/op_context_extra.h"
#include "remote/remote.h"
#include "retrieve/pack.h"
#include "retrieve/tokens.h"
#include "store/store_search.h"
#include "util/util.h"
#include "util/vec.h"

/* Strings of a JSON array into a malloc'd vector (borrowed strings). */
static const char **strv(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    const char **v = mn_calloc(*n + 1, sizeof(*v));
    for (size_t i = 0; i < *n; i++)
        v[i] = json_string_value(json_array_get(a, i));
    return v;
}

typedef MN_VEC(int64_t) row_vec;

static int collect_row(void *payload, const mn_memory_hit *h)
{
    mn_vec_push((row_vec *)payload, h->rowid);
    return 0;
}

/*
 * Remember what was served (ids and scores) and count a hit on each memory;
 * best effort (mn_api__record_served): a note instead of an error.
 */
static int record_served(mn_ctx *ctx, const char *op, const char *query, json_t *out,
                         const json_t *items, json_t *notes)
{
    int64_t id = 0;
    json_t *served = json_array();
    const char *uids[256];
    size_t nuids = 0, i;
    const json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *type = json_string_value(json_object_get(it, "type"));
        const char *mid = json_string_value(json_object_get(it, "id"));
        if (!type || !mid)
            continue;
        json_array_append_new(served, json_pack("{s:s,s:s,s:O}", "kind", type, "id", mid, "score",
                                                json_object_get(it, "score")));
        if (!strcmp(type, "memory") && nuids < MN_ARRAY_SIZE(uids))
            uids[nuids++] = mid;
    }
    row_vec rows = MN_VEC_INIT;
    int rc = nuids ? mn_store_memories_by_uid(ctx->store, uids, nuids, collect_row, &rows) : 0;
    if (rc == 0)
        mn_api__record_served(ctx, op, query, served, rows.items, rows.len, &id, notes);
    mn_vec_release(&rows);
    json_decref(served);
    if (id)
        json_object_set_new(out, "served", json_integer(id));
    return rc;
}

/*
 * Once the answer is recorded: the session it was served in (the answer
 * stands without it: a failure is logged), and the line naming its id.
 */
static void after_served(mn_ctx *ctx, json_t *out, const char *session,
                         const mn_token_counter *counter)
{
    int64_t served = (int64_t)json_integer_value(json_object_get(out, "served"));
    if (session && served > 0 && mn_store_served_set_session(ctx->store, served, session) != 0) {
        mn_log(MN_LOG_WARN, "context: the answer's session was not recorded: %s", mn_error_last());
        mn_error_clear();
    }
    mn_context_footer(out, served, counter);
}

/*
 * The team's remotes (remote/remote.h) take at most REMOTE_SHARE of the
 * budget B, and only what they fill of it: the local pack gets
 * B - (tokens of the remote section). With no remote configured, or none
 * answering, the local pack has the whole budget.
 */
#define REMOTE_SHARE 0.4

/*
 * Put the remotes' section into the answer: after the local pack's text
 * (before the footer, added later), or in place of its "nothing relevant"
 * line; tokens counted again on the whole, max_tokens the asked budget.
 */
static void merge_remote_text(json_t *out, const mn_remote_answer *r, size_t asked,
                              const mn_token_counter *counter)
{
    const char *md = json_string_value(json_object_get(out, "markdown"));
    mn_buf b = MN_BUF_INIT;
    bool relevant = json_is_true(json_object_get(out, "relevant"));
    if (relevant && md)
        mn_buf_puts(&b, md);
    else
        mn_buf_puts(&b, "# Project memory\n");
    mn_buf_puts(&b, r->markdown);
    json_object_set_new(out, "markdown", json_stringn(b.ptr, b.len));
    json_object_set_new(out, "tokens",
                        json_integer((json_int_t)mn_tokens_count(counter, b.ptr, b.len)));
    json_object_set_new(out, "max_tokens", json_integer((json_int_t)asked));
    json_object_set_new(out, "relevant", json_true());
    mn_buf_release(&b);
}

/*
 * recall's share of the remotes: their memories as the part "team" ({remote, id, kind, title,
 * text, score}), their section's tokens added to the answer's (the local part had the rest).
 */
static void merge_remote_recall(json_t *out, const mn_remote_answer *r)
{
    json_t *team = json_array();
    size_t i;
    const json_t *it;
    json_array_foreach(r->items, i, it)
    {
        json_t *row = json_pack("{s:O,s:O,s:O,s:O?}", "remote", json_object_get(it, "remote"), "id",
                                json_object_get(it, "id"), "title", json_object_get(it, "title"),
                                "kind", json_object_get(it, "kind"));
        const json_t *text = json_object_get(it, "snippet");
        json_object_set(row, "text", (json_t *)(text ? text : json_object_get(it, "title")));
        json_object_set(row, "score", json_object_get(it, "score"));
        json_array_append_new(team, row);
    }
    json_object_set_new(out, "team", team);
    json_int_t used = json_integer_value(json_object_get(out, "tokens"));
    json_object_set_new(out, "tokens", json_integer(used + (json_int_t)r->tokens));
}

static int build_from(mn_ctx *ctx, const json_t *args, json_t **out, bool recall, json_t *left_out)
{
    mn_context_request req;
    memset(&req, 0, sizeof(req));
    const char *q = json_string_value(json_object_get(args, "query"));
    if (recall && !q)
        q = json_string_value(json_object_get(args, "task"));
    req.query = q ? q : "";
    json_int_t max =
        json_integer_value(json_object_get(args, recall ? "limit_tokens" : "max_tokens"));
    req.max_tokens = max > 0 ? (size_t)max : recall ? 1500 : 3000;
    const char *mode = json_string_value(json_object_get(args, "mode"));
    req.mode = !mode || !strcmp(mode, "auto") ? MN_CONTEXT_AUTO
               : !strcmp(mode, "route")       ? MN_CONTEXT_ROUTE
                                              : MN_CONTEXT_DISCOVERY;
    const json_t *causal = json_object_get(args, "include_causal");
    req.include_causal = causal ? json_is_true(causal) : true;
    const char **files = strv(json_object_get(args, "files"), &req.nfiles);
    const char **symbols = strv(json_object_get(args, "symbols"), &req.nsymbols);
    req.files = files;
    req.symbols = symbols;
    if (mn_api__as_of(args, &req.now_ms) != 0) {
        free(files);
        free(symbols);
        return mn_error_last_code();
    }
    mn_context_extra extra = {NULL, NULL};
    size_t asked = req.max_tokens;
    json_t *notes = json_array();
    if (json_array_size(left_out)) {
        mn_buf b = MN_BUF_INIT;
        size_t i;
        json_t *v;
        mn_buf_puts(&b, "left out of files, not paths of the project (mnemo reads nothing "
                        "outside it):");
        json_array_foreach(left_out, i, v) mn_buf_printf(&b, " '%.200s'", json_string_value(v));
        json_array_append_new(notes, json_string(b.ptr));
        mn_buf_release(&b);
    }
    const char *session = recall ? NULL : json_string_value(json_object_get(args, "session"));
    mn_token_counter counter;
    char *tok_note = NULL, *tok_config = NULL;
    const char *tok = json_string_value(json_object_get(args, "tokenizer"));
    if (!tok && mn_store_config_get(ctx->store, &tok_config, "context.tokenizer") == 0)
        tok = tok_config;
    mn_error_clear();
    if (mn_tokens_counter(&counter, tok, &tok_note) != 0) {
        int code = mn_error_set(MN_EINVAL,
                                "unknown tokenizer '%.40s' (config context.tokenizer or "
                                "tokenizer: cl100k_base or o200k_base)",
                                tok ? tok : "");
        free(tok_config);
        free(files);
        free(symbols);
        json_decref(notes);
        return code;
    }
    if (tok_note)
        json_array_append_new(notes, json_string(tok_note));
    free(tok_note);
    req.counter = &counter;
    req.footer = !recall && !session;
    if (session) {
        bool seen = false;
        if (mn_store_served_session_seen(ctx->store, session, "context", &seen) != 0)
            mn_error_clear(); /* then the overview again: never an error for it */
        req.overview = seen ? MN_OVERVIEW_MATCHING : MN_OVERVIEW_RANKED;
    }
    json_t *fresh_args = json_object();
    const json_t *path = json_object_get(args, recall ? "repo_path" : "path");
    if (path)
        json_object_set(fresh_args, "path", (json_t *)path);
    const json_t *refresh = json_object_get(args, "refresh");
    if (refresh)
        json_object_set(fresh_args, "refresh", (json_t *)refresh);
    int rc = mn_api__ensure_fresh(ctx, fresh_args, notes);
    json_decref(fresh_args);
    /* what expired is not served; citations the index marked are checked (op_lifecycle.c) */
    if (rc == 0)
        rc = mn_api__expiry(ctx, &req.expiry);
    if (rc == 0)
        mn_api__citations_current(ctx);
    mn_embedder *e = NULL;
    char *semantic_note = NULL;
    if (rc == 0)
        rc = mn_api__embedder(ctx, true, &e, &semantic_note);
    req.embedder = e;
    req.semantic_note = semantic_note;
    mn_remote_answer remote = {NULL, NULL, 0};
    if (rc == 0) {
        mn_remote_query rq = {req.query,
                              NULL,
                              json_object_get(args, "as_of"),
                              0,
                              (size_t)((double)req.max_tokens * REMOTE_SHARE),
                              &counter};
        rc = mn_remote_gather(&remote, ctx, &rq, notes);
        if (rc == 0)
            req.max_tokens -= remote.tokens;
    }
    if (rc == 0)
        rc = mn_api__context_extra_begin(ctx, args, &req, &extra);
    if (rc == 0)
        rc = recall ? mn_recall_build(ctx->store, &req, out)
                    : mn_context_build(ctx->store, &req, out);
    if (rc == 0)
        mn_api__context_extra_end(ctx, &extra, *out, recall, asked);
    else
        mn_api__context_extra_end(ctx, &extra, NULL, recall, asked);
    mn_embedder_free(e);
    free(semantic_note);
    if (rc == 0) {
        const json_t *items = json_object_get(*out, "items");
        json_t *all = json_array();
        if (recall) { /* served: every memory and code place of the bundle */
            static const char *const parts[] = {"facts", "few_shots", "decisions", "links"};
            for (size_t p = 0; p < MN_ARRAY_SIZE(parts); p++) {
                size_t i;
                json_t *x;
                json_array_foreach(json_object_get(*out, parts[p]), i, x)
                {
                    json_t *copy = json_deep_copy(x);
                    if (!json_object_get(copy, "type"))
                        json_object_set_new(copy, "type", json_string("memory"));
                    if (!json_object_get(copy, "id"))
                        json_object_set(copy, "id", json_object_get(copy, "path"));
                    json_array_append_new(all, copy);
                }
            }
            items = all;
        }
        if (recall)
            merge_remote_recall(*out, &remote);
        else if (remote.markdown && *remote.markdown)
            merge_remote_text(*out, &remote, asked, &counter);
        rc = record_served(ctx, recall ? "recall" : "context", req.query, *out, items, notes);
        json_decref(all);
        /* after recording: feedback on a remote's memory belongs to its server */
        size_t i;
        json_t *it;
        json_array_foreach(recall ? NULL : remote.items, i, it)
        {
            json_t *ref = json_pack("s++", json_string_value(json_object_get(it, "remote")), ":",
                                    json_string_value(json_object_get(it, "id")));
            json_object_set_new(it, "section", json_string("team"));
            json_object_set_new(
                it, "why",
                json_pack("s+", "from remote ", json_string_value(json_object_get(it, "remote"))));
            json_object_set_new(it, "ref", ref);
            json_object_set_new(it, "whole", json_false());
            json_array_append(json_object_get(*out, "items"), it);
        }
        if (rc == 0 && !recall)
            after_served(ctx, *out, session, &counter);
        json_array_extend(json_object_get(*out, "notes"), notes);
        if (rc) {
            json_decref(*out);
            *out = NULL;
        }
    }
    json_decref(notes);
    mn_remote_answer_release(&remote);
    free(tok_config);
    free(files);
    free(symbols);
    return rc;
}

/*
 * The files a request names, as the index knows them: a path relative to the project's root
 * (with its ":lines"). An agent often gives the absolute path of a file it has open: one
 * inside the root is made relative; one outside it (or a relative one that climbs out with
 * "..") names nothing of the project and is left out with a note, never read.
 */
static json_t *project_files(mn_ctx *ctx, const json_t *files, json_t *left_out)
{
    json_t *kept = json_array();
    /* the root as the context knows it and as the file system does (a link on the way) */
    char *real = ctx->root ? mn_fs_realpath(ctx->root) : NULL;
    const char *roots[] = {ctx->root, real};
    size_t i;
    json_t *v;
    json_array_foreach(files, i, v)
    {
        const char *f = json_string_value(v);
        const char *rel = f && f[0] == '/' ? NULL : f;
        for (size_t r = 0; f && f[0] == '/' && !rel && r < MN_ARRAY_SIZE(roots); r++) {
            size_t rl = roots[r] ? strlen(roots[r]) : 0;
            if (rl && strncmp(f, roots[r], rl) == 0 && f[rl] == '/')
                rel = f + rl + 1;
        }
        bool climbs = false;
        for (const char *p = rel; p && *p && !climbs; p += strcspn(p, "/"), p += *p == '/')
            climbs = strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == ':' || !p[2]);
        if (rel && *rel && !climbs)
            json_array_append_new(kept, json_string(rel));
        else
            json_array_append(left_out, v);
    }
    free(real);
    return kept;
}

static int build(mn_ctx *ctx, const json_t *args, json_t **out, bool recall)
{
    const json_t *files = json_object_get(args, "files");
    if (!json_array_size(files))
        return build_from(ctx, args, out, recall, NULL);
    json_t *own = json_copy((json_t *)args), *left_out = json_array();
    json_object_set_new(own, "files", project_files(ctx, files, left_out));
    int rc = build_from(ctx, own, out, recall, left_out);
    json_decref(own);
    json_decref(left_out);
    return rc;
}

int mn_op_context(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *mode = json_string_value(json_object_get(args, "mode"));
    if (mode && !strcmp(mode, "extract"))
        return mn_api__context_extract(ctx, args, out);
    return build(ctx, args, out, false);
}

int mn_op_recall(mn_ctx *ctx, const json_t *args, json_t **out)
{
    return build(ctx, args, out, true);
}
