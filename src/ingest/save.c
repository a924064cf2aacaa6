/*
 * save.c - how every ingest saves: through mn_memory_save (scrub, dedup,
 * judge) with the review threshold raised to capture.auto_approve, under a
 * stable key so that a re-run never saves twice, and with the chains a
 * new fact continues.
 *
 * Keys (store_ingest.h, ingest keys): "git:<sha>:<candidate key>" for a
 * git candidate; "doc:...", "issue:...", "capture:..." for the others
 * (their files). A key already saved is skipped (git: a commit's facts do
 * not change) or, when its source hash differs (a document edited),
 * updated in place with mn_memory_update; a memory a person forgot stays
 * forgotten, and one purged is saved again.
 *
 * Chains: "state:<state key>" names the memory that holds a state (the
 * newest fact about a dependency, a runtime, what a decision chose). A
 * new candidate with the same state supersedes it, and a revert every
 * memory of the commit it undid (its "git:<sha>:" keys): the save itself
 * says so, with `supersedes` links in its input, so the pipeline treats
 * them as every save's links: its near-duplicate check takes the old fact
 * for what the new one replaces on purpose, not a conflict to review, and
 * the life cycle (memory/lifecycle.h) turns the old one superseded when
 * the new one is active, or when a reviewer approves it. Answers serve
 * what is true today and `chain` shows the history.
 *
 * Why the threshold and not a status: mn_memory_save decides the status
 * from the confidence and the review threshold (and its own rules: an
 * agent's unsupported rule, personal data under quarantine, a conflict
 * with a stored memory), so the candidates are judged by the pipeline the
 * same way as every save, with the bar at auto_approve. Every ingest's
 * memory is provenance.extraction_method "auto" (the words were picked by
 * an extractor, not written by a person or an agent), and the settings
 * are the extractor's (agent false): an agent that asks for an ingest or
 * a capture did not write what it saves.
 */
#include "common.h"
#include <math.h>

#include "ingest/ingest_internal.h"
#include "store/store_ingest.h"
#include "util/util.h"

#define BODY_MAX_BYTES 20000
#define TAGS_MAX       32
#define LINKS_MAX      64

void mn_ingest_settings(mn_memory_settings *out, const mn_ingest_env *env)
{
    *out = *env->settings;
    if (env->auto_approve > out->review_threshold)
        out->review_threshold = env->auto_approve;
    out->agent = false;
}

double mn_ingest_detector_confidence(double d)
{
    /* in hundredths, as the detector counts: 0.7 maps to 0.85 exactly, not 0.8499999 */
    double m = (double)lround((0.5 + 1.75 * (d - 0.5)) * 100.0) / 100.0;
    return m < 0.05 ? 0.05 : m > 0.97 ? 0.97 : m;
}

static int tx_end(mn_store *s, int rc)
{
    if (rc) {
        mn_store_rollback(s);
        return rc;
    }
    return mn_store_commit(s);
}

static int key_set(mn_store *s, const char *key, const char *uid, const char *hash)
{
    int rc = mn_store_begin(s);
    return rc ? rc : tx_end(s, mn_store_ingest_key_set(s, key, uid, hash));
}

/* A refusal of the pipeline (mostly a secret, bad text) is one candidate lost, not the run. */
static bool refused(int rc)
{
    return rc == MN_EINVAL || rc == MN_ETOOBIG;
}

