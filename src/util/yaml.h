/*
 * yaml.h - JSON values to and from YAML text, with an exact round trip.
 *
 * Used by `mnemo export --yaml` / `mnemo import` and by `mnemo edit`, where
 * people read and change the text, so the output favours plain scalars and
 * literal blocks (`|`) and quotes only what would otherwise read back as
 * something else. For every value v the emitter accepts,
 * parse(emit(v)) has the same types, key order and bytes as v, and emitting
 * it again gives byte-identical text.
 *
 * Parsing follows the YAML 1.2 core schema for plain scalars, plus the
 * YAML 1.1 booleans yes/no/on/off; quoted, block and !!str scalars are
 * always strings; mapping keys are always strings (their text); `y`/`n`,
 * YAML 1.1 octals (0755 reads as 755) and merge keys (<<) are not special,
 * though the emitter quotes such strings for YAML 1.1 readers. Limits:
 * collections nest at most 64 deep, aliases are expanded by copying but may
 * add at most 1,000,000 nodes and 64 MiB of string bytes per stream,
 * duplicate and non-scalar keys are errors, infinities, NaN and integers
 * outside int64 are errors (quote them to keep them as text).
 */
#ifndef MN_UTIL_YAML_H
#define MN_UTIL_YAML_H

#include <stddef.h>
#include <jansson.h>

#include "util/buf.h"

/**
 * Append `docs` (a JSON array) to out as a YAML stream: one document per
 * element, each starting with "---".
 * Returns 0, or MN_EINVAL (out unchanged) when docs is not an array or holds
 * a value YAML cannot carry back (invalid UTF-8, nesting deeper than 64).
 */
int mn_yaml_emit_docs(mn_buf *out, const json_t *docs);

/**
 * Append a single value to out as one YAML document (without a leading
 * "---" unless libyaml needs one). Returns 0 or MN_EINVAL as above.
 */
int mn_yaml_emit(mn_buf *out, const json_t *value);

/**
 * Parse a YAML stream of `len` bytes into a new JSON array with one element
 * per document (*out, owned by the caller: json_decref it).
 * Returns 0, or MN_EINVAL with the message
 * "yaml: line N, column M: <problem>" (1-based) and *out set to NULL.
 */
int mn_yaml_parse_docs(json_t **out, const char *data, size_t len);

#endif
