/*
 * eval.h - what the dataset benches (bench_locomo, bench_longmemeval,
 * bench_swebench) share: loading the datasets' JSON, timing and
 * percentiles, retrieval metrics, the per-category report (a table and a
 * JSON summary), the plain BM25 baseline, and a throw-away mnemo store.
 *
 * Two systems are measured side by side in one run: EV_MNEMO (the mnemo
 * library through mn_api_call) and EV_BM25 (SQLite FTS5 with the
 * unicode61 tokenizer and bm25() ranking, in memory). Rankings are arrays
 * of int64 item numbers chosen by each bench (a turn, a session, a file);
 * -1 stands for a returned item the bench cannot map (it takes a rank and
 * matches nothing, so it is never silently skipped).
 *
 * Built as the static library mnemo_eval (bench/CMakeLists.txt) and linked
 * into every bench_* program.
 */
#ifndef MN_BENCH_EVAL_H
#define MN_BENCH_EVAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mnemo/api.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

enum { EV_MNEMO = 0, EV_BM25 = 1, EV_NSYS = 2 };

/* ---- input ---- */

/** A JSON document (json) or a JSON Lines file as an array (jsonl); NULL with a message. */
json_t *ev_load_json(const char *path);
json_t *ev_load_jsonl(const char *path);
/** A string member, or "" when absent or not a string. */
const char *ev_str(const json_t *obj, const char *key);

/* ---- time ---- */

/** CLOCK_MONOTONIC in nanoseconds. */
uint64_t ev_now_ns(void);
static inline double ev_ms_since(uint64_t t0)
{
    return (double)(ev_now_ns() - t0) / 1e6;
}

typedef MN_VEC(double) ev_samples;
/** The sorted sample at rank round(p * (n - 1)) (p in [0, 1]); 0 when empty. */
double ev_percentile(const ev_samples *s, double p);
double ev_mean(const ev_samples *s);
double ev_sum(const ev_samples *s);

/** Tokens of text as counted everywhere in the benches: ceil(bytes / 4). */
static inline size_t ev_tokens(size_t bytes)
{
    return (bytes + 3) / 4;
}

/* ---- metrics on one ranking (see eval_common.c for the formulas) ---- */

/** Distinct gold ids among the first k of rank[0..n). gold holds distinct ids. */
size_t ev_hits(const int64_t *rank, size_t n, size_t k, const int64_t *gold, size_t ngold);

typedef enum {
    EV_DCG_STANDARD, /* rel_i / log2(i + 1), i = 1.. (Jarvelin-Kekalainen, trec_eval) */
    EV_DCG_LME       /* rel_1 + sum_{i>=2} rel_i / log2(i): LongMemEval's eval_utils.py */
} ev_dcg;
/** Binary-relevance NDCG@k; ideal = min(ngold, k) relevant items first. 0 when ngold is 0. */
double ev_ndcg(const int64_t *rank, size_t n, size_t k, const int64_t *gold, size_t ngold,
               ev_dcg style);
/**
 * Map a ranking through map[] (e.g. turn -> session) and keep first
 * occurrences: out gets the distinct mapped ids in order (-1 stays -1 and
 * is kept each time, an unknown item). Returns the length of out.
 */
size_t ev_rank_map(int64_t *out, const int64_t *rank, size_t n, const int64_t *map, size_t nmap);
/** Remove later duplicates from a ranking in place (-1 entries kept); returns the new length. */
size_t ev_rank_dedup(int64_t *rank, size_t n);

/* ---- the report ---- */

typedef struct {
    double sum[EV_NSYS];
    size_t n[EV_NSYS];
} ev_cell;

typedef struct {
    char *label;
    size_t questions;
    ev_cell *cells; /* one per metric */
} ev_group;

