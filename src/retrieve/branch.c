/*
 * branch.c - branches and the memories learnt on them (branch.h).
 *
 * HEAD is read from the files git keeps (.git/HEAD, a linked work tree's
 * gitdir and commondir, loose refs, packed-refs): a context on a store
 * whose memories carry commits must not pay libgit2's loading (6 ms:
 * util/libs.h) to learn the HEAD. Whether a commit is an ancestor of HEAD
 * is answered, in order, by this view's own answers, the store's cache
 * for HEAD, the cache of an earlier HEAD that HEAD descends from (merged
 * stays merged), and last by libgit2. Git's answers are kept in the view
 * and written to the store's cache when the view is freed (a search runs
 * in a read transaction).
 */
#include "common.h"
#include <ctype.h>
#include <git2.h>

#include "retrieve/branch.h"
#include "store/store_ingest.h"
#include "store/store_search.h"
#include "util/libs.h"
#include "util/map.h"
#include "util/util.h"
#include "util/vec.h"

#define PREV_HEADS 4      /* earlier HEADs whose answers are looked at */
#define KEEP_HEADS 8      /* HEADs whose answers the store keeps */
#define WALK_ABOVE 16     /* unknown commits above which one walk answers them all */
#define WALK_MAX   500000 /* commits a walk visits at most */
#define HEAD_MAX   4096

static char merged_tag, not_merged_tag, missing_tag;
#define MERGED     ((void *)&merged_tag)
#define NOT_MERGED ((void *)&not_merged_tag)
#define MISSING    ((void *)&missing_tag)

typedef struct {
    char sha[41];
    bool merged;
} answer;

struct mn_branch_view {
    char *root;
    bool all;
    bool loaded, in_git;
    char head[41];
    char *branch;
    mn_map known; /* sha -> MERGED, NOT_MERGED, MISSING */
    MN_VEC(answer) learnt;
    /* libgit2, opened on first need */
    const mn_git_api *git;
    git_repository *repo;
    bool git_failed;
    /* earlier heads HEAD descends from */
    bool prev_loaded;
    char prev[PREV_HEADS][41];
    size_t nprev;
    char mark[320];
};

/* ---- HEAD from git's files ---- */

static char *read_small(const char *path)
{
    mn_buf b = MN_BUF_INIT;
    if (mn_fs_read(&b, path, HEAD_MAX) != 0) {
        mn_error_clear();
        mn_buf_release(&b);
        return NULL;
    }
    char *s = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
    return s;
}

static bool is_sha(const char *s)
{
    size_t n = 0;
    while (s[n] && isxdigit((unsigned char)s[n]))
        n++;
    return (n == 40 || n == 64) && !s[n];
}

static char *join(const char *dir, const char *rel)
{
    mn_buf b = MN_BUF_INIT;
    if (rel[0] == '/')
        mn_buf_puts(&b, rel);
    else
        mn_buf_printf(&b, "%s/%s", dir, rel);
    return mn_buf_detach(&b);
}

