/*
 * history.c - read the repository's commits into the store (history.h).
 *
 * Why: an issue's words often match what an earlier commit said it fixed
 * ("Fix rolling(center=True) with dask"), and that commit names the file
 * the fix went into, where the code's own words may not (bug localisation
 * from version history: BugLocator and after). Only the subject line is
 * kept: on the SWE-bench dev set the bodies (sign-offs, co-authors, long
 * explanations) added words and no ranking (docs/internals/retrieval.md).
 *
 * Renames are followed: walking from the newest commit back, a commit
 * that renamed a to b makes the older commits' a count for b's name today
 * (`renamed`: old path -> today's path), so a project that moved to a src/
 * layout keeps its history. Renames are looked for in every commit, the
 * large ones too (a move of the whole tree is one), though only commits of
 * at most MN_HISTORY_MAX_FILES paths are stored.
 *
 * Cost: one tree-to-tree diff per commit, subtrees with the same id
 * skipped by libgit2, at most MN_HISTORY_MAX_COMMITS commits read the
 * first time and only the new ones after (the revwalk hides the head the
 * store remembers).
 *
 * Memory: libgit2 maps a pack file in windows of 1 GB, up to 8 GB mapped
 * in all (its 64-bit defaults), and keeps up to 256 MB of parsed commits
 * and trees in each repository's object cache. Reading 5,000 commits of
 * sympy/sympy kept ~65 MB of its 330 MB pack mapped and resident and ~80 MB
 * of objects and diffs on the heap, and all of it counted in the index's
 * peak RSS (315 MiB against ~180 MiB without the history). bound_libgit2() caps both while the
 * history is read: HISTORY_MWINDOW_SIZE per window, HISTORY_MWINDOW_LIMIT mapped at once (libgit2
 * unmaps the least recently used window past it) and HISTORY_CACHE_MAX in the object cache. What is
 * read does not change, only how often a page is mapped again or an object parsed again. Measured
 * on sympy, the history alone re-read into an indexed store (peak RSS, user CPU): libgit2's
 * defaults 192 MiB, 4.2 s; windows 8/32 MB with a cache of 256 or 48 MB 148 MiB, 4.3 s (smaller
 * windows, 4/16 MB, saved nothing more); a cache of 32 MB 125 MiB, 5.7 s; 16 MB 96 MiB, 11.5 s
 * (each diff re-parses the trees the last one read). 48 MB is the cache sympy's walk fills, bounded
 * for larger histories at no cost in time.
 */
#include "common.h"
#include <git2.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "index/history.h"
#include "store/store_index.h"
#include "util/buf.h"
#include "util/libs.h"
#include "util/map.h"
#include "util/util.h"
#include "util/vec.h"

#define HISTORY_MWINDOW_SIZE  ((size_t)8 << 20)   /* bytes of a pack mapped at once */
#define HISTORY_MWINDOW_LIMIT ((size_t)32 << 20)  /* bytes of packs mapped in all */
#define HISTORY_CACHE_MAX     ((ssize_t)48 << 20) /* bytes of parsed objects cached */
#define SHALLOW_MARK          " shallow" /* after the head stored: read from a shallow clone */

/*
 * libgit2's options are the process's: the other readers of git (the walk,
 * blame, the git ingest, the server's clones) get the same bounds, which
 * cost them no more than the history (a re-map of a window now and then).
 */
static void bound_libgit2(const mn_git_api *git)
{
    (void)git->libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, HISTORY_MWINDOW_SIZE);
    (void)git->libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, HISTORY_MWINDOW_LIMIT);
    (void)git->libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, HISTORY_CACHE_MAX);
}

typedef struct {
    char hash[GIT_OID_HEXSZ + 1];
    int64_t time;
    char *subject;
    char **paths;
    size_t npaths;
} commit;

typedef MN_VEC(commit) commit_vec;

