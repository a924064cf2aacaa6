/*
 * git.c - the git ingest (ingest.h: mn_ingest_git): walk the history with
 * libgit2 (loaded through util/libs.c, as index/history.c reads it), and
 * for each commit not read before: its message, author, date, the files it
 * touched against its first parent and the symbols (as the index names
 * them) its hunks touched; the extractors' candidates (extractors.c), each
 * saved through the save pipeline (save.c); the issues its message names
 * (task links). The commit's row (store_ingest.h) is claimed before its
 * candidates are saved and marked done after, so a second run, or the
 * post-commit hook racing a manual run, never extracts a commit twice.
 *
 * Order: the commits to read are collected newest first (TIME order, at
 * most opts->max not yet done), then read oldest first, so that a revert
 * finds the memories of the commit it undid, and a newer fact supersedes
 * an older one (save.c: state keys).
 *
 * A shallow clone (CI checkouts, `git clone --depth N`): libgit2 1.5's
 * revwalk stops with an error at the first parent the clone lacks, so the
 * walk is done here (walk_shallow), by commit time as the revwalk does,
 * down to the boundary the clone's `shallow` file lists: a boundary commit
 * is read for its message only (its parent's tree is not in the clone) and
 * ends its line. A commit missing anywhere else is an error, as the
 * revwalk's errors are: the history is damaged, and `git fsck` says how.
 *
 * Cost (psf/requests, 6,489 commits: bench/bench_ingest.sh): one
 * tree-to-tree diff per non-merge commit (with rename detection), a patch
 * only for the text files an extractor asks about, a blob read only for
 * the manifests, CI files and migrations it parses; neither for a file
 * over MAX_BLOB, whose size is read from the object's header first (a
 * patch of a 200 MB file cost three times its size in memory). Merges are
 * recorded and their messages read, not diffed (their changes are their
 * parents').
 * A commit touching more than MAX_DELTAS files is read for its message
 * only (a vendored library, a mass rename: no single fact comes of it).
 */
#include "common.h"
#include <git2.h>

#include "ingest/candidate.h"
#include "ingest/ingest.h"
#include "ingest/ingest_internal.h"
#include "store/store_index.h"
#include "store/store_ingest.h"
#include "util/libs.h"
#include "util/map.h"
#include "util/util.h"

#define MAX_DELTAS     200       /* changed files looked at per commit */
#define MAX_BLOB       (1 << 20) /* bytes of a file's text read */
#define MAX_MESSAGE    (64 << 10)
#define MAX_SYMBOLS    50
#define CLAIM_STALE_MS (10 * 60 * 1000) /* a claim this old was left by a run that died */
#define ITEMS_REPORTED 200

typedef struct {
    const mn_git_api *git;
    git_repository *repo;
    const mn_ingest_env *env; /* its scanner: every text is scrubbed as it is read */
    bool boundary;            /* a shallow clone's boundary: the parent is not in the clone */
    char *unreadable;         /* why its changes cannot be read (NULL: they can) */
    git_odb *odb;             /* for the sizes of blobs, opened on first use */
    git_commit *commit;
    git_tree *tree, *ptree; /* the commit's and its first parent's (NULL: none) */
    git_diff *diff;
} view_impl;

typedef struct {
    git_oid old_id, new_id;
    size_t index; /* in the diff */
    size_t size;  /* too_large: the larger side's bytes */
} delta_impl;

/* ---- text from git: valid UTF-8, NUL-terminated ---- */

char *mn_ingest_text_dup(const char *s, size_t len)
{
    char *out = mn_strndup(s ? s : "", s ? len : 0);
    mn_ingest_utf8_fix(out, strlen(out));
    return out;
}

static bool oid_zero(const git_oid *id)
{
    for (size_t i = 0; i < sizeof(id->id); i++)
        if (id->id[i])
            return false;
    return true;
}

/*
 * Whether a side of a delta is over MAX_BLOB, from the object's header (the
 * blob is not read); d->too_large says so. A header that cannot be read is
 * not (the blob cannot be read either, and its readers say so).
 */
static bool side_too_large(view_impl *v, mn_delta *d, const git_oid *id)
{
    size_t size = 0;
    git_object_t type;
    if (oid_zero(id))
        return false;
    if ((!v->odb && v->git->repository_odb(&v->odb, v->repo) < 0) ||
        v->git->odb_read_header(&size, &type, v->odb, id) < 0) {
        mn_error_clear();
        return false;
    }
    if (size <= MAX_BLOB)
        return false;
    delta_impl *di = d->impl;
    d->too_large = true;
    if (size > di->size)
        di->size = size;
    return true;
}

const char *mn_delta_text(mn_commit_view *c, mn_delta *d, int which, size_t *len)
{
    view_impl *v = c->impl;
    delta_impl *di = d->impl;
    *len = 0;
    if (which < 0 || which > 1)
        return NULL;
    if (!d->text_read[which]) {
        d->text_read[which] = true;
        const git_oid *id = which ? &di->new_id : &di->old_id;
        bool absent = which ? d->status == MN_DELTA_DELETED : d->status == MN_DELTA_ADDED;
        git_blob *b = NULL;
        if (!absent && !oid_zero(id) && !side_too_large(v, d, id) &&
            v->git->blob_lookup(&b, v->repo, id) == 0) {
            size_t n = (size_t)v->git->blob_rawsize(b);
            const char *raw = v->git->blob_rawcontent(b);
            if (n <= MAX_BLOB && raw && !memchr(raw, '\0', n)) {
                d->text[which] = mn_ingest_scrub_cut(v->env, raw, n, n);
                d->len[which] = strlen(d->text[which]);
            }
        }
        v->git->blob_free(b);
    }
    *len = d->len[which];
    return d->text[which];
}

