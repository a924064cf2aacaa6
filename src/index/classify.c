/*
 * classify.c - language, role and binary-ness of a file (see classify.h).
 *
 * Everything here is a table plus a short function that reads it, so a
 * rule is changed in one place. The tables say why each entry is there;
 * conventions are general (the way an ecosystem names things), never about
 * one particular repository. Matching is on ASCII only: a path component
 * such as "Tests" matches "tests" where the table says case does not
 * matter.
 *
 * Cost: a handful of short linear scans over small tables and one pass over
 * at most MN_CLASSIFY_HEAD_MAX bytes; no allocation.
 */
#include "common.h"
#include "index/classify.h"
#include "index/gitattrs.h"
#include "index/testpaths.h"

/* ---- ASCII helpers ---- */

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

/* a[0..n) equals the C string b, ignoring ASCII case */
static bool ieqn(const char *a, size_t n, const char *b)
{
    size_t i = 0;
    for (; i < n && b[i]; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return i == n && b[i] == '\0';
}

static bool ieq(const char *a, const char *b)
{
    return ieqn(a, strlen(a), b);
}

static bool starts_with(const char *s, const char *pre)
{
    return strncmp(s, pre, strlen(pre)) == 0;
}

/*
 * The rule tables below are lists of words separated by single spaces, one
 * string each: easy to read and to extend. next_word walks such a list.
 */
static bool next_word(const char **w, const char **word, size_t *n)
{
    while (**w == ' ')
        (*w)++;
    if (!**w)
        return false;
    const char *e = strchr(*w, ' ');
    *word = *w;
    *n = e ? (size_t)(e - *w) : strlen(*w);
    *w += *n;
    return true;
}

/* Is key[0..n) one of the space-separated words? */
static bool word_in(const char *key, size_t n, const char *words, bool ignore_case)
{
    const char *word;
    size_t m;
    while (next_word(&words, &word, &m)) {
        if (m != n)
            continue;
        size_t i = 0;
        while (i < n && (ignore_case ? lower(key[i]) == lower(word[i]) : key[i] == word[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

static bool in_list(const char *s, const char *words)
{
    return word_in(s, strlen(s), words, false);
}

static bool in_list_i(const char *s, size_t n, const char *words)
{
    return word_in(s, n, words, true);
}

/* ---- the path, taken apart once ---- */

typedef struct {
    const char *path;
    const char *base; /* the file name: after the last '/' */
    const char *ext;  /* after the last '.' of base; "" when none (".bashrc" has none) */
    size_t stem_len;  /* base up to that '.', or all of base */
    const char *ext2; /* the extension before ext ("test" in "a.test.ts"); "" when none */
    size_t ext2_len;
} pathinfo;

static void path_split(pathinfo *pi, const char *path)
{
    const char *slash = strrchr(path, '/');
    pi->path = path;
    pi->base = slash ? slash + 1 : path;
    const char *dot = strrchr(pi->base, '.');
    if (dot && dot != pi->base) {
        pi->ext = dot + 1;
        pi->stem_len = (size_t)(dot - pi->base);
    } else {
        pi->ext = "";
        pi->stem_len = strlen(pi->base);
    }
    pi->ext2 = "";
    pi->ext2_len = 0;
    for (size_t i = pi->stem_len; i-- > 1;) {
        if (pi->base[i] == '.') {
            pi->ext2 = pi->base + i + 1;
            pi->ext2_len = pi->stem_len - i - 1;
            break;
        }
    }
}

/* Does a directory component of the path (not the file name) appear in list? */
static bool dir_in(const pathinfo *pi, const char *words, bool ignore_case)
{
    const char *p = pi->path;
    while (p < pi->base) {
        const char *q = memchr(p, '/', (size_t)(pi->base - p));
        if (!q)
            break;
        if (word_in(p, (size_t)(q - p), words, ignore_case))
            return true;
        p = q + 1;
    }
    return false;
}

/* ---- binary ---- */

/*
 * Extensions whose content is never text the index can use, whatever the
 * head looks like (a PDF or an SVG-less image can start with ASCII), in
 * this order: images, fonts, archives and packages, object code, media,
 * office documents, data stores and model weights. Lower case; compared
 * ignoring case.
 */
static const char binary_exts[] =
    "png jpg jpeg gif bmp ico icns webp tif tiff psd heic avif woff woff2 ttf otf eot "
    "zip gz tgz bz2 xz zst 7z rar tar jar war ear whl egg deb rpm apk dmg iso nupkg "
    "gem exe dll so dylib o a obj lib class pyc pyo pyd wasm bin elf dex mp3 mp4 m4a "
    "wav ogg flac avi mov mkv webm pdf doc docx xls xlsx ppt pptx odt ods odp db "
    "sqlite sqlite3 mdb parquet npy npz pkl pickle h5 hdf5 onnx pt pth safetensors "
    "lockb";

/*
 * Content test: a NUL byte means binary (no text encoding the index reads
 * has one, and git uses the same test); otherwise count bytes that are not
 * part of well-formed UTF-8 and control characters other than \t \n \v \f
 * \r and ESC (ANSI colours in logs). Above 30% of the head it is binary:
 * legacy 8-bit text (Latin-1 comments) has a few per cent, compressed or
 * encrypted data about half. A multi-byte sequence cut by the end of a
 * partial head is not held against the file.
 */
static bool looks_binary(const unsigned char *s, size_t len, uint64_t size)
{
    size_t bad = 0;
    if (len == 0)
        return false;
    if (memchr(s, 0, len))
        return true;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && !(c >= '\t' && c <= '\r') && c != 0x1b) || c == 0x7f)
                bad++;
            i++;
            continue;
        }
        size_t n = c >= 0xC2 && c <= 0xDF   ? 1
                   : c >= 0xE0 && c <= 0xEF ? 2
                   : c >= 0xF0 && c <= 0xF4 ? 3
                                            : 0;
        if (n == 0) {
            bad++;
            i++;
            continue;
        }
        if (i + n >= len) {
            /* the sequence runs past the head: cut there, or broken at the end of the file */
            if ((uint64_t)len < size)
                break;
            bad += len - i;
            break;
        }
        size_t k = 1;
        while (k <= n && (s[i + k] & 0xC0) == 0x80)
            k++;
        if (k <= n) {
            bad++;
            i++;
            continue;
        }
        i += n + 1;
    }
    return bad * 10 > len * 3;
}

/* ---- language ---- */

/* A language and the words that name it: file names, extensions or interpreters. */
typedef struct {
    const char *lang;
    const char *words;
} lang_entry;

/*
 * Exact file names, checked before extensions: build files without an
 * extension (Makefile) or whose extension says nothing (CMakeLists.txt is
 * CMake, not text; meson.build; BUILD.bazel), Ruby DSL files, shell
 * startup files, and lock files whose format is a known language.
 */
static const lang_entry lang_names[] = {
    {"make", "Makefile makefile GNUmakefile"},
    {"dockerfile", "Dockerfile Containerfile"},
    {"cmake", "CMakeLists.txt"},
    {"meson", "meson.build meson_options.txt meson.options"},
    {"starlark", "BUILD BUILD.bazel WORKSPACE WORKSPACE.bazel MODULE.bazel Tiltfile"},
    {"ruby", "Gemfile Rakefile Guardfile Podfile Vagrantfile Brewfile Fastfile Dangerfile Capfile"},
    {"groovy", "Jenkinsfile"},
    {"toml", "Pipfile Cargo.lock poetry.lock uv.lock pdm.lock"},
    {"just", "Justfile justfile"},
    {"bash", ".bashrc .bash_profile .bash_aliases .bash_logout .profile .zshrc .zprofile .zshenv "
             "PKGBUILD APKBUILD"},
    {"ini", ".editorconfig .gitconfig"},
    {"json", "composer.lock Pipfile.lock flake.lock deno.lock"},
    {"python", "SConstruct SConscript Snakefile"},
    {NULL, NULL}};

/*
 * Extensions, lower case (the lookup tries the exact case first, for .C
 * and .H, which are C++ by the old Unix convention, and .S, assembly run
 * through the C preprocessor). .h is "c": a header alone does not say which
 * language includes it. Shells of the sh family, zsh included, are "bash":
 * one grammar reads them all well enough. A language with no grammar here
 * is still named (its files are code, cut into windows): text in no known
 * language is config, and ponyc's standard library (.pony), a quarter of
 * its fixes since 2019, ranked at half weight as such (retrieval.md).
 * Extensions that name several languages are left as they were: .v
 * (Verilog, Coq, V) and .d (D, make's dependency files) name none, .pl is
 * Perl (not Prolog).
 */
static const lang_entry lang_exts[] = {
    {"c", "c h"},
    {"cpp", "C H cc cpp cxx c++ hpp hh hxx h++ ipp tpp inl ixx cppm"},
    {"cuda", "cu cuh"},
    {"objc", "m"},
    {"objcpp", "mm"},
    {"csharp", "cs csx"},
    {"fsharp", "fs fsi fsx"},
    {"vbnet", "vb"},
    {"java", "java"},
    {"kotlin", "kt kts"},
    {"scala", "scala sc"},
    {"groovy", "groovy gradle"},
    {"clojure", "clj cljs cljc edn"},
    {"elisp", "el"},
    {"vim", "vim"},
    {"go", "go"},
    {"rust", "rs"},
    {"swift", "swift"},
    {"dart", "dart"},
    {"python", "py pyi pyw"},
    {"cython", "pyx pxd"},
    {"ruby", "rb rake gemspec ru"},
    {"erb", "erb"},
    {"php", "php phtml"},
    {"perl", "pl pm"},
    {"lua", "lua"},
    {"r", "r"},
    {"julia", "jl"},
    {"haskell", "hs lhs"},
    {"ocaml", "ml mli"},
    {"elixir", "ex exs"},
    {"erlang", "erl hrl"},
    {"elm", "elm"},
    {"zig", "zig"},
    {"nim", "nim"},
    {"pony", "pony"},
    {"crystal", "cr"},
    {"fortran", "f90 f95 f03 f08"},
    {"pascal", "pas dpr"},
    {"ada", "adb ads"},
    {"asm", "asm s S"},
    {"racket", "rkt"},
    {"scheme", "scm"},
    {"lisp", "lisp"},
    {"haxe", "hx"},
    {"gleam", "gleam"},
    {"purescript", "purs"},
    {"rescript", "res resi"},
    {"vala", "vala"},
    {"raku", "raku rakumod"},
    {"tcl", "tcl"},
    {"awk", "awk"},
    {"verilog", "sv svh"},
    {"vhdl", "vhd vhdl"},
    {"glsl", "glsl vert frag"},
    {"hlsl", "hlsl"},
    {"wgsl", "wgsl"},
    {"javascript", "js mjs cjs jsx"},
    {"typescript", "ts mts cts"},
    {"tsx", "tsx"},
    {"vue", "vue"},
    {"svelte", "svelte"},
    {"html", "html htm xhtml"},
    {"css", "css"},
    {"scss", "scss"},
    {"sass", "sass"},
    {"less", "less"},
    {"bash", "sh bash zsh ksh bats"},
    {"fish", "fish"},
    {"powershell", "ps1 psm1 psd1"},
    {"batch", "bat cmd"},
    {"sql", "sql"},
    {"markdown", "md markdown mdx mkd"},
    {"rst", "rst"},
    {"asciidoc", "adoc asciidoc"},
    {"latex", "tex"},
    {"text", "txt"},
    {"json", "json jsonc json5 jsonl ndjson geojson webmanifest"},
    {"yaml", "yml yaml"},
    {"toml", "toml"},
    {"xml", "xml xsd xsl xslt plist csproj fsproj vbproj props targets resx"},
    {"svg", "svg"},
    {"ini", "ini cfg"},
    {"properties", "properties"},
    {"cmake", "cmake"},
    {"make", "mk mak"},
    {"dockerfile", "dockerfile"},
    {"protobuf", "proto"},
    {"graphql", "graphql gql"},
    {"hcl", "tf tfvars hcl"},
    {"nix", "nix"},
    {"starlark", "bzl star"},
    {"thrift", "thrift"},
    {"solidity", "sol"},
    {"csv", "csv tsv"},
    {"diff", "diff patch"},
    {NULL, NULL}};

/*
 * Interpreters named by a #! line or a modeline, after stripping a version
 * ("python3.11" -> "python"). Lower case. Some words are only ever seen in
 * modelines (Emacs "shell-script", Vim "dosini").
 */
static const lang_entry lang_interps[] = {{"python", "python pypy"},
                                          {"bash", "bash sh dash ash ksh mksh zsh shell-script"},
                                          {"javascript", "node nodejs bun js javascript"},
                                          {"typescript", "deno ts-node tsx typescript"},
                                          {"ruby", "ruby jruby"},
                                          {"php", "php"},
                                          {"perl", "perl"},
                                          {"lua", "lua luajit"},
                                          {"r", "rscript"},
                                          {"fish", "fish"},
                                          {"powershell", "pwsh"},
                                          {"make", "make makefile"},
                                          {"julia", "julia"},
                                          {"elixir", "elixir"},
                                          {"erlang", "escript"},
                                          {"groovy", "groovy"},
                                          {"swift", "swift"},
                                          {"scala", "scala"},
                                          {"awk", "awk gawk"},
                                          {"tcl", "tclsh wish"},
                                          {"cpp", "c++ cpp"},
                                          {"c", "c"},
                                          {"yaml", "yaml"},
                                          {"json", "json"},
                                          {"toml", "toml"},
                                          {"go", "go"},
                                          {"rust", "rust"},
                                          {"java", "java"},
                                          {"dockerfile", "dockerfile"},
                                          {"cmake", "cmake"},
                                          {"markdown", "markdown"},
                                          {"ini", "conf dosini"},
                                          {NULL, NULL}};

static const char *lang_lookup(const lang_entry *t, const char *key, size_t n, bool ignore_case)
{
    for (; t->lang; t++)
        if (word_in(key, n, t->words, ignore_case))
            return t->lang;
    return NULL;
}

/* "python3.11" -> "python"; "lua5.1" -> "lua"; keeps "c++". */
static const char *interp_lang(const char *name, size_t n)
{
    while (n > 1 && ((name[n - 1] >= '0' && name[n - 1] <= '9') || name[n - 1] == '.'))
        n--;
    return lang_lookup(lang_interps, name, n, true);
}

static const char *lang_by_shebang(const char *s, size_t len)
{
    if (len < 3 || s[0] != '#' || s[1] != '!')
        return NULL;
    const char *end = memchr(s, '\n', len < 256 ? len : 256);
    if (!end)
        end = s + (len < 256 ? len : 256);
    const char *p = s + 2;
    bool after_env = false;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *tok = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (p == tok)
            return NULL;
        const char *name = tok;
        for (const char *q = tok; q < p; q++)
            if (*q == '/')
                name = q + 1;
        size_t n = (size_t)(p - name);
        if (!after_env && n == 3 && !memcmp(name, "env", 3)) {
            after_env = true;
            continue;
        }
        /* env options (-S, -i) and VAR=value assignments come before the command */
        if (after_env && (tok[0] == '-' || memchr(tok, '=', (size_t)(p - tok))))
            continue;
        return interp_lang(name, n);
    }
    return NULL;
}

/* The value after `key` up to a delimiter, in [s, end). */
static const char *modeline_value(const char *s, const char *end, const char *key, size_t *n)
{
    size_t kl = strlen(key);
    for (const char *p = s; p + kl <= end; p++) {
        if (ieqn(p, kl, key)) {
            const char *v = p + kl, *e;
            while (v < end && *v == ' ')
                v++;
            e = v;
            while (e < end && *e != ' ' && *e != ';' && *e != ':' && *e != '\t' && *e != '\r')
                e++;
            if (e > v) {
                *n = (size_t)(e - v);
                return v;
            }
        }
    }
    return NULL;
}

/*
 * Content, for files no name, extension or #! explains: a PHP, XML or HTML
 * opening, or an editor modeline in the first five lines (Emacs
 * "-*- mode: python -*-" or "-*- python -*-", Vim "vim: set ft=ruby").
 */
/*
 * Whether a .h file's head is C++: a line that starts (after blanks) with
 * `namespace x`, `template <`, `class X` then `{`, `:` or the line's end,
 * `public:` / `private:` / `protected:`, `using namespace`, or includes a
 * header without an extension (`#include <string>`: C's, POSIX's and most
 * libraries' headers end in .h). A C++ header read with the C grammar
 * gave no classes, methods or typed receivers (cpp-httplib's httplib.h,
 * Catch2's and simdjson's .h files: issue 22). A C header that only wraps
 * itself in `extern "C"` stays C.
 */
static bool word_start(unsigned char c)
{
    return (c | 32) >= 'a' && (c | 32) <= 'z' ? true : c == '_';
}

static bool h_is_cpp(const char *s, size_t len)
{
    const char *p = s, *end = s + len;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        while (p < le && (*p == ' ' || *p == '\t'))
            p++;
        size_t n = (size_t)(le - p);
#define AT(lit) (n >= sizeof(lit) - 1 && !memcmp(p, lit, sizeof(lit) - 1))
        if (AT("template <") || AT("template<") || AT("public:") || AT("private:") ||
            AT("protected:") || AT("using namespace "))
            return true;
        if (AT("namespace ") && n > 10 && word_start((unsigned char)p[10]))
            return true;
        if (AT("class ") && n > 6 && p[6] >= 'A' && p[6] <= 'Z') {
            const char *q = p + 6;
            while (q < le && (word_start((unsigned char)*q) || (*q >= '0' && *q <= '9')))
                q++;
            while (q < le && (*q == ' ' || *q == '\r'))
                q++;
            if (q == le || *q == '{' || *q == ':')
                return true;
        }
        if (AT("#include <")) {
            const char *q = p + 10, *gt = memchr(q, '>', (size_t)(le - q));
            if (gt && gt > q && !memchr(q, '.', (size_t)(gt - q)) &&
                !memchr(q, '/', (size_t)(gt - q)))
                return true;
        }
#undef AT
        p = nl ? nl + 1 : NULL;
    }
    return false;
}

