/*
 * history_signal.c - files whose past commits said what the issue says
 * (index/history.h stores each path's commit subjects as one document).
 *
 *   hist(f)  = bm25 of f's commit subjects for the words of the query's
 *              title (its first line above more text; else the query)
 *   histN(f) = hist(f) / max hist over the source files matched
 *
 * Only files already among the candidates are lifted, and only source
 * files: the history of tests and docs repeats the words of the fixes they
 * came with. The title, not the whole issue: commit subjects are written
 * like issue titles, and an issue's body (code, output, environment) gave
 * the files every commit touches (dataset.py, models.py) the best scores.
 * fusion.c adds 0.2 histN to a file's evidence (retrieval.md has the
 * measurements).
 */
#include "common.h"
#include <inttypes.h>

#include "retrieve/retrieve_internal.h"
#include "store/store_search.h"

#define HISTORY_ROWS 200 /* documents read per query */

typedef struct {
    mn_search_ctx *c;
    double max;
} hist_acc;

static int on_history(void *payload, const mn_file_hit *h)
{
    hist_acc *a = payload;
    if (!h->role || strcmp(h->role, "source") != 0)
        return 0;
    if (h->bm25 > a->max)
        a->max = h->bm25; /* best first: the first source row */
    mn_file_cand *f = mn_search_file_find(a->c, h->id);
    if (f && a->max > 0)
        f->history = h->bm25 / a->max;
    return 0;
}

int mn_history_signal(mn_search_ctx *c)
{
    const char *match = c->q.title_match ? c->q.title_match : c->q.match;
    if (!match || !(c->req->kinds & MN_SEARCH_FILE))
        return 0;
    hist_acc a = {c, 0};
    return mn_store_history_files(c->store, match, HISTORY_ROWS, on_history, &a);
}