static char *lines_of(const view_impl *v, git_patch *p, size_t h, size_t nlines, char origin)
{
    const mn_git_api *git = v->git;
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < nlines; i++) {
        const git_diff_line *l;
        if (git->patch_get_line_in_hunk(&l, p, h, i) < 0 || l->origin != origin)
            continue;
        if (memchr(l->content, '\0', l->content_len))
            continue;
        mn_buf_put(&b, l->content, l->content_len);
        if (!l->content_len || l->content[l->content_len - 1] != '\n')
            mn_buf_putc(&b, '\n');
    }
    char *out = mn_ingest_scrub_cut(v->env, b.ptr ? b.ptr : "", b.len, b.len);
    mn_buf_release(&b);
    return out;
}

bool mn_commit_has_path(mn_commit_view *c, const char *path, bool before)
{
    view_impl *v = c->impl;
    git_tree *t = before ? v->ptree : v->tree;
    git_tree_entry *e = NULL;
    if (!t)
        return false;
    bool found = v->git->tree_entry_bypath(&e, t, path) == 0;
    v->git->tree_entry_free(e);
    mn_error_clear();
    return found;
}

const mn_hunk *mn_delta_patch(mn_commit_view *c, mn_delta *d, size_t *n)
{
    view_impl *v = c->impl;
    delta_impl *di = d->impl;
    *n = 0;
    if (d->patch_read) {
        *n = d->nhunks;
        return d->hunks;
    }
    d->patch_read = true;
    if (d->binary || !v->diff)
        return NULL;
    /* a patch holds both sides and its lines: three times a big file's size */
    bool big_old = d->status != MN_DELTA_ADDED && side_too_large(v, d, &di->old_id);
    if (big_old || (d->status != MN_DELTA_DELETED && side_too_large(v, d, &di->new_id)))
        return NULL;
    git_patch *p = NULL;
    if (v->git->patch_from_diff(&p, v->diff, di->index) < 0 || !p) {
        mn_error_clear();
        return NULL;
    }
    size_t nh = v->git->patch_num_hunks(p);
    d->hunks = mn_calloc(nh ? nh : 1, sizeof(mn_hunk));
    for (size_t h = 0; h < nh; h++) {
        const git_diff_hunk *hk;
        size_t nlines;
        if (v->git->patch_get_hunk(&hk, &nlines, p, h) < 0)
            break;
        mn_hunk *out = &d->hunks[d->nhunks++];
        out->old_start = hk->old_start;
        out->old_lines = hk->old_lines;
        out->new_start = hk->new_start;
        out->new_lines = hk->new_lines;
        /* "@@ -1,2 +1,3 @@ def get(url):\n": the context after the second "@@" */
        const char *ctx = strstr(hk->header + 2, "@@");
        ctx = ctx ? ctx + 2 : "";
        while (*ctx == ' ')
            ctx++;
        size_t clen = strcspn(ctx, "\r\n");
        out->header = mn_ingest_scrub_cut(v->env, ctx, clen, clen);
        out->removed = lines_of(v, p, h, nlines, GIT_DIFF_LINE_DELETION);
        out->added = lines_of(v, p, h, nlines, GIT_DIFF_LINE_ADDITION);
    }
    v->git->patch_free(p);
    *n = d->nhunks;
    return d->hunks;
}

static void view_release(mn_commit_view *c)
{
    view_impl *v = c->impl;
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        free(d->path);
        free(d->old_path);
        free(d->text[0]);
        free(d->text[1]);
        for (size_t h = 0; h < d->nhunks; h++) {
            free(d->hunks[h].header);
            free(d->hunks[h].removed);
            free(d->hunks[h].added);
        }
        free(d->hunks);
        free(d->impl);
    }
    free(c->deltas);
    free(c->parents);
    free(c->message);
    free(c->subject);
    free(c->author);
    if (v) {
        v->git->diff_free(v->diff);
        v->git->tree_free(v->tree);
        v->git->tree_free(v->ptree);
        v->git->commit_free(v->commit);
        v->git->odb_free(v->odb);
        free(v->unreadable);
        free(v);
    }
    memset(c, 0, sizeof(*c));
}

static mn_delta_status status_of(git_delta_t s)
{
    switch (s) {
    case GIT_DELTA_ADDED:
        return MN_DELTA_ADDED;
    case GIT_DELTA_DELETED:
        return MN_DELTA_DELETED;
    case GIT_DELTA_RENAMED:
        return MN_DELTA_RENAMED;
    default:
        return MN_DELTA_MODIFIED;
    }
}

/*
 * The message, the author and (lazily) the texts and hunks are scrubbed as
 * they are read, before anything cuts them: the extractors clip titles,
 * evidence lines and the message itself (MAX_MESSAGE), and a secret cut in
 * half would no longer match its rule when the save pipeline scrubs.
 */
/* An object of the commit missing or damaged (not the system failing: memory, files). */
static bool object_unreadable(const mn_git_api *git, int grc)
{
    const git_error *e = git->error_last();
    return grc == GIT_ENOTFOUND ||
           (e && (e->klass == GIT_ERROR_ODB || e->klass == GIT_ERROR_ZLIB ||
                  e->klass == GIT_ERROR_OBJECT || e->klass == GIT_ERROR_TREE));
}