int mn_ingest_save_keyed(mn_store *s, const mn_memory_settings *cfg, const char *key,
                         const char *source_hash, json_t *mem, mn_ingest_tally *tally, json_t **out)
{
    char uid[27];
    char *old_hash = NULL;
    json_t *existing = NULL, *res = NULL;
    int rc = mn_store_ingest_key_get(s, key, uid, &old_hash);
    *out = NULL;
    if (rc == 0) {
        rc = mn_store_memory_get(s, &existing, uid);
        if (rc == MN_ENOTFOUND) { /* purged since: save it again */
            mn_error_clear();
            rc = 0;
            goto save;
        }
        if (rc)
            goto out;
        if (json_object_get(existing, "deleted_at") ||
            (source_hash ? old_hash && !strcmp(old_hash, source_hash) : true)) {
            tally->unchanged++;
            *out = json_pack("{s:s,s:s,s:O,s:O,s:O}", "id", uid, "action", "unchanged", "kind",
                             json_object_get(existing, "kind"), "status",
                             json_object_get(existing, "status"), "title",
                             json_object_get(existing, "title"));
            goto out;
        }
        /* the source changed: update what it says, keep what a person changed elsewhere */
        json_t *upd = json_pack("{s:s}", "id", uid);
        static const char *const fields[] = {"title", "body", "kind"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(fields); i++)
            if (json_object_get(mem, fields[i]))
                json_object_set(upd, fields[i], json_object_get(mem, fields[i]));
        static const char *const groups[] = {"context", "scope"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(groups); i++) {
            json_t *g = json_object_get(mem, groups[i]);
            json_t *old = json_object_get(existing, groups[i]);
            json_t *merged = json_object();
            const char *k;
            json_t *v;
            /* keys the source no longer gives are removed (null), the rest replaced */
            json_object_foreach(old, k, v) if (!json_object_get(g, k) && strcmp(k, "branch") &&
                                               strcmp(k, "trigger_keywords"))
                json_object_set_new(merged, k, json_null());
            json_object_foreach(g, k, v) json_object_set(merged, k, v);
            if (json_object_size(merged))
                json_object_set(upd, groups[i], merged);
            json_decref(merged);
        }
        rc = mn_memory_update(&res, s, cfg, upd);
        json_decref(upd);
        if (refused(rc)) {
            mn_log(MN_LOG_WARN, "ingest: '%s' not updated: %s", key, mn_error_last());
            mn_error_clear();
            tally->refused++;
            rc = 0;
            goto out;
        }
        if (rc)
            goto out;
        if ((rc = key_set(s, key, uid, source_hash)) != 0)
            goto out;
        tally->updated++;
        *out = res;
        res = NULL;
        goto out;
    }
    if (rc != MN_ENOTFOUND)
        goto out;
    mn_error_clear();
save:
    /* the ingest picked the words: not a person's (manual) nor an agent's own (agent) */
    {
        json_t *prov = json_object_get(mem, "provenance");
        if (json_is_object(prov) && !json_object_get(prov, "extraction_method"))
            json_object_set_new(prov, "extraction_method", json_string("auto"));
    }
    rc = mn_memory_save(&res, s, cfg, mem);
    if (refused(rc)) {
        mn_log(MN_LOG_WARN, "ingest: '%s' not saved: %s", key, mn_error_last());
        mn_error_clear();
        tally->refused++;
        *out = json_pack("{s:s,s:s}", "action", "refused", "error", "refused by the save pipeline");
        rc = 0;
        goto out;
    }
    if (rc)
        goto out;
    if ((rc = key_set(s, key, json_string_value(json_object_get(res, "id")), source_hash)) != 0)
        goto out;
    const char *action = json_string_value(json_object_get(res, "action"));
    const char *status = json_string_value(json_object_get(res, "status"));
    if (action && !strcmp(action, "merged"))
        tally->merged++;
    else if (action && !strcmp(action, "skipped"))
        tally->refused++; /* a reviewer rejected it before (memory/review.c): not proposed again */
    else if (status && !strcmp(status, "active"))
        tally->saved++;
    else
        tally->queued++;
    *out = res;
    res = NULL;
out:
    json_decref(existing);
    json_decref(res);
    free(old_hash);
    return rc;
}

int mn_ingest_set_status(mn_store *s, const mn_memory_settings *cfg, const char *id,
                         const char *status)
{
    json_t *res = NULL, *upd = json_pack("{s:s,s:s}", "id", id, "status", status);
    int rc = mn_memory_update(&res, s, cfg, upd);
    json_decref(upd);
    json_decref(res);
    return rc;
}

int mn_ingest_supersede(mn_store *s, const mn_memory_settings *cfg, const char *newer,
                        const char *older)
{
    if (!strcmp(newer, older))
        return 0;
    /* the link; the life cycle turns the older one superseded when the newer is active */
    json_t *res = NULL,
           *in = json_pack("{s:s,s:s,s:s}", "from", newer, "kind", "supersedes", "to", older);
    int rc = mn_memory_link(&res, s, cfg, in);
    json_decref(in);
    json_decref(res);
    if (rc == MN_ENOTFOUND) { /* the older one was purged: nothing to supersede */
        mn_error_clear();
        return 0;
    }
    return rc;
}

/* ---- git candidates ---- */

static void add_paths(json_t *dst, const json_t *src, size_t max, size_t maxlen)
{
    size_t i;
    json_t *v;
    json_array_foreach(src, i, v)
    {
        const char *p = json_string_value(v);
        if (json_array_size(dst) >= max)
            break;
        if (p && *p && mn_utf8_len(p, strlen(p)) <= maxlen)
            mn_strv_add(dst, p);
    }
}