static const char *lang_by_content(const char *s, size_t len)
{
    size_t lim = len < 1024 ? len : 1024;
    size_t i = 0;
    while (i < lim && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    if (lim - i >= 5 && !memcmp(s + i, "<?php", 5))
        return "php";
    if (lim - i >= 5 && !memcmp(s + i, "<?xml", 5))
        return "xml";
    if ((lim - i >= 14 && ieqn(s + i, 14, "<!doctype html")) ||
        (lim - i >= 5 && ieqn(s + i, 5, "<html")))
        return "html";
    const char *p = s, *end = s + lim;
    for (int line = 0; line < 5 && p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *a = NULL;
        for (const char *q = p; q + 3 <= le; q++)
            if (!memcmp(q, "-*-", 3)) {
                a = q + 3;
                break;
            }
        size_t n = 0;
        const char *v = NULL;
        if (a) {
            const char *b = a;
            while (b + 3 <= le && memcmp(b, "-*-", 3))
                b++;
            v = modeline_value(a, b, "mode:", &n);
            if (!v) {
                while (a < b && *a == ' ')
                    a++;
                const char *e = a;
                while (e < b && *e != ' ' && *e != ';')
                    e++;
                if (e > a && !memchr(a, ':', (size_t)(e - a)))
                    v = a, n = (size_t)(e - a);
            }
            while (v && n && v[0] == ' ')
                v++, n--;
        }
        if (!v && (modeline_value(p, le, "vim:", &n) || modeline_value(p, le, "vi:", &n))) {
            if (!(v = modeline_value(p, le, "filetype=", &n)))
                if (!(v = modeline_value(p, le, "ft=", &n)))
                    v = modeline_value(p, le, "syntax=", &n);
        }
        if (v) {
            const char *l = interp_lang(v, n);
            if (l)
                return l;
        }
        p = le + 1;
    }
    return NULL;
}

static const char *language_of(const pathinfo *pi, const char *head, size_t len)
{
    const char *l = lang_lookup(lang_names, pi->base, strlen(pi->base), false);
    if (l)
        return l;
    /* Dockerfile.dev, Dockerfile-prod: the Docker convention for variants */
    if (starts_with(pi->base, "Dockerfile.") || starts_with(pi->base, "Dockerfile-"))
        return "dockerfile";
    if (!strcmp(pi->ext, "h") && h_is_cpp(head, len))
        return "cpp";
    if (*pi->ext) {
        size_t n = strlen(pi->ext);
        if ((l = lang_lookup(lang_exts, pi->ext, n, false)) ||
            (l = lang_lookup(lang_exts, pi->ext, n, true)))
            return l;
    }
    if ((l = lang_by_shebang(head, len)))
        return l;
    return lang_by_content(head, len);
}

/* ---- roles ---- */

/*
 * Vendored: directory names that, by their ecosystem's convention, hold
 * other people's code copied or installed into the tree. Exact case.
 * "vendor" matches at any depth (Go modules, Ruby bundler, PHP composer,
 * Rails assets, monorepos with several modules); the rare project with a
 * first-party package named vendor/ is the accepted cost. Left out on
 * purpose because first-party code uses them as often: external/, extern/,
 * deps/ (this project's own deps/ is package metadata), lib/, libs/,
 * packages/ (JS monorepos keep their own packages there). A packages/
 * inside a Python package (requests/packages/urllib3, pip's old
 * _vendor's cousin) is the Python convention for bundled libraries: a
 * Python file below a packages/ that is not the tree's top directory is
 * vendored (nested_packages).
 */
static const char vendored_dirs[] =
    "node_modules bower_components jspm_packages vendor _vendor vendored third_party "
    "third-party thirdparty 3rdparty site-packages Pods Carthage";

/*
 * Lock files: pinned dependency resolutions written by package managers.
 * Never useful as context, often huge. Any other "*.lock" file counts too:
 * in a repository that is nearly always a dependency lock.
 */
static const char lock_names[] =
    "package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lockb "
    "bun.lock Cargo.lock poetry.lock Pipfile.lock pdm.lock uv.lock requirements.lock "
    "requirements-dev.lock Gemfile.lock composer.lock go.sum go.work.sum flake.lock "
    "mix.lock pubspec.lock Package.resolved Podfile.lock packages.lock.json "
    "gradle.lockfile deno.lock Cartfile.resolved MODULE.bazel.lock "
    ".terraform.lock.hcl conda-lock.yml shard.lock Manifest.toml";

/*
 * Generated, by the generator's naming convention. Directory names:
 * __generated__ (Relay, GraphQL codegen), generated/ (the usual output
 * directory of codegen tools), dist/ (built bundles of JS packages, at any
 * depth in monorepos). build/, out/ and target/ are NOT here: many trees
 * keep real build scripts in build/, and the others are almost always
 * ignored (or tagged with CACHEDIR.TAG, which walk.c skips).
 */
static const char generated_dirs[] = "__generated__ generated dist";

/* File name endings of generated code: minified assets, source maps, protobuf/gRPC, Dart and
 * .NET codegen. */
static const char generated_suffixes[] =
    ".min.js .min.mjs .min.css .js.map .mjs.map .css.map .d.ts.map _pb2.py _pb2.pyi "
    "_pb2_grpc.py .pb.go .pb.gw.go .pb.cc .pb.h .pb.c .pb-c.c .pb-c.h .pb.swift "
    ".pb.dart .pbenum.dart .pbjson.dart .pbgrpc.dart _pb.js _pb.d.ts _grpc_pb.js "
    ".g.dart .freezed.dart .g.cs .designer.cs .Designer.cs .generated.cs "
    "_generated.go";

/*
 * What a comment line of a generated file says, after its comment leader,
 * lower-cased, at its start (so a docstring that merely mentions generated
 * tokens does not count): Go's "Code generated ... DO NOT EDIT.", Django's
 * and protoc's "Generated by ...", and the usual English variants.
 */
static const char *const generated_openings[] = {"code generated",
                                                 "generated by",
                                                 "generated from",
                                                 "generated with",
                                                 "generated automatically",
                                                 "autogenerated",
                                                 "auto-generated",
                                                 "auto generated",
                                                 "automatically generated",
                                                 "this file is generated",
                                                 "this file was generated",
                                                 "this file has been generated",
                                                 "this file is automatically generated",
                                                 "this file was automatically generated",
                                                 "this file is auto-generated",
                                                 "this file was auto-generated",
                                                 "this file is autogenerated",
                                                 "this file was autogenerated",
                                                 "this code was generated",
                                                 "this code is generated",
                                                 "this is a generated file",
                                                 "this is an auto-generated file",
                                                 "this is an automatically generated file",
                                                 NULL};

/*
 * Banners that parser and lexer generators write at the top of their C
 * output, anywhere in a comment line: Bison's "A Bison parser, made by GNU
 * Bison 3.8.2.", flex's "A lexical scanner generated by flex", gperf's
 * "C code produced by gperf version 3.1". C projects commit this output
 * (jq's parser.c and lexer.c) and it holds every token and error message
 * of the grammar; GitHub Linguist has no rule for the first two.
 */
static const char *const generator_banners[] = {
    "made by gnu bison", "lexical scanner generated by flex", "code produced by gperf", NULL};

/* Comment leaders of the languages the index meets, longest first. */
static const char *const comment_leaders[] = {"<!--", "\"\"\"", "'''", "//", "/*", "--", "{-", "(*",
                                              "#",    "*",      ";",   "%",  "!",  "'",  NULL};

/* Skip whitespace and any comment leaders; NULL when the line is not a comment. */
static const char *comment_text(const char *p, const char *end)
{
    bool comment = false;
    for (int round = 0; round < 4; round++) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *const *l;
        for (l = comment_leaders; *l; l++) {
            size_t n = strlen(*l);
            if ((size_t)(end - p) >= n && !memcmp(p, *l, n)) {
                p += n;
                comment = true;
                break;
            }
        }
        if (!*l)
            break;
    }
    if (!comment && (size_t)(end - p) >= 4 && ieqn(p, 4, "rem "))
        return p + 4; /* batch files */
    return comment ? p : NULL;
}

