/*
 * rank.c - PageRank for files and symbols; see rank.h for the formula:
 *   r' = (1 - d) / N + d * (sum over in-links j->i of r_j * w_ji / W_j + D / N)
 * where d = 0.85, W_j is the total weight out of j, and D the rank held by
 * nodes without out-links (spread evenly so that ranks keep summing to 1).
 */
#include "common.h"
#include <math.h>

#include "index/rank.h"
#include "store/store_index.h"
#include "util/vec.h"

#define DAMPING     0.85
#define MAX_ROUNDS  100
#define EPSILON     1e-9
#define RANK_DIGITS 4

typedef struct {
    size_t src, dst;
    double w;
} link_t;

typedef struct {
    MN_VEC(int64_t) ids; /* ascending */
    MN_VEC(link_t) links;
} graph;

static int add_node(void *payload, int64_t id)
{
    graph *g = payload;
    mn_vec_push(&g->ids, id);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Position + 1 of id in g->ids, or 0. */
static size_t node_of(const graph *g, int64_t id)
{
    size_t lo = 0, hi = g->ids.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->ids.items[mid] < id)
            lo = mid + 1;
        else if (g->ids.items[mid] > id)
            hi = mid;
        else
            return mid + 1;
    }
    return 0;
}

static int add_link(void *payload, int64_t src, int64_t dst, double w)
{
    graph *g = payload;
    size_t i = node_of(g, src), j = node_of(g, dst);
    if (i && j && w > 0) {
        link_t l = {i - 1, j - 1, w};
        mn_vec_push(&g->links, l);
    }
    return 0;
}

/* PageRank of g into rank (n entries), summing to 1. */
static void pagerank(const graph *g, double *rank)
{
    size_t n = g->ids.len;
    double *out_w = mn_calloc(n, sizeof(double)), *next = mn_calloc(n, sizeof(double));
    for (size_t k = 0; k < g->links.len; k++)
        out_w[g->links.items[k].src] += g->links.items[k].w;
    for (size_t i = 0; i < n; i++)
        rank[i] = 1.0 / (double)n;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        double dangling = 0;
        for (size_t i = 0; i < n; i++)
            if (out_w[i] == 0)
                dangling += rank[i];
        double base = (1 - DAMPING) / (double)n + DAMPING * dangling / (double)n;
        for (size_t i = 0; i < n; i++)
            next[i] = base;
        for (size_t k = 0; k < g->links.len; k++) {
            const link_t *l = &g->links.items[k];
            next[l->dst] += DAMPING * rank[l->src] * l->w / out_w[l->src];
        }
        double delta = 0;
        for (size_t i = 0; i < n; i++) {
            delta += fabs(next[i] - rank[i]);
            rank[i] = next[i];
        }
        if (delta < EPSILON)
            break;
    }
    free(out_w);
    free(next);
}

/*
 * A rank rounded to RANK_DIGITS significant digits. Ranks only order things,
 * and a change to one file moves every rank a little: rounded, most stay
 * the same, and the store skips writing a rank that did not change (on
 * sympy/sympy an edited file then rewrites ~600 symbol rows, not 43,000).
 */
static double significant(double r)
{
    if (!(r > 0) || !isfinite(r))
        return r;
    double scale = pow(10.0, RANK_DIGITS - 1 - floor(log10(r)));
    return round(r * scale) / scale;
}

static int rank_level(mn_store *s, const char *level)
{
    graph g;
    memset(&g, 0, sizeof(g));
    int rc = mn_store_node_ids_each(s, level, add_node, &g);
    for (size_t i = 1; rc == 0 && i < g.ids.len; i++)
        if (g.ids.items[i - 1] >= g.ids.items[i]) { /* node_of needs them ascending */
            qsort(g.ids.items, g.ids.len, sizeof(int64_t), cmp_id);
            break;
        }
    if (rc == 0)
        rc = mn_store_graph_each(s, level, add_link, &g);
    if (rc == 0 && g.ids.len) {
        double *rank = mn_calloc(g.ids.len, sizeof(double));
        pagerank(&g, rank);
        for (size_t i = 0; i < g.ids.len && rc == 0; i++)
            rc = mn_store_set_rank(s, level, g.ids.items[i],
                                   significant(rank[i] * (double)g.ids.len));
        free(rank);
    }
    mn_vec_release(&g.ids);
    mn_vec_release(&g.links);
    return rc;
}

int mn_rank_all(mn_store *s)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    if ((rc = rank_level(s, "file")) == 0 && (rc = rank_level(s, "symbol")) == 0 &&
        (rc = mn_store_config_set(s, MN_RANK_KEY_LAG, NULL)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}

int mn_rank_refresh(mn_store *s, size_t changed, size_t files, bool force, bool *ranked)
{
    char *old = NULL, buf[32];
    int64_t lag = 0;
    if (ranked)
        *ranked = false;
    int rc = mn_store_config_get(s, &old, MN_RANK_KEY_LAG);
    if (rc == 0) {
        /* a damaged value counts as "long ago": rank again */
        if (mn_parse_int64(&lag, old, 0, INT64_MAX / 2, MN_RANK_KEY_LAG) != 0)
            lag = INT64_MAX / 2;
        free(old);
    } else if (rc != MN_ENOTFOUND) {
        return rc;
    }
    lag += (int64_t)changed;
    if (!force && lag == 0)
        return 0;
    if (force || lag * 100 > (int64_t)files) {
        if ((rc = mn_rank_all(s)) == 0 && ranked)
            *ranked = true;
        return rc;
    }
    snprintf(buf, sizeof(buf), "%lld", (long long)lag);
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    if ((rc = mn_store_config_set(s, MN_RANK_KEY_LAG, buf)) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}
