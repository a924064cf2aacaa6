/*
 * index.c - see index.h.
 *
 * Threads: the calling thread walks and writes; N workers read, hash,
 * classify and parse. Jobs go through two lists guarded by one mutex: todo
 * (walk -> workers) and done (workers -> writer). At most MAX_INFLIGHT jobs
 * exist at once, so memory stays bounded by a few dozen parsed files. Only
 * the calling thread touches the store (one SQLite handle, one writer).
 * The writer stores jobs in walk order (the walk sorts each directory),
 * whatever order the workers finish them in: the row ids of files, symbols
 * and chunks are then the same in every run on the same tree, and so is
 * everything ranked with them (ties, row-id slices of the full-text index,
 * the first chunks of a word's posting list).
 *
 * Files are read with mn_fs_read_regular (O_NOFOLLOW): the walk lists no
 * symbolic link, and a file swapped for one after the walk is not followed
 * out of the work tree.
 *
 * Freshness: a file whose size and mtime match the stored ones is taken as
 * unchanged without being read (git's stat cache does the same); one whose
 * content hash matches is unchanged and only its size and mtime are
 * updated. Everything else is parsed and replaced whole.
 *
 * Resolution after the walk only looks at what the run changed: the writer
 * notes the files it stored, whether files came or went, the edges that
 * pointed into what it replaced or removed, and the names defined more or
 * fewer times than before (resolve.h). A run that changed nothing resolves
 * nothing.
 */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/classify.h"
#include "index/decl_only.h"
#include "index/history.h"
#include "index/index.h"
#include "index/options.h"
#include "index/parse.h"
#include "index/gitattrs.h"
#include "index/testpaths.h"
#include "index/walk.h"
#include "store/store_index.h"
#include "store/store_search.h"
#include "util/map.h"
#include "util/vec.h"

#define MAX_INFLIGHT 64

enum { JOB_PARSED, JOB_UNCHANGED, JOB_BINARY, JOB_FAILED };

typedef struct job {
    struct job *next;
    size_t seq; /* its place in the walk */
    char *path, *full_path;
    size_t bundle; /* mn_walk_entry.bundle: below another project's code copied in */
    uint64_t size;
    int64_t mtime_ms;
    int64_t old_id; /* 0: new file */
    char old_hash[MN_HASH_HEX];
    /* results */
    int status;
    char hash[MN_HASH_HEX];
    mn_file_class cls;
    mn_parse_result parse;
    mn_decl_vec decls; /* strings in parse's arena */
    bool have_parse;
} job;

typedef struct {
    int64_t id;
    uint64_t size;
    int64_t mtime_ms;
    char hash[MN_HASH_HEX];
    bool visited;
} known_file;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t has_todo, has_done;
    job *todo_head, *todo_tail, *done_head, *done_tail;
    size_t inflight;
    bool walk_over;
    size_t max_file_size;
    bool full; /* re-parse even when the hash is the same */
    const mn_scanner *scanner;
    unsigned redact;
    mn_test_paths tests; /* the test code the project declares (read before the walk) */
    mn_gitattrs attrs;   /* the roles its .gitattributes declares (read before the walk) */
} queue;

typedef struct {
    mn_store *s;
    const mn_index_options *opts;
    mn_index_stats *stats;
    queue q;
    mn_map known;           /* path -> known_file* */
    uint64_t bundles;       /* hash of the bundle directories the walk met (walk.c), in order */
    char last_bundle[4096]; /* the last one hashed (walk.c's longest path) */
    size_t seq, next_seq;   /* jobs made so far; the next one to store */
    job *early;             /* finished before their turn, by seq */
    size_t in_tx;           /* files written in the open transaction */
    size_t done;
    int rc;
    /* what resolution must look at (the top comment) */
    bool everything, added_or_removed;
    size_t removals;
    MN_VEC(int64_t) stored;
    MN_VEC(int64_t) incoming; /* edges the change unresolved */
    mn_map names;             /* symbol name -> definitions after minus before (intptr_t) */
    mn_map moved;             /* names whose qualified names changed (a method into another
                                 class: calls through a receiver's type may resolve now) */
    /* the file being replaced: qualified name -> definitions after minus before, and the
     * edges into its symbols (only those into a name now defined fewer times go away) */
    mn_map qnames;
    MN_VEC(int64_t) into_ids;
    MN_VEC(char *) into_qns;
} indexer;

