/*
 * op_index.c - the code index operations: index, status, files, symbols,
 * graph, discover. The repository is the project's root: the directory
 * whose .mnemo/ holds the store, else the root the store recorded at its
 * first index (config index.root), else the one around the caller. A
 * `path` (context's path, recall's repo_path) must lie inside that root
 * once symbolic links are resolved, and names it: nothing outside the
 * project is read, and an index is never replaced by another directory's
 * (repo_root_for says the rules in full).
 *
 * After indexing, `index` runs discovery (index/discover.h) when it is due:
 * the first time, when the root or the manifests changed, or when the facts
 * are older than config discovery.max_age. `discover` always runs it (and
 * indexes first when nothing is indexed yet).
 *
 * mn_api__ensure_fresh is what context and recall call first: index (and
 * discover) when nothing is indexed yet or the last index is older than
 * config index.refresh_age (internal key index.last_run), so an agent's
 * question sees the code as it is without paying a walk on every call.
 */
#include "common.h"
#include <fnmatch.h>

#include "api/api_internal.h"
#include "index/discover.h"
#include "index/index.h"
#include "index/rank.h"
#include "store/store_index.h"
#include "store/store_vector.h"

#define KEY_LAST_RUN "index.last_run"
#define KEY_ROOT     "index.root"

/* The root the store recorded at its first index (canonical), or NULL. */
static int recorded_root(mn_ctx *ctx, char **out)
{
    int rc = mn_store_config_get(ctx->store, out, KEY_ROOT);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        *out = NULL;
        return 0;
    }
    return rc;
}

/*
 * The repository an operation works on, confined to the project:
 *  - the project's root is the directory whose .mnemo/ holds the store,
 *    else the root the store recorded when it was first indexed (config
 *    index.root: a store named by --db, MNEMO_DB or the per-user one);
 *  - a `path` must be that root or a directory inside it once symbolic
 *    links are resolved, and then names the project's root: an index is
 *    never replaced by another directory's, nor by a part of itself;
 *  - a store with no root yet takes the `path` of index, discover or
 *    status as its root; context and recall (implicit: they index on their
 *    own, and an agent chooses their arguments) only a path inside the
 *    repository around the caller (ctx->root), and none outside one; a
 *    request of a team server (ctx->no_refresh) none at all.
 * *out is malloc'd.
 */
static int repo_root_for(mn_ctx *ctx, const json_t *args, bool implicit, char **out)
{
    const char *p = json_string_value(json_object_get(args, "path"));
    char *project = NULL, *abs = NULL, *real = NULL, *real_fence = NULL;
    int rc = 0;
    *out = NULL;
    if (ctx->root && ctx->how && strcmp(ctx->how, "repository") == 0)
        project = mn_strdup(ctx->root);
    else if ((rc = recorded_root(ctx, &project)) != 0)
        return rc;
    if (!project && ctx->no_refresh)
        /* a request of a team server for a project whose code it does not hold: the code
         * comes from the project's clone (serve.repo), never from a directory a request
         * names, or any project's admin could read the server's machine through it */
        return mn_error_set(MN_EINVAL,
                            "project '%s' has no repository on this server: its code comes "
                            "from the clone of serve.repo, never from a directory a request "
                            "names",
                            mn_ctx_project(ctx));
    if (!p && !project && !ctx->root)
        return mn_error_set(MN_EINVAL, "not inside a repository: give the path to index");
    abs = p ? mn_fs_abspath(p) : mn_strdup(project ? project : ctx->root);
    if (!mn_fs_is_dir(abs) || !(real = mn_fs_realpath(abs))) {
        rc = mn_error_set(MN_ENOTFOUND, "'%s' is not a directory", abs);
        goto out;
    }
    if (p) {
        const char *fence = project ? project : implicit ? ctx->root : NULL;
        if (!fence) {
            if (implicit) {
                rc = mn_error_set(MN_EINVAL,
                                  "store '%s' has no repository yet, and '%s' is not inside the "
                                  "one around it: index it first (mnemo --db %s index DIR)",
                                  mn_ctx_db_shown(ctx), abs, mn_ctx_db_shown(ctx));
                goto out;
            }
        } else if (!(real_fence = mn_fs_realpath(fence)) || !mn_fs_path_within(real_fence, real)) {
            rc = mn_error_set(MN_EINVAL,
                              "'%s' is outside the project root '%s' of store '%s' (symbolic "
                              "links resolved): mnemo reads nothing outside it; to index that "
                              "directory, give it a store of its own ('mnemo init' there, or "
                              "--db PATH)",
                              abs, fence, mn_ctx_db_shown(ctx));
            goto out;
        }
    }
    /* inside the project: the path names the project's root */
    *out = project ? project : abs;
    if (project)
        project = NULL;
    else
        abs = NULL;
out:
    free(project);
    free(abs);
    free(real);
    free(real_fence);
    return rc;
}

