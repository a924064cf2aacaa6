/*
 * branch_filter.h - the search's step for branches (branch_filter.c): the
 * memories learnt on another branch and not merged are left out, or marked
 * when the request asks for all branches (retrieve/branch.h has the rule).
 */
#ifndef MN_RETRIEVE_BRANCH_FILTER_H
#define MN_RETRIEVE_BRANCH_FILTER_H

#include "retrieve/retrieve_internal.h"

/** Apply the request's branch view (req->branch; NULL: nothing) to the scored memories. */
int mn_branch_filter(mn_search_ctx *c);

#endif