static bool contains_i(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = s; p + n <= end; p++)
        if (ieqn(p, n, needle))
            return true;
    return false;
}

/*
 * Where a line of the head stands: inside a block comment or a docstring
 * still open at its start (*open: 1 for C's slash-star, 2 and 3 for Python's
 * triple double and single quotes), updated past the line.
 */
static void comment_state(const char *p, const char *le, int *open)
{
    for (const char *q = p; q < le; q++) {
        if (*open == 1) {
            if (q + 1 < le && q[0] == '*' && q[1] == '/')
                *open = 0, q++;
        } else if (*open >= 2) {
            char c = *open == 2 ? '"' : '\'';
            if (q + 2 < le && q[0] == c && q[1] == c && q[2] == c)
                *open = 0, q += 2;
        } else if (q + 1 < le && q[0] == '/' && q[1] == '*') {
            *open = 1, q++;
        } else if (q + 2 < le && (q[0] == '"' || q[0] == '\'') && q[1] == q[0] && q[2] == q[0]) {
            *open = q[0] == '"' ? 2 : 3, q += 2;
        } else if (*q == '"' || *q == '\'' || *q == '#' ||
                   (*q == '/' && q + 1 < le && q[1] == '/')) {
            return; /* a string literal or a line comment: the rest of the line is its */
        }
    }
}