static void push(job **head, job **tail, job *j)
{
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

static job *pop(job **head, job **tail)
{
    job *j = *head;
    if (j) {
        *head = j->next;
        if (!*head)
            *tail = NULL;
    }
    return j;
}

static void job_free(job *j)
{
    if (j->have_parse)
        mn_parse_result_release(&j->parse);
    mn_vec_release(&j->decls);
    free(j->path);
    free(j->full_path);
    free(j);
}

static void hash_hex(char out[MN_HASH_HEX], const void *data, size_t len)
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    snprintf(out, MN_HASH_HEX, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

/* text redacted into the parse result's arena, or text itself when it holds nothing */
static const char *redacted(mn_parse_result *r, const queue *q, const char *text)
{
    if (!text || !mn_scan_any(q->scanner, text, strlen(text), q->redact))
        return text;
    mn_buf b = MN_BUF_INIT;
    const char *out = text;
    if (mn_scan_redact(&b, q->scanner, text, strlen(text), q->redact, NULL) == 0)
        out = mn_arena_strndup(&r->arena, b.ptr, b.len);
    mn_buf_release(&b);
    return out;
}

/*
 * Secrets out of what a file's rows will hold: one scan of the whole file
 * decides (most files hold none), then each chunk, symbol name, signature
 * and docstring that does is redacted. The file's hash stays that of its bytes, so
 * freshness is unchanged; a path the project allow-lists is kept as is.
 */
static void scrub_parse(job *j, const queue *q, const char *data, size_t len)
{
    mn_parse_result *r = &j->parse;
    if (!q->scanner || !q->redact || mn_scanner_path_allowed(q->scanner, j->path) ||
        !mn_scan_any(q->scanner, data, len, q->redact))
        return;
    for (size_t i = 0; i < r->chunks.len; i++)
        r->chunks.items[i].text = redacted(r, q, r->chunks.items[i].text);
    for (size_t i = 0; i < r->symbols.len; i++) {
        /* a symbol's name is prose where it is a heading (Markdown sections are symbols) */
        r->symbols.items[i].name = redacted(r, q, r->symbols.items[i].name);
        r->symbols.items[i].qualified_name = redacted(r, q, r->symbols.items[i].qualified_name);
        r->symbols.items[i].signature = redacted(r, q, r->symbols.items[i].signature);
        r->symbols.items[i].docstring = redacted(r, q, r->symbols.items[i].docstring);
    }
}

/* Read, hash, classify and parse one file (on a worker thread). */
static void work(job *j, mn_parser *parser, const queue *q)
{
    size_t max_size = q->max_file_size;
    bool full = q->full;
    mn_buf data = MN_BUF_INIT;
    /* the walk listed a regular file; one swapped for a link since is not followed */
    if (mn_fs_read_regular(&data, j->full_path, max_size) != 0) {
        j->status = JOB_FAILED;
        goto out;
    }
    j->size = data.len;
    hash_hex(j->hash, data.ptr, data.len);
    if (j->old_id && !full && strcmp(j->hash, j->old_hash) == 0) {
        j->status = JOB_UNCHANGED;
        goto out;
    }
    mn_declared declared = {&q->tests, &q->attrs, j->bundle};
    mn_classify_declared(&j->cls, j->path, data.ptr, data.len < 8192 ? data.len : 8192, data.len,
                         &declared);
    if (j->cls.binary) {
        j->status = JOB_BINARY;
        goto out;
    }
    if (mn_parser_parse(parser, &j->parse, j->cls.language, j->path, data.ptr, data.len) != 0) {
        j->status = JOB_FAILED;
        goto out;
    }
    j->have_parse = true;
    mn_options_extract(j->cls.language, data.ptr, data.len, &j->parse.arena, &j->decls);
    scrub_parse(j, q, data.ptr, data.len);
    j->status = JOB_PARSED;
out:
    mn_buf_release(&data);
}

static void *worker(void *arg)
{
    queue *q = arg;
    mn_parser *parser = NULL;
    if (mn_parser_new(&parser) != 0)
        parser = NULL;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (!q->todo_head && !q->walk_over)
            pthread_cond_wait(&q->has_todo, &q->lock);
        job *j = pop(&q->todo_head, &q->todo_tail);
        pthread_mutex_unlock(&q->lock);
        if (!j)
            break;
        if (parser)
            work(j, parser, q);
        else
            j->status = JOB_FAILED;
        pthread_mutex_lock(&q->lock);
        push(&q->done_head, &q->done_tail, j);
        pthread_cond_signal(&q->has_done);
        pthread_mutex_unlock(&q->lock);
    }
    mn_parser_free(parser);
    return NULL;
}

static int ensure_tx(indexer *x)
{
    if (x->in_tx)
        return 0;
    int rc = mn_store_begin(x->s);
    if (rc == 0)
        x->in_tx = 1;
    return rc;
}

static int end_tx(indexer *x)
{
    if (!x->in_tx)
        return 0;
    x->in_tx = 0;
    return mn_store_commit(x->s);
}

static void count(mn_map *m, const char *name, intptr_t delta)
{
    intptr_t n = (intptr_t)mn_map_get(m, name) + delta;
    mn_map_set(m, name, (void *)n);
}

static int note_old_name(void *payload, const char *name, const char *qualified_name)
{
    indexer *x = payload;
    count(&x->names, name, -1);
    count(&x->qnames, qualified_name, -1);
    return 0;
}

static int note_removed_edge(void *payload, int64_t edge, const char *qualified_name)
{
    indexer *x = payload;
    (void)qualified_name;
    mn_vec_push(&x->incoming, edge);
    return 0;
}

static int note_into_symbol(void *payload, int64_t edge, const char *qualified_name)
{
    indexer *x = payload;
    if (qualified_name) { /* edges into the file itself stay resolved: it keeps its id */
        mn_vec_push(&x->into_ids, edge);
        mn_vec_push(&x->into_qns, mn_strdup(qualified_name));
    }
    return 0;
}

/* Before a file is replaced or removed: its names and the edges into it. */
static int note_old(indexer *x, int64_t file_id, bool removing)
{
    if (x->everything || !file_id)
        return 0;
    int rc = mn_store_file_symbol_names_each(x->s, file_id, note_old_name, x);
    if (rc == 0)
        rc = mn_store_file_incoming_each(x->s, file_id,
                                         removing ? note_removed_edge : note_into_symbol, x);
    return rc;
}

/* After a file was replaced: keep the edges into qualified names it now defines fewer times. */
static void note_new(indexer *x, const mn_file_content *c)
{
    for (size_t i = 0; i < c->nsymbols; i++) {
        count(&x->names, c->symbols[i].name, +1);
        count(&x->qnames,
              c->symbols[i].qualified_name ? c->symbols[i].qualified_name : c->symbols[i].name, +1);
    }
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(&x->qnames, &pos, &k, &v))
        if (v)
            mn_map_set(&x->moved, mn_store_ref_key(k), (void *)1);
    for (size_t i = 0; i < x->into_ids.len; i++) {
        if ((intptr_t)mn_map_get(&x->qnames, x->into_qns.items[i]) < 0)
            mn_vec_push(&x->incoming, x->into_ids.items[i]);
        free(x->into_qns.items[i]);
    }
    x->into_ids.len = x->into_qns.len = 0;
    mn_map_release(&x->qnames);
}

