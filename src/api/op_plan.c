/*
 * op_plan.c - the plan_files operation (`mnemo plan`, the MCP tool
 * plan_files, the Claude Code hook of sub-agents): which files to read
 * for a task, graph first (src/retrieve/plan.c; docs/plan.md).
 *
 * The settings come from config plan.* (graph_first, fail_open,
 * candidate_cap, semantic_cap, min_final_score, semantic_weight) and context.tokenizer
 * (the budget is counted as context counts it). The index is refreshed
 * first as context does (index.refresh_age). The semantic stage's first
 * rung is the configured embedder only when it is a server (embed.provider
 * http): the built-in model already speaks through the search's file
 * ranking that tier A reads.
 *
 * Fail open: with plan.fail_open (the default) any failure of the
 * graph-first path gives the legacy plan, its fallback_reason saying why,
 * logged as a warning; the caller sees no error. Only a failure of the
 * legacy plan itself (a store that cannot be read) is an error.
 */
#include "common.h"

#include "api/api_internal.h"
#include "retrieve/embed.h"
#include "retrieve/plan.h"
#include "retrieve/tokens.h"
#include "util/util.h"

int mn_op_plan(mn_ctx *ctx, const json_t *args, json_t **out);

static json_t *strings(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static double round3(double x)
{
    return (double)(int64_t)(x * 1000 + (x >= 0 ? 0.5 : -0.5)) / 1000;
}

static json_t *file_json(const mn_plan_file *c, bool legacy)
{
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(c->path));
    json_object_set_new(o, "role", json_string(c->role ? c->role : "source"));
    if (!legacy) {
        char tier[2] = {c->tier, '\0'};
        json_object_set_new(o, "tier", json_string(tier));
        json_object_set_new(o, "graph_score", json_real(round3(c->graph)));
        json_object_set_new(o, "semantic_score", json_real(round3(c->semantic)));
        json_object_set_new(o, "semantic_backend_used",
                            json_string(c->backend ? c->backend : "none"));
        json_object_set_new(o, "matched_terms", strings(c->matched, c->nmatched));
        if (c->evidence)
            json_object_set_new(o, "evidence", json_string(c->evidence));
    }
    json_object_set_new(o, "final_score", json_real(round3(c->final)));
    if (c->why)
        json_object_set_new(o, "why", json_string(c->why));
    return o;
}

static json_t *result_json(const mn_plan_result *r, bool trace)
{
    bool legacy = !strcmp(r->pipeline_version, MN_PLAN_LEGACY_VERSION);
    json_t *o = json_object(), *sel = json_array(), *seeds = json_array(), *hits = json_array();
    json_object_set_new(o, "pipeline_version", json_string(r->pipeline_version));
    json_object_set_new(o, "semantic_backend_used", json_string(r->backend ? r->backend : "none"));
    json_object_set_new(o, "graph_candidate_count",
                        json_integer((json_int_t)r->graph_candidate_count));
    json_object_set_new(o, "semantic_hit_count", json_integer((json_int_t)r->semantic_hit_count));
    if (r->fallback_reason)
        json_object_set_new(o, "fallback_reason", json_string(r->fallback_reason));
    for (size_t i = 0; i < r->nselected; i++)
        json_array_append_new(sel, file_json(&r->files[r->selected[i]], legacy));
    for (size_t i = 0; i < r->nfiles && !legacy; i++) {
        const mn_plan_file *c = &r->files[i];
        if (c->tier == 'A' && json_array_size(seeds) < 10)
            json_array_append_new(seeds, json_pack("{s:s,s:f,s:s}", "path", c->path, "graph_score",
                                                   round3(c->graph), "why", c->why ? c->why : ""));
        if (c->semantic_evidence && json_array_size(hits) < 10)
            json_array_append_new(hits,
                                  json_pack("{s:s,s:f,s:o}", "path", c->path, "semantic_score",
                                            round3(c->semantic), "matched_terms",
                                            strings(c->matched, c->nmatched)));
    }
    json_object_set_new(o, "selected", sel);
    json_object_set_new(o, "graph_seeds", seeds);
    json_object_set_new(o, "semantic_hits", hits);
    json_object_set_new(o, "text", json_string(r->text ? r->text : ""));
    json_object_set_new(o, "tokens", json_integer((json_int_t)r->tokens));
    json_object_set_new(o, "budget", json_integer((json_int_t)r->budget));
    if (trace)
        json_object_set_new(o, "trace", strings(r->trace, r->ntrace));
    return o;
}

