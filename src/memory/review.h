/*
 * review.h - the review queue: what waits for a person, and their decisions
 * (docs/internals/memory.md, "Review").
 *
 * A memory waits when the save pipeline was not sure of it (status
 * pending: low confidence, an agent's rule or pattern without evidence, a
 * near-duplicate that says something else) or when it holds personal data
 * under config scan.pii quarantine (status quarantined). The queue shows
 * each one with what a reviewer needs: the judge's scores and reasons, how
 * it came (source, extraction method, author, commit, task), the memories
 * it supersedes or contradicts and those that point at it so, and its near
 * neighbours with the verdict on each pair (what it may repeat or
 * contradict).
 *
 * Decisions, each inside the caller's transaction, each with an audit row
 * (approve, reject, merge; supersede and release for what follows):
 *   approve  active; the memories it `supersedes` turn superseded; those it
 *            contradicts are named in the answer, still waiting.
 *   reject   archived, judgement.review says rejected (by whom, when, why);
 *            a later save repeating it, exactly or nearly, is not stored
 *            (the save pipeline asks mn_review__skip_rejected); a memory
 *            the rejected one had sent back to review comes back active.
 *   merge    into another live memory with the save pipeline's merge (lists
 *            united, the more complete text kept, both provenances kept,
 *            the merged one's links carried over); the merged one is
 *            archived with judgement.review saying where it went.
 * Who may decide is the operation's business (api/op_review.c).
 */
#ifndef MN_MEMORY_REVIEW_H
#define MN_MEMORY_REVIEW_H

#include <jansson.h>

#include "memory/memory.h"
#include "store/store.h"

/**
 * The queue: the memories f selects (the caller sets its status), newest
 * first, each with judgement, how it came, links and neighbours; *out =
 * {memories: [...], total}. Reads only.
 */
int mn_review_list(json_t **out, mn_store *s, const mn_memory_filter *f);

typedef enum { MN_REVIEW_APPROVE, MN_REVIEW_REJECT, MN_REVIEW_MERGE } mn_review_decision;

/**
 * Decide on memory id (a full id) inside the caller's transaction; into is
 * the full id of the memory to merge into (MERGE only), note a reviewer's
 * words (may be NULL). Appends what happened to `decided` (an array):
 * {id, title, kind, was, status, and superseded, released, still_pending,
 * into when they apply}. MN_EINVAL when the memory is not in the queue for
 * this decision, MN_ENOTFOUND when it is forgotten.
 */
int mn_review_decide(mn_store *s, const mn_memory_settings *cfg, mn_review_decision d,
                     const char *id, const char *into, const char *note, json_t *decided);

/** True when a reviewer rejected mem (it is archived and judgement.review says so). */
bool mn_review_is_rejected(const json_t *mem);

#endif