static int view_open(mn_commit_view *c, const mn_git_api *git, git_repository *repo,
                     const git_oid *oid, mn_store *s, const mn_ingest_env *env, bool boundary)
{
    view_impl *v = mn_calloc(1, sizeof(*v));
    git_commit *parent = NULL;
    int rc = -1;
    memset(c, 0, sizeof(*c));
    c->impl = v;
    c->store = s;
    v->git = git;
    v->repo = repo;
    v->env = env;
    v->boundary = boundary;
    if (git->commit_lookup(&v->commit, repo, oid) < 0)
        goto out;
    git->oid_fmt(c->sha, oid);
    c->sha[40] = '\0';
    memcpy(c->short_sha, c->sha, 12);
    c->short_sha[12] = '\0';
    c->nparents = git->commit_parentcount(v->commit);
    mn_buf pb = MN_BUF_INIT;
    for (unsigned i = 0; i < c->nparents; i++) {
        char hex[41];
        git->oid_fmt(hex, git->commit_parent_id(v->commit, i));
        hex[40] = '\0';
        mn_buf_printf(&pb, "%s%s", i ? " " : "", hex);
    }
    c->parents = pb.ptr ? mn_buf_detach(&pb) : mn_strdup("");
    const char *msg = git->commit_message(v->commit);
    size_t mlen = msg ? strlen(msg) : 0;
    c->message = mn_ingest_scrub_cut(env, msg, mlen, MAX_MESSAGE);
    size_t first = strcspn(c->message, "\n");
    c->subject = mn_ingest_text_dup(c->message, first);
    const git_signature *sig = git->commit_author(v->commit);
    size_t alen = sig && sig->name ? strlen(sig->name) : 0;
    c->author = mn_ingest_scrub_cut(env, alen ? sig->name : "", alen, alen);
    c->time_ms = (int64_t)git->commit_time(v->commit) * 1000;
    char t[32];
    mn_time_format(t, c->time_ms);
    memcpy(c->date, t, 10);
    c->date[10] = '\0';
    /* a merge: its changes are its parents'; a shallow clone's boundary: its parent is not here */
    if (c->nparents > 1 || boundary) {
        rc = 0;
        goto out;
    }
    int grc;
    if ((grc = git->commit_tree(&v->tree, v->commit)) < 0 ||
        (c->nparents == 1 && ((grc = git->commit_parent(&parent, v->commit, 0)) < 0 ||
                              (grc = git->commit_tree(&v->ptree, parent)) < 0)))
        goto changes;
    git_diff_options dopts;
    git->diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
    dopts.context_lines = 0;
    dopts.interhunk_lines = 0;
    dopts.max_size = MAX_BLOB; /* larger blobs are binary to libgit2: it never loads them */
    git_diff_find_options find;
    memset(&find, 0, sizeof(find));
    find.version = GIT_DIFF_FIND_OPTIONS_VERSION;
    find.flags = GIT_DIFF_FIND_RENAMES;
    if ((grc = git->diff_tree_to_tree(&v->diff, repo, v->ptree, v->tree, &dopts)) < 0)
        goto changes;
    size_t n = git->diff_num_deltas(v->diff);
    if (n > MAX_DELTAS) {
        /* a vendored library or a mass move: the message alone is read */
        c->too_big = true;
        rc = 0;
        goto out;
    }
    if ((grc = git->diff_find_similar(v->diff, &find)) < 0)
        goto changes;
    n = git->diff_num_deltas(v->diff);
    c->deltas = mn_calloc(n ? n : 1, sizeof(mn_delta));
    for (size_t i = 0; i < n; i++) {
        const git_diff_delta *gd = git->diff_get_delta(v->diff, i);
        const char *path = gd->status == GIT_DELTA_DELETED ? gd->old_file.path : gd->new_file.path;
        if (!path || !mn_utf8_valid(path, strlen(path)) || gd->status == GIT_DELTA_UNMODIFIED)
            continue;
        mn_delta *d = &c->deltas[c->ndeltas++];
        delta_impl *di = mn_calloc(1, sizeof(*di));
        di->old_id = gd->old_file.id;
        di->new_id = gd->new_file.id;
        di->index = i;
        d->impl = di;
        d->path = mn_strdup(path);
        d->old_path = mn_strdup(gd->old_file.path ? gd->old_file.path : path);
        d->status = status_of(gd->status);
        d->binary = (gd->flags & GIT_DIFF_FLAG_BINARY) != 0;
        /* a tree-to-tree diff does not read the blobs: their sizes are not known (0), and an
         * empty file is a marker to mn_classify, so a size of 1 stands for "some text" */
        mn_classify(&d->cls, d->path, NULL, 0, 1);
        if (d->cls.binary)
            d->binary = true;
    }
    rc = 0;
    goto out;
changes:
    /* the commit is there, its changes are not (a tree or a blob missing or damaged): its
     * message is read, and the run goes on (unreadable) */
    if (object_unreadable(git, grc)) {
        const git_error *e = git->error_last();
        v->unreadable = mn_strdup(e && e->message ? e->message : "object not found");
        git->diff_free(v->diff);
        v->diff = NULL;
        rc = 0;
    }
out:
    git->commit_free(parent);
    if (rc) {
        const git_error *e = git->error_last();
        mn_error_set(MN_EIO, "cannot read commit %.12s: %s", c->sha[0] ? c->sha : "?",
                     e && e->message ? e->message : "unknown error");
        return MN_EIO;
    }
    return 0;
}

