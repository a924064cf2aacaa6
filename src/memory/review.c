/*
 * review.c - the review queue and its decisions; see review.h.
 *
 * A reviewer's decision is written into the memory itself, in
 * judgement.review = {decision: approved | rejected | merged, by, at, note,
 * into}, so that it travels with export and import and the save pipeline
 * can read it without another table. judgement.held_by names the save that
 * sent an active memory back to review by conflicting with it
 * (mn_review__hold, from memory.c's link_conflict): when that save is
 * rejected or merged away, the held memory comes back active, since
 * nothing else was wrong with it.
 *
 * Neighbours in the queue are the memories sharing an LSH key with the
 * memory's own text (store.h: mn_store_memory_neighbours, the same lookup
 * as the save's), the nearest NEIGHBOURS_LOOKED by estimated Jaccard, those
 * at or over NEIGHBOUR_MIN judged with the save's verdict
 * (text/neardup.h), at most NEIGHBOURS_SHOWN shown: what it may repeat or
 * contradict, whatever their status, forgotten ones left out.
 *
 * A save that repeats a rejected memory is not stored (mn_review__skip_
 * rejected): the exact duplicate the content hash found, or an archived
 * near-duplicate nearby.c judged a duplicate (the two nearest archived
 * ones of its kind), when it is rejected. Episodes are never judged
 * near-duplicates (nearby.c), so only an exact repeat of a rejected
 * episode is held back.
 */
#include "common.h"

#include "memory/memory_internal.h"
#include "memory/review.h"
#include "memory/scrub.h"

#define NEIGHBOURS_LOOKED 8    /* neighbours read, the nearest first */
#define NEIGHBOURS_SHOWN  3    /* and shown, with their verdict */
#define NEIGHBOUR_MIN     0.10 /* estimated Jaccard below which none is judged (as nearby.c) */

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool is_status(const json_t *mem, const char *status)
{
    const char *s = str(mem, "status");
    return s && !strcmp(s, status);
}

/* Waiting for a person: pending (the pipeline was not sure) or quarantined (personal data). */
static bool waiting(const json_t *mem)
{
    return is_status(mem, "pending") || is_status(mem, "quarantined");
}

static json_t *judgement_of(json_t *mem)
{
    json_t *j = json_object_get(mem, "judgement");
    if (!json_is_object(j)) {
        j = json_object();
        json_object_set_new(mem, "judgement", j);
    }
    return j;
}

bool mn_review_is_rejected(const json_t *mem)
{
    const json_t *r = json_object_get(json_object_get(mem, "judgement"), "review");
    const char *d = str(r, "decision");
    return is_status(mem, "archived") && d && !strcmp(d, "rejected");
}

void mn_review__hold(json_t *mem, const char *by_id)
{
    json_object_set_new(judgement_of(mem), "held_by", json_string(by_id));
}

static void set_time(json_t *o, const char *key, int64_t ms)
{
    char t[32];
    mn_time_format(t, ms);
    json_object_set_new(o, key, json_string(t));
}

/* The reviewer's words without a secret (or personal data, as the project redacts it). */
static json_t *clean_note(const mn_memory_settings *cfg, const char *note)
{
    if (!note || !*note)
        return NULL;
    json_t *v = json_string(note);
    if (cfg->scanner && cfg->redact && mn_scrub_json(v, cfg->scanner, cfg->redact, NULL) != 0) {
        json_decref(v);
        return json_string("[note left out: it could not be scanned for secrets]");
    }
    return v;
}

/* Who decided: the person (config user.name, else the login), else the front end. */
static const char *reviewer(const mn_memory_settings *cfg)
{
    return cfg->author && *cfg->author ? cfg->author : cfg->actor ? cfg->actor : "unknown";
}

