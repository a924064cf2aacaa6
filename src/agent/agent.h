/*
 * agent.h - what `mnemo setup` and `mnemo hook` need below the CLI: editing
 * the configuration files of agent clients without disturbing them.
 *
 * The files belong to other programs and to their users, so an edit changes
 * only the bytes of what mnemo adds or removes: everything else (order,
 * indentation, comments, unknown keys, number spellings) stays byte for
 * byte. JSON files are edited as text guided by a parse that records where
 * each value lies (jsonedit.c; JSONC comments and trailing commas are
 * accepted, as VS Code writes them); TOML files only by whole tables of our
 * own (tomledit.c). Adding then removing gives back the original bytes.
 *
 * Paths into a JSON document are arrays of components: an object key, or
 * "#N" for element N of an array (keys we edit never start with '#').
 */
#ifndef MN_AGENT_H
#define MN_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "mnemo/api.h"
#include "util/buf.h"

/**
 * The hook's budget: config hook.max_tokens of the store (0: add nothing).
 * Shared by the hook (hook.c) and the warm server that answers for it (warm.c).
 */
int mn_hook__budget(mn_ctx *ctx, json_int_t *out);

/** Check that text is a JSON(C) document whose root is an object; MN_EINVAL says where not. */
int mn_jsonedit_check(const char *text, size_t len);

/** The value at path as a new json_t, or *out NULL when absent. */
int mn_jsonedit_get(json_t **out, const char *text, size_t len, const char *const *path,
                    size_t depth);

/**
 * Set the value at path, creating the objects on the way. An existing
 * value is replaced in place; a new member goes after the last one, in the
 * indentation of its siblings. *changed tells whether the text changed.
 */
int mn_jsonedit_set(mn_buf *text, const char *const *path, size_t depth, const json_t *value,
                    bool *changed);

/** Append value to the array at path (created, with its parents, when absent). */
int mn_jsonedit_append(mn_buf *text, const char *const *path, size_t depth, const json_t *value);

/**
 * Remove the member or element at path (nothing when absent), then each
 * container above it that this left empty, up to but not including the
 * root and the first keep components of path (a container the user may
 * have had before, empty, stays). Comments around the member stay.
 * *changed tells whether the text changed.
 */
int mn_jsonedit_remove(mn_buf *text, const char *const *path, size_t depth, size_t keep,
                       bool *changed);

/** A whole new document holding value, indented by two spaces, with a final newline. */
void mn_jsonedit_render(mn_buf *out, const json_t *value);

/*
 * TOML: the table [name] (name is dotted, as "mcp_servers.mnemo") with its
 * sub-tables [name.*]. body is the table's lines without the header.
 */

/**
 * Put the table: when present, each key line of body replaces the line of
 * that key (or goes after the header) and every other line stays byte for
 * byte; else the table is appended after a blank line. MN_EINVAL when
 * the name is defined another way (inline table, dotted keys) that a
 * textual edit cannot safely change.
 */
int mn_tomledit_set_table(mn_buf *text, const char *name, const char *body, bool *changed);

/**
 * Remove the table (and the blank line put before it) when it holds only
 * keys of body; MN_EINVAL, text untouched, when it holds anything of the
 * user's (other keys, comments, sub-tables [name.*]).
 */
int mn_tomledit_remove_table(mn_buf *text, const char *name, const char *body, bool *changed);

/** A TOML basic string for s ("..." with escapes). */
void mn_toml_quote(mn_buf *out, const char *s);

/**
 * Replace a file atomically (temporary file in its directory, fsync,
 * rename), keeping the mode of the file it replaces; a symbolic link is
 * followed so the link stays a link. Creates the parent directory.
 */
int mn_agent_write_file(const char *path, const char *data, size_t len);

#endif
