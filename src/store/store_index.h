/*
 * store_index.h - the code index part of the store interface: files, their
 * symbols, the references between them (edges) and the retrievable chunks.
 *
 * The indexer (src/index/) replaces everything known about one file at a
 * time with mn_store_file_replace, inside a transaction it batches. A
 * reference starts unresolved (an edge with a target name and no target
 * id); the resolver later points it at a file or symbol with
 * mn_store_edge_resolve. Removing or replacing a file unresolves the edges
 * that pointed into it, so the graph never holds a dangling id.
 *
 * Records are plain structs (no JSON): a large repository moves hundreds of
 * thousands of rows through here. Strings in records passed in are
 * borrowed; strings in records passed to callbacks live until the callback
 * returns.
 */
#ifndef MN_STORE_INDEX_H
#define MN_STORE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define MN_HASH_HEX 33 /* 128-bit content hash as hex, with NUL */

typedef struct {
    int64_t id;           /* set by the store */
    const char *path;     /* repository-relative, '/'-separated */
    const char *language; /* NULL: unknown */
    const char *role;     /* source test doc config build generated vendored marker lock */
    char hash[MN_HASH_HEX];
    int64_t size, lines, mtime_ms;
    double rank;
    bool decl_only; /* declares only error and annotation types (index/decl_only.h; written,
                       not read back by mn_store_files_each) */
} mn_file_rec;

typedef struct {
    int64_t id; /* set by the store */
    const char *name;
    const char *qualified_name;   /* e.g. Class.method */
    const char *kind;             /* function class method module interface ... */
    int64_t start_line, end_line; /* 1-based, inclusive */
    int64_t start_byte, end_byte;
    const char *signature;  /* may be NULL */
    const char *docstring;  /* docstring or leading comment; may be NULL */
    char hash[MN_HASH_HEX]; /* of the span's text; may be "" */
} mn_symbol_rec;

typedef struct {
    int src_symbol;     /* index into the file's symbols, or -1 for the file itself */
    const char *kind;   /* import call inherit reference */
    const char *target; /* what the code names: a module path, a callee name */
    double weight;      /* 0: default 1 */
} mn_ref_rec;

typedef struct {
    int symbol; /* index into the file's symbols, or -1 for a window of the file */
    int64_t start_line, end_line;
    const char *text;
    char hash[MN_HASH_HEX];
} mn_chunk_rec;

/* A name the file declares for its users (index/options.h): a command-line
 * option as typed ("--tb", "-x"), an environment variable, a config key. */
typedef struct {
    int64_t line;     /* 1-based */
    const char *kind; /* option env config */
    const char *name;
} mn_decl_rec;

typedef struct {
    const mn_symbol_rec *symbols;
    size_t nsymbols;
    const mn_ref_rec *refs;
    size_t nrefs;
    const mn_chunk_rec *chunks;
    size_t nchunks;
    const mn_decl_rec *decls; /* may be NULL (schema v14) */
    size_t ndecls;
} mn_file_content;

/** The stored hash of a file (MN_ENOTFOUND when not indexed). */
int mn_store_file_lookup(mn_store *s, int64_t *id, char hash[MN_HASH_HEX], const char *path);
/**
 * Insert or replace a file with all its symbols, references and chunks; f->id
 * is set. A replaced file keeps its id, and its symbols whose qualified name
 * is still there keep theirs (the edges into them stay resolved); edges into
 * symbols that went away are unresolved.
 */
int mn_store_file_replace(mn_store *s, mn_file_rec *f, const mn_file_content *c);
/** Update only size/mtime of an unchanged file (no re-parse). */
int mn_store_file_touch(mn_store *s, int64_t id, int64_t size, int64_t mtime_ms);
/** Remove a file and what hangs on it; edges into it become unresolved. */
int mn_store_file_remove(mn_store *s, const char *path);
/** Every indexed file (path order); glob NULL for all, else fnmatch pattern on the path. */
int mn_store_files_each(mn_store *s, const char *glob,
                        int (*cb)(void *payload, const mn_file_rec *f), void *payload);
/** A declaration found by name (mn_store_declared_named). */
typedef struct {
    int64_t file_id, line;
    const char *kind, *name, *path, *role;
} mn_declared_def;
/**
 * The declarations of each of names (exact, case-sensitive), names[i] with
 * which = i, in file order: the files that declare an option, read an
 * environment variable or declare a config key of that name.
 */
int mn_store_declared_named(mn_store *s, const char *const *names, size_t n,
                            int (*cb)(void *payload, size_t which, const mn_declared_def *d),
                            void *payload);
/** Counts: files, symbols, edges, edges resolved, chunks. */
typedef struct {
    int64_t files, symbols, edges, resolved, chunks;
} mn_index_counts;
int mn_store_index_counts(mn_store *s, mn_index_counts *out);

/* ---- the graph ---- */

typedef struct {
    int64_t id;
    const char *src_kind; /* "file" or "symbol" */
    int64_t src_id;
    int64_t src_file; /* the file the reference is in */
    const char *kind; /* import call inherit reference */
    const char *name; /* the target as the code names it */
    int64_t dst_id;   /* its target, 0 while unresolved */
} mn_edge_rec;

/** Every edge without a target yet (dst_id NULL), in id order. */
int mn_store_edges_unresolved_each(mn_store *s, int (*cb)(void *payload, const mn_edge_rec *e),
                                   void *payload);
