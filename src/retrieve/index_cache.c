/*
 * index_cache.c - the file table and the file neighbours plan reads on
 * every call, kept between calls while the index is unchanged
 * (index_cache.h).
 *
 * Why: on a warm sympy index (1,500 files, 170,000 edges) a plan read the
 * whole file table (~4 ms: the rows, each path cut into components and
 * looked up) and the neighbours of its twelve best files (~10 ms: four
 * grouped joins a seed, up to 2,000 edges each) every time, and the same
 * hub files seed most tasks.
 *
 * The key is mn_index_stamp (store_search.h): the store file and project,
 * and numbers any index run that writes a file moves (its indexed_at, new
 * ids for its symbols and edges, the count and highest id of the files).
 * Each get reads the stamp (one statement, ~0.3 ms); an equal stamp shares
 * the current cache, another builds a new one from mn_store_files_each and
 * makes it current. The stamp is read before the files: a run that commits
 * between the two leaves newer files under an older stamp, which the next
 * get replaces, never older files under a newer one.
 *
 * Neighbours: mn_store_file_neighbours reads each seed alone, with a share
 * of the limit per direction (limit / (4 n), the first rows in index order
 * when a hub has more); a seed's rows depend only on (seed, share) and the
 * index, so they are kept under that key and replayed in order, and a call
 * asks the store only for the seeds it has not seen. At most MAX_ROWS rows
 * are kept (a row is a neighbour file of one direction: the lists are
 * grouped by file, so a seed has at most four times the files); past that
 * the store answers uncached.
 *
 * A store back end that cannot give the stamp (MN_EUNSUPPORTED) gets a
 * cache built for the call alone.
 *
 * Threads: the current cache and its reference count under one lock; the
 * file table never changes after the build; the neighbour memo has its
 * own lock, held while looking up or adding, never while calling back.
 */
#include "common.h"
#include <pthread.h>

#include "retrieve/index_cache.h"
#include "store/store_index.h"
#include "util/arena.h"
#include "util/map.h"
#include "util/vec.h"

#define MAX_ROWS (1u << 20) /* neighbour rows kept at most: 24 MB */

typedef struct {
    int64_t other;
    double weight;
    bool outgoing;
} nrow;

typedef MN_VEC(nrow) nrow_vec;

typedef struct {
    int64_t file;
    size_t share;
    size_t off, n; /* rows [off, off + n) */
    bool used;
} nentry;

struct mn_index_cache {
    int refs;
    mn_index_stamp stamp;
    mn_arena arena;
    MN_VEC(mn_icache_file) files;
    MN_VEC(uint32_t) file_comps; /* the components of each file, in order */
    MN_VEC(const char *) comps;  /* distinct components */
    ptrdiff_t *by_id;            /* open addressing: index + 1 into files, 0 empty */
    size_t by_id_cap;            /* a power of two */
    pthread_mutex_t memo_lock;
    nentry *memo;
    size_t memo_cap, memo_len;
    nrow_vec rows;
};

static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static mn_index_cache *current; /* the last one built: one store per process is the rule */

static void cache_free(mn_index_cache *c)
{
    mn_vec_release(&c->files);
    mn_vec_release(&c->file_comps);
    mn_vec_release(&c->comps);
    mn_vec_release(&c->rows);
    free(c->by_id);
    free(c->memo);
    pthread_mutex_destroy(&c->memo_lock);
    mn_arena_release(&c->arena);
    free(c);
}

void mn_index_cache_release(mn_index_cache *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&current_lock);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&current_lock);
    if (last)
        cache_free(c);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

typedef struct {
    mn_index_cache *c;
    mn_map comp_ids; /* component -> id + 1 */
} build_run;