static json_t *candidate_memory(const mn_candidate *c, const mn_ingest_commit_meta *m)
{
    json_t *mem = json_object();
    json_object_set_new(mem, "kind", json_string(c->memory_kind));
    json_object_set_new(mem, "title", json_string(c->title ? c->title : c->kind));
    const char *body = c->body.ptr ? c->body.ptr : "";
    size_t blen = strlen(body);
    json_object_set_new(mem, "body",
                        json_stringn(body, blen > BODY_MAX_BYTES
                                               ? mn_utf8_floor(body, blen, BODY_MAX_BYTES)
                                               : blen));
    json_object_set_new(mem, "confidence", json_real(c->confidence));
    if (c->reasons && *c->reasons) {
        char *r = mn_ingest_clip(c->reasons, 4000);
        json_object_set_new(mem, "context", json_pack("{s:s}", "situation", r));
        free(r);
    }
    json_t *scope = json_object(), *paths = json_array(), *tags = json_array();
    add_paths(paths, c->paths, 256, 1024);
    mn_strv_add(tags, "git");
    add_paths(tags, c->tags, TAGS_MAX - 6, 64);
    size_t i;
    json_t *r;
    json_array_foreach(m->refs, i, r)
    {
        char tag[80];
        snprintf(tag, sizeof(tag), "issue:%s", json_string_value(json_object_get(r, "task")));
        if (json_array_size(tags) < TAGS_MAX && strlen(tag) <= 64)
            mn_strv_add(tags, tag);
    }
    if (json_array_size(paths))
        json_object_set(scope, "paths", paths);
    if (c->symbols && json_array_size(c->symbols)) {
        json_t *sy = json_array();
        add_paths(sy, c->symbols, 256, 512);
        json_object_set_new(scope, "symbols", sy);
    }
    json_object_set(scope, "tags", tags);
    if (m->branch)
        json_object_set_new(scope, "branch", json_string(m->branch));
    json_object_set_new(mem, "scope", scope);
    json_decref(paths);
    json_decref(tags);
    json_t *prov = json_pack("{s:s,s:s}", "source", "git", "commit", m->sha);
    if (m->author && *m->author) {
        char *a = mn_ingest_clip(m->author, 200);
        json_object_set_new(prov, "author", json_string(a));
        free(a);
    }
    const char *task = json_string_value(json_object_get(json_array_get(m->refs, 0), "task"));
    if (task)
        json_object_set_new(prov, "task", json_string(task));
    json_object_set_new(mem, "provenance", prov);
    int64_t now = mn_time_now_ms();
    char t[32];
    mn_time_format(t, m->time_ms > 0 && m->time_ms < now ? m->time_ms : now);
    json_object_set_new(mem, "created_at", json_string(t));
    json_t *links = json_array();
    char ref[48];
    snprintf(ref, sizeof(ref), "commit:%s", m->sha);
    json_array_append_new(links, json_pack("{s:s,s:s}", "kind", "derived_from", "to", ref));
    json_array_foreach(c->links, i, r) if (json_array_size(links) < LINKS_MAX)
        json_array_append(links, r);
    json_object_set_new(mem, "links", links);
    return mem;
}

json_t *mn_ingest_candidate_json(const mn_candidate *c, const mn_commit_view *v,
                                 const json_t *saved)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:f}", "kind", c->kind, "memory_kind", c->memory_kind,
                          "title", c->title ? c->title : "", "confidence", c->confidence);
    json_t *ev = json_object();
    if (v)
        json_object_set_new(ev, "sha", json_string(v->sha));
    if (c->file && *c->file)
        json_object_set_new(ev, "file", json_string(c->file));
    if (c->hunk && *c->hunk) {
        char *h = mn_ingest_clip(c->hunk, 600);
        json_object_set_new(ev, "hunk", json_string(h));
        free(h);
    }
    json_object_set_new(o, "evidence", ev);
    if (saved) {
        static const char *const keys[] = {"id", "action", "status"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++)
            if (json_object_get(saved, keys[i]))
                json_object_set(o, keys[i], json_object_get(saved, keys[i]));
    }
    return o;
}

typedef struct {
    mn_store *s;
    json_t *links; /* the save's links: supersedes links are added */
    json_t *olds;  /* the ids they name */
} chain_ctx;

/* A memory the candidate replaces, as a supersedes link of its save (a live one only: a
 * purged one cannot be linked, a forgotten one is not brought back into a chain). */
