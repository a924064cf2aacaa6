/*
 * migrate.c - mnemo migrate: move a store's team knowledge to another
 * store, SQLite to PostgreSQL and back (mnemo/migrate.h).
 *
 * How: the source is opened read-only (nothing is ever written to it),
 * once without a project to list its projects (store_migrate.h), then
 * once per project. Before any project is written, the target is opened
 * without a project and each project moved is looked up there: one that
 * holds memories is refused (unless merge), so a refusal leaves the target
 * as it was. Then per project, from one read snapshot of the source held
 * until its verification ends, in one write transaction on the target:
 * config (the source's keys; a key stored in embed.key, not a reference
 * to one, is skipped and named), the memories through the import path a
 * page at a time (mn_memory_import_rows: the same checks and scrub as
 * `mnemo import`, existing ids skipped), their links in a second pass over
 * the same pages (a link may point to a memory of a later page), the audit
 * log oldest first at its own times, and one "migrate" row saying what
 * came from where.
 *
 * Bounded memory: no side is ever held whole. Memories are read in pages
 * of PAGE_ROWS by id (keyset: the ids after the last one read, as cheap at
 * any depth), audit rows by (ts, id); a SQLite side is read without its
 * memory map and with a small page cache (mn_store_stream), a PostgreSQL
 * side's results are a page each. What grows with the store is only what
 * --merge must remember: the ids the target had, and a 128-bit hash of each
 * audit row it held.
 *
 * Verification, after each commit, page by page in the same order on
 * both sides: each memory as the line `mnemo export` writes for it (JSON
 * Lines, forgotten ones included), stopping at the first line that
 * differs; without merge the audit rows (without their ids, which each
 * store numbers itself) and the config keys must be the same too. Any
 * difference fails loudly naming the project and the first difference.
 * With merge, every memory of the source must be in the target, byte for
 * byte unless the target had that id already (both lists read by id and
 * merged).
 *
 * Not moved: the code index (rebuilt by `mnemo index`), served answers and
 * feedback rows (short-lived; their effect is in each memory's counters,
 * which are moved), access tokens (mint new ones on the server).
 *
 * Locations are shown as mn_store_redact makes them: no password.
 */
#include "common.h"
#include <xxhash.h>

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

/* ---- pages ---- */

/* Rows a page holds: memories or audit rows read, written or compared at once. */
#define PAGE_ROWS 500

static size_t page_rows(void)
{
    /* MNEMO_MIGRATE_PAGE: for the tests only, pages of a few rows so that a small store
     * crosses many of their boundaries (links to a later page, audit rows of one time) */
    const char *e = getenv("MNEMO_MIGRATE_PAGE");
    long long v = e ? strtoll(e, NULL, 10) : 0;
    return v > 0 && v < PAGE_ROWS ? (size_t)v : PAGE_ROWS;
}

/* A side's memories a page at a time, by id (keyset: the ids after the last one read). */
typedef struct {
    mn_store *s;
    size_t rows;
    char after[MN_ID_LEN + 1]; /* "" before the first page */
    bool done;
} mem_pages;

static void mem_pages_init(mem_pages *p, mn_store *s)
{
    memset(p, 0, sizeof(*p));
    p->s = s;
    p->rows = page_rows();
}

/* The next page (new reference), forgotten memories included as in a full export; [] at the end. */
static int mem_page(mem_pages *p, json_t **out)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.include_deleted = true;
    f.limit = (int64_t)p->rows;
    f.after = p->after[0] ? p->after : NULL;
    *out = json_array();
    if (p->done)
        return 0;
    int rc = mn_store_memory_list(p->s, &f, append_memory, *out);
    size_t n = json_array_size(*out);
    if (rc) {
        json_decref(*out);
        *out = NULL;
        return rc;
    }
    if (n)
        snprintf(p->after, sizeof(p->after), "%s",
                 json_string_value(json_object_get(json_array_get(*out, n - 1), "id")));
    p->done = n == 0;
    return 0;
}

/* One memory after another over mem_pages: *mem borrowed until the next call, NULL at the end. */
typedef struct {
    mem_pages pages;
    json_t *page;
    size_t pos;
} mem_cursor;

