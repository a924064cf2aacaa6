/*
 * retrieve_internal.h - what the files of src/retrieve/ share: the analysed
 * query, the candidate tables the signals fill, and the steps of the
 * pipeline (retrieve.h describes it).
 */
#ifndef MN_RETRIEVE_INTERNAL_H
#define MN_RETRIEVE_INTERNAL_H

#include "retrieve/retrieve.h"
#include "retrieve/semantic.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

/* ---- the query (query.c) ---- */

typedef enum {
    MN_MENTION_NAME,      /* an identifier: a symbol's name */
    MN_MENTION_QUALIFIED, /* Class.method: the end of a qualified name */
    MN_MENTION_PATH,      /* a file path (or its tail, or a file name) */
    MN_MENTION_MODULE,    /* a dotted module name as a path without extension: a/b/c */
    MN_MENTION_OPTION,    /* a command-line option as typed: "--tb", "-x" (query.c: cli_options) */
} mn_mention_kind;

typedef struct {
    mn_mention_kind kind;
    const char *text;
    double strength; /* how surely the text names code: ~0.25 a prose word .. 2 a traceback path */
    int count;       /* occurrences */
    int frame;       /* 1-based position among traceback frames, 0 if not from one */
    int link; /* a path from a link to the source (.../blob/<ref>/path): 1, to a line (#L12): 2 */
} mn_mention;

#define MN_QUERY_MAX_MENTIONS 256
#define MN_QUERY_MAX_WORDS    64 /* words of the full-text query */

/* One word of the query on its own, for the per-term signals. */
typedef struct {
    const char *word;  /* surface form */
    const char *match; /* its FTS5 expression */
    double weight;     /* title, code shape, repetition (query.c) */
    bool in_title;
} mn_query_term;

#define MN_QUERY_OWN_TERMS    24 /* terms whose ownership is measured */
#define MN_QUERY_MAX_MESSAGES 4  /* error messages kept, first first */
#define MN_QUERY_MESSAGE_MIN  4  /* words of a message run, at least */
#define MN_QUERY_MAX_ALIASES  8  /* "import x as y" lines kept, first first */

typedef struct {
    const char *text;
    size_t len;
    mn_query_term *terms; /* arena, every word of match, best first */
    size_t nterms;
    mn_mention *mentions; /* arena */
    size_t nmentions;
    int nframes;
    bool about_tests;         /* the query talks about tests */
    char *match;              /* FTS5 expression of the query's words (arena); NULL: none */
    char *title_match;        /* of its first line, when it is a title above more text; else NULL */
    const char **title_terms; /* title_match's terms, each its FTS5 expression (arena) */
    size_t ntitle_terms;
    size_t nwords; /* words in match */
    /* error messages quoted from an exception line ("ValueError: ..."): the
     * longest run of plain words of each, space-separated (arena) */
    const char *messages[MN_QUERY_MAX_MESSAGES];
    size_t nmessages;
    /* the query's own "import xarray as xr": alias -> module (arena), for xr.where */
    struct {
        const char *alias, *module;
    } aliases[MN_QUERY_MAX_ALIASES];
    size_t naliases;
} mn_query_info;

/** Analyse text: the full-text query and the code it mentions. */
int mn_query_analyse(mn_query_info *q, const char *text, size_t len, mn_arena *arena);

/* A frame of a stack trace of another language than Python (query_trace.c); pointers into the line.
 */
typedef struct {
    const char *path; /* the file, as printed (a Java frame: its name alone) */
    size_t path_len;
    const char *package; /* a Java frame: its class's package, dotted (the file's directory) */
    size_t package_len;
    const char *func, *owner; /* the function and its type (NULL: none) */
    size_t func_len, owner_len;
} mn_trace_frame_info;

/**
 * A frame of a Java, Kotlin, C#, JavaScript, Go, Rust, C or C++ trace, or a
 * compiler's error location. l..end: one line; prev..prev_end: the line
 * before (Go prints a frame's function there), NULL at the first.
 * 1: a frame of a trace printed innermost first; 2: a location on its own
 * (rustc's "--> a.rs:1:2", Rust's panic); 0: none.
 */
int mn_trace_frame(const char *l, const char *end, const char *prev, const char *prev_end,
                   mn_trace_frame_info *out);

/**
 * An error line of these languages. Returns where the exception line
 * proper starts after a prefix ("Caused by: ", "Uncaught ", "Exception in
 * thread "main" "), or, with *message set, where a message starts that
 * needs no exception name (Go's "panic: ", "error[E0308]: ", "Error: ",
 * "a.cpp:1:2: error: ") and *msg_end where it ends; l when neither. An
 * empty message (Rust's panic since 1.73: "thread 'main' panicked at
 * src/x.rs:10:5:") says the message is on the next line.
 */
