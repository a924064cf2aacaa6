/*
 * extractors.c - the table of git extractors, in the order they run on a
 * commit. Order matters once: the message extractor reads the dependency
 * candidates to tell a decision the diff agrees with, so dependencies come
 * first. Merges are read only by the extractors of the message (a merge's
 * diff is its parents').
 *
 * Adding a kind of fact: a cand_<kind>.c with an mn_extractor_fn, a row
 * here, its confidences in its header comment and in
 * docs/internals/ingest.md, and a case in tests/unit/ingest/.
 */
#include "common.h"

#include "ingest/candidate.h"

static const mn_extractor table[] = {
    {"dependency, runtime", mn_cand_dependencies, false},
    {"module", mn_cand_modules, false},
    {"api", mn_cand_api, false},
    {"ci, build, config", mn_cand_ci_build, false},
    {"migration", mn_cand_migrations, false},
    {"decision, gotcha", mn_cand_message, true},
    {"revert", mn_cand_revert, true},
};

const mn_extractor *mn_extractors(size_t *n)
{
    *n = MN_ARRAY_SIZE(table);
    return table;
}
