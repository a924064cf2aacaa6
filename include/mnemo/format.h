/*
 * mnemo/format.h - the file formats front ends read and write: JSON Lines
 * for machines, YAML for people. Both carry memories in the canonical shape
 * (docs/memory-format.md), and both round-trip byte for byte: writing what
 * was read gives the same bytes.
 *
 * Strings returned through `out` are malloc'd (free()); json_t through
 * `out` are new references (json_decref()).
 */
#ifndef MNEMO_FORMAT_H
#define MNEMO_FORMAT_H

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { MN_FORMAT_JSONL, MN_FORMAT_YAML, MN_FORMAT_JSON } mn_format;

/*
 * How mnemo writes JSON: compact, keys in insertion order, numbers with 15
 * significant digits (0.9 prints as 0.9, not 0.90000000000000002). Any 15
 * digit decimal survives text -> double -> text, so re-exporting an import
 * gives the same bytes.
 */
#define MN_JSON_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/** Format from a name ("jsonl", "yaml", "json") or a file name's extension; -1 if neither. */
int mn_format_parse(const char *name_or_path);

/** Write an array of values: one compact JSON object per line, or one YAML document each. */
int mn_format_write(char **out, size_t *out_len, mn_format fmt, const json_t *items);

/** Read values written by mn_format_write (JSON: an array, or an object with "memories"). */
int mn_format_read(json_t **out, mn_format fmt, const char *data, size_t len);

/** One value as YAML (for a person to read or edit). */
int mn_format_yaml(char **out, const json_t *value);

/** Read a whole file ("-": stdin), refusing more than max bytes. */
int mn_file_read(char **out, size_t *out_len, const char *path, size_t max);

/** Replace a file atomically; the new file is 0600 (exports hold every memory). */
int mn_file_write(const char *path, const char *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