const char *mn_trace_error(const char *l, const char *end, bool *message, const char **msg_end);

/** Strength of an identifier's shape alone (snake_case, camelCase...): 0..1. */
double mn_query_code_shape(const char *w, size_t len);

/* ---- candidates ---- */

typedef struct {
    int64_t id; /* file id */
    const char *path, *role;
    /* raw evidence */
    double lex;        /* decayed sum of its chunks' bm25 */
    double lex_best;   /* its best chunk's bm25 */
    double lex_weight; /* decay^i of the last chunk added */
    int nchunks;
    int64_t best_chunk;
    double title; /* decayed sum of its chunks' bm25 for the title's words */
    double title_weight;
    double path_lex; /* bm25 of the query's words over its path */
    double own;      /* share of the query terms' occurrences that are in this file */
    double semantic; /* its best chunk's cosine to the query */
    double named;    /* symbols the query names, defined here */
    double path_hit; /* the query names this file's path */
    bool path_named; /* ... outside a traceback frame (a test file named, not a caller) */
    bool decl_only;  /* declares only error and annotation types (index/decl_only.h) */
    double fault;    /* the deepest traceback frame in the repository is here (1 / files matched) */
    double message;  /* holds an error message the query quotes (1 / files holding it) */
    double graph;    /* spread from matched neighbours */
    double scope;    /* in the request's files / paths */
    double history;  /* bm25 of its commits' subjects (history_signal.c) / the best file's */
    double score;
    mn_signals sig;
} mn_file_cand;

typedef struct {
    int64_t id, file_id, symbol_id;
    int64_t start_line, end_line;
    const char *path, *role, *symbol, *qualified_name, *symbol_kind;
    double bm25;
    double semantic; /* cosine to the query (semantic.h), 0 when not among the nearest */
    double named;    /* the query names its symbol */
    double score;
    mn_signals sig;
} mn_chunk_cand;

typedef struct {
    int64_t rowid;
    const char *uid, *kind, *status, *title;
    int level;
    double bm25;
    double semantic;
    int64_t created_at, updated_at;
    int64_t accessed_at; /* last served (0: never): a recent hit counts as recent (fusion.c) */
    int64_t hits, used, ignored;
    bool stale;
    double graph; /* attached to a matched file */
    double scope;
    const char *conversation; /* an episode's session (mn_memory_hit), or NULL */
    double conv_doc;          /* its conversation as one document, BM25 / best (conversation.c) */
    double speaker;           /* an episode said by someone the query names (speaker.c) */
    double when;   /* in the time the query names: 0.5 created in it, 0.5 tells of it (when.c) */
    bool labelled; /* an episode whose title starts with a speaker label */
    /* discovery's summary of directories: their JSON array (scope paths); else NULL */
    const char *summary_of;
    double score;
    mn_signals sig;
} mn_memory_cand;

typedef struct {
    mn_store *store;
    const mn_search_request *req;
    mn_query_info q;
    mn_arena *arena;
    int64_t now_ms;
    MN_VEC(mn_memory_cand) memories;
    MN_VEC(mn_chunk_cand) chunks;
    MN_VEC(mn_file_cand) files;
    struct mn_file_slot *file_slots; /* file id -> index + 1 into files (lexical.c) */
    size_t file_cap, file_n;         /* slots (a power of two, at most half full), used */
    const char *semantic_note;       /* why there is no semantic signal, or NULL */
    mn_semantic_query sq;            /* the query's vector (semantic_signal.c) */
    mn_semantic_job *sem;            /* the scan of the stored vectors, under way or done */
    bool when;                       /* the query names a time (when.c): memories have the signal */
} mn_search_ctx;

/* lexical.c */
int mn_lexical_memories(mn_search_ctx *c, size_t limit);
int mn_lexical_chunks(mn_search_ctx *c, size_t limit);
int mn_lexical_title(mn_search_ctx *c, size_t limit);
int mn_lexical_paths(mn_search_ctx *c, size_t limit);
/* The AND of a query's rarest words (lexical.c): how many (words), the
 * rows they are estimated to match (est) and the newest share of the rows
 * to look at (share, 0: all; only when asked for: memories) */
/* rows it should still match (estimated) */
#define MN_AND_MIN_ROWS 300
/* posting-list entries it reads (~40 ns each, 1/40 of ranking a row) */
#define MN_AND_POSTING_BUDGET 32000
typedef struct {
    size_t words;
    double est, share;
} mn_and_plan;
/* counts: the words' matches, rarest first, each above budget for counts[0] */
mn_and_plan mn_lexical_and_plan(const int64_t *counts, size_t n, int64_t ndocs, double budget,
                                bool newest);
