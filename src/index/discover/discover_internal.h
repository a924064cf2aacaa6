/*
 * discover_internal.h - what the parts of discovery share: the context of
 * a run (dx_ctx), the ecosystem record each scanner file fills in, and the
 * helpers scanners use to read files and record evidence. Nothing outside
 * src/index/discover.c and src/index/discover/ includes it.
 *
 * A run (mn_discover_collect, discover.c) fills dx_ctx in three stages:
 *  1. the file table, from the index (dx_on_file): every indexed path with
 *     its language, role, lines and rank; dx_have and friends look paths
 *     up there, so the walk's ignore rules, size cap and symlink rule apply
 *     to the manifests too;
 *  2. evidence: each ecosystem of `dx_ecosystems` (one file each in this
 *     directory) reads its manifests through dx_load / dx_load_text and
 *     records what they say with dx_add_* (package managers, commands with
 *     a score, entry points, dependencies, frameworks, style tools, project
 *     types, runtime...); then the layout (layout.c): monorepo packages,
 *     domains, their main symbols;
 *  3. facts (facts.c): the evidence written as findings, one per key.
 * Evidence is JSON held in the context, released by discover.c; the
 * helpers never fail (a file that cannot be read is skipped and counted in
 * stats.broken), so a scanner has no error path.
 *
 * Names: shared functions and types are dx_<name> (the way
 * retrieve/pack_internal.h names its parts pk_<name>): scanners call them a
 * few hundred times, and the short prefix keeps them readable.
 */
#ifndef MN_INDEX_DISCOVER_INTERNAL_H
#define MN_INDEX_DISCOVER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/classify.h"
#include "index/discover.h"
#include "store/store_index.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

/* The kinds of command a project has; each is one finding (facts.c). */
enum { CMD_BUILD, CMD_TEST, CMD_RUN, CMD_LINT, CMD_N };

typedef struct {
    char *path;
    const char *language; /* interned, or NULL */
    mn_file_role role;
    int64_t lines;
    double rank;
    int domain; /* index into dx_ctx.domains, or -1 */
} dx_file;

typedef struct {
    char *path; /* the directory */
    int64_t files, lines;
    int orig;        /* scratch: the index before sorting */
    bool is_package; /* a monorepo package: reported as package:<path> */
    json_t *symbols; /* [{name, kind, path, rank}] best first, at most 8 */
} dx_domain;

typedef struct {
    mn_store *s;
    const char *root;
    mn_discover_stats *st;
    MN_VEC(dx_file) files;
    mn_map by_path; /* path -> index + 1 */
    MN_VEC(char *) langs;
    MN_VEC(dx_domain) domains;
    size_t read_total;
    size_t nested_reads;
    size_t packages_seen; /* package manifests read, biggest package first */
    json_t *findings;
    /* evidence gathered from the manifests */
    json_t *langshare;  /* [[language, lines]] largest first */
    json_t *managers;   /* [{name, why, install, lang}] */
    json_t *frameworks; /* {display: {what, why}} */
    json_t *deps;       /* [{manifest, section, names}] */
    json_t *cmds[CMD_N];
    json_t *entries;    /* [{what, why}] */
    json_t *style;      /* {tool: why} */
    json_t *types;      /* {type: why} */
    json_t *runtime;    /* [text] */
    json_t *docs;       /* [text] */
    json_t *ci;         /* [{system, text}] */
    json_t *workspaces; /* [{glob, why}] */
    json_t *builders;   /* {build backend or tool: why} */
    json_t *packages;   /* [{dir, manifest, name, ...}] */
    json_t *mains;      /* [path] of files with a main() function */
    json_t *pypkgs;     /* [dir] of Python import packages */
    char *name, *name_why, *description;
    const char *self_dep; /* the project's own normalized name, not a framework of itself */
    bool dev;             /* reading development dependencies: only test and build tools count */
    const char *cur_lang; /* the ecosystem being scanned (commands are ranked by it) */
    char self_norm[128];
} dx_ctx;

/* A well-known dependency: a framework or a key library of an ecosystem. */
typedef struct {
    const char *dep;  /* normalized name (dx_norm_name); a trailing '*' matches a prefix */
    const char *name; /* how people call it */
    const char *what; /* web frontend test cli orm templates data ml tasks desktop mobile build */
} dx_framework;

/*
 * An ecosystem: a language's tooling (Python, Node.js, Go...) or tools any
 * project may use (Makefiles, CI, documentation). Each is defined in its
 * own file of src/index/discover/ and listed in `dx_ecosystems`
 * (discover.c); discovery knows of nothing else. Every field may be NULL
 * (or 0) but the name.
 */