/*
 * A generator's mark in the file's leading comments (the first 40 lines /
 * 4 KiB, up to the first line of code): "DO NOT EDIT" in capitals (the Go
 * convention, also protoc, thrift, swig), "@generated" (Facebook's and
 * Rust's), a generator's banner (generator_banners), an amalgamation's
 * note, or a line opening with one of generated_openings; or a Java
 * @Generated annotation anywhere in those lines. Lower-case "do not edit"
 * counts only when "generated" is in the same line: hand-written code says
 * "do not edit this without ..." too. Generators write their banner before
 * the code (Go requires it before the package clause); a mark after the
 * first line of code is a template the file writes or a remark: rich's
 * _export_format.py holds an HTML template saying "<!-- Generated with
 * Rich -->", xarray's generate_aggregations.py and sympy's
 * _build_latex_antlr.py the banner of the files they generate, and a
 * sympy test says "# generated by the search procedure". Preprocessor
 * lines, a shebang and "<?php" / "<?xml" openings are not code here (flex
 * writes #line and #define before its banner).
 */
static bool generated_by_content(const char *s, size_t len)
{
    const char *p = s, *end = s + (len < 4096 ? len : 4096);
    int open = 0;
    bool code = false; /* a line of code seen: only @Generated counts after it */
    for (int line = 0; line < 40 && p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        /* marks count on comment lines (a leader); a line inside a block comment or a
         * docstring without one is no code either, but prose: a docstring saying "generated
         * values" is no banner */
        const char *t = comment_text(p, le);
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (!t && !open && q < le && *q != '<')
            code = true; /* "<?php", "<?xml", "<!DOCTYPE", "<html>": an opening, not code */
        if (t && !code) {
            size_t n = (size_t)(le - t);
            while (n && (*t == ' ' || *t == '\t'))
                t++, n--;
            for (const char *r = p; r + 11 <= le; r++)
                if (!memcmp(r, "DO NOT EDIT", 11))
                    return true;
            if (contains_i(p, le, "@generated"))
                return true;
            if (contains_i(p, le, "do not edit") && contains_i(p, le, "generated"))
                return true;
            /* an amalgamation: a script's concatenation of the sources
             * into one file (SQLite's sqlite3.c, Catch2's catch.hpp and
             * catch_amalgamated.cpp, jsoncpp's dist): every name and word
             * of the project in one file, which no fix edits by hand */
            if ((contains_i(p, le, "amalgamat") &&
                 (contains_i(p, le, "file") || contains_i(p, le, "source") ||
                  contains_i(p, le, "header"))) ||
                contains_i(p, le, "merged from multiple"))
                return true;
            for (const char *const *b = generator_banners; *b; b++)
                if (contains_i(p, le, *b))
                    return true;
            for (const char *const *o = generated_openings; *o; o++) {
                size_t m = strlen(*o);
                if (n >= m && ieqn(t, m, *o))
                    return true;
            }
        } else if (!t && !open && (size_t)(le - q) >= 10 && !memcmp(q, "@Generated", 10)) {
            return true;
        }
        comment_state(p, le, &open);
        p = le + 1;
    }
    return false;
}