/*
 * The key a call or inherit is resolved by: the part of the name after the
 * last '.' or '::' ("self.items.save", "ns::save" -> "save"). Returns a
 * pointer into name. Stored with each such edge (schema v4).
 */
const char *mn_store_ref_key(const char *name);

/*
 * Edges the incremental resolver looks at again (index/resolve.c), resolved
 * or not. Exactly one member is set.
 */
typedef struct {
    int64_t file;         /* edges out of this file: the file itself and its symbols */
    int64_t file_imports; /* the import edges out of this file */
    int64_t id;           /* this one edge */
    const char *key;      /* calls and inherits whose key (mn_store_ref_key) is this */
    bool imports;         /* every import edge of the project */
} mn_edge_query;

#define MN_EDGE_QUERY_INIT   \
    {                        \
        0, 0, 0, NULL, false \
    }

int mn_store_edges_each(mn_store *s, const mn_edge_query *q,
                        int (*cb)(void *payload, const mn_edge_rec *e), void *payload);

/** Point an edge at a file or symbol id (its dst_kind says which); 0 unresolves it. */
int mn_store_edge_resolve(mn_store *s, int64_t edge_id, int64_t dst_id);

/** (id, file id) of every symbol named exactly name (no glob). */
int mn_store_symbols_named_each(mn_store *s, const char *name,
                                int (*cb)(void *payload, int64_t id, int64_t file_id),
                                void *payload);

/** Name and qualified name of each symbol a file defines (a name defined twice comes twice). */
int mn_store_file_symbol_names_each(mn_store *s, int64_t file_id,
                                    int (*cb)(void *payload, const char *name,
                                              const char *qualified_name),
                                    void *payload);

/**
 * The edges pointing into a file (qualified_name NULL) or one of its symbols
 * (that symbol's qualified name).
 */
int mn_store_file_incoming_each(mn_store *s, int64_t file_id,
                                int (*cb)(void *payload, int64_t edge_id,
                                          const char *qualified_name),
                                void *payload);

typedef struct {
    int64_t id, file_id;
    const char *name, *qualified_name, *kind, *path, *signature;
    int64_t start_line, end_line;
    double rank;
} mn_symbol_row;

/** Symbols, in (path, line) order; name NULL for all, else an exact name or fnmatch glob. */
int mn_store_symbols_each(mn_store *s, const char *name,
                          int (*cb)(void *payload, const mn_symbol_row *y), void *payload);

/**
 * The resolved graph as weighted pairs: with "file", file -> file (imports,
 * plus calls and inherits between symbols, lifted to their files); with
 * "symbol", symbol -> symbol (calls and inherits). Self-pairs are left out.
 */
int mn_store_graph_each(mn_store *s, const char *level,
                        int (*cb)(void *payload, int64_t src, int64_t dst, double weight),
                        void *payload);
/** Ids of every file or symbol of the project ("file" or "symbol"). */
int mn_store_node_ids_each(mn_store *s, const char *level, int (*cb)(void *payload, int64_t id),
                           void *payload);

/* One neighbour of a file or symbol in the graph. */
typedef struct {
    const char *edge;   /* import call inherit reference */
    const char *path;   /* the other end's file; NULL when unresolved */
    const char *symbol; /* the other end's symbol name, when it is a symbol */
    const char *name;   /* the name as the code wrote it */
    int64_t line;       /* the other end's line (symbols), else 0 */
} mn_neighbour;

/**
 * Neighbours of a node ("file" or "symbol", id): outgoing (what it imports
 * or calls, resolved or not) or incoming (who imports or calls it).
 */
int mn_store_neighbours_each(mn_store *s, const char *level, int64_t id, bool incoming,
                             int (*cb)(void *payload, const mn_neighbour *n), void *payload);

/** Set the rank of a file or symbol ("file" or "symbol"). */
int mn_store_set_rank(mn_store *s, const char *kind, int64_t id, double rank);

/**
 * Rebuild the full-text indexes of code (chunks, file paths) into one
 * segment each, dropping what replaced and removed files left in them
 * (in a transaction of its own).
 */
int mn_store_code_fts_optimize(mn_store *s);

/* ---- the history (schema v7; index/history.c) ---- */

/* A commit as the index keeps it: its subject line and the paths it changed. */
typedef struct {
    const char *hash;    /* 40 hex digits */
    int64_t time;        /* committer time, seconds since the epoch */
    const char *subject; /* the message's first paragraph, on one line */
    const char *const *paths;
    size_t npaths;
} mn_commit_rec;

/** The head the last history read stopped at (malloc'd); MN_ENOTFOUND when none. */
int mn_store_history_head(mn_store *s, char **out);
/** Add a commit (in a transaction); one already stored is left as it is. */
int mn_store_history_add(mn_store *s, const mn_commit_rec *c);
/**
 * After a read (in its transaction): remember head, keep the newest `keep`
 * commits, and rebuild the per-path documents search ranks.
 */
int mn_store_history_finish(mn_store *s, const char *head, size_t keep);
/** Forget the project's history (commits, documents, the head read to): not to be read. */
int mn_store_history_clear(mn_store *s);
/** Stored commits' changes to path `from` count for `to` (a rename read later). */
int mn_store_history_rename(mn_store *s, const char *from, const char *to);

#endif