static int repo_root(mn_ctx *ctx, const json_t *args, char **out)
{
    return repo_root_for(ctx, args, false, out);
}

/* "\rindexed N files: path" at most every 100 ms, on stderr. */
static void progress(void *payload, size_t done, const char *path)
{
    uint64_t *last = payload, now = mn_time_mono_ns();
    if (now - *last < 100000000u)
        return;
    *last = now;
    fprintf(stderr, "\r\033[Kindexing: %zu files  %.60s", done, path);
    fflush(stderr);
}

static int discover_if_due(mn_ctx *ctx, const char *root, json_t **out);

/* After an index run: when it ran, and the root the store indexes (index.root). */
static int note_last_run(mn_ctx *ctx, const char *root)
{
    char ts[32];
    char *real = mn_fs_realpath(root);
    snprintf(ts, sizeof(ts), "%lld", (long long)mn_time_now_ms());
    int rc = mn_store_begin(ctx->store);
    if (rc == 0 && (rc = mn_store_config_set(ctx->store, KEY_LAST_RUN, ts)) == 0 &&
        (!real || (rc = mn_store_config_set(ctx->store, KEY_ROOT, real)) == 0)) {
        free(real);
        return mn_store_commit(ctx->store);
    }
    free(real);
    if (rc)
        mn_store_rollback(ctx->store);
    return rc;
}

int mn_op_index(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_index_options opts = MN_INDEX_OPTIONS_INIT;
    mn_index_stats st;
    char *root = NULL;
    uint64_t last = 0;
    int rc = repo_root(ctx, args, &root);
    if (rc)
        return rc;
    opts.full = json_is_true(json_object_get(args, "full"));
    const mn_memory_settings *cfg;
    if ((rc = mn_api__config_bool(ctx, &opts.history, "index.history")) != 0 ||
        (rc = mn_api__settings(ctx, &cfg)) != 0) {
        free(root);
        return rc;
    }
    /* code is never quarantined: personal data in it is redacted unless scan.pii is off */
    opts.scanner = cfg->scanner;
    opts.redact = cfg->redact | (cfg->quarantine_pii ? MN_SCAN_PII : 0);
    if (ctx->progress) {
        opts.progress = progress;
        opts.payload = &last;
    }
    rc = mn_index_run(ctx->store, root, &opts, &st);
    if (ctx->progress)
        fprintf(stderr, "\r\033[K");
    bool ranked = false;
    if (rc == 0)
        rc = mn_rank_refresh(ctx->store, st.changed, st.seen, opts.full, &ranked);
    if (rc == 0)
        rc = note_last_run(ctx, root);
    /* the citations into the files this run changed (op_lifecycle.c) */
    json_t *cites = json_object();
    if (rc == 0)
        rc = mn_api__citations_after_index(ctx, cites);
    if (rc == 0) /* the memories' index too: `mnemo index` is where a CLI user's store is tidied */
        mn_api__tidy(ctx);
    json_t *disc = NULL;
    if (rc == 0)
        rc = discover_if_due(ctx, root, &disc);
    /* vectors for what changed, the memories discovery wrote included (and the built-in
     * model trained when due), and their sets left for the next process, so that the first
     * search after an index does not pay for them: a vector written after the sets are
     * kept moves the model's epoch and makes the next search load them again */
    mn_embedder *e = NULL;
    char *semantic_note = NULL;
    if (rc == 0)
        rc = mn_api__embedder(ctx, false, &e, &semantic_note);
    if (rc == 0 && e && mn_store_vectors_keep(ctx->store, e->model) != 0) {
        mn_log(MN_LOG_DEBUG, "the vector sets are not kept for the next search: %s",
               mn_error_last());
        mn_error_clear(); /* the next search reads the rows instead; MN_EUNSUPPORTED elsewhere */
    }
    mn_embedder_free(e);
    if (rc == 0)
        *out = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "root", root,
                         "files", (json_int_t)st.seen, "parsed", (json_int_t)st.parsed, "unchanged",
                         (json_int_t)st.unchanged, "removed", (json_int_t)st.removed, "binary",
                         (json_int_t)st.binary, "skipped", (json_int_t)st.skipped, "failed",
                         (json_int_t)st.failed, "bytes", (json_int_t)st.bytes, "imports",
                         (json_int_t)st.resolve.imports, "imports_resolved",
                         (json_int_t)st.resolve.imports_resolved, "calls",
                         (json_int_t)st.resolve.calls, "calls_resolved",
                         (json_int_t)st.resolve.calls_resolved, "seconds", st.seconds);
    if (rc == 0) {
        json_object_set_new(*out, "ranked", json_boolean(ranked));
        json_object_set_new(*out, "history_commits", json_integer((json_int_t)st.commits));
        if (semantic_note)
            json_object_set_new(*out, "notes", json_pack("[s]", semantic_note));
        json_object_update(*out, cites);
    }
    json_decref(cites);
    free(semantic_note);
    if (rc == 0 && disc)
        json_object_set_new(*out, "discovery", disc);
    else
        json_decref(disc);
    free(root);
    return rc;
}