static void set_review(json_t *mem, const mn_memory_settings *cfg, const char *decision,
                       const char *note, const char *into, int64_t now)
{
    json_t *j = judgement_of(mem),
           *r = json_pack("{s:s,s:s,s:s}", "decision", decision, "by", reviewer(cfg), "via",
                          cfg->actor ? cfg->actor : "unknown");
    set_time(r, "at", now);
    json_t *n = clean_note(cfg, note);
    if (n)
        json_object_set_new(r, "note", n);
    if (into)
        json_object_set_new(r, "into", json_string(into));
    json_object_set_new(j, "review", r);
    json_object_del(j, "held_by");
}

/* A live memory by full id; a forgotten one is not found (it left the queue with forget). */
static int load(mn_store *s, json_t **out, const char *id)
{
    int rc = mn_store_memory_get(s, out, id);
    if (rc == 0 && json_object_get(*out, "deleted_at")) {
        json_decref(*out);
        *out = NULL;
        rc = mn_error_set(MN_ENOTFOUND,
                          "memory '%s' is forgotten: bring it back first (mnemo forget --undo %s)",
                          id, id);
    }
    return rc;
}

static int audit(mn_store *s, const mn_memory_settings *cfg, const char *action, const char *target,
                 json_t *detail)
{
    int rc = mn_store_audit(s, cfg->actor, action, target, detail);
    json_decref(detail);
    return rc;
}

static json_t *ids_field(json_t *item, const char *key)
{
    json_t *a = json_object_get(item, key);
    if (!a) {
        a = json_array();
        json_object_set_new(item, key, a);
    }
    return a;
}

/* The memory ids mem links to with this kind (references such as file:... left out). */
static void linked_ids(const json_t *mem, const char *kind, const char ***out, size_t *n)
{
    const json_t *links = json_object_get(mem, "links");
    size_t i;
    json_t *l;
    *n = 0;
    *out = mn_calloc(json_array_size(links) + 1, sizeof(char *));
    json_array_foreach(links, i, l)
    {
        const char *to = str(l, "to");
        if (to && !strchr(to, ':') && !strcmp(str(l, "kind"), kind))
            (*out)[(*n)++] = to;
    }
}

/*
 * mem leaves the queue (rejected, merged away): a memory it had sent back to
 * review by conflicting with it (held_by) comes back active.
 */
static int release_held(mn_store *s, const mn_memory_settings *cfg, const json_t *mem, json_t *item)
{
    static const char *const kinds[] = {"supersedes", "contradicts"};
    const char *id = str(mem, "id");
    int rc = 0;
    for (size_t k = 0; k < MN_ARRAY_SIZE(kinds) && rc == 0; k++) {
        const char **to;
        size_t n;
        linked_ids(mem, kinds[k], &to, &n);
        for (size_t i = 0; i < n && rc == 0; i++) {
            json_t *other = NULL;
            if (mn_store_memory_get(s, &other, to[i]) != 0) {
                mn_error_clear(); /* purged since: nothing to release */
                continue;
            }
            const char *held = str(json_object_get(other, "judgement"), "held_by");
            if (held && !strcmp(held, id) && is_status(other, "pending") &&
                !json_object_get(other, "deleted_at")) {
                json_object_set_new(other, "status", json_string("active"));
                json_object_del(json_object_get(other, "judgement"), "held_by");
                if ((rc = mn_store_memory_replace(s, other)) == 0)
                    rc = audit(s, cfg, "release", to[i], json_pack("{s:s}", "from", id));
                if (rc == 0)
                    json_array_append_new(ids_field(item, "released"), json_string(to[i]));
            }
            json_decref(other);
        }
        free(to);
    }
    return rc;
}

