/*
 * distill.h - the distill step of the save pipeline: white space made
 * regular and the body kept to a memory's size (docs/internals/memory.md).
 */
#ifndef MN_MEMORY_DISTILL_H
#define MN_MEMORY_DISTILL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * Regularise the white space of a memory's words, in place: the title one
 * line with single spaces; body, situation, solution and what failed with
 * "\n" line ends, no blanks at line ends, at most one empty line in a row,
 * trimmed. Error messages and the conversation excerpt are verbatim and
 * left alone, and so are lines inside ``` fences and indented code (their
 * spaces are meaning).
 */
void mn_memory_normalise(json_t *mem);

/**
 * Keep the body within cap characters (0: no cap). Over it, a save by a
 * person or an agent (`truncate` false) is refused with one error saying
 * the size and what to do; an automatic capture (`truncate` true) is cut at
 * the last sentence or line end that fits and ends with an explicit note
 * "[truncated: the text had N characters]". Returns 0 or MN_EINVAL.
 */
int mn_memory_cap_body(json_t *mem, size_t cap, bool truncate);

#endif