static void commits_release(commit_vec *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free(v->items[i].subject);
        for (size_t j = 0; j < v->items[i].npaths; j++)
            free(v->items[i].paths[j]);
        free(v->items[i].paths);
    }
    mn_vec_release(v);
}

#define SUBJECT_MAX 512 /* bytes: a subject is a line; a message of one paragraph is not */

/*
 * The subject on one line (git's summary joins a wrapped first paragraph),
 * valid UTF-8 (an old commit's latin-1 bytes become '?'), at most
 * SUBJECT_MAX bytes.
 */
static char *subject_of(const mn_git_api *git, git_commit *c)
{
    const char *s = git->commit_summary(c);
    size_t len = s ? strlen(s) : 0;
    char *out = mn_strndup(s ? s : "", len);
    if (!mn_utf8_valid(out, len))
        for (char *p = out; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
    out[mn_utf8_floor(out, len, SUBJECT_MAX)] = '\0';
    return out;
}

/* root's place in the work tree ("" at its top, "sub/dir/" below), or NULL when unrelated. */
static char *prefix_of(const mn_git_api *git, git_repository *repo, const char *root)
{
    const char *wd = git->repository_workdir(repo);
    char *real_root = realpath(root, NULL), *real_wd = wd ? realpath(wd, NULL) : NULL, *out = NULL;
    if (real_root && real_wd) {
        size_t n = strlen(real_wd);
        if (!strcmp(real_root, real_wd)) {
            out = mn_strdup("");
        } else if (strncmp(real_root, real_wd, n) == 0 && (n == 1 || real_root[n] == '/')) {
            mn_buf p = MN_BUF_INIT;
            mn_buf_printf(&p, "%s/", real_root + (n == 1 ? 1 : n + 1));
            out = mn_buf_detach(&p);
        }
    }
    free(real_root);
    free(real_wd);
    return out;
}

/* Today's name of a path an older commit changed. */
static const char *today(const mn_map *renamed, const char *path)
{
    const char *p = mn_map_get(renamed, path);
    return p ? p : path;
}

static void note_rename(mn_map *renamed, const char *from, const char *to)
{
    char *now = mn_strdup(today(renamed, to));
    free(mn_map_set(renamed, from, now));
}

/*
 * The commit's changed paths under prefix (relative to it), by today's
 * names; renames noted for the older commits. -1 on a libgit2 error.
 */
static int changed_paths(const mn_git_api *git, git_repository *repo, git_commit *c,
                         const char *prefix, mn_map *renamed, commit *out, bool *too_many)
{
    git_tree *tree = NULL, *parent_tree = NULL;
    git_commit *parent = NULL;
    git_diff *diff = NULL;
    int rc = -1;
    *too_many = false;
    if (git->commit_tree(&tree, c) < 0)
        goto out;
    if (git->commit_parentcount(c) == 1 &&
        (git->commit_parent(&parent, c, 0) < 0 || git->commit_tree(&parent_tree, parent) < 0))
        goto out;
    git_diff_find_options find;
    memset(&find, 0, sizeof(find));
    find.version = GIT_DIFF_FIND_OPTIONS_VERSION;
    find.flags = GIT_DIFF_FIND_RENAMES;
    if (git->diff_tree_to_tree(&diff, repo, parent_tree, tree, NULL) < 0)
        goto out;
    /* finding renames reads the blobs of the paths added and deleted: a clone that lacks one
     * (a partial clone, a size-limited snapshot without its large files) keeps the commit's
     * paths without its renames, as it lost every commit once (fastjson2, dubbo) */
    if (git->diff_find_similar(diff, &find) < 0) {
        git->diff_free(diff);
        diff = NULL;
        if (git->diff_tree_to_tree(&diff, repo, parent_tree, tree, NULL) < 0)
            goto out;
    }
    size_t n = git->diff_num_deltas(diff), plen = strlen(prefix);
    rc = 0;
    *too_many = n > MN_HISTORY_MAX_FILES;
    if (!*too_many)
        out->paths = mn_calloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const git_diff_delta *d = git->diff_get_delta(diff, i);
        const char *p = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
        if (d->status == GIT_DELTA_RENAMED && d->old_file.path && p)
            note_rename(renamed, d->old_file.path, p);
        p = p ? today(renamed, p) : NULL;
        /* a name that is not UTF-8 is no file of the index (walk.h) */
        if (!*too_many && p && strncmp(p, prefix, plen) == 0 && p[plen] &&
            mn_utf8_valid(p, strlen(p)))
            out->paths[out->npaths++] = mn_strdup(p + plen);
    }
out:
    git->diff_free(diff);
    git->tree_free(parent_tree);
    git->commit_free(parent);
    git->tree_free(tree);
    return rc;
}