/* Approved: what it supersedes is superseded; what it contradicts and still waits is named. */
static int approve_follows(mn_store *s, const mn_memory_settings *cfg, const json_t *mem,
                           json_t *item)
{
    const char *id = str(mem, "id");
    const char **to;
    size_t n;
    int rc = 0;
    linked_ids(mem, "supersedes", &to, &n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_t *old = NULL;
        if (mn_store_memory_get(s, &old, to[i]) != 0) {
            mn_error_clear();
            continue;
        }
        if (!json_object_get(old, "deleted_at") &&
            (is_status(old, "active") || is_status(old, "pending"))) {
            json_object_set_new(old, "status", json_string("superseded"));
            json_object_del(judgement_of(old), "held_by");
            if ((rc = mn_store_memory_replace(s, old)) == 0)
                rc = audit(s, cfg, "supersede", to[i], json_pack("{s:s}", "by", id));
            if (rc == 0)
                json_array_append_new(ids_field(item, "superseded"), json_string(to[i]));
        }
        json_decref(old);
    }
    free(to);
    if (rc)
        return rc;
    /* contradictions both ways: the person decides on the other one too */
    json_t *back = NULL, *pending = json_array();
    linked_ids(mem, "contradicts", &to, &n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(pending, json_string(to[i]));
    free(to);
    if ((rc = mn_store_memory_backlinks(s, &back, id)) == 0) {
        size_t i;
        json_t *b;
        json_array_foreach(back, i, b) if (!strcmp(str(b, "kind"), "contradicts") ||
                                           !strcmp(str(b, "kind"), "supersedes"))
            json_array_append_new(pending, json_string(str(b, "from")));
    }
    json_decref(back);
    size_t i;
    json_t *v;
    json_array_foreach(pending, i, v)
    {
        json_t *other = NULL;
        if (mn_store_memory_get(s, &other, json_string_value(v)) != 0) {
            mn_error_clear();
            continue;
        }
        if (waiting(other) && !json_object_get(other, "deleted_at"))
            json_array_append(ids_field(item, "still_pending"), v);
        json_decref(other);
    }
    json_decref(pending);
    return rc;
}

/* Links of the merged memory worth keeping on the one it went into (not its conflict markers). */
static int carry_links(mn_store *s, const json_t *from, const char *into, int64_t now)
{
    const json_t *links = json_object_get(from, "links");
    size_t i;
    json_t *l;
    int rc = 0;
    json_array_foreach(links, i, l)
    {
        const char *kind = str(l, "kind"), *to = str(l, "to");
        if (!strcmp(to, into) || !strcmp(kind, "supersedes") || !strcmp(kind, "contradicts"))
            continue;
        rc = mn_store_link_add(s, into, kind, to, str(l, "note"), now);
        if (rc == MN_EEXISTS) {
            mn_error_clear();
            rc = 0;
        }
        if (rc)
            break;
    }
    return rc;
}

static json_t *decided_item(const json_t *mem, const char *was)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", str(mem, "id"), "kind", str(mem, "kind"),
                     "title", str(mem, "title"), "was", was, "status", str(mem, "status"));
}

static int not_waiting(const json_t *mem, const char *what)
{
    const char *id = str(mem, "id"), *st = str(mem, "status");
    if (is_status(mem, "archived"))
        return mn_error_set(
            MN_EINVAL, "memory '%s' is archived, not waiting for review: nothing to %s", id, what);
    return mn_error_set(MN_EINVAL,
                        "memory '%s' is %s, not waiting for review: nothing to %s (to retire it: "
                        "mnemo edit %s --status archived, or mnemo forget %s)",
                        id, st, what, id, id);
}