/* ---- the symbols a commit touched, as the index names them ---- */

typedef struct {
    mn_map names; /* names the index knows for the path */
} name_set;

static int collect_name(void *payload, const char *name, const char *qualified)
{
    mn_map *m = payload;
    mn_map_set(m, name, NULL);
    if (qualified)
        mn_map_set(m, qualified, NULL);
    return 0;
}

/* path -> name_set* (NULL when the index does not have the file) */
static name_set *index_names(mn_store *s, mn_map *cache, const char *path)
{
    if (mn_map_has(cache, path))
        return mn_map_get(cache, path);
    name_set *ns = NULL;
    int64_t id = 0;
    char hash[MN_HASH_HEX];
    if (mn_store_file_lookup(s, &id, hash, path) == 0 && id > 0) {
        ns = mn_calloc(1, sizeof(*ns));
        if (mn_store_file_symbol_names_each(s, id, collect_name, &ns->names) != 0)
            mn_error_clear();
    } else {
        mn_error_clear();
    }
    mn_map_set(cache, path, ns);
    return ns;
}

static void add_symbol(json_t *symbols, const name_set *ns, const char *name)
{
    if (!*name || json_array_size(symbols) >= MAX_SYMBOLS)
        return;
    if (ns && !mn_map_has(&ns->names, name))
        return; /* the index does not know it under this path: a call, not a definition */
    mn_strv_add(symbols, name);
}

static void def_names(json_t *symbols, const name_set *ns, const char *lang, const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        char name[128];
        bool pub;
        const char *kind;
        if (mn_def_line(lang, p, n, name, sizeof(name), &pub, &kind, NULL))
            add_symbol(symbols, ns, name);
        p += n + (p[n] == '\n');
    }
}

static json_t *touched_symbols(mn_commit_view *c, mn_map *cache)
{
    json_t *symbols = json_array();
    for (size_t i = 0; i < c->ndeltas && json_array_size(symbols) < MAX_SYMBOLS; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->binary || d->cls.role != MN_ROLE_SOURCE || !d->cls.language ||
            d->status == MN_DELTA_DELETED)
            continue;
        name_set *ns = index_names(c->store, cache, d->path);
        size_t nh;
        const mn_hunk *h = mn_delta_patch(c, d, &nh);
        for (size_t k = 0; k < nh; k++) {
            def_names(symbols, ns, d->cls.language, h[k].header);
            def_names(symbols, ns, d->cls.language, h[k].added);
            def_names(symbols, ns, d->cls.language, h[k].removed);
        }
    }
    return symbols;
}

static void name_cache_release(mn_map *cache)
{
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(cache, &pos, &k, &v)) {
        name_set *ns = v;
        if (ns) {
            mn_map_release(&ns->names);
            free(ns);
        }
    }
    mn_map_release(cache);
}

/* ---- the run ---- */

typedef struct {
    const mn_git_api *git;
    git_repository *repo;
    mn_store *s;
    const mn_ingest_env *env;
    const mn_git_ingest_opts *opts;
    mn_memory_settings cfg;
    char *branch;    /* HEAD's branch, NULL when detached */
    mn_map done;     /* shas done before this run */
    mn_map boundary; /* a shallow clone's boundary commits (its `shallow` file) */
    bool shallow;
    mn_map names; /* path -> index names */
    mn_ingest_tally tally;
    size_t batch; /* commits recorded in the open batch transaction (0: none open) */
    size_t seen, ingested, skipped, merges, too_big, boundaries, unreadable, large_files;
    size_t failed_saves;
    json_t *notes;
    json_t *kinds; /* kind -> count of candidates */
    json_t *items;
} run;

static int mark_done(void *payload, const char *sha)
{
    mn_map_set(payload, sha, NULL);
    return 0;
}

static int store_tx(mn_store *s, int rc_of_body)
{
    if (rc_of_body) {
        mn_store_rollback(s);
        return rc_of_body;
    }
    return mn_store_commit(s);
}

/* Record the commit as done, with its files, symbols, counts and the issues it names. */
static int finish_commit(run *r, mn_commit_view *c, const json_t *symbols, const json_t *refs,
                         int candidates, int saved, int queued, bool in_batch)
{
    const char **paths = mn_calloc(c->ndeltas + 1, sizeof(char *));
    const char **statuses = mn_calloc(c->ndeltas + 1, sizeof(char *));
    static const char *const names[] = {"added", "modified", "deleted", "renamed"};
    for (size_t i = 0; i < c->ndeltas; i++) {
        paths[i] = c->deltas[i].path;
        statuses[i] = names[c->deltas[i].status];
    }
    const char *nl = strchr(c->message, '\n');
    char *body = NULL;
    if (nl) {
        while (*nl == '\n')
            nl++;
        if (*nl)
            body = mn_ingest_scrub_text(r->env, nl, strlen(nl));
    }
    char *subject = mn_ingest_scrub_text(r->env, c->subject, strlen(c->subject));
    mn_git_commit_rec rec = {c->sha, c->parents, c->author,  c->time_ms, subject, body,  symbols,
                             paths,  statuses,   c->ndeltas, candidates, saved,   queued};
    int rc = in_batch ? 0 : mn_store_begin(r->s);
    if (rc == 0) {
        int brc = mn_store_git_commit_finish(r->s, &rec);
        char ref[48];
        snprintf(ref, sizeof(ref), "commit:%s", c->sha);
        size_t i;
        json_t *t;
        json_array_foreach(refs, i, t)
        {
            if (brc)
                break;
            brc = mn_store_task_link(r->s, json_string_value(json_object_get(t, "task")), ref,
                                     json_string_value(json_object_get(t, "kind")));
        }
        rc = in_batch ? brc : store_tx(r->s, brc);
    }
    free(body);
    free(subject);
    free(paths);
    free(statuses);
    return rc;
}