static int on_file(void *payload, const mn_file_rec *f)
{
    build_run *b = payload;
    mn_index_cache *c = b->c;
    mn_icache_file x;
    x.id = f->id;
    x.path = mn_arena_strdup(&c->arena, f->path);
    x.role = mn_arena_strdup(&c->arena, f->role ? f->role : "source");
    x.lines = f->lines;
    x.rank = f->rank;
    x.comp0 = (uint32_t)c->file_comps.len;
    x.ncomp = 0;
    char key[256];
    for (const char *s = f->path; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        /* as plan_graph.c cut a component before: at most 255 bytes */
        size_t kn = n < sizeof(key) ? n : sizeof(key) - 1;
        memcpy(key, s, kn);
        key[kn] = '\0';
        uintptr_t id = (uintptr_t)mn_map_get(&b->comp_ids, key);
        if (!id) {
            mn_vec_push(&c->comps, mn_arena_strdup(&c->arena, key));
            id = c->comps.len;
            mn_map_set(&b->comp_ids, key, (void *)id);
        }
        mn_vec_push(&c->file_comps, (uint32_t)(id - 1));
        x.ncomp++;
        s += n + (e ? 1 : 0);
    }
    mn_vec_push(&c->files, x);
    return 0;
}

static int build(mn_store *s, const mn_index_stamp *stamp, mn_index_cache **out)
{
    mn_index_cache *c = mn_calloc(1, sizeof(*c));
    c->refs = 1;
    c->stamp = *stamp;
    mn_arena_init(&c->arena);
    pthread_mutex_init(&c->memo_lock, NULL);
    build_run b = {c, MN_MAP_INIT};
    int rc = mn_store_files_each(s, NULL, on_file, &b);
    mn_map_release(&b.comp_ids);
    if (rc) {
        cache_free(c);
        return rc;
    }
    c->by_id_cap = 16;
    while (c->by_id_cap < 2 * c->files.len)
        c->by_id_cap *= 2;
    c->by_id = mn_calloc(c->by_id_cap, sizeof(*c->by_id));
    for (size_t i = 0; i < c->files.len; i++) {
        size_t k = mix((uint64_t)c->files.items[i].id) & (c->by_id_cap - 1);
        while (c->by_id[k])
            k = (k + 1) & (c->by_id_cap - 1);
        c->by_id[k] = (ptrdiff_t)i + 1;
    }
    *out = c;
    return 0;
}

int mn_index_cache_get(mn_store *s, mn_index_cache **out)
{
    mn_index_stamp stamp;
    *out = NULL;
    int rc = mn_store_index_stamp(s, &stamp);
    if (rc == MN_EUNSUPPORTED) {
        /* a back end without the stamp: a cache for this call alone, never current */
        mn_error_clear();
        memset(&stamp, 0, sizeof(stamp));
        return build(s, &stamp, out);
    }
    if (rc)
        return rc;
    pthread_mutex_lock(&current_lock);
    if (current && !memcmp(&current->stamp, &stamp, sizeof(stamp))) {
        current->refs++;
        *out = current;
    }
    pthread_mutex_unlock(&current_lock);
    if (*out)
        return 0;
    mn_index_cache *c;
    if ((rc = build(s, &stamp, &c)) != 0)
        return rc;
    mn_index_cache *old;
    pthread_mutex_lock(&current_lock);
    old = current;
    current = c;
    c->refs++; /* the caller's, besides current's */
    bool free_old = old && --old->refs == 0;
    pthread_mutex_unlock(&current_lock);
    if (free_old)
        cache_free(old);
    *out = c;
    return 0;
}

size_t mn_index_cache_nfiles(const mn_index_cache *c)
{
    return c->files.len;
}

const mn_icache_file *mn_index_cache_files(const mn_index_cache *c)
{
    return c->files.items;
}

ptrdiff_t mn_index_cache_find(const mn_index_cache *c, int64_t id)
{
    for (size_t k = mix((uint64_t)id) & (c->by_id_cap - 1); c->by_id[k];
         k = (k + 1) & (c->by_id_cap - 1))
        if (c->files.items[c->by_id[k] - 1].id == id)
            return c->by_id[k] - 1;
    return -1;
}