typedef struct {
    const char *name; /* for people: "Python", "CI" */
    /*
     * The language (its index name: "python", "javascript", "c") whose share
     * of the code orders the scans, the main language's first since the
     * first name found is the project's, and whose commands keep their
     * score (another ecosystem's lose 25 points, dx_add_cmd); its row in
     * the family table of dx_lang_rank (languages.c) says which languages
     * of the share table count for it. NULL: the scan runs after every
     * language's, in table order, and is not ranked.
     */
    const char *lang;
    /* The key its dependencies are matched under (dx_see_dep: "py", "js"),
     * and its well-known ones. */
    const char *deps;
    const dx_framework *frameworks;
    size_t nframeworks;
    /* File names (space-separated; "*.ext" matches an ending) that make a
     * sub-directory a package of a monorepo. */
    const char *manifests;
    /* File names whose presence anywhere is an entry point: part of the
     * fingerprint that decides when discovery reruns (discover.c). */
    const char *entry_files;
    /* Read the repository's root manifests and record evidence. */
    void (*scan)(dx_ctx *d);
    /* A monorepo package whose manifest (a path) is one of `manifests`:
     * set the package's name, description, scripts or dependency count. */
    void (*package)(dx_ctx *d, json_t *pkg, const char *manifest);
} dx_ecosystem;

/* The table of ecosystems, in the order their scans break ties (discover.c). */
extern const dx_ecosystem *const dx_ecosystems[];
extern const size_t dx_necosystems;

/* One per file of src/index/discover/. */
extern const dx_ecosystem dx_python, dx_node, dx_go, dx_rust, dx_jvm, dx_ruby, dx_php, dx_dotnet,
    dx_native, dx_tasks, dx_containers, dx_conventions, dx_ci, dx_docs, dx_elixir, dx_dart,
    dx_swift;

/* ---- context.c: small helpers ---- */

const char *dx_jstr(const json_t *o, const char *k);
/** o[k1][k2]...: the value at a path of keys (NULL-terminated), or NULL. */
json_t *dx_jget(const json_t *o, ...);
bool dx_starts(const char *s, const char *pre);
bool dx_ends(const char *s, const char *suf);
/** Is s[0..n) one of the space-separated words? */
bool dx_in_words(const char *s, size_t n, const char *words);
const char *dx_base_name(const char *path);
/** The number of '/' in a path: 0 for a file at the root. */
int dx_depth_of(const char *path);
char dx_lower(char c);
/** The normalized name of a dependency: lower case, '_' and '.' as '-' (PEP 503). */
void dx_norm_name(char *out, size_t cap, const char *s, size_t n);
/** Append string s to the array unless it holds it already. */
void dx_add_unique(json_t *arr, const char *s);
/** Append s to b, with runs of white space folded to one space, at most max bytes. */
void dx_put_oneline(mn_buf *b, const char *s, size_t max);
/** n with thousands separators: 12,345. */
void dx_fmt_count(char out[32], int64_t n);

/* A letter, digit, '_' or '-': what names of packages, targets and sessions are made of. */
static inline bool dx_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* ---- context.c: the file table ---- */

/** mn_store_files_each callback: one indexed file into d->files (payload: the dx_ctx). */
int dx_on_file(void *payload, const mn_file_rec *f);
const dx_file *dx_file_get(const dx_ctx *d, const char *path);
/** Is path indexed? */
bool dx_have(const dx_ctx *d, const char *path);
/** Is there an indexed file below dir/ (dir without the slash)? */
bool dx_have_under(const dx_ctx *d, const char *dir);
/** The first of names[0..n) that is indexed (list order), or NULL. */
const char *dx_have_first(const dx_ctx *d, const char *const *names, size_t n);
/** The first indexed file (path order) that matches a glob, or NULL. */
const char *dx_find_glob(const dx_ctx *d, const char *glob);

/* ---- context.c: evidence ---- */

/** A package manager of language lang, found in why, installing with install (may be NULL). */
void dx_add_manager(dx_ctx *d, const char *lang, const char *name, const char *why,
                    const char *install);
/** A command candidate of a kind (CMD_*), with its score (see discover.c) and evidence. */
void dx_add_cmd(dx_ctx *d, int kind, int score, const char *cmd, const char *why,
                const char *detail);
