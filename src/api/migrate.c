/*
 * migrate.c - mnemo migrate: move a store's team knowledge to another
 * store, SQLite to PostgreSQL and back (mnemo/migrate.h).
 *
 * How: the source is opened read-only (nothing is ever written to it),
 * once without a project to list its projects (store_migrate.h), then
 * once per project. Before any project is written, the target is opened
 * without a project and each project moved is looked up there: one that
 * holds memories is refused (unless merge), so a refusal leaves the target
 * as it was. Then per project, in one write transaction on the target:
 * config (the source's keys; a key stored in embed.key, not a reference
 * to one, is skipped and named), the memories through the import path
 * (mn_memory_import_within: the same checks and scrub as `mnemo import`,
 * existing ids skipped), their links, the audit log oldest first at its
 * own times, and one "migrate" row saying what came from where.
 *
 * Verification, after each commit: both sides' memories are written as
 * `mnemo export` writes them (JSON Lines, forgotten ones included) and
 * the bytes compared; without merge the audit rows (without their ids,
 * which each store numbers itself) and the config keys must be the same
 * too. Any difference fails loudly naming the project and the first
 * difference. With merge, every memory of the source must be in the
 * target, byte for byte unless the target had that id already.
 *
 * Not moved: the code index (rebuilt by `mnemo index`), served answers and
 * feedback rows (short-lived; their effect is in each memory's counters,
 * which are moved), access tokens (mint new ones on the server).
 *
 * Locations are shown as mn_store_redact makes them: no password.
 */
#include "common.h"

#include "api/api_internal.h"
#include "mnemo/format.h"
#include "mnemo/migrate.h"
#include "store/store_migrate.h"
#include "util/map.h"
#include "util/vec.h"

typedef struct {
    char *name;
    int64_t memories;
} project_ent;

typedef MN_VEC(project_ent) project_vec;

static void projects_release(project_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i].name);
    mn_vec_release(v);
}

static int add_project(void *payload, const mn_project_row *p)
{
    project_ent e = {mn_strdup(p->name), p->memories};
    mn_vec_push((project_vec *)payload, e);
    return 0;
}

static const project_ent *find_project(const project_vec *v, const char *name)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i].name, name) == 0)
            return &v->items[i];
    return NULL;
}

/* Open a store for migrate: no project (name NULL), or one; the source read-only, never made. */
static int open_store(mn_store **out, const char *loc, const char *name, bool source)
{
    mn_store_options so = MN_STORE_OPTIONS_INIT;
    so.create = !source;
    so.read_only = source;
    so.project = name;
    so.any_project = name == NULL;
    int rc = mn_store_open(out, loc, &so);
    if (rc)
        mn_error_prefix("migrate: %s", source ? "the source" : "the target");
    return rc;
}

static int append_memory(void *payload, json_t *mem)
{
    json_array_append(payload, mem);
    return 0;
}

/* What one side holds of a project, read in one snapshot. */
typedef struct {
    json_t *memories; /* canonical shape, by id, forgotten ones included */
    json_t *config;   /* {key: value} */
    json_t *audit;    /* newest first */
} side;

static void side_release(side *d)
{
    json_decref(d->memories);
    json_decref(d->config);
    json_decref(d->audit);
    memset(d, 0, sizeof(*d));
}

static int read_side(side *d, mn_store *s)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    mn_audit_filter af = {0};
    int64_t total = 0;
    f.include_deleted = true; /* as a full export: forgotten memories are data too */
    memset(d, 0, sizeof(*d));
    d->memories = json_array();
    int rc = mn_store_begin_read(s);
    if (rc == 0) {
        rc = mn_store_memory_list(s, &f, append_memory, d->memories);
        if (rc == 0)
            rc = mn_store_config_all(s, &d->config);
        if (rc == 0)
            rc = mn_store_audit_list(s, &af, &d->audit, &total);
        if (rc)
            mn_store_rollback(s);
        else
            rc = mn_store_commit(s);
    }
    if (rc)
        side_release(d);
    return rc;
}

/*
 * A config value that is a key itself (embed.key as an older mnemo stored
 * it; config.c says why keys are not stored): never copied into another
 * store, where it would be one more place holding it.
 */
static bool secret_value(const char *key, const char *value)
{
    return strcmp(key, "embed.key") == 0 && *value && strncmp(value, "env:", 4) != 0 &&
           strncmp(value, "file:", 5) != 0;
}

