/*
 * lifecycle.h - supersession, expiry and gc: a memory's status over time
 * (docs/internals/memory.md, "Life cycle").
 *
 * Supersession: a memory that replaces another (a `supersedes` link from
 * `link`, a save's `links`, or the save pipeline's verdict through
 * mn_memory_supersede) turns the old one `superseded` once the new one is
 * active: kept for history and for the decision chains that context and
 * recall show, never served as current (search, context and recall leave
 * superseded memories out unless asked). The link decides, not the scope:
 * whoever links says the new one replaces the old one. A pending memory's
 * supersedes links wait until it is approved; removing the link, or
 * forgetting the memory that superseded, brings the old one back to
 * active when nothing else live supersedes it.
 *
 * gc archives what expired (its ttl, or its kind's time to live: config
 * memory.ttl.<kind>) and what was superseded longer ago than config
 * memory.gc.superseded_after, and purges, when asked, archived and
 * forgotten memories older than an age. A dry run counts.
 *
 * Every change writes an audit row (supersede, unsupersede, expire,
 * archive, purge) with the actor and the memory's id. Functions that take
 * no transaction of their own must be called inside one (mn_store_begin).
 */
#ifndef MN_MEMORY_LIFECYCLE_H
#define MN_MEMORY_LIFECYCLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/**
 * new_id replaces old_id (full ids; inside the caller's transaction): the
 * link new --supersedes--> old is added (note: why, may be NULL) when it
 * is not there, and old turns superseded now when new is active (else when
 * new is approved: mn_lifecycle_apply). MN_EINVAL for a memory superseding
 * itself, MN_ENOTFOUND for an unknown or forgotten one.
 */
int mn_memory_supersede(mn_store *s, const char *new_id, const char *old_id, const char *why,
                        const char *actor);

/**
 * Make memory id's supersedes links take effect when it is live and
 * active: each memory it supersedes that is active or pending turns
 * superseded. Call after a save with links, a link added, an update that
 * made it active, a forget undone (inside the caller's transaction).
 */
int mn_lifecycle_apply(mn_store *s, const char *actor, const char *id);

/**
 * old_id lost a supersedes link (removed, or the memory linking was
 * forgotten): back to active when it is superseded and no live, active
 * memory supersedes it any more (inside the caller's transaction).
 */
int mn_lifecycle_release(mn_store *s, const char *actor, const char *old_id);

/**
 * A memory was forgotten (id): what it superseded may come back
 * (mn_lifecycle_release on each), inside the caller's transaction.
 */
int mn_lifecycle_forgotten(mn_store *s, const char *actor, const char *id);

typedef struct {
    int64_t now;
    mn_expiry expiry;         /* kinds' times to live; at is set to now */
    int64_t superseded_after; /* archive superseded ones this long after (ms; 0: never) */
    int64_t purge_archived;   /* purge archived ones older than this (ms; 0: none) */
    int64_t purge_forgotten;  /* purge forgotten ones older than this (ms; 0: none) */
    bool apply;               /* false: a dry run, nothing written */
    const char *actor;
} mn_gc_options;

/**
 * Garbage-collect (in one transaction when applying): *out = {dry_run,
 * expired, superseded, purged_archived, purged_forgotten}, each {count,
 * ids (the first 100)}.
 */
int mn_lifecycle_gc(mn_store *s, const mn_gc_options *o, json_t **out);

#endif
