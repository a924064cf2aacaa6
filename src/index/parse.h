/*
 * parse.h - extract what the index keeps of one file: its symbols, its
 * references (imports, calls, base classes) and its retrievable chunks.
 *
 * Code in a language with a tree-sitter grammar (src/index/grammars.h) is
 * parsed, then one query per language runs over the tree: the grammar's own
 * queries/tags.scm followed by mnemo's src/index/queries/<language>.scm.
 * Markdown is split by headings (no grammar needed); any other text is cut
 * into line windows. Nothing here touches the store: the result is plain
 * records (store/store_index.h) that the indexer hands to
 * mn_store_file_replace.
 *
 * Symbols. name as written; qualified_name joins the enclosing classes,
 * modules and functions with '.' ("Cart.add", "outer.inner", Go's
 * "Repo.Save" from the receiver, Rust's "Point.new" from the impl block,
 * C++'s "ns.Widget.draw" from "void Widget::draw()"); markdown sections join
 * their headings with " > " ("Guide > Install > Linux"). Kinds are normalized
 * across languages:
 *
 *   function   functions; methods of nothing (Python def at module level,
 *              Rust fn in a mod, Ruby def at top level), C/C++ prototypes
 *   method     functions inside a class, struct, interface, trait or enum,
 *              Go methods, Rust impl methods, C++ Class::f, constructors
 *              (Java, C#), Ruby methods inside a module
 *   class      class (Python, JS/TS, Java, C#, C++, Ruby, PHP), records
 *              (Java, C#)
 *   interface  interface (Java, C#, TS, PHP, Go `interface {}`),
 *              Java @interface
 *   struct     struct/union (C, C++, Rust, C#, Go `struct {}`)
 *   enum       enum (C, C++, Rust, Java, C#, TS, PHP)
 *   trait      Rust trait, PHP trait
 *   module     namespace (C++, C#, PHP, TS), module (Ruby, TS), Rust mod
 *   type       type aliases and typedefs (C typedef, TS type, Go type X Y,
 *              Rust type)
 *   constant   Python UPPER_CASE module assignments, Go/Rust const and
 *              static, C/C++ #define with a value, JS exported values
 *   variable   other Python module-level assignments
 *   macro      C/C++ function-like #define, Rust macro_rules!
 *   section    a markdown heading
 * (kind strings are static; every other string lives in the result's arena)
 *
 * Lines are 1-based and inclusive; bytes are [start_byte, end_byte). The
 * span includes decorators, `export`, `template <...>` and a Go `type`
 * keyword (found from the text around the definition: a decorator line, or
 * a line ending with ')' or '>' right above it), but not the leading
 * comment. signature is the text from the definition's start (from its
 * `export`/`const`/`type` when on the same line; past lines of annotations
 * such as @Entity or [Serializable]) up to its body, whitespace collapsed,
 * without a trailing '{', ':' or ';' ("typedef struct node node_t" for a C
 * typedef of a struct), at most MN_PARSE_SIGNATURE_MAX bytes. docstring is a
 * Python docstring, else the comment block right above the definition (no
 * blank line between; Rust #[...] and C# [...] attribute lines skipped),
 * comment markers removed, at most MN_PARSE_DOCSTRING_MAX bytes. hash is
 * XXH3-128 of the span's bytes, 32 hex digits.
 *
 * References (src_symbol is the innermost symbol around the reference, or
 * -1; weight is the number of times the same reference occurs there):
 *   import   the module as written: "..utils", "requests.adapters",
 *            "./lib/x", "fmt", "crate::a::b", "java.util.List",
 *            "<stdio.h>" / "\"util.h\"" (delimiters kept), "App\\Models\\User",
 *            "System.Text". Always src_symbol -1 (a file-to-file edge).
 *            Python `from . import a, b` gives ".a" and ".b"; Rust
 *            `use a::{b, c::d}` gives "a::b" and "a::c::d", `mod x;` gives
 *            "x"; Ruby require_relative "x" gives "./x"; shell quotes go
 *            (`. "$DIR"/x.sh` gives "$DIR/x.sh"); Java `import static
 *            a.B.m` gives "a.B"; PHP `use A\{B, C}` gives "A\\B" and "A\\C".
 *   call     the callee as written, with "::", "->" and "\\" turned into
 *            '.' and a leading self/this/cls/$this/Self receiver removed:
 *            "foo", "self.bar()" -> "bar", "requests.get", "os.path.join",
 *            "Foo::new" -> "Foo.new", PHP "$db->query()" -> "db.query". A
 *            callee that is not a plain dotted name (a(b).c(), x[0]()) is
 *            recorded by its last name ("c"). The last '.'-part is the called
 *            name. Not calls: Ruby require/include/extend..., JS require,
 *            common shell builtins (echo, cd, export...), PHP $f().
 *   inherit  a base class, implemented interface, mixin, embedded Go type or
 *            the trait of a Rust `impl Trait for Type`, as written without
 *            type arguments ("Base", "models.Model", "Base.Cart" for
 *            Base::Cart); src_symbol is the class (for Rust, the Type if
 *            this file defines it).
 *
 * Chunks. Every symbol that is not inside another symbol gets a chunk (its
 * leading comment included); a class-like symbol (class, interface, struct,
 * enum, trait, module) with functions or classes below its first line gets
 * one chunk per member instead, recursively, and its own lines between them
 * (the header: signature, docstring, fields) become chunks of the class
 * (lines of only braces or `end` are dropped). Constants and
 * variables are left to the windows. Symbols longer than
 * MN_PARSE_SYMBOL_WINDOW lines are cut into windows of that many lines; code
 * outside any symbol is cut into windows of at most MN_PARSE_TEXT_WINDOW
 * lines (windows with no letter or digit are dropped). A chunk's text is at
 * most MN_PARSE_CHUNK_TEXT_MAX bytes (cut at a character boundary); its hash
 * covers the whole untruncated span.
 *
 * Robustness. Broken code is extracted as far as the tree allows
 * (syntax_errors is set). Every string in the result is valid UTF-8 with no
 * NUL: invalid bytes and NULs of the source become U+FFFD.
 */