static int remove_file(indexer *x, int64_t id, const char *path)
{
    int rc = note_old(x, id, true);
    x->added_or_removed = true;
    x->removals++;
    mn_map_release(&x->qnames);
    return rc ? rc : mn_store_file_remove(x->s, path);
}

/* Write one finished job (calling thread). */
static int store_job(indexer *x, job *j)
{
    int rc = 0;
    x->done++;
    switch (j->status) {
    case JOB_FAILED:
        x->stats->failed++;
        return 0;
    case JOB_UNCHANGED:
        x->stats->unchanged++;
        if ((rc = ensure_tx(x)) == 0)
            rc = mn_store_file_touch(x->s, j->old_id, (int64_t)j->size, j->mtime_ms);
        break;
    case JOB_BINARY:
        x->stats->binary++;
        if (j->old_id && (rc = ensure_tx(x)) == 0)
            rc = remove_file(x, j->old_id, j->path);
        break;
    case JOB_PARSED: {
        x->stats->parsed++;
        x->stats->bytes += j->size;
        mn_file_rec f = {0};
        f.path = j->path;
        f.language = j->cls.language;
        f.role = mn_role_name(j->cls.role);
        memcpy(f.hash, j->hash, sizeof(f.hash));
        f.size = (int64_t)j->size;
        f.lines = j->parse.lines;
        f.mtime_ms = j->mtime_ms;
        f.decl_only = mn_decl_only(j->parse.symbols.items, j->parse.symbols.len,
                                   j->parse.refs.items, j->parse.refs.len);
        mn_file_content c;
        mn_parse_result_content(&j->parse, &c);
        c.decls = j->decls.items;
        c.ndecls = j->decls.len;
        if ((rc = ensure_tx(x)) == 0 && (rc = note_old(x, j->old_id, false)) == 0)
            rc = mn_store_file_replace(x->s, &f, &c);
        if (rc == 0) {
            mn_vec_push(&x->stored, f.id);
            x->added_or_removed |= !j->old_id;
            if (!x->everything)
                note_new(x, &c);
        }
        break;
    }
    }
    if (rc == 0 && x->in_tx >= 1 && ++x->in_tx > MN_INDEX_BATCH)
        rc = end_tx(x);
    if (x->opts->progress)
        x->opts->progress(x->opts->payload, x->done, j->path);
    return rc;
}

