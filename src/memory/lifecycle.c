/*
 * lifecycle.c - supersession, and gc of what expired or was replaced long
 * ago (lifecycle.h; the rules and their reasons: docs/internals/memory.md,
 * "Life cycle").
 *
 * Statuses change here by mn_store_memory_set_status, which touches the
 * status column alone: a status change neither re-indexes nor re-embeds a
 * memory (schema v3 and v5 triggers watch the text). A superseded memory
 * keeps its updated_at: gc counts its time as superseded from its newest
 * supersedes link. An archived one's updated_at is the archiving: purge
 * counts from it.
 */
#include "common.h"

#include "memory/lifecycle.h"
#include "store/store_life.h"
#include "util/util.h"
#include "util/vec.h"

#define GC_IDS_SHOWN 100 /* ids listed per set in gc's answer */

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool is_live(const json_t *mem)
{
    return mem && !json_object_get(mem, "deleted_at");
}

/* old (a memory's JSON) turns superseded when it is active or pending; an audit row says by whom.
 */
static int supersede_one(mn_store *s, const char *actor, const json_t *old, const char *by,
                         const char *why)
{
    const char *status = jstr(old, "status");
    if (!is_live(old) || !status ||
        (strcmp(status, "active") != 0 && strcmp(status, "pending") != 0))
        return 0;
    int rc = mn_store_memory_set_status(s, jstr(old, "id"), "superseded", 0);
    if (rc)
        return rc;
    json_t *detail = json_pack("{s:s,s:s}", "by", by, "was", status);
    if (why && *why)
        json_object_set_new(detail, "why", json_string(why));
    rc = mn_store_audit(s, actor, "supersede", jstr(old, "id"), detail);
    json_decref(detail);
    return rc;
}

int mn_memory_supersede(mn_store *s, const char *new_id, const char *old_id, const char *why,
                        const char *actor)
{
    json_t *nw = NULL, *old = NULL;
    int rc;
    if (!strcmp(new_id, old_id))
        return mn_error_set(MN_EINVAL, "a memory cannot supersede itself");
    if ((rc = mn_store_memory_get(s, &nw, new_id)) != 0 ||
        (rc = mn_store_memory_get(s, &old, old_id)) != 0)
        goto out;
    if (!is_live(nw) || !is_live(old)) {
        rc = mn_error_set(MN_ENOTFOUND,
                          "memory '%s' is forgotten: it cannot supersede or be superseded",
                          is_live(nw) ? old_id : new_id);
        goto out;
    }
    rc = mn_store_link_add(s, new_id, "supersedes", old_id, why, mn_time_now_ms());
    if (rc == MN_EEXISTS) {
        mn_error_clear();
        rc = 0;
    }
    if (rc == 0 && !strcmp(jstr(nw, "status"), "active"))
        rc = supersede_one(s, actor, old, new_id, why);
out:
    json_decref(nw);
    json_decref(old);
    return rc;
}

int mn_lifecycle_apply(mn_store *s, const char *actor, const char *id)
{
    json_t *mem = NULL;
    int rc = mn_store_memory_get(s, &mem, id);
    if (rc || !is_live(mem) || strcmp(jstr(mem, "status"), "active") != 0)
        goto out;
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(mem, "links"), i, l)
    {
        const char *to = jstr(l, "to");
        if (strcmp(jstr(l, "kind"), "supersedes") != 0 || !to || strchr(to, ':'))
            continue;
        json_t *old = NULL;
        if ((rc = mn_store_memory_get(s, &old, to)) == 0)
            rc = supersede_one(s, actor, old, id, jstr(l, "note"));
        json_decref(old);
        if (rc == MN_ENOTFOUND) { /* purged meanwhile: the link went with it */
            mn_error_clear();
            rc = 0;
        }
        if (rc)
            break;
    }
out:
    json_decref(mem);
    return rc;
}

int mn_lifecycle_release(mn_store *s, const char *actor, const char *old_id)
{
    json_t *old = NULL, *back = NULL;
    int rc = mn_store_memory_get(s, &old, old_id);
    if (rc || !is_live(old) || strcmp(jstr(old, "status"), "superseded") != 0)
        goto out;
    if ((rc = mn_store_memory_backlinks(s, &back, old_id)) != 0)
        goto out;
    size_t i;
    const json_t *b;
    json_array_foreach(back, i, b)
    {
        if (strcmp(jstr(b, "kind"), "supersedes") != 0)
            continue;
        json_t *by = NULL;
        rc = mn_store_memory_get(s, &by, jstr(b, "from"));
        bool holds = rc == 0 && is_live(by) && !strcmp(jstr(by, "status"), "active");
        json_decref(by);
        if (rc)
            goto out;
        if (holds)
            goto out; /* still replaced by a live memory */
    }
    if ((rc = mn_store_memory_set_status(s, old_id, "active", 0)) == 0)
        rc = mn_store_audit(s, actor, "unsupersede", old_id, NULL);
out:
    json_decref(old);
    json_decref(back);
    return rc;
}