static int mem_next(mem_cursor *c, const json_t **mem)
{
    *mem = NULL;
    if (!c->page || c->pos == json_array_size(c->page)) {
        json_decref(c->page);
        c->page = NULL;
        c->pos = 0;
        int rc = mem_page(&c->pages, &c->page);
        if (rc)
            return rc;
    }
    *mem = json_array_get(c->page, c->pos++);
    return 0;
}

/*
 * A side's audit log a page at a time, oldest first (ts, then id: the order
 * it is written in), keyset on the last row read. The end is an empty page,
 * not a short one: a row the store cannot return (not UTF-8) shortens its
 * page as the whole log read at once skipped it.
 */
typedef struct {
    mn_store *s;
    size_t rows;
    int64_t after_ts, after_id; /* after_id 0: before the first page */
    bool done;
} audit_pages;

static void audit_pages_init(audit_pages *p, mn_store *s)
{
    memset(p, 0, sizeof(*p));
    p->s = s;
    p->rows = page_rows();
}

static int audit_page(audit_pages *p, json_t **out)
{
    mn_audit_filter f = {0};
    f.oldest_first = true;
    f.limit = (int64_t)p->rows;
    f.after_ts = p->after_ts;
    f.after_id = p->after_id;
    *out = NULL;
    if (p->done) {
        *out = json_array();
        return 0;
    }
    int rc = mn_store_audit_list(p->s, &f, out, NULL);
    if (rc)
        return rc;
    size_t n = json_array_size(*out);
    if (n) {
        const json_t *last = json_array_get(*out, n - 1);
        if ((rc = mn_time_parse(&p->after_ts, json_string_value(json_object_get(last, "time")))) !=
            0) {
            json_decref(*out);
            *out = NULL;
            return rc;
        }
        p->after_id = json_integer_value(json_object_get(last, "id"));
    }
    p->done = n == 0;
    return 0;
}

