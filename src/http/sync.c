/*
 * sync.c - the server's own clone of each project's repository, kept fresh
 * (config serve.repo, serve.poll, serve.repo_max_mb; docs/http.md).
 *
 * One thread per server runs every sync, so there is at most one run at a
 * time, and never two of one project. A project is synced when the server
 * starts, when its push webhook arrives (mn_http__sync_trigger: the
 * webhook answers 202 at once and the run follows), and every serve.poll
 * (at least 30 s; 0: never by the clock). The projects looked at are the
 * server's own and those its tokens open, read again every LIST_EVERY_MS
 * and on every trigger; each one's serve.* keys are read then too.
 *
 * A run: clone serve.repo (the first time) or fetch origin into
 * <data>/clones/<project>-<hash of the URL> (data: the directory of a
 * SQLite store, else $XDG_DATA_HOME/mnemo or ~/.local/share/mnemo; every
 * directory made 0700), move the work tree to the head of the default
 * branch (the branch the clone checked out, as origin has it now: a hard
 * reset, since nobody edits this tree), then run the operations `index`
 * (path = the clone) and `ingest_git` on a store connection of the
 * project's own whose root is the clone (actor "sync", admin). A URL that
 * changes makes a new clone (another hash); the old one stays on disk.
 *
 * Bounds: a transfer that passes serve.repo_max_mb is stopped by the
 * progress callback, and a clone whose files pass it once fetched (a local
 * path is copied, not transferred) is removed: nothing of it is indexed.
 * Stopping the server stops a transfer the same way. serve.repo holds no
 * credentials (config.c refuses them), so a URL in a log or an error
 * shows nothing secret. Failures are logged and counted
 * (mnemo_sync_runs_total{outcome="failed"}); the server answers
 * throughout, on its own threads.
 */
#include "common.h"
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "http/http_internal.h"
#include "http/rest.h"
#include "store/store_tokens.h"
#include "util/digest.h"
#include "util/libs.h"
#include "util/util.h"

#define LIST_EVERY_MS 30000 /* the projects and their keys are read again this often */
#define MIN_POLL_MS   30000 /* config.c refuses less; a value stored otherwise is raised */
#define MAX_PROJECTS  256   /* projects synced; more are logged once and left out */

typedef struct {
    char *name;
    char *repo;                 /* serve.repo ("" none) */
    int64_t poll_ms;            /* serve.poll (0: off) */
    int64_t max_mb;             /* serve.repo_max_mb */
    mn_ctx *ctx;                /* the sync's own connection, opened on the first run */
    uint64_t next_ms;           /* monotonic: the next poll */
    bool pending;               /* a webhook or the start asked for a run */
    bool seen;                  /* listed at the last read of the projects */
    _Atomic uint64_t ok;        /* runs that finished */
    _Atomic uint64_t fail;      /* runs that failed */
    _Atomic uint64_t last_ok_s; /* wall-clock seconds of the last good run */
} sync_project;

struct mn_http_sync {
    mn_http_server *srv;
    const mn_git_api *git;
    pthread_t thread;
    pthread_mutex_t lock; /* over everything below but the counters */
    pthread_cond_t wake;
    bool stop, relist, started;
    sync_project *v[MAX_PROJECTS];
    size_t n;
    uint64_t listed_ms;
    char *data_dir;
};

static uint64_t now_ms(void)
{
    return mn_time_mono_ns() / 1000000u;
}

/* ---- the projects ---- */

static sync_project *find(mn_http_sync *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i]->name, name) == 0)
            return s->v[i];
    return NULL;
}

static sync_project *add(mn_http_sync *s, const char *name)
{
    sync_project *p = find(s, name);
    if (p || s->n == MAX_PROJECTS)
        return p;
    p = mn_calloc(1, sizeof(*p));
    p->name = mn_strdup(name);
    p->repo = mn_strdup("");
    p->pending = true; /* a first run when the server starts (or the project appears) */
    s->v[s->n++] = p;
    return p;
}

