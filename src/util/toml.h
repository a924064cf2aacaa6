/*
 * toml.h - TOML text read into JSON values, leniently: enough of TOML 1.0
 * for the files projects write by hand (pyproject.toml, Cargo.toml,
 * Pipfile), for a reader that wants what is there rather than a verdict.
 *
 * What comes out: the document is an object; a table, an inline table or
 * a dotted key is a nested object; an array of tables ([[x]]) is an array
 * of objects, and a header or key below it goes into its last element.
 * Strings (basic and literal, one-line and multi-line, with every escape
 * of TOML 1.0 and \e) are strings; decimal, hexadecimal, octal and binary
 * integers (with '_' separators) that fit in 64 bits are integers; other
 * finite numbers are reals; true and false are booleans; dates, times, inf,
 * nan and any other bare word are kept as their text.
 *
 * Lenient where a strict parser refuses: a key or table defined twice is
 * replaced or reopened (the last value wins), and there is no check on
 * types mixed in an array. What is refused is a syntax error: the
 * document read up to it is kept and the rest of the text is left out.
 * Arrays and inline tables nest at most 64 deep.
 */
#ifndef MN_UTIL_TOML_H
#define MN_UTIL_TOML_H

#include <stddef.h>
#include <jansson.h>

/**
 * Read `len` bytes of TOML text into a new JSON object (*out, owned by the
 * caller: json_decref it); *out is set also on an error.
 * Returns 0, or MN_EINVAL on a syntax error, with the message
 * "toml: line N: syntax error, the rest is not read" and *out holding what
 * was read before the error.
 */
int mn_toml_parse(json_t **out, const char *text, size_t len);

#endif