/* Rows of a side's audit log (every one: the count the store keeps, not a read of them). */
static int audit_total(mn_store *s, int64_t *total)
{
    mn_audit_filter f = {0};
    json_t *rows = NULL;
    f.limit = 1;
    int rc = mn_store_audit_list(s, &f, &rows, total);
    json_decref(rows);
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

/* A memory as a line of `mnemo export` (format.c's JSON Lines, without the newline), malloc'd. */
static int export_line(char **out, const json_t *mem)
{
    *out = json_dumps(mem, MN_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
    return *out ? 0
                : mn_error_set(MN_EINVAL, "memory '%s' cannot be written as JSON",
                               json_string_value(json_object_get(mem, "id")));
}

/* A row without its id (each store numbers its own) (new reference). */
static json_t *row_without_id(const json_t *row)
{
    json_t *r = json_copy((json_t *)row);
    json_object_del(r, "id");
    return r;
}

/*
 * A row's identity across stores: everything but its id, as compact JSON,
 * hashed (XXH3-128, hex): the set of a target's rows is 33 bytes a row,
 * not the rows.
 */
static void row_key(char out[33], const json_t *row)
{
    json_t *r = row_without_id(row);
    char *k = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    XXH128_hash_t h = XXH3_128bits(k ? k : "", k ? strlen(k) : 0);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
    free(k);
    json_decref(r);
}

/* The keys of every audit row a side holds (merge: a row the target has is not written twice). */
static int audit_keys(mn_store *s, mn_map *keys)
{
    audit_pages p;
    audit_pages_init(&p, s);
    int rc = mn_store_begin_read(s);
    while (rc == 0) {
        json_t *rows = NULL;
        size_t i;
        const json_t *row;
        if ((rc = audit_page(&p, &rows)) != 0)
            break;
        json_array_foreach(rows, i, row)
        {
            char k[33];
            row_key(k, row);
            mn_map_set(keys, k, NULL);
        }
        bool end = json_array_size(rows) == 0;
        json_decref(rows);
        if (end)
            break;
    }
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* ---- verification ---- */

/* Both sides' memories as export lines, one pair at a time: the first that differs. */
static int compare_exports(mn_buf *why, mn_store *src, mn_store *dst)
{
    mem_cursor a = {0}, b = {0};
    size_t line = 0;
    int rc = 0;
    mem_pages_init(&a.pages, src);
    mem_pages_init(&b.pages, dst);
    for (;;) {
        const json_t *x, *y;
        char *la = NULL, *lb = NULL;
        if ((rc = mem_next(&a, &x)) != 0 || (rc = mem_next(&b, &y)) != 0)
            break;
        if (!x && !y)
            break;
        line++;
        if ((x && (rc = export_line(&la, x)) != 0) || (y && (rc = export_line(&lb, y)) != 0)) {
            free(la);
            break;
        }
        bool same = la && lb && strcmp(la, lb) == 0;
        if (!same)
            mn_buf_printf(why, "the exports differ: line %zu differs (source '%.60s')", line,
                          la ? la : "");
        free(la);
        free(lb);
        if (!same)
            break;
    }
    json_decref(a.page);
    json_decref(b.page);
    return rc;
}

/*
 * Merging: every source memory is in the target, as it was unless the
 * target had its id before (kept). Both read by id: a merge of two sorted
 * lists, a page of each at a time.
 */
static int compare_merged(mn_buf *why, mn_store *src, mn_store *dst, const mn_map *kept)
{
    mem_cursor a = {0}, b = {0};
    const json_t *x = NULL, *y = NULL;
    int rc;
    mem_pages_init(&a.pages, src);
    mem_pages_init(&b.pages, dst);
    if ((rc = mem_next(&a, &x)) == 0)
        rc = mem_next(&b, &y);
    while (rc == 0 && x) {
        const char *id = json_string_value(json_object_get(x, "id"));
        int order = y ? strcmp(json_string_value(json_object_get(y, "id")), id) : 1;
        if (order < 0) { /* the target's own memory */
            rc = mem_next(&b, &y);
            continue;
        }
        if (order > 0 || (!mn_map_has(kept, id) && !json_equal((json_t *)x, (json_t *)y))) {
            mn_buf_printf(why, "memory '%s' is %s", id, order ? "missing" : "not the same");
            break;
        }
        if ((rc = mem_next(&a, &x)) == 0)
            rc = mem_next(&b, &y);
    }
    json_decref(a.page);
    json_decref(b.page);
    return rc;
}

/* Every key moved holds the source's value. */
static void compare_config(mn_buf *why, const json_t *src, const json_t *dst,
                           const json_t *skipped_keys)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)src, key, v)
    {
        bool skipped = false;
        size_t i;
        const json_t *k;
        json_array_foreach(skipped_keys, i, k)
        {
            skipped = skipped || !strcmp(json_string_value(k), key);
        }
        if (!skipped && !json_equal(v, json_object_get(dst, key))) {
            mn_buf_printf(why, "config key '%s' differs", key);
            return;
        }
    }
}

/* The audit logs, row by row oldest first, without ids; the target's newest is the migrate row. */
static int compare_audit(mn_buf *why, mn_store *src, mn_store *dst)
{
    int64_t na = 0, nb = 0;
    audit_pages pa, pb;
    json_t *ra = NULL, *rb = NULL;
    size_t ia = 0, ib = 0;
    int64_t seen = 0;
    bool same;
    int rc;
    if ((rc = audit_total(src, &na)) != 0 || (rc = audit_total(dst, &nb)) != 0)
        return rc;
    same = nb == na + 1;
    audit_pages_init(&pa, src);
    audit_pages_init(&pb, dst);
    while (same && seen < na) {
        if (!ra || ia == json_array_size(ra)) {
            json_decref(ra);
            ra = NULL;
            ia = 0;
            if ((rc = audit_page(&pa, &ra)) != 0)
                break;
        }
        if (!rb || ib == json_array_size(rb)) {
            json_decref(rb);
            rb = NULL;
            ib = 0;
            if ((rc = audit_page(&pb, &rb)) != 0)
                break;
        }
        const json_t *x = json_array_get(ra, ia++), *y = json_array_get(rb, ib++);
        if (!x || !y) { /* a row counted and not returned: the logs do not read the same */
            same = false;
            break;
        }
        json_t *cx = row_without_id(x), *cy = row_without_id(y);
        same = json_equal(cx, cy);
        json_decref(cx);
        json_decref(cy);
        seen++;
    }
    json_decref(ra);
    json_decref(rb);
    if (rc == 0 && !same)
        mn_buf_printf(why, "the audit logs differ (%lld rows, %lld moved)", (long long)na,
                      (long long)(nb - 1));
    return rc;
}

