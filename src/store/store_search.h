/*
 * store_search.h - the retrieval part of the store interface: full-text
 * candidates for memories and code chunks, the index lookups the ranking
 * needs (symbols by name, file neighbours, memories attached to files),
 * and the record of what was served and the feedback on it.
 *
 * Full-text search runs on the FTS5 tables of schema v3 (memories_fts,
 * chunks_fts, files_fts; src/store/schema_v3.sql), tokenized by "mnemo".
 * A query is an FTS5 expression built by mn_store_fts_query() or
 * mn_store_fts_text_query(): quoted terms OR-ed, so no user text is ever
 * FTS5 syntax. Scores are FTS5's bm25() with column weights, negated so
 * that higher is better (every score > 0).
 *
 * Candidate lists are bounded (`limit`, at most MN_SEARCH_MAX_CANDIDATES):
 * ranking above this layer works on a few hundred rows, never on every
 * match. Records passed to callbacks are valid until the callback returns.
 */
#ifndef MN_STORE_SEARCH_H
#define MN_STORE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_index.h"
#include "util/buf.h"

#define MN_SEARCH_MAX_CANDIDATES 2000
#define MN_SEARCH_MAX_TERMS      64  /* terms in one FTS5 query */
#define MN_SEARCH_MAX_PHRASES    128 /* phrases in one (a term may be an OR of two forms) */
#define MN_SEARCH_MAX_FILTER     16  /* values in one filter list */
#define MN_SEARCH_TERM_MAX       128 /* bytes of one term */

/**
 * Append to out an FTS5 query matching any of the terms: "t1" OR "t2" ...
 * Each term is quoted with its double quotes doubled, so operators (AND,
 * NEAR, *, ^, :, parentheses) in a term are plain text. Empty terms, terms
 * over MN_SEARCH_TERM_MAX bytes and terms past MN_SEARCH_MAX_TERMS are
 * left out. Returns the number of terms written (0: nothing to search).
 */
size_t mn_store_fts_query(mn_buf *out, const char *const *terms, size_t nterms);

/**
 * Append to out an FTS5 query for free text: each word of the text (as the
 * "mnemo" tokenizer splits it, stop words and repeats left out) quoted and
 * OR-ed, at most max_terms of them. Returns the number of terms (0: nothing
 * to search; out unchanged).
 */
size_t mn_store_fts_text_query(mn_buf *out, const char *text, size_t len, size_t max_terms);

typedef enum { MN_FTS_MEMORIES, MN_FTS_CHUNKS, MN_FTS_FILES } mn_fts_table;

/**
 * How many rows of a full-text table match (all projects: the index is
 * shared), without ranking them: cheap next to a ranked query, whose cost
 * grows with this number. Also *ndocs, the rows of the table (NULL: not
 * wanted). Counts are cached per connection and query text (a common word
 * is counted once, not per search) and may be slightly stale: an entry
 * holds while the table's highest row id stays within 1/32 of its value
 * when counted. When 1,024 or more of the newest 32nd or eighth of the
 * rows match (a count of ~8,000 or more) the count is estimated from
 * them, within a few percent; other counts are exact.
 */
int mn_store_fts_count(mn_store *s, mn_fts_table table, const char *match, int64_t *count,
                       int64_t *ndocs);

/**
 * Where no one waits for an answer (between questions, after an index
 * run): rebuild a full-text index into one b-tree when commits have left
 * it in more than 8 and those beside the largest hold 1/16 of its size
 * (fts_tidy.c: why, and what it costs). Ranks and counts are unchanged.
 * *rebuilt tells whether it did; a read-only store is left as it is.
 */
int mn_store_fts_tidy(mn_store *s, mn_fts_table table, bool *rebuilt);

/* ---- memories ---- */

/**
 * For a process that answers many questions, between them: read the
 * memories' lengths in tokens once (~20 ms at 100k memories), so that
 * ranking does not read each row's from the full-text index (a seek per
 * row). Held until the index changes; cheap (one row read) when it has
 * not. Scores are the same with or without them.
 */
int mn_store_memory_sizes_prepare(mn_store *s);

