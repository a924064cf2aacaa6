/*
 * hooks.h - mnemo's git hooks (hooks.c): post-commit (the commit's
 * candidates, in the background) and post-merge / post-checkout (the
 * index brought up to date and the branch filter's ancestry warmed, in
 * the background).
 *
 * Safety, the point of the design: a hook is a few lines of sh that start
 * `mnemo hooks run NAME` in the background (its input and output on
 * /dev/null, so git waits for nothing) and then exec the hook that was
 * there before, whose exit status is thus the hook's. A missing, failing or
 * hanging mnemo costs git a fork. Existing hooks (a hand-written script, husky's,
 * pre-commit's, a core.hooksPath directory's) are never overwritten: each
 * is renamed NAME.mnemo-chained, run by mnemo's hook with the same
 * arguments, and renamed back by uninstall, so it is restored byte for
 * byte (and mode, and symlink). Where hooks live is git's answer to `git
 * rev-parse --git-path hooks` (core.hooksPath honoured).
 */
#ifndef MN_INGEST_HOOKS_H
#define MN_INGEST_HOOKS_H

#include <jansson.h>

#include "mnemo/hooks.h"

/** The marker line in every hook mnemo writes. */
#define MN_HOOK_MARKER "# mnemo-hook v1"

#endif
