/*
 * op_context_extra.c - what context and recall add around the packer
 * (kept apart from op_context.c and retrieve/pack.c, which others change):
 *
 *   branches  the request's branch view (retrieve/branch.h), so memories
 *             of another branch not merged are left out (all_branches:
 *             marked);
 *   why       for the files, symbols and line ranges given, the commits
 *             and decisions behind them (retrieve/why.h): the block takes
 *             at most WHY_SHARE of the budget, the packer gets the rest,
 *             and the block comes after what the packer wrote, so the
 *             whole stays within max_tokens;
 *   extract   context mode "extract": the git ingest of the commits made
 *             since the last one seen, reported as Markdown.
 */
#include "common.h"

#include "api/op_context_extra.h"
#include "api/op_ingest.h"
#include "retrieve/branch.h"
#include "retrieve/tokens.h"
#include "retrieve/why.h"

#define WHY_SHARE      0.4 /* of the budget, at most, for "Why the code is like this" */
#define EXTRACT_FIRST  50  /* commits read by extract when none was read before */
#define EXTRACT_LISTED 12  /* saved and queued memories named in the Markdown */
#define SHORT_ID       12  /* characters of a memory's id printed, as pack.c prints them */

int mn_api__context_extra_begin(mn_ctx *ctx, const json_t *args, mn_context_request *req,
                                mn_context_extra *x)
{
    memset(x, 0, sizeof(*x));
    x->branch = mn_branch_view_new(ctx->root, json_is_true(json_object_get(args, "all_branches")));
    req->branch = x->branch;
    if (!req->nfiles && !req->nsymbols)
        return 0;
    mn_why_request w;
    memset(&w, 0, sizeof(w));
    w.root = ctx->root;
    w.files = req->files;
    w.nfiles = req->nfiles;
    w.symbols = req->symbols;
    w.nsymbols = req->nsymbols;
    w.max_tokens = (size_t)((double)req->max_tokens * WHY_SHARE);
    int rc = mn_why_build(ctx->store, &w, &x->why);
    if (rc)
        return rc;
    size_t used = (size_t)json_integer_value(json_object_get(x->why, "tokens"));
    /* the packer's budget: what the block leaves, never under the smallest it takes */
    if (used && req->max_tokens > used + 64)
        req->max_tokens -= used;
    else if (used) {
        json_decref(x->why);
        x->why = NULL;
    }
    return 0;
}

int mn_api__context_extra_end(mn_ctx *ctx, mn_context_extra *x, json_t *out, bool recall,
                              size_t max_tokens)
{
    if (x->why && out) {
        if (recall) {
            json_object_set(out, "history", json_object_get(x->why, "history"));
        } else {
            const char *md = json_string_value(json_object_get(out, "markdown"));
            const char *why = json_string_value(json_object_get(x->why, "markdown"));
            if (md && why && *why) {
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "%s%s", md, why);
                size_t tokens = mn_tokens_estimate(b.ptr, b.len);
                /* the sum of the parts' estimates bounds the whole's: this holds, checked anyway */
                if (tokens <= max_tokens) {
                    json_object_set_new(out, "markdown", json_stringn(b.ptr, b.len));
                    json_object_set_new(out, "tokens", json_integer((json_int_t)tokens));
                    json_object_set_new(out, "max_tokens", json_integer((json_int_t)max_tokens));
                    json_array_extend(json_object_get(out, "items"),
                                      json_object_get(x->why, "items"));
                    if (!json_is_true(json_object_get(out, "relevant")) &&
                        json_array_size(json_object_get(x->why, "items")))
                        json_object_set_new(out, "relevant", json_true());
                }
                mn_buf_release(&b);
            }
        }
        json_array_extend(json_object_get(out, "notes"), json_object_get(x->why, "notes"));
    }
    if (out && !recall)
        json_object_set_new(out, "max_tokens", json_integer((json_int_t)max_tokens));
    mn_branch_view_free(x->branch, ctx->store);
    json_decref(x->why);
    memset(x, 0, sizeof(*x));
    return 0;
}