/* *out: match (the query's or its title's words, OR-ed) without the words
 * in half of table's rows or more, which bm25() scores 0; match itself when
 * none or all of them are such words */
int mn_lexical_scoring_match(mn_search_ctx *c, mn_fts_table table, bool title, const char *match,
                             const char **out);
int mn_lexical_ownership(mn_search_ctx *c);
/* The file candidate of a file id (created on first use; path and role may be NULL then). */
mn_file_cand *mn_search_file(mn_search_ctx *c, int64_t id, const char *path, const char *role);
/* The candidate of file id, or NULL when no signal has met it. */
mn_file_cand *mn_search_file_find(const mn_search_ctx *c, int64_t id);
/* A memory hit added to the candidates (its strings copied to the arena, its scope measured,
 * its bm25 the hit's); the caller checks it is not there yet and sets its own signal. */
mn_memory_cand *mn_search_memory(mn_search_ctx *c, const mn_memory_hit *h);
/* a and b name the same file, or one is a directory above the other (fusion.c) */
bool mn_paths_overlap(const char *a, const char *b);

/*
 * semantic_signal.c: the nearest memories and chunks by vector (nothing
 * when no embedder). start embeds the query and starts the scan of the
 * stored vectors on another thread; candidates merges its rows (after the
 * lexical ones, which it scores too); end frees both, whatever happened.
 */
int mn_semantic_start(mn_search_ctx *c, unsigned kinds, size_t limit);
int mn_semantic_candidates(mn_search_ctx *c, unsigned kinds);
void mn_semantic_end(mn_search_ctx *c);

/* conversation.c: each candidate's conversation scored as one document (conv_doc) */
int mn_conversation_docs(mn_search_ctx *c);

/* speaker.c: each episode's speaker (the label its title starts with) named by the query */
void mn_speaker_signal(mn_search_ctx *c);
/* Files: the history signal (history_signal.c), on the candidates found so far. */
int mn_history_signal(mn_search_ctx *c);
/* The speaker label title starts with ("Melanie: hi" -> "Melanie"): its length, 0 if none. */
size_t mn_speaker_label(const char *title, const char **start);
/* The share of the label's words (2+ characters) that are whole words of query, case folded. */
double mn_speaker_named(const char *label, size_t n, const char *query, size_t qlen);

/*
 * when.c: the window of time the query points at ("last Saturday", "two
 * weeks ago", "in March"), from now_ms, in ms: [*from, *to). false: none.
 */
bool mn_when_window(const char *query, int64_t now_ms, int64_t *from, int64_t *to);
/*
 * query without the words of the time expressions mn_when_window reads in
 * it ("in the past two weeks", "last Saturday", "on March 4"), into out;
 * false (out unspecified) when it names no time or nothing else is left.
 */
bool mn_when_strip(const char *query, int64_t now_ms, mn_buf *out);
/*
 * true when text, said at said_ms, dates something it tells inside the
 * window [from, to) of mn_when_window: one of its own time expressions
 * ("today", "last Saturday", "on March 4"), counted from said_ms, has its
 * middle in the window (its slack left out).
 */
bool mn_when_told(const char *text, int64_t said_ms, int64_t from, int64_t to);
/* the time signal (when) of each memory candidate, and the memories created in the window */
int mn_when_signal(mn_search_ctx *c);

/* graph.c */
int mn_graph_named_code(mn_search_ctx *c);
int mn_graph_spread(mn_search_ctx *c);
int mn_graph_attached_memories(mn_search_ctx *c);
int mn_graph_scoped_memories(mn_search_ctx *c);
int mn_graph_episodes(mn_search_ctx *c);

/* snippet.c: the window of text (prose or code) around the query's words (arena). */
const char *mn_snippet(mn_search_ctx *c, const char *text, bool code);

/* fusion.c */
/** 1 when a memory's scope paths (JSON) meet the request's files or a path the query names. */
double mn_fusion_memory_scope(const mn_search_ctx *c, const char *scope_paths);
void mn_fusion_files_pre(mn_search_ctx *c);
void mn_fusion_memories(mn_search_ctx *c);
void mn_fusion_chunks(mn_search_ctx *c);
void mn_fusion_files(mn_search_ctx *c);
/** A C or C++ header and its source rank together: each at least 0.95 of the other (companion.c).
 */
void mn_companions(mn_search_ctx *c);

#endif
