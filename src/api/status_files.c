/*
 * status_files.c - the files behind `status`'s counts (status --files):
 * which are stale, new and removed.
 *
 * The same comparison as mn_index_status (src/index/index.c), by the same
 * rules: a walk of the tree (git's file list and ignore rules), each file
 * compared by size and modification time with what was indexed (no file is
 * read, but the head of a file not indexed yet, to leave out binary files
 * as the index does), and an indexed file the walk did not meet is
 * removed. The counts reported with --files come from this walk, so the
 * names and the numbers always agree. At most MAX_NAMED paths of each kind
 * are listed, in path order; the counts are exact.
 */
#include "common.h"

#include "api/api_internal.h"
#include "index/classify.h"
#include "index/walk.h"
#include "store/store_index.h"
#include "util/map.h"

#define MAX_NAMED 200

typedef struct {
    int64_t size, mtime_ms;
    bool visited;
} known_file;

typedef struct {
    mn_map known;
    json_t *stale, *added, *removed;
    size_t nstale, nadded, nremoved, nfresh;
} status_walk;

static int load_known(void *payload, const mn_file_rec *f)
{
    status_walk *w = payload;
    known_file *k = mn_calloc(1, sizeof(*k));
    k->size = f->size;
    k->mtime_ms = f->mtime_ms;
    mn_map_set(&w->known, f->path, k);
    return 0;
}

static void name(json_t *list, size_t *count, const char *path)
{
    if ((*count)++ < MAX_NAMED)
        json_array_append_new(list, json_string(path));
}

static int on_entry(void *payload, const mn_walk_entry *e)
{
    status_walk *w = payload;
    known_file *k = mn_map_get(&w->known, e->path);
    if (!k) {
        /* the index skips binary files: so does status, from their head */
        char head[MN_CLASSIFY_HEAD_MAX];
        FILE *f = fopen(e->full_path, "rb");
        size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
        mn_file_class cls;
        if (f)
            fclose(f);
        mn_classify(&cls, e->path, head, n, e->size);
        if (!cls.binary)
            name(w->added, &w->nadded, e->path);
        return 0;
    }
    k->visited = true;
    if ((uint64_t)k->size == e->size && k->mtime_ms == e->mtime_ms)
        w->nfresh++;
    else
        name(w->stale, &w->nstale, e->path);
    return 0;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* Sort a JSON array of strings in place (the walk's order is the file system's). */
static void sort_names(json_t *list)
{
    size_t n = json_array_size(list);
    json_t **v = mn_calloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(list, i));
    qsort(v, n, sizeof(*v), by_text);
    json_array_clear(list);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, v[i]);
    free(v);
}

int mn_api__status_files(mn_ctx *ctx, const char *root, json_t *out)
{
    mn_walk_options wopts = MN_WALK_OPTIONS_INIT;
    mn_walk_stats wstats;
    status_walk w;
    memset(&w, 0, sizeof(w)); /* an empty map is all zeros (MN_MAP_INIT) */
    w.stale = json_array();
    w.added = json_array();
    w.removed = json_array();
    int rc = mn_store_files_each(ctx->store, NULL, load_known, &w);
    if (rc == 0)
        rc = mn_walk(root, &wopts, on_entry, &w, &wstats);
    size_t pos = 0;
    const char *path;
    void *v;
    while (mn_map_next(&w.known, &pos, &path, &v)) {
        if (rc == 0 && !((known_file *)v)->visited)
            name(w.removed, &w.nremoved, path);
        free(v);
    }
    mn_map_release(&w.known);
    if (rc == 0) {
        sort_names(w.stale);
        sort_names(w.added);
        sort_names(w.removed);
        json_object_set_new(out, "fresh", json_integer((json_int_t)w.nfresh));
        json_object_set_new(out, "stale", json_integer((json_int_t)w.nstale));
        json_object_set_new(out, "new", json_integer((json_int_t)w.nadded));
        json_object_set_new(out, "removed", json_integer((json_int_t)w.nremoved));
        json_object_set_new(out, "stale_files", w.stale);
        json_object_set_new(out, "new_files", w.added);
        json_object_set_new(out, "removed_files", w.removed);
        json_object_set_new(out, "files_listed_max", json_integer(MAX_NAMED));
    } else {
        json_decref(w.stale);
        json_decref(w.added);
        json_decref(w.removed);
    }
    return rc;
}
