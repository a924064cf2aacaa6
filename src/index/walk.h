/*
 * walk.h - list the files of a repository that the index should read.
 *
 * mn_walk streams the files under a root directory to a callback, one at a
 * time, in the byte order of their repo-relative paths (the order of
 * `git ls-files`). It never collects the list: the working set is the
 * entries of the directories on the current path (each directory is read
 * whole, sorted, then closed, so no descriptor stays open while recursing),
 * plus, in a git repository, libgit2's copy of the index (about 100 bytes
 * per tracked file), which git itself also holds.
 *
 * What is listed (with `include_untracked`, the default, the same set as
 * `git ls-files -co --exclude-standard`, minus the skips below):
 *  - in a git repository (root is its work tree or a directory inside it):
 *    every tracked file, and every untracked file not ignored by .gitignore
 *    files at any level, .git/info/exclude or core.excludesFile (rules
 *    applied by libgit2). Tracked files are listed even when an ignore rule
 *    matches them, as git does. Without `include_untracked`, only tracked
 *    files present in the work tree.
 *  - outside a repository (or when the repository cannot be opened, for
 *    example one owned by another user): every file, honouring .gitignore
 *    files at any level with git's syntax (negation, anchoring, trailing
 *    '/', '*', '?', '[...]', '**'); info/exclude and core.excludesFile do
 *    not exist there, and `include_untracked` has no effect (nothing is
 *    tracked, everything not ignored is listed). Nested repositories are
 *    walked like any directory (their .git is skipped).
 *  - in both cases <root>/.mnemoignore (gitignore syntax, patterns relative
 *    to root) excludes paths from mnemo's index even when they are tracked;
 *    its '!' rules re-include only what an earlier .mnemoignore rule
 *    excluded, never a git-ignored file.
 *
 * What is skipped, each counted in mn_walk_stats:
 *  - `.git` and `.mnemo` entries at any level (not counted);
 *  - symbolic links, files or directories, tracked or not: never followed,
 *    so a link loop cannot trap the walk (skipped_symlink);
 *  - sockets, FIFOs and devices (skipped_special);
 *  - names that are not valid UTF-8 or paths over 4096 bytes: they cannot be
 *    stored or shown faithfully (skipped_bad_name);
 *  - files larger than max_file_size (skipped_large);
 *  - in a git repository, nested repositories and submodule checkouts: a
 *    directory holding a `.git` entry is another project (skipped_nested_repo);
 *  - untracked dependency and cache trees found by convention, not per
 *    repository: `node_modules` and `__pycache__` directories, and any
 *    directory holding a CACHEDIR.TAG (the Cache Directory Tagging spec, used
 *    by cargo's target/ and many tools) or a pyvenv.cfg (a Python virtual
 *    environment) (skipped_tool_dir). Tracked content is never skipped this
 *    way: classify.h marks it vendored instead;
 *  - directories that cannot be read, below the root (skipped_unreadable).
 * An ignored or skipped directory counts once; its content is not visited.
 * Whether a file is binary needs its content: mn_classify decides that.
 */
#ifndef MN_INDEX_WALK_H
#define MN_INDEX_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MN_WALK_OPTIONS_VERSION 1

typedef struct {
    unsigned version;       /* MN_WALK_OPTIONS_VERSION */
    size_t max_file_size;   /* larger files are skipped; default 1 MiB */
    bool include_untracked; /* default true: tracked + untracked-not-ignored */
} mn_walk_options;

#define MN_WALK_OPTIONS_INIT                           \
    {                                                  \
        MN_WALK_OPTIONS_VERSION, (size_t)1 << 20, true \
    }

/** Fill opts with the defaults (the same as MN_WALK_OPTIONS_INIT). */
void mn_walk_options_init(mn_walk_options *opts);

typedef struct {
    const char *path;      /* relative to root, '/'-separated, valid UTF-8 */
    const char *full_path; /* root + "/" + path, for opening the file */
    uint64_t size;         /* bytes, from lstat */
    int64_t mtime_ms;      /* modification time, ms since the epoch */
    bool tracked;          /* in the git index (false outside a repository) */
    size_t bundle;         /* the length of the path's bundle directory ("a/b"), 0 when none:
                              below a directory with a license of its own and no package
                              manifest, another project's code (walk.c) */
} mn_walk_entry;

typedef struct {
    size_t files;               /* entries passed to the callback */
    size_t dirs;                /* directories read */
    size_t skipped_ignored;     /* .gitignore, info/exclude, excludesFile, .mnemoignore */
    size_t skipped_large;       /* over max_file_size */
    size_t skipped_bad_name;    /* not valid UTF-8, or path too long */
    size_t skipped_symlink;     /* symbolic links (never followed) */
    size_t skipped_special;     /* sockets, FIFOs, devices */
    size_t skipped_nested_repo; /* nested repositories and submodules */
    size_t skipped_tool_dir;    /* untracked node_modules, caches, virtualenvs */
    size_t skipped_unreadable;  /* directories that could not be opened */
    bool git;                   /* a git repository's index and rules were used */
} mn_walk_stats;

/**
 * The callback: return 0 to go on; any other value stops the walk and is
 * returned by mn_walk. The entry and its strings are valid only during the
 * call.
 */
typedef int (*mn_walk_cb)(void *payload, const mn_walk_entry *e);

/**
 * Walk the files under root (see the top of this file for what is listed
 * and skipped), calling cb for each in sorted path order.
 *
 * root: a directory (relative or absolute). opts: NULL for the defaults.
 * stats: NULL, or filled (zeroed first) even when the walk stops early.
 * Returns 0, the callback's non-zero value, MN_ENOTFOUND when root does not
 * exist, MN_EINVAL when it is not a directory or opts has an unknown
 * version, MN_EIO when root cannot be read or libgit2 fails.
 */
int mn_walk(const char *root, const mn_walk_options *opts, mn_walk_cb cb, void *payload,
            mn_walk_stats *stats);

/*
 * Internal, shared with the tests: git's wildmatch with WM_PATHNAME, the
 * glob dialect of .gitignore and .mnemoignore ('*', '?', '[...]', '**').
 */
bool mn_index__wildmatch(const char *pattern, const char *text);

#endif