static json_t *discover_counts(const mn_discover_stats *ds)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:f}", "created", (json_int_t)ds->created, "updated",
                     (json_int_t)ds->updated, "archived", (json_int_t)ds->archived, "unchanged",
                     (json_int_t)ds->unchanged, "kept", (json_int_t)ds->kept, "seconds",
                     ds->seconds);
}

/* Run discovery after an index run when it is due; *out the counts, or NULL. */
static int discover_if_due(mn_ctx *ctx, const char *root, json_t **out)
{
    const mn_memory_settings *cfg;
    int64_t max_age;
    bool due;
    const char *why;
    mn_discover_stats ds;
    int rc;
    *out = NULL;
    if ((rc = mn_api__config_duration(ctx, &max_age, "discovery.max_age")) != 0 ||
        (rc = mn_discover_due(ctx->store, root, max_age, &due, &why)) != 0 || !due ||
        (rc = mn_api__settings(ctx, &cfg)) != 0)
        return rc;
    rc = mn_discover(ctx->store, root, cfg, NULL, &ds);
    if (rc == 0) {
        *out = discover_counts(&ds);
        json_object_set_new(*out, "reason", json_string(why));
    }
    mn_discover_stats_release(&ds);
    return rc;
}

int mn_op_discover(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const mn_memory_settings *cfg;
    mn_discover_options opts = MN_DISCOVER_OPTIONS_INIT;
    mn_discover_stats ds;
    mn_index_counts n;
    char *root = NULL;
    int rc = repo_root(ctx, args, &root);
    if (rc)
        return rc;
    memset(&ds, 0, sizeof(ds));
    opts.restore_forgotten = json_is_true(json_object_get(args, "force"));
    if ((rc = mn_api__settings(ctx, &cfg)) != 0 ||
        (rc = mn_store_index_counts(ctx->store, &n)) != 0)
        goto out;
    if (n.files == 0) {
        /* nothing indexed yet: discovery reads the index, so make one */
        mn_index_options io = MN_INDEX_OPTIONS_INIT;
        mn_index_stats st;
        if ((rc = mn_index_run(ctx->store, root, &io, &st)) != 0 ||
            (rc = mn_rank_refresh(ctx->store, st.changed, st.seen, false, NULL)) != 0 ||
            (rc = note_last_run(ctx, root)) != 0 ||
            (rc = mn_api__citations_after_index(ctx, NULL)) != 0)
            goto out;
    }
    if ((rc = mn_discover(ctx->store, root, cfg, &opts, &ds)) != 0)
        goto out;
    *out = discover_counts(&ds);
    json_object_set_new(*out, "root", json_string(root));
    json_object_set_new(*out, "manifests", json_integer((json_int_t)ds.manifests));
    json_object_set_new(*out, "broken", json_integer((json_int_t)ds.broken));
    json_object_set(*out, "facts", ds.facts);
out:
    mn_discover_stats_release(&ds);
    free(root);
    return rc;
}

