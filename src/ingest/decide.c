/*
 * decide.c - decisions recorded on purpose, and the causal chains they
 * form (ingest.h: mn_decision_record, mn_decision_chain).
 *
 * record_decision saves one decision memory through the save pipeline:
 * title (given, else the decision's first line), body (the decision, the
 * alternatives set aside, the consequences), its reasons as
 * context.situation (what context and recall show as "Because:"), scope,
 * links supersedes and caused_by to earlier memories; then each memory it
 * supersedes gets status superseded. Like save, it is placed at the
 * repository's HEAD (scope.branch, provenance.commit) unless told
 * otherwise (retrieve/branch.h).
 *
 * chain walks the links both ways from each start (an id, or the best
 * CHAIN_STARTS decisions a search finds for the query, superseded ones
 * included): supersedes and caused_by outward (what it replaced, what led
 * to it), superseded_by and led_to inward (the links of others to it), to
 * depth links, each memory once (the links may form a cycle), at most
 * CHAIN_NODES in all. Each node has its date (created_at), status and
 * reasons.
 */
#include "common.h"

#include "ingest/ingest_internal.h"
#include "retrieve/branch.h"
#include "retrieve/retrieve.h"
#include "util/map.h"
#include "util/util.h"

#define CHAIN_STARTS 3
#define CHAIN_NODES  100
#define REASON_CHARS 400

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

int mn_decision_record(mn_store *s, const mn_ingest_env *env, const json_t *args, json_t **out)
{
    const char *decision = jstr(args, "decision");
    json_t *mem = json_object(), *res = NULL, *superseded = json_array();
    int rc = 0;
    *out = NULL;
    size_t first = strcspn(decision, "\n");
    char *line = mn_strndup(decision, first);
    /* a title cut from the decision is scrubbed before the cut (ingest_internal.h) */
    char *title = jstr(args, "title") ? mn_strdup(jstr(args, "title"))
                                      : mn_ingest_clip_scrubbed(env, line, 200);
    free(line);
    mn_buf body = MN_BUF_INIT;
    mn_buf_puts(&body, decision);
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(args, "alternatives"), i, v) mn_buf_printf(
        &body, "%s%s", i ? "; " : "\n\nAlternatives set aside: ", json_string_value(v));
    if (jstr(args, "consequences") && *jstr(args, "consequences"))
        mn_buf_printf(&body, "\n\nConsequences: %s", jstr(args, "consequences"));
    mn_buf reasons = MN_BUF_INIT;
    json_array_foreach(json_object_get(args, "reasons"), i, v)
        mn_buf_printf(&reasons, "%s%s", i ? "; " : "", json_string_value(v));
    json_object_set_new(mem, "kind", json_string("decision"));
    json_object_set_new(mem, "title", json_string(title));
    json_object_set_new(mem, "body", json_string(body.ptr));
    if (reasons.len)
        json_object_set_new(mem, "context", json_pack("{s:s}", "situation", reasons.ptr));
    json_t *scope = json_object_get(args, "scope") ? json_deep_copy(json_object_get(args, "scope"))
                                                   : json_object();
    json_t *prov = json_pack("{s:s}", "source", env->settings->agent ? "agent" : "manual");
    if (env->root && env->store_in_root) {
        char sha[41], *branch = NULL;
        if (mn_branch_head(env->root, sha, &branch) == 0 && sha[0]) {
            if (!json_object_get(scope, "branch") && branch)
                json_object_set_new(scope, "branch", json_string(branch));
            json_object_set_new(prov, "commit", json_string(sha));
        }
        mn_error_clear();
        free(branch);
    }
    if (json_object_size(scope))
        json_object_set(mem, "scope", scope);
    json_decref(scope);
    json_object_set_new(mem, "provenance", prov);
    if (json_object_get(args, "confidence"))
        json_object_set(mem, "confidence", json_object_get(args, "confidence"));
    json_t *links = json_array();
    static const char *const kinds[] = {"supersedes", "caused_by"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(kinds); k++)
        json_array_foreach(json_object_get(args, kinds[k]), i, v)
            json_array_append_new(links, json_pack("{s:s,s:O}", "kind", kinds[k], "to", v));
    json_object_set_new(mem, "links", links);
    if ((rc = mn_memory_save(&res, s, env->settings, mem)) != 0)
        goto out;
    const char *id = jstr(res, "id");
    json_array_foreach(json_object_get(args, "supersedes"), i, v)
    {
        char old[MN_ID_LEN + 1];
        if ((rc = mn_store_memory_resolve(s, old, json_string_value(v))) != 0)
            goto out;
        if (!strcmp(old, id))
            continue;
        /* the life cycle superseded it if the decision is active (else once approved) */
        json_t *m = NULL;
        if ((rc = mn_store_memory_get(s, &m, old)) != 0)
            goto out;
        if (!strcmp(jstr(m, "status"), "superseded"))
            json_array_append_new(superseded, json_string(old));
        json_decref(m);
    }
    json_object_set(res, "superseded", superseded);
    json_object_set_new(res, "links", json_integer((json_int_t)json_array_size(links)));
    *out = res;
    res = NULL;
out:
    json_decref(res);
    json_decref(mem);
    json_decref(superseded);
    mn_buf_release(&body);
    mn_buf_release(&reasons);
    free(title);
    return rc;
}

/* ---- chains ---- */

typedef struct {
    mn_store *s;
    mn_map seen;
    size_t nodes, max_depth;
} chain_ctx;