/* The sync's own connection to a project (admin, actor "sync"). Called without the lock. */
static mn_ctx *project_ctx(mn_http_sync *s, sync_project *p)
{
    if (!p->ctx) {
        mn_ctx_options o = MN_CTX_OPTIONS_INIT;
        o.db_path = s->srv->db_path;
        o.project = p->name;
        o.actor = "sync";
        o.front_end = MN_FRONT_NETWORK;
        o.role = MN_ROLE_ADMIN;
        o.create = false;
        if (mn_ctx_open(&p->ctx, &o) != 0)
            p->ctx = NULL;
    }
    return p->ctx;
}

/* Read a project's serve.* keys (without the lock: the store is read). */
static void read_keys(mn_http_sync *s, sync_project *p, char **repo, int64_t *poll, int64_t *max)
{
    mn_ctx *ctx = project_ctx(s, p);
    char *v = NULL;
    *repo = NULL;
    *poll = 0;
    *max = 1024;
    if (!ctx)
        goto fail;
    if (mn_http__config_text(ctx, &v, "serve.repo") != 0)
        goto fail;
    *repo = v;
    if (mn_api__config_duration(ctx, poll, "serve.poll") != 0)
        goto fail;
    if (*poll > 0 && *poll < MIN_POLL_MS)
        *poll = MIN_POLL_MS;
    v = NULL;
    if (mn_http__config_text(ctx, &v, "serve.repo_max_mb") == 0)
        *max = strtoll(v, NULL, 10) > 0 ? strtoll(v, NULL, 10) : 1024;
    free(v);
    mn_error_clear();
    if (!**repo) { /* nothing to sync: no connection kept for it (the projects may be many) */
        mn_ctx_free(p->ctx);
        p->ctx = NULL;
    }
    return;
fail:
    mn_log(MN_LOG_WARN, "sync: cannot read the settings of project '%s': %s", p->name,
           mn_error_last());
    mn_error_clear();
}

/* The server's project and every token's, each with its keys (the lock is not held). */
static void relist(mn_http_sync *s)
{
    mn_token *tokens = NULL;
    size_t ntok = 0;
    char **names = NULL;
    size_t nnames = 0;
    pthread_mutex_lock(&s->lock);
    sync_project *own = add(s, s->srv->project);
    pthread_mutex_unlock(&s->lock);
    mn_ctx *ctx = own ? project_ctx(s, own) : NULL;
    if (ctx && mn_store_token_list(ctx->store, &tokens, &ntok) == 0) {
        names = mn_calloc(ntok ? ntok : 1, sizeof(*names));
        for (size_t i = 0; i < ntok; i++)
            if (!tokens[i].revoked_at && tokens[i].project)
                names[nnames++] = mn_strdup(tokens[i].project);
        mn_tokens_free(tokens, ntok);
    }
    mn_error_clear();
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < nnames; i++) {
        if (!add(s, names[i]))
            mn_log(MN_LOG_WARN, "sync: more than %d projects; '%s' is not synced", MAX_PROJECTS,
                   names[i]);
        free(names[i]);
    }
    free(names);
    size_t n = s->n;
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < n; i++) {
        sync_project *p = s->v[i]; /* the array only grows, under the lock; read by this thread */
        char *repo;
        int64_t poll, max;
        read_keys(s, p, &repo, &poll, &max);
        pthread_mutex_lock(&s->lock);
        if (repo) {
            if (strcmp(repo, p->repo) != 0)
                p->pending = true; /* a new repository: fetch it now */
            free(p->repo);
            p->repo = repo;
            if (poll != p->poll_ms)
                p->next_ms = poll ? now_ms() + (uint64_t)poll : 0;
            p->poll_ms = poll;
            p->max_mb = max;
        }
        pthread_mutex_unlock(&s->lock);
    }
    s->listed_ms = now_ms();
}

/* ---- one run ---- */

typedef struct {
    mn_http_sync *s;
    uint64_t max_bytes;
    bool too_big;
} transfer_limit;

static int on_progress(const git_indexer_progress *st, void *payload)
{
    transfer_limit *l = payload;
    bool stop;
    pthread_mutex_lock(&l->s->lock);
    stop = l->s->stop;
    pthread_mutex_unlock(&l->s->lock);
    if (st->received_bytes > l->max_bytes) {
        l->too_big = true;
        return -1;
    }
    return stop ? -1 : 0;
}