/*
 * Compare what the target holds with what the source holds (src in its
 * snapshot still); a difference is MN_ECORRUPT.
 */
static int verify(const char *project, mn_store *src, const json_t *src_config, mn_store *dst,
                  const mn_map *kept, const json_t *skipped_keys, bool merge)
{
    mn_buf why = MN_BUF_INIT;
    json_t *dst_config = NULL;
    int rc = mn_store_begin_read(dst);
    if (rc)
        goto out;
    rc = merge ? compare_merged(&why, src, dst, kept) : compare_exports(&why, src, dst);
    if (rc == 0 && !why.len && !merge && (rc = mn_store_config_all(dst, &dst_config)) == 0)
        compare_config(&why, src_config, dst_config, skipped_keys);
    if (rc == 0 && !why.len && !merge)
        rc = compare_audit(&why, src, dst);
    if (rc)
        mn_store_rollback(dst);
    else
        rc = mn_store_commit(dst);
    if (rc == 0 && why.len)
        rc = mn_error_set(MN_ECORRUPT,
                          "migrate: project '%s' was moved but does not read back the same: %s; "
                          "the target holds what was written: compare 'mnemo export' of both",
                          project, why.ptr);
out:
    json_decref(dst_config);
    mn_buf_release(&why);
    return rc;
}

/* ---- writing ---- */

/* The memories, a page at a time; then their links, the pages read again (a link may point
 * to a later page). kept: the ids the target had (skipped). */
static int write_memories(mn_memory_import_counts *c, mn_store *dst, const mn_memory_settings *cfg,
                          mn_store *src, mn_map *kept)
{
    unsigned char *written = mn_calloc(PAGE_ROWS, 1);
    size_t first = 0;
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        mem_pages p;
        mem_pages_init(&p, src);
        first = 0;
        for (;;) {
            json_t *page = NULL;
            size_t i;
            const json_t *m;
            if ((rc = mem_page(&p, &page)) != 0)
                break;
            size_t n = json_array_size(page);
            if (pass == 0) {
                rc = mn_memory_import_rows(c, dst, cfg, page, "skip", first, written);
                json_array_foreach(page, i, m)
                {
                    if (rc == 0 && !written[i])
                        mn_map_set(kept, json_string_value(json_object_get(m, "id")), NULL);
                }
            } else {
                json_array_foreach(page, i, m)
                {
                    written[i] = !mn_map_has(kept, json_string_value(json_object_get(m, "id")));
                }
                rc = mn_memory_import_links(c, dst, cfg, page, first, written);
            }
            json_decref(page);
            first += n;
            if (rc || n == 0)
                break;
        }
    }
    free(written);
    return rc;
}

/* The audit log oldest first, each row at its own time: the log reads as it did. had: the
 * keys of the rows the target holds (merge), not written twice. */
static int write_audit(int64_t *n, mn_store *dst, mn_store *src, const mn_map *had)
{
    audit_pages p;
    int rc = 0;
    audit_pages_init(&p, src);
    for (;;) {
        json_t *rows = NULL;
        size_t i;
        const json_t *r;
        if ((rc = audit_page(&p, &rows)) != 0)
            break;
        json_array_foreach(rows, i, r)
        {
            int64_t ts;
            char k[33];
            if (had->len) {
                row_key(k, r);
                if (mn_map_has(had, k))
                    continue;
            }
            if ((rc = mn_time_parse(&ts, json_string_value(json_object_get(r, "time")))) != 0)
                break;
            rc = mn_store_audit_put(dst, ts, json_string_value(json_object_get(r, "actor")),
                                    json_string_value(json_object_get(r, "op")),
                                    json_string_value(json_object_get(r, "target")),
                                    json_object_get(r, "detail"));
            if (rc)
                break;
            (*n)++;
        }
        bool end = json_array_size(rows) == 0;
        json_decref(rows);
        if (rc || end)
            break;
    }
    return rc;
}