int mn_op_status(mn_ctx *ctx, const json_t *args, json_t **out)
{
    mn_index_freshness fr;
    mn_index_counts n;
    char *root = NULL;
    bool named = json_is_true(json_object_get(args, "files"));
    int rc = repo_root(ctx, args, &root);
    if (rc == 0 && !named)
        rc = mn_index_status(ctx->store, root, &fr);
    if (rc == 0)
        rc = mn_store_index_counts(ctx->store, &n);
    if (rc == 0)
        *out =
            json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "root", root, "fresh",
                      (json_int_t)(named ? 0 : fr.fresh), "stale",
                      (json_int_t)(named ? 0 : fr.stale), "new", (json_int_t)(named ? 0 : fr.added),
                      "removed", (json_int_t)(named ? 0 : fr.removed), "files", (json_int_t)n.files,
                      "symbols", (json_int_t)n.symbols, "edges", (json_int_t)n.edges, "resolved",
                      (json_int_t)n.resolved, "chunks", (json_int_t)n.chunks);
    /* how vectors are ranked: the back end says (PostgreSQL: whether pgvector is there) */
    const char *vectors = NULL;
    if (rc == 0 && mn_store_vector_search(ctx->store, &vectors) == 0 && vectors)
        json_object_set_new(*out, "vectors", json_string(vectors));
    /* --files: the counts and the names from one walk (status_files.c), so they agree */
    if (rc == 0 && named && (rc = mn_api__status_files(ctx, root, *out)) != 0) {
        json_decref(*out);
        *out = NULL;
    }
    free(root);
    return rc;
}

typedef struct {
    const json_t *args;
    json_t *items;
    int64_t total, offset, limit;
} listing;

static bool take(listing *l)
{
    int64_t at = l->total++;
    return at >= l->offset && at < l->offset + l->limit;
}

static int on_file(void *payload, const mn_file_rec *f)
{
    listing *l = payload;
    const char *lang = json_string_value(json_object_get(l->args, "language"));
    const char *role = json_string_value(json_object_get(l->args, "role"));
    if ((lang && (!f->language || strcmp(lang, f->language))) || (role && strcmp(role, f->role)))
        return 0;
    if (take(l))
        json_array_append_new(l->items,
                              json_pack("{s:s,s:s?,s:s,s:I,s:I,s:f}", "path", f->path, "language",
                                        f->language, "role", f->role, "lines", (json_int_t)f->lines,
                                        "size", (json_int_t)f->size, "rank", f->rank));
    return 0;
}

static json_int_t int_arg(const json_t *args, const char *key, json_int_t def)
{
    const json_t *v = json_object_get(args, key);
    return v ? json_integer_value(v) : def;
}

static int by_rank(const void *a, const void *b)
{
    double x = json_number_value(json_object_get(*(json_t *const *)a, "rank"));
    double y = json_number_value(json_object_get(*(json_t *const *)b, "rank"));
    return x < y ? 1 : x > y ? -1 : 0;
}