size_t mn_index_cache_ncomps(const mn_index_cache *c)
{
    return c->comps.len;
}

uint32_t mn_index_cache_file_comp(const mn_index_cache *c, size_t k)
{
    return c->file_comps.items[k];
}

const char *mn_index_cache_comp(const mn_index_cache *c, uint32_t comp)
{
    return c->comps.items[comp];
}

/* ---- neighbours ---- */

static nentry *memo_slot(mn_index_cache *c, int64_t file, size_t share)
{
    size_t k = mix((uint64_t)file * 31 + share) & (c->memo_cap - 1);
    while (c->memo[k].used && (c->memo[k].file != file || c->memo[k].share != share))
        k = (k + 1) & (c->memo_cap - 1);
    return &c->memo[k];
}

/* The kept rows of (file, share) copied into out; false when none are kept. */
static bool memo_get(mn_index_cache *c, int64_t file, size_t share, nrow_vec *out)
{
    bool hit = false;
    pthread_mutex_lock(&c->memo_lock);
    if (c->memo_cap) {
        nentry *e = memo_slot(c, file, share);
        if (e->used) {
            for (size_t i = 0; i < e->n; i++)
                mn_vec_push(out, c->rows.items[e->off + i]);
            hit = true;
        }
    }
    pthread_mutex_unlock(&c->memo_lock);
    return hit;
}

static void memo_put(mn_index_cache *c, int64_t file, size_t share, const nrow *rows, size_t n)
{
    pthread_mutex_lock(&c->memo_lock);
    if (c->rows.len + n > MAX_ROWS)
        goto out;
    if (2 * (c->memo_len + 1) > c->memo_cap) {
        size_t cap = c->memo_cap ? 2 * c->memo_cap : 256;
        nentry *old = c->memo;
        size_t old_cap = c->memo_cap;
        c->memo = mn_calloc(cap, sizeof(*c->memo));
        c->memo_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].used)
                *memo_slot(c, old[i].file, old[i].share) = old[i];
        free(old);
    }
    nentry *e = memo_slot(c, file, share);
    if (e->used) /* another thread kept it meanwhile: the same rows */
        goto out;
    e->used = true;
    e->file = file;
    e->share = share;
    e->off = c->rows.len;
    e->n = n;
    for (size_t i = 0; i < n; i++)
        mn_vec_push(&c->rows, rows[i]);
    c->memo_len++;
out:
    pthread_mutex_unlock(&c->memo_lock);
}

typedef struct {
    nrow_vec rows;
} record_run;

static int on_record(void *payload, int64_t seed, int64_t other, double weight, bool outgoing)
{
    record_run *r = payload;
    (void)seed;
    nrow x = {other, weight, outgoing};
    mn_vec_push(&r->rows, x);
    return 0;
}

int mn_index_cache_neighbours(mn_index_cache *c, mn_store *s, const int64_t *files, size_t n,
                              size_t limit,
                              int (*cb)(void *payload, int64_t seed, int64_t other, double weight,
                                        bool outgoing),
                              void *payload)
{
    if (n == 0)
        return 0;
    /* the share of each seed and direction, as mn_store_file_neighbours reads it */
    size_t share = mn_store_neighbour_share(limit, n);
    record_run r = {MN_VEC_INIT};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        r.rows.len = 0;
        if (!memo_get(c, files[i], share, &r.rows)) {
            /* one seed with four times the share: the same share per direction */
            if ((rc = mn_store_file_neighbours(s, &files[i], 1, 4 * share, on_record, &r)) != 0)
                break;
            memo_put(c, files[i], share, r.rows.items, r.rows.len);
        }
        for (size_t k = 0; k < r.rows.len && rc == 0; k++)
            rc = cb(payload, files[i], r.rows.items[k].other, r.rows.items[k].weight,
                    r.rows.items[k].outgoing);
    }
    mn_vec_release(&r.rows);
    return rc;
}