typedef struct {
    const char *match;                       /* FTS5 query (mn_store_fts_query); NULL: no text */
    const char *kinds[MN_SEARCH_MAX_FILTER]; /* any of these kinds; none: any kind */
    size_t nkinds;
    int levels[4]; /* any of these levels (0..3); none: any */
    size_t nlevels;
    const char *statuses[MN_SEARCH_MAX_FILTER]; /* any of these; none: any status */
    size_t nstatuses;
    const char *tags[MN_SEARCH_MAX_FILTER]; /* carrying any of these tags; none: any */
    size_t ntags;
    const char *paths[MN_SEARCH_MAX_FILTER]; /* scoped to a path matching a glob; none: any */
    size_t npaths;
    bool paths_keep_l0; /* L0 memories pass the path filter (project-wide) */
    double weights[4];  /* bm25 weights of title, keywords, body, context; 0: default */
    size_t limit;       /* at most this many, best first */
    /* the idf of each phrase of match, in order (NULL, or NAN for one phrase: counted by the
     * ranking, which reads the phrase's posting list); at most MN_SEARCH_MAX_PHRASES */
    const double *idf;
    size_t nidf;
    double newest;    /* in (0, 1): rank only this share of the table's rows, the newest; 0: all */
    mn_expiry expiry; /* at > 0: expired memories are left out (store.h) */
} mn_memory_query;

typedef struct {
    int64_t rowid;
    const char *uid, *kind, *status, *title;
    int level;
    double bm25; /* > 0, higher is better; 0 for rows found without text */
    int64_t created_at, updated_at;
    int64_t accessed_at; /* last served; 0: never */
    int64_t hits, used, ignored;
    const char *scope_paths, *scope_symbols; /* JSON arrays, or NULL */
    bool stale;                              /* one of its citations is marked stale */
    /* an episode's conversation: "s:<session ref>", else "d:<situation>" (the
     * grouping of mn_store_episode_neighbours); NULL for other kinds and for an
     * episode with neither */
    const char *conversation;
    /* discovery's summary of the directories of scope_paths (a "domain" or "package" fact) */
    bool summary;
} mn_memory_hit;

typedef int (*mn_memory_hit_cb)(void *payload, const mn_memory_hit *h);

/** Memories matching q->match and the filters, best bm25 first (soft-deleted never). */
int mn_store_search_memories(mn_store *s, const mn_memory_query *q, mn_memory_hit_cb cb,
                             void *payload);

/**
 * The episodes matching q->match that pass q's filters, counted by
 * conversation (the key of mn_memory_hit.conversation): cb once per
 * conversation with the number of its episodes that match. Unranked (no
 * bm25 is computed: the cost is that of reading the matches, which the
 * caller bounds by counting them first). q->limit is ignored.
 */
int mn_store_conversation_counts(mn_store *s, const mn_memory_query *q,
                                 int (*cb)(void *payload, const char *conversation, int64_t n),
                                 void *payload);

/**
 * Live memories attached to any of these repository paths: scoped to the
 * path, to a directory above it or a path below it, or linked to it with an
 * `about` link to "file:<path>". Filters of q apply (q->match is ignored);
 * bm25 is 0. Each memory is reported once, at most q->limit of them.
 */
int mn_store_memories_at_paths(mn_store *s, const mn_memory_query *q, const char *const *paths,
                               size_t npaths, mn_memory_hit_cb cb, void *payload);

/**
 * Memory rows created in [from_ms, to_ms) that pass the filters of q
 * (q->match ignored), newest first, at most q->limit (0: 50): the memories
 * of the time a question names (when.c).
 */
int mn_store_memories_created(mn_store *s, const mn_memory_query *q, int64_t from_ms, int64_t to_ms,
                              mn_memory_hit_cb cb, void *payload);

/**
 * Memory rows by row id that pass the filters of q (q->match ignored),
 * in the order given: candidates found by another signal (semantic).
 */
int mn_store_memories_by_rowid(mn_store *s, const mn_memory_query *q, const int64_t *rowids,
                               size_t n, mn_memory_hit_cb cb, void *payload);

/**
 * The episodes saved just before and after an episode (rows within `span`
 * of it in save order) of the same session (same session reference, else
 * the same situation), passing q's filters: the turns around a turn.
 */
int mn_store_episode_neighbours(mn_store *s, const mn_memory_query *q, int64_t rowid, int span,
                                mn_memory_hit_cb cb, void *payload);

/** Memory rows by uid (same record as a hit, bm25 0), for items found elsewhere. */
int mn_store_memories_by_uid(mn_store *s, const char *const *uids, size_t n, mn_memory_hit_cb cb,
                             void *payload);

/* ---- code chunks ---- */

typedef struct {
    const char *match; /* FTS5 query */
    double weights[5]; /* bm25 weights of path, names, signature, doc, body; 0: default */
    size_t limit;      /* at most this many, best first */
    const double *idf; /* as in mn_memory_query */
    size_t nidf;
} mn_chunk_query;