int mn_op_files(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *sort = json_string_value(json_object_get(args, "sort"));
    bool rank = sort && !strcmp(sort, "rank");
    /* sorting by rank needs every match first; the page is cut after */
    listing l = {args, json_array(), 0, rank ? 0 : int_arg(args, "offset", 0),
                 rank ? INT64_MAX : int_arg(args, "limit", 1000)};
    int rc = mn_store_files_each(ctx->store, json_string_value(json_object_get(args, "pattern")),
                                 on_file, &l);
    if (rc) {
        json_decref(l.items);
        return rc;
    }
    if (rank) {
        size_t n = json_array_size(l.items), off = (size_t)int_arg(args, "offset", 0);
        size_t lim = (size_t)int_arg(args, "limit", 1000);
        json_t **v = mn_malloc((n ? n : 1) * sizeof(json_t *));
        for (size_t i = 0; i < n; i++)
            v[i] = json_incref(json_array_get(l.items, i));
        qsort(v, n, sizeof(json_t *), by_rank);
        json_t *page = json_array();
        for (size_t i = 0; i < n; i++) {
            if (i >= off && i - off < lim)
                json_array_append(page, v[i]);
            json_decref(v[i]);
        }
        free(v);
        json_decref(l.items);
        l.items = page;
    }
    *out = json_pack("{s:o,s:I}", "files", l.items, "total", (json_int_t)l.total);
    return 0;
}

static json_t *symbol_json(const mn_symbol_row *y)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:s?,s:f}", "name", y->name, "qualified_name",
                     y->qualified_name, "kind", y->kind, "path", y->path, "start_line",
                     (json_int_t)y->start_line, "end_line", (json_int_t)y->end_line, "signature",
                     y->signature, "rank", y->rank);
}

static int on_symbol(void *payload, const mn_symbol_row *y)
{
    listing *l = payload;
    const char *kind = json_string_value(json_object_get(l->args, "kind"));
    const char *path = json_string_value(json_object_get(l->args, "path"));
    if ((kind && strcmp(kind, y->kind)) || (path && fnmatch(path, y->path, 0) != 0))
        return 0;
    if (take(l))
        json_array_append_new(l->items, symbol_json(y));
    return 0;
}

int mn_op_symbols(mn_ctx *ctx, const json_t *args, json_t **out)
{
    listing l = {args, json_array(), 0, 0, int_arg(args, "limit", 200)};
    int rc = mn_store_symbols_each(ctx->store, json_string_value(json_object_get(args, "name")),
                                   on_symbol, &l);
    if (rc) {
        json_decref(l.items);
        return rc;
    }
    *out = json_pack("{s:o,s:I}", "symbols", l.items, "total", (json_int_t)l.total);
    return 0;
}

static int on_neighbour(void *payload, const mn_neighbour *n)
{
    json_array_append_new(payload, json_pack("{s:s,s:s?,s:s?,s:s?,s:I}", "edge", n->edge, "path",
                                             n->path, "symbol", n->symbol, "name", n->name, "line",
                                             (json_int_t)n->line));
    return 0;
}

typedef struct {
    const char *target;
    json_t *matches;
    int64_t best_id;
    double best_rank;
} symbol_search;

static int match_symbol(void *payload, const mn_symbol_row *y)
{
    symbol_search *q = payload;
    if (strcmp(y->name, q->target) && strcmp(y->qualified_name, q->target))
        return 0;
    json_array_append_new(q->matches, symbol_json(y));
    if (!q->best_id || y->rank > q->best_rank) {
        q->best_id = y->id;
        q->best_rank = y->rank;
    }
    return 0;
}

int mn_op_graph(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *target = json_string_value(json_object_get(args, "target"));
    int64_t id;
    char hash[MN_HASH_HEX];
    int rc = mn_store_file_lookup(ctx->store, &id, hash, target);
    json_t *a = json_array(), *b = json_array();
    if (rc == 0) {
        if ((rc = mn_store_neighbours_each(ctx->store, "file", id, false, on_neighbour, a)) == 0 &&
            (rc = mn_store_neighbours_each(ctx->store, "file", id, true, on_neighbour, b)) == 0) {
            *out = json_pack("{s:s,s:s,s:o,s:o}", "target", target, "kind", "file", "imports", a,
                             "importers", b);
            return 0;
        }
        goto fail;
    }
    if (rc != MN_ENOTFOUND)
        goto fail;
    mn_error_clear();
    symbol_search q = {target, json_array(), 0, 0};
    if ((rc = mn_store_symbols_each(ctx->store, NULL, match_symbol, &q)) != 0) {
        json_decref(q.matches);
        goto fail;
    }
    if (!q.best_id) {
        json_decref(q.matches);
        rc = mn_error_set(MN_ENOTFOUND, "no indexed file or symbol '%.200s' (run 'mnemo index'?)",
                          target);
        goto fail;
    }
    if ((rc = mn_store_neighbours_each(ctx->store, "symbol", q.best_id, false, on_neighbour, a)) ||
        (rc = mn_store_neighbours_each(ctx->store, "symbol", q.best_id, true, on_neighbour, b))) {
        json_decref(q.matches);
        goto fail;
    }
    *out = json_pack("{s:s,s:s,s:o,s:o,s:o}", "target", target, "kind", "symbol", "callees", a,
                     "callers", b, "matches", q.matches);
    return 0;
fail:
    json_decref(a);
    json_decref(b);
    return rc;
}