/*
 * Minified JavaScript or CSS: bundlers emit a few very long lines. A head of
 * at least 1 KiB whose lines average over 200 bytes is not hand-written
 * (hand-written code averages 30-40 and style guides cap lines at 80-120).
 */
static bool minified(const char *lang, const char *s, size_t len)
{
    if (!lang || len < 1024 || !(strcmp(lang, "javascript") == 0 || strcmp(lang, "css") == 0))
        return false;
    size_t lines = 1;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + len - p))) != NULL; p++)
        lines++;
    return len / lines > 200;
}

/*
 * Markers: files whose existence is the information (a package boundary, a
 * kept empty directory, a typing flag). Named ones are markers whatever they
 * hold; package entry files are markers when they hold only comments and
 * whitespace (a docstring counts as a comment for Python).
 */
static const char marker_names[] = ".gitkeep .keep py.typed .nojekyll";

typedef struct {
    const char *name;
    bool hash; /* '#' and docstring comments; otherwise // and slash-star */
} marker_entry;

static const marker_entry marker_entries[] = {
    {"__init__.py", true}, {"__init__.pyi", true}, {"index.js", false}, {"index.mjs", false},
    {"index.cjs", false},  {"index.jsx", false},   {"index.ts", false}, {"index.tsx", false},
    {"mod.rs", false},     {NULL, false}};

