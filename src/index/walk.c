/*
 * walk.c - the repository walker (see walk.h for what it lists and skips).
 *
 * How it works: a depth-first walk of the work tree with opendir. Each
 * directory is read whole (names and lstat results), closed, sorted in git's
 * order (a directory sorts as its name followed by '/', so the walk yields
 * paths in plain byte order, as `git ls-files` does), and then visited. No
 * descriptor is held across the recursion, so depth is limited only by the
 * path-length cap (MN_WALK_PATH_MAX), and the working set is the listings of
 * the directories on the current path.
 *
 * In a git repository the index answers "is this tracked?" (git_index_find)
 * and "is anything tracked below this directory?" (git_index_find_prefix),
 * both binary searches. Ignore rules are asked of libgit2
 * (git_ignore_path_is_ignored: .gitignore at every level, info/exclude,
 * core.excludesFile) only for untracked paths: tracked files are listed
 * whatever the rules say. An ignored directory is not entered unless the
 * index has files below it; then only those tracked files (and nothing
 * untracked, since libgit2 also checks the parents of each path) come out.
 *
 * Outside a repository the same walk applies .gitignore files itself with
 * a port of git's wildmatch (below): a stack of rule lists, one per
 * directory on the current path that has a .gitignore; the deepest list and,
 * inside a list, the last rule that matches decides, as in gitignore(5).
 * <root>/.mnemoignore is one more rule list, checked first for every path,
 * tracked or not.
 *
 * Invariants: w->rel holds the root-relative path of the entry being
 * visited ("" for the root, "a/b/" for a directory being listed); every path
 * handed to the callback is valid UTF-8 without NUL and below
 * MN_WALK_PATH_MAX bytes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "index/walk.h"
#include "util/libs.h"
#include "util/util.h"
#include "util/vec.h"

/* Longest root-relative path listed; longer ones count as bad names. */
#define MN_WALK_PATH_MAX 4096
/* Largest .gitignore or .mnemoignore read; bigger ones are ignored with a warning. */
#define MN_IGNORE_FILE_MAX ((size_t)1 << 20)

/* ---- wildmatch: git's glob semantics with WM_PATHNAME ---- */

/*
 * A port of the algorithm of git's wildmatch.c (WM_PATHNAME, case
 * sensitive): '*' and '?' do not match '/'; a '**' that is a whole path
 * segment matches any number of segments (leading "**" + "/x", trailing
 * "a/" + "**", or in the middle between two slashes);
 * '[...]' with ranges, '!' or '^' negation and [:class:] names; '\' quotes
 * the next character. The ABORT codes prune the backtracking so a pattern
 * with many stars stays linear-ish instead of exponential.
 */
enum { WM_MATCH = 0, WM_NOMATCH = 1, WM_ABORT_ALL = -1, WM_ABORT_TO_STARSTAR = -2 };

