/*
 * scrub.h - secrets and personal data out of JSON on its way into the store
 * and on its way out of an operation.
 *
 * The scanner (text/scan.h) works on text; this walks a JSON value and
 * redacts every string in it, in place, so that one call covers a whole
 * memory (title, body, every context, scope and provenance field, links'
 * notes, citations) or a whole answer (context's Markdown, search snippets,
 * an export). Object keys are not scanned: every JSON object mnemo reads or
 * writes has a fixed set of keys, checked by a schema.
 */
#ifndef MN_MEMORY_SCRUB_H
#define MN_MEMORY_SCRUB_H

#include <jansson.h>
#include <stdbool.h>

#include "text/scan.h"

/* What a scrub found and did. Release with mn_scrub_report_release. */
typedef struct {
    size_t secrets, pii;    /* hits, by class */
    size_t bytes;           /* bytes of all the strings looked at */
    size_t redacted;        /* of them, bytes replaced by a marker */
    size_t strings_changed; /* strings that held a hit */
    json_t *rules;          /* the ids of the rules that hit, each once, in order; NULL if none */
} mn_scrub_report;

#define MN_SCRUB_REPORT_INIT \
    {                        \
        0, 0, 0, 0, 0, NULL  \
    }

/**
 * Redact every string inside v (objects and arrays, recursively) that holds
 * a hit of `classes`; strings are replaced in place. rep (may be NULL) adds
 * up what was found. Returns 0, or an error of the regex engine.
 */
int mn_scrub_json(json_t *v, const mn_scanner *sc, unsigned classes, mn_scrub_report *rep);

/** true when any string inside v holds a hit of `classes` (nothing is changed). */
bool mn_scrub_json_any(const json_t *v, const mn_scanner *sc, unsigned classes);

/**
 * Bytes of all the strings inside v (*total) and, of them, bytes that are
 * redaction markers ("[REDACTED:<rule>]"); what a scrub left of a text is
 * the difference.
 */
size_t mn_scrub_marker_bytes(const json_t *v, size_t *total);

void mn_scrub_report_release(mn_scrub_report *rep);

#endif