/* Diff one non-merge commit and keep it when it changed 1 to MN_HISTORY_MAX_FILES paths under
 * prefix. -1 on a libgit2 error. */
static int take_commit(const mn_git_api *git, git_repository *repo, git_commit *c,
                       const git_oid *oid, const char *prefix, mn_map *renamed, commit_vec *out)
{
    commit k = {{0}, 0, NULL, NULL, 0};
    bool too_many;
    int drc = changed_paths(git, repo, c, prefix, renamed, &k, &too_many);
    if (drc == 0 && !too_many && k.npaths) {
        git->oid_fmt(k.hash, oid);
        k.time = (int64_t)git->commit_time(c);
        k.subject = subject_of(git, c);
        mn_vec_push(out, k);
        return 0;
    }
    for (size_t j = 0; j < k.npaths; j++)
        free(k.paths[j]);
    free(k.paths);
    return drc;
}

static int read_commits(const mn_git_api *git, git_repository *repo, const git_oid *head,
                        const char *stored, const char *prefix, mn_map *renamed, commit_vec *out)
{
    git_revwalk *walk = NULL;
    git_oid oid;
    int rc = -1;
    if (git->revwalk_new(&walk, repo) < 0 || git->revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
        git->revwalk_push(walk, head) < 0)
        goto out;
    /* the head read last time, and all before it: unknown to this clone (rewritten) is no error */
    if (stored && git->oid_fromstr(&oid, stored) == 0)
        (void)git->revwalk_hide(walk, &oid);
    /*
     * Below a subdirectory most commits may touch nothing of root's: the
     * commits diffed are bounded too (merges, not diffed, do not count).
     */
    size_t kept = 0, diffed = 0;
    while (kept < MN_HISTORY_MAX_COMMITS && diffed < 2 * MN_HISTORY_MAX_COMMITS &&
           git->revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        if (git->commit_lookup(&c, repo, &oid) < 0)
            goto out;
        if (git->commit_parentcount(c) > 1) { /* a merge: its changes are its parents' */
            git->commit_free(c);
            continue;
        }
        diffed++;
        size_t had = out->len;
        int drc = take_commit(git, repo, c, &oid, prefix, renamed, out);
        kept += out->len - had;
        git->commit_free(c);
        if (drc < 0)
            goto out;
    }
    rc = 0;
out:
    git->revwalk_free(walk);
    return rc;
}

/*
 * A shallow clone (CI checkouts, `git clone --depth 50`): libgit2 1.5's
 * revwalk cannot walk one (it stops with an error at the first parent the
 * clone lacks), so the walk is done here, by commit time, newest first, as
 * the revwalk does, down to the boundary: a commit whose parent is missing
 * is not diffed (its parent's tree is missing too) and ends its line. The
 * frontier is scanned for its newest commit: it holds one commit per line
 * of history being walked, a few. The whole shallow history is read each
 * time HEAD moves (mn_history_ingest): it is at most the clone's depth.
 */
typedef struct {
    git_oid oid;
    int64_t time;
} pending;

