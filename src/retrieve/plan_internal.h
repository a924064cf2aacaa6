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
} plan_run;

/* plan.c: a line of the trace (printf-like, kept in the arena) */
void plan_trace(plan_run *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* plan.c: the index of a term (its normal form), or -1 */
int plan_term_of(plan_run *p, const char *tok, size_t len);

/* plan_graph.c: tiers A, B and C, the noise filter and the cap: p->files, best graph first */
int plan_graph_candidates(plan_run *p);

/* plan_semantic.c: the semantic stage over the first sem_cap candidates */
int plan_semantic(plan_run *p);

/* role helpers */
bool plan_role_is_aux(const char *role); /* test, doc, config */

#endif
