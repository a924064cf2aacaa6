/*
 * discover.h - discovery: the L0 project overview, written as memories.
 *
 * mn_discover() reads the code index (files with their language, role,
 * lines and rank; symbols) and a bounded set of manifest and config files
 * from disk (package.json, pyproject.toml, go.mod, Cargo.toml, Makefile,
 * CI workflows...), and writes what it finds as memories of kind "fact"
 * with provenance source "discovery": level L0 for project-wide facts
 * (languages, project type, package managers, frameworks, dependencies,
 * runtime, build/test/run/lint commands, entry points, main package, code
 * style, CI, documentation, monorepo layout) and L1 for each domain (a
 * top-level module) and each package of a monorepo.
 *
 * Every finding has a stable key, stored as the tag "discovery:<key>".
 * A re-run updates the memory with that tag in place when something
 * changed, creates the missing ones and archives (status "archived") those
 * that no longer hold; it never duplicates. A memory whose provenance
 * source a person changed away from "discovery" is left alone, and so is
 * one a person forgot (unless `restore_forgotten`).
 *
 * The design decisions and the list of keys are at the top of discover.c.
 */
#ifndef MN_INDEX_DISCOVER_H
#define MN_INDEX_DISCOVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memory/memory.h"
#include "store/store.h"

/* Config keys discovery keeps its state in (not settable by `mnemo config`). */
#define MN_DISCOVER_KEY_ROOT        "discovery.root"
#define MN_DISCOVER_KEY_LAST_RUN    "discovery.last_run"
#define MN_DISCOVER_KEY_FINGERPRINT "discovery.fingerprint"

/* The largest part of one manifest or config file that is read. */
#define MN_DISCOVER_READ_MAX ((size_t)256 << 10)

typedef struct {
    unsigned version;
    bool restore_forgotten; /* bring back discovery memories a person forgot */
} mn_discover_options;

#define MN_DISCOVER_OPTIONS_VERSION 1
#define MN_DISCOVER_OPTIONS_INIT           \
    {                                      \
        MN_DISCOVER_OPTIONS_VERSION, false \
    }

typedef struct {
    size_t created, updated, archived, unchanged;
    size_t kept;      /* findings whose memory a person took over or forgot: left alone */
    size_t manifests; /* manifest and config files read */
    size_t broken;    /* of those, skipped: unparsable, not UTF-8, cut at the size cap */
    double seconds;
    /* [{key, id, title, level, action}] in finding order, archived ones last;
     * a new reference owned by the stats (mn_discover_stats_release) */
    json_t *facts;
} mn_discover_stats;

/**
 * Run discovery on the repository at `root` (absolute) from the index in
 * `s`, and reconcile the findings with the stored discovery memories in one
 * transaction. Records the root, the time and the fingerprint of the
 * manifests in the config keys above. `cfg` gives the review threshold and
 * the actor for the audit log; `opts` may be NULL. `out` is filled in;
 * release it with mn_discover_stats_release, also after a failure.
 */
int mn_discover(mn_store *s, const char *root, const mn_memory_settings *cfg,
                const mn_discover_options *opts, mn_discover_stats *out);

void mn_discover_stats_release(mn_discover_stats *st);

/**
 * The findings alone, without touching the stored memories: a new JSON
 * array of {key, level, title, body, paths, keywords} (*out, caller
 * decrefs). For tests and for `mnemo discover --dry-run` later.
 */
int mn_discover_collect(json_t **out, mn_store *s, const char *root, mn_discover_stats *stats);

/**
 * Whether discovery should run after an index run: never ran here, no
 * discovery memory exists, the recorded root differs, the manifests changed
 * (fingerprint), or the last run is older than max_age_ms (0: age never
 * counts). *why says which ("first run", "root changed", "manifests
 * changed", "older than max_age"), or NULL when not due.
 */
int mn_discover_due(mn_store *s, const char *root, int64_t max_age_ms, bool *out, const char **why);

#endif