/* The memories as `mnemo export` writes them (JSON Lines), malloc'd. */
static int export_bytes(char **out, size_t *len, const json_t *memories)
{
    return mn_format_write(out, len, MN_FORMAT_JSONL, memories);
}

/* The first line where a and b differ, for the message (its first 60 bytes). */
static void first_difference(mn_buf *why, const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, line = 1, start = 0;
    while (i < alen && i < blen && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    mn_buf_printf(why, "line %zu differs (source '%.60s')", line, start < alen ? a + start : "");
}

/* The audit rows without their ids (each store numbers its own). */
static json_t *rows_without_ids(const json_t *rows, size_t skip_first)
{
    json_t *out = json_array();
    for (size_t i = skip_first; i < json_array_size(rows); i++) {
        json_t *r = json_copy(json_array_get(rows, i));
        json_object_del(r, "id");
        json_array_append_new(out, r);
    }
    return out;
}

/* {id: memory} of a list of memories (borrowed values, referenced). */
static json_t *by_id_of(const json_t *memories)
{
    json_t *out = json_object();
    size_t i;
    json_t *m;
    json_array_foreach(memories, i, m)
    {
        json_object_set(out, json_string_value(json_object_get(m, "id")), m);
    }
    return out;
}

/* A row's identity across stores: everything but its id, as compact JSON (malloc'd). */
static char *row_key(const json_t *row)
{
    json_t *r = json_copy((json_t *)row);
    json_object_del(r, "id");
    char *k = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(r);
    return k;
}

/* Compare what the target holds with what the source held; a difference is MN_ECORRUPT. */
static int verify(const char *project, const side *src, const side *dst, const json_t *skipped_ids,
                  const json_t *skipped_keys, bool merge)
{
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    mn_buf why = MN_BUF_INIT;
    int rc = export_bytes(&a, &alen, src->memories);
    if (rc == 0 && !merge) {
        if ((rc = export_bytes(&b, &blen, dst->memories)) == 0 &&
            (alen != blen || memcmp(a, b, alen) != 0)) {
            mn_buf_puts(&why, "the exports differ: ");
            first_difference(&why, a, alen, b, blen);
        }
    } else if (rc == 0) {
        /* every source memory there, as it was unless the target had its id before; ids
         * looked up in a hash (a JSON object), not by scanning */
        json_t *by_id = by_id_of(dst->memories);
        size_t i;
        const json_t *m;
        json_array_foreach(src->memories, i, m)
        {
            const char *id = json_string_value(json_object_get(m, "id"));
            const json_t *there = json_object_get(by_id, id);
            bool kept = json_object_get(skipped_ids, id) != NULL;
            if (!there || (!kept && !json_equal(m, there))) {
                mn_buf_printf(&why, "memory '%s' is %s", id, there ? "not the same" : "missing");
                break;
            }
        }
        json_decref(by_id);
    }
    if (rc == 0 && !why.len) {
        /* every key moved holds the source's value */
        const char *key;
        json_t *v;
        json_object_foreach(src->config, key, v)
        {
            bool skipped = false;
            size_t i;
            const json_t *k;
            json_array_foreach(skipped_keys, i, k)
            {
                skipped = skipped || !strcmp(json_string_value(k), key);
            }
            if (!skipped && !merge && !json_equal(v, json_object_get(dst->config, key))) {
                mn_buf_printf(&why, "config key '%s' differs", key);
                break;
            }
        }
    }
    if (rc == 0 && !why.len && !merge) {
        /* the target's newest row is the migrate row itself */
        json_t *x = rows_without_ids(src->audit, 0), *y = rows_without_ids(dst->audit, 1);
        if (!json_equal(x, y))
            mn_buf_printf(&why, "the audit logs differ (%zu rows, %zu moved)", json_array_size(x),
                          json_array_size(y));
        json_decref(x);
        json_decref(y);
    }
    if (rc == 0 && why.len)
        rc = mn_error_set(MN_ECORRUPT,
                          "migrate: project '%s' was moved but does not read back the same: %s; "
                          "the target holds what was written: compare 'mnemo export' of both",
                          project, why.ptr);
    free(a);
    free(b);
    mn_buf_release(&why);
    return rc;
}

/* Write one project's rows into the target (ctx), in one transaction. */
static int write_project(mn_ctx *ctx, const side *src, const json_t *had_audit,
                         const char *from_shown, bool merge, json_t *report)
{
    /* merging: a row the target has already (moved before) is not written twice */
    mn_map had = MN_MAP_INIT;
    size_t n;
    const json_t *row;
    json_array_foreach(had_audit, n, row)
    {
        char *k = row_key(row);
        mn_map_set(&had, k, NULL);
        free(k);
    }
    const char *key;
    json_t *v, *counts = NULL, *skipped_keys = json_array(), *detail = NULL;
    const mn_memory_settings *cfg;
    int64_t nconfig = 0, naudit = 0;
    int rc = mn_store_begin(ctx->store);
    if (rc)
        goto out;
    json_object_foreach(src->config, key, v)
    {
        const char *value = json_string_value(v);
        char *value_there = NULL;
        if (!value)
            continue;
        if (secret_value(key, value)) {
            json_array_append_new(skipped_keys, json_string(key));
            continue;
        }
        /* merging: the target's own settings stay */
        if (merge && mn_store_config_get(ctx->store, &value_there, key) == 0) {
            free(value_there);
            continue;
        }
        mn_error_clear();
        if ((rc = mn_store_config_set(ctx->store, key, value)) != 0)
            goto fail;
        nconfig++;
    }
    /* the settings the import scrubs with are the project's, as just moved */
    mn_api__config_changed(ctx);
    ctx->settings_loaded = false;
    if ((rc = mn_api__settings(ctx, &cfg)) != 0)
        goto fail;
    json_t *in = json_pack("{s:O,s:s}", "memories", src->memories, "on_conflict", "skip");
    rc = mn_memory_import_within(&counts, ctx->store, cfg, in);
    json_decref(in);
    if (rc)
        goto fail;
    /* oldest first, each at its own time: the log reads as it did */
    for (size_t i = json_array_size(src->audit); i-- > 0;) {
        const json_t *r = json_array_get(src->audit, i);
        int64_t ts;
        char *k = row_key(r);
        bool dup = mn_map_has(&had, k);
        free(k);
        if (dup)
            continue;
        if ((rc = mn_time_parse(&ts, json_string_value(json_object_get(r, "time")))) != 0)
            goto fail;
        rc = mn_store_audit_put(ctx->store, ts, json_string_value(json_object_get(r, "actor")),
                                json_string_value(json_object_get(r, "op")),
                                json_string_value(json_object_get(r, "target")),
                                json_object_get(r, "detail"));
        if (rc)
            goto fail;
        naudit++;
    }
    detail =
        json_pack("{s:s,s:O,s:O,s:O,s:I,s:I}", "from", from_shown, "memories",
                  json_object_get(counts, "imported"), "skipped",
                  json_object_get(counts, "skipped"), "links", json_object_get(counts, "links"),
                  "config", (json_int_t)nconfig, "audit", (json_int_t)naudit);
    if ((rc = mn_store_audit(ctx->store, ctx->actor, "migrate", NULL, detail)) != 0 ||
        (rc = mn_store_commit(ctx->store)) != 0)
        goto fail;
    json_object_set(report, "memories", json_object_get(counts, "imported"));
    json_object_set(report, "skipped", json_object_get(counts, "skipped"));
    json_object_set(report, "links", json_object_get(counts, "links"));
    json_object_set_new(report, "config", json_integer(nconfig));
    json_object_set(report, "config_skipped", skipped_keys);
    json_object_set_new(report, "audit", json_integer(naudit));
    goto out;
fail:
    mn_store_rollback(ctx->store);
out:
    json_decref(counts);
    json_decref(detail);
    json_decref(skipped_keys);
    mn_map_release(&had);
    return rc;
}

/* The ids of the source the target had before (merge): {id: true}. */
static json_t *ids_in(const json_t *src, const json_t *dst)
{
    json_t *out = json_object(), *there = by_id_of(dst);
    size_t i;
    const json_t *m;
    json_array_foreach(src, i, m)
    {
        const char *id = json_string_value(json_object_get(m, "id"));
        if (json_object_get(there, id))
            json_object_set_new(out, id, json_true());
    }
    json_decref(there);
    return out;
}

/* Move one project: read it, write it, read both sides again and compare. */
static int move_project(const mn_migrate_options *o, const char *name, const char *from_shown,
                        json_t *report)
{
    mn_store *src = NULL;
    mn_ctx *ctx = NULL;
    side s = {0}, before = {0}, after = {0};
    json_t *kept = NULL;
    mn_ctx_options co = MN_CTX_OPTIONS_INIT;
    co.db_path = o->to;
    co.project = name;
    co.create = true;
    co.front_end = MN_FRONT_LOCAL_CLI;
    co.actor = "cli";
    co.role = MN_ROLE_ADMIN;
    int rc = open_store(&src, o->from, name, true);
    if (rc == 0)
        rc = read_side(&s, src);
    if (rc == 0 && (rc = mn_ctx_open(&ctx, &co)) != 0)
        mn_error_prefix("migrate: the target");
    if (rc == 0 && o->merge && (rc = read_side(&before, ctx->store)) == 0)
        kept = ids_in(s.memories, before.memories);
    if (rc == 0)
        rc = write_project(ctx, &s, before.audit, from_shown, o->merge, report);
    if (rc == 0)
        rc = read_side(&after, ctx->store);
    if (rc == 0)
        rc = verify(name, &s, &after, kept, json_object_get(report, "config_skipped"), o->merge);
    json_decref(kept);
    side_release(&s);
    side_release(&before);
    side_release(&after);
    mn_ctx_free(ctx);
    mn_store_free(src);
    return rc;
}

int mn_migrate(json_t **out, const mn_migrate_options *o)
{
    mn_store *src = NULL, *dst = NULL;
    project_vec have = MN_VEC_INIT, there = MN_VEC_INIT;
    char *from_shown = NULL, *to_shown = NULL;
    json_t *projects = json_array();
    int rc = 0;
    *out = NULL;
    if (!o || o->version != MN_MIGRATE_OPTIONS_VERSION || !o->from || !o->to || !*o->from ||
        !*o->to) {
        rc = mn_error_set(MN_EINVAL, "migrate needs --from LOCATION and --to LOCATION");
        goto out;
    }
    from_shown = mn_store_redact(o->from);
    to_shown = mn_store_redact(o->to);
    if (strcmp(o->from, o->to) == 0) {
        rc = mn_error_set(MN_EINVAL, "migrate: '%s' is both the source and the target", to_shown);
        goto out;
    }
    /* the projects, and whether the target may take them: all before anything is written */
    if ((rc = open_store(&src, o->from, NULL, true)) != 0 ||
        (rc = mn_store_projects_each(src, add_project, &have)) != 0)
        goto out;
    mn_store_free(src);
    src = NULL;
    if (o->project && !find_project(&have, o->project)) {
        rc = mn_error_set(MN_ENOTFOUND, "migrate: project '%s' not found in '%s'", o->project,
                          from_shown);
        goto out;
    }
    if (!have.len) {
        rc = mn_error_set(MN_ENOTFOUND, "migrate: '%s' holds no project: nothing to move",
                          from_shown);
        goto out;
    }
    if ((rc = open_store(&dst, o->to, NULL, false)) != 0 ||
        (rc = mn_store_projects_each(dst, add_project, &there)) != 0)
        goto out;
    mn_store_free(dst);
    dst = NULL;
    for (size_t i = 0; i < have.len && !o->merge; i++) {
        const project_ent *t = find_project(&there, have.items[i].name);
        if ((o->project && strcmp(o->project, have.items[i].name) != 0) || !t || !t->memories)
            continue;
        rc = mn_error_set(MN_EEXISTS,
                          "migrate: project '%s' in '%s' holds %lld memories already; nothing "
                          "was moved: use --merge to add to them (memories whose id is there "
                          "are kept as they are)",
                          t->name, to_shown, (long long)t->memories);
        goto out;
    }
    for (size_t i = 0; i < have.len; i++) {
        const char *name = have.items[i].name;
        if (o->project && strcmp(o->project, name) != 0)
            continue;
        json_t *report = json_pack("{s:s}", "name", name);
        json_array_append_new(projects, report);
        if ((rc = move_project(o, name, from_shown, report)) != 0)
            goto out;
    }
    *out = json_pack("{s:s,s:s,s:O,s:b,s:b,s:s}", "from", from_shown, "to", to_shown, "projects",
                     projects, "merge", o->merge, "verified", 1, "code_index",
                     "not moved: run 'mnemo index' against the new store");
out:
    mn_store_free(src);
    mn_store_free(dst);
    projects_release(&have);
    projects_release(&there);
    json_decref(projects);
    free(from_shown);
    free(to_shown);
    return rc;
}
