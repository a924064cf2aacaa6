/*
 * languages.c - which files are code, how languages are named, and how
 * much of the code each language holds.
 *
 * The share table (dx_language_table) counts lines of source and test files
 * in programming languages (data and prose formats are never code, whatever
 * their role), largest first, ties by name: the languages fact prints it,
 * and the scans are ordered by it (dx_lang_rank), so the main language's
 * ecosystem names the project and its commands win ties. A language's
 * family counts with it in that rank: TypeScript for JavaScript, C++ for C,
 * Kotlin and Scala for Java.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

/* Data and prose formats: files in them are not code, whatever their role. */
static const char not_code[] =
    "markdown rst asciidoc text json yaml toml xml svg ini properties csv diff";

bool dx_is_code(const char *lang)
{
    return lang && !dx_in_words(lang, strlen(lang), not_code);
}

bool dx_counts_as_code(const dx_file *f)
{
    return (f->role == MN_ROLE_SOURCE || f->role == MN_ROLE_TEST) && dx_is_code(f->language);
}

const char *dx_lang_display(const char *l)
{
    static const char *const names[][2] = {
        {"python", "Python"},
        {"javascript", "JavaScript"},
        {"typescript", "TypeScript"},
        {"tsx", "TypeScript"},
        {"c", "C"},
        {"cpp", "C++"},
        {"cuda", "CUDA"},
        {"objc", "Objective-C"},
        {"objcpp", "Objective-C++"},
        {"csharp", "C#"},
        {"fsharp", "F#"},
        {"vbnet", "Visual Basic"},
        {"java", "Java"},
        {"kotlin", "Kotlin"},
        {"scala", "Scala"},
        {"groovy", "Groovy"},
        {"clojure", "Clojure"},
        {"go", "Go"},
        {"rust", "Rust"},
        {"swift", "Swift"},
        {"dart", "Dart"},
        {"cython", "Cython"},
        {"ruby", "Ruby"},
        {"erb", "ERB"},
        {"php", "PHP"},
        {"perl", "Perl"},
        {"lua", "Lua"},
        {"r", "R"},
        {"julia", "Julia"},
        {"haskell", "Haskell"},
        {"ocaml", "OCaml"},
        {"elixir", "Elixir"},
        {"erlang", "Erlang"},
        {"elm", "Elm"},
        {"zig", "Zig"},
        {"nim", "Nim"},
        {"pony", "Pony"},
        {"crystal", "Crystal"},
        {"fortran", "Fortran"},
        {"pascal", "Pascal"},
        {"ada", "Ada"},
        {"asm", "Assembly"},
        {"racket", "Racket"},
        {"scheme", "Scheme"},
        {"lisp", "Common Lisp"},
        {"haxe", "Haxe"},
        {"gleam", "Gleam"},
        {"purescript", "PureScript"},
        {"rescript", "ReScript"},
        {"vala", "Vala"},
        {"raku", "Raku"},
        {"verilog", "SystemVerilog"},
        {"vhdl", "VHDL"},
        {"glsl", "GLSL"},
        {"hlsl", "HLSL"},
        {"wgsl", "WGSL"},
        {"vue", "Vue"},
        {"svelte", "Svelte"},
        {"html", "HTML"},
        {"css", "CSS"},
        {"scss", "SCSS"},
        {"sass", "Sass"},
        {"less", "Less"},
        {"bash", "Shell"},
        {"fish", "Fish"},
        {"powershell", "PowerShell"},
        {"batch", "Batch"},
        {"sql", "SQL"},
        {"latex", "LaTeX"},
        {"protobuf", "Protocol Buffers"},
        {"graphql", "GraphQL"},
        {"hcl", "HCL"},
        {"nix", "Nix"},
        {"starlark", "Starlark"},
        {"thrift", "Thrift"},
        {"solidity", "Solidity"},
        {"make", "Makefile"},
        {"cmake", "CMake"},
        {"dockerfile", "Dockerfile"},
        {"meson", "Meson"},
        {"awk", "Awk"},
        {"tcl", "Tcl"},
        {"markdown", "Markdown"},
        {"rst", "reStructuredText"},
        {"asciidoc", "AsciiDoc"},
        {"text", "text"},
        {"json", "JSON"},
        {"yaml", "YAML"},
        {"toml", "TOML"},
        {"xml", "XML"},
        {"svg", "SVG"},
        {"ini", "INI"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++)
        if (!strcmp(names[i][0], l))
            return names[i][1];
    return l;
}

static int by_second_desc(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_array_get(*(json_t *const *)a, 1));
    json_int_t y = json_integer_value(json_array_get(*(json_t *const *)b, 1));
    if (x != y)
        return x < y ? 1 : -1;
    return strcmp(json_string_value(json_array_get(*(json_t *const *)a, 0)),
                  json_string_value(json_array_get(*(json_t *const *)b, 0)));
}

json_t *dx_language_table(const dx_ctx *d, const char *under, bool (*in)(const dx_file *))
{
    json_t *acc = json_object();
    size_t ul = under ? strlen(under) : 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        if (!in(f) || !f->language ||
            (under && (strncmp(f->path, under, ul) || f->path[ul] != '/')))
            continue;
        const char *name = dx_lang_display(f->language);
        json_t *e = json_object_get(acc, name);
        if (!e) {
            e = json_pack("[s,I,I]", name, (json_int_t)0, (json_int_t)0);
            json_object_set_new(acc, name, e);
        }
        json_array_set_new(e, 1, json_integer(json_integer_value(json_array_get(e, 1)) + f->lines));
        json_array_set_new(e, 2, json_integer(json_integer_value(json_array_get(e, 2)) + 1));
    }
    size_t n = json_object_size(acc), k = 0;
    json_t **v = mn_malloc((n ? n : 1) * sizeof(json_t *));
    const char *key;
    json_t *e;
    json_object_foreach(acc, key, e) v[k++] = e;
    qsort(v, n, sizeof(json_t *), by_second_desc);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
    json_decref(acc);
    return out;
}

size_t dx_lang_rank(const dx_ctx *d, const char *eco_lang)
{
    static const char *const family[][4] = {{"javascript", "JavaScript", "TypeScript", NULL},
                                            {"typescript", "TypeScript", "JavaScript", NULL},
                                            {"python", "Python", "Cython", NULL},
                                            {"c", "C", "C++", NULL},
                                            {"cpp", "C++", "C", NULL},
                                            {"java", "Java", "Kotlin", "Scala"},
                                            {"csharp", "C#", "F#", "Visual Basic"},
                                            {"go", "Go", NULL, NULL},
                                            {"rust", "Rust", NULL, NULL},
                                            {"ruby", "Ruby", NULL, NULL},
                                            {"php", "PHP", NULL, NULL}};
    size_t best = 1000;
    for (size_t f = 0; f < MN_ARRAY_SIZE(family); f++) {
        if (strcmp(family[f][0], eco_lang))
            continue;
        for (int k = 1; k < 4 && family[f][k]; k++) {
            size_t i;
            json_t *e;
            json_array_foreach(
                d->langshare, i,
                e) if (!strcmp(json_string_value(json_array_get(e, 0)), family[f][k]) && i < best)
                best = i;
        }
    }
    return best;
}