/* Keep a job that finished before its turn, the list ordered by seq. */
static void keep_early(indexer *x, job *j)
{
    job **at = &x->early;
    while (*at && (*at)->seq < j->seq)
        at = &(*at)->next;
    j->next = *at;
    *at = j;
}

/* Store finished jobs whose turn it is (walk order); with wait, block until
 * at least one is stored or nothing is in flight. The first store error
 * sticks in x->rc: later jobs are only freed. */
static int drain(indexer *x, bool wait)
{
    for (;;) {
        pthread_mutex_lock(&x->q.lock);
        while (wait && !x->q.done_head && x->q.inflight &&
               !(x->early && x->early->seq == x->next_seq))
            pthread_cond_wait(&x->q.has_done, &x->q.lock);
        job *list = x->q.done_head;
        x->q.done_head = x->q.done_tail = NULL;
        pthread_mutex_unlock(&x->q.lock);
        while (list) {
            job *j = list;
            list = j->next;
            keep_early(x, j);
        }
        size_t stored = 0;
        while (x->early && x->early->seq == x->next_seq) {
            job *j = x->early;
            x->early = j->next;
            x->next_seq++;
            if (x->rc == 0)
                x->rc = store_job(x, j);
            job_free(j);
            stored++;
            pthread_mutex_lock(&x->q.lock);
            x->q.inflight--;
            pthread_mutex_unlock(&x->q.lock);
        }
        if (!wait || stored)
            return x->rc;
        pthread_mutex_lock(&x->q.lock);
        bool left = x->q.inflight > 0;
        pthread_mutex_unlock(&x->q.lock);
        if (!left)
            return x->rc;
        /* what finished was not the next in walk order: wait for that one */
    }
}

/* FNV-1a of each bundle directory once (the walk lists a bundle's files together). */
static void note_bundle(indexer *x, const mn_walk_entry *e)
{
    if (!e->bundle || e->bundle >= sizeof(x->last_bundle) ||
        (strlen(x->last_bundle) == e->bundle && !memcmp(x->last_bundle, e->path, e->bundle)))
        return;
    memcpy(x->last_bundle, e->path, e->bundle);
    x->last_bundle[e->bundle] = '\0';
    for (size_t i = 0; i <= e->bundle; i++)
        x->bundles = (x->bundles ^ (unsigned char)x->last_bundle[i]) * 1099511628211ull;
}

static int on_entry(void *payload, const mn_walk_entry *e)
{
    indexer *x = payload;
    known_file *k = mn_map_get(&x->known, e->path);
    x->stats->seen++;
    note_bundle(x, e);
    if (k) {
        k->visited = true;
        if (!x->opts->full && k->size == e->size && k->mtime_ms == e->mtime_ms) {
            x->stats->unchanged++;
            return 0;
        }
    }
    job *j = mn_calloc(1, sizeof(*j));
    j->seq = x->seq++;
    j->path = mn_strdup(e->path);
    j->full_path = mn_strdup(e->full_path);
    j->size = e->size;
    j->mtime_ms = e->mtime_ms;
    j->bundle = e->bundle;
    if (k) {
        j->old_id = k->id;
        memcpy(j->old_hash, k->hash, sizeof(j->old_hash));
    }
    pthread_mutex_lock(&x->q.lock);
    push(&x->q.todo_head, &x->q.todo_tail, j);
    x->q.inflight++;
    bool full = x->q.inflight >= MAX_INFLIGHT;
    pthread_cond_signal(&x->q.has_todo);
    pthread_mutex_unlock(&x->q.lock);
    /* write what is ready; block only when the queue is full */
    return drain(x, full);
}

