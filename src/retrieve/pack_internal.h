/*
 * pack_internal.h - what pack.c (choosing under the budget) and
 * pack_item.c (writing one item) share.
 *
 * An entry is one item of the answer: an L0 line, a memory, a place in the
 * code. Its text is a head line and units, each unit whole lines ending in
 * '\n' (a sentence of a body, a field, a line of code), listed by
 * importance. A form of the entry is the head and its first k units
 * (written back in their display order), plus, for a memory that is not
 * whole, a pointer line naming its id; a form never holds a part of a
 * unit, so no text is ever cut inside a line, a sentence or a field.
 * Every unit's text starts with a character that cannot continue the piece
 * a newline ends in the encodings' patterns ('-', a space, a letter, a
 * backquote), so a form costs exactly the sum of its parts' tokens (the
 * blank line before a section heading merges with the newline before it:
 * a form costs at most the sum). Units are counted when first needed.
 */
#ifndef MN_RETRIEVE_PACK_INTERNAL_H
#define MN_RETRIEVE_PACK_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "retrieve/pack.h"
#include "retrieve/retrieve.h"
#include "retrieve/tokens.h"
#include "util/buf.h"
#include "util/map.h"

/* SEC_STALE: memories whose cited code changed (memory/citations.h): not served as current,
 * named apart so the agent can check them (docs/internals/memory.md, "Life cycle") */
typedef enum {
    SEC_PROJECT,
    SEC_KNOWLEDGE,
    SEC_DECISIONS,
    SEC_CODE,
    SEC_STALE,
    SEC_COUNT
} pk_section;

#define PK_UNCOUNTED ((size_t)-1)

typedef struct {
    char *text;    /* whole lines, each ending in '\n' */
    size_t tokens; /* PK_UNCOUNTED until counted */
    int place;     /* display order within the entry */
} pk_unit;

typedef struct {
    pk_section sec;
    double score;
    bool relevant;
    size_t order; /* position among the search's items (overview: its rank) */
    json_t *item; /* the answer's JSON item */

    char *head; /* the first line */
    size_t head_tokens;
    pk_unit *units; /* by importance */
    size_t nunits, cap;
    size_t min_units; /* every form holds at least these (a decision's reason) */
    char *pointer;    /* a memory's last line when shortened; NULL: none */
    size_t pointer_tokens;
    bool fenced;         /* code: units are lines inside a fence */
    char *fence_open;    /* "  ```python\n" */
    size_t fence_tokens; /* of the open and the close lines together */

    /* code and files, built on first need (pk_code_build) */
    bool built;
    int64_t chunk_id; /* 0: none */
    const char *snippet, *path, *symbol;

    size_t chosen; /* units in the chosen form; PK_UNCOUNTED: not chosen */
} pk_entry;

typedef struct {
    mn_store *store;
    const mn_token_counter *counter;
    /* the question's words as written, for the reasons ("matches `x`") */
    char **words;
    size_t nwords;
    /* paths that relevant memories cite, scope or modified: path -> "the gotcha 01ABC..." */
    mn_map cited;
} pk_ctx;

size_t pk_count(pk_ctx *c, const char *text);

/* ---- pack_item.c ---- */

/** The question's words worth naming in a reason (identifiers first); into c->words. */
void pk_words_init(pk_ctx *c, const char *question);
void pk_ctx_release(pk_ctx *c);

/** "matches `a`, `b`" for the question's words found in text; NULL when none. Malloc'd. */
char *pk_matches(const pk_ctx *c, const char *text);

/** pack.c: a decision's causal chain as units of e, one a link, display places from place. */
void pk_chain_units(pk_ctx *c, pk_entry *e, const json_t *mem, int place);

/**
 * The entry of a memory the search found (mem: the stored memory), shown
 * with the first idlen characters of its id.
 */
void pk_memory_entry(pk_ctx *c, pk_entry *e, const json_t *mem, const char *status,
                     const char *reason, bool causal, int idlen);

/**
 * The entry of a stale memory (a span it cites changed): its kind, title
 * and id only, not what it claims, with a pointer to `mnemo stale`.
 */
void pk_stale_entry(pk_entry *e, const json_t *mem, int idlen);

/** Remember the paths a relevant memory talks about, for "cited by" reasons of code. */
void pk_cite_paths(pk_ctx *c, const json_t *mem);

/** The entry of a code chunk or a file (units made later by pk_code_build). */
void pk_code_entry(pk_entry *e, const mn_search_item *it, const char *reason);

/** Read the code's lines and make its units; false when it is a one-line alias or re-export. */
bool pk_code_build(pk_ctx *c, pk_entry *e);

/** Whether text (a chunk) is one line that only names other code: an alias, import, re-export. */
bool pk_trivial_code(const char *text);

/** The tokens of the form of e with its first k units. */
size_t pk_form_tokens(pk_ctx *c, pk_entry *e, size_t k);

/** Append the form of e with its first k units to b. */
void pk_form_write(const pk_entry *e, size_t k, mn_buf *b);

void pk_entry_release(pk_entry *e);

/** Add a unit (text taken over) to e. */
void pk_unit_add(pk_entry *e, char *text, int place);

#endif