static void count_kind(json_t *kinds, const char *kind)
{
    json_t *v = json_object_get(kinds, kind);
    json_object_set_new(kinds, kind, json_integer(json_integer_value(v) + 1));
}

#define UNREADABLE_NOTED 5
#define LARGE_NOTED      5

/* The files of a commit too large to read (their sizes from the headers): counted, named. */
static void note_large(run *r, const mn_commit_view *c)
{
    for (size_t i = 0; i < c->ndeltas; i++) {
        const mn_delta *d = &c->deltas[i];
        const delta_impl *di = d->impl;
        if (!d->too_large)
            continue;
        if (r->large_files++ < LARGE_NOTED)
            json_array_append_new(
                r->notes,
                json_sprintf("%s in commit %s: %.1f MB, over the %d MiB read of a "
                             "file: its text and diff were not read",
                             d->path, c->short_sha, (double)di->size / 1e6, MAX_BLOB >> 20));
    }
}

/* A commit whose changes cannot be read: counted, the first few named in the report's notes. */
static void note_unreadable(run *r, const mn_commit_view *c)
{
    const view_impl *v = c->impl;
    if (r->unreadable++ < UNREADABLE_NOTED)
        json_array_append_new(
            r->notes, json_sprintf("commit %s: its changes cannot be read (%s): read for its "
                                   "message only; 'git fsck' says what is missing",
                                   c->short_sha, v->unreadable));
}

/*
 * Commits without candidates (most of them) are recorded in batches of BATCH
 * in one transaction: a transaction per commit was half the run's time on
 * psf/requests. A commit with candidates closes the batch, is claimed in a
 * transaction of its own (a concurrent run, the hook, may have it), its
 * candidates saved (each save is a transaction of the pipeline), and marked
 * done.
 */
#define BATCH 500

static int batch_close(run *r)
{
    if (!r->batch)
        return 0;
    r->batch = 0;
    return mn_store_commit(r->s);
}

static int ingest_one(run *r, const git_oid *oid)
{
    mn_commit_view c;
    mn_candidate_vec cands = MN_VEC_INIT;
    json_t *symbols = NULL, *refs = NULL;
    bool claimed = false;
    int rc;
    char hex[41];
    r->git->oid_fmt(hex, oid);
    hex[40] = '\0';
    bool boundary = r->shallow && mn_map_has(&r->boundary, hex);
    if ((rc = view_open(&c, r->git, r->repo, oid, r->s, r->env, boundary)) != 0)
        goto out;
    size_t next;
    const mn_extractor *ex = mn_extractors(&next);
    for (size_t i = 0; i < next && rc == 0; i++)
        if (c.nparents <= 1 || ex[i].on_merges)
            rc = ex[i].fn(&c, &cands);
    if (rc)
        goto out;
    symbols = touched_symbols(&c, &r->names);
    mn_issue_refs(&refs, c.message, strlen(c.message));
    for (size_t i = 0; i < cands.len; i++)
        count_kind(r->kinds, cands.items[i].kind);
    if (r->opts->dry_run) {
        for (size_t i = 0; i < cands.len && json_array_size(r->items) < ITEMS_REPORTED; i++)
            json_array_append_new(r->items, mn_ingest_candidate_json(&cands.items[i], &c, NULL));
        r->ingested++;
        goto out;
    }
    bool batched = cands.len == 0;
    if (batched) {
        if (!r->batch && (rc = mn_store_begin(r->s)) != 0)
            goto out;
        r->batch++;
        rc = mn_store_git_commit_claim(r->s, c.sha, CLAIM_STALE_MS, &claimed);
    } else {
        if ((rc = batch_close(r)) != 0 || (rc = mn_store_begin(r->s)) != 0)
            goto out;
        rc = store_tx(r->s, mn_store_git_commit_claim(r->s, c.sha, CLAIM_STALE_MS, &claimed));
    }
    if (rc)
        goto out;
    if (!claimed) { /* done by another run meanwhile */
        r->skipped++;
        goto out;
    }
    int saved = 0, queued = 0;
    for (size_t i = 0; i < cands.len; i++) {
        mn_candidate *k = &cands.items[i];
        mn_ingest_commit_meta meta = {c.sha,     c.author, c.time_ms, c.date,
                                      c.subject, refs,     r->branch};
        const char *status = NULL;
        rc =
            mn_ingest_save_candidate(r->s, r->env, &r->cfg, &meta, k, &r->tally, r->items, &status);
        if (rc)
            goto out;
        if (status && !strcmp(status, "active"))
            saved++;
        else if (status && !strcmp(status, "pending"))
            queued++;
    }
    rc = finish_commit(r, &c, symbols, refs, (int)cands.len, saved, queued, batched);
    if (rc == 0) {
        claimed = false;
        r->ingested++;
        if (c.nparents > 1)
            r->merges++;
        if (c.too_big)
            r->too_big++;
        if (boundary)
            r->boundaries++;
        if (((view_impl *)c.impl)->unreadable)
            note_unreadable(r, &c);
        note_large(r, &c);
        if (batched && r->batch >= BATCH)
            rc = batch_close(r);
    }
out:
    if (rc && r->batch) { /* the batch goes, its claims with it */
        mn_store_rollback(r->s);
        r->batch = 0;
        claimed = false;
    }
    if (claimed && mn_store_begin(r->s) == 0) { /* let a later run take it */
        int keep = mn_error_last_code();
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", mn_error_last());
        store_tx(r->s, mn_store_git_commit_unclaim(r->s, c.sha));
        mn_error_set(keep, "%s", msg);
    }
    mn_candidates_release(&cands);
    json_decref(symbols);
    json_decref(refs);
    view_release(&c);
    return rc;
}