static int load_known(void *payload, const mn_file_rec *f)
{
    indexer *x = payload;
    known_file *k = mn_calloc(1, sizeof(*k));
    k->id = f->id;
    k->size = (uint64_t)f->size;
    k->mtime_ms = f->mtime_ms;
    memcpy(k->hash, f->hash, sizeof(k->hash));
    mn_map_set(&x->known, f->path, k);
    return 0;
}

static int remove_gone(indexer *x)
{
    size_t pos = 0;
    const char *path;
    void *v;
    int rc = 0;
    while (rc == 0 && mn_map_next(&x->known, &pos, &path, &v)) {
        known_file *k = v;
        if (k->visited)
            continue;
        if ((rc = ensure_tx(x)) == 0)
            rc = remove_file(x, k->id, path);
        x->stats->removed++;
        if (rc == 0 && ++x->in_tx > MN_INDEX_BATCH)
            rc = end_tx(x);
    }
    return rc;
}

/*
 * FTS5 keeps a replaced file's old chunk entries as delete markers in its
 * segments until a merge reaches the oldest one. A store re-indexed over
 * and over held twice the full-text index a new one does (sympy: 34 MB
 * against 15 MB), and every ranked query read through it: the cold hook's
 * p95 was 60 ms on such a store, 33 ms once rebuilt. So the files an index
 * replaced or removed since the last rebuild are counted (internal config
 * key index.fts_churn), and when they reach TIDY_SHARE of the tree the code
 * indexes are rebuilt into one segment each (0.5 s for sympy's 45,000
 * chunks). A first index writes no markers and is not counted.
 */
#define TIDY_SHARE  0.2
#define KEY_CHURN   "index.fts_churn"
#define KEY_RULES   "index.rules"      /* MN_INDEX_RULES of the last run */
#define KEY_TESTS   "index.test_paths" /* the declared roles' hash (>> 1) of the last run */
#define KEY_BUNDLES "index.bundles"    /* the bundle directories' hash (>> 1) of the last run */

/* An internal config key as a number: -1 when not set. */
static long long config_read(mn_store *s, const char *key)
{
    char *v = NULL;
    long long n = -1;
    if (mn_store_config_get(s, &v, key) == 0)
        n = strtoll(v, NULL, 10);
    mn_error_clear();
    free(v);
    return n;
}