#ifndef MN_INDEX_PARSE_H
#define MN_INDEX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_index.h"
#include "util/arena.h"
#include "util/vec.h"

#define MN_PARSE_SIGNATURE_MAX  200
#define MN_PARSE_DOCSTRING_MAX  500
#define MN_PARSE_CHUNK_TEXT_MAX 8192
#define MN_PARSE_SYMBOL_WINDOW  80
#define MN_PARSE_TEXT_WINDOW    60
/* tree-sitter's byte offsets are 32-bit. */
#define MN_PARSE_MAX_INPUT ((size_t)UINT32_MAX)

/* One per thread: a tree-sitter parser, a query cursor, and each language's
 * compiled query, built on first use and cached. Not thread-safe. */
typedef struct mn_parser mn_parser;

/** A new parser (*out; free with mn_parser_free). Fails only on a broken build. */
int mn_parser_new(mn_parser **out);
void mn_parser_free(mn_parser *p);

typedef struct {
    mn_arena arena;                /* every string of the result lives here */
    MN_VEC(mn_symbol_rec) symbols; /* definitions, in source order */
    MN_VEC(mn_ref_rec) refs;       /* in source order of first occurrence */
    MN_VEC(mn_chunk_rec) chunks;   /* in source order */
    int64_t lines;                 /* newlines, plus one for an unterminated last line */
    bool syntax_errors;            /* the tree had ERROR nodes: extraction is best effort */
} mn_parse_result;

#define MN_PARSE_RESULT_INIT                                       \
    {                                                              \
        MN_ARENA_INIT, MN_VEC_INIT, MN_VEC_INIT, MN_VEC_INIT, 0, 0 \
    }

/**
 * Extract one file.
 *
 * language: a name mn_classify gives ("python", "javascript", "typescript",
 * "tsx", "go", "rust", "java", "c", "cpp", "ruby", "php", "csharp", "bash",
 * "markdown", others) or NULL; path is used only to recognize markdown
 * ("*.md", "*.markdown") when language is NULL. src need not be
 * NUL-terminated and may hold any bytes.
 *
 * out must be zeroed (MN_PARSE_RESULT_INIT) or a result of an earlier call;
 * its content is replaced, its vectors reused. Release it with
 * mn_parse_result_release. A file that cannot be parsed still gets windows:
 * the only failures are bad arguments (MN_EINVAL) and inputs over
 * MN_PARSE_MAX_INPUT (MN_ETOOBIG).
 */
int mn_parser_parse(mn_parser *p, mn_parse_result *out, const char *language, const char *path,
                    const char *src, size_t len);

/** Free what a result holds; it is zeroed and may be reused. */
void mn_parse_result_release(mn_parse_result *r);

/** A view of the result for mn_store_file_replace (borrows r's memory). */
void mn_parse_result_content(const mn_parse_result *r, mn_file_content *out);

/** Whether language gets symbols and references (a grammar, or markdown). */
bool mn_parse_language_supported(const char *language);

typedef struct {
    bool has_grammar;     /* a tree-sitter grammar is registered for it */
    bool compiled;        /* its query compiled (possibly after dropping patterns) */
    size_t patterns;      /* patterns in the compiled query */
    size_t dropped_forms; /* patterns the grammar refused (node types it lacks) */
    size_t disabled;      /* patterns with a predicate mnemo cannot evaluate */
} mn_parse_query_info;

/** How language's query compiled in this parser (compiling it if needed); for doctor and tests. */
int mn_parser_query_info(mn_parser *p, const char *language, mn_parse_query_info *out);

#endif
