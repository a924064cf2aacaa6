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
#include "util/map.h"
#include "util/vec.h"

#define DAMPING    0.85
#define MAX_ROUNDS 100
#define EPSILON    1e-9

typedef struct {
    size_t src, dst;
    double w;
} link_t;

typedef struct {
    MN_VEC(int64_t) ids;
    mn_map index; /* "%lld" id -> position + 1 */
    MN_VEC(link_t) links;
} graph;

static int add_node(void *payload, int64_t id)
{
    graph *g = payload;
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)id);
    mn_vec_push(&g->ids, id);
    mn_map_set(&g->index, key, (void *)g->ids.len);
    return 0;
}

static int add_link(void *payload, int64_t src, int64_t dst, double w)
{
    graph *g = payload;
    char a[32], b[32];
    snprintf(a, sizeof(a), "%lld", (long long)src);
    snprintf(b, sizeof(b), "%lld", (long long)dst);
    size_t i = (size_t)mn_map_get(&g->index, a), j = (size_t)mn_map_get(&g->index, b);
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

static int rank_level(mn_store *s, const char *level)
{
    graph g;
    memset(&g, 0, sizeof(g));
    int rc = mn_store_node_ids_each(s, level, add_node, &g);
    if (rc == 0)
        rc = mn_store_graph_each(s, level, add_link, &g);
    if (rc == 0 && g.ids.len) {
        double *rank = mn_calloc(g.ids.len, sizeof(double));
        pagerank(&g, rank);
        for (size_t i = 0; i < g.ids.len && rc == 0; i++)
            rc = mn_store_set_rank(s, level, g.ids.items[i], rank[i] * (double)g.ids.len);
        free(rank);
    }
    mn_vec_release(&g.ids);
    mn_vec_release(&g.links);
    mn_map_release(&g.index);
    return rc;
}

int mn_rank_all(mn_store *s)
{
    int rc = mn_store_begin(s);
    if (rc)
        return rc;
    if ((rc = rank_level(s, "file")) == 0 && (rc = rank_level(s, "symbol")) == 0)
        return mn_store_commit(s);
    mn_store_rollback(s);
    return rc;
}
