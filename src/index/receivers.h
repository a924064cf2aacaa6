/*
 * receivers.h - the type of a call's receiver, from the file alone.
 *
 * parse.c records, for each call written `recv.m()` (`recv->m()`,
 * `recv::m()`, `$recv->m()`), the receiver as written; mn_receivers_infer
 * then gives the receiver's type where the file says it:
 *   self / this / cls / Self / $this  the enclosing class (Rust: the impl's
 *                                     type; C++: Foo of `void Foo::m()`)
 *   a name bound in an enclosing scope  its declared type (a parameter or
 *                                     variable annotation: Python, TS, Java,
 *                                     C#, Go, Rust, C/C++), or the class it
 *                                     was made from: `x = Foo()` (Python,
 *                                     capitalized callee), `new Foo()` (JS/TS,
 *                                     Java/C# var, C++, PHP), `Foo{}` and
 *                                     `&Foo{}` (Go), `Foo::new()` / `Foo {..}`
 *                                     (Rust), `Foo.new` (Ruby)
 * A name is typed only when every binding of it in the scope that declares
 * it agrees (a parameter without annotation, `x = f()`, or two different
 * types make it unknown): precision first, since a wrong type makes a
 * wrong edge. Class bodies are scopes whose fields a method sees without
 * `this.` in Java, C#, C++ and Rust-less languages that have fields; not
 * in Python, JS/TS, Ruby or PHP.
 */
#ifndef MN_INDEX_RECEIVERS_H
#define MN_INDEX_RECEIVERS_H

#include <stddef.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "util/arena.h"

typedef struct {
    uint32_t pos;     /* byte offset of the called name */
    const char *recv; /* the receiver as written ("self", "app", "$db"); not NUL-terminated */
    uint32_t recv_len;
    const char *type; /* out: the receiver's type as a dotted name ("Flask", "flask.Flask"),
                         in arena; NULL when unknown */
} mn_recv_call;

/*
 * Fill calls[i].type for the calls of one parsed file (any order). language
 * is mn_classify's name; a language without rules leaves every type NULL.
 * Walks the tree once, without recursion.
 */
void mn_receivers_infer(const char *language, TSNode root, const char *src, uint32_t len,
                        mn_recv_call *calls, size_t n, mn_arena *arena);

/** Whether receivers of this language are looked at (a cheap test before collecting calls). */
bool mn_receivers_supported(const char *language);

#endif