typedef MN_VEC(git_oid) oid_vec;

/* One commit the walk reached: counted as seen, and queued unless done or beyond max. */
static int take(run *r, const git_oid *oid, int64_t since_ms, size_t limit, oid_vec *out)
{
    if (since_ms) {
        git_commit *cm = NULL;
        if (r->git->commit_lookup(&cm, r->repo, oid) < 0)
            return -1;
        int64_t t = (int64_t)r->git->commit_time(cm) * 1000;
        r->git->commit_free(cm);
        if (t < since_ms)
            return 0;
    }
    r->seen++;
    char hex[41];
    r->git->oid_fmt(hex, oid);
    hex[40] = '\0';
    if (mn_map_has(&r->done, hex)) {
        r->skipped++;
        return 0;
    }
    if (limit && out->len >= limit)
        return 0; /* counted as seen: the report says how many wait */
    mn_vec_push(out, *oid);
    return 0;
}

#define SHALLOW_FILE_MAX ((size_t)16 << 20)

/* The boundary of a shallow clone: the commits its `shallow` file lists, one sha a line. */
static int shallow_boundary(run *r)
{
    const char *dir = r->git->repository_commondir(r->repo);
    mn_buf path = MN_BUF_INIT, b = MN_BUF_INIT;
    mn_buf_printf(&path, "%s%sshallow", dir ? dir : "",
                  dir && *dir && dir[strlen(dir) - 1] != '/' ? "/" : "");
    int rc = mn_fs_read(&b, path.ptr, SHALLOW_FILE_MAX);
    for (const char *p = b.ptr; rc == 0 && p && p < b.ptr + b.len;) {
        size_t n = strcspn(p, "\n");
        if (n >= 40) {
            char hex[41];
            memcpy(hex, p, 40);
            hex[40] = '\0';
            mn_map_set(&r->boundary, hex, NULL);
        }
        p += n + (p[n] == '\n');
    }
    if (rc)
        rc = mn_error_set(rc, "cannot read the shallow clone's boundary '%s': %s", path.ptr,
                          mn_error_last());
    mn_buf_release(&path);
    mn_buf_release(&b);
    return rc;
}

typedef struct {
    git_oid oid;
    int64_t time;
} pending;

typedef MN_VEC(pending) pending_vec;

/*
 * Queue a commit once (seen): its time orders the walk. A commit the clone
 * lacks, that is not beyond its boundary, is an error naming the child that
 * needs it.
 */
static int queue(run *r, pending_vec *q, mn_map *seen, const git_oid *oid, const char *child)
{
    char hex[41];
    r->git->oid_fmt(hex, oid);
    hex[40] = '\0';
    if (mn_map_has(seen, hex))
        return 0;
    git_commit *c = NULL;
    if (r->git->commit_lookup(&c, r->repo, oid) < 0) {
        const git_error *e = r->git->error_last();
        return mn_error_set(MN_EIO,
                            "cannot walk the history: commit %.12s%s%.12s is not in the "
                            "repository (%s): 'git fsck' says what is missing",
                            hex, child ? ", a parent of " : "", child ? child : "",
                            e && e->message ? e->message : "unknown error");
    }
    mn_map_set(seen, hex, NULL);
    pending p = {*oid, (int64_t)r->git->commit_time(c)};
    mn_vec_push(q, p);
    r->git->commit_free(c);
    return 0;
}

/* The parents of a queued commit, queued: none for a boundary commit. */
static int queue_parents(run *r, pending_vec *q, mn_map *seen, const mn_map *skip,
                         const git_oid *oid)
{
    char hex[41];
    r->git->oid_fmt(hex, oid);
    hex[40] = '\0';
    if (mn_map_has(&r->boundary, hex))
        return 0;
    git_commit *c = NULL;
    int rc = 0;
    if (r->git->commit_lookup(&c, r->repo, oid) < 0)
        return mn_error_set(MN_EIO, "cannot walk the history: commit %.12s is unreadable", hex);
    unsigned n = r->git->commit_parentcount(c);
    for (unsigned i = 0; i < n && rc == 0; i++) {
        const git_oid *p = r->git->commit_parent_id(c, i);
        char phex[41];
        r->git->oid_fmt(phex, p);
        phex[40] = '\0';
        if (!skip || !mn_map_has(skip, phex))
            rc = queue(r, q, seen, p, hex);
    }
    r->git->commit_free(c);
    return rc;
}

/*
 * The walk of a shallow clone (above): what the hidden commits reach first
 * (at most the clone), then from HEAD, newest first, what they do not.
 */