static bool only_comments(const char *s, size_t len, bool hash)
{
    const char *p = s, *end = s + len;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            p++;
        } else if (hash && c == '#') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl + 1 : end;
        } else if (hash && end - p >= 3 && (!memcmp(p, "\"\"\"", 3) || !memcmp(p, "'''", 3))) {
            const char *q = p + 3;
            const char *close = NULL;
            for (; q + 3 <= end; q++)
                if (!memcmp(q, p, 3)) {
                    close = q;
                    break;
                }
            if (!close)
                return false;
            p = close + 3;
        } else if (!hash && end - p >= 2 && p[0] == '/' && p[1] == '/') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl + 1 : end;
        } else if (!hash && end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (q + 2 <= end && !(q[0] == '*' && q[1] == '/'))
                q++;
            if (q + 2 > end)
                return false;
            p = q + 2;
        } else {
            return false;
        }
    }
    return true;
}

static bool is_marker(const pathinfo *pi, const char *head, size_t len, uint64_t size)
{
    if (size == 0)
        return true; /* an empty file carries nothing but its name */
    if (in_list(pi->base, marker_names))
        return true;
    for (const marker_entry *m = marker_entries; m->name; m++)
        if (!strcmp(pi->base, m->name))
            return (uint64_t)len >= size && only_comments(head, len, m->hash);
    return false;
}

/*
 * Build: how the project is built, packaged, tested in CI and run. These
 * are the files discovery reads for build/test/run commands and package
 * managers. Exact names first.
 */
static const char build_names[] =
    "Makefile makefile GNUmakefile CMakeLists.txt meson.build meson_options.txt "
    "meson.options configure.ac configure.in Makefile.am Makefile.in setup.py "
    "setup.cfg pyproject.toml Pipfile noxfile.py environment.yml environment.yaml "
    "package.json pnpm-workspace.yaml lerna.json nx.json turbo.json rush.json "
    "Cargo.toml go.mod go.work pom.xml build.gradle build.gradle.kts settings.gradle "
    "settings.gradle.kts gradlew gradlew.bat mvnw mvnw.cmd build.sbt build.xml "
    "Gemfile Rakefile composer.json Dockerfile Containerfile docker-compose.yml "
    "docker-compose.yaml compose.yml compose.yaml BUILD BUILD.bazel WORKSPACE "
    "WORKSPACE.bazel MODULE.bazel build.zig build.zig.zon Justfile justfile "
    "Taskfile.yml Taskfile.yaml mix.exs rebar.config stack.yaml Podfile Package.swift "
    "pubspec.yaml Earthfile Tiltfile SConstruct SConscript wscript Snakefile "
    "vcpkg.json conanfile.txt conanfile.py flake.nix default.nix shell.nix Procfile "
    "Jenkinsfile Vagrantfile Brewfile PKGBUILD APKBUILD Directory.Build.props "
    "Directory.Build.targets Directory.Packages.props global.json build.ps1 build.sh "
    "configure .gitlab-ci.yml .travis.yml azure-pipelines.yml bitbucket-pipelines.yml "
    "appveyor.yml .appveyor.yml .drone.yml cloudbuild.yaml cloudbuild.yml codecov.yml "
    ".pre-commit-config.yaml";

/* Build extensions: CMake modules, make fragments, Bazel macros, .NET projects, gemspecs, Cabal. */
static const char build_exts[] =
    "cmake mk mak bzl csproj fsproj vbproj sln nuspec gemspec cabal gradle podspec";

/* CI directories: every file in them is a pipeline definition. */
static const char build_ci_dirs[] = ".github/workflows/ .circleci/ .buildkite/ .gitlab/ci/";

static bool is_build(const pathinfo *pi)
{
    if (in_list(pi->base, build_names))
        return true;
    if (*pi->ext && in_list_i(pi->ext, strlen(pi->ext), build_exts))
        return true;
    /* Dockerfile variants, and requirements files in any of pip's usual spellings. */
    if (starts_with(pi->base, "Dockerfile.") || starts_with(pi->base, "Dockerfile-") ||
        ieq(pi->ext, "dockerfile"))
        return true;
    if ((starts_with(pi->base, "requirements") || starts_with(pi->base, "constraints")) &&
        (!strcmp(pi->ext, "txt") || !strcmp(pi->ext, "in")))
        return true;
    if (dir_in(pi, "requirements", false) && (!strcmp(pi->ext, "txt") || !strcmp(pi->ext, "in")))
        return true;
    const char *w = build_ci_dirs, *dir;
    size_t n;
    while (next_word(&w, &dir, &n)) {
        const char *p = pi->path;
        while (p < pi->base) {
            if ((size_t)(pi->base - p) >= n && !memcmp(p, dir, n) &&
                (p == pi->path || p[-1] == '/'))
                return true;
            const char *q = memchr(p, '/', (size_t)(pi->base - p));
            if (!q)
                break;
            p = q + 1;
        }
    }
    return false;
}

