/*
 * diff.h - a line diff of two texts, written as unified-diff lines.
 *
 * mn_diff_lines compares two texts line by line (a longest common
 * subsequence) and appends to out one line per line of either text:
 * " " kept, "-" only in the old text, "+" only in the new one, with runs
 * of more than 2 * context unchanged lines between changes folded into
 * "@@ N unchanged lines @@". Inputs are cut to MN_DIFF_MAX_LINES lines
 * each (the LCS table is their product); beyond it the rest is shown as
 * removed and added whole. Plain text in, plain text out: the caller
 * escapes it for a terminal.
 */
#ifndef MN_DIFF_H
#define MN_DIFF_H

#include <stddef.h>

#include "util/buf.h"

#define MN_DIFF_MAX_LINES 600

/** Append the diff of old_text -> new_text to out; returns the number of changed lines. */
size_t mn_diff_lines(mn_buf *out, const char *old_text, const char *new_text, size_t context);

#endif
