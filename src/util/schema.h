/*
 * schema.h - validate JSON input against the operation table's JSON Schemas.
 *
 * Every mnemo operation declares its input as a JSON Schema (a subset of
 * draft 2020-12); the same schema checks CLI, MCP and HTTP input and
 * generates the CLI help and the MCP tool list. The subset:
 *
 *   type (a name or an array of names: string, integer, number, boolean,
 *   object, array, null; 1.0 is a number but not an integer), properties,
 *   required, additionalProperties (true, false or a schema; default true),
 *   enum, const, minLength/maxLength (in code points), minimum, maximum,
 *   exclusiveMinimum, exclusiveMaximum, items (one schema), minItems,
 *   maxItems, uniqueItems, anyOf, oneOf, format ("date-time" is checked,
 *   other formats are annotations); the annotations description, title,
 *   default, examples, $schema, $comment, deprecated, readOnly, writeOnly
 *   and any "x-..." keyword are accepted and ignored. Boolean schemas
 *   (true, false) are accepted wherever a schema is.
 *
 * "pattern" and every other keyword are refused by mn_schema_check, so a
 * schema the validator would silently misread cannot reach the table.
 * Values nested more than MN_SCHEMA_MAX_DEPTH containers deep are refused.
 */
#ifndef MN_SCHEMA_H
#define MN_SCHEMA_H

#include <jansson.h>

#define MN_SCHEMA_MAX_DEPTH 32

/**
 * Check `value` against `schema`.
 *
 * Returns 0 when it conforms, or MN_EINVAL after setting one lower-case
 * line that names the field path (`a.b[3].c`; a top-level field has no
 * leading dot; the value itself is called "input"), for example
 * "field 'title': longer than 200 characters" or
 * "unknown field 'colour' (expected one of: kind, title)". Text taken from
 * the value is cut to 60 characters and has its control characters
 * escaped. Nothing is allocated for the caller. The schema is assumed to
 * pass mn_schema_check; a malformed keyword is ignored, never a crash.
 */
int mn_schema_validate(const json_t *schema, const json_t *value);

/**
 * Check that `schema` uses only the supported keywords, each with a value
 * of the right type (so a typo in the operation table fails a test).
 *
 * Returns 0, or MN_EINVAL with a message naming the place as a JSON
 * Pointer, e.g. "schema '#/properties/title': unknown keyword 'patern'".
 */
int mn_schema_check(const json_t *schema);

#endif