typedef MN_VEC(pending) pending_vec;

static void push_pending(const mn_git_api *git, git_repository *repo, const git_oid *oid,
                         mn_map *seen, pending_vec *frontier, bool *missing)
{
    char hex[GIT_OID_HEXSZ + 1];
    git->oid_fmt(hex, oid);
    hex[GIT_OID_HEXSZ] = '\0';
    if (mn_map_has(seen, hex))
        return;
    git_commit *c = NULL;
    if (git->commit_lookup(&c, repo, oid) < 0) { /* beyond the boundary */
        *missing = true;
        return;
    }
    mn_map_set(seen, hex, (void *)1);
    pending p = {*oid, (int64_t)git->commit_time(c)};
    mn_vec_push(frontier, p);
    git->commit_free(c);
}

static int read_shallow(const mn_git_api *git, git_repository *repo, const git_oid *head,
                        const char *prefix, mn_map *renamed, commit_vec *out)
{
    pending_vec frontier = MN_VEC_INIT;
    mn_map seen = MN_MAP_INIT;
    size_t diffed = 0;
    bool missing = false;
    int rc = 0;
    push_pending(git, repo, head, &seen, &frontier, &missing);
    while (frontier.len && out->len < MN_HISTORY_MAX_COMMITS &&
           diffed < 2 * MN_HISTORY_MAX_COMMITS) {
        size_t best = 0;
        for (size_t i = 1; i < frontier.len; i++)
            if (frontier.items[i].time > frontier.items[best].time)
                best = i;
        git_oid oid = frontier.items[best].oid;
        frontier.items[best] = frontier.items[--frontier.len];
        git_commit *c = NULL;
        if (git->commit_lookup(&c, repo, &oid) < 0) {
            rc = -1;
            break;
        }
        unsigned n = git->commit_parentcount(c);
        bool boundary = false;
        for (unsigned i = 0; i < n; i++)
            push_pending(git, repo, git->commit_parent_id(c, i), &seen, &frontier, &boundary);
        if (n <= 1 && !boundary) { /* merges are their parents' changes; a root is diffed */
            diffed++;
            rc = take_commit(git, repo, c, &oid, prefix, renamed, out);
        }
        git->commit_free(c);
        if (rc < 0)
            break;
    }
    if (missing)
        mn_error_clear(); /* the boundary's missing parents are what a shallow clone is */
    mn_vec_release(&frontier);
    mn_map_release(&seen);
    return rc;
}

/*
 * Store the commits read; renames (when earlier reads stored commits by
 * the names of their day) carry the stored paths to today's names.
 */