/* <data>/clones/<project, escaped>-<12 hex digits of the URL's SHA-256>, malloc'd. */
static char *clone_dir(mn_http_sync *s, const char *project, const char *url)
{
    uint8_t d[MN_SHA256_LEN];
    char hex[MN_SHA256_HEX];
    mn_buf b = MN_BUF_INIT;
    mn_sha256(d, url, strlen(url));
    mn_hex(hex, d, 6);
    mn_buf_printf(&b, "%s/clones/", s->data_dir);
    for (const char *c = project; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '_')
            mn_buf_put(&b, c, 1);
        else
            mn_buf_printf(&b, "%%%02x", ch); /* no '/', no '..', nothing hidden */
    }
    mn_buf_printf(&b, "-%s", hex);
    return mn_buf_detach(&b);
}

static int git_fail(mn_http_sync *s, const char *what, const char *project)
{
    const git_error *e = s->git->error_last();
    return mn_error_set(MN_EIO, "cannot %s the repository of project '%s': %s", what, project,
                        e && e->message ? e->message : "unknown libgit2 error");
}

/*
 * The bytes a clone takes on disk, and its removal: nftw keeps its state
 * in globals, hence one walk at a time (this thread is the only walker).
 */
static uint64_t walked_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    MN_UNUSED(path);
    MN_UNUSED(f);
    if (flag == FTW_F)
        walked_bytes += (uint64_t)st->st_size;
    return 0;
}

static uint64_t tree_size(const char *dir)
{
    walked_bytes = 0;
    nftw(dir, add_size, 16, FTW_PHYS);
    return walked_bytes;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    MN_UNUSED(st);
    MN_UNUSED(f);
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *dir)
{
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        mn_log(MN_LOG_WARN, "sync: cannot remove '%s': %s", dir, strerror(errno));
}

/* Clone or fetch url into dir and reset the work tree to the default branch's head. */
static int fetch_and_checkout(mn_http_sync *s, const char *project, const char *url,
                              const char *dir, int64_t max_mb)
{
    const mn_git_api *git = s->git;
    git_repository *repo = NULL;
    git_remote *remote = NULL;
    git_reference *head = NULL;
    git_object *target = NULL;
    transfer_limit lim = {s, (uint64_t)max_mb << 20, false};
    mn_buf git_dir = MN_BUF_INIT, ref = MN_BUF_INIT;
    int rc = 0;
    mn_buf_printf(&git_dir, "%s/.git", dir);
    if (!mn_fs_is_dir(git_dir.ptr)) {
        git_clone_options co;
        git->clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
        co.fetch_opts.callbacks.transfer_progress = on_progress;
        co.fetch_opts.callbacks.payload = &lim;
        if (git->clone(&repo, url, dir, &co) != 0) {
            rc = git_fail(s, "clone", project);
            goto out;
        }
        mn_fs_make_private(dir); /* libgit2 made it 0755 */
    } else {
        /*
         * origin by its URL, not by name: libgit2 1.5 leaks a PCRE2 match per config
         * key its regex does not match (git_regexp_match), and a remote looked up by
         * name, or with url.*.insteadOf applied, reads the config that way. The URL
         * is serve.repo's, the one this directory was cloned from (its hash names it).
         */
        git_fetch_options fo;
        git_remote_create_options ro;
        char *spec = "+refs/heads/*:refs/remotes/origin/*";
        git_strarray specs = {&spec, 1};
        git->remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
        if (git->repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
            rc = git_fail(s, "open the clone of", project);
            goto out;
        }
        ro.repository = repo;
        ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
        if (git->remote_create_with_opts(&remote, url, &ro) != 0) {
            rc = git_fail(s, "open the clone of", project);
            goto out;
        }
        git->fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
        fo.callbacks.transfer_progress = on_progress;
        fo.callbacks.payload = &lim;
        fo.prune = GIT_FETCH_PRUNE;
        fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
        if (git->remote_fetch(remote, &specs, &fo, "mnemo serve: fetch") != 0) {
            rc = git_fail(s, "fetch", project);
            goto out;
        }
    }
    /* the branch the clone checked out (the remote's default), as origin has it now */
    if (git->repository_head(&head, repo) != 0 || !git->reference_is_branch(head)) {
        rc = git_fail(s, "find the default branch of", project);
        goto out;
    }
    /* a local path is copied, not transferred (no progress to stop): measure what arrived */
    if (tree_size(dir) > lim.max_bytes) {
        lim.too_big = true;
        goto out;
    }
    mn_buf_printf(&ref, "refs/remotes/origin/%s", git->reference_shorthand(head));
    if (git->revparse_single(&target, repo, ref.ptr) != 0 ||
        git->reset(repo, target, GIT_RESET_HARD, NULL) != 0)
        rc = git_fail(s, "check out the default branch of", project);
out:
    /* what came from the repository before the repository itself */
    git->object_free(target);
    git->reference_free(head);
    git->remote_free(remote);
    git->repository_free(repo);
    if (lim.too_big && mn_fs_is_dir(dir))
        remove_tree(dir); /* nothing of it is served; the next run tries again from scratch */
    if (lim.too_big)
        rc = mn_error_set(MN_ETOOBIG,
                          "the repository of project '%s' is larger than serve.repo_max_mb "
                          "(%lld MB): not cloned; raise the limit to serve it",
                          project, (long long)max_mb);
    mn_buf_release(&git_dir);
    mn_buf_release(&ref);
    return rc;
}

