/*
 * decl_only.h - whether a file only declares types that hold no behaviour
 * of the project: error types and annotation types.
 *
 * Such a file is the exception module of a package (requests/exceptions.py,
 * a Java XException.java that passes its message to super) or an annotation
 * (Java @interface). Its names are the words issues use ("proxy
 * authentication error", "@JacksonXmlText does not work"), so it matched
 * them as well as the code that raises or reads it, and ranked above it;
 * the fix is in that code. files.decl_only (schema v18) keeps the answer;
 * retrieve/fusion.c weighs such a file as documentation
 * (docs/internals/retrieval.md, "Files that declare only error and
 * annotation types").
 *
 * The test, on what mn_parser_parse extracted:
 *  - the file defines at least one type (class, interface, struct, enum,
 *    type, trait), and every one is an error type or a Java annotation type
 *    (kind interface, signature holding "@interface");
 *  - an error type's name ends in Error, Errors, Exception, Warning or
 *    Throwable (or _error, _exception, or is error / exception: C++'s
 *    std::runtime_error family), or one of its bases (inherit references)
 *    does, or is an error type of the same file (class Timeout(RequestException));
 *  - every function and method is a member of one of those types (its
 *    qualified name starts with the type's: constructors, __str__, Go's
 *    Error()); constants, variables and namespaces are allowed (no
 *    behaviour), anything else (a macro, a free function) is not;
 *  - at most 128 types (an exception module declares tens; the cap bounds
 *    the work on any input).
 */
#ifndef MN_INDEX_DECL_ONLY_H
#define MN_INDEX_DECL_ONLY_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store_index.h"

/** Whether the file of these symbols and references only declares error and annotation types. */
bool mn_decl_only(const mn_symbol_rec *symbols, size_t nsymbols, const mn_ref_rec *refs,
                  size_t nrefs);

/** Whether a type name reads as an error type's ("ProxyError", "std::runtime_error"). */
bool mn_error_type_name(const char *name);

#endif
