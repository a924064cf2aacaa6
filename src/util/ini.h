/*
 * ini.h - INI text read into JSON, the dialect of Python's configparser as
 * projects write it (setup.cfg, tox.ini, .flake8, mypy.ini, .editorconfig).
 *
 * The result is an object of sections, each an object of keys to string
 * values: {"": {keys before any header}, "section": {"key": "value"}}.
 * A key is separated from its value by the first '=' or ':', with white
 * space around both trimmed; keys keep their case. A line indented below a
 * key continues its value (joined with "\n"), so multi-line lists such as
 * install_requires come out as one string of lines. Lines starting with
 * '#' or ';' are comments; a section named twice is one section, and a key
 * set twice keeps its last value. A line that is none of these (no
 * separator, an unclosed header) is skipped: there are no errors. Text
 * that is not UTF-8, or holds a NUL byte, reads as an empty document.
 */
#ifndef MN_UTIL_INI_H
#define MN_UTIL_INI_H

#include <stddef.h>
#include <jansson.h>

/** Read `len` bytes of INI text into a new object (caller json_decrefs it); never NULL. */
json_t *mn_ini_parse(const char *text, size_t len);

#endif