typedef struct {
    int64_t id, file_id, symbol_id; /* symbol_id 0 for a window of a file */
    int64_t start_line, end_line;
    const char *path, *role, *language;
    const char *symbol, *qualified_name, *symbol_kind; /* NULL without a symbol */
    double bm25;                                       /* > 0, higher is better */
} mn_chunk_hit;

typedef int (*mn_chunk_hit_cb)(void *payload, const mn_chunk_hit *h);

/** Chunks of this project's files matching q->match, best bm25 first. */
int mn_store_search_chunks(mn_store *s, const mn_chunk_query *q, mn_chunk_hit_cb cb, void *payload);

/**
 * How many chunks hold each term (an indexed term: tokenized as documents
 * are, see text/tokenize.h), into df[i]; *ndocs the number of chunks in the
 * store (all projects: the full-text index is shared).
 */
int mn_store_chunk_df(mn_store *s, const char *const *terms, size_t n, int64_t *df, int64_t *ndocs);

/**
 * For one FTS5 query (a single term), how many of each file's chunks match:
 * cb(file id, count) per file of this project, at most `limit` chunks read.
 */
int mn_store_term_files(mn_store *s, const char *match, size_t limit,
                        int (*cb)(void *payload, int64_t file_id, int64_t count), void *payload);

/* ---- file paths ---- */

typedef struct {
    int64_t id;
    const char *path, *role;
    double bm25; /* > 0, higher is better */
} mn_file_hit;

/** This project's files whose path matches match (FTS5 query over the path's words), best first. */
int mn_store_search_files(mn_store *s, const char *match, size_t limit,
                          int (*cb)(void *payload, const mn_file_hit *h), void *payload);

/**
 * This project's indexed files whose history (the subjects of the commits
 * that changed them: schema v7) matches match, best first; bm25 over those
 * documents.
 */
int mn_store_history_files(mn_store *s, const char *match, size_t limit,
                           int (*cb)(void *payload, const mn_file_hit *h), void *payload);

/**
 * This project's files that only declare error and annotation types
 * (files.decl_only, schema v18; index/decl_only.h), by id, in no order.
 */
int mn_store_decl_only_files(mn_store *s, int (*cb)(void *payload, int64_t file_id), void *payload);

/** Chunks of this project by id (bm25 0), in the order given; unknown ids are skipped. */
int mn_store_chunks_by_id(mn_store *s, const int64_t *ids, size_t n, mn_chunk_hit_cb cb,
                          void *payload);

/** The body of a memory by row (malloc'd; "" when it has none; MN_ENOTFOUND). */
int mn_store_memory_body(mn_store *s, char **out, int64_t rowid);
/** The text of a chunk (malloc'd), e.g. to show its first lines. */
int mn_store_chunk_text(mn_store *s, char **out, int64_t chunk_id);

/* ---- the index, as the ranking needs it ---- */

/** One definition of a symbol, found by name. */
typedef struct {
    int64_t id, file_id;
    const char *name, *qualified_name, *kind, *path, *role;
    int64_t start_line, end_line;
} mn_symbol_def;

/**
 * Definitions whose name or qualified name is exactly one of names (case
 * sensitive), in this project; `which` is the index into names that matched.
 */
int mn_store_symbols_named(mn_store *s, const char *const *names, size_t n,
                           int (*cb)(void *payload, size_t which, const mn_symbol_def *d),
                           void *payload);

/**
 * The resolved neighbours of a set of files, both ways: imports between
 * files, and calls and inherits between their symbols lifted to files.
 * cb gets (seed file, other file, summed weight, outgoing); self-pairs are
 * left out. At most `limit` edges are read in all (0: MN_SEARCH_MAX_CANDIDATES
 * * 50), a quarter of each seed's share per direction: for a hub file whose
 * callers are everywhere, a sample (the first in index order).
 */
/** The edges each seed may read per direction in mn_store_file_neighbours (limit 0: the default).
 */
static inline size_t mn_store_neighbour_share(size_t limit, size_t n)
{
    if (limit == 0)
        limit = (size_t)MN_SEARCH_MAX_CANDIDATES * 50;
    size_t share = limit / (4 * n);
    return share ? share : 1;
}
int mn_store_file_neighbours(mn_store *s, const int64_t *files, size_t n, size_t limit,
                             int (*cb)(void *payload, int64_t seed, int64_t other, double weight,
                                       bool outgoing),
                             void *payload);

