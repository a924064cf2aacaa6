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

#include "util/buf.h"

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
 * root. *changed tells whether the text changed.
 */
int mn_jsonedit_remove(mn_buf *text, const char *const *path, size_t depth, bool *changed);

/** A whole new document holding value, indented by two spaces, with a final newline. */
void mn_jsonedit_render(mn_buf *out, const json_t *value);

/*
 * TOML: the table [name] (name is dotted, as "mcp_servers.mnemo") with its
 * sub-tables [name.*]. body is the table's lines without the header.
 */

/**
 * Put the table: replace its lines when present (the lines of its keys, not
 * the comments or blank lines that end it), else append it after a blank
 * line. MN_EINVAL when the name is defined another way (inline table,
 * dotted keys) that a textual edit cannot safely change.
 */
int mn_tomledit_set_table(mn_buf *text, const char *name, const char *body, bool *changed);

/** Remove the table and its sub-tables (and the blank line put before it). */
int mn_tomledit_remove_table(mn_buf *text, const char *name, bool *changed);

/** A TOML basic string for s ("..." with escapes). */
void mn_toml_quote(mn_buf *out, const char *s);

/**
 * Replace a file atomically (temporary file in its directory, fsync,
 * rename), keeping the mode of the file it replaces; a symbolic link is
 * followed so the link stays a link. Creates the parent directory.
 */
int mn_agent_write_file(const char *path, const char *data, size_t len);

#endif
