/*
 * index.h - index a repository: walk, classify, parse, store, resolve.
 *
 * mn_index_run() walks the repository (walk.h), and for each file whose
 * size or modification time differs from what is stored (or every file
 * with `full`), reads it, hashes it (xxh3-128) and, when the hash changed,
 * classifies (classify.h) and parses it (parse.h) and replaces its rows in
 * the store. Files gone from the tree are removed. Then references are
 * resolved (resolve.h). Reading and parsing run on worker threads (one per
 * core); the calling thread alone writes to the store, in transactions of
 * up to MN_INDEX_BATCH files. A bounded queue keeps the working set small
 * whatever the repository's size.
 */
#ifndef MN_INDEX_INDEX_H
#define MN_INDEX_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/resolve.h"
#include "store/store.h"
#include "text/scan.h"

#define MN_INDEX_BATCH 256

typedef struct {
    unsigned version;
    size_t max_file_size; /* default 1 MiB */
    bool full;            /* re-read and re-parse every file */
    bool history;         /* read the git history (history.h) */
    int threads;          /* 0: one per online core, at most 8 */
    /* called on the calling thread after each file; total is 0 while walking */
    void (*progress)(void *payload, size_t done, const char *path);
    void *payload;
    /* secrets (and personal data) in files: redacted from chunks, signatures and
     * docstrings before they are stored; a committed secret stays in the file, never in
     * the store. NULL: nothing is scanned. */
    const mn_scanner *scanner;
    unsigned redact; /* mn_scan_class mask */
} mn_index_options;

#define MN_INDEX_OPTIONS_VERSION 1
#define MN_INDEX_OPTIONS_INIT                                                   \
    {                                                                           \
        MN_INDEX_OPTIONS_VERSION, 1u << 20, false, true, 0, NULL, NULL, NULL, 0 \
    }

typedef struct {
    size_t seen;      /* files the walk passed on */
    size_t parsed;    /* new or changed: parsed and stored */
    size_t unchanged; /* same size and time, or same hash */
    size_t removed;   /* gone from the tree */
    size_t binary;    /* skipped: binary content */
    size_t skipped;   /* skipped by the walk: ignored, large, links, bad names */
    size_t failed;    /* could not be read */
    size_t bytes;     /* bytes read */
    size_t changed;   /* files stored or removed: what the graph's ranks lag behind */
    mn_resolve_stats resolve;
    size_t commits; /* history: commits read this run (history.h) */
    double seconds;
} mn_index_stats;

/*
 * The rules a file's rows are made by: its language and role (classify.c),
 * symbols, chunks and references (parse.c). Bumped when a change to them
 * changes what an unchanged file would be stored as; an index made under
 * other rules is redone in full once (index.c: rules_changed), since the freshness check
 * skips every file whose size and time did not move. 2: nested Python
 * packages/ vendored, benchmark suites test code. 3: a short comment alone
 * between symbols joins the next symbol's chunk; "#endif" lines no chunk; a
 * top-level testing/ is test code. 4: secrets and personal data redacted from
 * what is stored (so an index made before holds none after its next run).
 * 5: amalgamations are generated; CamelCase test directories and x.tests.cpp
 * are tests, a C++ x_spec.cpp is not (classify.c).
 * 6: the options, environment variables and config keys a file declares
 * (options.c, schema v14).
 * 7: calls through a receiver whose type the file tells are written
 * "recv:Type.m" (receivers.c) and resolved in that class and its bases;
 * a .h file whose head is C++ is parsed as C++ (classify.c: h_is_cpp).
 * 8: a text file in no language the index knows is config, not source
 * (Doxyfile, pylintrc); Emacs Lisp and Vim script are languages.
 * 9: a file that only declares error and annotation types says so
 * (decl_only.c, schema v18).
 * 10: Bison's, flex's and gperf's output is generated (classify.c); the
 * roles a root .gitattributes declares (gitattrs.c) join its stamp.
 * 11: yacc and lex grammars are text in no known language again (config),
 * as before 10 named them (retrieval.md).
 * 12: a file below a directory with a license of its own and no package
 * manifest is vendored (walk.c: bundles).
 * 13: a generator's mark counts only in the file's leading comments, before
 * its first line of code (classify.c: a template or a remark after code is
 * not a banner).
 * 14: Pony, assembly, Fortran, Crystal, Tcl and other languages without a
 * grammar here are languages (ponyc's standard library was config, as text
 * in no known language is), and a file named _test or _tests is a test.
 */
#define MN_INDEX_RULES 14

int mn_index_run(mn_store *s, const char *root, const mn_index_options *opts, mn_index_stats *out);

typedef struct {
    size_t fresh;   /* indexed, same size and modification time */
    size_t stale;   /* indexed, changed since */
    size_t added;   /* in the tree, not indexed yet */
    size_t removed; /* indexed, gone from the tree */
} mn_index_freshness;

/** How the index compares with the tree, from a walk alone (no file is read). */
int mn_index_status(mn_store *s, const char *root, mn_index_freshness *out);

#endif
