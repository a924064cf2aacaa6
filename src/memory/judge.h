/*
 * judge.h - how much a new memory is worth keeping, without a model: the
 * judge of the save pipeline (docs/internals/memory.md, "The judge").
 *
 * Four scores in [0, 1], each with a reason a reviewer can read:
 *   novelty      1 - the estimated similarity of the nearest live memory
 *                (text/neardup.h; 1 when none shares a key with it);
 *   specificity  what it names that can be checked: paths, identifiers,
 *                error messages, numbers and versions;
 *   evidence     what backs it: a commit, an issue or task, cited code, a
 *                link to one of those (1), paths it is scoped to (0.5);
 *   length       too short to act on, or long enough to be a document
 *                rather than a memory.
 * combined into score = 0.15 + 0.25 novelty + 0.25 specificity +
 * 0.20 evidence + 0.15 length (so in [0.15, 1]: nothing is worth 0).
 */
#ifndef MN_MEMORY_JUDGE_H
#define MN_MEMORY_JUDGE_H

#include <jansson.h>

/**
 * The judgement of mem (the memory as it will be stored) given the nearest
 * live memory's estimated Jaccard similarity (0 when none), and the save's
 * links (may be NULL): a new object {score, novelty, specificity, evidence,
 * length, reasons: [...]}.
 */
json_t *mn_memory_judge(const json_t *mem, const json_t *links, double nearest);

#endif