/**
 * What the index of this project looks like now, in a few numbers that any
 * index run changing the files, symbols or edges moves: the files (count,
 * highest id, latest indexed_at: a re-indexed file gets a new one, and its
 * symbols and edges new ids), the highest symbol and edge ids, and which
 * store file and project they are of. Caches of what plan and search read
 * of the index (retrieve/index_cache.c) hold while it is equal.
 */
typedef struct {
    uint64_t store; /* the store file's path and the project, hashed */
    int64_t files, max_file, indexed_at, max_symbol, max_edge;
} mn_index_stamp;

int mn_store_index_stamp(mn_store *s, mn_index_stamp *out);

/** Files of this project by id (those that exist), as mn_store_files_each reports them. */
int mn_store_files_by_id(mn_store *s, const int64_t *ids, size_t n,
                         int (*cb)(void *payload, const mn_file_rec *f), void *payload);

/**
 * The files a file imports (its import edges resolved to a file of the
 * project), by the importing file's path: a package's __init__.py says
 * which modules its names come from. None when the path is not indexed.
 */
int mn_store_file_imports(mn_store *s, const char *path, int (*cb)(void *payload, int64_t file_id),
                          void *payload);

/* ---- served answers and feedback ---- */

/**
 * Whether nothing can be written to the store (opened read-only, or its
 * file, directory or file system is read-only: mn_store_read_only_reason).
 */
bool mn_store_read_only(const mn_store *s);

/** Record an answer served (op, query, items as JSON); *out its id. Needs a transaction. */
int mn_store_served_add(mn_store *s, int64_t *out, const char *op, const char *query,
                        const json_t *items);
/**
 * Forget served answers of this project older than max_age_ms (0: no age
 * limit) or beyond the newest max_rows (0: no count limit); their feedback
 * rows stay, with served_id NULL. Needs a transaction. added: the id of the
 * row just added, with which the count is checked on one add in
 * max_rows / 256 (the check steps max_rows index entries: amortized, ~256
 * a call), so up to that many rows more are kept for a while; 0: now.
 */
int mn_store_served_prune(mn_store *s, int64_t now_ms, int64_t max_age_ms, int64_t max_rows,
                          int64_t added);
/**
 * A served answer as {id, op, query, ts, items, session?} (new reference):
 * MN_ENOTFOUND when unknown.
 */
int mn_store_served_get(mn_store *s, json_t **out, int64_t id);

/* served_store.c (schema v8): answers of an agent session */

/** Name the agent session an answer was served in (served.session). */
int mn_store_served_set_session(mn_store *s, int64_t id, const char *session);
/** Whether session had an answer of op served already. */
int mn_store_served_session_seen(mn_store *s, const char *session, const char *op, bool *out);
/**
 * The answers served in session and not settled yet, oldest first, each
 * to cb as mn_store_served_get gives it (borrowed); a non-zero return
 * stops and is returned.
 */
int mn_store_served_open(mn_store *s, const char *session, int (*cb)(void *payload, json_t *a),
                         void *payload);
/** The newest answers of this project, newest first, at most limit, as mn_store_served_open. */
int mn_store_served_recent(mn_store *s, size_t limit, int (*cb)(void *payload, json_t *a),
                           void *payload);
/** Mark an answer settled (its session's Stop counted it). Needs a transaction. */
int mn_store_served_settle(mn_store *s, int64_t id, int64_t now_ms);
/** Whether feedback on this item of this answer was recorded already (any signal). */
int mn_store_feedback_has(mn_store *s, int64_t served_id, const char *item_kind,
                          const char *item_id, bool *out);

/**
 * Record feedback on one item of a served answer (served_id 0: none) and,
 * for a memory, move its counters: used -> used_count + 1, ignored ->
 * ignored_count + 1, refined -> neither (the query was rephrased). session:
 * the agent session of implicit feedback (NULL: explicit); query: the new
 * query of refined (NULL: none). Needs a transaction. MN_ENOTFOUND when a
 * memory item does not exist.
 */
int mn_store_feedback_add(mn_store *s, int64_t served_id, const char *actor, const char *item_kind,
                          const char *item_id, const char *signal, const char *note,
                          const char *session, const char *query);

/** hit_count + 1 and accessed_at = now for these memories (served). Needs a transaction. */
int mn_store_memories_touch(mn_store *s, const int64_t *rowids, size_t n, int64_t now_ms);

#endif