/*
 * Documentation by name: the files a project keeps at its top (and
 * sometimes in subdirectories) to explain itself. Matched on the name before
 * the extension, ignoring case, when the extension is a documentation one
 * or absent (license.py is code); README and LICENSE also match with a
 * suffix (README.zh-CN.md, LICENSE-MIT, LICENSE.APACHE2).
 */
static const char doc_stems[] =
    "readme license licence copying copyright changelog changes history news "
    "contributing contributors authors maintainers notice patents code_of_conduct "
    "security support governance install upgrading roadmap releasenotes release_notes "
    "faq";

static const char doc_exts[] = "md markdown mdx mkd rst adoc asciidoc txt org tex rdoc textile pod";

static bool is_doc_name(const pathinfo *pi, const char *lang)
{
    static const char *const prefixed[] = {"readme",  "license",   "licence",
                                           "copying", "changelog", NULL};
    bool doc_ext = !*pi->ext || in_list_i(pi->ext, strlen(pi->ext), doc_exts);
    if (in_list_i(pi->base, pi->stem_len, doc_stems) && (doc_ext || !lang))
        return true;
    for (const char *const *p = prefixed; *p; p++) {
        size_t n = strlen(*p);
        if (strlen(pi->base) > n && ieqn(pi->base, n, *p) &&
            (pi->base[n] == '.' || pi->base[n] == '-' || pi->base[n] == '_') && (doc_ext || !lang))
            return true;
    }
    return false;
}

/*
 * Test directories (any depth, ignoring case): the conventions of pytest,
 * Jest (__tests__, __mocks__, __snapshots__), RSpec (spec), Maven/Gradle
 * (src/test), Go (testdata), Cypress/Playwright (e2e), fixtures. A name
 * ending in "_tests" or "-tests" (integration_tests), or in CamelCase "Test" or
 * "Tests" (SelfTest, UnitTests), counts too. Benchmark
 * suites (benchmarks/, asv_bench/ of airspeed velocity) are test code too:
 * they exercise the project, the project does not run them (bench/ is left
 * out: as many projects keep a module of that name). A testing/ directory at
 * the top of the tree is a test tree too (pytest's own, `testpaths =
 * ["testing"]`: testing/python/fixtures.py tests src/_pytest/fixtures.py);
 * below the top it is usually a module of test helpers the package ships
 * (numpy/testing, sympy/testing), which is source.
 */
static const char test_dirs[] =
    "test tests __tests__ __test__ spec specs e2e testdata test_data __mocks__ "
    "__snapshots__ __fixtures__ fixtures testing_data benchmarks asv_bench";

static bool stem_is_test(const pathinfo *pi)
{
    const char *b = pi->base;
    size_t n = pi->stem_len;
    /* test_x.py, conftest.py, tests.py (Django), test.go-style names, _test.pony (each
     * package's tests in Pony) */
    if ((n > 5 && ieqn(b, 5, "test_")) || ieqn(b, n, "conftest") || ieqn(b, n, "test") ||
        ieqn(b, n, "tests") || ieqn(b, n, "_test") || ieqn(b, n, "_tests"))
        return true;
    /* x_test.go, x_test.py, x_tests.rs, x_spec.rb; _spec only where RSpec's
     * convention holds (Ruby, Crystal, Lua's busted): in C++ a
     * catch_test_spec.cpp is the code of a test *specification* */
    static const char *const suffixes[] = {"_test", "_tests", "_spec", NULL};
    for (const char *const *s = suffixes; *s; s++) {
        size_t m = strlen(*s);
        if (n > m && ieqn(b + n - m, m, *s) &&
            (strcmp(*s, "_spec") != 0 || in_list_i(pi->ext, strlen(pi->ext), "rb cr lua")))
            return true;
    }
    /* x.test.ts, x.spec.js, x.tests.cpp (the second extension) */
    if (pi->ext2_len &&
        (ieqn(pi->ext2, pi->ext2_len, "test") || ieqn(pi->ext2, pi->ext2_len, "tests") ||
         ieqn(pi->ext2, pi->ext2_len, "spec")))
        return true;
    /* FooTest.java, FooTests.cs, FooSpec.scala: CamelCase, so Latest.java and Contest.kt are not */
    static const char *const camel[] = {"Test", "Tests", "Spec", NULL};
    for (const char *const *s = camel; *s; s++) {
        size_t m = strlen(*s);
        if (n > m && !memcmp(b + n - m, *s, m) &&
            ((b[n - m - 1] >= 'a' && b[n - m - 1] <= 'z') ||
             (b[n - m - 1] >= '0' && b[n - m - 1] <= '9')))
            return true;
    }
    return false;
}

static bool is_test(const pathinfo *pi)
{
    if (dir_in(pi, test_dirs, true) || stem_is_test(pi))
        return true;
    if (pi->base - pi->path >= 8 && ieqn(pi->path, 8, "testing/"))
        return true; /* a top-level testing/ */
    const char *p = pi->path;
    while (p < pi->base) {
        const char *q = memchr(p, '/', (size_t)(pi->base - p));
        if (!q)
            break;
        size_t n = (size_t)(q - p);
        if ((n > 6 && (ieqn(q - 6, 6, "_tests") || ieqn(q - 6, 6, "-tests"))))
            return true;
        /* CamelCase: SelfTest, UnitTests, IntegrationTests (a lower-case
         * letter before the capital, so Latest/ and Contest/ are not) */
        for (size_t k = 4; k <= 5; k++)
            if (n > k && !memcmp(q - k, "Tests", k) && q[-(ptrdiff_t)k - 1] >= 'a' &&
                q[-(ptrdiff_t)k - 1] <= 'z')
                return true;
        p = q + 1;
    }
    return false;
}

/* Documentation trees. */
static const char doc_dirs[] = "docs doc documentation wiki";

/*
 * Config: data and settings formats; dotfiles (tool settings: .eslintrc,
 * .prettierrc, .gitignore, .env); *.config.js / *.conf.js (webpack, jest,
 * vite, karma), which are code but configure a tool; and files under
 * .github/ that are not workflows (dependabot, issue templates).
 */
static const char config_langs[] = "json yaml toml ini xml properties";
static const char config_exts[] = "conf cfg ini env properties plist";