/* index and ingest_git of the project on its clone, through the operation table. */
static int run_ops(mn_ctx *ctx, const char *dir)
{
    json_t *out = NULL, *args = json_pack("{s:s}", "path", dir);
    int rc = mn_api_call(ctx, "index", args, &out);
    json_decref(args);
    json_decref(out);
    out = NULL;
    if (rc == 0) {
        args = json_object();
        rc = mn_api_call(ctx, "ingest_git", args, &out);
        json_decref(args);
        if (rc == 0)
            mn_log(MN_LOG_INFO, "sync: project '%s': %lld commit(s) ingested", ctx->project,
                   (long long)json_integer_value(
                       json_object_get(json_object_get(out, "commits"), "ingested")));
        json_decref(out);
    }
    return rc;
}

static void run(mn_http_sync *s, sync_project *p, const char *url, int64_t max_mb)
{
    char *dir = clone_dir(s, p->name, url);
    mn_buf clones = MN_BUF_INIT;
    mn_ctx *ctx = project_ctx(s, p);
    uint64_t t0 = mn_time_mono_ns();
    int rc = ctx ? 0 : mn_error_last_code();
    mn_buf_printf(&clones, "%s/clones", s->data_dir);
    if (rc == 0)
        rc = mn_fs_mkdir_private(clones.ptr);
    if (rc == 0)
        rc = fetch_and_checkout(s, p->name, url, dir, max_mb);
    if (rc == 0) {
        /* this connection's repository is the clone, whatever the server's directory is */
        free(ctx->root);
        ctx->root = mn_strdup(dir);
        rc = run_ops(ctx, dir);
    }
    if (rc == 0) {
        atomic_fetch_add(&p->ok, 1);
        atomic_store(&p->last_ok_s, (uint64_t)(mn_time_now_ms() / 1000));
        mn_log(MN_LOG_INFO, "sync: project '%s' is at the head of '%s' (%.1f s)", p->name, url,
               (double)(mn_time_mono_ns() - t0) / 1e9);
    } else {
        atomic_fetch_add(&p->fail, 1);
        mn_log(MN_LOG_WARN, "sync: project '%s' from '%s' failed: %s", p->name, url,
               mn_error_last());
    }
    mn_error_clear();
    mn_buf_release(&clones);
    free(dir);
}

/* ---- the thread ---- */

static void *worker(void *arg)
{
    mn_http_sync *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        if (s->relist || now_ms() - s->listed_ms >= LIST_EVERY_MS || !s->listed_ms) {
            s->relist = false;
            pthread_mutex_unlock(&s->lock);
            relist(s);
            pthread_mutex_lock(&s->lock);
            continue;
        }
        /* the first project due: asked for, or its poll time passed */
        sync_project *due = NULL;
        uint64_t now = now_ms(), wait_ms = LIST_EVERY_MS;
        for (size_t i = 0; i < s->n && !due; i++) {
            sync_project *p = s->v[i];
            if (!*p->repo) {
                p->pending = false;
                continue;
            }
            if (p->pending || (p->poll_ms && now >= p->next_ms))
                due = p;
            else if (p->poll_ms && p->next_ms - now < wait_ms)
                wait_ms = p->next_ms - now;
        }
        if (due) {
            char *url = mn_strdup(due->repo);
            int64_t max_mb = due->max_mb;
            due->pending = false;
            due->next_ms = due->poll_ms ? now + (uint64_t)due->poll_ms : 0;
            pthread_mutex_unlock(&s->lock);
            run(s, due, url, max_mb);
            free(url);
            pthread_mutex_lock(&s->lock);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t)(wait_ms / 1000);
        ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->wake, &s->lock, &ts);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Where clones go: beside a SQLite store, else the user's data directory. */
