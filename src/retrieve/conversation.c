/*
 * conversation.c - an episode's conversation (its session: the same
 * session reference, else the same situation) scored as one document
 * against the query, for the conversation signal of fusion.c.
 *
 * BM25 over whole sessions finds the session that holds the question's
 * words in different turns ("who became a parent first, Rachel or Alex?":
 * Rachel in one turn, the child in another), which the best single turn
 * misses. The store indexes turns, not sessions, so the session's term
 * frequency is counted from the turns: for each word of the query, rarest
 * first, while their matches add up to at most CONV_ROWS (the cost: each
 * match is read; the words left out are the most common ones, which say
 * least of a session) and CONV_TERMS words, the memories holding it,
 * grouped by conversation:
 *   tf(g, t)  = turns of g holding t
 *   doc(g)    = sum_t idf_t (k1 + 1) tf / (tf + k1),   k1 = 1.2
 *   idf_t     = ln(1 + (N - df_t + 0.5) / (df_t + 0.5))  (df over memories)
 * (no length normalisation: a session's length in turns is not known
 * without reading it). doc(g) / max doc goes to every candidate of g.
 */
#include "common.h"
#include <math.h>

#include "retrieve/retrieve_internal.h"

#define CONV_TERMS 16
#define CONV_ROWS  500
#define CONV_K1    1.2

typedef struct {
    int tf[CONV_TERMS];
} conv_tf;

typedef struct {
    mn_map index; /* conversation -> index + 1 into tfs */
    MN_VEC(conv_tf) tfs;
    size_t term;
} conv_acc;

static int on_conversation(void *payload, const char *conversation, int64_t n)
{
    conv_acc *a = payload;
    size_t at = (size_t)(uintptr_t)mn_map_get(&a->index, conversation);
    if (!at) {
        conv_tf z;
        memset(&z, 0, sizeof(z));
        mn_vec_push(&a->tfs, z);
        at = a->tfs.len;
        mn_map_set(&a->index, conversation, (void *)(uintptr_t)at);
    }
    a->tfs.items[at - 1].tf[a->term] = (int)n;
    return 0;
}

typedef struct {
    const char *match;
    int64_t df;
} conv_term;

static int cmp_df(const void *x, const void *y)
{
    int64_t a = ((const conv_term *)x)->df, b = ((const conv_term *)y)->df;
    return a < b ? -1 : a > b;
}

int mn_conversation_docs(mn_search_ctx *c)
{
    bool any = false;
    for (size_t i = 0; i < c->memories.len && !any; i++)
        any = c->memories.items[i].conversation != NULL;
    if (!any || c->q.nterms == 0)
        return 0;
    conv_acc a = {MN_MAP_INIT, MN_VEC_INIT, 0};
    conv_term terms[MN_QUERY_MAX_WORDS];
    double idf[CONV_TERMS];
    size_t n = 0, nterms = 0;
    int64_t ndocs = 0, rows = 0;
    int rc = 0;
    /* the words by their matches (counts are cached by the store), rarest first */
    for (size_t i = 0; i < c->q.nterms && n < MN_QUERY_MAX_WORDS && rc == 0; i++) {
        terms[n].match = c->q.terms[i].match;
        rc = mn_store_fts_count(c->store, MN_FTS_MEMORIES, terms[n].match, &terms[n].df, &ndocs);
        if (rc == 0 && terms[n].df > 0)
            n++;
    }
    qsort(terms, n, sizeof(*terms), cmp_df);
    for (size_t i = 0; i < n && nterms < CONV_TERMS && rc == 0; i++) {
        if (rows + terms[i].df > CONV_ROWS)
            break;
        rows += terms[i].df;
        idf[nterms] =
            log(1 + ((double)ndocs - (double)terms[i].df + 0.5) / ((double)terms[i].df + 0.5));
        a.term = nterms++;
        mn_memory_query q = c->req->filter;
        q.match = terms[i].match;
        rc = mn_store_conversation_counts(c->store, &q, on_conversation, &a);
    }
    if (rc == 0 && a.tfs.len > 0) {
        double *doc = mn_calloc(a.tfs.len, sizeof(double)), best = 0;
        for (size_t g = 0; g < a.tfs.len; g++) {
            for (size_t t = 0; t < nterms; t++) {
                double tf = a.tfs.items[g].tf[t];
                doc[g] += idf[t] * (CONV_K1 + 1) * tf / (tf + CONV_K1);
            }
            best = doc[g] > best ? doc[g] : best;
        }
        for (size_t i = 0; i < c->memories.len && best > 0; i++) {
            mn_memory_cand *m = &c->memories.items[i];
            size_t at =
                m->conversation ? (size_t)(uintptr_t)mn_map_get(&a.index, m->conversation) : 0;
            m->conv_doc = at ? doc[at - 1] / best : 0;
        }
        free(doc);
    }
    mn_vec_release(&a.tfs);
    mn_map_release(&a.index);
    return rc;
}
