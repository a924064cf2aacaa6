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
 * An update changes what the source changed and keeps what a person did
 * (mnemo edit, link_issue's tags). Beside the source's hash, the key keeps
 * a record of what the source gave (source_hash "<hash>\n<record>"):
 *   {"f": {field: [given, stored]}, "t": [tag, ...]}
 * for each field it set (title, body, kind, every key of context and scope
 * but tags: "context.situation") the hash of its value as the source gave it
 * and as it was stored then, and the hashes of its tags as stored (scrubbed).
 * Each field, on a change of the source:
 *   the source gives it, changed or new          the source's value
 *   the source gives it unchanged                the stored one (a person's edit stays)
 *   the source gave it and no longer does, and   removed (context and scope keys;
 *   it is stored as the ingest wrote it          title, body and kind are never)
 *   any other (a person's, or edited by one)     the stored one
 * Tags: the stored ones but those the source gave and no more gives, then
 * the source's new ones (one it gave before that a person removed stays
 * removed). A key saved before the record (its hash alone) keeps every
 * field the source does not give and the union of the tags: a tag the
 * source no longer gives cannot be told from a person's, and keeping a
 * stale tag costs less than losing a person's.
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
#include "memory/scrub.h"
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

/* ---- what the source gave (the record beside its hash) ---- */

#define GIVEN_TAGS_MAX 32

static void value_hash(char out[17], const json_t *v)
{
    char *dump = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    mn_ingest_hash(out, dump ? dump : "", dump ? strlen(dump) : 0);
    free(dump);
}

static bool hash_is(const json_t *h, const json_t *v)
{
    char x[17];
    if (!json_is_string(h) || !v)
        return false;
    value_hash(x, v);
    return !strcmp(json_string_value(h), x);
}

/* The record in a stored source_hash, NULL when it has none (a key saved before it). */
static json_t *given_parse(const char *stored)
{
    const char *nl = stored ? strchr(stored, '\n') : NULL;
    json_t *g = nl ? json_loads(nl + 1, 0, NULL) : NULL;
    if (g && !json_is_object(json_object_get(g, "f"))) {
        json_decref(g);
        g = NULL;
    }
    return g;
}

/* Whether a stored source_hash (with or without its record) says source_hash. */
static bool same_source(const char *stored, const char *source_hash)
{
    size_t n = strlen(source_hash);
    return stored && !strncmp(stored, source_hash, n) && (stored[n] == '\0' || stored[n] == '\n');
}

/* The fields of mem a source may set: name ("title", "context.situation") -> value. */
static json_t *fields_of(const json_t *mem)
{
    json_t *out = json_object();
    static const char *const plain[] = {"title", "body", "kind"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(plain); i++)
        if (json_object_get(mem, plain[i]))
            json_object_set(out, plain[i], json_object_get(mem, plain[i]));
    static const char *const groups[] = {"context", "scope"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(groups); i++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(mem, groups[i]), k, v)
        {
            if (!strcmp(groups[i], "scope") && !strcmp(k, "tags"))
                continue;
            char name[300];
            snprintf(name, sizeof(name), "%s.%s", groups[i], k);
            json_object_set(out, name, v);
        }
    }
    return out;
}

/* A field's value in a memory, by the name fields_of gives it. */
static json_t *field_get(const json_t *mem, const char *name)
{
    const char *dot = strchr(name, '.');
    if (!dot)
        return json_object_get(mem, name);
    char group[16];
    snprintf(group, sizeof(group), "%.*s", (int)(dot - name), name);
    return json_object_get(json_object_get(mem, group), dot + 1);
}

/* The source's tags as the store keeps them: scrubbed as the pipeline scrubs. */
static json_t *given_tags(const mn_memory_settings *cfg, const json_t *mem)
{
    json_t *tags = json_deep_copy(json_object_get(json_object_get(mem, "scope"), "tags"));
    if (!json_is_array(tags)) {
        json_decref(tags);
        return json_array();
    }
    if (cfg->scanner && cfg->redact && mn_scrub_json(tags, cfg->scanner, cfg->redact, NULL) != 0)
        mn_error_clear(); /* the engine failed: the pipeline refuses the save itself */
    return tags;
}

static bool tags_has(const json_t *tags, const char *t)
{
    size_t i;
    json_t *v;
    json_array_foreach(tags, i, v) if (!strcmp(json_string_value(v), t)) return true;
    return false;
}

static bool hashes_have(const json_t *hashes, const char *t)
{
    char h[17];
    json_t *s = json_string(t);
    value_hash(h, s);
    json_decref(s);
    return tags_has(hashes, h);
}

/*
 * The record of what the source gave (mem), now that after (the stored memory) holds it:
 * sent names the fields this write set (NULL: all of them, a save); a field the write did
 * not set keeps its stored hash from before (old), since a person's edit may be what is
 * stored. Returns "<source_hash>\n<record>", malloc'd.
 */
static char *given_record(const mn_memory_settings *cfg, const char *source_hash, const json_t *mem,
                          const json_t *after, const json_t *sent, const json_t *old)
{
    json_t *rec = json_object(), *f = json_object(), *t = json_array();
    json_t *given = fields_of(mem);
    const char *k;
    json_t *v;
    json_object_foreach(given, k, v)
    {
        char gh[17], sh[17];
        value_hash(gh, v);
        const json_t *was = json_object_get(json_object_get(old, "f"), k);
        if (!sent || json_object_get(sent, k) || !json_is_array(was)) {
            const json_t *now = field_get(after, k);
            value_hash(sh, now ? now : json_null());
            json_object_set_new(f, k, json_pack("[s,s]", gh, sh));
        } else {
            json_object_set_new(f, k, json_pack("[s,O]", gh, json_array_get(was, 1)));
        }
    }
    json_t *tags = given_tags(cfg, mem);
    size_t i;
    json_array_foreach(tags, i, v)
    {
        char h[17];
        value_hash(h, v);
        if (json_array_size(t) < GIVEN_TAGS_MAX)
            json_array_append_new(t, json_string(h));
    }
    json_object_set_new(rec, "f", f);
    json_object_set_new(rec, "t", t);
    char *dump = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s\n%s", source_hash, dump ? dump : "{}");
    free(dump);
    json_decref(rec);
    json_decref(tags);
    json_decref(given);
    return mn_buf_detach(&b);
}

/*
 * The update of a memory whose source changed (the rules at the top): into upd, and the
 * names of the fields it sets into sent. old: the record of what the source gave before,
 * NULL when the key has none.
 */
static void given_merge(json_t *upd, json_t *sent, const mn_memory_settings *cfg, const json_t *mem,
                        const json_t *existing, const json_t *old)
{
    json_t *f = json_object_get(old, "f");
    json_t *given = fields_of(mem), *stored = fields_of(existing);
    const char *k;
    json_t *v;
    json_object_foreach(given, k, v)
    {
        const json_t *was = json_object_get(f, k);
        if (json_is_array(was) && hash_is(json_array_get(was, 0), v))
            continue; /* the source did not change it: what is stored stays */
        json_object_set(sent, k, v);
    }
    json_object_foreach(f, k, v)
    {
        const json_t *now = json_object_get(stored, k);
        if (!json_object_get(given, k) && strchr(k, '.') && now &&
            hash_is(json_array_get(v, 1), now))
            json_object_set_new(sent, k, json_null()); /* gone from the source, unedited */
    }
    json_object_foreach(sent, k, v)
    {
        const char *dot = strchr(k, '.');
        if (!dot) {
            json_object_set(upd, k, v);
            continue;
        }
        char group[16];
        snprintf(group, sizeof(group), "%.*s", (int)(dot - k), k);
        json_t *g = json_object_get(upd, group);
        if (!g) {
            g = json_object();
            json_object_set_new(upd, group, g);
        }
        json_object_set(g, dot + 1, v);
    }
    /* tags: a person's stay, the ones the source dropped go, its new ones come */
    const json_t *was_tags = json_object_get(old, "t");
    json_t *now_tags = given_tags(cfg, mem);
    const json_t *cur = json_object_get(json_object_get(existing, "scope"), "tags");
    json_t *tags = json_array();
    size_t i;
    json_array_foreach(cur, i, v)
    {
        const char *t = json_string_value(v);
        if (t && (tags_has(now_tags, t) || !was_tags || !hashes_have(was_tags, t)))
            mn_strv_add(tags, t);
    }
    json_array_foreach(now_tags, i, v)
    {
        const char *t = json_string_value(v);
        if (t && json_array_size(tags) < GIVEN_TAGS_MAX &&
            !(was_tags && hashes_have(was_tags, t) && !tags_has(cur, t)))
            mn_strv_add(tags, t);
    }
    if (!json_equal(tags, cur ? cur : json_array())) {
        json_t *g = json_object_get(upd, "scope");
        if (!g) {
            g = json_object();
            json_object_set_new(upd, "scope", g);
        }
        json_object_set(g, "tags", tags);
    }
    json_decref(tags);
    json_decref(now_tags);
    json_decref(given);
    json_decref(stored);
}

/* A refusal of the pipeline (mostly a secret, bad text) is one candidate lost, not the run. */
static bool refused(int rc)
{
    return rc == MN_EINVAL || rc == MN_ETOOBIG;
}

/* The key's record of a write: the source's hash and what it gave (NULL hash: none). */
static int key_record(mn_store *s, const mn_memory_settings *cfg, const char *key, const char *uid,
                      const char *source_hash, const json_t *mem, const json_t *sent,
                      const json_t *old)
{
    if (!source_hash)
        return key_set(s, key, uid, NULL);
    json_t *after = NULL;
    int rc = mn_store_memory_get(s, &after, uid);
    if (rc) /* cannot happen inside one run; the hash alone then, as before the record */
        return rc == MN_ENOTFOUND ? (mn_error_clear(), key_set(s, key, uid, source_hash)) : rc;
    char *rec = given_record(cfg, source_hash, mem, after, sent, old);
    rc = key_set(s, key, uid, rec);
    free(rec);
    json_decref(after);
    return rc;
}

int mn_ingest_save_keyed(mn_store *s, const mn_memory_settings *cfg, const char *key,
                         const char *source_hash, json_t *mem, mn_ingest_tally *tally, json_t **out)
{
    char uid[27];
    char *old_hash = NULL;
    json_t *existing = NULL, *res = NULL, *old = NULL, *sent = NULL;
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
            (source_hash ? same_source(old_hash, source_hash) : true)) {
            tally->unchanged++;
            *out = json_pack("{s:s,s:s,s:O,s:O,s:O}", "id", uid, "action", "unchanged", "kind",
                             json_object_get(existing, "kind"), "status",
                             json_object_get(existing, "status"), "title",
                             json_object_get(existing, "title"));
            goto out;
        }
        /* the source changed: update what it changed, keep what a person did (above) */
        json_t *upd = json_pack("{s:s}", "id", uid);
        old = given_parse(old_hash);
        sent = json_object();
        given_merge(upd, sent, cfg, mem, existing, old);
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
        if ((rc = key_record(s, cfg, key, uid, source_hash, mem, sent, old)) != 0)
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
    if ((rc = key_record(s, cfg, key, json_string_value(json_object_get(res, "id")), source_hash,
                         mem, NULL, NULL)) != 0)
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
    json_decref(old);
    json_decref(sent);
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