static char *data_dir_of(const char *db_path)
{
    mn_buf b = MN_BUF_INIT;
    if (mn_location_is_file(db_path)) {
        const char *slash = strrchr(db_path, '/');
        mn_buf_put(&b, db_path, slash && slash != db_path ? (size_t)(slash - db_path) : 1);
    } else {
        const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        if (xdg && *xdg == '/')
            mn_buf_printf(&b, "%s/mnemo", xdg);
        else
            mn_buf_printf(&b, "%s/.local/share/mnemo", home && *home == '/' ? home : "/tmp");
    }
    return mn_buf_detach(&b);
}

int mn_http__sync_new(mn_http_sync **out, mn_http_server *srv)
{
    const mn_git_api *git = mn_libs_git();
    *out = NULL;
    if (!git)
        return mn_error_last_code();
    mn_http_sync *s = mn_calloc(1, sizeof(*s));
    s->srv = srv;
    s->git = git;
    s->data_dir = data_dir_of(srv->db_path);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (pthread_create(&s->thread, NULL, worker, s) != 0) {
        mn_http__sync_free(s);
        return mn_error_set(MN_ERROR, "cannot start the thread that syncs the repositories");
    }
    s->started = true;
    *out = s;
    return 0;
}

void mn_http__sync_free(mn_http_sync *s)
{
    if (!s)
        return;
    if (s->started) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
    for (size_t i = 0; i < s->n; i++) {
        mn_ctx_free(s->v[i]->ctx);
        free(s->v[i]->name);
        free(s->v[i]->repo);
        free(s->v[i]);
    }
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s->data_dir);
    free(s);
}

bool mn_http__sync_trigger(mn_http_sync *s, const char *project)
{
    bool has_repo;
    if (!s)
        return false;
    pthread_mutex_lock(&s->lock);
    sync_project *p = find(s, project);
    has_repo = p && *p->repo;
    if (has_repo)
        p->pending = true;
    /* read the keys again before the run: serve.repo may have been set since */
    s->relist = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return has_repo;
}

void mn_http__sync_metrics(mn_http_sync *s, mn_buf *b, const char *only_project)
{
    if (!s)
        return;
    mn_buf_puts(b, "# HELP mnemo_sync_runs_total Runs that brought a project's own clone to its "
                   "repository's head and indexed it, by project and outcome.\n"
                   "# TYPE mnemo_sync_runs_total counter\n");
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n; i++) {
        sync_project *p = s->v[i];
        if (!*p->repo || (only_project && strcmp(only_project, p->name) != 0))
            continue;
        mn_buf_puts(b, "mnemo_sync_runs_total{project=\"");
        mn_http__metrics_label(b, p->name);
        mn_buf_printf(b, "\",outcome=\"ok\"} %llu\n", (unsigned long long)atomic_load(&p->ok));
        mn_buf_puts(b, "mnemo_sync_runs_total{project=\"");
        mn_http__metrics_label(b, p->name);
        mn_buf_printf(b, "\",outcome=\"failed\"} %llu\n",
                      (unsigned long long)atomic_load(&p->fail));
    }
    mn_buf_puts(b, "# HELP mnemo_sync_last_success_seconds When a project's clone was last "
                   "synced, Unix time.\n# TYPE mnemo_sync_last_success_seconds gauge\n");
    for (size_t i = 0; i < s->n; i++) {
        sync_project *p = s->v[i];
        uint64_t t = atomic_load(&p->last_ok_s);
        if (!*p->repo || !t || (only_project && strcmp(only_project, p->name) != 0))
            continue;
        mn_buf_puts(b, "mnemo_sync_last_success_seconds{project=\"");
        mn_http__metrics_label(b, p->name);
        mn_buf_printf(b, "\"} %llu\n", (unsigned long long)t);
    }
    pthread_mutex_unlock(&s->lock);
}
