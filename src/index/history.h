/*
 * history.h - the repository's git history as evidence for ranking files:
 * what past commits said they changed, and which files they changed
 * (docs/internals/index.md "History"; retrieve/history_signal.c uses it).
 */
#ifndef MN_INDEX_HISTORY_H
#define MN_INDEX_HISTORY_H

#include <stddef.h>

#include "store/store.h"
#include "text/scan.h"

#define MN_HISTORY_MAX_COMMITS 5000 /* the newest non-merge commits kept */
#define MN_HISTORY_MAX_FILES   50   /* a commit changing more says nothing of each */

/*
 * Read the commits reachable from HEAD of the repository root is in, newest
 * first, that the store does not have yet (it remembers the head it stopped
 * at), and store each one's subject and changed paths (against its first
 * parent; relative to root). Merges and commits of more than
 * MN_HISTORY_MAX_FILES paths are skipped. A shallow clone is read down to
 * its boundary (history.c: read_shallow). A directory outside git, a bare
 * repository, an unborn HEAD, or no libgit2: nothing is read, and that is
 * no error. A subject's secrets (and personal data, by redact, a
 * mn_scan_class mask) are redacted before it is stored; sc NULL: not scanned.
 * *read_out: commits stored by this call.
 */
int mn_history_ingest(mn_store *s, const char *root, const mn_scanner *sc, unsigned redact,
                      size_t *read_out);

#endif