static bool wm_class(const char *name, size_t len, unsigned char c)
{
#define WM_IS(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
    if (WM_IS("alnum"))
        return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    if (WM_IS("alpha"))
        return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    if (WM_IS("blank"))
        return c == ' ' || c == '\t';
    if (WM_IS("cntrl"))
        return c < 0x20 || c == 0x7f;
    if (WM_IS("digit"))
        return c >= '0' && c <= '9';
    if (WM_IS("graph"))
        return c > 0x20 && c < 0x7f;
    if (WM_IS("lower"))
        return c >= 'a' && c <= 'z';
    if (WM_IS("print"))
        return c >= 0x20 && c < 0x7f;
    if (WM_IS("punct"))
        return c > 0x20 && c < 0x7f &&
               !((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'));
    if (WM_IS("space"))
        return c == ' ' || (c >= '\t' && c <= '\r');
    if (WM_IS("upper"))
        return c >= 'A' && c <= 'Z';
    if (WM_IS("xdigit"))
        return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
#undef WM_IS
    return false;
}

static int dowild(const unsigned char *p, const unsigned char *text, const unsigned char *pstart)
{
    unsigned char p_ch;
    for (; (p_ch = *p) != '\0'; text++, p++) {
        int matched, match_slash, negated;
        unsigned char t_ch, prev_ch;
        if ((t_ch = *text) == '\0' && p_ch != '*')
            return WM_ABORT_ALL;
        switch (p_ch) {
        case '\\':
            /* A literal next character; a trailing '\' matches nothing. */
            p_ch = *++p;
            if (t_ch != p_ch)
                return WM_NOMATCH;
            if (p_ch == '\0')
                return WM_NOMATCH;
            continue;
        default:
            if (t_ch != p_ch)
                return WM_NOMATCH;
            continue;
        case '?':
            if (t_ch == '/')
                return WM_NOMATCH;
            continue;
        case '*':
            if (*++p == '*') {
                const unsigned char *first = p - 1;
                while (*++p == '*') {
                }
                if ((first == pstart || first[-1] == '/') &&
                    (*p == '\0' || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
                    /* "**" then '/' also matches zero directories. */
                    if (p[0] == '/' && dowild(p + 1, text, pstart) == WM_MATCH)
                        return WM_MATCH;
                    match_slash = 1;
                } else {
                    match_slash = 0; /* "**" inside a segment is a plain '*' */
                }
            } else {
                match_slash = 0;
            }
            if (*p == '\0') {
                /* A trailing '*' matches the rest of this segment only. */
                if (!match_slash && strchr((const char *)text, '/'))
                    return WM_ABORT_TO_STARSTAR;
                return WM_MATCH;
            } else if (!match_slash && *p == '/') {
                /* "*\/": skip the rest of this segment; the loop eats the '/'. */
                const char *slash = strchr((const char *)text, '/');
                if (!slash)
                    return WM_ABORT_ALL;
                text = (const unsigned char *)slash;
                break;
            }
            for (;;) {
                if (t_ch == '\0')
                    break;
                if ((matched = dowild(p, text, pstart)) != WM_NOMATCH) {
                    if (!match_slash || matched != WM_ABORT_TO_STARSTAR)
                        return matched;
                } else if (!match_slash && t_ch == '/') {
                    return WM_ABORT_TO_STARSTAR;
                }
                t_ch = *++text;
            }
            return WM_ABORT_ALL;
        case '[':
            p_ch = *++p;
            if (p_ch == '^')
                p_ch = '!';
            negated = p_ch == '!';
            if (negated)
                p_ch = *++p;
            prev_ch = 0;
            matched = 0;
            do {
                if (!p_ch)
                    return WM_ABORT_ALL;
                if (p_ch == '\\') {
                    p_ch = *++p;
                    if (!p_ch)
                        return WM_ABORT_ALL;
                    if (t_ch == p_ch)
                        matched = 1;
                } else if (p_ch == '-' && prev_ch && p[1] && p[1] != ']') {
                    p_ch = *++p;
                    if (p_ch == '\\') {
                        p_ch = *++p;
                        if (!p_ch)
                            return WM_ABORT_ALL;
                    }
                    if (t_ch <= p_ch && t_ch >= prev_ch)
                        matched = 1;
                    p_ch = 0; /* a range cannot start another range */
                } else if (p_ch == '[' && p[1] == ':') {
                    const unsigned char *s = p += 2;
                    while ((p_ch = *p) && p_ch != ']')
                        p++;
                    if (!p_ch)
                        return WM_ABORT_ALL;
                    if (p - s < 1 || p[-1] != ':') {
                        /* No ":]": the '[' was a plain member of the set. */
                        p = s - 2;
                        p_ch = '[';
                        if (t_ch == p_ch)
                            matched = 1;
                        continue;
                    }
                    if (wm_class((const char *)s, (size_t)(p - s - 1), t_ch))
                        matched = 1;
                    p_ch = 0;
                } else if (t_ch == p_ch) {
                    matched = 1;
                }
            } while (prev_ch = p_ch, (p_ch = *++p) != ']');
            if (matched == negated || t_ch == '/')
                return WM_NOMATCH;
            continue;
        }
    }
    return *text ? WM_NOMATCH : WM_MATCH;
}

bool mn_index__wildmatch(const char *pattern, const char *text)
{
    const unsigned char *p = (const unsigned char *)pattern;
    return dowild(p, (const unsigned char *)text, p) == WM_MATCH;
}

/* ---- ignore rule lists (gitignore syntax) ---- */

enum { RULE_NEGATE = 1, RULE_DIRONLY = 2, RULE_BASENAME = 4 };

typedef struct {
    char *pat; /* without the '!', the leading and the trailing '/' */
    unsigned flags;
} ign_rule;

typedef struct {
    MN_VEC(ign_rule) rules;
    size_t base_len; /* length of the root-relative directory ("a/b/") the file sits in */
} ign_list;

static void ign_list_release(ign_list *l)
{
    for (size_t i = 0; i < l->rules.len; i++)
        free(l->rules.items[i].pat);
    mn_vec_release(&l->rules);
}

/* Parse gitignore text as gitignore(5) describes it. */
static void ign_parse(ign_list *l, const char *data, size_t len)
{
    const char *end = data + len;
    while (data < end) {
        const char *nl = memchr(data, '\n', (size_t)(end - data));
        const char *line = data, *stop = nl ? nl : end;
        data = nl ? nl + 1 : end;
        size_t n = (size_t)(stop - line);
        if (n && line[n - 1] == '\r')
            n--;
        if (!n || line[0] == '#')
            continue;
        /* Trailing spaces go unless quoted with a backslash. */
        while (n && line[n - 1] == ' ' && !(n >= 2 && line[n - 2] == '\\'))
            n--;
        unsigned flags = 0;
        if (n && line[0] == '!') {
            flags |= RULE_NEGATE;
            line++, n--;
        }
        if (n && line[n - 1] == '/') {
            flags |= RULE_DIRONLY;
            n--;
        }
        if (!n)
            continue;
        if (!memchr(line, '/', n))
            flags |= RULE_BASENAME; /* no slash: matches a name at any depth */
        else if (line[0] == '/')
            line++, n--; /* anchored at the directory of the file */
        if (!n || memchr(line, '\0', n))
            continue;
        ign_rule r = {mn_strndup(line, n), flags};
        mn_vec_push(&l->rules, r);
    }
}

/* Read and parse an ignore file; a missing file is an empty list. */
static void ign_load(ign_list *l, const char *path, size_t base_len)
{
    mn_buf b = MN_BUF_INIT;
    l->base_len = base_len;
    /* a .gitignore or .mnemoignore that is a link is not followed out of the tree */
    int rc = mn_fs_read_regular(&b, path, MN_IGNORE_FILE_MAX);
    if (rc == 0)
        ign_parse(l, b.ptr, b.len);
    else if (rc != MN_ENOTFOUND)
        mn_log(MN_LOG_WARN, "ignore rules not read: %s", mn_error_last());
    mn_buf_release(&b);
}

/* 1: excluded, 0: re-included by a '!' rule, -1: no rule of this list matched. */
static int ign_match(const ign_list *l, const char *rel, bool is_dir)
{
    const char *sub = rel + l->base_len;
    const char *slash = strrchr(sub, '/');
    const char *base = slash ? slash + 1 : sub;
    for (size_t i = l->rules.len; i-- > 0;) {
        const ign_rule *r = &l->rules.items[i];
        if ((r->flags & RULE_DIRONLY) && !is_dir)
            continue;
        if (mn_index__wildmatch(r->pat, (r->flags & RULE_BASENAME) ? base : sub))
            return (r->flags & RULE_NEGATE) ? 0 : 1;
    }
    return -1;
}

/* ---- the walker ---- */

typedef struct {
    size_t name_off; /* into the directory's name buffer */
    mode_t mode;
    uint64_t size;
    int64_t mtime_ms;
} dent;

typedef struct {
    const char *name;
    mode_t mode;
    uint64_t size;
    int64_t mtime_ms;
} dent_view;

typedef struct {
    const mn_walk_options *opts;
    const mn_git_api *git; /* libgit2, loaded on the first walk (util/libs.h) */
    mn_walk_cb cb;
    void *payload;
    mn_walk_stats *st;
    git_repository *repo; /* NULL outside a repository */
    git_index *index;     /* NULL outside a repository or when unreadable */
    const char *prefix;   /* root relative to the work tree: "" or "sub/dir/" */
    mn_buf root;          /* without trailing '/' (except "/") */
    mn_buf rel;           /* see the invariants at the top */
    mn_buf scratch;       /* full paths and git paths */
    ign_list mnemoignore;
    MN_VEC(ign_list) gitignores; /* outside a repository: one per directory on the path */
    bool warned_ignore;
    size_t bundle_len; /* w->rel's length at the bundle the entries are below; 0: none */
} walker;

/*
 * A bundle: a directory below the root that carries a license of its own
 * (LICENSE, COPYING, decNumber's ICU-license.html) and no package manifest
 * is another project's code copied into this one (jq's src/decNumber,
 * ponyc's lib/gbenchmark, mockito's internal/matchers/apachecommons). A
 * manifest beside the license makes it a package of the project's own (a
 * Cargo workspace's crate, a JS monorepo's package, a Maven module), which
 * carries a copy of the project's license as often. Only the outermost
 * bundle counts; classify.c decides what a file below one is
 * (mn_walk_entry.bundle).
 */
static bool license_name(const char *name)
{
    static const char *const stems[] = {"license", "licence", "copying", "unlicense", NULL};
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    for (const char *const *st = stems; *st; st++) {
        size_t k = strlen(*st);
        /* LICENSE, LICENSE.txt, COPYING.md; ICU-license.html, boost_license.txt */
        if ((n == k && !strncasecmp(name, *st, k)) ||
            (n > k + 1 && (name[n - k - 1] == '-' || name[n - k - 1] == '_') &&
             !strncasecmp(name + n - k, *st, k)))
            return !dot || !strcmp(dot, ".txt") || !strcmp(dot, ".md") || !strcmp(dot, ".html");
    }
    return false;
}

static bool manifest_name(const char *name)
{
    static const char *const names[] = {
        "package.json",     "Cargo.toml",    "pyproject.toml", "setup.py",
        "setup.cfg",        "go.mod",        "pom.xml",        "build.gradle",
        "build.gradle.kts", "composer.json", "Gemfile",        "Package.swift",
        "pubspec.yaml",     "mix.exs",       "meson.build",    NULL};
    for (const char *const *m = names; *m; m++)
        if (!strcmp(name, *m))
            return true;
    size_t n = strlen(name);
    return (n > 8 && !strcmp(name + n - 8, ".gemspec")) ||
           (n > 7 && !strcmp(name + n - 7, ".csproj")) ||
           (n > 8 && !strcmp(name + n - 8, ".nimble"));
}

static int dent_cmp(const void *a, const void *b)
{
    const dent_view *x = a, *y = b;
    const unsigned char *p = (const unsigned char *)x->name, *q = (const unsigned char *)y->name;
    while (*p && *p == *q)
        p++, q++;
    unsigned cp = *p ? *p : (S_ISDIR(x->mode) ? '/' : 0);
    unsigned cq = *q ? *q : (S_ISDIR(y->mode) ? '/' : 0);
    return (cp > cq) - (cp < cq);
}

/* scratch = root "/" rel [suffix] */
static const char *full_path(walker *w, const char *suffix)
{
    mn_buf_clear(&w->scratch);
    mn_buf_put(&w->scratch, w->root.ptr, w->root.len);
    if (w->root.len == 0 || w->root.ptr[w->root.len - 1] != '/')
        mn_buf_putc(&w->scratch, '/');
    mn_buf_put(&w->scratch, w->rel.ptr, w->rel.len);
    if (suffix)
        mn_buf_puts(&w->scratch, suffix);
    return w->scratch.ptr;
}

/* scratch = prefix rel [ "/" ]: the path as libgit2 names it */
static const char *git_path(walker *w, bool dir)
{
    mn_buf_clear(&w->scratch);
    mn_buf_puts(&w->scratch, w->prefix);
    mn_buf_put(&w->scratch, w->rel.ptr, w->rel.len);
    if (dir)
        mn_buf_putc(&w->scratch, '/');
    return w->scratch.ptr;
}

static bool mnemo_ignored(walker *w, bool is_dir)
{
    return ign_match(&w->mnemoignore, w->rel.ptr, is_dir) == 1;
}

/* Is the untracked path at w->rel ignored by git's rules? */
static bool git_ignored(walker *w, bool is_dir)
{
    if (w->repo) {
        int ignored = 0;
        if (w->git->ignore_path_is_ignored(&ignored, w->repo, git_path(w, is_dir)) < 0) {
            /* An unreadable .gitignore must not stop the whole index. */
            if (!w->warned_ignore) {
                const git_error *e = w->git->error_last();
                mn_log(MN_LOG_WARN, "cannot apply ignore rules to '%s': %s", w->rel.ptr,
                       e ? e->message : "unknown error");
                w->warned_ignore = true;
            }
            return false;
        }
        return ignored != 0;
    }
    for (size_t i = w->gitignores.len; i-- > 0;) {
        int m = ign_match(&w->gitignores.items[i], w->rel.ptr, is_dir);
        if (m >= 0)
            return m == 1;
    }
    return false;
}

static bool tracked_below(walker *w)
{
    size_t pos;
    return w->index && w->git->index_find_prefix(&pos, w->index, git_path(w, true)) == 0;
}

static bool is_tracked(walker *w)
{
    size_t pos;
    return w->index && w->git->index_find(&pos, w->index, git_path(w, false)) == 0;
}

static bool exists_in_dir(walker *w, const char *name)
{
    struct stat sb;
    return lstat(full_path(w, name), &sb) == 0;
}

/*
 * Untracked trees that belong to tools, found by convention (see walk.h):
 * node_modules and __pycache__ by name (both are unambiguous and can hold
 * hundreds of thousands of files), a CACHEDIR.TAG with its signature, or a
 * pyvenv.cfg (the file that makes a directory a Python virtualenv).
 */
static bool is_tool_dir(walker *w, const char *name)
{
    static const char sig[] = "Signature: 8a477f597d28d172789f06886806bc55";
    if (!strcmp(name, "node_modules") || !strcmp(name, "__pycache__"))
        return true;
    if (exists_in_dir(w, "/pyvenv.cfg"))
        return true;
    bool tagged = false;
    int fd = open(full_path(w, "/CACHEDIR.TAG"), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
        char head[sizeof(sig) - 1];
        tagged = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
                 memcmp(head, sig, sizeof(head)) == 0;
        close(fd);
    }
    return tagged;
}

static int walk_dir(walker *w);

static int visit_dir(walker *w, const char *name)
{
    mn_walk_stats *st = w->st;
    bool below = tracked_below(w);
    if (mnemo_ignored(w, true)) {
        st->skipped_ignored++;
        return 0;
    }
    if (w->repo && exists_in_dir(w, "/.git")) {
        st->skipped_nested_repo++;
        return 0;
    }
    if (!below) {
        if (w->repo && !w->opts->include_untracked)
            return 0; /* nothing to list there */
        if (git_ignored(w, true)) {
            st->skipped_ignored++;
            return 0;
        }
        if (is_tool_dir(w, name)) {
            st->skipped_tool_dir++;
            return 0;
        }
    }
    mn_buf_putc(&w->rel, '/');
    return walk_dir(w);
}

static int visit_file(walker *w, const dent_view *e)
{
    mn_walk_stats *st = w->st;
    bool tracked = is_tracked(w);
    if (mnemo_ignored(w, false)) {
        st->skipped_ignored++;
        return 0;
    }
    if (!tracked) {
        if (w->repo && !w->opts->include_untracked)
            return 0;
        if (git_ignored(w, false)) {
            st->skipped_ignored++;
            return 0;
        }
    }
    if (e->size > w->opts->max_file_size) {
        st->skipped_large++;
        return 0;
    }
    mn_walk_entry out = {w->rel.ptr, full_path(w, NULL),
                         e->size,    e->mtime_ms,
                         tracked,    w->bundle_len ? w->bundle_len - 1 : 0};
    st->files++;
    return w->cb(w->payload, &out);
}

static int visit(walker *w, const dent_view *e, size_t rel_len)
{
    mn_walk_stats *st = w->st;
    size_t n = strlen(e->name);
    if (!strcmp(e->name, ".git") || !strcmp(e->name, ".mnemo"))
        return 0;
    if (!mn_utf8_valid(e->name, n) || rel_len + n >= MN_WALK_PATH_MAX) {
        st->skipped_bad_name++;
        return 0;
    }
    mn_buf_truncate(&w->rel, rel_len);
    mn_buf_put(&w->rel, e->name, n);
    if (S_ISLNK(e->mode)) {
        st->skipped_symlink++;
        return 0;
    }
    if (S_ISDIR(e->mode))
        return visit_dir(w, e->name);
    if (S_ISREG(e->mode))
        return visit_file(w, e);
    st->skipped_special++;
    return 0;
}

/* List the directory at w->rel ("" or ending in '/'), then visit its entries in order. */
static int walk_dir(walker *w)
{
    size_t rel_len = w->rel.len;
    mn_buf names = MN_BUF_INIT;
    MN_VEC(dent) ents = MN_VEC_INIT;
    MN_VEC(dent_view) views = MN_VEC_INIT;
    bool pushed = false, has_gitignore = false;
    int rc = 0;

    DIR *d = opendir(full_path(w, NULL));
    if (!d) {
        if (rel_len == 0)
            return mn_error_set(MN_EIO, "cannot read directory '%s': %s", w->root.ptr,
                                strerror(errno));
        mn_log(MN_LOG_DEBUG, "cannot read directory '%s': %s", w->scratch.ptr, strerror(errno));
        w->st->skipped_unreadable++;
        return 0;
    }
    w->st->dirs++;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat sb;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* removed since readdir: not there any more */
        dent e = {names.len, sb.st_mode, (uint64_t)sb.st_size,
                  (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000};
        mn_buf_put(&names, de->d_name, strlen(de->d_name) + 1);
        mn_vec_push(&ents, e);
        if (S_ISREG(sb.st_mode) && !strcmp(de->d_name, ".gitignore"))
            has_gitignore = true;
    }
    closedir(d);

    mn_vec_reserve(&views, ents.len);
    for (size_t i = 0; i < ents.len; i++) {
        dent_view v = {names.ptr + ents.items[i].name_off, ents.items[i].mode, ents.items[i].size,
                       ents.items[i].mtime_ms};
        views.items[views.len++] = v;
    }
    mn_vec_release(&ents);
    if (views.len > 1)
        qsort(views.items, views.len, sizeof(dent_view), dent_cmp);

    bool bundle = false;
    if (rel_len > 0 && w->bundle_len == 0) {
        bool license = false, manifest = false;
        for (size_t i = 0; i < views.len; i++)
            if (S_ISREG(views.items[i].mode)) {
                license = license || license_name(views.items[i].name);
                manifest = manifest || manifest_name(views.items[i].name);
            }
        if ((bundle = license && !manifest))
            w->bundle_len = rel_len;
    }

    if (!w->repo && has_gitignore) {
        ign_list l = {MN_VEC_INIT, 0};
        ign_load(&l, full_path(w, ".gitignore"), rel_len);
        mn_vec_push(&w->gitignores, l);
        pushed = true;
    }

    for (size_t i = 0; i < views.len && rc == 0; i++)
        rc = visit(w, &views.items[i], rel_len);

    if (pushed)
        ign_list_release(&w->gitignores.items[--w->gitignores.len]);
    if (bundle)
        w->bundle_len = 0;
    mn_buf_truncate(&w->rel, rel_len);
    mn_vec_release(&views);
    mn_buf_release(&names);
    return rc;
}

/*
 * Open the repository that contains root, as git would find it (searching
 * upwards), and set w->prefix to root's place in its work tree. A bare
 * repository, or one that cannot be opened (another user's, a damaged one),
 * leaves w->repo NULL: the walk then goes on without git.
 */
static void open_repo(walker *w, char **prefix_out)
{
    git_repository *repo = NULL;
    char *real_root = NULL, *real_wd = NULL;
    int rc = w->git->repository_open_ext(&repo, w->root.ptr, 0, NULL);
    if (rc < 0) {
        if (rc != GIT_ENOTFOUND) {
            const git_error *e = w->git->error_last();
            mn_log(MN_LOG_WARN, "cannot open the git repository of '%s' (%s); walking without git",
                   w->root.ptr, e ? e->message : "unknown error");
        }
        return;
    }
    const char *wd = w->git->repository_workdir(repo);
    if (!wd || w->git->repository_is_bare(repo))
        goto out;
    real_root = realpath(w->root.ptr, NULL);
    real_wd = realpath(wd, NULL);
    if (!real_root || !real_wd)
        goto out;
    size_t n = strlen(real_wd);
    if (!strcmp(real_root, real_wd)) {
        *prefix_out = mn_strdup("");
    } else if (strncmp(real_root, real_wd, n) == 0 && (n == 1 || real_root[n] == '/')) {
        const char *rest = real_root + (n == 1 ? 1 : n + 1);
        mn_buf p = MN_BUF_INIT;
        mn_buf_printf(&p, "%s/", rest);
        *prefix_out = mn_buf_detach(&p);
    } else {
        goto out; /* inside .git, or a path we cannot relate to the work tree */
    }
    w->repo = repo;
    repo = NULL;
    if (w->git->repository_index(&w->index, w->repo) < 0) {
        const git_error *e = w->git->error_last();
        mn_log(MN_LOG_WARN, "cannot read the git index of '%s' (%s); treating files as untracked",
               w->root.ptr, e ? e->message : "unknown error");
        w->index = NULL;
    }
out:
    free(real_root);
    free(real_wd);
    w->git->repository_free(repo);
}

void mn_walk_options_init(mn_walk_options *opts)
{
    mn_walk_options d = MN_WALK_OPTIONS_INIT;
    *opts = d;
}

int mn_walk(const char *root, const mn_walk_options *opts, mn_walk_cb cb, void *payload,
            mn_walk_stats *stats)
{
    mn_walk_options defaults = MN_WALK_OPTIONS_INIT;
    mn_walk_stats local_stats;
    walker w;
    char *prefix = NULL;
    struct stat sb;
    int rc = 0;

    MN_ASSERT_OR(root && cb, MN_EINVAL);
    if (!opts)
        opts = &defaults;
    if (opts->version != MN_WALK_OPTIONS_VERSION)
        return mn_error_set(MN_EINVAL, "unknown walk options version %u", opts->version);
    if (!stats)
        stats = &local_stats;
    memset(stats, 0, sizeof(*stats));
    if (stat(root, &sb) != 0)
        return mn_error_set(errno == ENOENT ? MN_ENOTFOUND : MN_EIO, "cannot walk '%s': %s", root,
                            strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return mn_error_set(MN_EINVAL, "cannot walk '%s': not a directory", root);

    memset(&w, 0, sizeof(w));
    if (!(w.git = mn_libs_git()))
        return mn_error_last_code();
    w.opts = opts;
    w.cb = cb;
    w.payload = payload;
    w.st = stats;
    mn_buf_init(&w.root);
    mn_buf_init(&w.rel);
    mn_buf_init(&w.scratch);
    mn_buf_puts(&w.root, root);
    while (w.root.len > 1 && w.root.ptr[w.root.len - 1] == '/')
        mn_buf_truncate(&w.root, w.root.len - 1);

    if (w.git->libgit2_init() < 0)
        return mn_error_set(MN_EIO, "cannot initialise libgit2");
    open_repo(&w, &prefix);
    w.prefix = prefix ? prefix : "";
    stats->git = w.repo != NULL;

    ign_load(&w.mnemoignore, full_path(&w, ".mnemoignore"), 0);
    rc = walk_dir(&w);

    ign_list_release(&w.mnemoignore);
    for (size_t i = 0; i < w.gitignores.len; i++)
        ign_list_release(&w.gitignores.items[i]);
    mn_vec_release(&w.gitignores);
    w.git->index_free(w.index);
    w.git->repository_free(w.repo);
    w.git->libgit2_shutdown();
    free(prefix);
    mn_buf_release(&w.root);
    mn_buf_release(&w.rel);
    mn_buf_release(&w.scratch);
    return rc;
}