static int walk_shallow(run *r, const git_oid *head, const git_oid *hidden, size_t nhidden,
                        int64_t since_ms, size_t limit, oid_vec *out)
{
    pending_vec q = MN_VEC_INIT;
    mn_map hide = MN_MAP_INIT, seen = MN_MAP_INIT;
    int rc = shallow_boundary(r);
    for (size_t i = 0; i < nhidden && rc == 0; i++) {
        git_commit *c = NULL;
        if (r->git->commit_lookup(&c, r->repo, &hidden[i]) < 0) {
            mn_error_clear(); /* not in this clone (rewritten): it hides nothing */
            continue;
        }
        r->git->commit_free(c);
        rc = queue(r, &q, &hide, &hidden[i], NULL);
        while (rc == 0 && q.len) {
            git_oid oid = q.items[--q.len].oid;
            rc = queue_parents(r, &q, &hide, NULL, &oid);
        }
    }
    char hex[41];
    r->git->oid_fmt(hex, head);
    hex[40] = '\0';
    if (rc == 0 && !mn_map_has(&hide, hex))
        rc = queue(r, &q, &seen, head, NULL);
    while (rc == 0 && q.len) {
        size_t best = 0;
        for (size_t i = 1; i < q.len; i++) /* the frontier: a commit per line of history */
            if (q.items[i].time > q.items[best].time)
                best = i;
        git_oid oid = q.items[best].oid;
        q.items[best] = q.items[--q.len];
        if (take(r, &oid, since_ms, limit, out) != 0) {
            const git_error *e = r->git->error_last();
            rc = mn_error_set(MN_EIO, "cannot walk the history: %s",
                              e && e->message ? e->message : "unknown error");
            break;
        }
        rc = queue_parents(r, &q, &seen, &hide, &oid);
    }
    mn_vec_release(&q);
    mn_map_release(&hide);
    mn_map_release(&seen);
    return rc;
}

/* The commits to read, newest first: reachable from HEAD, not hidden, not done. */
static int collect(run *r, const git_oid *head, oid_vec *out)
{
    git_revwalk *walk = NULL;
    git_oid oid, hidden[2];
    size_t nhidden = 0;
    int rc = 0, wrc;
    int64_t since_ms = 0;
    r->shallow = r->git->repository_is_shallow(r->repo) == 1;
    if (r->opts->since && *r->opts->since) {
        git_object *obj = NULL, *peeled = NULL;
        if (r->git->revparse_single(&obj, r->repo, r->opts->since) == 0 &&
            r->git->object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
            hidden[nhidden++] = *r->git->object_id(peeled);
        } else if (mn_time_parse(&since_ms, r->opts->since) != 0) {
            rc = mn_error_set(MN_EINVAL,
                              "since: '%.80s' is neither a revision of the repository nor a date "
                              "(give a sha, a tag, a branch, HEAD~20, 2024-01-31 or 30d)",
                              r->opts->since);
        } else {
            mn_error_clear();
        }
        r->git->object_free(peeled);
        r->git->object_free(obj);
        if (rc)
            goto out;
    }
    size_t limit = r->opts->max;
    bool hide_newest = false;
    if (r->opts->incremental) {
        int64_t ndone = 0, nclaimed = 0;
        char *newest = NULL;
        if ((rc = mn_store_git_commit_counts(r->s, &ndone, &nclaimed, &newest)) != 0)
            goto out;
        if (newest && r->git->oid_fromstr(&hidden[nhidden], newest) == 0)
            hide_newest = true, nhidden++;
        else if (!limit)
            limit = 1; /* nothing read yet: the commit just made */
        free(newest);
    }
    if (r->shallow) {
        rc = walk_shallow(r, head, hidden, nhidden, since_ms, limit, out);
        goto out;
    }
    if (r->git->revwalk_new(&walk, r->repo) < 0 ||
        r->git->revwalk_sorting(walk, GIT_SORT_TIME) < 0 || r->git->revwalk_push(walk, head) < 0)
        goto git_fail;
    for (size_t i = 0; i < nhidden; i++) {
        bool newest = hide_newest && i == nhidden - 1;
        if (r->git->revwalk_hide(walk, &hidden[i]) < 0 && !newest)
            goto git_fail; /* the newest recorded may be unknown here (rewritten): no error */
    }
    while ((wrc = r->git->revwalk_next(&oid, walk)) == 0)
        if (take(r, &oid, since_ms, limit, out) != 0)
            goto git_fail;
    if (wrc != GIT_ITEROVER) /* a commit missing: the history is damaged, not read to its end */
        goto git_fail;
    goto out;
git_fail : {
    const git_error *e = r->git->error_last();
    rc = mn_error_set(MN_EIO, "cannot walk the history: %s ('git fsck' says what is missing)",
                      e && e->message ? e->message : "unknown error");
}
out:
    r->git->revwalk_free(walk);
    return rc;
}

static char *head_branch(const mn_git_api *git, git_repository *repo)
{
    git_reference *ref = NULL;
    char *out = NULL;
    if (git->repository_head(&ref, repo) == 0 && git->reference_is_branch(ref)) {
        const char *n = git->reference_shorthand(ref);
        if (n && mn_utf8_valid(n, strlen(n)) && strlen(n) <= 256)
            out = mn_strdup(n);
    }
    git->reference_free(ref);
    return out;
}