int mn_review_decide(mn_store *s, const mn_memory_settings *cfg, mn_review_decision d,
                     const char *id, const char *into, const char *note, json_t *decided)
{
    json_t *mem = NULL, *target = NULL, *item = NULL;
    int64_t now = mn_time_now_ms();
    char *was = NULL;
    int rc = load(s, &mem, id);
    if (rc)
        return rc;
    was = mn_strdup(str(mem, "status"));
    switch (d) {
    case MN_REVIEW_APPROVE:
        if (is_status(mem, "active")) {
            item = decided_item(mem, was);
            json_object_set_new(item, "unchanged", json_true());
            break;
        }
        if (!waiting(mem) && !mn_review_is_rejected(mem)) {
            rc = not_waiting(mem, "approve");
            break;
        }
        json_object_set_new(mem, "status", json_string("active"));
        set_review(mem, cfg, "approved", note, NULL, now);
        item = decided_item(mem, was);
        if ((rc = mn_store_memory_replace(s, mem)) == 0)
            rc = audit(
                s, cfg, "approve", id,
                json_pack("{s:s,s:s,s:O?}", "was", was, "by", reviewer(cfg), "note",
                          json_object_get(json_object_get(judgement_of(mem), "review"), "note")));
        if (rc == 0)
            rc = approve_follows(s, cfg, mem, item);
        break;
    case MN_REVIEW_REJECT:
        if (mn_review_is_rejected(mem)) {
            item = decided_item(mem, was);
            json_object_set_new(item, "unchanged", json_true());
            break;
        }
        if (!waiting(mem)) {
            rc = not_waiting(mem, "reject");
            break;
        }
        json_object_set_new(mem, "status", json_string("archived"));
        set_review(mem, cfg, "rejected", note, NULL, now);
        item = decided_item(mem, was);
        if ((rc = mn_store_memory_replace(s, mem)) == 0)
            rc = audit(
                s, cfg, "reject", id,
                json_pack("{s:s,s:s,s:O?}", "was", was, "by", reviewer(cfg), "note",
                          json_object_get(json_object_get(judgement_of(mem), "review"), "note")));
        if (rc == 0)
            rc = release_held(s, cfg, mem, item);
        break;
    case MN_REVIEW_MERGE:
        if (!into || !strcmp(into, id)) {
            rc =
                mn_error_set(MN_EINVAL, "merge needs another memory to merge '%s' into (into)", id);
            break;
        }
        if (!waiting(mem)) {
            rc = not_waiting(mem, "merge");
            break;
        }
        if ((rc = load(s, &target, into)) != 0)
            break;
        if (!is_status(target, "active") && !is_status(target, "pending")) {
            rc =
                mn_error_set(MN_EINVAL, "memory '%s' is %s: merge into an active or pending memory",
                             into, str(target, "status"));
            break;
        }
        /* the save pipeline's merge: lists united, the more complete text, provenance kept */
        mn_memory__merge_into(target, mem, cfg->review_threshold, now);
        set_time(target, "updated_at", now);
        if ((rc = mn_store_memory_replace(s, target)) != 0 ||
            (rc = mn_memory__keep_provenance(s, into, target, mem, now)) != 0 ||
            (rc = carry_links(s, mem, into, now)) != 0)
            break;
        json_object_set_new(mem, "status", json_string("archived"));
        set_review(mem, cfg, "merged", note, into, now);
        item = decided_item(mem, was);
        json_object_set_new(item, "into", json_string(into));
        if ((rc = mn_store_memory_replace(s, mem)) == 0)
            rc = audit(s, cfg, "merge", into,
                       json_pack("{s:s,s:s,s:s,s:O?}", "from", id, "match", "review", "by",
                                 reviewer(cfg), "provenance", json_object_get(mem, "provenance")));
        if (rc == 0)
            rc = release_held(s, cfg, mem, item);
        break;
    }
    if (rc == 0 && item)
        json_array_append(decided, item);
    json_decref(item);
    json_decref(mem);
    json_decref(target);
    free(was);
    return rc;
}

/* ---- the save pipeline: what was rejected is not proposed again ---- */

