/*
 * mnemo/migrate.h - move the team's knowledge from one store to another
 * (`mnemo migrate --from LOC --to LOC`): SQLite to PostgreSQL and back.
 */
#ifndef MNEMO_MIGRATE_H
#define MNEMO_MIGRATE_H

#include <jansson.h>
#include <stdbool.h>

typedef struct {
    unsigned version;
    const char *from;    /* a SQLite path, a postgres:// URL or a libpq conninfo */
    const char *to;      /* the same; created when missing */
    const char *project; /* this project only; NULL: every project of `from` */
    bool merge;          /* add to a target project that holds memories (ids there are kept) */
} mn_migrate_options;

#define MN_MIGRATE_OPTIONS_VERSION 1
#define MN_MIGRATE_OPTIONS_INIT                             \
    {                                                       \
        MN_MIGRATE_OPTIONS_VERSION, NULL, NULL, NULL, false \
    }

/**
 * Move each project's memories (every field, forgotten ones too), links,
 * config (not a key stored in it: skipped and named) and audit log from
 * o->from into o->to, one transaction per project on the target, nothing
 * written to the source; then export both sides and compare the bytes.
 * The code index, served answers, feedback rows and access tokens are not
 * moved (`mnemo index` rebuilds the index; counters travel with the
 * memories). Refuses, before anything is written, a target project that
 * holds memories unless o->merge. *out (new reference): {from, to (both
 * redacted), projects: [{name, memories, links, config, config_skipped,
 * audit, skipped}], verified}. Locations are shown redacted in every
 * message.
 */
int mn_migrate(json_t **out, const mn_migrate_options *o);

#endif