int mn_ingest_git(mn_store *s, const mn_ingest_env *env, const mn_git_ingest_opts *opts,
                  json_t **out)
{
    const mn_git_api *git = mn_libs_git();
    mn_git_ingest_opts dflt = MN_GIT_INGEST_OPTS_INIT;
    run r;
    oid_vec todo = MN_VEC_INIT;
    git_oid head;
    uint64_t t0 = mn_time_mono_ns(), last_progress = 0;
    bool inited = false;
    int rc = 0;
    memset(&r, 0, sizeof(r));
    *out = NULL;
    if (!opts)
        opts = &dflt;
    if (!git)
        return mn_error_set(MN_ERROR, "cannot read git history: %s", mn_error_last());
    if (!env->root)
        return mn_error_set(MN_EINVAL, "not inside a repository: run it in a git work tree");
    if (git->libgit2_init() < 0)
        return mn_error_set(MN_ERROR, "cannot start libgit2");
    inited = true;
    r.git = git;
    r.s = s;
    r.env = env;
    r.opts = opts;
    r.kinds = json_object();
    r.items = json_array();
    r.notes = json_array();
    mn_ingest_settings(&r.cfg, env);
    if (git->repository_open_ext(&r.repo, env->root, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
        git->repository_is_bare(r.repo)) {
        rc = mn_error_set(MN_EINVAL, "'%s' is not the top of a git work tree: run mnemo there",
                          env->root);
        goto out;
    }
    if (git->reference_name_to_id(&head, r.repo, "HEAD") < 0) {
        mn_error_clear();
        goto report; /* an unborn HEAD: no history yet */
    }
    if (env->store_in_root)
        r.branch = head_branch(git, r.repo);
    if ((rc = mn_store_git_commits_done_each(s, mark_done, &r.done)) != 0 ||
        (rc = collect(&r, &head, &todo)) != 0)
        goto out;
    for (size_t i = todo.len; i-- > 0;) {
        if ((rc = ingest_one(&r, &todo.items[i])) != 0)
            goto out;
        if (env->progress) {
            uint64_t now = mn_time_mono_ns();
            if (now - last_progress > 100000000u || i == 0) {
                last_progress = now;
                fprintf(stderr, "\r\033[Kingesting commits: %zu/%zu", todo.len - i, todo.len);
                fflush(stderr);
            }
        }
    }
    if ((rc = batch_close(&r)) != 0)
        goto out;
    if (env->progress && todo.len)
        fprintf(stderr, "\r\033[K");
    /* every commit read is an ancestor of this HEAD: the branch filter need not ask git */
    if (!opts->dry_run && todo.len)
        mn_ingest_note_ancestors(s, git, &head, todo.items, todo.len);
report:
    if (r.large_files > LARGE_NOTED)
        json_array_append_new(
            r.notes, json_sprintf("%zu more files too large to read", r.large_files - LARGE_NOTED));
    if (r.unreadable > UNREADABLE_NOTED)
        json_array_append_new(r.notes, json_sprintf("%zu more commits whose changes cannot be read",
                                                    r.unreadable - UNREADABLE_NOTED));
    if (r.shallow && r.boundaries)
        json_array_append_new(r.notes,
                              json_string("a shallow clone: the history stops at its boundary, "
                                          "whose commits were read for their message only ('git "
                                          "fetch --unshallow' brings the rest)"));
    *out =
        json_pack("{s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I},s:o,s:I,s:I,s:I,s:I,s:I,s:o,s:f,s:b}",
                  "commits", "seen", (json_int_t)r.seen, "ingested", (json_int_t)r.ingested,
                  "skipped", (json_int_t)r.skipped, "merges", (json_int_t)r.merges, "message_only",
                  (json_int_t)(r.too_big + r.boundaries), "unreadable", (json_int_t)r.unreadable,
                  "waiting", (json_int_t)(r.seen - r.skipped - r.ingested), "candidates", r.kinds,
                  "saved", (json_int_t)r.tally.saved, "queued", (json_int_t)r.tally.queued,
                  "merged", (json_int_t)r.tally.merged, "unchanged", (json_int_t)r.tally.unchanged,
                  "refused", (json_int_t)r.tally.refused, "items", r.items, "seconds",
                  (double)(mn_time_mono_ns() - t0) / 1e9, "dry_run", opts->dry_run);
    r.kinds = r.items = NULL;
    json_object_set_new(*out, "large_files", json_integer((json_int_t)r.large_files));
    if (r.branch)
        json_object_set_new(*out, "branch", json_string(r.branch));
    if (r.shallow) {
        json_object_set_new(json_object_get(*out, "commits"), "shallow_boundary",
                            json_integer((json_int_t)r.boundaries));
        json_object_set_new(*out, "shallow", json_true());
    }
    if (json_array_size(r.notes))
        json_object_set(*out, "notes", r.notes);
out:
    mn_vec_release(&todo);
    json_decref(r.kinds);
    json_decref(r.items);
    json_decref(r.notes);
    mn_map_release(&r.done);
    mn_map_release(&r.boundary);
    name_cache_release(&r.names);
    free(r.branch);
    if (r.repo)
        git->repository_free(r.repo);
    if (inited)
        git->libgit2_shutdown();
    return rc;
}

void mn_ingest_note_ancestors(mn_store *s, const mn_git_api *git, const git_oid *head,
                              const git_oid *oids, size_t n)
{
    char h[41], sha[41];
    git->oid_fmt(h, head);
    h[40] = '\0';
    if (mn_store_begin(s) != 0) {
        mn_error_clear();
        return;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        git->oid_fmt(sha, &oids[i]);
        sha[40] = '\0';
        rc = mn_store_ancestry_put(s, h, sha, true);
    }
    if (rc == 0)
        rc = mn_store_ancestry_put(s, h, h, true);
    if (rc) { /* a cache: the branch filter asks git instead */
        mn_store_rollback(s);
        mn_error_clear();
    } else if (mn_store_commit(s) != 0) {
        mn_error_clear();
    }
}