/* The items of status as lines of md and items_out; false when some were left out. */
static bool list_items(mn_buf *md, json_t *items_out, const json_t *items, const char *status,
                       const char *heading)
{
    size_t i, n = 0;
    const json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *st = json_string_value(json_object_get(it, "status"));
        const char *id = json_string_value(json_object_get(it, "id"));
        const char *action = json_string_value(json_object_get(it, "action"));
        if (!st || !id || strcmp(st, status) != 0 || !action ||
            (strcmp(action, "created") != 0 && strcmp(action, "merged") != 0))
            continue;
        if (n == 0)
            mn_buf_printf(md, "\n## %s\n", heading);
        if (n++ >= EXTRACT_LISTED)
            continue;
        const char *title = json_string_value(json_object_get(it, "title"));
        const char *kind = json_string_value(json_object_get(it, "kind"));
        const char *sha =
            json_string_value(json_object_get(json_object_get(it, "evidence"), "sha"));
        mn_buf_printf(md, "- **%s** %s (%.*s, commit %.12s, confidence %.2f)\n", kind ? kind : "",
                      title ? title : "", SHORT_ID, id, sha ? sha : "",
                      json_number_value(json_object_get(it, "confidence")));
        /* ref: the id as the line prints it; never whole: the line gives the title alone */
        json_array_append_new(
            items_out,
            json_pack("{s:s,s:s,s:s,s:s,s:f,s:s,s:s,s:i,s:s%,s:b}", "section", "extracted", "type",
                      "memory", "id", id, "title", title ? title : "", "score",
                      json_number_value(json_object_get(it, "confidence")), "why",
                      !strcmp(status, "active") ? "saved from a recent commit"
                                                : "queued for review from a recent commit",
                      "status", status, "tokens", 0, "ref", id,
                      strlen(id) < SHORT_ID ? strlen(id) : (size_t)SHORT_ID, "whole", 0));
    }
    if (n > EXTRACT_LISTED)
        mn_buf_printf(md, "- ... and %zu more\n", n - EXTRACT_LISTED);
    return n <= EXTRACT_LISTED;
}

int mn_api__context_extract(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_ingest_env env;
    char *root = NULL;
    json_t *rep = NULL;
    int rc = mn_api__ingest_env(ctx, &env, &root);
    if (rc == 0) {
        mn_git_ingest_opts o = MN_GIT_INGEST_OPTS_INIT;
        o.incremental = true;
        o.max = EXTRACT_FIRST;
        rc = mn_ingest_git(ctx->store, &env, &o, &rep);
    }
    free(root);
    if (rc)
        return rc;
    json_int_t max = json_integer_value(json_object_get(args, "max_tokens"));
    size_t budget = max > 0 ? (size_t)max : 3000;
    json_t *items = json_array();
    mn_buf md = MN_BUF_INIT;
    json_t *commits = json_object_get(rep, "commits");
    mn_buf_printf(&md,
                  "# Extracted from recent commits\n\n%lld commit(s) read: %lld saved, %lld queued "
                  "for review (mnemo list --status pending), %lld merged into existing memories.\n",
                  (long long)json_integer_value(json_object_get(commits, "ingested")),
                  (long long)json_integer_value(json_object_get(rep, "saved")),
                  (long long)json_integer_value(json_object_get(rep, "queued")),
                  (long long)json_integer_value(json_object_get(rep, "merged")));
    bool complete = list_items(&md, items, json_object_get(rep, "items"), "active", "Saved");
    complete &=
        list_items(&md, items, json_object_get(rep, "items"), "pending", "Queued for review");
    /* within the budget: cut whole lines from the end */
    while (md.len && mn_tokens_estimate(md.ptr, md.len) > budget) {
        char *nl = md.len > 1 ? memrchr(md.ptr, '\n', md.len - 1) : NULL;
        md.len = nl ? (size_t)(nl - md.ptr) + 1 : 0;
        md.ptr[md.len] = '\0';
        complete = false;
    }
    size_t tokens = mn_tokens_estimate(md.ptr ? md.ptr : "", md.len);
    /* every field out_context.json requires, as the packer's answer has them; the tokens are
     * tokens.h's estimate, never counted with an encoding */
    *out =
        json_pack("{s:s%,s:I,s:I,s:s,s:b,s:o,s:[],s:s,s:b,s:o}", "markdown", md.ptr ? md.ptr : "",
                  md.len, "tokens", (json_int_t)tokens, "max_tokens", (json_int_t)budget, "mode",
                  "extract", "relevant", json_array_size(items) > 0, "items", items, "notes",
                  "tokenizer", "estimate", "complete", complete, "extract", rep);
    mn_buf_release(&md);
    return 0;
}