static int store_commits(mn_store *s, const commit_vec *v, const char *head, const mn_map *renamed,
                         const char *prefix)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    size_t pos = 0, plen = strlen(prefix);
    const char *from;
    void *to;
    while (rc == 0 && renamed && mn_map_next(renamed, &pos, &from, &to))
        if (strncmp(from, prefix, plen) == 0 && strncmp(to, prefix, plen) == 0)
            rc = mn_store_history_rename(s, from + plen, (const char *)to + plen);
    /* oldest first: row ids follow history, and a re-read adds after what is stored */
    for (size_t i = v->len; rc == 0 && i-- > 0;) {
        const commit *k = &v->items[i];
        mn_commit_rec r = {k->hash, k->time, k->subject, (const char *const *)k->paths, k->npaths};
        rc = mn_store_history_add(s, &r);
    }
    if (rc == 0)
        rc = mn_store_history_finish(s, head, MN_HISTORY_MAX_COMMITS);
    if (rc == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

int mn_history_ingest(mn_store *s, const char *root, const mn_scanner *sc, unsigned redact,
                      size_t *read_out)
{
    const mn_git_api *git = mn_libs_git();
    git_repository *repo = NULL;
    char *prefix = NULL, *stored = NULL;
    commit_vec v = MN_VEC_INIT;
    mn_map renamed = MN_MAP_INIT;
    char head_hex[GIT_OID_HEXSZ + sizeof(SHALLOW_MARK)];
    git_oid head;
    bool unmapped = false;
    int rc = 0;
    *read_out = 0;
    if (!git)
        return 0; /* no libgit2: no history, as outside git */
    if (git->libgit2_init() < 0)
        return 0;
    bound_libgit2(git);
    if (git->repository_open_ext(&repo, root, 0, NULL) < 0 || git->repository_is_bare(repo) ||
        git->reference_name_to_id(&head, repo, "HEAD") < 0 ||
        (prefix = prefix_of(git, repo, root)) == NULL)
        goto out;
    bool shallow = git->repository_is_shallow(repo) == 1;
    git->oid_fmt(head_hex, &head);
    head_hex[GIT_OID_HEXSZ] = '\0';
    if (shallow) /* the head stored says the read stopped at a boundary */
        memcpy(head_hex + GIT_OID_HEXSZ, SHALLOW_MARK, sizeof(SHALLOW_MARK));
    rc = mn_store_history_head(s, &stored);
    if (rc == MN_ENOTFOUND)
        rc = 0;
    if (rc || (stored && !strcmp(stored, head_hex)))
        goto out;
    /* The pages `index` read through the store's map (sympy: ~70 MB, the resolver's and
     * the full-text tidy's) would stay resident beside libgit2's while the walk reads:
     * the index's peak was the two together (docs/internals/embeddings.md). The walk
     * does not read the store; the commits' rows are written through SQLite's cache. */
    if ((rc = mn_store_map_drop(s, &unmapped)) != 0)
        goto out;
    /* HEAD moved back or to another branch (or the head read last is gone): what was read
     * holds commits the work tree does not have; forget it and read from HEAD. A shallow
     * clone is read whole again; a clone deepened since its read (`git fetch --unshallow`)
     * is read whole for the older commits it now has. */
    git_oid last;
    if (stored &&
        (shallow || strlen(stored) != GIT_OID_HEXSZ || git->oid_fromstr(&last, stored) < 0 ||
         git->graph_descendant_of(repo, &head, &last) != 1)) {
        if ((rc = mn_store_history_clear(s)) != 0)
            goto out;
        free(stored);
        stored = NULL;
    }
    if ((shallow ? read_shallow(git, repo, &head, prefix, &renamed, &v)
                 : read_commits(git, repo, &head, stored, prefix, &renamed, &v)) < 0) {
        const git_error *e = git->error_last();
        mn_log(MN_LOG_WARN, "cannot read the git history of '%s' (%s); ranking without it", root,
               e ? e->message : "unknown error");
        goto out;
    }
    for (size_t i = 0; i < v.len; i++)
        v.items[i].hash[GIT_OID_HEXSZ] = '\0';
    for (size_t i = 0; sc && redact && i < v.len; i++)
        if (mn_scan_redact_str(&v.items[i].subject, sc, redact) != 0)
            mn_error_clear(); /* the engine failed: the subject stays, as it did */
    if ((rc = store_commits(s, &v, head_hex, stored ? &renamed : NULL, prefix)) == 0)
        *read_out = v.len;
out:
    commits_release(&v);
    size_t pos = 0;
    const char *key;
    void *value;
    while (mn_map_next(&renamed, &pos, &key, &value))
        free(value);
    mn_map_release(&renamed);
    free(prefix);
    free(stored);
    git->repository_free(repo);
    git->libgit2_shutdown();
    if (unmapped) {
#ifdef __GLIBC__
        /* libgit2's caches and the commits read (sympy: ~80 MB) are freed, but glibc
         * keeps the pages: give them back before the next phase maps the store again */
        malloc_trim(0);
#endif
        int mrc = mn_store_map_set(s, true);
        if (rc == 0)
            rc = mrc;
    }
    return rc;
}
