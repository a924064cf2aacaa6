/*
 * store_life.h - the life cycle part of the store interface (schema v10):
 * citations checked against the code index, statuses set on their own,
 * and the memories gc looks at.
 *
 * A citation row (table citations) names a span of code a memory talks
 * about: a file, a symbol in it, or lines of it, with the hash of the span
 * and its text when cited. The index marks a citation `dirty` when the
 * file at its path is replaced with other content, removed or added
 * (triggers of schema v10); memory/citations.c checks the dirty ones after
 * each index run and writes the outcome back here (mn_store_cite_set):
 * fresh, moved (the row follows the code), or stale (the memory is served
 * apart, docs/internals/memory.md). Search reads only the `stale` flag.
 *
 * Records passed to callbacks are valid until the callback returns.
 * Writes need a transaction (mn_store_begin).
 */
#ifndef MN_STORE_LIFE_H
#define MN_STORE_LIFE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_index.h"

/* citations.stale */
enum { MN_CITE_FRESH = 0, MN_CITE_CHANGED = 1, MN_CITE_GONE = 2 };

#define MN_CITE_TEXT_MAX 16384 /* bytes of a span's text kept with a citation */

typedef struct {
    int64_t id;            /* the citation's row */
    int64_t memory_rowid;  /* its memory's row */
    const char *memory_id; /* its memory's id (uid) */
    const char *path;
    const char *symbol;           /* qualified name; NULL: lines or the whole file */
    const char *hash;             /* NULL: never resolved against the index */
    const char *text;             /* NULL: none kept (a whole file) */
    int64_t start_line, end_line; /* 0: none */
    int64_t checked_at;           /* ms; 0: never */
    int stale;                    /* MN_CITE_* */
} mn_cite_rec;

typedef int (*mn_cite_cb)(void *payload, const mn_cite_rec *c);

/** Whether one of this project's citations waits for a check (one index probe). */
int mn_store_cite_dirty_any(mn_store *s, bool *out);
/** This project's citations waiting for a check, in row order, at most limit (0: all). */
int mn_store_cite_dirty_each(mn_store *s, size_t limit, mn_cite_cb cb, void *payload);
/** The citations of one memory (full id), in their order. */
int mn_store_cite_of_memory(mn_store *s, const char *memory_id, mn_cite_cb cb, void *payload);
/**
 * Write a citation's span, hash, text, stale flag and checked_at by its
 * row (c->id), and clear its dirty flag. Needs a transaction.
 */
int mn_store_cite_set(mn_store *s, const mn_cite_rec *c);
/** Remove one citation (its memory no longer cites that code). Needs a transaction. */
int mn_store_cite_delete(mn_store *s, int64_t id);
/**
 * Live memories with a stale citation, most recently changed first: cb
 * gets each memory's id; at most limit (0: all) after skipping offset.
 */
int mn_store_cite_stale_memories(mn_store *s, size_t limit, size_t offset,
                                 int (*cb)(void *payload, const char *memory_id), void *payload,
                                 int64_t *total);

/* ---- the index, as citations need it ---- */

typedef struct {
    int64_t id, file_id;
    const char *path, *name, *qualified_name, *kind, *hash;
    int64_t start_line, end_line;
} mn_cite_symbol;

typedef int (*mn_cite_symbol_cb)(void *payload, const mn_cite_symbol *y);

/**
 * Symbols of this project named `name`: its last part (after '.' or '::')
 * is the symbol's name and the whole is its name or qualified name. path:
 * only in that file (NULL: anywhere). hash: only with that content hash
 * (NULL: any). In (path, line) order.
 */
int mn_store_cite_symbols(mn_store *s, const char *name, const char *path, const char *hash,
                          mn_cite_symbol_cb cb, void *payload);
/**
 * Symbols of kind `kind` spanning `lines` lines in files indexed after
 * since_ms (a rename lands in a file indexed since the citation was last
 * checked), at most limit: the candidates a renamed symbol is among.
 */
int mn_store_cite_symbols_since(mn_store *s, int64_t since_ms, const char *kind, int64_t lines,
                                size_t limit, mn_cite_symbol_cb cb, void *payload);
/**
 * The chunks of an indexed file that overlap lines [start, end], in line
 * order: cb(start line of the chunk, its text, its length). The text was
 * scrubbed of secrets when the file was indexed.
 */
int mn_store_cite_chunks(mn_store *s, int64_t file_id, int64_t start, int64_t end,
                         int (*cb)(void *payload, int64_t start_line, const char *text, size_t len),
                         void *payload);
/** Paths of this project's files with this content hash (a file moved whole), path order. */
int mn_store_cite_files_with_hash(mn_store *s, const char *hash,
                                  int (*cb)(void *payload, const char *path), void *payload);

/* ---- statuses and gc ---- */

/**
 * Set a memory's status (full id); updated_at too when ms > 0. Needs a
 * transaction. MN_ENOTFOUND when there is no such memory.
 */
int mn_store_memory_set_status(mn_store *s, const char *id, const char *status, int64_t ms);

typedef enum {
    MN_LIFE_EXPIRED,    /* live, active or pending, expired by the filter's expiry */
    MN_LIFE_SUPERSEDED, /* superseded (by its newest supersedes link, else updated_at) before */
    MN_LIFE_ARCHIVED,   /* archived, last changed before */
    MN_LIFE_FORGOTTEN,  /* forgotten (deleted_at) before */
} mn_life_set;

typedef struct {
    const char *id, *kind, *status, *title;
    int64_t since; /* when it entered the set: expiry, supersession, archive, forget (ms) */
} mn_life_row;

/**
 * The memories of one set, oldest first: expiry e for MN_LIFE_EXPIRED,
 * before (ms) for the others. cb may not write to the store.
 */
int mn_store_life_each(mn_store *s, mn_life_set set, const mn_expiry *e, int64_t before,
                       int (*cb)(void *payload, const mn_life_row *r), void *payload);

#endif