int mn_lifecycle_forgotten(mn_store *s, const char *actor, const char *id)
{
    json_t *mem = NULL;
    int rc = mn_store_memory_get(s, &mem, id);
    size_t i;
    const json_t *l;
    json_array_foreach(rc ? NULL : json_object_get(mem, "links"), i, l)
    {
        const char *to = jstr(l, "to");
        if (strcmp(jstr(l, "kind"), "supersedes") != 0 || !to || strchr(to, ':'))
            continue;
        if ((rc = mn_lifecycle_release(s, actor, to)) == MN_ENOTFOUND) {
            mn_error_clear();
            rc = 0;
        }
        if (rc)
            break;
    }
    json_decref(mem);
    return rc;
}

/* ---- gc ---- */

typedef struct {
    MN_VEC(char *) ids;
    MN_VEC(int64_t) since;
} id_list;

static int collect_row(void *payload, const mn_life_row *r)
{
    id_list *l = payload;
    mn_vec_push(&l->ids, mn_strdup(r->id));
    mn_vec_push(&l->since, r->since);
    return 0;
}

static void ids_release(id_list *l)
{
    for (size_t i = 0; i < l->ids.len; i++)
        free(l->ids.items[i]);
    mn_vec_release(&l->ids);
    mn_vec_release(&l->since);
}

static json_t *set_json(const id_list *l)
{
    json_t *ids = json_array();
    for (size_t i = 0; i < l->ids.len && i < GC_IDS_SHOWN; i++)
        json_array_append_new(ids, json_string(l->ids.items[i]));
    return json_pack("{s:I,s:o}", "count", (json_int_t)l->ids.len, "ids", ids);
}

/* Archive or purge every memory of a list, with its audit row. */
static int act(mn_store *s, const mn_gc_options *o, const id_list *l, bool purge,
               const char *action, const char *reason)
{
    int rc = 0;
    for (size_t i = 0; i < l->ids.len && rc == 0; i++) {
        const char *id = l->ids.items[i];
        char since[32];
        mn_time_format(since, l->since.items[i]);
        rc = purge ? mn_store_memory_purge(s, id)
                   : mn_store_memory_set_status(s, id, "archived", o->now);
        if (rc == 0) {
            json_t *detail = json_pack("{s:s,s:s}", "reason", reason, "since", since);
            rc = mn_store_audit(s, o->actor, action, id, detail);
            json_decref(detail);
        }
    }
    return rc;
}

int mn_lifecycle_gc(mn_store *s, const mn_gc_options *o, json_t **out)
{
    id_list expired = {MN_VEC_INIT, MN_VEC_INIT}, superseded = {MN_VEC_INIT, MN_VEC_INIT},
            archived = {MN_VEC_INIT, MN_VEC_INIT}, forgotten = {MN_VEC_INIT, MN_VEC_INIT};
    mn_expiry e = o->expiry;
    e.at = o->now;
    e.only = true;
    int rc = o->apply ? mn_store_begin(s) : mn_store_begin_read(s);
    if (rc)
        return rc;
    rc = mn_store_life_each(s, MN_LIFE_EXPIRED, &e, 0, collect_row, &expired);
    if (rc == 0 && o->superseded_after > 0)
        rc = mn_store_life_each(s, MN_LIFE_SUPERSEDED, NULL, o->now - o->superseded_after,
                                collect_row, &superseded);
    /* what this run archives is archived now: never purged in the same run */
    if (rc == 0 && o->purge_archived > 0)
        rc = mn_store_life_each(s, MN_LIFE_ARCHIVED, NULL, o->now - o->purge_archived, collect_row,
                                &archived);
    if (rc == 0 && o->purge_forgotten > 0)
        rc = mn_store_life_each(s, MN_LIFE_FORGOTTEN, NULL, o->now - o->purge_forgotten,
                                collect_row, &forgotten);
    if (rc == 0 && o->apply) {
        rc = act(s, o, &expired, false, "expire", "expired");
        if (rc == 0)
            rc = act(s, o, &superseded, false, "archive", "superseded");
        if (rc == 0)
            rc = act(s, o, &archived, true, "purge", "archived");
        if (rc == 0)
            rc = act(s, o, &forgotten, true, "purge", "forgotten");
    }
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    if (rc == 0)
        *out = json_pack("{s:b,s:o,s:o,s:o,s:o}", "dry_run", !o->apply, "expired",
                         set_json(&expired), "superseded", set_json(&superseded), "purged_archived",
                         set_json(&archived), "purged_forgotten", set_json(&forgotten));
    ids_release(&expired);
    ids_release(&superseded);
    ids_release(&archived);
    ids_release(&forgotten);
    return rc;
}