int mn_api__ensure_fresh(mn_ctx *ctx, const json_t *args, json_t *notes)
{
    char *last = NULL, *root = NULL, *recorded = NULL;
    int64_t refresh, when = 0;
    const json_t *path = json_object_get(args, "path");
    int rc;
    if (!path && !ctx->root) {
        if ((rc = recorded_root(ctx, &recorded)) != 0)
            return rc;
        free(recorded);
        if (!recorded)
            return 0; /* a store outside any repository: memories only */
    }
    /* a path outside the project is refused before anything is read */
    if ((rc = repo_root_for(ctx, args, true, &root)) != 0)
        return rc;
    rc = mn_store_config_get(ctx->store, &last, KEY_LAST_RUN);
    if (rc == 0) {
        if (mn_parse_int64(&when, last, 0, INT64_MAX, KEY_LAST_RUN) != 0)
            when = 0;
        free(last);
    } else if (rc != MN_ENOTFOUND) {
        goto out;
    }
    mn_error_clear();
    if ((rc = mn_api__config_duration(ctx, &refresh, "index.refresh_age")) != 0)
        goto out;
    if (when && (refresh == 0 || mn_time_now_ms() - when < refresh))
        goto out;
    if (when && json_is_false(json_object_get(args, "refresh"))) {
        /* the caller answers now and refreshes later (mnemo hook) */
        if (notes)
            json_array_append_new(notes, json_string(MN_API_NOTE_STALE));
        goto out;
    }
    if (ctx->no_refresh) {
        /* an index run of a whole clone is minutes on a large repository: not on a request
         * worker of a team server, whose sync keeps the clone and its index fresh */
        if (notes)
            json_array_append_new(
                notes, json_string(when ? MN_API_NOTE_STALE
                                       "; the server's sync refreshes it (serve.repo, its "
                                       "push webhook or serve.poll)"
                                        : "the code of this project is not indexed yet; the "
                                          "server's sync indexes it (serve.repo, its push "
                                          "webhook or serve.poll)"));
        goto out;
    }
    const char *ro = mn_store_read_only_reason(ctx->store);
    if (ro) {
        /* answered from the index as it is: nothing can be written */
        if (notes)
            json_array_append_new(notes, json_pack("s++", "the index was not refreshed (", ro,
                                                   "): answering from the index as it is"));
        goto out;
    }
    json_t *idx = NULL, *iargs = json_pack("{s:s}", "path", root);
    bool progress = ctx->progress;
    ctx->progress = false; /* context's output is the answer, not a progress line */
    rc = mn_op_index(ctx, iargs, &idx);
    ctx->progress = progress;
    json_decref(iargs);
    if (rc) {
        /* a store that cannot be written now (a full disk, a directory made read-only)
         * still answers from the index it has */
        if (notes)
            json_array_append_new(
                notes, json_pack("s+", "the index could not be refreshed: ", mn_error_last()));
        mn_error_clear();
        rc = 0;
    } else if (notes) {
        json_array_append_new(notes, json_pack("s+",
                                               when ? "indexed again (older than "
                                                      "index.refresh_age): "
                                                    : "indexed the repository first: ",
                                               root));
    }
    json_decref(idx);
out:
    free(root);
    return rc;
}