int mn_review__skip_rejected(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                             const json_t *mem, const char *exact_id, const mn_nearby *near)
{
    json_t *hit = NULL;
    const char *match = NULL;
    int rc;
    if (exact_id) {
        /* merging into a live exact duplicate is fine; into a rejected one, it is not */
        if ((rc = mn_store_memory_get(s, &hit, exact_id)) != 0)
            return rc;
        match = "exact";
    } else if (near->kind != MN_NEARDUP_DUPLICATE) {
        for (size_t i = 0; i < near->n_archived && !hit; i++) {
            if ((rc = mn_store_memory_get(s, &hit, near->archived[i])) != 0)
                return rc;
            if (!mn_review_is_rejected(hit)) {
                json_decref(hit);
                hit = NULL;
            }
        }
        match = "near";
    }
    if (!hit || !mn_review_is_rejected(hit)) {
        json_decref(hit);
        return 0;
    }
    const char *id = str(hit, "id");
    json_t *detail = json_pack("{s:s,s:s,s:O?}", "reason", "rejected before", "match", match,
                               "provenance", json_object_get(mem, "provenance"));
    rc = audit(s, cfg, "skip", id, detail);
    if (rc == 0) {
        *out = json_pack("{s:s,s:s,s:O,s:O,s:O,s:O,s:s}", "id", id, "action", "skipped", "kind",
                         json_object_get(hit, "kind"), "level", json_object_get(hit, "level"),
                         "status", json_object_get(hit, "status"), "title",
                         json_object_get(hit, "title"), "rejected_before", id);
        mn_buf note = MN_BUF_INIT;
        mn_buf_printf(&note,
                      "not saved: a reviewer rejected this before (memory %s, %s duplicate), and "
                      "what was rejected is not proposed again; a person can bring it back with "
                      "'mnemo review approve %s'",
                      id, match, id);
        json_object_set_new(*out, "note", json_string(note.ptr));
        mn_buf_release(&note);
    }
    json_decref(hit);
    return rc ? rc : 1;
}

/* ---- the queue ---- */

typedef struct {
    char uid[MN_ID_LEN + 1];
    char *kind, *status, *title, *text;
    double jaccard;
} neighbour;

typedef struct {
    const char *self;
    neighbour items[NEIGHBOURS_LOOKED];
    size_t n;
} neighbour_set;

static int keep_neighbour(void *payload, const mn_memory_neighbour *nb)
{
    neighbour_set *set = payload;
    if (nb->deleted || !strcmp(nb->uid, set->self) || nb->jaccard < NEIGHBOUR_MIN ||
        set->n >= NEIGHBOURS_LOOKED)
        return 0;
    neighbour *o = &set->items[set->n++];
    snprintf(o->uid, sizeof(o->uid), "%s", nb->uid);
    o->kind = mn_strdup(nb->kind);
    o->status = mn_strdup(nb->status);
    o->title = mn_strdup(nb->title ? nb->title : "");
    mn_buf t = MN_BUF_INIT;
    const char *parts[] = {nb->title, nb->body, nb->situation, nb->solution, nb->what_failed};
    for (size_t i = 0; i < MN_ARRAY_SIZE(parts); i++)
        if (parts[i] && *parts[i])
            mn_buf_printf(&t, "%s%s", t.len ? "\n" : "", parts[i]);
    o->text = mn_buf_detach(&t);
    o->jaccard = nb->jaccard;
    return 0;
}

static const char *verdict_name(mn_neardup_kind k)
{
    return k == MN_NEARDUP_DUPLICATE     ? "duplicate"
           : k == MN_NEARDUP_CONFLICTING ? "conflicting"
                                         : "distinct";
}

/* What the memory may repeat or contradict: its nearest neighbours with the verdict on each. */
static int neighbours_of(mn_store *s, const json_t *mem, json_t *out)
{
    mn_buf text = MN_BUF_INIT;
    mn_memory_fingerprint_text(&text, mem);
    mn_fingerprint fp;
    neighbour_set set = {str(mem, "id"), {{{0}, NULL, NULL, NULL, NULL, 0}}, 0};
    int rc = mn_fingerprint_compute(&fp, text.ptr, text.len);
    if (rc == 0)
        rc = mn_store_memory_neighbours(s, &fp, NEIGHBOURS_LOOKED + 1, keep_neighbour, &set);
    for (size_t i = 0; i < set.n; i++) {
        neighbour *n = &set.items[i];
        if (rc == 0 && json_array_size(out) < NEIGHBOURS_SHOWN) {
            mn_neardup_verdict v;
            rc = mn_neardup_judge(&v, text.ptr, text.len, n->text, strlen(n->text), NULL);
            if (rc == 0) {
                json_t *reasons = json_array();
                for (size_t r = 0; r < v.n_reasons; r++)
                    json_array_append_new(reasons, json_string(v.reasons[r]));
                json_array_append_new(
                    out, json_pack("{s:s,s:s,s:s,s:s,s:f,s:s,s:o}", "id", n->uid, "kind", n->kind,
                                   "status", n->status, "title", n->title, "similarity",
                                   (double)(int)(n->jaccard * 100 + 0.5) / 100, "verdict",
                                   verdict_name(v.kind), "reasons", reasons));
            }
        }
        free(n->kind);
        free(n->status);
        free(n->title);
        free(n->text);
    }
    mn_buf_release(&text);
    return rc;
}