static int chain_add(chain_ctx *x, const char *uid, const char *note)
{
    json_t *m = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(x->olds, i, v)
    {
        if (!strcmp(json_string_value(v), uid))
            return 0;
    }
    if (json_array_size(x->links) >= LINKS_MAX)
        return 0;
    int rc = mn_store_memory_get(x->s, &m, uid);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        return 0;
    }
    if (rc == 0 && !json_object_get(m, "deleted_at")) {
        json_array_append_new(
            x->links, json_pack("{s:s,s:s,s:s}", "kind", "supersedes", "to", uid, "note", note));
        json_array_append_new(x->olds, json_string(uid));
    }
    json_decref(m);
    return rc;
}

static int chain_state(chain_ctx *x, const char *state)
{
    char key[512], old[27];
    snprintf(key, sizeof(key), "state:%s", state);
    int rc = mn_store_ingest_key_get(x->s, key, old, NULL);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        return 0;
    }
    return rc ? rc : chain_add(x, old, "a later fact about the same thing");
}

static int chain_key(void *payload, const char *key, const char *uid)
{
    (void)key;
    return chain_add(payload, uid, "learnt from the commit this one reverted");
}

/* The links of the memories c replaces: its state's holder, the states it ends, a revert's. */
static int chain_links(mn_store *s, const mn_candidate *c, json_t *links, size_t *n)
{
    chain_ctx x = {s, links, json_array()};
    int rc = 0;
    if (c->state_key)
        rc = chain_state(&x, c->state_key);
    size_t i;
    json_t *st;
    json_array_foreach(c->supersedes_states, i, st)
    {
        if (rc == 0)
            rc = chain_state(&x, json_string_value(st));
    }
    if (rc == 0 && c->supersedes_commit) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "git:%s:", c->supersedes_commit);
        rc = mn_store_ingest_keys_each(s, prefix, chain_key, &x);
    }
    *n = json_array_size(x.olds);
    json_decref(x.olds);
    return rc;
}

int mn_ingest_save_candidate(mn_store *s, const mn_ingest_env *env, const mn_memory_settings *cfg,
                             const mn_ingest_commit_meta *meta, mn_candidate *c,
                             mn_ingest_tally *tally, json_t *items, const char **status)
{
    (void)env;
    char key[600];
    json_t *res = NULL;
    size_t chained = 0;
    const char *action = NULL;
    *status = NULL;
    if (c->global_key)
        snprintf(key, sizeof(key), "git:%s", c->key ? c->key : c->kind);
    else
        snprintf(key, sizeof(key), "git:%s:%s", meta->sha, c->key ? c->key : c->kind);
    json_t *mem = candidate_memory(c, meta);
    int rc = chain_links(s, c, json_object_get(mem, "links"), &chained);
    if (rc == 0)
        rc = mn_ingest_save_keyed(s, cfg, key, NULL, mem, tally, &res);
    json_decref(mem);
    if (rc || !res)
        goto out;
    action = json_string_value(json_object_get(res, "action"));
    const char *id = json_string_value(json_object_get(res, "id"));
    if (!id || !action || (strcmp(action, "created") && strcmp(action, "merged")))
        goto report;
    /* this one holds its state now (a merge: the memory it went into) */
    if (c->state_key) {
        char skey[512];
        snprintf(skey, sizeof(skey), "state:%s", c->state_key);
        if ((rc = key_set(s, skey, id, NULL)) != 0)
            goto out;
    }
    /* the status after the chains (a superseded one may be this one's duplicate); what it
     * replaces is superseded when it is active (else once a reviewer approves it) */
    {
        json_t *now = NULL;
        if (mn_store_memory_get(s, &now, id) == 0) {
            json_object_set(res, "status", json_object_get(now, "status"));
            if (!strcmp(json_string_value(json_object_get(now, "status")), "active"))
                tally->superseded += chained;
        } else {
            mn_error_clear();
        }
        json_decref(now);
    }
report:
    *status = NULL;
    {
        const char *stv = json_string_value(json_object_get(res, "status"));
        if (action && (!strcmp(action, "created") || !strcmp(action, "merged")) && stv)
            *status = !strcmp(stv, "active")    ? "active"
                      : !strcmp(stv, "pending") ? "pending"
                                                : "other";
    }
    if (items && json_array_size(items) < 200) {
        mn_commit_view v;
        memset(&v, 0, sizeof(v));
        snprintf(v.sha, sizeof(v.sha), "%s", meta->sha);
        json_array_append_new(items, mn_ingest_candidate_json(c, &v, res));
    }
out:
    json_decref(res);
    return rc;
}