typedef struct {
    const char *bench;   /* "locomo" */
    const char *dataset; /* the input path */
    char **metrics;      /* row names, in order */
    size_t nmetrics;
    MN_VEC(ev_group) groups; /* groups.items[0] is "all" */
    bool available[EV_NSYS];
    ev_samples latency[EV_NSYS]; /* query latency, ms */
    ev_samples tokens[EV_NSYS];  /* tokens of the first tokens_k items of each answer */
    size_t tokens_k;
    MN_VEC(char *) lines;    /* extra lines printed under the table */
    MN_VEC(char *) notes;    /* remarks (skipped inputs, errors), printed and in JSON */
    MN_VEC(char *) unscored; /* "<unit>: <reason>": units that could not be scored */
    json_t *extra;           /* bench-specific members of the JSON summary */
    size_t errors;           /* failed mnemo calls */
} ev_report;

void ev_report_init(ev_report *r, const char *bench, const char *dataset,
                    const char *const *metrics, size_t nmetrics);
void ev_report_release(ev_report *r);
/** Count one scored question in group (created on first use) and in "all". */
void ev_report_question(ev_report *r, const char *group);
/** Add one value of metric for sys, to group and to "all". */
void ev_report_add(ev_report *r, const char *group, const char *metric, int sys, double v);
/** Mean of a metric over group ("all" for overall) for sys; NAN when it has no value. */
double ev_report_mean(const ev_report *r, const char *group, const char *metric, int sys);
void ev_report_line(ev_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ev_report_note(ev_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/**
 * A unit (question, instance) that could not be scored: said on stderr at
 * once ("<prog>: not scored: <unit>: <reason>"), listed by ev_report_print
 * and in the JSON summary (not_scored). The run goes on without it.
 */
void ev_report_unscored(ev_report *r, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** The table: metrics by group, mnemo and bm25 side by side; then latency, tokens, lines, notes. */
void ev_report_print(const ev_report *r, FILE *f);
/** The table alone (a second scoring of the same run, say). */
void ev_report_print_table(const ev_report *r, FILE *f);
/** The machine-readable summary (a new reference). */
json_t *ev_report_json(const ev_report *r);

/**
 * A target of the issue checked on mnemo's overall or per-group mean:
 * prints "target NAME >= MIN: mnemo X (bm25 Y) PASS|FAIL" and returns
 * false on FAIL (true when mnemo did not run: nothing to judge).
 */
bool ev_report_target(const ev_report *r, FILE *f, const char *group, const char *metric,
                      double min);

/* ---- command line ---- */

typedef struct {
    const char *input;  /* the dataset path (first positional) */
    const char *repos;  /* --repos DIR (SWE-bench) */
    size_t limit;       /* --limit N: first N units (0: all) */
    size_t sample;      /* --sample N (SWE-bench): N units spread over the repositories */
    size_t k;           /* --k N: items asked of each search (0: the bench's default) */
    bool only_baseline; /* --only-baseline */
    bool verbose;       /* --verbose: per-question misses on stderr */
    bool json;          /* --json: summary on stdout, table on stderr */
    bool strict;        /* --strict: exit 1 when a target fails */
    bool keep;          /* --keep: keep temporary stores (their paths are printed) */
    const char *stores; /* --stores DIR (SWE-bench): index once into DIR, later runs reuse */
    size_t min_free_gb; /* --min-free GB (SWE-bench, with --stores): new stores are kept only
                           while the disk of DIR has this much free; 0: the default, 5 */
    bool no_captions;   /* --no-captions (LoCoMo) */
    bool all_files;     /* --bm25-files all (SWE-bench; default code) */
    const char *db;     /* --db URL: the PostgreSQL database of the stores (ev_store_location) */
} ev_options;

/**
 * Parse the options every eval bench takes. Returns 0, 1 when the program
 * should exit 0 at once (--help, or no input: the skip note is printed),
 * or 2 on a usage error (message printed).
 */
int ev_parse_args(ev_options *o, int argc, char **argv, const char *prog, const char *usage,
                  const char *env_input);
/* A bench's own option "NAME FILE" taken out of argv (*argc shrinks) before
 * ev_parse_args: *value is FILE, or stays NULL when absent. -1 when NAME has no
 * FILE after it (said on stderr with the usage). */
int ev_take_option(int *argc, char **argv, const char *name, const char **value, const char *prog,
                   const char *usage);

/* ---- the BM25 baseline (eval_bm25.c) ---- */

typedef struct ev_bm25 ev_bm25;
/** An in-memory FTS5 table with ncols text columns, tokenize='unicode61'. */
int ev_bm25_open(ev_bm25 **out, size_t ncols);
void ev_bm25_close(ev_bm25 *b);
/** Add a document with rowid id; cols[i] may be NULL (empty). Inside one transaction until the
 * first search. */
int ev_bm25_add(ev_bm25 *b, int64_t id, const char *const *cols);
/**
 * The query built from text: its distinct unicode61 tokens (first
 * occurrences, at most max_tokens when not 0), each quoted, joined by OR.
 * *ntokens gets the count; an empty query when text has no token.
 */
int ev_bm25_query_text(ev_bm25 *b, mn_buf *out, const char *text, size_t max_tokens,
                       size_t *ntokens);
/** Up to k rowids by bm25() (best first, ties by rowid) into ids; *n gets the count. */
int ev_bm25_search(ev_bm25 *b, const char *text, size_t max_tokens, size_t k, int64_t *ids,
                   size_t *n);

/* ---- a throw-away mnemo store (eval_mnemo.c) ---- */

typedef struct {
    char *dir; /* the directory the store sits in (<dir>/.mnemo/mnemo.db) */
    char *db;
    mn_ctx *ctx;
} ev_store;

/** mkdtemp under $TMPDIR (or /tmp): "<prefix>-XXXXXX"; malloc'd path or NULL with a message. */
char *ev_mkdtemp(const char *prefix);
/** rm -rf (no symlinks followed). */
void ev_rm_rf(const char *path);
/**
 * Where ev_store_open makes its stores (--db): a PostgreSQL database (a URL
 * or conninfo: each store a new project in it, named "bench-<pid>-<n>";
 * give a fresh database, the projects stay). NULL (the default): a SQLite
 * file in each store's directory.
 */
void ev_store_location(const char *db);
/**
 * A new store in dir (mn_init_at; or a project of --db's database), its
 * context, memory.dedup off, and embed.provider = $MNEMO_BENCH_EMBED_PROVIDER
 * when set (off: lexical signals only).
 */
int ev_store_open(ev_store *s, const char *dir);
/**
 * ev_store_open, but on --db's database the project is "bench-<name>" (at
 * most 57 bytes of name), the same in every run: a store kept across runs
 * (bench_swebench --stores) is found again. NULL: as ev_store_open.
 */
int ev_store_open_named(ev_store *s, const char *dir, const char *name);
/** Close the context; remove dir too when remove is set. */
void ev_store_close(ev_store *s, bool remove);
/** mn_api_call; on failure prints "<bench>: <op>: <message>" on stderr. */
int ev_call(ev_store *s, const char *op, const json_t *args, json_t **out);
/** True when this build of mnemo has the search operation. */
bool ev_search_available(void);
/** The longest query search accepts (its schema's query.maxLength), or `fallback`. */
size_t ev_search_query_max(size_t fallback);
/** Bytes of the text an item returns to its caller: title + snippet. */
size_t ev_item_bytes(const json_t *item);
/** Op search with args, timed (*ms: the mn_api_call alone). */
int ev_search(ev_store *s, const json_t *args, json_t **out, double *ms);
/**
 * The ranking of a search result: for each item in order, ids[item.member]
 * (the map's values are id + 1, as uintptr_t), or -1 when the map has no
 * such key. At most max entries; *bytes (if not NULL) gets
 * ev_item_bytes summed over the first tokens_k items. Returns the count.
 */
size_t ev_items_rank(const json_t *result, const char *member, const mn_map *ids, int64_t *rank,
                     size_t max, size_t tokens_k, size_t *bytes);

#endif