/* refs/heads/x in commondir: loose, then packed. */
static bool resolve_ref(const char *common, const char *ref, char sha[41])
{
    char *path = join(common, ref);
    char *v = read_small(path);
    free(path);
    if (v && is_sha(v) && strlen(v) == 40) {
        memcpy(sha, v, 41);
        free(v);
        return true;
    }
    free(v);
    char *packed_path = join(common, "packed-refs");
    mn_buf b = MN_BUF_INIT;
    bool found = false;
    if (mn_fs_read(&b, packed_path, 64u << 20) == 0 && b.ptr) {
        size_t rn = strlen(ref);
        for (char *line = b.ptr; line && *line && !found;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            if (strlen(line) == 41 + rn && line[40] == ' ' && !strcmp(line + 41, ref)) {
                memcpy(sha, line, 40);
                sha[40] = '\0';
                found = is_sha(sha);
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    mn_error_clear();
    mn_buf_release(&b);
    free(packed_path);
    return found;
}

int mn_branch_head(const char *root, char sha[41], char **branch)
{
    char *dotgit = join(root, ".git"), *gitdir = NULL, *common = NULL, *head = NULL;
    int rc = 0;
    sha[0] = '\0';
    *branch = NULL;
    if (mn_fs_is_dir(dotgit)) {
        gitdir = mn_strdup(dotgit);
    } else {
        char *f = read_small(dotgit);
        if (f && !strncmp(f, "gitdir: ", 8))
            gitdir = join(root, f + 8);
        free(f);
    }
    if (!gitdir) {
        rc = mn_error_set(MN_ENOTFOUND, "'%s' is not a git work tree", root);
        goto out;
    }
    char *cd_path = join(gitdir, "commondir");
    char *cd = read_small(cd_path);
    free(cd_path);
    common = cd && *cd ? join(gitdir, cd) : mn_strdup(gitdir);
    free(cd);
    char *head_path = join(gitdir, "HEAD");
    head = read_small(head_path);
    free(head_path);
    if (!head) {
        rc = mn_error_set(MN_ENOTFOUND, "'%s' has no HEAD", gitdir);
        goto out;
    }
    if (!strncmp(head, "ref: ", 5)) {
        const char *ref = head + 5;
        if (!strncmp(ref, "refs/heads/", 11) && strlen(ref + 11) <= 256)
            *branch = mn_strdup(ref + 11);
        if (!resolve_ref(common, ref, sha))
            sha[0] = '\0'; /* unborn, or refs git's files cannot tell (reftable): see below */
        if (!sha[0] && mn_fs_exists(common) && !strcmp(ref, "refs/heads/.invalid")) {
            /* a reftable repository: ask libgit2 */
            const mn_git_api *git = mn_libs_git();
            git_repository *repo = NULL;
            git_oid oid;
            if (git && git->libgit2_init() >= 0) {
                if (git->repository_open_ext(&repo, root, 0, NULL) == 0 &&
                    git->reference_name_to_id(&oid, repo, "HEAD") == 0) {
                    git->oid_fmt(sha, &oid);
                    sha[40] = '\0';
                }
                git->repository_free(repo);
                git->libgit2_shutdown();
            }
            mn_error_clear();
        }
    } else if (is_sha(head) && strlen(head) == 40) {
        memcpy(sha, head, 41);
    }
    for (char *p = sha; *p; p++)
        *p = (char)tolower((unsigned char)*p);
out:
    free(dotgit);
    free(gitdir);
    free(common);
    free(head);
    return rc;
}

/* ---- the view ---- */

mn_branch_view *mn_branch_view_new(const char *root, bool all_branches)
{
    if (!root)
        return NULL;
    mn_branch_view *v = mn_calloc(1, sizeof(*v));
    v->root = mn_strdup(root);
    v->all = all_branches;
    return v;
}

bool mn_branch_view_all(const mn_branch_view *v)
{
    return v && v->all;
}

static void load(mn_branch_view *v)
{
    if (v->loaded)
        return;
    v->loaded = true;
    if (mn_branch_head(v->root, v->head, &v->branch) != 0) {
        mn_error_clear();
        return;
    }
    v->in_git = v->head[0] != '\0';
}

static bool open_git(mn_branch_view *v)
{
    if (v->repo)
        return true;
    if (v->git_failed)
        return false;
    v->git = mn_libs_git();
    if (!v->git || v->git->libgit2_init() < 0) {
        v->git_failed = true;
        v->git = NULL;
        mn_error_clear();
        return false;
    }
    if (v->git->repository_open_ext(&v->repo, v->root, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
        v->git->libgit2_shutdown();
        v->git = NULL;
        v->repo = NULL;
        v->git_failed = true;
        mn_error_clear();
        return false;
    }
    return true;
}

static void learn(mn_branch_view *v, const char *sha, void *what, bool keep)
{
    mn_map_set(&v->known, sha, what);
    if (keep && what != MISSING) {
        answer a;
        snprintf(a.sha, sizeof(a.sha), "%s", sha);
        a.merged = what == MERGED;
        mn_vec_push(&v->learnt, a);
    }
}

/* libgit2: is sha HEAD's ancestor, not, or unknown here. */
static void *ask_git(mn_branch_view *v, const char *sha)
{
    git_oid head, c;
    git_commit *commit = NULL;
    if (!open_git(v) || v->git->oid_fromstr(&head, v->head) < 0 || v->git->oid_fromstr(&c, sha) < 0)
        return MISSING;
    if (v->git->commit_lookup(&commit, v->repo, &c) < 0) {
        mn_error_clear();
        return MISSING;
    }
    v->git->commit_free(commit);
    int d = v->git->graph_descendant_of(v->repo, &head, &c);
    mn_error_clear();
    return d == 1 ? MERGED : d == 0 ? NOT_MERGED : MISSING;
}

static int cache_cb(void *payload, const char *sha, bool merged)
{
    mn_branch_view *v = payload;
    learn(v, sha, merged ? MERGED : NOT_MERGED, false);
    return 0;
}

typedef struct {
    mn_branch_view *v;
} prev_ctx;

static int prev_cb(void *payload, const char *head)
{
    mn_branch_view *v = payload;
    if (v->nprev < PREV_HEADS && strcmp(head, v->head) != 0 && strlen(head) == 40)
        snprintf(v->prev[v->nprev++], 41, "%s", head);
    return 0;
}

/* The earlier HEADs this one descends from (their merged answers hold). */
static void load_prev(mn_branch_view *v, mn_store *s)
{
    if (v->prev_loaded)
        return;
    v->prev_loaded = true;
    if (mn_store_ancestry_heads(s, PREV_HEADS + 1, prev_cb, v) != 0) {
        mn_error_clear();
        v->nprev = 0;
        return;
    }
    size_t keep = 0;
    for (size_t i = 0; i < v->nprev; i++) {
        void *a = mn_map_get(&v->known, v->prev[i]);
        if (!a)
            a = ask_git(v, v->prev[i]);
        if (a == MERGED)
            memcpy(v->prev[keep++], v->prev[i], 41);
    }
    v->nprev = keep;
}

static int merged_by_prev(void *payload, const char *sha, bool merged)
{
    mn_branch_view *v = payload;
    if (merged)
        learn(v, sha, MERGED, true);
    return 0;
}

/* Answer every sha of shas[] the view does not know yet (cache, earlier heads, git). */
static int prefetch(mn_branch_view *v, mn_store *s, const char *const *shas, size_t n)
{
    const char **unknown = mn_calloc(n + 1, sizeof(char *));
    size_t nu = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (!mn_map_has(&v->known, shas[i]))
            unknown[nu++] = shas[i];
    if (nu && (rc = mn_store_ancestry_get(s, v->head, unknown, nu, cache_cb, v)) != 0)
        goto out;
    size_t left = 0;
    for (size_t i = 0; i < nu; i++)
        if (!mn_map_has(&v->known, unknown[i]))
            unknown[left++] = unknown[i];
    if (left) {
        load_prev(v, s);
        for (size_t p = 0; p < v->nprev && left; p++) {
            if ((rc = mn_store_ancestry_get(s, v->prev[p], unknown, left, merged_by_prev, v)) != 0)
                goto out;
            size_t k = 0;
            for (size_t i = 0; i < left; i++)
                if (!mn_map_has(&v->known, unknown[i]))
                    unknown[k++] = unknown[i];
            left = k;
        }
    }
    if (left > WALK_ABOVE && open_git(v)) {
        /* one walk of HEAD's history answers them all */
        mn_map seen = MN_MAP_INIT;
        git_revwalk *walk = NULL;
        git_oid head, oid;
        size_t visited = 0;
        bool complete = false;
        if (v->git->oid_fromstr(&head, v->head) == 0 && v->git->revwalk_new(&walk, v->repo) == 0 &&
            v->git->revwalk_push(walk, &head) == 0) {
            int r;
            while (visited < WALK_MAX && (r = v->git->revwalk_next(&oid, walk)) == 0) {
                char hex[41];
                v->git->oid_fmt(hex, &oid);
                hex[40] = '\0';
                mn_map_set(&seen, hex, NULL);
                visited++;
            }
            complete = visited < WALK_MAX;
        }
        v->git->revwalk_free(walk);
        mn_error_clear();
        for (size_t i = 0; complete && i < left; i++) {
            bool in = mn_map_has(&seen, unknown[i]);
            learn(v, unknown[i], in ? MERGED : ask_git(v, unknown[i]), true);
        }
        mn_map_release(&seen);
    }
    for (size_t i = 0; i < left; i++)
        if (!mn_map_has(&v->known, unknown[i]))
            learn(v, unknown[i], ask_git(v, unknown[i]), true);
out:
    free(unknown);
    return rc;
}

static void norm_sha(char out[41], const char *commit)
{
    size_t n = 0;
    for (; commit[n] && n < 40; n++)
        out[n] = (char)tolower((unsigned char)commit[n]);
    out[n] = '\0';
    if (commit[n] || n != 40 || !is_sha(out))
        out[0] = '\0';
}

int mn_branch_visible(mn_branch_view *v, mn_store *s, const char *branch, const char *commit,
                      bool *visible)
{
    *visible = true;
    if (!v || (!branch && !commit))
        return 0;
    load(v);
    if (branch && v->branch && !strcmp(branch, v->branch))
        return 0;
    if (!v->in_git)
        return 0; /* no HEAD to compare with: nothing is hidden */
    char sha[41];
    norm_sha(sha, commit ? commit : "");
    if (!sha[0]) {
        *visible = !branch; /* a branch other than HEAD's, and no commit to tell it merged */
        return 0;
    }
    if (!strcmp(sha, v->head))
        return 0;
    if (!mn_map_has(&v->known, sha)) {
        const char *one[1] = {sha};
        int rc = prefetch(v, s, one, 1);
        if (rc)
            return rc;
    }
    void *a = mn_map_get(&v->known, sha);
    *visible = a == MERGED || (a == MISSING && !branch);
    return 0;
}

/* The filter's batch: answer many at once (one walk when many are unknown). */
int mn_branch__prefetch(mn_branch_view *v, mn_store *s, const char *const *commits, size_t n)
{
    if (!v)
        return 0;
    load(v);
    if (!v->in_git || !n)
        return 0;
    const char **shas = mn_calloc(n + 1, sizeof(char *));
    char(*buf)[41] = mn_calloc(n + 1, 41);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        norm_sha(buf[k], commits[i] ? commits[i] : "");
        if (buf[k][0] && strcmp(buf[k], v->head) != 0) {
            shas[k] = buf[k];
            k++;
        }
    }
    int rc = prefetch(v, s, shas, k);
    free(shas);
    free(buf);
    return rc;
}

const char *mn_branch_mark(mn_branch_view *v, const char *branch)
{
    snprintf(v->mark, sizeof(v->mark), "from branch %s (not merged)",
             branch && *branch ? branch : "another branch");
    return v->mark;
}

void mn_branch_view_free(mn_branch_view *v, mn_store *s)
{
    if (!v)
        return;
    if (s && v->learnt.len && v->in_git && !mn_store_read_only(s) && mn_store_begin(s) == 0) {
        int rc = 0;
        for (size_t i = 0; i < v->learnt.len && rc == 0; i++)
            rc = mn_store_ancestry_put(s, v->head, v->learnt.items[i].sha,
                                       v->learnt.items[i].merged);
        if (rc == 0)
            rc = mn_store_ancestry_prune(s, KEEP_HEADS);
        if (rc)
            mn_store_rollback(s);
        else
            rc = mn_store_commit(s);
        mn_error_clear(); /* a cache: the next search asks again */
    }
    if (v->repo) {
        v->git->repository_free(v->repo);
        v->git->libgit2_shutdown();
    }
    mn_map_release(&v->known);
    mn_vec_release(&v->learnt);
    free(v->branch);
    free(v->root);
    free(v);
}

/* ---- post-checkout ---- */

typedef struct {
    MN_VEC(char *) shas;
} commits_ctx;

static int commit_cb(void *payload, const char *sha)
{
    commits_ctx *c = payload;
    mn_vec_push(&c->shas, mn_strdup(sha));
    return 0;
}

int mn_branch_warm(mn_store *s, const char *root, size_t *checked)
{
    commits_ctx c = {MN_VEC_INIT};
    *checked = 0;
    mn_branch_view *v = mn_branch_view_new(root, false);
    int rc = mn_store_memory_commits_each(s, commit_cb, &c);
    if (rc == 0)
        rc = mn_branch__prefetch(v, s, (const char *const *)c.shas.items, c.shas.len);
    if (rc == 0) {
        *checked = v->learnt.len;
        /* a HEAD seen now is a HEAD worth keeping even when nothing new was learnt */
        if (v->in_git) {
            answer self;
            memcpy(self.sha, v->head, 41);
            self.merged = true;
            mn_vec_push(&v->learnt, self);
        }
    }
    mn_branch_view_free(v, s);
    for (size_t i = 0; i < c.shas.len; i++)
        free(c.shas.items[i]);
    mn_vec_release(&c.shas);
    return rc;
}