/* Write one project's rows into the target (ctx), in one transaction, from src (in its
 * snapshot). */
static int write_project(mn_ctx *ctx, mn_store *src, const json_t *src_config, const mn_map *had,
                         mn_map *kept, const char *from_shown, bool merge, json_t *report)
{
    const char *key;
    json_t *v, *skipped_keys = json_array(), *detail = NULL;
    const mn_memory_settings *cfg;
    mn_memory_import_counts counts = {0};
    int64_t nconfig = 0, naudit = 0;
    int rc = mn_store_begin(ctx->store);
    if (rc)
        goto out;
    json_object_foreach((json_t *)src_config, key, v)
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
    if ((rc = mn_api__settings(ctx, &cfg)) != 0 ||
        (rc = write_memories(&counts, ctx->store, cfg, src, kept)) != 0 ||
        (rc = write_audit(&naudit, ctx->store, src, had)) != 0)
        goto fail;
    detail = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "from", from_shown, "memories",
                       (json_int_t)counts.imported, "skipped", (json_int_t)counts.skipped, "links",
                       (json_int_t)counts.links, "config", (json_int_t)nconfig, "audit",
                       (json_int_t)naudit);
    if ((rc = mn_store_audit(ctx->store, ctx->actor, "migrate", NULL, detail)) != 0 ||
        (rc = mn_store_commit(ctx->store)) != 0)
        goto fail;
    json_object_set_new(report, "memories", json_integer(counts.imported));
    json_object_set_new(report, "skipped", json_integer(counts.skipped));
    json_object_set_new(report, "links", json_integer(counts.links));
    json_object_set_new(report, "config", json_integer(nconfig));
    json_object_set(report, "config_skipped", skipped_keys);
    json_object_set_new(report, "audit", json_integer(naudit));
    goto out;
fail:
    mn_store_rollback(ctx->store);
out:
    json_decref(detail);
    json_decref(skipped_keys);
    return rc;
}

/* A store read once through: no map, a small cache (store_migrate.h; a failure only costs
 * memory, and PostgreSQL has neither). */
static void stream(mn_store *s)
{
    if (mn_store_stream(s) != 0)
        mn_error_clear();
}

/*
 * Move one project: write it from the source's snapshot, then read the
 * target back and compare it with the same snapshot. Nothing of either
 * side is held whole: pages of PAGE_ROWS rows, and with merge the ids the
 * target had and its audit rows' keys.
 */
static int move_project(const mn_migrate_options *o, const char *name, const char *from_shown,
                        json_t *report)
{
    mn_store *src = NULL;
    mn_ctx *ctx = NULL;
    json_t *config = NULL;
    mn_map had = MN_MAP_INIT, kept = MN_MAP_INIT;
    bool reading = false;
    mn_ctx_options co = MN_CTX_OPTIONS_INIT;
    co.db_path = o->to;
    co.project = name;
    co.create = true;
    co.front_end = MN_FRONT_LOCAL_CLI;
    co.actor = "cli";
    co.role = MN_ROLE_ADMIN;
    int rc = open_store(&src, o->from, name, true);
    /* every page is read once or twice, in order: kept in a memory map or a cache of a
     * SQLite store, its pages would grow the resident set with the store */
    if (rc == 0)
        stream(src);
    /* one snapshot of the source for the move and its check, so that they see the same rows */
    if (rc == 0 && (rc = mn_store_begin_read(src)) == 0) {
        reading = true;
        rc = mn_store_config_all(src, &config);
    }
    if (rc == 0 && (rc = mn_ctx_open(&ctx, &co)) != 0)
        mn_error_prefix("migrate: the target");
    if (rc == 0)
        stream(ctx->store);
    if (rc == 0 && o->merge)
        rc = audit_keys(ctx->store, &had);
    if (rc == 0)
        rc = write_project(ctx, src, config, &had, &kept, from_shown, o->merge, report);
    if (rc == 0)
        rc = verify(name, src, config, ctx->store, &kept, json_object_get(report, "config_skipped"),
                    o->merge);
    if (reading && rc == 0)
        rc = mn_store_commit(src);
    else if (reading)
        mn_store_rollback(src);
    json_decref(config);
    mn_map_release(&had);
    mn_map_release(&kept);
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