static int config_write(mn_store *s, const char *key, long long n)
{
    char num[32];
    snprintf(num, sizeof(num), "%lld", n);
    int rc = mn_store_begin(s);
    if (rc == 0 && (rc = mn_store_config_set(s, key, num)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

/* The index holds files stored under other rules than this build's (or before the stamp). */
static bool rules_changed(mn_store *s)
{
    return config_read(s, KEY_RULES) != MN_INDEX_RULES;
}

static int fts_tidy(mn_store *s, size_t changed, size_t files)
{
    if (changed == 0)
        return 0;
    long long churn = config_read(s, KEY_CHURN);
    churn = (churn > 0 ? churn : 0) + (long long)changed;
    if ((double)churn >= TIDY_SHARE * (double)files) {
        int rc = mn_store_code_fts_optimize(s);
        if (rc)
            return rc;
        churn = 0;
    }
    return config_write(s, KEY_CHURN, churn);
}

static int index_run(mn_store *s, const char *root, const mn_index_options *opts,
                     mn_index_stats *out, bool *bundles_changed);

/*
 * A run, and when the walk met other bundles than the last run's (walk.c: a
 * license file added to a directory or removed from one) a second, full one:
 * the files below them kept their size and time, so the first run did not
 * read them again, and their role (vendored or not) is what changed. Rare,
 * and as costly as a change of the declared roles.
 */
int mn_index_run(mn_store *s, const char *root, const mn_index_options *opts, mn_index_stats *out)
{
    bool again = false;
    int rc = index_run(s, root, opts, out, &again);
    if (rc == 0 && again) {
        mn_index_options full = opts ? *opts : (mn_index_options)MN_INDEX_OPTIONS_INIT;
        full.full = true;
        rc = index_run(s, root, &full, out, &again);
    }
    return rc;
}

static int index_run(mn_store *s, const char *root, const mn_index_options *opts,
                     mn_index_stats *out, bool *bundles_changed)
{
    *bundles_changed = false;
    mn_index_options defaults = MN_INDEX_OPTIONS_INIT;
    mn_walk_options wopts = MN_WALK_OPTIONS_INIT;
    mn_walk_stats wstats;
    indexer x;
    pthread_t threads[8];
    int nthreads, rc, wrc;
    bool restamp = false; /* stored under other rules (or none yet): stamp this build's */
    uint64_t start = mn_time_mono_ns();

    if (!opts)
        opts = &defaults;
    mn_index_options o = *opts;
    memset(out, 0, sizeof(*out));
    memset(&x, 0, sizeof(x));
    x.s = s;
    x.opts = opts = &o;
    x.stats = out;
    pthread_mutex_init(&x.q.lock, NULL);
    pthread_cond_init(&x.q.has_todo, NULL);
    pthread_cond_init(&x.q.has_done, NULL);
    x.q.max_file_size = opts->max_file_size ? opts->max_file_size : 1u << 20;
    wopts.max_file_size = x.q.max_file_size;
    x.q.full = opts->full;
    x.q.scanner = opts->scanner;
    x.q.redact = opts->redact;

    if ((rc = mn_store_files_each(s, NULL, load_known, &x)) != 0)
        goto out_map;
    restamp = rules_changed(s);
    if (x.known.len > 0 && restamp) /* what older rules stored: redone */
        x.q.full = o.full = true;
    /* the test paths a manifest declares and the roles .gitattributes
     * declares: when they change, every file's role may (none declared and
     * no stamp: the same; the stamp of a tree without linguist attributes
     * is its test paths' alone, as before they were read) */
    mn_test_paths_read(&x.q.tests, root);
    mn_gitattrs_read(&x.q.attrs, root);
    long long tests_stamp = (long long)((x.q.tests.hash ^ x.q.attrs.hash) >> 1),
              tests_was = config_read(s, KEY_TESTS);
    bool tests_changed = tests_stamp != (tests_was < 0 ? 0 : tests_was);
    if (x.known.len > 0 && tests_changed)
        x.q.full = o.full = true;
    x.everything = opts->full || x.known.len == 0;
    nthreads = opts->threads > 0 ? opts->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > (int)MN_ARRAY_SIZE(threads))
        nthreads = (int)MN_ARRAY_SIZE(threads);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&threads[i], NULL, worker, &x.q) != 0) {
            nthreads = i;
            break;
        }

    wrc = nthreads ? mn_walk(root, &wopts, on_entry, &x, &wstats)
                   : mn_error_set(MN_ERROR, "cannot start the index workers");
    pthread_mutex_lock(&x.q.lock);
    x.q.walk_over = true;
    pthread_cond_broadcast(&x.q.has_todo);
    pthread_mutex_unlock(&x.q.lock);
    rc = wrc;
    for (;;) { /* finish what is in flight, even after an error, to free it */
        pthread_mutex_lock(&x.q.lock);
        size_t left = x.q.inflight;
        pthread_mutex_unlock(&x.q.lock);
        if (!left)
            break;
        drain(&x, true);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    if (rc == 0)
        rc = x.rc;
    if (rc == 0) {
        out->skipped = wstats.skipped_ignored + wstats.skipped_large + wstats.skipped_bad_name +
                       wstats.skipped_symlink + wstats.skipped_special +
                       wstats.skipped_nested_repo + wstats.skipped_tool_dir;
        rc = remove_gone(&x);
    }
    if (rc == 0)
        rc = end_tx(&x);
    else if (x.in_tx)
        mn_store_rollback(s);
    if (rc == 0 && (x.everything || x.stored.len || x.added_or_removed)) {
        const char **names = mn_calloc(x.names.len + x.moved.len + 1, sizeof(*names));
        size_t n = 0, pos = 0;
        const char *k;
        void *v;
        /* defined as many times as before, in the same classes: resolutions by it stand */
        while (mn_map_next(&x.names, &pos, &k, &v))
            if (v)
                names[n++] = k;
        pos = 0;
        while (mn_map_next(&x.moved, &pos, &k, &v))
            if (!mn_map_get(&x.names, k))
                names[n++] = k;
        mn_resolve_scope scope = {
            x.everything,     x.added_or_removed, x.stored.items, x.stored.len,
            x.incoming.items, x.incoming.len,     names,          n};
        rc = mn_resolve_run(s, &scope, &out->resolve);
        free(names);
    }
    out->changed = x.stored.len + x.removals;
    if (rc == 0 && x.known.len > 0)
        rc = fts_tidy(s, out->changed, out->seen);
    /* and the segments the run's commits left (sympy's first index: 12), when many */
    bool rebuilt = false;
    if (rc == 0)
        rc = mn_store_fts_tidy(s, MN_FTS_CHUNKS, &rebuilt);
    if (rc == 0)
        rc = mn_store_fts_tidy(s, MN_FTS_FILES, &rebuilt);
    if (rc == 0 && restamp)
        rc = config_write(s, KEY_RULES, MN_INDEX_RULES);
    if (rc == 0 && tests_changed)
        rc = config_write(s, KEY_TESTS, tests_stamp);
    long long bundles_stamp = (long long)(x.bundles >> 1),
              bundles_was = config_read(s, KEY_BUNDLES);
    if (rc == 0 && bundles_stamp != (bundles_was < 0 ? 0 : bundles_was)) {
        rc = config_write(s, KEY_BUNDLES, bundles_stamp);
        /* a first index, or one that re-read every file, classified them with these bundles */
        *bundles_changed = rc == 0 && !x.everything;
    }
    /* the history after the files: a failure to read it costs its signal, not the index */
    if (rc == 0 && !opts->history)
        rc = mn_store_history_clear(s); /* config index.history false: none kept either */
    else if (rc == 0 &&
             mn_history_ingest(s, root, opts->scanner, opts->redact, &out->commits) != 0) {
        mn_log(MN_LOG_WARN, "history of '%s' not stored: %s", root, mn_error_last());
        out->commits = 0;
    }
out_map : {
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(&x.known, &pos, &k, &v))
        free(v);
    mn_map_release(&x.known);
    mn_map_release(&x.names);
    mn_map_release(&x.moved);
    mn_vec_release(&x.stored);
    mn_vec_release(&x.incoming);
    for (size_t i = 0; i < x.into_qns.len; i++)
        free(x.into_qns.items[i]);
    mn_vec_release(&x.into_ids);
    mn_vec_release(&x.into_qns);
    mn_map_release(&x.qnames);
}
    mn_test_paths_release(&x.q.tests);
    mn_gitattrs_release(&x.q.attrs);
    pthread_mutex_destroy(&x.q.lock);
    pthread_cond_destroy(&x.q.has_todo);
    pthread_cond_destroy(&x.q.has_done);
    out->seconds = (double)(mn_time_mono_ns() - start) / 1e9;
    return rc;
}