/* A Python file under a packages/ directory below the top of the tree (see vendored_dirs). */
static bool nested_packages(const pathinfo *pi, const char *lang)
{
    if (!lang || strcmp(lang, "python") != 0)
        return false;
    const char *first = memchr(pi->path, '/', (size_t)(pi->base - pi->path));
    if (!first)
        return false;
    for (const char *p = first + 1; p < pi->base;) {
        const char *q = memchr(p, '/', (size_t)(pi->base - p));
        if (!q)
            break;
        if (q - p == 8 && !memcmp(p, "packages", 8))
            return true;
        p = q + 1;
    }
    return false;
}

static bool is_config(const pathinfo *pi, const char *lang)
{
    if (lang && in_list(lang, config_langs))
        return true;
    if (*pi->ext && in_list_i(pi->ext, strlen(pi->ext), config_exts))
        return true;
    /* dotfiles, and ownership files read by code hosts */
    if (pi->base[0] == '.' || !strcmp(pi->base, "CODEOWNERS") || !strcmp(pi->base, "OWNERS"))
        return true;
    if (pi->ext2_len &&
        (ieqn(pi->ext2, pi->ext2_len, "config") || ieqn(pi->ext2, pi->ext2_len, "conf")))
        return true;
    return dir_in(pi, ".github .vscode .idea .devcontainer", false);
}

/* Generated by a convention of its tools: its directory, its name's ending, its head. */
static bool generated_by_convention(const pathinfo *pi, const char *lang, const char *head,
                                    size_t len, bool binary)
{
    if (dir_in(pi, generated_dirs, false))
        return true;
    const char *w = generated_suffixes, *suffix;
    size_t n, bl = strlen(pi->base);
    while (next_word(&w, &suffix, &n))
        if (bl >= n && !memcmp(pi->base + bl - n, suffix, n))
            return true;
    return !binary && (generated_by_content(head, len) || minified(lang, head, len));
}

static mn_file_role role_of(const pathinfo *pi, const char *lang, const char *head, size_t len,
                            uint64_t size, bool binary, const mn_declared *d)
{
    /* what the project's .gitattributes says first (gitattrs.h): set, it is the role; unset,
     * the conventions for that role below do not apply */
    mn_linguist ling = mn_gitattrs_lookup(d ? d->attrs : NULL, pi->path);
    if (ling.vendored == MN_ATTR_SET)
        return MN_ROLE_VENDORED;
    /* another project's code copied in (walk.c: a bundle); its documentation stays documentation
     * (fmt's doc/ and requests' docs/_themes carry a theme's license) */
    if (d && d->bundle && ling.vendored != MN_ATTR_UNSET && !dir_in(pi, doc_dirs, true))
        return MN_ROLE_VENDORED;
    if (ling.generated == MN_ATTR_SET && !binary)
        return MN_ROLE_GENERATED;
    if (ling.vendored != MN_ATTR_UNSET &&
        (dir_in(pi, vendored_dirs, false) || nested_packages(pi, lang)))
        return MN_ROLE_VENDORED;
    if (in_list(pi->base, lock_names) || !strcmp(pi->ext, "lock"))
        return MN_ROLE_LOCK;
    if (ling.generated != MN_ATTR_UNSET && generated_by_convention(pi, lang, head, len, binary))
        return MN_ROLE_GENERATED;
    if (!binary && is_marker(pi, head, len, size))
        return MN_ROLE_MARKER;
    if (is_build(pi))
        return MN_ROLE_BUILD;
    if (ling.documentation == MN_ATTR_SET)
        return MN_ROLE_DOC;
    /* what the project declares its test code to be (testpaths.h) */
    if (mn_test_paths_has(d ? d->tests : NULL, pi->path))
        return MN_ROLE_TEST;
    if (is_doc_name(pi, lang))
        return MN_ROLE_DOC;
    if (is_test(pi))
        return MN_ROLE_TEST;
    if ((ling.documentation != MN_ATTR_UNSET && dir_in(pi, doc_dirs, true)) ||
        (*pi->ext && in_list_i(pi->ext, strlen(pi->ext), doc_exts)))
        return MN_ROLE_DOC;
    if (is_config(pi, lang))
        return MN_ROLE_CONFIG;
    /* text in no language the index knows (Doxyfile, pylintrc, x.pc.in, a locale's
     * .config): a tool's settings or data, not code. As source it outranked the code an
     * issue was about on the words it shares with everything (simdjson's Doxyfile). */
    if (!lang && !binary)
        return MN_ROLE_CONFIG;
    return MN_ROLE_SOURCE;
}

/* ---- public ---- */

static const char *const role_names[MN_ROLE_COUNT] = {
    "source", "test", "doc", "config", "build", "generated", "vendored", "marker", "lock"};

const char *mn_role_name(mn_file_role r)
{
    return (unsigned)r < MN_ROLE_COUNT ? role_names[r] : "source";
}

int mn_role_parse(mn_file_role *out, const char *name)
{
    for (int i = 0; i < MN_ROLE_COUNT; i++)
        if (name && !strcmp(name, role_names[i])) {
            *out = (mn_file_role)i;
            return 0;
        }
    return mn_error_set(MN_EINVAL, "unknown file role '%s'", name ? name : "");
}

void mn_classify(mn_file_class *out, const char *path, const char *head, size_t head_len,
                 uint64_t size)
{
    mn_classify_declared(out, path, head, head_len, size, NULL);
}

void mn_classify_declared(mn_file_class *out, const char *path, const char *head, size_t head_len,
                          uint64_t size, const mn_declared *d)
{
    pathinfo pi;
    if (!head)
        head_len = 0;
    if (head_len > MN_CLASSIFY_HEAD_MAX)
        head_len = MN_CLASSIFY_HEAD_MAX;
    if (!head)
        head = "";
    path_split(&pi, path ? path : "");
    out->binary = looks_binary((const unsigned char *)head, head_len, size) ||
                  (*pi.ext && in_list_i(pi.ext, strlen(pi.ext), binary_exts));
    out->language = out->binary ? NULL : language_of(&pi, head, head_len);
    out->role = role_of(&pi, out->language, head, head_len, size, out->binary, d);
}