static json_t *node_of(const json_t *m, const char *relation)
{
    json_t *n = json_pack("{s:O,s:O,s:O,s:O}", "id", json_object_get(m, "id"), "title",
                          json_object_get(m, "title"), "kind", json_object_get(m, "kind"), "status",
                          json_object_get(m, "status"));
    const char *created = jstr(m, "created_at");
    if (created)
        json_object_set_new(n, "date",
                            json_stringn(created, strlen(created) > 10 ? 10 : strlen(created)));
    const char *reason = jstr(json_object_get(m, "context"), "situation");
    if (!reason || !*reason)
        reason = jstr(m, "body");
    if (reason && *reason) {
        char *one = mn_ingest_one_line(reason, strlen(reason));
        char *clip = mn_ingest_clip(one, REASON_CHARS);
        json_object_set_new(n, "reasons", json_string(clip));
        free(one);
        free(clip);
    }
    if (relation)
        json_object_set_new(n, "relation", json_string(relation));
    return n;
}

static json_t *expand(chain_ctx *c, const char *id, const char *relation, size_t depth);

static void children(chain_ctx *c, json_t *node, const json_t *m, size_t depth)
{
    json_t *kids = json_array();
    const char *self = jstr(m, "id");
    size_t i;
    json_t *l;
    /* outward: what it replaced, what led to it */
    json_array_foreach(json_object_get(m, "links"), i, l)
    {
        const char *kind = jstr(l, "kind"), *to = jstr(l, "to");
        if (!kind || !to || strchr(to, ':') ||
            (strcmp(kind, "supersedes") != 0 && strcmp(kind, "caused_by") != 0))
            continue;
        json_t *k = expand(c, to, kind, depth + 1);
        if (k)
            json_array_append_new(kids, k);
    }
    /* inward: what replaced it, what it led to */
    json_t *back = NULL;
    if (mn_store_memory_backlinks(c->s, &back, self) == 0) {
        json_array_foreach(back, i, l)
        {
            const char *kind = jstr(l, "kind"), *from = jstr(l, "from");
            if (!kind || !from)
                continue;
            const char *rel = !strcmp(kind, "supersedes")  ? "superseded_by"
                              : !strcmp(kind, "caused_by") ? "led_to"
                                                           : NULL;
            if (!rel)
                continue;
            json_t *k = expand(c, from, rel, depth + 1);
            if (k)
                json_array_append_new(kids, k);
        }
    }
    mn_error_clear();
    json_decref(back);
    json_object_set_new(node, "children", kids);
}

static json_t *expand(chain_ctx *c, const char *id, const char *relation, size_t depth)
{
    if (depth > c->max_depth || c->nodes >= CHAIN_NODES || mn_map_has(&c->seen, id))
        return NULL;
    json_t *m = NULL;
    if (mn_store_memory_get(c->s, &m, id) != 0 || json_object_get(m, "deleted_at")) {
        mn_error_clear();
        json_decref(m);
        return NULL;
    }
    mn_map_set(&c->seen, id, NULL);
    c->nodes++;
    json_t *n = node_of(m, relation);
    children(c, n, m, depth);
    json_decref(m);
    return n;
}

int mn_decision_chain(mn_store *s, const json_t *args, json_t **out)
{
    chain_ctx c;
    json_t *roots = json_array(), *notes = json_array();
    json_t *starts = json_array();
    int rc = 0;
    memset(&c, 0, sizeof(c));
    c.s = s;
    json_int_t depth = json_integer_value(json_object_get(args, "depth"));
    c.max_depth = depth > 0 ? (size_t)depth : 4;
    if (jstr(args, "id")) {
        char id[MN_ID_LEN + 1];
        if ((rc = mn_store_memory_resolve(s, id, jstr(args, "id"))) != 0)
            goto out;
        json_array_append_new(starts, json_string(id));
    } else {
        mn_search_request sr;
        mn_search_result res;
        memset(&sr, 0, sizeof(sr));
        sr.query = jstr(args, "query");
        sr.kinds = MN_SEARCH_MEMORY;
        sr.k = CHAIN_STARTS;
        sr.filter.kinds[0] = "decision";
        sr.filter.nkinds = 1;
        sr.filter.statuses[0] = "active";
        sr.filter.statuses[1] = "pending";
        sr.filter.statuses[2] = "superseded";
        sr.filter.nstatuses = 3;
        sr.status_given = true;
        if ((rc = mn_search_run(s, &sr, &res)) != 0)
            goto out;
        for (size_t i = 0; i < res.n; i++)
            json_array_append_new(starts, json_string(res.items[i].id));
        mn_search_result_release(&res);
        if (!json_array_size(starts))
            json_array_append_new(notes, json_string("no decision matches the query"));
    }
    size_t i;
    json_t *v;
    json_array_foreach(starts, i, v)
    {
        json_t *n = expand(&c, json_string_value(v), NULL, 0);
        if (n)
            json_array_append_new(roots, n);
    }
    if (c.nodes >= CHAIN_NODES)
        json_array_append_new(notes, json_sprintf("cut at %d memories", CHAIN_NODES));
    *out = json_pack("{s:O,s:I,s:O}", "roots", roots, "nodes", (json_int_t)c.nodes, "notes", notes);
out:
    json_decref(roots);
    json_decref(notes);
    json_decref(starts);
    mn_map_release(&c.seen);
    return rc;
}