void dx_add_entry(dx_ctx *d, const char *what, const char *why);
/** obj[k] = why, unless obj has k already (the first evidence wins). */
void dx_add_kv(json_t *obj, const char *k, const char *why);
/** Dependencies of a manifest's section; names (an array) is stolen, and dropped when empty. */
void dx_add_deps(dx_ctx *d, const char *manifest, const char *section, json_t *names);
/** The project's name and description, unless one was found already. */
void dx_set_name(dx_ctx *d, const char *name, const char *desc, const char *why);
/** A monorepo's workspace pattern (a glob of package directories) and where it was declared. */
void dx_add_workspace(dx_ctx *d, const char *glob, const char *why);
/**
 * A dependency `name` (n bytes, as written) of the ecosystem whose deps key
 * is eco, found in `where`: recorded as a framework when that ecosystem
 * knows it (and it is not the project itself).
 */
void dx_see_dep(dx_ctx *d, const char *eco, const char *name, size_t n, const char *where);
/** Keys of an object as a new array of names (skip one, may be NULL), each seen as a dependency. */
json_t *dx_keys_as_deps(dx_ctx *d, const char *eco, const json_t *obj, const char *where,
                        const char *skip);

/* ---- read.c: files from disk ---- */

typedef enum { FMT_JSON, FMT_TOML, FMT_INI, FMT_YAML } dx_fmt;

/**
 * Load and parse a file the index lists (or, with probe, one that exists
 * on disk though the walk skipped it): a new object, or NULL when it is
 * absent or unusable.
 */
json_t *dx_load(dx_ctx *d, const char *rel, dx_fmt f, bool probe);
/** The text of an indexed file into out; false (out empty) when absent or unusable. */
bool dx_load_text(dx_ctx *d, const char *rel, mn_buf *out);
/** Iterate over the lines of [*p, end): *line and *len, without the newline (and \r). */
bool dx_next_line(const char **p, const char *end, const char **line, size_t *len);
/** The string value of keyword argument key="x" in source text (setup.py, a gemspec); malloc'd. */
char *dx_kwarg(const char *text, const char *key);
/** The text of the first <tag>...</tag> in [s, end), trimmed; NULL when none (malloc'd). */
char *dx_xml_text(const char *s, const char *end, const char *tag);
/** Blank out every <tag>...</tag> block (so the project's own fields are the first left). */
void dx_xml_blank(char *s, const char *tag);
/** Each <tag>text</tag> inside [s, end) as a new array. */
json_t *dx_xml_all(const char *s, const char *end, const char *tag);
/** An attribute value in a tag: attr="value" after `at`, before the next '>' (malloc'd). */
char *dx_xml_attr(const char *at, const char *attr);

/* ---- languages.c ---- */

/** Is lang (an index language name) a programming language, not a data or prose format? */
bool dx_is_code(const char *lang);
/** Source and test files in a programming language: what the language shares count. */
bool dx_counts_as_code(const dx_file *f);
/** How people write a language's name: "python" -> "Python". */
const char *dx_lang_display(const char *l);
/** [[display name, lines, files]] largest first, over files below under (NULL: all) that in
 * accepts. */
json_t *dx_language_table(const dx_ctx *d, const char *under, bool (*in)(const dx_file *));
/** Where an ecosystem's language stands in the share table (0 is the main one; 1000: absent). */
size_t dx_lang_rank(const dx_ctx *d, const char *eco_lang);

/* ---- layout.c: monorepo packages, domains, symbols ---- */

void dx_find_packages(dx_ctx *d);
/** Read a package's own manifest for its name, description and scripts. */
void dx_package_details(dx_ctx *d, json_t *pkg);
/** A package.json or composer.json package: deps_field holds its runtime dependencies. */
void dx_package_json(dx_ctx *d, json_t *pkg, const char *manifest, const char *deps_field,
                     const char *eco);
/**
 * A pyproject.toml or Cargo.toml package: `table` holds its name and
 * description ([project], [package]), and its dependencies when
 * deps_in_table (else they are at the top: Cargo's [dependencies]).
 */
void dx_package_toml(dx_ctx *d, json_t *pkg, const char *manifest, const char *table,
                     bool deps_in_table);
void dx_find_domains(dx_ctx *d);
/** mn_store_symbols_each callback: each domain's main symbols, and main() functions. */
int dx_on_symbol(void *payload, const mn_symbol_row *y);

/* ---- facts.c ---- */

/** Write the evidence as findings into d->findings, in the order of the keys (discover.c). */
void dx_emit_all(dx_ctx *d);

/* ---- node.c ---- */

/** A package manager's scripts (npm, composer...) -> command candidates, 90 for the exact names. */
void dx_node_scripts(dx_ctx *d, const json_t *scripts, const char *pm, const char *why_file);

#endif
