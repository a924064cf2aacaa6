/*
 * branch_filter.c - branches in a search (branch_filter.h): after the
 * memories are scored, read where each one with a score was learnt (its
 * branch and commit: one indexed row each), answer the commits' ancestry
 * in one batch (branch.c: caches first, one walk for many unknowns), then
 * drop (score 0) what HEAD should not be served, or, when the request
 * asks for all branches, keep it with the status "from branch X (not
 * merged)". Memories learnt nowhere in particular are not looked at twice.
 */
#include "common.h"

#include "retrieve/branch.h"
#include "retrieve/branch_filter.h"
#include "store/store_ingest.h"

typedef struct {
    int64_t rowid;
    char *branch, *commit;
} origin;

typedef struct {
    MN_VEC(origin) rows;
} origins;

static int origin_cb(void *payload, int64_t rowid, const char *branch, const char *commit)
{
    origins *o = payload;
    origin x = {rowid, branch ? mn_strdup(branch) : NULL, commit ? mn_strdup(commit) : NULL};
    mn_vec_push(&o->rows, x);
    return 0;
}

int mn_branch_filter(mn_search_ctx *c)
{
    mn_branch_view *v = c->req->branch;
    if (!v || !c->memories.len)
        return 0;
    int64_t *rows = mn_calloc(c->memories.len, sizeof(int64_t));
    size_t n = 0;
    for (size_t i = 0; i < c->memories.len; i++)
        if (c->memories.items[i].score > 0)
            rows[n++] = c->memories.items[i].rowid;
    origins o = {MN_VEC_INIT};
    int rc = n ? mn_store_memories_origin(c->store, rows, n, origin_cb, &o) : 0;
    free(rows);
    if (rc == 0 && o.rows.len) {
        const char **commits = mn_calloc(o.rows.len, sizeof(char *));
        for (size_t i = 0; i < o.rows.len; i++)
            commits[i] = o.rows.items[i].commit;
        rc = mn_branch__prefetch(v, c->store, commits, o.rows.len);
        free(commits);
    }
    for (size_t i = 0; rc == 0 && i < o.rows.len; i++) {
        bool visible = true;
        rc = mn_branch_visible(v, c->store, o.rows.items[i].branch, o.rows.items[i].commit,
                               &visible);
        if (rc || visible)
            continue;
        for (size_t j = 0; j < c->memories.len; j++) {
            mn_memory_cand *m = &c->memories.items[j];
            if (m->rowid != o.rows.items[i].rowid)
                continue;
            if (mn_branch_view_all(v))
                m->status = mn_arena_strdup(c->arena, mn_branch_mark(v, o.rows.items[i].branch));
            else
                m->score = 0;
        }
    }
    for (size_t i = 0; i < o.rows.len; i++) {
        free(o.rows.items[i].branch);
        free(o.rows.items[i].commit);
    }
    mn_vec_release(&o.rows);
    return rc;
}