int mn_op_plan(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_plan_request req = {0};
    mn_plan_result res;
    mn_token_counter counter;
    mn_embed_options eo = MN_EMBED_OPTIONS_INIT;
    mn_embedder *e = NULL;
    char *tok_config = NULL, *tok_note = NULL, *semantic_note = NULL, *reason = NULL;
    bool graph_first = true, fail_open = true, have_res = false;
    double cap = 0, sem_cap = 0, min_final = 0, sem_weight = 0;
    json_t *notes = json_array();
    int rc;

    req.task = json_string_value(json_object_get(args, "task"));
    req.budget = (size_t)json_integer_value(json_object_get(args, "budget"));
    req.k = (size_t)json_integer_value(json_object_get(args, "k"));
    bool legacy = json_is_true(json_object_get(args, "legacy"));
    bool trace = json_is_true(json_object_get(args, "trace"));
    if ((rc = mn_api__config_bool(ctx, &graph_first, "plan.graph_first")) != 0 ||
        (rc = mn_api__config_bool(ctx, &fail_open, "plan.fail_open")) != 0 ||
        (rc = mn_api__config_number(ctx, &cap, "plan.candidate_cap")) != 0 ||
        (rc = mn_api__config_number(ctx, &sem_cap, "plan.semantic_cap")) != 0 ||
        (rc = mn_api__config_number(ctx, &min_final, "plan.min_final_score")) != 0 ||
        (rc = mn_api__config_number(ctx, &sem_weight, "plan.semantic_weight")) != 0)
        goto out;
    req.candidate_cap = (size_t)cap;
    req.semantic_cap = (size_t)sem_cap;
    req.min_final_score = min_final;
    req.semantic_weight = sem_weight;
    req.root = ctx->root;
    if (mn_store_config_get(ctx->store, &tok_config, "context.tokenizer") != 0)
        mn_error_clear();
    if ((rc = mn_tokens_counter(&counter, tok_config, &tok_note)) != 0)
        goto out;
    if (tok_note)
        json_array_append_new(notes, json_string(tok_note));
    req.tokens = &counter;
    json_t *fresh_args = json_object();
    rc = mn_api__ensure_fresh(ctx, fresh_args, notes);
    json_decref(fresh_args);
    if (rc)
        goto out;
    if ((rc = mn_api__embedder(ctx, true, &e, &semantic_note)) != 0)
        goto out;
    req.search_embedder = e;
    if ((rc = mn_api__embed_options(ctx, &eo)) != 0)
        goto out;
    if (e && eo.provider && !strcmp(eo.provider, "http"))
        req.embedder = e;

    if (legacy || !graph_first) {
        rc = mn_plan_legacy(ctx->store, &req, legacy ? NULL : "config plan.graph_first is false",
                            &res);
        have_res = true;
    } else {
        rc = mn_plan_run(ctx->store, &req, &res);
        have_res = true;
        if (rc && fail_open) {
            reason = mn_strdup(mn_error_last());
            mn_log(MN_LOG_WARN, "plan: the graph-first plan failed (%s); the legacy plan answers",
                   reason);
            mn_plan_result_release(&res);
            mn_error_clear();
            rc = mn_plan_legacy(ctx->store, &req, reason, &res);
        }
    }
    if (rc == 0) {
        *out = result_json(&res, trace);
        json_object_set(*out, "notes", notes);
    }
out:
    if (have_res)
        mn_plan_result_release(&res);
    mn_embedder_free(e);
    mn_embed_options_release(&eo);
    free(tok_config);
    free(tok_note);
    free(semantic_note);
    free(reason);
    json_decref(notes);
    return rc;
}