/* A memory another one names: its title and status, when it is a memory. */
static json_t *named(mn_store *s, const char *id, const char *kind, const char *dir)
{
    json_t *o = json_pack("{s:s,s:s}", "kind", kind, dir, id), *m = NULL;
    if (!strchr(id, ':') && mn_store_memory_get(s, &m, id) == 0) {
        json_object_set(o, "title", json_object_get(m, "title"));
        json_object_set(o, "status", json_object_get(m, "status"));
    }
    mn_error_clear();
    json_decref(m);
    return o;
}

static bool review_link(const char *kind)
{
    return !strcmp(kind, "supersedes") || !strcmp(kind, "contradicts");
}

typedef struct {
    mn_store *s;
    json_t *items;
    int rc;
} list_state;

static int queue_item(void *payload, json_t *mem)
{
    static const char *const plain[] = {"id",    "kind",       "level",      "status",
                                        "title", "body",       "confidence", "judgement",
                                        "scope", "created_at", "updated_at"};
    static const char *const how[] = {
        "source", "extraction_method", "author", "commit", "task", "dialog", "session"};
    list_state *st = payload;
    json_t *item = json_object();
    for (size_t i = 0; i < MN_ARRAY_SIZE(plain); i++)
        if (json_object_get(mem, plain[i]))
            json_object_set(item, plain[i], json_object_get(mem, plain[i]));
    json_t *ctx = json_deep_copy(json_object_get(mem, "context"));
    if (ctx) {
        json_object_del(ctx, "conversation_excerpt"); /* the words are in the body; get shows it */
        json_object_set_new(item, "context", ctx);
    }
    json_t *prov = json_object_get(mem, "provenance"), *h = json_object();
    for (size_t i = 0; i < MN_ARRAY_SIZE(how); i++)
        if (json_object_get(prov, how[i]))
            json_object_set(h, how[i], json_object_get(prov, how[i]));
    json_object_set_new(item, "how", h);

    json_t *links = json_array(), *back = NULL, *near = json_array();
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(mem, "links"), i, l) if (review_link(str(l, "kind")))
        json_array_append_new(links, named(st->s, str(l, "to"), str(l, "kind"), "to"));
    int rc = mn_store_memory_backlinks(st->s, &back, str(mem, "id"));
    json_array_foreach(back, i, l) if (review_link(str(l, "kind")))
        json_array_append_new(links, named(st->s, str(l, "from"), str(l, "kind"), "from"));
    json_decref(back);
    json_object_set_new(item, "links", links);
    if (rc == 0)
        rc = neighbours_of(st->s, mem, near);
    json_object_set_new(item, "neighbours", near);
    json_array_append_new(st->items, item);
    return rc;
}

int mn_review_list(json_t **out, mn_store *s, const mn_memory_filter *f)
{
    int64_t total = 0;
    list_state st = {s, json_array(), 0};
    int rc = mn_store_begin_read(s);
    if (rc == 0) {
        rc = mn_store_memory_count(s, f, &total);
        if (rc == 0)
            rc = mn_store_memory_list(s, f, queue_item, &st);
        if (rc)
            mn_store_rollback(s);
        else
            rc = mn_store_commit(s);
    }
    if (rc) {
        json_decref(st.items);
        return rc;
    }
    *out = json_pack("{s:o,s:I}", "memories", st.items, "total", (json_int_t)total);
    return 0;
}