typedef struct {
    mn_map *known;
    mn_index_freshness *out;
} status_ctx;

static int status_entry(void *payload, const mn_walk_entry *e)
{
    status_ctx *c = payload;
    known_file *k = mn_map_get(c->known, e->path);
    if (!k) {
        /* the index skips binary files: so does status, from their head */
        char head[MN_CLASSIFY_HEAD_MAX];
        int fd = open(e->full_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        ssize_t got = fd >= 0 ? read(fd, head, sizeof(head)) : 0;
        size_t n = got > 0 ? (size_t)got : 0;
        mn_file_class cls;
        if (fd >= 0)
            close(fd);
        mn_classify(&cls, e->path, head, n, e->size);
        if (!cls.binary)
            c->out->added++;
        return 0;
    }
    k->visited = true;
    if (k->size == e->size && k->mtime_ms == e->mtime_ms)
        c->out->fresh++;
    else
        c->out->stale++;
    return 0;
}

int mn_index_status(mn_store *s, const char *root, mn_index_freshness *out)
{
    indexer x;
    mn_walk_options wopts = MN_WALK_OPTIONS_INIT;
    mn_walk_stats wstats;
    memset(&x, 0, sizeof(x));
    memset(out, 0, sizeof(*out));
    status_ctx c = {&x.known, out};
    int rc = mn_store_files_each(s, NULL, load_known, &x);
    if (rc == 0)
        rc = mn_walk(root, &wopts, status_entry, &c, &wstats);
    size_t pos = 0;
    const char *path;
    void *v;
    while (mn_map_next(&x.known, &pos, &path, &v)) {
        if (rc == 0 && !((known_file *)v)->visited)
            out->removed++;
        free(v);
    }
    mn_map_release(&x.known);
    return rc;
}
