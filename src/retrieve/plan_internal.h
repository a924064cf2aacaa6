/*
 * plan_internal.h - what the parts of `plan` share (plan.c, plan_graph.c,
 * plan_semantic.c): the task's terms and the run's state.
 */
#ifndef MN_RETRIEVE_PLAN_INTERNAL_H
#define MN_RETRIEVE_PLAN_INTERNAL_H

#include "retrieve/plan.h"
#include "retrieve/retrieve_internal.h"
#include "util/map.h"
#include "util/vec.h"

#define PLAN_PREFIX    3  /* bytes of a term the prefilter looks for */
#define PLAN_MAX_TERMS 48 /* distinct terms of the task kept (a bit each in a uint64_t) */

/* One term of the task: its normal form (the index's tokenizer), a surface word, a weight. */
typedef struct {
    const char *term;    /* stemmed, case-folded (text/tokenize.h) */
    const char *surface; /* a word of the task it came from, for ripgrep */
    double weight;       /* the query analysis' weight of that word */
} plan_term;

typedef struct {
    mn_store *store;
    const mn_plan_request *req;
    mn_arena *arena;
    mn_query_info q;
    plan_term terms[PLAN_MAX_TERMS];
    size_t nterms;
    mn_map term_index; /* term -> index + 1 */
    bool about_tests, about_docs;
    MN_VEC(mn_plan_file) files; /* candidates */
    MN_VEC(const char *) trace;
    const char *backend;
    size_t cap, sem_cap;
    /* the prefilter (plan_maybe_terms): a bit per byte pair that starts a term's prefix, and
     * for each such pair its terms (pair_head: index + 1 of the first, pair_next: of the next) */
    uint64_t pairs[65536 / 64];
    uint8_t *pair_head; /* 65536 entries, in the arena */
    uint8_t pair_next[PLAN_MAX_TERMS];
    struct plan_word_memo *words; /* plan_semantic.c: the task's terms in each word seen */
} plan_run;

/*
 * plan_scan.c: a file's text as the built-in scorer reads it, kept between
 * plans (keyed by the bytes' hash): the lines that can hold a term (ASCII
 * lines with a word of two bytes or more, each with its words' ids; every
 * non-ASCII line, to be tokenized whole), in order.
 */
typedef struct {
    uint32_t start, end;    /* [start, end) of the text, without the newline */
    uint32_t word0, nwords; /* ids[word0 .. word0 + nwords) */
    bool ascii;
} plan_scan_line;

typedef struct {
    const plan_scan_line *lines;
    size_t nlines;
    const uint32_t *ids;
} plan_scan_view;

typedef struct plan_scan_entry plan_scan_entry;

/* The view of text (the bytes just read of root_real/path), pinned in *pin until
 * plan_scan_release; NULL (and *pin NULL) when it cannot be kept: scan the text itself. */
const plan_scan_view *plan_scan_get(const char *root_real, const char *path, const char *text,
                                    size_t len, plan_scan_entry **pin);
void plan_scan_release(plan_scan_entry *e);
/* A word's terms (each NUL-terminated, then an empty one), for an id of a pinned view. */
const char *plan_scan_word_terms(uint32_t id);
/* The terms of a short text tokenized whole (as plan_scan_word_terms gives them), kept for the
 * process; NULL when it cannot be kept (over 255 bytes, a NUL in it, the table full). */
const char *plan_scan_text_terms(const char *s, size_t n);
/* plan_scan.c: an mn_tokenize callback putting each term but an identifier's whole into the
 * mn_buf payload, NUL-terminated (the lists plan_scan_word_terms gives) */
int plan_term_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                    int colocated);
/* plan_semantic.c: the bits of the task's terms among such a list of terms */
uint64_t plan_terms_bits(plan_run *p, const char *terms);

/* plan.c: a line of the trace (printf-like, kept in the arena) */
void plan_trace(plan_run *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * plan.c: whether [s, s+n) may hold one of the task's terms: some term's
 * first PLAN_PREFIX bytes (case-folded) occur in it. A stem is a prefix of
 * the lower-cased word in the tokenizers of text/ (snake_case and
 * camelCase pieces included), so false means no term: the text need not
 * be tokenized.
 */
bool plan_maybe_terms(const plan_run *p, const char *s, size_t n);
/* plan.c: the index of a term (its normal form), or -1 */
int plan_term_of(plan_run *p, const char *tok, size_t len);
/**
 * An mn_tokenize callback: ORs into *(uint64_t *)payload[1] the bit of each
 * of the task's terms (plan_term_of on payload[0]) the text holds; the
 * whole-identifier token is skipped (its pieces are what the task's terms are).
 */
int plan_term_bits_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                         int colocated);

/* plan_graph.c: tiers A, B and C, the noise filter and the cap: p->files, best graph first */
int plan_graph_candidates(plan_run *p);

/* plan_semantic.c: the semantic stage over the first sem_cap candidates */
int plan_semantic(plan_run *p);

/* role helpers */
bool plan_role_is_aux(const char *role); /* test, doc, config */

#endif
