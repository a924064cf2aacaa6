/*
 * discover.c - discovery: the project overview as L0/L1 fact memories.
 *
 * How it works. One pass over the index (mn_store_files_each: path,
 * language, role, lines, rank) gives the file table; manifests and config
 * files are then looked up in that table (so .gitignore, .mnemoignore,
 * the size cap and the symlink rule of the walk apply to them too) and
 * read from disk, at most MN_DISCOVER_READ_MAX bytes each, at most
 * MAX_READS files and MAX_READ_TOTAL bytes per run. A few root manifests
 * (package.json, pyproject.toml, ...) are also probed on disk when the
 * index lacks them, since the walk skips files over 1 MiB: the first
 * 256 KiB are read, which a TOML scanner can still use and a JSON parser
 * cannot (then the file counts as broken). Symlinks are never followed
 * (O_NOFOLLOW), only regular files are read, and a file that is not UTF-8
 * or holds a NUL byte is skipped. JSON goes through jansson, YAML through
 * util/yaml.c, TOML and INI through the lenient readers of util/toml.c and
 * util/ini.c (a TOML syntax error keeps what came before it); Makefiles, go.mod, Gemfiles,
 * Gradle and XML files are scanned line by line. A manifest that cannot be
 * read is skipped and counted in stats.broken, never an error.
 *
 * The findings, with their keys (the tag is "discovery:<key>"):
 *   L0 languages       shares by lines of source and test files in code
 *                      languages (vendored, generated, docs, config, data
 *                      formats excluded); an empty or code-less repository
 *                      says so under the same key
 *   L0 project-type    library / CLI / web service / web frontend /
 *                      application..., with the name and description
 *   L0 package-manager uv, Poetry, pip, npm, pnpm, Cargo, Go modules...
 *                      with the install command and the build backend
 *   L0 frameworks      known frameworks among the dependencies (a table)
 *   L0 dependencies    runtime dependencies of the root manifest(s)
 *   L0 runtime         language versions required (requires-python,
 *                      engines.node, go directive, edition, ...)
 *   L0 build-command, test-command, run-command, lint-command
 *                      the best candidate in the title, every candidate
 *                      with its evidence in the body (scores below)
 *   L0 entry-points    console scripts, bin, main.go, src/main.rs,
 *                      __main__.py, cmd/<x>/main.go, main() functions
 *   L0 main-package    the package the project is about, and where
 *   L0 code-style      formatters, linters, type checkers, EditorConfig,
 *                      pre-commit
 *   L0 ci              CI systems and their workflows (with run steps)
 *   L0 docs            documentation tooling (Sphinx, MkDocs, ...)
 *   L0 monorepo        declared workspaces or several package manifests
 *   L1 domain:<dir>    each top-level source module: what it holds, its
 *                      sub-modules, central files by rank, main symbols
 *   L1 package:<dir>   each package of a monorepo (instead of a domain)
 * A key longer than the 64-character tag limit is cut and ends with a
 * hash of the whole key, so it stays stable.
 *
 * Command candidates are scored, the highest wins the title: a script the
 * package manager runs (npm test, composer test) 90; a Makefile/Justfile/
 * Taskfile target 80; a tool configured in the tree (pytest, tox, nox,
 * pre-commit, golangci-lint) 60-70; an ecosystem's default (go test ./...,
 * cargo test, mvn test, ctest) 50; a guess from conventions 30.
 *
 * Domains: each source file belongs to its first path component, or to
 * the first two when the first is a container by convention (src, lib,
 * packages, apps, cmd, internal, pkg, crates, services...); a domain is
 * then narrowed to the common directory of its files (src/main/java/com/x
 * rather than src/main). A single domain with no files of its own but
 * several sub-directories (a Java or Go layout) is split into those. Top
 * directories holding more test than source lines are test trees, not
 * domains. At most MAX_DOMAINS, by lines.
 *
 * Refresh in place (mn_discover): the findings are collected outside any
 * write transaction, then reconciled in one: every memory with source
 * "discovery" (deleted ones included) is listed and mapped by its
 * discovery:<key> tag. For each finding: no memory -> look the tag up
 * among all memories; one a person took over (source changed) is kept as
 * it is, else a new memory is inserted. A memory exists -> its title,
 * body, level, keywords, paths and tags are compared and replaced only
 * when they differ (an archived one is made active again); a forgotten one
 * is left alone unless restore_forgotten. Discovery memories whose key
 * was not found this time are archived (kept for history, not deleted). A
 * second memory with the same key (left by an older bug or a manual copy)
 * is archived too, so the set heals itself. Status on creation follows the
 * review threshold like any save (0.8 is above the default 0.5); an update
 * never changes a status a person set, except to revive an archived fact.
 * The root, the time and the manifest fingerprint are recorded in config
 * keys in the same transaction. Concurrent runs serialize on the write
 * lock and the listing happens inside it, so they cannot duplicate.
 *
 * When it runs (mn_discover_due, used by the index operation): never ran,
 * no discovery memory at all, another root, older than discovery.max_age,
 * or a changed fingerprint: xxh3 over the path and content hash of every
 * build and config file up to three directories deep, the paths of lock
 * files and of entry files (__main__.py, main.go, main.rs...), the top
 * directories holding source files and the set of languages. So adding a dependency to
 * pyproject.toml refreshes the facts at the next `mnemo index`, while editing code does not.
 *
 * Cost: one scan of the files table, one of the symbols table (for the
 * domains' main symbols), at most a few hundred small file reads, and one
 * listing of the discovery memories; no per-file disk access.
 *
 * Decisions, and why:
 *  - mn_discover takes an options struct (restore_forgotten) besides the
 *    memory settings: `mnemo discover --force` sets it. `discover` always
 *    runs; what force adds is taking back facts a person forgot, which a
 *    plain run respects. Facts a person took over (source changed) are
 *    never touched, force or not.
 *  - Besides first run, root, age and an explicit `discover`, a changed
 *    manifest fingerprint makes `index` rerun discovery: otherwise a new
 *    dependency would wait up to discovery.max_age to show.
 *  - Every memory carries two tags: "discovery" (to list them all) and
 *    "discovery:<key>" (its identity). No author is recorded: no person
 *    wrote it. Confidence 0.8, the default for the source.
 *  - Bodies name central files in rank order but print no rank values:
 *    ranks move whenever any file is added, which would rewrite every
 *    domain fact on every run.
 *  - Commands of an ecosystem that is not the main language lose 25
 *    points, so a Python project with a package.json for its docs keeps
 *    pytest as its test command.
 *  - Development dependencies only contribute test and build frameworks
 *    (pytest, Jest, Vite), not libraries a test happens to import.
 *  - In a monorepo, a package gets a package:<dir> fact instead of a
 *    domain fact, and only the biggest eight packages outside fixtures
 *    and playgrounds contribute frameworks.
 *  - A function named main is an entry point only in languages where that
 *    is the convention (C, C++, Go, Rust, Java, C#, ...), and not under
 *    examples, tests or fixtures.
 */
#include "common.h"
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/classify.h"
#include "index/discover.h"
#include "memory/scrub.h"
#include "store/store_index.h"
#include "util/ini.h"
#include "util/map.h"
#include "util/toml.h"
#include "util/util.h"
#include "util/vec.h"
#include "util/yaml.h"

#define MAX_READS        400
#define MAX_READ_TOTAL   ((size_t)24 << 20)
#define MAX_DOMAINS      15
#define MAX_PACKAGES     40
#define MAX_WORKFLOWS    30
#define MAX_NESTED_READS 120 /* nested manifests read for monorepo packages */
#define TITLE_MAX        200
#define BODY_MAX         12000
#define TAG_MAX          64
#define CONFIDENCE       0.8

/* ---- small helpers ---- */

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* o[k1][k2]...: the value at a path of keys (NULL-terminated), or NULL. */
static json_t *jget(const json_t *o, ...)
{
    va_list ap;
    const char *k;
    json_t *v = (json_t *)o;
    va_start(ap, o);
    while (v && (k = va_arg(ap, const char *)) != NULL)
        v = json_is_object(v) ? json_object_get(v, k) : NULL;
    va_end(ap);
    return v;
}

static bool starts(const char *s, const char *pre)
{
    return strncmp(s, pre, strlen(pre)) == 0;
}

static bool ends(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* Is s[0..n) one of the space-separated words? */
static bool in_words(const char *s, size_t n, const char *words)
{
    const char *w = words;
    while (*w) {
        size_t m = strcspn(w, " ");
        if (m == n && !memcmp(w, s, n))
            return true;
        w += m + (w[m] == ' ');
    }
    return false;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int depth_of(const char *path)
{
    int n = 0;
    for (const char *p = path; *p; p++)
        n += *p == '/';
    return n;
}

/* A letter, digit, '_' or '-': what names of packages, targets and sessions are made of. */
static bool t_bare(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* The normalized name of a dependency: lower case, '_' and '.' as '-' (PEP 503). */
static void norm_name(char *out, size_t cap, const char *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < cap; i++)
        out[j++] = s[i] == '_' || s[i] == '.' ? '-' : lower(s[i]);
    out[j] = '\0';
}

static void add_unique(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(arr, json_string(s));
}

/* Append s to b, with runs of white space folded to one space, at most max bytes. */
static void put_oneline(mn_buf *b, const char *s, size_t max)
{
    size_t start = b->len;
    bool space = false;
    for (; *s && b->len - start < max; s++) {
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
            space = b->len > start;
            continue;
        }
        if (space)
            mn_buf_putc(b, ' ');
        space = false;
        mn_buf_putc(b, *s);
    }
    if (*s) {
        mn_buf_truncate(b, start + mn_utf8_floor(b->ptr + start, b->len - start, max));
        mn_buf_puts(b, "...");
    }
}

static void fmt_count(char out[32], int64_t n)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof(tmp), "%lld", (long long)(n < 0 ? 0 : n));
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = tmp[i];
    }
    out[o] = '\0';
}

/* ---- the discovery context ---- */

enum { CMD_BUILD, CMD_TEST, CMD_RUN, CMD_LINT, CMD_N };
static const char *const cmd_keys[CMD_N] = {"build-command", "test-command", "run-command",
                                            "lint-command"};
static const char *const cmd_names[CMD_N] = {"Build", "Test", "Run", "Lint"};

typedef struct {
    char *path;
    const char *language; /* interned, or NULL */
    mn_file_role role;
    int64_t lines;
    double rank;
    int domain; /* index into dctx.domains, or -1 */
} dfile;

/* The project's own name, normalized, for see_dep. */

typedef struct {
    char *path; /* the directory */
    int64_t files, lines;
    int orig;        /* scratch: the index before sorting */
    bool is_package; /* a monorepo package: reported as package:<path> */
    json_t *symbols; /* [{name, kind, path, rank}] best first, at most 8 */
} ddomain;

typedef struct {
    mn_store *s;
    const char *root;
    mn_discover_stats *st;
    MN_VEC(dfile) files;
    mn_map by_path; /* path -> index + 1 */
    MN_VEC(char *) langs;
    MN_VEC(ddomain) domains;
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
} dctx;

static const char *intern_lang(dctx *d, const char *l)
{
    if (!l)
        return NULL;
    for (size_t i = 0; i < d->langs.len; i++)
        if (strcmp(d->langs.items[i], l) == 0)
            return d->langs.items[i];
    char *c = mn_strdup(l);
    mn_vec_push(&d->langs, c);
    return c;
}

static const dfile *file_get(const dctx *d, const char *path)
{
    uintptr_t i = (uintptr_t)mn_map_get(&d->by_path, path);
    return i ? &d->files.items[i - 1] : NULL;
}

static bool have(const dctx *d, const char *path)
{
    return file_get(d, path) != NULL;
}

/* Is there an indexed file below dir/ (dir without the slash)? */
static bool have_under(const dctx *d, const char *dir)
{
    size_t n = strlen(dir);
    for (size_t i = 0; i < d->files.len; i++)
        if (!strncmp(d->files.items[i].path, dir, n) && d->files.items[i].path[n] == '/')
            return true;
    return false;
}

/* The first indexed file (path order) that matches a glob, or NULL. */
static const char *find_glob(const dctx *d, const char *glob)
{
    for (size_t i = 0; i < d->files.len; i++)
        if (fnmatch(glob, d->files.items[i].path, FNM_PATHNAME) == 0)
            return d->files.items[i].path;
    return NULL;
}

/* ---- reading files ---- */

/*
 * Read up to MN_DISCOVER_READ_MAX bytes of root/rel into out: 0, or -1
 * when it is absent, not a regular file, a link, unreadable, over the
 * budget, or not UTF-8 text (those count as broken). *cut says the file
 * was longer than what was read.
 */
static int read_rel(dctx *d, const char *rel, mn_buf *out, bool *cut)
{
    mn_buf path = MN_BUF_INIT;
    int fd, rc = -1;
    struct stat sb;
    *cut = false;
    mn_buf_clear(out);
    if (d->st->manifests >= MAX_READS || d->read_total >= MAX_READ_TOTAL)
        return -1;
    mn_buf_printf(&path, "%s/%s", d->root, rel);
    fd = open(path.ptr, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    mn_buf_release(&path);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        goto out;
    d->st->manifests++;
    size_t want =
        (size_t)sb.st_size < MN_DISCOVER_READ_MAX ? (size_t)sb.st_size : MN_DISCOVER_READ_MAX;
    mn_buf_grow(out, want + 1);
    while (out->len < want) {
        ssize_t n = read(fd, out->ptr + out->len, want - out->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out->len += (size_t)n;
    }
    out->ptr[out->len] = '\0';
    d->read_total += out->len;
    *cut = (size_t)sb.st_size > out->len;
    if (*cut) {
        /* drop a code point the cap cut in two */
        size_t i = out->len, back = 0;
        while (i > 0 && back < 4 && ((unsigned char)out->ptr[i - 1] & 0xC0) == 0x80)
            i--, back++;
        if (i > 0 && (unsigned char)out->ptr[i - 1] >= 0xC0) {
            unsigned char c = (unsigned char)out->ptr[i - 1];
            size_t need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
            if (back < need)
                out->len = i - 1;
        }
        out->ptr[out->len] = '\0';
    }
    /* a UTF-8 byte order mark says nothing */
    if (out->len >= 3 && !memcmp(out->ptr, "\xEF\xBB\xBF", 3)) {
        memmove(out->ptr, out->ptr + 3, out->len - 2);
        out->len -= 3;
    }
    if (!mn_utf8_valid(out->ptr, out->len)) {
        d->st->broken++;
        goto out;
    }
    rc = 0;
out:
    close(fd);
    if (rc)
        mn_buf_clear(out);
    return rc;
}

/* Read a file the index lists (or, with probe, one that exists on disk). */
static int read_known(dctx *d, const char *rel, mn_buf *out, bool *cut, bool probe)
{
    if (!have(d, rel) && !probe)
        return -1;
    return read_rel(d, rel, out, cut);
}

/* ---- loading manifests ---- */

typedef enum { FMT_JSON, FMT_TOML, FMT_INI, FMT_YAML } fmt;

/* Load and parse a file (see read_rel); NULL when absent or unusable. */
static json_t *load(dctx *d, const char *rel, fmt f, bool probe)
{
    mn_buf b = MN_BUF_INIT;
    bool cut, broken = false;
    json_t *v = NULL;
    if (read_known(d, rel, &b, &cut, probe) != 0) {
        mn_buf_release(&b);
        return NULL;
    }
    if (memchr(b.ptr, '\0', b.len)) {
        broken = true;
    } else if (f == FMT_JSON) {
        json_error_t err;
        v = json_loadb(b.ptr, b.len, 0, &err);
        broken = !json_is_object(v);
        if (broken) {
            json_decref(v);
            v = NULL;
        }
    } else if (f == FMT_TOML) {
        /* lenient: on a syntax error, what came before it is used (and the file counts as broken)
         */
        broken = mn_toml_parse(&v, b.ptr, b.len) != 0;
        if (broken)
            mn_error_clear();
    } else if (f == FMT_INI) {
        v = mn_ini_parse(b.ptr, b.len);
    } else {
        json_t *docs = NULL;
        if (mn_yaml_parse_docs(&docs, b.ptr, b.len) == 0) {
            v = json_incref(json_array_get(docs, 0));
            json_decref(docs);
        } else {
            mn_error_clear();
        }
        broken = !json_is_object(v);
        if (broken) {
            json_decref(v);
            v = NULL;
        }
    }
    if (broken || cut)
        d->st->broken++;
    mn_buf_release(&b);
    return v;
}

/* The text of a file (empty when absent or unusable); the caller releases it. */
static bool load_text(dctx *d, const char *rel, mn_buf *out)
{
    bool cut;
    if (read_known(d, rel, out, &cut, false) != 0 || memchr(out->ptr, '\0', out->len)) {
        mn_buf_clear(out);
        return false;
    }
    if (cut)
        d->st->broken++;
    return true;
}

/* Iterate over the lines of a buffer: *line and *len, without the newline (and \r). */
static bool next_line(const char **p, const char *end, const char **line, size_t *len)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *le = nl ? nl : end;
    *line = *p;
    *len = (size_t)(le - *p);
    if (*len && (*line)[*len - 1] == '\r')
        (*len)--;
    *p = nl ? nl + 1 : end;
    return true;
}

/* ---- recording evidence ---- */

static size_t lang_rank(const dctx *d, const char *eco_lang);

static void add_manager(dctx *d, const char *lang, const char *name, const char *why,
                        const char *install)
{
    size_t i;
    json_t *m;
    json_array_foreach(d->managers, i, m) if (!strcmp(jstr(m, "name"), name)) return;
    json_array_append_new(d->managers, json_pack("{s:s,s:s,s:s?,s:s}", "name", name, "why", why,
                                                 "install", install, "lang", lang));
}

static void add_cmd(dctx *d, int kind, int score, const char *cmd, const char *why,
                    const char *detail)
{
    size_t i;
    json_t *c;
    json_array_foreach(d->cmds[kind], i, c) if (!strcmp(jstr(c, "cmd"), cmd)) return;
    /* another ecosystem's command loses to the main language's and to the build tools' */
    if (d->cur_lang && lang_rank(d, d->cur_lang) > 0)
        score -= 25;
    json_array_append_new(d->cmds[kind], json_pack("{s:s,s:s,s:s?,s:i,s:i}", "cmd", cmd, "why", why,
                                                   "detail", detail, "score", score, "order",
                                                   (int)json_array_size(d->cmds[kind])));
}

static void add_entry(dctx *d, const char *what, const char *why)
{
    size_t i;
    json_t *e;
    json_array_foreach(d->entries, i, e) if (!strcmp(jstr(e, "what"), what)) return;
    json_array_append_new(d->entries, json_pack("{s:s,s:s}", "what", what, "why", why));
}

static void add_kv(json_t *obj, const char *k, const char *why)
{
    if (!json_object_get(obj, k))
        json_object_set_new(obj, k, json_string(why));
}

static void add_deps(dctx *d, const char *manifest, const char *section, json_t *names)
{
    if (json_array_size(names))
        json_array_append_new(d->deps, json_pack("{s:s,s:s,s:o}", "manifest", manifest, "section",
                                                 section, "names", names));
    else
        json_decref(names);
}

static void set_name(dctx *d, const char *name, const char *desc, const char *why)
{
    if (d->name || !name || !*name)
        return;
    d->name = mn_strdup(name);
    d->name_why = mn_strdup(why);
    if (desc && *desc) {
        mn_buf b = MN_BUF_INIT;
        put_oneline(&b, desc, 160);
        d->description = mn_buf_detach(&b);
    }
    norm_name(d->self_norm, sizeof(d->self_norm), name, strlen(name));
    d->self_dep = d->self_norm;
}

/* ---- frameworks: well-known dependencies, by ecosystem ---- */

static const struct framework {
    const char *eco;  /* py js rb php java go rust dotnet */
    const char *dep;  /* normalized name; a trailing '*' matches a prefix */
    const char *name; /* how people call it */
    const char *what; /* web frontend test cli orm templates data ml tasks desktop mobile build */
} frameworks[] = {
    {"py", "django", "Django", "web"},
    {"py", "flask", "Flask", "web"},
    {"py", "fastapi", "FastAPI", "web"},
    {"py", "starlette", "Starlette", "web"},
    {"py", "tornado", "Tornado", "web"},
    {"py", "aiohttp", "aiohttp", "web"},
    {"py", "pyramid", "Pyramid", "web"},
    {"py", "sanic", "Sanic", "web"},
    {"py", "quart", "Quart", "web"},
    {"py", "falcon", "Falcon", "web"},
    {"py", "bottle", "Bottle", "web"},
    {"py", "litestar", "Litestar", "web"},
    {"py", "werkzeug", "Werkzeug", "web"},
    {"py", "streamlit", "Streamlit", "web"},
    {"py", "gradio", "Gradio", "web"},
    {"py", "celery", "Celery", "tasks"},
    {"py", "sqlalchemy", "SQLAlchemy", "orm"},
    {"py", "pydantic", "Pydantic", "data"},
    {"py", "jinja2", "Jinja", "templates"},
    {"py", "click", "Click", "cli"},
    {"py", "typer", "Typer", "cli"},
    {"py", "pytest", "pytest", "test"},
    {"py", "hypothesis", "Hypothesis", "test"},
    {"py", "numpy", "NumPy", "data"},
    {"py", "pandas", "pandas", "data"},
    {"py", "scipy", "SciPy", "data"},
    {"py", "torch", "PyTorch", "ml"},
    {"py", "tensorflow", "TensorFlow", "ml"},
    {"py", "jax", "JAX", "ml"},
    {"py", "scikit-learn", "scikit-learn", "ml"},
    {"py", "transformers", "Transformers", "ml"},
    {"py", "pyqt5", "Qt (PyQt)", "desktop"},
    {"py", "pyqt6", "Qt (PyQt)", "desktop"},
    {"py", "pyside6", "Qt (PySide)", "desktop"},
    {"js", "react", "React", "frontend"},
    {"js", "next", "Next.js", "frontend"},
    {"js", "vue", "Vue", "frontend"},
    {"js", "nuxt", "Nuxt", "frontend"},
    {"js", "svelte", "Svelte", "frontend"},
    {"js", "@sveltejs/kit", "SvelteKit", "frontend"},
    {"js", "@angular/core", "Angular", "frontend"},
    {"js", "solid-js", "SolidJS", "frontend"},
    {"js", "preact", "Preact", "frontend"},
    {"js", "lit", "Lit", "frontend"},
    {"js", "@remix-run/react", "Remix", "frontend"},
    {"js", "gatsby", "Gatsby", "frontend"},
    {"js", "astro", "Astro", "frontend"},
    {"js", "express", "Express", "web"},
    {"js", "koa", "Koa", "web"},
    {"js", "fastify", "Fastify", "web"},
    {"js", "@nestjs/core", "NestJS", "web"},
    {"js", "@hapi/hapi", "hapi", "web"},
    {"js", "hono", "Hono", "web"},
    {"js", "electron", "Electron", "desktop"},
    {"js", "react-native", "React Native", "mobile"},
    {"js", "jest", "Jest", "test"},
    {"js", "vitest", "Vitest", "test"},
    {"js", "mocha", "Mocha", "test"},
    {"js", "@playwright/test", "Playwright", "test"},
    {"js", "cypress", "Cypress", "test"},
    {"js", "webpack", "webpack", "build"},
    {"js", "vite", "Vite", "build"},
    {"js", "rollup", "Rollup", "build"},
    {"js", "esbuild", "esbuild", "build"},
    {"js", "tailwindcss", "Tailwind CSS", "frontend"},
    {"js", "prisma", "Prisma", "orm"},
    {"js", "@prisma/client", "Prisma", "orm"},
    {"js", "typeorm", "TypeORM", "orm"},
    {"js", "mongoose", "Mongoose", "orm"},
    {"js", "graphql", "GraphQL", "web"},
    {"rb", "rails", "Rails", "web"},
    {"rb", "sinatra", "Sinatra", "web"},
    {"rb", "hanami", "Hanami", "web"},
    {"rb", "rspec", "RSpec", "test"},
    {"rb", "rspec-rails", "RSpec", "test"},
    {"rb", "minitest", "Minitest", "test"},
    {"rb", "sidekiq", "Sidekiq", "tasks"},
    {"php", "laravel/framework", "Laravel", "web"},
    {"php", "symfony/framework-bundle", "Symfony", "web"},
    {"php", "slim/slim", "Slim", "web"},
    {"php", "cakephp/cakephp", "CakePHP", "web"},
    {"php", "phpunit/phpunit", "PHPUnit", "test"},
    {"php", "pestphp/pest", "Pest", "test"},
    {"java", "spring-boot*", "Spring Boot", "web"},
    {"java", "org-springframework-boot", "Spring Boot", "web"},
    {"java", "spring-webmvc", "Spring MVC", "web"},
    {"java", "quarkus*", "Quarkus", "web"},
    {"java", "micronaut*", "Micronaut", "web"},
    {"java", "hibernate-core", "Hibernate", "orm"},
    {"java", "junit-jupiter*", "JUnit 5", "test"},
    {"java", "junit", "JUnit", "test"},
    {"java", "mockito-core", "Mockito", "test"},
    {"java", "com-android-application", "Android", "mobile"},
    {"go", "github-com/gin-gonic/gin", "Gin", "web"},
    {"go", "github-com/labstack/echo*", "Echo", "web"},
    {"go", "github-com/gofiber/fiber*", "Fiber", "web"},
    {"go", "github-com/go-chi/chi*", "chi", "web"},
    {"go", "github-com/gorilla/mux", "gorilla/mux", "web"},
    {"go", "github-com/spf13/cobra", "Cobra", "cli"},
    {"go", "github-com/urfave/cli*", "urfave/cli", "cli"},
    {"go", "github-com/stretchr/testify", "testify", "test"},
    {"go", "google-golang-org/grpc", "gRPC", "web"},
    {"go", "gorm-io/gorm", "GORM", "orm"},
    {"rust", "tokio", "Tokio", "async"},
    {"rust", "actix-web", "Actix Web", "web"},
    {"rust", "axum", "Axum", "web"},
    {"rust", "rocket", "Rocket", "web"},
    {"rust", "warp", "warp", "web"},
    {"rust", "serde", "Serde", "data"},
    {"rust", "clap", "clap", "cli"},
    {"rust", "diesel", "Diesel", "orm"},
    {"rust", "sqlx", "SQLx", "orm"},
    {"rust", "tauri", "Tauri", "desktop"},
    {"rust", "bevy", "Bevy", "game"},
    {"dotnet", "microsoft-aspnetcore*", "ASP.NET Core", "web"},
    {"dotnet", "microsoft-net-sdk-web", "ASP.NET Core", "web"},
    {"dotnet", "xunit", "xUnit", "test"},
    {"dotnet", "nunit", "NUnit", "test"},
    {"dotnet", "mstest-testframework", "MSTest", "test"},
    {"dotnet", "microsoft-entityframeworkcore*", "Entity Framework Core", "orm"},
};

static const struct framework *framework_of(const char *eco, const char *norm)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(frameworks); i++) {
        const struct framework *f = &frameworks[i];
        size_t n = strlen(f->dep);
        if (strcmp(f->eco, eco))
            continue;
        if (f->dep[n - 1] == '*' ? !strncmp(norm, f->dep, n - 1) : !strcmp(norm, f->dep))
            return f;
    }
    return NULL;
}

/*
 * A dependency `name` (as written) of ecosystem `eco`, found in `where`:
 * record it as a framework when the table knows it (and it is not the
 * project itself).
 */
static void see_dep(dctx *d, const char *eco, const char *name, size_t n, const char *where)
{
    char norm[160];
    norm_name(norm, sizeof(norm), name, n);
    if (d->self_dep && !strcmp(norm, d->self_dep))
        return;
    const struct framework *f = framework_of(eco, norm);
    if (f && d->dev && strcmp(f->what, "test") && strcmp(f->what, "build"))
        return;
    if (f && !json_object_get(d->frameworks, f->name)) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%.*s in %s", (int)n, name, where);
        json_object_set_new(d->frameworks, f->name,
                            json_pack("{s:s,s:s}", "what", f->what, "why", b.ptr));
        mn_buf_release(&b);
    }
}

/* The name part of a PEP 508 requirement ("urllib3>=1.26,<3; extra" -> "urllib3"). */
static size_t pep508_name(const char *s, const char **start)
{
    while (*s == ' ' || *s == '\t')
        s++;
    *start = s;
    size_t n = 0;
    while (s[n] && (t_bare(s[n]) || s[n] == '.'))
        n++;
    return n;
}

/* Requirement strings (an array) -> names; each seen as a dependency. */
static json_t *pep508_names(dctx *d, const json_t *reqs, const char *where)
{
    json_t *names = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(reqs, i, r)
    {
        const char *s = json_string_value(r), *st;
        size_t n = s ? pep508_name(s, &st) : 0;
        if (!n)
            continue;
        char *nm = mn_strndup(st, n);
        add_unique(names, nm);
        see_dep(d, "py", st, n, where);
        free(nm);
    }
    return names;
}

/* Requirements as lines of text (setup.cfg install_requires, requirements.txt). */
static json_t *lines_to_reqs(const char *text)
{
    json_t *a = json_array();
    const char *p = text, *end = text + strlen(text), *line;
    size_t len;
    while (next_line(&p, end, &line, &len)) {
        while (len && (*line == ' ' || *line == '\t'))
            line++, len--;
        if (!len || *line == '#' || *line == '-')
            continue;
        json_array_append_new(a, json_stringn(line, len));
    }
    return a;
}

/* Keys of an object as an array of names, each seen as a dependency. */
static json_t *keys_as_deps(dctx *d, const char *eco, const json_t *obj, const char *where,
                            const char *skip)
{
    json_t *names = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (skip && !strcmp(k, skip))
            continue;
        add_unique(names, k);
        see_dep(d, eco, k, strlen(k), where);
    }
    return names;
}

/* ---- Makefile, Justfile, Taskfile: targets ---- */

static bool make_name_ok(const char *s, size_t n)
{
    if (!n || s[0] == '.' || n > 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!t_bare(s[i]) && s[i] != '.')
            return false;
    return true;
}

/*
 * Targets of a Makefile: {target: {recipe, deps}}, where recipe is the
 * first recipe lines joined with " && " (echo lines left out) and deps the
 * prerequisites. Pattern rules, variables and special targets are skipped.
 */
static json_t *make_targets(const char *text, size_t len)
{
    json_t *out = json_object(), *cur = json_array();
    const char *p = text, *end = text + len, *line;
    size_t n;
    while (next_line(&p, end, &line, &n)) {
        if (n && line[0] == '\t') {
            size_t i = 1;
            while (i < n && (line[i] == '@' || line[i] == '-' || line[i] == '+' || line[i] == ' ' ||
                             line[i] == '\t'))
                i++;
            if (i == n || !strncmp(line + i, "echo ", 5) || !strncmp(line + i, "printf ", 7) ||
                !strncmp(line + i, "$(info", 6) || !strncmp(line + i, "$(warning", 9) ||
                line[i] == '#')
                continue;
            size_t j;
            json_t *t;
            json_array_foreach(cur, j, t)
            {
                json_t *r = json_object_get(t, "recipe");
                if (json_integer_value(json_object_get(t, "nlines")) >= 3)
                    continue;
                mn_buf b = MN_BUF_INIT;
                mn_buf_printf(&b, "%s%s%.*s", json_string_value(r),
                              json_string_length(r) ? " && " : "", (int)(n - i), line + i);
                json_object_set_new(t, "recipe", json_string(b.ptr));
                json_object_set_new(
                    t, "nlines",
                    json_integer(json_integer_value(json_object_get(t, "nlines")) + 1));
                mn_buf_release(&b);
            }
            continue;
        }
        if (!n || line[0] == ' ' || line[0] == '#')
            continue;
        json_array_clear(cur);
        const char *colon = memchr(line, ':', n);
        /* variables, functions, quotes and conditionals are not target lists */
        if (!colon || (colon + 1 < line + n && colon[1] == '=') ||
            memchr(line, '=', (size_t)(colon - line)) ||
            memchr(line, '$', (size_t)(colon - line)) ||
            memchr(line, '"', (size_t)(colon - line)) || memchr(line, '(', (size_t)(colon - line)))
            continue;
        const char *deps = colon + 1;
        if (deps < line + n && *deps == ':')
            deps++;
        const char *q = line;
        while (q < colon) {
            while (q < colon && (*q == ' ' || *q == '\t'))
                q++;
            const char *s = q;
            while (q < colon && *q != ' ' && *q != '\t')
                q++;
            if (q > s && make_name_ok(s, (size_t)(q - s))) {
                char *name = mn_strndup(s, (size_t)(q - s));
                json_t *t = json_object_get(out, name);
                if (!t) {
                    mn_buf db = MN_BUF_INIT;
                    const char *dend = line + n, *semi = memchr(deps, ';', (size_t)(dend - deps));
                    put_oneline(&db, "", 0);
                    mn_buf_put(&db, deps, (size_t)((semi ? semi : dend) - deps));
                    mn_buf dd = MN_BUF_INIT;
                    put_oneline(&dd, db.ptr, 200);
                    t = json_pack("{s:s,s:s,s:I,s:i}", "recipe", "", "deps", dd.ptr, "nlines",
                                  (json_int_t)0, "order", (int)json_object_size(out));
                    json_object_set_new(out, name, t);
                    mn_buf_release(&db);
                    mn_buf_release(&dd);
                }
                json_array_append(cur, t);
                free(name);
            }
        }
    }
    json_decref(cur);
    return out;
}

/* The detail of a target for the evidence: its recipe, else its prerequisites. */
static char *target_detail(const json_t *t)
{
    mn_buf b = MN_BUF_INIT;
    const char *r = jstr(t, "recipe"), *deps = jstr(t, "deps");
    if (r && *r)
        put_oneline(&b, r, 160);
    else if (deps && *deps)
        mn_buf_printf(&b, "runs %s", deps);
    return b.len ? mn_buf_detach(&b) : (mn_buf_release(&b), NULL);
}

/* Targets that name a kind of command, best first. */
static const char *const target_names[CMD_N] = {
    "build all compile dist",
    "test tests check test-all unittest unit-test",
    "run serve start dev server",
    "lint check-format format-check lint-all style vet typecheck",
};

static void targets_to_cmds(dctx *d, const json_t *targets, const char *tool, const char *file,
                            int score)
{
    for (int k = 0; k < CMD_N; k++) {
        char words[128];
        snprintf(words, sizeof(words), "%s", target_names[k]);
        char *save = NULL;
        for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            json_t *t = json_object_get(targets, w);
            if (!t)
                continue;
            mn_buf cmd = MN_BUF_INIT, why = MN_BUF_INIT;
            char *detail = target_detail(t);
            if (!strcmp(tool, "make") && !strcmp(w, "all") &&
                json_integer_value(json_object_get(t, "order")) == 0)
                mn_buf_puts(&cmd, "make");
            else
                mn_buf_printf(&cmd, "%s %s", tool, w);
            mn_buf_printf(&why, "%s target %s", file, w);
            add_cmd(d, k, score, cmd.ptr, why.ptr, detail);
            free(detail);
            mn_buf_release(&cmd);
            mn_buf_release(&why);
            break;
        }
    }
}

static void scan_make(dctx *d)
{
    static const char *const names[] = {"Makefile", "GNUmakefile", "makefile"};
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
        if (!load_text(d, names[i], &b))
            continue;
        json_t *t = make_targets(b.ptr, b.len);
        targets_to_cmds(d, t, "make", names[i], 80);
        json_decref(t);
        break;
    }
    /* Justfile: "name args...:" at the start of a line */
    static const char *const just[] = {"justfile", "Justfile", ".justfile"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(just); i++) {
        if (!load_text(d, just[i], &b))
            continue;
        json_t *t = json_object();
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (next_line(&p, end, &line, &n)) {
            size_t k = 0;
            if (line[0] == '@')
                line++, n--;
            while (k < n && (t_bare(line[k])))
                k++;
            const char *colon = memchr(line, ':', n);
            if (!k || !colon || colon < line + k || (colon + 1 < line + n && colon[1] == '='))
                continue;
            char *name = mn_strndup(line, k);
            if (!json_object_get(t, name))
                json_object_set_new(t, name,
                                    json_pack("{s:s,s:s,s:i}", "recipe", "", "deps", "", "order",
                                              (int)json_object_size(t)));
            free(name);
        }
        targets_to_cmds(d, t, "just", just[i], 80);
        json_decref(t);
        break;
    }
    mn_buf_release(&b);
    static const char *const task[] = {"Taskfile.yml", "Taskfile.yaml", "taskfile.yml"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(task); i++) {
        json_t *y = have(d, task[i]) ? load(d, task[i], FMT_YAML, false) : NULL;
        json_t *tasks = jget(y, "tasks", NULL), *t = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(tasks, k, v)
        {
            json_t *cmds = json_object_get(v, "cmds");
            const char *first = json_string_value(json_array_get(cmds, 0));
            json_object_set_new(t, k,
                                json_pack("{s:s,s:s,s:i}", "recipe", first ? first : "", "deps", "",
                                          "order", (int)json_object_size(t)));
        }
        targets_to_cmds(d, t, "task", task[i], 80);
        json_decref(t);
        json_decref(y);
    }
}

/* ---- Python ---- */

/* The string value of keyword argument `key` in Python source (setup.py): name="x". */
static char *py_kwarg(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        if (p > text && (t_bare(p[-1]) || p[-1] == '.'))
            continue;
        const char *q = p + kl;
        while (*q == ' ')
            q++;
        if (*q != '=' || q[1] == '=')
            continue;
        q++;
        while (*q == ' ')
            q++;
        if (*q != '"' && *q != '\'')
            continue;
        const char *e = strchr(q + 1, *q);
        if (!e || memchr(q + 1, '\n', (size_t)(e - q - 1)))
            continue;
        return mn_strndup(q + 1, (size_t)(e - q - 1));
    }
    return NULL;
}

/* Quoted strings of the first [...] after `key` in Python source. */
static json_t *py_list_after(const char *text, const char *key)
{
    json_t *out = json_array();
    const char *p = strstr(text, key);
    if (!p)
        return out;
    const char *open = strchr(p, '['), *close = open ? strchr(open, ']') : NULL;
    if (!open || !close || open - p > 40)
        return out;
    for (const char *q = open; q < close; q++) {
        if (*q != '"' && *q != '\'')
            continue;
        const char *e = memchr(q + 1, *q, (size_t)(close - q - 1));
        if (!e)
            break;
        json_array_append_new(out, json_stringn(q + 1, (size_t)(e - q - 1)));
        q = e;
    }
    return out;
}

/* "name = module:func" entries (setup.cfg, setup.py) as entry points. */
static void py_console_scripts(dctx *d, const json_t *lines, const char *why)
{
    size_t i;
    json_t *l;
    json_array_foreach(lines, i, l)
    {
        const char *s = json_string_value(l), *eq = s ? strchr(s, '=') : NULL;
        if (!eq)
            continue;
        const char *ne = eq;
        while (ne > s && ne[-1] == ' ')
            ne--;
        const char *v = eq + 1;
        while (*v == ' ')
            v++;
        mn_buf what = MN_BUF_INIT, cmd = MN_BUF_INIT;
        mn_buf_printf(&what, "console script %.*s -> %s", (int)(ne - s), s, v);
        mn_buf_printf(&cmd, "%.*s", (int)(ne - s), s);
        add_entry(d, what.ptr, why);
        add_kv(d->types, "command-line tool", why);
        char norm[128];
        norm_name(norm, sizeof(norm), cmd.ptr, cmd.len);
        add_cmd(d, CMD_RUN, d->self_dep && !strcmp(norm, d->self_dep) ? 52 : 50, cmd.ptr, why, v);
        mn_buf_release(&what);
        mn_buf_release(&cmd);
    }
}

static void py_scripts_table(dctx *d, const json_t *scripts, const char *why)
{
    const char *k;
    json_t *v;
    json_t *lines = json_array();
    json_object_foreach((json_t *)scripts, k, v)
    {
        if (json_is_string(v))
            json_array_append_new(lines, json_sprintf("%s = %s", k, json_string_value(v)));
    }
    py_console_scripts(d, lines, why);
    json_decref(lines);
}

static bool ini_has(const json_t *ini, const char *section)
{
    return json_object_get(ini, section) != NULL;
}

/* Python packages: <x>/__init__.py or src/<x>/__init__.py that are not tests. */
static void find_pypkgs(dctx *d)
{
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        int dep = depth_of(f->path);
        if (strcmp(base_name(f->path), "__init__.py") || f->role == MN_ROLE_TEST ||
            f->role == MN_ROLE_VENDORED || !(dep == 1 || (dep == 2 && starts(f->path, "src/"))))
            continue;
        char *dir = mn_strndup(f->path, strlen(f->path) - strlen("/__init__.py"));
        const char *b = base_name(dir);
        if (strcmp(b, "tests") && strcmp(b, "test") && strcmp(b, "testing") && strcmp(b, "docs"))
            add_unique(d->pypkgs, dir);
        free(dir);
    }
}

static const char *py_backend_name(const char *backend)
{
    static const char *const map[][2] = {
        {"setuptools", "setuptools"},
        {"flit_core", "flit"},
        {"hatchling", "hatchling"},
        {"poetry", "Poetry (poetry-core)"},
        {"pdm", "PDM (pdm-backend)"},
        {"maturin", "maturin"},
        {"scikit_build_core", "scikit-build-core"},
        {"mesonpy", "meson-python"},
        {"sipbuild", "sip"},
        {"enscons", "enscons"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(map); i++)
        if (starts(backend, map[i][0]))
            return map[i][1];
    return backend;
}

static void scan_python(dctx *d)
{
    json_t *py = load(d, "pyproject.toml", FMT_TOML, true);
    json_t *cfg = have(d, "setup.cfg") ? load(d, "setup.cfg", FMT_INI, false) : NULL;
    json_t *tox = have(d, "tox.ini") ? load(d, "tox.ini", FMT_INI, false) : NULL;
    json_t *proj = jget(py, "project", NULL), *poetry = jget(py, "tool", "poetry", NULL);
    json_t *tool = jget(py, "tool", NULL);
    json_t *meta = jget(cfg, "metadata", NULL), *opts = jget(cfg, "options", NULL);
    mn_buf setup = MN_BUF_INIT;
    bool setup_py = load_text(d, "setup.py", &setup);
    const char *req_main = have(d, "requirements.txt") ? "requirements.txt" : NULL;
    const char *req_first = NULL;
    for (size_t i = 0; i < d->files.len && !req_first; i++) {
        const char *p = d->files.items[i].path;
        if ((depth_of(p) == 0 && starts(p, "requirements") && ends(p, ".txt")) ||
            (starts(p, "requirements/") && ends(p, ".txt") && depth_of(p) == 1))
            req_first = p;
    }
    bool any_req = req_first != NULL;
    bool is_py = py || cfg || setup_py || any_req || have(d, "Pipfile") ||
                 have(d, "environment.yml") || have(d, "manage.py");
    find_pypkgs(d);
    if (!is_py)
        goto out;

    /* name */
    set_name(d, jstr(proj, "name"), jstr(proj, "description"), "pyproject.toml [project]");
    set_name(d, jstr(poetry, "name"), jstr(poetry, "description"), "pyproject.toml [tool.poetry]");
    set_name(d, jstr(meta, "name"), jstr(meta, "description"), "setup.cfg [metadata]");
    if (setup_py && !d->name) {
        char *n = py_kwarg(setup.ptr, "name"), *ds = py_kwarg(setup.ptr, "description");
        set_name(d, n, ds, "setup.py");
        free(n);
        free(ds);
    }

    /* dependencies (and frameworks among them) */
    if (json_is_array(jget(proj, "dependencies", NULL)))
        add_deps(d, "pyproject.toml", "runtime",
                 pep508_names(d, jget(proj, "dependencies", NULL), "pyproject.toml"));
    if (json_is_object(jget(poetry, "dependencies", NULL)))
        add_deps(d, "pyproject.toml", "runtime",
                 keys_as_deps(d, "py", jget(poetry, "dependencies", NULL),
                              "pyproject.toml [tool.poetry.dependencies]", "python"));
    if (jstr(opts, "install_requires")) {
        json_t *r = lines_to_reqs(jstr(opts, "install_requires"));
        add_deps(d, "setup.cfg", "runtime", pep508_names(d, r, "setup.cfg"));
        json_decref(r);
    }
    if (setup_py) {
        json_t *r = py_list_after(setup.ptr, "install_requires");
        add_deps(d, "setup.py", "runtime", pep508_names(d, r, "setup.py"));
        json_decref(r);
    }
    d->dev = true;
    {
        json_t *all = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(jget(proj, "optional-dependencies", NULL), k, v)
        {
            json_t *n = pep508_names(d, v, "pyproject.toml [project.optional-dependencies]");
            json_array_extend(all, n);
            json_decref(n);
        }
        add_deps(d, "pyproject.toml", "optional", all);
        all = json_array();
        json_object_foreach(jget(py, "dependency-groups", NULL), k, v)
        {
            json_t *n = pep508_names(d, v, "pyproject.toml [dependency-groups]");
            json_array_extend(all, n);
            json_decref(n);
        }
        json_object_foreach(jget(poetry, "group", NULL), k, v)
        {
            json_t *n = keys_as_deps(d, "py", jget(v, "dependencies", NULL),
                                     "pyproject.toml [tool.poetry.group]", NULL);
            json_array_extend(all, n);
            json_decref(n);
        }
        add_deps(d, "pyproject.toml", "development", all);
    }
    d->dev = false;
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!((depth_of(p) == 0 && starts(p, "requirements") && ends(p, ".txt")) ||
              (starts(p, "requirements/") && ends(p, ".txt") && depth_of(p) == 1)))
            continue;
        mn_buf b = MN_BUF_INIT;
        if (load_text(d, p, &b)) {
            json_t *r = lines_to_reqs(b.ptr);
            d->dev = !(req_main && !strcmp(p, req_main));
            add_deps(d, p, d->dev ? "development" : "runtime", pep508_names(d, r, p));
            d->dev = false;
            json_decref(r);
        }
        mn_buf_release(&b);
    }
    if (have(d, "Pipfile")) {
        json_t *pf = load(d, "Pipfile", FMT_TOML, false);
        if (json_is_object(jget(pf, "packages", NULL)))
            add_deps(d, "Pipfile", "runtime",
                     keys_as_deps(d, "py", jget(pf, "packages", NULL), "Pipfile", NULL));
        d->dev = true;
        if (json_is_object(jget(pf, "dev-packages", NULL)))
            add_deps(d, "Pipfile", "development",
                     keys_as_deps(d, "py", jget(pf, "dev-packages", NULL), "Pipfile", NULL));
        d->dev = false;
        json_decref(pf);
    }

    /* package managers and the build backend */
    const char *backend = jstr(jget(py, "build-system", NULL), "build-backend");
    if (have(d, "uv.lock") || jget(tool, "uv", NULL))
        add_manager(d, "python", "uv", have(d, "uv.lock") ? "uv.lock" : "pyproject.toml [tool.uv]",
                    "uv sync");
    if (have(d, "poetry.lock") || poetry)
        add_manager(d, "python", "Poetry",
                    have(d, "poetry.lock") ? "poetry.lock" : "pyproject.toml [tool.poetry]",
                    "poetry install");
    if (have(d, "pdm.lock") || jget(tool, "pdm", NULL))
        add_manager(d, "python", "PDM",
                    have(d, "pdm.lock") ? "pdm.lock" : "pyproject.toml [tool.pdm]", "pdm install");
    if (have(d, "Pipfile"))
        add_manager(d, "python", "Pipenv", "Pipfile", "pipenv install --dev");
    if (jget(tool, "hatch", "envs", NULL))
        add_manager(d, "python", "Hatch", "pyproject.toml [tool.hatch.envs]", "hatch env create");
    if (have(d, "environment.yml") || have(d, "environment.yaml"))
        add_manager(d, "python", "conda", "environment.yml", "conda env create -f environment.yml");
    if (any_req) {
        mn_buf inst = MN_BUF_INIT;
        mn_buf_printf(&inst, "pip install -r %s", req_main ? req_main : req_first);
        add_manager(d, "python", "pip", req_main ? req_main : req_first, inst.ptr);
        mn_buf_release(&inst);
    }
    if (proj || setup_py || cfg)
        add_manager(d, "python", "pip",
                    proj       ? "pyproject.toml"
                    : setup_py ? "setup.py"
                               : "setup.cfg",
                    "pip install -e .");
    if (backend) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "pyproject.toml [build-system] build-backend = \"%s\"", backend);
        add_cmd(d, CMD_BUILD, 50, "python -m build", b.ptr, py_backend_name(backend));
        add_kv(d->builders, py_backend_name(backend), b.ptr);
        mn_buf_release(&b);
    } else if (setup_py) {
        add_cmd(d, CMD_BUILD, 45, "python -m build", "setup.py", "setuptools");
        add_kv(d->builders, "setuptools", "setup.py");
    }

    /* runtime */
    {
        const char *rp = jstr(proj, "requires-python");
        const char *why = "pyproject.toml requires-python";
        if (!rp)
            rp = jstr(jget(poetry, "dependencies", NULL), "python"),
            why = "pyproject.toml [tool.poetry.dependencies] python";
        if (!rp)
            rp = jstr(opts, "python_requires"), why = "setup.cfg python_requires";
        if (rp) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "Python %s (%s)", rp, why);
            add_unique(d->runtime, b.ptr);
            mn_buf_release(&b);
        }
        mn_buf v = MN_BUF_INIT;
        if (load_text(d, ".python-version", &v)) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_puts(&b, "Python ");
            put_oneline(&b, v.ptr, 40);
            mn_buf_puts(&b, " (.python-version)");
            add_unique(d->runtime, b.ptr);
            mn_buf_release(&b);
        }
        mn_buf_release(&v);
    }

    /* entry points */
    if (json_is_object(jget(proj, "scripts", NULL)))
        py_scripts_table(d, jget(proj, "scripts", NULL), "pyproject.toml [project.scripts]");
    if (json_is_object(jget(proj, "gui-scripts", NULL)))
        py_scripts_table(d, jget(proj, "gui-scripts", NULL),
                         "pyproject.toml [project.gui-scripts]");
    if (json_is_object(jget(poetry, "scripts", NULL)))
        py_scripts_table(d, jget(poetry, "scripts", NULL), "pyproject.toml [tool.poetry.scripts]");
    if (jstr(jget(cfg, "options.entry_points", NULL), "console_scripts")) {
        json_t *r = lines_to_reqs(jstr(jget(cfg, "options.entry_points", NULL), "console_scripts"));
        py_console_scripts(d, r, "setup.cfg [options.entry_points] console_scripts");
        json_decref(r);
    }
    if (setup_py && strstr(setup.ptr, "console_scripts")) {
        json_t *r = py_list_after(setup.ptr, "console_scripts");
        py_console_scripts(d, r, "setup.py entry_points console_scripts");
        json_decref(r);
    }
    {
        size_t i;
        json_t *pk;
        json_array_foreach(d->pypkgs, i, pk)
        {
            mn_buf m = MN_BUF_INIT, what = MN_BUF_INIT, cmd = MN_BUF_INIT;
            mn_buf_printf(&m, "%s/__main__.py", json_string_value(pk));
            if (have(d, m.ptr)) {
                mn_buf_printf(&cmd, "python -m %s", base_name(json_string_value(pk)));
                mn_buf_printf(&what, "%s (%s)", cmd.ptr, m.ptr);
                add_entry(d, what.ptr, m.ptr);
                add_cmd(d, CMD_RUN, 45, cmd.ptr, m.ptr, NULL);
            }
            mn_buf_release(&m);
            mn_buf_release(&what);
            mn_buf_release(&cmd);
        }
    }
    if (have(d, "manage.py")) {
        add_entry(d, "manage.py (Django management commands)", "manage.py");
        add_cmd(d, CMD_RUN, 70, "python manage.py runserver", "manage.py", NULL);
        add_cmd(d, CMD_TEST, 55, "python manage.py test", "manage.py", NULL);
        add_kv(d->types, "web application", "manage.py (Django)");
    }
    static const char *const app_files[] = {"app.py", "main.py", "wsgi.py", "asgi.py", "run.py"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(app_files); i++)
        if (have(d, app_files[i]) && file_get(d, app_files[i])->role == MN_ROLE_SOURCE) {
            mn_buf cmd = MN_BUF_INIT;
            mn_buf_printf(&cmd, "python %s", app_files[i]);
            add_entry(d, app_files[i], app_files[i]);
            add_cmd(d, CMD_RUN, 35, cmd.ptr, app_files[i], NULL);
            mn_buf_release(&cmd);
        }

    /* tests */
    {
        const char *why = NULL;
        const json_t *paths = NULL;
        if (jget(tool, "pytest", "ini_options", NULL))
            why = "pyproject.toml [tool.pytest.ini_options]",
            paths = jget(tool, "pytest", "ini_options", "testpaths", NULL);
        else if (jget(tool, "pytest", NULL))
            why = "pyproject.toml [tool.pytest]", paths = jget(tool, "pytest", "testpaths", NULL);
        else if (have(d, "pytest.ini"))
            why = "pytest.ini";
        else if (ini_has(cfg, "tool:pytest"))
            why = "setup.cfg [tool:pytest]";
        else if (ini_has(tox, "pytest") || ini_has(tox, "tool:pytest"))
            why = "tox.ini [pytest]";
        int score = 70;
        if (!why && (have(d, "conftest.py") || have(d, "tests/conftest.py") ||
                     json_object_get(d->frameworks, "pytest")))
            why = have(d, "conftest.py")         ? "conftest.py"
                  : have(d, "tests/conftest.py") ? "tests/conftest.py"
                                                 : "pytest among the dependencies",
            score = 55;
        if (why) {
            mn_buf det = MN_BUF_INIT;
            if (json_array_size(paths)) {
                mn_buf_puts(&det, "testpaths:");
                size_t i;
                json_t *p;
                json_array_foreach(paths, i, p) if (json_is_string(p))
                    mn_buf_printf(&det, " %s", json_string_value(p));
            }
            add_cmd(d, CMD_TEST, score, "pytest", why, det.len ? det.ptr : NULL);
            mn_buf_release(&det);
        }
    }
    if (tox || jget(tool, "tox", NULL)) {
        const char *cmds = jstr(jget(tox, "testenv", NULL), "commands");
        mn_buf det = MN_BUF_INIT;
        if (cmds)
            put_oneline(&det, cmds, 160);
        add_cmd(d, CMD_TEST, 60, "tox", tox ? "tox.ini [testenv]" : "pyproject.toml [tool.tox]",
                det.len ? det.ptr : NULL);
        mn_buf_release(&det);
        static const char *const lint_envs[] = {"linting", "lint", "style",
                                                "flake8",  "ruff", "pre-commit"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(lint_envs); i++) {
            mn_buf sec = MN_BUF_INIT, cmd = MN_BUF_INIT;
            mn_buf_printf(&sec, "testenv:%s", lint_envs[i]);
            json_t *env = jget(tox, sec.ptr, NULL);
            if (!env)
                env = jget(tool, "tox", "env", lint_envs[i], NULL);
            if (env) {
                mn_buf_printf(&cmd, "tox -e %s", lint_envs[i]);
                mn_buf det2 = MN_BUF_INIT;
                if (jstr(env, "commands"))
                    put_oneline(&det2, jstr(env, "commands"), 160);
                add_cmd(d, CMD_LINT, 62, cmd.ptr,
                        tox && json_object_get(tox, sec.ptr) ? "tox.ini"
                                                             : "pyproject.toml [tool.tox]",
                        det2.len ? det2.ptr : NULL);
                mn_buf_release(&det2);
            }
            mn_buf_release(&sec);
            mn_buf_release(&cmd);
        }
    }
    if (have(d, "noxfile.py")) {
        mn_buf nb = MN_BUF_INIT;
        if (load_text(d, "noxfile.py", &nb)) {
            /* sessions: the function after each @nox.session */
            for (const char *p = strstr(nb.ptr, "@nox.session"); p;
                 p = strstr(p + 1, "@nox.session")) {
                const char *def = strstr(p, "def ");
                if (!def)
                    break;
                const char *s = def + 4, *e = s;
                while (t_bare(*e))
                    e++;
                char *name = mn_strndup(s, (size_t)(e - s));
                mn_buf cmd = MN_BUF_INIT;
                mn_buf_printf(&cmd, "nox -s %s", name);
                if (strstr(name, "test"))
                    add_cmd(d, CMD_TEST, 60, cmd.ptr, "noxfile.py session", NULL);
                else if (strstr(name, "lint") || !strcmp(name, "style"))
                    add_cmd(d, CMD_LINT, 60, cmd.ptr, "noxfile.py session", NULL);
                mn_buf_release(&cmd);
                free(name);
            }
        }
        mn_buf_release(&nb);
    }
    if (!json_array_size(d->cmds[CMD_TEST]) && have_under(d, "tests"))
        add_cmd(d, CMD_TEST, 30, "python -m unittest discover", "tests/ without a pytest setup",
                NULL);

    /* code style */
    if (jget(tool, "ruff", NULL) || have(d, "ruff.toml") || have(d, ".ruff.toml")) {
        const char *why = jget(tool, "ruff", NULL) ? "pyproject.toml [tool.ruff]"
                          : have(d, "ruff.toml")   ? "ruff.toml"
                                                   : ".ruff.toml";
        add_kv(d->style, "Ruff (linter)", why);
        if (jget(tool, "ruff", "format", NULL))
            add_kv(d->style, "Ruff (formatter)", "pyproject.toml [tool.ruff.format]");
        add_cmd(d, CMD_LINT, 60, "ruff check .", why, NULL);
    }
    if (jget(tool, "black", NULL))
        add_kv(d->style, "Black", "pyproject.toml [tool.black]");
    if (jget(tool, "isort", NULL) || have(d, ".isort.cfg") || ini_has(cfg, "isort"))
        add_kv(d->style, "isort",
               jget(tool, "isort", NULL) ? "pyproject.toml [tool.isort]"
               : have(d, ".isort.cfg")   ? ".isort.cfg"
                                         : "setup.cfg [isort]");
    if (have(d, ".flake8") || ini_has(cfg, "flake8") || ini_has(tox, "flake8")) {
        const char *why = have(d, ".flake8")       ? ".flake8"
                          : ini_has(cfg, "flake8") ? "setup.cfg [flake8]"
                                                   : "tox.ini [flake8]";
        add_kv(d->style, "Flake8", why);
        add_cmd(d, CMD_LINT, 55, "flake8", why, NULL);
    }
    if (jget(tool, "mypy", NULL) || have(d, "mypy.ini") || have(d, ".mypy.ini") ||
        ini_has(cfg, "mypy"))
        add_kv(d->style, "mypy (type checker)",
               jget(tool, "mypy", NULL) ? "pyproject.toml [tool.mypy]"
               : have(d, "mypy.ini")    ? "mypy.ini"
               : have(d, ".mypy.ini")   ? ".mypy.ini"
                                        : "setup.cfg [mypy]");
    if (jget(tool, "pyright", NULL) || have(d, "pyrightconfig.json"))
        add_kv(d->style, "Pyright (type checker)",
               jget(tool, "pyright", NULL) ? "pyproject.toml [tool.pyright]"
                                           : "pyrightconfig.json");
    if (jget(tool, "pylint", NULL) || have(d, ".pylintrc") || have(d, "pylintrc"))
        add_kv(d->style, "Pylint",
               jget(tool, "pylint", NULL) ? "pyproject.toml [tool.pylint]"
               : have(d, ".pylintrc")     ? ".pylintrc"
                                          : "pylintrc");
    if (jget(tool, "codespell", NULL) || have(d, ".codespellrc"))
        add_kv(d->style, "codespell",
               jget(tool, "codespell", NULL) ? "pyproject.toml [tool.codespell]" : ".codespellrc");

    /* what kind of project */
    {
        json_t *cls = jget(proj, "classifiers", NULL);
        bool lib = false, framework = false, testing = false;
        size_t i;
        json_t *c;
        json_array_foreach(cls, i, c)
        {
            const char *s = json_string_value(c);
            if (!s || !starts(s, "Topic :: Software Development"))
                continue;
            lib |= strstr(s, "Libraries") != NULL;
            framework |= strstr(s, "Application Frameworks") != NULL;
            testing |= strstr(s, ":: Testing") != NULL;
        }
        if (framework)
            add_kv(d->types, "framework", "pyproject.toml classifier Application Frameworks");
        if (testing)
            add_kv(d->types, "testing tool", "pyproject.toml classifier Testing");
        if (lib || proj || poetry || setup_py || meta)
            add_kv(d->types, "library",
                   lib        ? "pyproject.toml classifier Libraries"
                   : proj     ? "pyproject.toml [project] (a distributable package)"
                   : poetry   ? "pyproject.toml [tool.poetry] (a distributable package)"
                   : setup_py ? "setup.py (a distributable package)"
                              : "setup.cfg [metadata] (a distributable package)");
        else if (any_req)
            add_kv(d->types, "application", "requirements.txt without packaging metadata");
    }
out:
    mn_buf_release(&setup);
    json_decref(py);
    json_decref(cfg);
    json_decref(tox);
}

/* ---- JavaScript / TypeScript ---- */

/* How the package manager runs a script: "npm test", "pnpm build", "yarn lint". */
static void js_script_cmd(mn_buf *out, const char *pm, const char *script)
{
    if (!strcmp(pm, "npm"))
        mn_buf_printf(out,
                      !strcmp(script, "test") || !strcmp(script, "start") ? "npm %s" : "npm run %s",
                      script);
    else if (!strcmp(pm, "bun"))
        mn_buf_printf(out, "bun run %s", script);
    else if (!strcmp(pm, "deno"))
        mn_buf_printf(out, "deno task %s", script);
    else
        mn_buf_printf(out, "%s %s", pm, script);
}

/* Scripts of a package manager -> command candidates (score 90 for the exact names). */
static void js_scripts(dctx *d, const json_t *scripts, const char *pm, const char *why_file)
{
    static const char *const names[CMD_N][6] = {
        {"build", "compile", "dist", NULL},
        {"test", "test:unit", "tests", "check", NULL},
        {"start", "dev", "serve", "develop", NULL},
        {"lint", "lint:all", "check:lint", "eslint", NULL},
    };
    for (int k = 0; k < CMD_N; k++)
        for (int i = 0; names[k][i]; i++) {
            const char *body = jstr(scripts, names[k][i]);
            if (!body || strstr(body, "no test specified"))
                continue;
            mn_buf cmd = MN_BUF_INIT, why = MN_BUF_INIT, det = MN_BUF_INIT;
            js_script_cmd(&cmd, pm, names[k][i]);
            mn_buf_printf(&why, "%s scripts.%s", why_file, names[k][i]);
            put_oneline(&det, body, 160);
            add_cmd(d, k, 90 - i * 2, cmd.ptr, why.ptr, det.ptr);
            mn_buf_release(&cmd);
            mn_buf_release(&why);
            mn_buf_release(&det);
        }
}

static void scan_node(dctx *d)
{
    json_t *pkg = load(d, "package.json", FMT_JSON, true);
    json_t *deno = have(d, "deno.json")    ? load(d, "deno.json", FMT_JSON, false)
                   : have(d, "deno.jsonc") ? load(d, "deno.jsonc", FMT_JSON, false)
                                           : NULL;
    const char *pm = NULL, *pm_why = NULL;
    if (deno) {
        add_manager(d, "typescript", "Deno", have(d, "deno.json") ? "deno.json" : "deno.jsonc",
                    "deno install");
        js_scripts(d, jget(deno, "tasks", NULL), "deno", "deno.json");
        add_cmd(d, CMD_TEST, 50, "deno test", "deno.json", NULL);
        add_cmd(d, CMD_LINT, 45, "deno lint", "deno.json", NULL);
    }
    if (!pkg)
        goto out;
    set_name(d, jstr(pkg, "name"), jstr(pkg, "description"), "package.json");
    const char *decl = jstr(pkg, "packageManager");
    if (decl && (starts(decl, "pnpm") || starts(decl, "yarn") || starts(decl, "npm") ||
                 starts(decl, "bun")))
        pm = starts(decl, "pnpm")   ? "pnpm"
             : starts(decl, "yarn") ? "yarn"
             : starts(decl, "bun")  ? "bun"
                                    : "npm",
        pm_why = "package.json packageManager";
    else if (have(d, "pnpm-lock.yaml"))
        pm = "pnpm", pm_why = "pnpm-lock.yaml";
    else if (have(d, "yarn.lock"))
        pm = "yarn", pm_why = "yarn.lock";
    else if (have(d, "bun.lockb") || have(d, "bun.lock"))
        pm = "bun", pm_why = have(d, "bun.lockb") ? "bun.lockb" : "bun.lock";
    else if (have(d, "package-lock.json") || have(d, "npm-shrinkwrap.json"))
        pm = "npm",
        pm_why = have(d, "package-lock.json") ? "package-lock.json" : "npm-shrinkwrap.json";
    else
        pm = "npm", pm_why = "package.json";
    {
        static const char *const disp[][3] = {{"npm", "npm", "npm install"},
                                              {"pnpm", "pnpm", "pnpm install"},
                                              {"yarn", "Yarn", "yarn install"},
                                              {"bun", "Bun", "bun install"}};
        for (size_t i = 0; i < MN_ARRAY_SIZE(disp); i++)
            if (!strcmp(pm, disp[i][0]))
                add_manager(d, "javascript", disp[i][1], pm_why,
                            !strcmp(pm, "npm") && strcmp(pm_why, "package.json") ? "npm ci"
                                                                                 : disp[i][2]);
    }
    js_scripts(d, jget(pkg, "scripts", NULL), pm, "package.json");

    json_t *rt = jget(pkg, "dependencies", NULL), *dev = jget(pkg, "devDependencies", NULL);
    json_t *peer = jget(pkg, "peerDependencies", NULL);
    if (json_is_object(rt))
        add_deps(d, "package.json", "runtime",
                 keys_as_deps(d, "js", rt, "package.json dependencies", NULL));
    if (json_is_object(peer))
        add_deps(d, "package.json", "peer",
                 keys_as_deps(d, "js", peer, "package.json peerDependencies", NULL));
    d->dev = true;
    if (json_is_object(dev))
        add_deps(d, "package.json", "development",
                 keys_as_deps(d, "js", dev, "package.json devDependencies", NULL));
    d->dev = false;

    if (jstr(jget(pkg, "engines", NULL), "node")) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "Node.js %s (package.json engines.node)",
                      jstr(jget(pkg, "engines", NULL), "node"));
        add_unique(d->runtime, b.ptr);
        mn_buf_release(&b);
    }
    static const char *const nv[] = {".nvmrc", ".node-version"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(nv); i++) {
        mn_buf v = MN_BUF_INIT, b = MN_BUF_INIT;
        if (load_text(d, nv[i], &v) && v.len) {
            mn_buf_puts(&b, "Node.js ");
            put_oneline(&b, v.ptr, 40);
            mn_buf_printf(&b, " (%s)", nv[i]);
            add_unique(d->runtime, b.ptr);
        }
        mn_buf_release(&v);
        mn_buf_release(&b);
    }

    /* entry points */
    json_t *bin = jget(pkg, "bin", NULL);
    if (json_is_string(bin) && jstr(pkg, "name")) {
        mn_buf w = MN_BUF_INIT;
        mn_buf_printf(&w, "command %s -> %s", base_name(jstr(pkg, "name")), json_string_value(bin));
        add_entry(d, w.ptr, "package.json bin");
        mn_buf_release(&w);
    } else if (json_is_object(bin)) {
        const char *k;
        json_t *v;
        json_object_foreach(bin, k, v) if (json_is_string(v))
        {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "command %s -> %s", k, json_string_value(v));
            add_entry(d, w.ptr, "package.json bin");
            mn_buf_release(&w);
        }
    }
    static const char *const mains[] = {"main", "module", "browser", "types"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(mains); i++)
        if (jstr(pkg, mains[i])) {
            mn_buf w = MN_BUF_INIT, why = MN_BUF_INIT;
            mn_buf_printf(&w, "%s: %s", mains[i], jstr(pkg, mains[i]));
            mn_buf_printf(&why, "package.json %s", mains[i]);
            add_entry(d, w.ptr, why.ptr);
            mn_buf_release(&w);
            mn_buf_release(&why);
        }
    if (jget(pkg, "exports", NULL) && !jstr(pkg, "main"))
        add_entry(d, "exports (package.json)", "package.json exports");

    /* workspaces */
    json_t *ws = jget(pkg, "workspaces", NULL);
    if (json_is_object(ws))
        ws = json_object_get(ws, "packages");
    size_t i;
    json_t *g;
    json_array_foreach(ws, i, g) if (json_is_string(g))
        json_array_append_new(d->workspaces, json_pack("{s:s,s:s}", "glob", json_string_value(g),
                                                       "why", "package.json workspaces"));

    /* what it is */
    bool is_private = json_is_true(jget(pkg, "private", NULL));
    if (bin)
        add_kv(d->types, "command-line tool", "package.json bin");
    static const char *const fe[] = {"React",   "Vue",   "Svelte",    "Angular",
                                     "Next.js", "Nuxt",  "SvelteKit", "SolidJS",
                                     "Preact",  "Remix", "Gatsby",    "Astro"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(fe); k++) {
        json_t *f = json_object_get(d->frameworks, fe[k]);
        if (f && strstr(jstr(f, "why"), "package.json dependencies") && is_private) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (%s)", fe[k], jstr(f, "why"));
            add_kv(d->types, "web frontend", w.ptr);
            mn_buf_release(&w);
            break;
        }
    }
    static const char *const be[] = {"Express", "Koa", "Fastify", "NestJS", "hapi", "Hono"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(be); k++) {
        json_t *f = json_object_get(d->frameworks, be[k]);
        if (f && strstr(jstr(f, "why"), "package.json dependencies")) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (%s)", be[k], jstr(f, "why"));
            add_kv(d->types, "web service", w.ptr);
            mn_buf_release(&w);
            break;
        }
    }
    if (json_object_get(d->frameworks, "Electron"))
        add_kv(d->types, "desktop application", "Electron");
    if (json_object_get(d->frameworks, "React Native"))
        add_kv(d->types, "mobile application", "React Native");
    if (!is_private && !bin)
        add_kv(d->types, "library",
               jstr(pkg, "main") || jget(pkg, "exports", NULL) || jstr(pkg, "module")
                   ? "package.json main/exports (a published package)"
                   : "package.json, not private (a published package)");
    if (!json_object_size(d->types) && !json_array_size(d->workspaces) &&
        !have(d, "pnpm-workspace.yaml") && !have(d, "lerna.json"))
        add_kv(d->types, "application", "package.json private");

    /* default commands from the tools present */
    static const char *const testers[][2] = {
        {"Jest", "npx jest"}, {"Vitest", "npx vitest run"}, {"Mocha", "npx mocha"}};
    for (size_t k = 0; k < MN_ARRAY_SIZE(testers); k++)
        if (json_object_get(d->frameworks, testers[k][0]))
            add_cmd(d, CMD_TEST, 45, testers[k][1],
                    jstr(json_object_get(d->frameworks, testers[k][0]), "why"), NULL);
    if (jget(dev, "typescript", NULL) || have(d, "tsconfig.json"))
        add_cmd(d, CMD_BUILD, 40, "npx tsc",
                have(d, "tsconfig.json") ? "tsconfig.json" : "typescript dependency", NULL);
out:
    /* code style (also for Deno and packages without a root package.json) */
    {
        static const char *const eslint[] = {
            "eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts",
            ".eslintrc",        ".eslintrc.js",      ".eslintrc.cjs",     ".eslintrc.json",
            ".eslintrc.yml",    ".eslintrc.yaml"};
        const char *why = NULL;
        for (size_t k = 0; k < MN_ARRAY_SIZE(eslint) && !why; k++)
            if (have(d, eslint[k]))
                why = eslint[k];
        if (!why && jget(pkg, "eslintConfig", NULL))
            why = "package.json eslintConfig";
        if (!why && jget(pkg, "devDependencies", "eslint", NULL))
            why = "package.json devDependencies eslint";
        if (why) {
            add_kv(d->style, "ESLint", why);
            add_cmd(d, CMD_LINT, 55, "npx eslint .", why, NULL);
        }
        static const char *const prettier[] = {
            ".prettierrc",        ".prettierrc.json",    ".prettierrc.yml",    ".prettierrc.yaml",
            ".prettierrc.js",     ".prettierrc.cjs",     ".prettierrc.mjs",    ".prettierrc.toml",
            "prettier.config.js", "prettier.config.cjs", "prettier.config.mjs"};
        why = NULL;
        for (size_t k = 0; k < MN_ARRAY_SIZE(prettier) && !why; k++)
            if (have(d, prettier[k]))
                why = prettier[k];
        if (!why && jget(pkg, "prettier", NULL))
            why = "package.json prettier";
        if (!why && jget(pkg, "devDependencies", "prettier", NULL))
            why = "package.json devDependencies prettier";
        if (why)
            add_kv(d->style, "Prettier", why);
        if (have(d, "biome.json") || have(d, "biome.jsonc")) {
            add_kv(d->style, "Biome", have(d, "biome.json") ? "biome.json" : "biome.jsonc");
            add_cmd(d, CMD_LINT, 55, "npx @biomejs/biome check .", "biome.json", NULL);
        }
        if (have(d, "tsconfig.json")) {
            json_t *ts = load(d, "tsconfig.json", FMT_JSON, false);
            add_kv(d->style,
                   json_is_true(jget(ts, "compilerOptions", "strict", NULL)) ? "TypeScript (strict)"
                                                                             : "TypeScript",
                   "tsconfig.json");
            json_decref(ts);
        }
        static const char *const stylelint[] = {".stylelintrc", ".stylelintrc.json",
                                                "stylelint.config.js", ".stylelintrc.js"};
        for (size_t k = 0; k < MN_ARRAY_SIZE(stylelint); k++)
            if (have(d, stylelint[k])) {
                add_kv(d->style, "Stylelint", stylelint[k]);
                break;
            }
    }
    if (have(d, "pnpm-workspace.yaml")) {
        json_t *y = load(d, "pnpm-workspace.yaml", FMT_YAML, false);
        size_t k;
        json_t *g2;
        json_array_foreach(jget(y, "packages", NULL), k, g2) if (json_is_string(g2))
            json_array_append_new(d->workspaces,
                                  json_pack("{s:s,s:s}", "glob", json_string_value(g2), "why",
                                            "pnpm-workspace.yaml"));
        json_decref(y);
    }
    if (have(d, "lerna.json")) {
        json_t *l = load(d, "lerna.json", FMT_JSON, false);
        size_t k;
        json_t *g2;
        json_array_foreach(jget(l, "packages", NULL), k, g2) if (json_is_string(g2))
            json_array_append_new(
                d->workspaces,
                json_pack("{s:s,s:s}", "glob", json_string_value(g2), "why", "lerna.json"));
        json_decref(l);
    }
    json_decref(pkg);
    json_decref(deno);
}

/* ---- Go ---- */

static void scan_go(dctx *d)
{
    mn_buf b = MN_BUF_INIT;
    if (!load_text(d, "go.mod", &b))
        goto work;
    {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        bool in_require = false;
        json_t *deps = json_array();
        while (next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            char *l = mn_strndup(line, n);
            if (starts(l, "module ")) {
                char *m = l + 7;
                m[strcspn(m, " \t")] = '\0';
                set_name(d, m, NULL, "go.mod module");
            } else if (starts(l, "go ")) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_printf(&r, "Go %s (go.mod)", l + 3);
                add_unique(d->runtime, r.ptr);
                mn_buf_release(&r);
            } else if (starts(l, "require (")) {
                in_require = true;
            } else if (in_require && l[0] == ')') {
                in_require = false;
            } else if ((in_require || starts(l, "require ")) && !strstr(l, "// indirect")) {
                const char *s = in_require ? l : l + 8;
                size_t k = strcspn(s, " \t");
                if (k && s[0] != '/') {
                    char *nm = mn_strndup(s, k);
                    add_unique(deps, nm);
                    see_dep(d, "go", nm, k, "go.mod");
                    free(nm);
                }
            }
            free(l);
        }
        add_deps(d, "go.mod", "runtime", deps);
    }
    add_manager(d, "go", "Go modules", "go.mod", "go mod download");
    add_cmd(d, CMD_BUILD, 50, "go build ./...", "go.mod", NULL);
    add_cmd(d, CMD_TEST, 50, "go test ./...", "go.mod", NULL);
    {
        static const char *const gl[] = {".golangci.yml", ".golangci.yaml", ".golangci.toml",
                                         ".golangci.json"};
        bool linter = false;
        for (size_t i = 0; i < MN_ARRAY_SIZE(gl); i++)
            if (have(d, gl[i])) {
                add_kv(d->style, "golangci-lint", gl[i]);
                add_cmd(d, CMD_LINT, 65, "golangci-lint run", gl[i], NULL);
                linter = true;
                break;
            }
        if (!linter)
            add_cmd(d, CMD_LINT, 40, "go vet ./...", "go.mod", "the standard checks");
        add_kv(d->style, "gofmt", "go.mod (Go code is gofmt-formatted by convention)");
    }
    bool app = false;
    if (have(d, "main.go")) {
        add_entry(d, "main.go (package main at the root)", "main.go");
        add_cmd(d, CMD_RUN, 50, "go run .", "main.go", NULL);
        app = true;
    }
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!starts(p, "cmd/") || depth_of(p) != 2 || strcmp(base_name(p), "main.go"))
            continue;
        mn_buf w = MN_BUF_INIT, cmd = MN_BUF_INIT;
        size_t dl = strlen(p) - strlen("/main.go");
        mn_buf_printf(&w, "%s", p);
        mn_buf_printf(&cmd, "go run ./%.*s", (int)dl, p);
        add_entry(d, w.ptr, "cmd/<name>/main.go");
        add_cmd(d, CMD_RUN, 50, cmd.ptr, p, NULL);
        mn_buf_release(&w);
        mn_buf_release(&cmd);
        app = true;
    }
    if (app &&
        (json_object_get(d->frameworks, "Cobra") || json_object_get(d->frameworks, "urfave/cli")))
        add_kv(d->types, "command-line tool", "main packages using a CLI framework");
    else if (app)
        add_kv(d->types, "application", "main packages (main.go, cmd/)");
    else
        add_kv(d->types, "library", "go.mod without a main package");
work:
    if (load_text(d, "go.work", &b)) {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        bool in_use = false;
        while (next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            if (n >= 5 && !memcmp(line, "use (", 5)) {
                in_use = true;
                continue;
            }
            if (in_use && n && *line == ')') {
                in_use = false;
                continue;
            }
            if (in_use || (n > 4 && !memcmp(line, "use ", 4))) {
                const char *s = in_use ? line : line + 4;
                size_t k = (size_t)(line + n - s);
                while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
                    k--;
                if (k >= 2 && s[0] == '.' && s[1] == '/')
                    s += 2, k -= 2;
                if (k && !(k == 1 && s[0] == '.')) {
                    char *g = mn_strndup(s, k);
                    json_array_append_new(d->workspaces,
                                          json_pack("{s:s,s:s}", "glob", g, "why", "go.work use"));
                    free(g);
                }
            }
        }
    }
    mn_buf_release(&b);
}

/* ---- Rust ---- */

static void scan_rust(dctx *d)
{
    json_t *c = load(d, "Cargo.toml", FMT_TOML, true);
    if (!c)
        return;
    json_t *pk = jget(c, "package", NULL);
    set_name(d, jstr(pk, "name"), jstr(pk, "description"), "Cargo.toml [package]");
    add_manager(d, "rust", "Cargo", "Cargo.toml", "cargo build");
    if (json_is_object(jget(c, "dependencies", NULL)))
        add_deps(d, "Cargo.toml", "runtime",
                 keys_as_deps(d, "rust", jget(c, "dependencies", NULL), "Cargo.toml [dependencies]",
                              NULL));
    if (json_is_object(jget(c, "workspace", "dependencies", NULL)))
        add_deps(d, "Cargo.toml", "workspace",
                 keys_as_deps(d, "rust", jget(c, "workspace", "dependencies", NULL),
                              "Cargo.toml [workspace.dependencies]", NULL));
    d->dev = true;
    if (json_is_object(jget(c, "dev-dependencies", NULL)))
        add_deps(d, "Cargo.toml", "development",
                 keys_as_deps(d, "rust", jget(c, "dev-dependencies", NULL),
                              "Cargo.toml [dev-dependencies]", NULL));
    d->dev = false;
    const char *ed = jstr(pk, "edition"), *rv = jstr(pk, "rust-version");
    if (ed || rv) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "Rust%s%s%s%s (Cargo.toml)", rv ? " " : "", rv ? rv : "",
                      ed ? ", edition " : "", ed ? ed : "");
        add_unique(d->runtime, b.ptr);
        mn_buf_release(&b);
    }
    if (have(d, "rust-toolchain.toml") || have(d, "rust-toolchain"))
        add_unique(d->runtime, have(d, "rust-toolchain.toml")
                                   ? "Rust toolchain pinned in rust-toolchain.toml"
                                   : "Rust toolchain pinned in rust-toolchain");
    size_t i;
    json_t *m;
    json_array_foreach(jget(c, "workspace", "members", NULL), i, m) if (json_is_string(m))
        json_array_append_new(d->workspaces, json_pack("{s:s,s:s}", "glob", json_string_value(m),
                                                       "why", "Cargo.toml [workspace] members"));
    add_cmd(d, CMD_BUILD, 50, "cargo build", "Cargo.toml", NULL);
    add_cmd(d, CMD_TEST, 50, "cargo test", "Cargo.toml", NULL);
    add_cmd(d, CMD_LINT, have(d, "clippy.toml") || have(d, ".clippy.toml") ? 60 : 45,
            "cargo clippy", have(d, "clippy.toml") ? "clippy.toml" : "Cargo.toml", NULL);
    if (have(d, "rustfmt.toml") || have(d, ".rustfmt.toml"))
        add_kv(d->style, "rustfmt", have(d, "rustfmt.toml") ? "rustfmt.toml" : ".rustfmt.toml");
    if (have(d, "clippy.toml") || have(d, ".clippy.toml"))
        add_kv(d->style, "Clippy", have(d, "clippy.toml") ? "clippy.toml" : ".clippy.toml");
    bool bin = false;
    if (have(d, "src/main.rs")) {
        add_entry(d, "src/main.rs (the binary)", "Cargo convention");
        bin = true;
    }
    json_array_foreach(jget(c, "bin", NULL), i, m)
    {
        mn_buf w = MN_BUF_INIT;
        mn_buf_printf(&w, "binary %s%s%s", jstr(m, "name") ? jstr(m, "name") : "?",
                      jstr(m, "path") ? " -> " : "", jstr(m, "path") ? jstr(m, "path") : "");
        add_entry(d, w.ptr, "Cargo.toml [[bin]]");
        mn_buf_release(&w);
        bin = true;
    }
    for (size_t k = 0; k < d->files.len; k++) {
        const char *p = d->files.items[k].path;
        if (starts(p, "src/bin/") && ends(p, ".rs") && depth_of(p) == 2) {
            add_entry(d, p, "src/bin/*.rs");
            bin = true;
        }
    }
    if (bin)
        add_cmd(d, CMD_RUN, 50, "cargo run", "Cargo.toml with a binary target", NULL);
    if (have(d, "src/lib.rs")) {
        add_entry(d, "src/lib.rs (the library)", "Cargo convention");
        add_kv(d->types, "library", "src/lib.rs");
    }
    if (bin)
        add_kv(d->types,
               json_object_get(d->frameworks, "clap") ? "command-line tool" : "application",
               json_object_get(d->frameworks, "clap") ? "a binary target using clap"
                                                      : "a binary target");
    if (!pk && jget(c, "workspace", NULL))
        add_kv(d->types, "Cargo workspace", "Cargo.toml [workspace]");
    json_decref(c);
}

/* ---- XML (pom.xml, *.csproj): plain tag scanning ---- */

/* The text of the first <tag>...</tag> in [s, end), trimmed; NULL when none. */
static char *xml_text(const char *s, const char *end, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    const char *a = memmem(s, (size_t)(end - s), open, strlen(open));
    if (!a)
        return NULL;
    a += strlen(open);
    const char *b = memmem(a, (size_t)(end - a), close, strlen(close));
    if (!b)
        return NULL;
    while (a < b && (*a == ' ' || *a == '\n' || *a == '\r' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '\t'))
        b--;
    return b > a && !memchr(a, '<', (size_t)(b - a)) ? mn_strndup(a, (size_t)(b - a)) : NULL;
}

/* Blank out every <tag>...</tag> block (so the project's own fields are the first left). */
static void xml_blank(char *s, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    for (char *a = strstr(s, open); a; a = strstr(a, open)) {
        char *b = strstr(a, close);
        if (!b)
            break;
        memset(a, ' ', (size_t)(b + strlen(close) - a));
    }
}

/* Each <tag>text</tag> inside [s, end) as an array. */
static json_t *xml_all(const char *s, const char *end, const char *tag)
{
    json_t *out = json_array();
    char open[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    for (const char *a = memmem(s, (size_t)(end - s), open, strlen(open)); a;
         a = memmem(a + 1, (size_t)(end - a - 1), open, strlen(open))) {
        char *v = xml_text(a, end, tag);
        if (v)
            add_unique(out, v);
        free(v);
    }
    return out;
}

/* An attribute value in a tag: attr="value" after `at`, before the next '>'. */
static char *xml_attr(const char *at, const char *attr)
{
    const char *gt = strchr(at, '>');
    char pat[64];
    snprintf(pat, sizeof(pat), "%s=\"", attr);
    const char *a = strstr(at, pat);
    if (!a || (gt && a > gt))
        return NULL;
    a += strlen(pat);
    const char *b = strchr(a, '"');
    return b ? mn_strndup(a, (size_t)(b - a)) : NULL;
}

/* ---- Java / Kotlin: Maven, Gradle ---- */

static void scan_jvm(dctx *d)
{
    mn_buf b = MN_BUF_INIT;
    bool mvnw = have(d, "mvnw"), gradlew = have(d, "gradlew");
    if (load_text(d, "pom.xml", &b)) {
        const char *end = b.ptr + b.len;
        char *parent = xml_text(b.ptr, end, "parent");
        char *own = mn_strdup(b.ptr);
        static const char *const blocks[] = {"parent",  "dependencies", "dependencyManagement",
                                             "build",   "profiles",     "reporting",
                                             "modules", "properties",   "distributionManagement"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(blocks); i++)
            xml_blank(own, blocks[i]);
        const char *oend = own + strlen(own);
        char *aid = xml_text(own, oend, "artifactId"), *nm = xml_text(own, oend, "name");
        char *desc = xml_text(own, oend, "description"), *pack = xml_text(own, oend, "packaging");
        set_name(d, aid, desc ? desc : nm, "pom.xml artifactId");
        const char *pa = parent ? strstr(b.ptr, "<parent>") : NULL;
        if (pa) {
            const char *pe = strstr(pa, "</parent>");
            char *paid = pe ? xml_text(pa, pe, "artifactId") : NULL;
            if (paid)
                see_dep(d, "java", paid, strlen(paid), "pom.xml <parent>");
            free(paid);
        }
        json_t *deps = json_array();
        for (const char *a = strstr(b.ptr, "<dependencies>"); a;
             a = strstr(a + 1, "<dependencies>")) {
            const char *e = strstr(a, "</dependencies>");
            if (!e)
                break;
            json_t *ids = xml_all(a, e, "artifactId");
            size_t i;
            json_t *v;
            json_array_foreach(ids, i, v)
            {
                add_unique(deps, json_string_value(v));
                see_dep(d, "java", json_string_value(v), json_string_length(v), "pom.xml");
            }
            json_decref(ids);
        }
        add_deps(d, "pom.xml", "runtime", deps);
        const char *ms = strstr(b.ptr, "<modules>"), *me = ms ? strstr(ms, "</modules>") : NULL;
        if (me) {
            json_t *mods = xml_all(ms, me, "module");
            size_t i;
            json_t *v;
            json_array_foreach(mods, i, v) json_array_append_new(
                d->workspaces,
                json_pack("{s:s,s:s}", "glob", json_string_value(v), "why", "pom.xml <modules>"));
            json_decref(mods);
        }
        static const char *const jv[] = {"maven.compiler.release", "maven.compiler.source",
                                         "java.version", "release"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(jv); i++) {
            char *v = xml_text(b.ptr, end, jv[i]);
            if (v) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_printf(&r, "Java %s (pom.xml %s)", v, jv[i]);
                add_unique(d->runtime, r.ptr);
                mn_buf_release(&r);
                free(v);
                break;
            }
        }
        const char *mvn = mvnw ? "./mvnw" : "mvn";
        mn_buf c = MN_BUF_INIT;
        add_manager(d, "java", "Maven", "pom.xml", mvnw ? "./mvnw install" : "mvn install");
        mn_buf_printf(&c, "%s package", mvn);
        add_cmd(d, CMD_BUILD, 50, c.ptr, "pom.xml", NULL);
        mn_buf_clear(&c);
        mn_buf_printf(&c, "%s test", mvn);
        add_cmd(d, CMD_TEST, 50, c.ptr, "pom.xml", NULL);
        if (json_object_get(d->frameworks, "Spring Boot")) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s spring-boot:run", mvn);
            add_cmd(d, CMD_RUN, 50, c.ptr, "pom.xml (Spring Boot)", NULL);
            add_kv(d->types, "web service", "Spring Boot (pom.xml)");
        } else if (pack && !strcmp(pack, "war")) {
            add_kv(d->types, "web application", "pom.xml packaging war");
        } else if (pack && !strcmp(pack, "pom")) {
            add_kv(d->types, "multi-module build", "pom.xml packaging pom");
        } else {
            add_kv(d->types, "library", "pom.xml packaging jar");
        }
        mn_buf_release(&c);
        free(parent);
        free(own);
        free(aid);
        free(nm);
        free(desc);
        free(pack);
    }
    static const char *const gradle[] = {"build.gradle.kts", "build.gradle"};
    for (size_t gi = 0; gi < MN_ARRAY_SIZE(gradle); gi++) {
        if (!load_text(d, gradle[gi], &b))
            continue;
        json_t *deps = json_array();
        bool application = false, library = false;
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (next_line(&p, end, &line, &n)) {
            char *l = mn_strndup(line, n), *s = l;
            while (*s == ' ' || *s == '\t')
                s++;
            static const char *const cfgs[] = {"implementation",      "api",
                                               "compileOnly",         "runtimeOnly",
                                               "testImplementation",  "testRuntimeOnly",
                                               "annotationProcessor", "kapt"};
            if (starts(s, "id ") || starts(s, "id(") || starts(s, "apply plugin:")) {
                char *q = strpbrk(s, "'\"");
                char *e = q ? strchr(q + 1, *q) : NULL;
                if (e) {
                    see_dep(d, "java", q + 1, (size_t)(e - q - 1), gradle[gi]);
                    if (!strncmp(q + 1, "application", 11) || strstr(q + 1, "springframework.boot"))
                        application = true;
                    if (!strncmp(q + 1, "java-library", 12))
                        library = true;
                }
            } else if (!strcmp(s, "application") || !strcmp(s, "`application`")) {
                application = true;
            } else if (!strcmp(s, "`java-library`") || !strcmp(s, "java-library")) {
                library = true;
            } else {
                for (size_t k = 0; k < MN_ARRAY_SIZE(cfgs); k++) {
                    size_t cl = strlen(cfgs[k]);
                    if (strncmp(s, cfgs[k], cl) || (s[cl] != ' ' && s[cl] != '('))
                        continue;
                    char *q = strpbrk(s + cl, "'\"");
                    char *e = q ? strchr(q + 1, *q) : NULL;
                    if (!e)
                        break;
                    /* group:artifact:version -> artifact */
                    char *coord = mn_strndup(q + 1, (size_t)(e - q - 1));
                    char *c1 = strchr(coord, ':');
                    if (c1) {
                        char *a = c1 + 1;
                        a[strcspn(a, ":")] = '\0';
                        add_unique(deps, a);
                        see_dep(d, "java", a, strlen(a), gradle[gi]);
                    }
                    free(coord);
                    break;
                }
            }
            free(l);
        }
        add_deps(d, gradle[gi], "runtime", deps);
        const char *g = gradlew ? "./gradlew" : "gradle";
        mn_buf c = MN_BUF_INIT;
        add_manager(d, "java", "Gradle", gradle[gi], gradlew ? "./gradlew build" : "gradle build");
        mn_buf_printf(&c, "%s build", g);
        add_cmd(d, CMD_BUILD, 50, c.ptr, gradle[gi], NULL);
        mn_buf_clear(&c);
        mn_buf_printf(&c, "%s test", g);
        add_cmd(d, CMD_TEST, 50, c.ptr, gradle[gi], NULL);
        if (json_object_get(d->frameworks, "Spring Boot")) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s bootRun", g);
            add_cmd(d, CMD_RUN, 50, c.ptr, gradle[gi], "Spring Boot");
            add_kv(d->types, "web service", "Spring Boot plugin");
        } else if (application) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s run", g);
            add_cmd(d, CMD_RUN, 50, c.ptr, gradle[gi], "application plugin");
            add_kv(d->types, "application", "Gradle application plugin");
        }
        if (json_object_get(d->frameworks, "Android"))
            add_kv(d->types, "Android app", "com.android.application plugin");
        if (library)
            add_kv(d->types, "library", "Gradle java-library plugin");
        mn_buf_release(&c);
        break;
    }
    static const char *const settings[] = {"settings.gradle.kts", "settings.gradle"};
    for (size_t si = 0; si < MN_ARRAY_SIZE(settings); si++) {
        if (!load_text(d, settings[si], &b))
            continue;
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (next_line(&p, end, &line, &n)) {
            char *l = mn_strndup(line, n), *s = l;
            while (*s == ' ' || *s == '\t')
                s++;
            if (starts(s, "rootProject.name")) {
                char *q = strpbrk(s, "'\""), *e = q ? strchr(q + 1, *q) : NULL;
                if (e) {
                    *e = '\0';
                    set_name(d, q + 1, NULL, settings[si]);
                }
            } else if (starts(s, "include")) {
                for (char *q = strpbrk(s, "'\""); q; q = strpbrk(q + 1, "'\"")) {
                    char *e = strchr(q + 1, *q);
                    if (!e)
                        break;
                    *e = '\0';
                    char *m = q + 1;
                    while (*m == ':')
                        m++;
                    for (char *c = m; *c; c++)
                        if (*c == ':')
                            *c = '/';
                    if (*m)
                        json_array_append_new(
                            d->workspaces, json_pack("{s:s,s:s}", "glob", m, "why", settings[si]));
                    q = e;
                }
            }
            free(l);
        }
        break;
    }
    mn_buf_release(&b);
}

/* ---- Ruby ---- */

static void scan_ruby(dctx *d)
{
    mn_buf b = MN_BUF_INIT;
    const char *spec = find_glob(d, "*.gemspec");
    if (spec && load_text(d, spec, &b)) {
        char *n = py_kwarg(b.ptr, "name"), *s = py_kwarg(b.ptr, "summary");
        set_name(d, n, s, spec);
        free(n);
        free(s);
        add_kv(d->types, "library (gem)", spec);
        if (strstr(b.ptr, "executables"))
            add_kv(d->types, "command-line tool", "gemspec executables");
        add_cmd(d, CMD_BUILD, 45, "gem build", spec, NULL);
    }
    if (load_text(d, "Gemfile", &b)) {
        json_t *deps = json_array();
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            if (n > 6 && !memcmp(line, "ruby ", 5)) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_puts(&r, "Ruby ");
                mn_buf_put(&r, line + 5, n - 5);
                mn_buf_puts(&r, " (Gemfile)");
                char *clean = mn_strdup(r.ptr);
                for (char *c = clean; *c; c++)
                    if (*c == '"' || *c == '\'')
                        memmove(c, c + 1, strlen(c)), c--;
                add_unique(d->runtime, clean);
                free(clean);
                mn_buf_release(&r);
            }
            if (n < 6 || memcmp(line, "gem ", 4))
                continue;
            const char *q = line + 4;
            while (*q == ' ')
                q++;
            if (*q != '"' && *q != '\'')
                continue;
            const char *e = memchr(q + 1, *q, (size_t)(line + n - q - 1));
            if (!e)
                continue;
            char *g = mn_strndup(q + 1, (size_t)(e - q - 1));
            add_unique(deps, g);
            see_dep(d, "rb", g, strlen(g), "Gemfile");
            free(g);
        }
        add_deps(d, "Gemfile", "runtime", deps);
        add_manager(d, "ruby", "Bundler", have(d, "Gemfile.lock") ? "Gemfile.lock" : "Gemfile",
                    "bundle install");
    }
    mn_buf_release(&b);
    bool rails = json_object_get(d->frameworks, "Rails") || have(d, "bin/rails") ||
                 have(d, "config/application.rb");
    bool ruby = spec || have(d, "Gemfile") || have(d, "Rakefile");
    if (!ruby)
        return;
    if (json_object_get(d->frameworks, "RSpec") || have(d, ".rspec"))
        add_cmd(d, CMD_TEST, 55, "bundle exec rspec",
                have(d, ".rspec") ? ".rspec" : "rspec in the Gemfile", NULL);
    if (rails) {
        add_cmd(d, CMD_TEST, 52, "bin/rails test", "Rails", NULL);
        add_cmd(d, CMD_RUN, 60, "bin/rails server", "Rails", NULL);
        add_kv(d->types, "web application", "Rails");
    } else if (have(d, "Rakefile")) {
        add_cmd(d, CMD_TEST, 48, "bundle exec rake test", "Rakefile", NULL);
    }
    if (have(d, "config.ru") && !rails)
        add_cmd(d, CMD_RUN, 45, "bundle exec rackup", "config.ru", NULL);
    if (have(d, ".rubocop.yml")) {
        add_kv(d->style, "RuboCop", ".rubocop.yml");
        add_cmd(d, CMD_LINT, 60, "bundle exec rubocop", ".rubocop.yml", NULL);
    }
    if (have(d, ".ruby-version")) {
        mn_buf v = MN_BUF_INIT, r = MN_BUF_INIT;
        if (load_text(d, ".ruby-version", &v)) {
            mn_buf_puts(&r, "Ruby ");
            put_oneline(&r, v.ptr, 40);
            mn_buf_puts(&r, " (.ruby-version)");
            add_unique(d->runtime, r.ptr);
        }
        mn_buf_release(&v);
        mn_buf_release(&r);
    }
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if ((starts(p, "exe/") || starts(p, "bin/")) && depth_of(p) == 1 &&
            d->files.items[i].role != MN_ROLE_TEST)
            add_entry(d, p, "executable in exe/ or bin/");
    }
}

/* ---- PHP ---- */

static void scan_php(dctx *d)
{
    json_t *c = load(d, "composer.json", FMT_JSON, true);
    if (!c)
        return;
    set_name(d, jstr(c, "name"), jstr(c, "description"), "composer.json");
    add_manager(d, "php", "Composer", have(d, "composer.lock") ? "composer.lock" : "composer.json",
                "composer install");
    json_t *req = jget(c, "require", NULL);
    if (json_is_object(req)) {
        json_t *names = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(req, k, v)
        {
            if (!strcmp(k, "php") || starts(k, "ext-"))
                continue;
            add_unique(names, k);
            see_dep(d, "php", k, strlen(k), "composer.json require");
        }
        add_deps(d, "composer.json", "runtime", names);
        if (jstr(req, "php")) {
            mn_buf r = MN_BUF_INIT;
            mn_buf_printf(&r, "PHP %s (composer.json require.php)", jstr(req, "php"));
            add_unique(d->runtime, r.ptr);
            mn_buf_release(&r);
        }
    }
    d->dev = true;
    if (json_is_object(jget(c, "require-dev", NULL)))
        add_deps(d, "composer.json", "development",
                 keys_as_deps(d, "php", jget(c, "require-dev", NULL), "composer.json require-dev",
                              NULL));
    d->dev = false;
    js_scripts(d, jget(c, "scripts", NULL), "composer", "composer.json");
    if (have(d, "phpunit.xml") || have(d, "phpunit.xml.dist") ||
        json_object_get(d->frameworks, "PHPUnit"))
        add_cmd(d, CMD_TEST, 60, "vendor/bin/phpunit",
                have(d, "phpunit.xml")        ? "phpunit.xml"
                : have(d, "phpunit.xml.dist") ? "phpunit.xml.dist"
                                              : "phpunit/phpunit in composer.json",
                NULL);
    if (have(d, "artisan")) {
        add_cmd(d, CMD_RUN, 60, "php artisan serve", "artisan (Laravel)", NULL);
        add_cmd(d, CMD_TEST, 55, "php artisan test", "artisan (Laravel)", NULL);
        add_entry(d, "artisan (Laravel console)", "artisan");
    }
    if (have(d, "public/index.php"))
        add_entry(d, "public/index.php (web front controller)", "public/index.php");
    static const char *const tools[][3] = {
        {"phpcs.xml", "PHP_CodeSniffer", "vendor/bin/phpcs"},
        {"phpcs.xml.dist", "PHP_CodeSniffer", "vendor/bin/phpcs"},
        {".php-cs-fixer.php", "PHP CS Fixer", NULL},
        {".php-cs-fixer.dist.php", "PHP CS Fixer", NULL},
        {"phpstan.neon", "PHPStan", "vendor/bin/phpstan analyse"},
        {"phpstan.neon.dist", "PHPStan", "vendor/bin/phpstan analyse"},
        {"psalm.xml", "Psalm", "vendor/bin/psalm"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(tools); i++)
        if (have(d, tools[i][0])) {
            add_kv(d->style, tools[i][1], tools[i][0]);
            if (tools[i][2])
                add_cmd(d, CMD_LINT, 55, tools[i][2], tools[i][0], NULL);
        }
    const char *type = jstr(c, "type");
    if (json_object_get(d->frameworks, "Laravel") || json_object_get(d->frameworks, "Symfony"))
        add_kv(d->types, "web application", "Laravel/Symfony in composer.json");
    else if (type && !strcmp(type, "library"))
        add_kv(d->types, "library", "composer.json type library");
    else if (type && !strcmp(type, "project"))
        add_kv(d->types, "application", "composer.json type project");
    json_t *bin = jget(c, "bin", NULL);
    size_t i;
    json_t *v;
    json_array_foreach(bin, i, v) if (json_is_string(v))
    {
        add_entry(d, json_string_value(v), "composer.json bin");
        add_kv(d->types, "command-line tool", "composer.json bin");
    }
    json_decref(c);
}

/* ---- .NET ---- */

static void scan_dotnet(dctx *d)
{
    mn_buf b = MN_BUF_INIT;
    int projects = 0, tests = 0;
    const char *sln = find_glob(d, "*.sln");
    const char *run_proj = NULL;
    for (size_t i = 0; i < d->files.len && projects < 30; i++) {
        const char *p = d->files.items[i].path;
        if (!(ends(p, ".csproj") || ends(p, ".fsproj") || ends(p, ".vbproj")) ||
            d->files.items[i].role == MN_ROLE_VENDORED || !load_text(d, p, &b))
            continue;
        projects++;
        const char *sdk = strstr(b.ptr, "<Project");
        char *sdkv = sdk ? xml_attr(sdk, "Sdk") : NULL;
        char *out = xml_text(b.ptr, b.ptr + b.len, "OutputType");
        char *tf = xml_text(b.ptr, b.ptr + b.len, "TargetFramework");
        if (!tf)
            tf = xml_text(b.ptr, b.ptr + b.len, "TargetFrameworks");
        bool is_test =
            strstr(b.ptr, "Microsoft.NET.Test.Sdk") || strstr(b.ptr, "<IsTestProject>true");
        json_t *deps = json_array();
        for (const char *a = strstr(b.ptr, "<PackageReference"); a;
             a = strstr(a + 1, "<PackageReference")) {
            char *inc = xml_attr(a, "Include");
            if (inc) {
                add_unique(deps, inc);
                see_dep(d, "dotnet", inc, strlen(inc), p);
                free(inc);
            }
        }
        add_deps(d, p, is_test ? "test" : "runtime", deps);
        if (sdkv)
            see_dep(d, "dotnet", sdkv, strlen(sdkv), p);
        if (tf) {
            mn_buf r = MN_BUF_INIT;
            mn_buf_printf(&r, ".NET %s (%s)", tf, p);
            if (json_array_size(d->runtime) < 4)
                add_unique(d->runtime, r.ptr);
            mn_buf_release(&r);
        }
        if (is_test) {
            tests++;
        } else if ((out && !strcmp(out, "Exe")) || (sdkv && strstr(sdkv, ".Web"))) {
            if (!run_proj) {
                run_proj = p;
                mn_buf c = MN_BUF_INIT;
                mn_buf_printf(&c, "dotnet run --project %s", p);
                add_cmd(d, CMD_RUN, 50, c.ptr, p, NULL);
                mn_buf_release(&c);
            }
            add_entry(d, p,
                      sdkv && strstr(sdkv, ".Web") ? "Sdk Microsoft.NET.Sdk.Web"
                                                   : "OutputType Exe");
            add_kv(d->types, sdkv && strstr(sdkv, ".Web") ? "web service" : "application", p);
        } else {
            add_kv(d->types, "library", p);
        }
        if (!d->name) {
            char *nm = mn_strndup(base_name(p), strlen(base_name(p)) - 7);
            set_name(d, nm, NULL, p);
            free(nm);
        }
        free(sdkv);
        free(out);
        free(tf);
    }
    mn_buf_release(&b);
    if (!projects && !sln)
        return;
    add_manager(d, "csharp", "NuGet (dotnet)", sln ? sln : "*.csproj", "dotnet restore");
    add_cmd(d, CMD_BUILD, 50, "dotnet build", sln ? sln : "*.csproj", NULL);
    if (tests)
        add_cmd(d, CMD_TEST, 50, "dotnet test", "a test project (Microsoft.NET.Test.Sdk)", NULL);
    add_cmd(d, CMD_LINT, 35, "dotnet format --verify-no-changes", "dotnet SDK", NULL);
}

/* ---- C and C++: CMake, Meson, autotools, Bazel ---- */

/* The first word inside each "cmd(" in CMake text, e.g. add_executable(name ...). */
static json_t *cmake_calls(const char *text, const char *cmd)
{
    json_t *out = json_array();
    size_t cl = strlen(cmd);
    for (const char *p = text; (p = strstr(p, cmd)) != NULL; p += cl) {
        if (p > text && (t_bare(p[-1])))
            continue;
        const char *q = p + cl;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != '(')
            continue;
        q++;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        const char *e = q;
        while (*e && !strchr(" \t\r\n)", *e))
            e++;
        if (e > q && e - q < 100) {
            char *w = mn_strndup(q, (size_t)(e - q));
            if (!strchr(w, '$') && !strchr(w, '"'))
                add_unique(out, w);
            free(w);
        }
    }
    return out;
}

static void scan_native(dctx *d)
{
    mn_buf b = MN_BUF_INIT;
    if (load_text(d, "CMakeLists.txt", &b)) {
        json_t *proj = cmake_calls(b.ptr, "project");
        json_t *exes = cmake_calls(b.ptr, "add_executable");
        json_t *libs = cmake_calls(b.ptr, "add_library");
        json_t *pkgs = cmake_calls(b.ptr, "find_package");
        json_t *minv = cmake_calls(b.ptr, "cmake_minimum_required");
        if (json_array_size(proj))
            set_name(d, json_string_value(json_array_get(proj, 0)), NULL,
                     "CMakeLists.txt project()");
        bool tests = strstr(b.ptr, "enable_testing") || strstr(b.ptr, "add_test") ||
                     strstr(b.ptr, "include(CTest)") || strstr(b.ptr, "gtest_discover_tests");
        add_kv(d->builders, "CMake", "CMakeLists.txt");
        add_cmd(d, CMD_BUILD, 50, "cmake -S . -B build && cmake --build build", "CMakeLists.txt",
                NULL);
        if (tests)
            add_cmd(d, CMD_TEST, 50, "ctest --test-dir build",
                    "CMakeLists.txt enable_testing/add_test", NULL);
        size_t i;
        json_t *v;
        json_array_foreach(exes, i, v)
        {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "executable %s (CMakeLists.txt add_executable)",
                          json_string_value(v));
            if (json_array_size(d->entries) < 12)
                add_entry(d, w.ptr, "CMakeLists.txt");
            mn_buf_release(&w);
        }
        if (json_array_size(exes))
            add_kv(d->types, "application", "CMakeLists.txt add_executable");
        if (json_array_size(libs))
            add_kv(d->types, "library", "CMakeLists.txt add_library");
        json_t *names = json_array();
        json_array_foreach(pkgs, i, v) if (strcmp(json_string_value(v), "PkgConfig"))
            add_unique(names, json_string_value(v));
        /* pkg_check_modules(PREFIX [REQUIRED] [IMPORTED_TARGET] module...) */
        static const char kwds[] = "REQUIRED QUIET IMPORTED_TARGET GLOBAL NO_CMAKE_PATH "
                                   "NO_CMAKE_ENVIRONMENT_PATH";
        for (const char *p = strstr(b.ptr, "pkg_check_modules"); p;
             p = strstr(p + 1, "pkg_check_modules")) {
            const char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
            if (!close || open - p > 20)
                break;
            int word = 0;
            for (const char *q = open + 1; q < close;) {
                while (q < close && strchr(" \t\r\n", *q))
                    q++;
                const char *e = q;
                while (e < close && !strchr(" \t\r\n", *e))
                    e++;
                if (e > q && word++ > 0 && !in_words(q, (size_t)(e - q), kwds) && *q != '$') {
                    char *m = mn_strndup(q, strcspn(q, "<>= \t\r\n)"));
                    if (*m)
                        add_unique(names, m);
                    free(m);
                }
                q = e;
            }
        }
        add_deps(d, "CMakeLists.txt", "find_package", names);
        json_decref(proj);
        json_decref(exes);
        json_decref(libs);
        json_decref(pkgs);
        json_decref(minv);
    }
    if (load_text(d, "meson.build", &b)) {
        json_t *proj = cmake_calls(b.ptr, "project");
        if (json_array_size(proj)) {
            char *n = mn_strdup(json_string_value(json_array_get(proj, 0)));
            for (char *c = n; *c; c++)
                if (*c == '\'' || *c == ',')
                    *c = '\0';
            set_name(d, n[0] ? n : n + 1, NULL, "meson.build project()");
            free(n);
        }
        json_decref(proj);
        add_kv(d->builders, "Meson", "meson.build");
        add_cmd(d, CMD_BUILD, 50, "meson setup build && meson compile -C build", "meson.build",
                NULL);
        if (strstr(b.ptr, "test("))
            add_cmd(d, CMD_TEST, 50, "meson test -C build", "meson.build test()", NULL);
    }
    mn_buf_release(&b);
    if (have(d, "configure.ac") || have(d, "configure.in") || have(d, "configure")) {
        const char *w = have(d, "configure.ac")   ? "configure.ac"
                        : have(d, "configure.in") ? "configure.in"
                                                  : "configure";
        add_cmd(d, CMD_BUILD, 45,
                have(d, "configure") ? "./configure && make"
                                     : "autoreconf -i && ./configure && make",
                w, NULL);
        add_cmd(d, CMD_TEST, 40, "make check", w, "autotools convention");
        add_kv(d->builders, "Autotools", w);
    }
    if (have(d, "MODULE.bazel") || have(d, "WORKSPACE") || have(d, "WORKSPACE.bazel")) {
        const char *w = have(d, "MODULE.bazel") ? "MODULE.bazel"
                        : have(d, "WORKSPACE")  ? "WORKSPACE"
                                                : "WORKSPACE.bazel";
        add_kv(d->builders, "Bazel", w);
        add_cmd(d, CMD_BUILD, 55, "bazel build //...", w, NULL);
        add_cmd(d, CMD_TEST, 55, "bazel test //...", w, NULL);
    }
    if (have(d, "vcpkg.json"))
        add_manager(d, "cpp", "vcpkg", "vcpkg.json", "vcpkg install");
    if (have(d, "conanfile.txt") || have(d, "conanfile.py"))
        add_manager(d, "cpp", "Conan", have(d, "conanfile.txt") ? "conanfile.txt" : "conanfile.py",
                    "conan install .");
    if (have(d, ".clang-format") || have(d, "_clang-format"))
        add_kv(d->style, "clang-format",
               have(d, ".clang-format") ? ".clang-format" : "_clang-format");
    if (have(d, ".clang-tidy"))
        add_kv(d->style, "clang-tidy", ".clang-tidy");
}

/* ---- containers, process files ---- */

static void scan_misc(dctx *d)
{
    static const char *const compose[] = {"compose.yaml", "compose.yml", "docker-compose.yml",
                                          "docker-compose.yaml"};
    if (have(d, "Dockerfile")) {
        add_cmd(d, CMD_BUILD, 20, "docker build .", "Dockerfile", NULL);
        add_entry(d, "Dockerfile (container image)", "Dockerfile");
    }
    for (size_t i = 0; i < MN_ARRAY_SIZE(compose); i++)
        if (have(d, compose[i])) {
            add_cmd(d, CMD_RUN, 30, "docker compose up", compose[i], NULL);
            break;
        }
    mn_buf b = MN_BUF_INIT;
    if (load_text(d, "Procfile", &b)) {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (next_line(&p, end, &line, &n))
            if (n > 5 && !memcmp(line, "web:", 4)) {
                mn_buf c = MN_BUF_INIT;
                const char *s = line + 4;
                while (*s == ' ')
                    s++;
                mn_buf_put(&c, s, (size_t)(line + n - s));
                add_cmd(d, CMD_RUN, 60, c.ptr, "Procfile web", NULL);
                add_kv(d->types, "web service", "Procfile web process");
                mn_buf_release(&c);
            }
    }
    mn_buf_release(&b);
}

/* ---- conventions: pre-commit, EditorConfig ---- */

static void scan_conventions(dctx *d)
{
    static const char *const hooks[][2] = {
        {"ruff", "Ruff (linter)"},
        {"ruff-check", "Ruff (linter)"},
        {"ruff-format", "Ruff (formatter)"},
        {"black", "Black"},
        {"isort", "isort"},
        {"flake8", "Flake8"},
        {"mypy", "mypy (type checker)"},
        {"pyupgrade", "pyupgrade"},
        {"codespell", "codespell"},
        {"prettier", "Prettier"},
        {"eslint", "ESLint"},
        {"clang-format", "clang-format"},
        {"rustfmt", "rustfmt"},
        {"fmt", "rustfmt"},
        {"golangci-lint", "golangci-lint"},
        {"shellcheck", "ShellCheck"},
        {"hadolint", "hadolint"},
        {"markdownlint", "markdownlint"},
        {"yamllint", "yamllint"},
        {"typos", "typos"},
        {"pylint", "Pylint"},
        {"rubocop", "RuboCop"},
        {"gofmt", "gofmt"},
    };
    if (have(d, ".pre-commit-config.yaml") || have(d, ".pre-commit-config.yml")) {
        const char *f = have(d, ".pre-commit-config.yaml") ? ".pre-commit-config.yaml"
                                                           : ".pre-commit-config.yml";
        json_t *y = load(d, f, FMT_YAML, false);
        size_t i, j;
        json_t *repo, *hook;
        add_kv(d->style, "pre-commit", f);
        json_array_foreach(jget(y, "repos", NULL), i, repo)
        {
            json_array_foreach(jget(repo, "hooks", NULL), j, hook)
            {
                const char *id = jstr(hook, "id");
                for (size_t k = 0; id && k < MN_ARRAY_SIZE(hooks); k++)
                    if (!strcmp(id, hooks[k][0])) {
                        mn_buf w = MN_BUF_INIT;
                        mn_buf_printf(&w, "%s hook %s", f, id);
                        add_kv(d->style, hooks[k][1], w.ptr);
                        mn_buf_release(&w);
                        break;
                    }
            }
        }
        json_decref(y);
        add_cmd(d, CMD_LINT, 65, "pre-commit run --all-files", f, NULL);
    }
    if (have(d, ".editorconfig")) {
        json_t *ec = load(d, ".editorconfig", FMT_INI, false);
        json_t *all = jget(ec, "*", NULL);
        mn_buf w = MN_BUF_INIT;
        mn_buf_puts(&w, ".editorconfig");
        if (jstr(all, "indent_style")) {
            mn_buf_printf(&w, " [*]: indent %s", jstr(all, "indent_style"));
            if (jstr(all, "indent_size"))
                mn_buf_printf(&w, " %s", jstr(all, "indent_size"));
        }
        add_kv(d->style, "EditorConfig", w.ptr);
        mn_buf_release(&w);
        json_decref(ec);
    }
    if (have_under(d, ".husky"))
        add_kv(d->style, "husky (git hooks)", ".husky/");
    if (have(d, "commitlint.config.js") || have(d, ".commitlintrc.json") ||
        have(d, ".commitlintrc.yml"))
        add_kv(d->style, "commitlint", "commitlint config");
    if (have(d, ".markdownlint.json") || have(d, ".markdownlint.yaml") ||
        have(d, ".markdownlint.yml"))
        add_kv(d->style, "markdownlint", ".markdownlint config");
    if (have(d, ".shellcheckrc"))
        add_kv(d->style, "ShellCheck", ".shellcheckrc");
}

/* ---- CI ---- */

static void scan_ci(dctx *d)
{
    json_t *gha = json_array();
    size_t workflows = 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!starts(p, ".github/workflows/") || depth_of(p) != 2 ||
            !(ends(p, ".yml") || ends(p, ".yaml")))
            continue;
        workflows++;
        mn_buf t = MN_BUF_INIT, stem = MN_BUF_INIT;
        const char *b = base_name(p);
        mn_buf_put(&stem, b, (size_t)(strrchr(b, '.') - b));
        json_t *y = workflows <= MAX_WORKFLOWS ? load(d, p, FMT_YAML, false) : NULL;
        mn_buf_printf(&t, "%s", p);
        if (jstr(y, "name"))
            mn_buf_printf(&t, " \"%s\"", jstr(y, "name"));
        /* the commands its steps run (the first few) */
        const char *jk;
        json_t *job;
        int runs = 0;
        json_object_foreach(jget(y, "jobs", NULL), jk, job)
        {
            size_t s;
            json_t *step;
            json_array_foreach(jget(job, "steps", NULL), s, step)
            {
                const char *run = jstr(step, "run");
                if (!run || runs >= 6)
                    continue;
                mn_buf_puts(&t, runs ? "; " : ": runs ");
                put_oneline(&t, run, 100);
                runs++;
            }
        }
        json_array_append_new(gha, json_pack("{s:s,s:s}", "name", stem.ptr, "text", t.ptr));
        json_decref(y);
        mn_buf_release(&t);
        mn_buf_release(&stem);
    }
    if (workflows) {
        mn_buf t = MN_BUF_INIT;
        size_t i;
        json_t *w;
        mn_buf_printf(&t, "GitHub Actions (%zu workflow%s: ", workflows, workflows == 1 ? "" : "s");
        json_array_foreach(gha, i, w)
        {
            if (i == 8) {
                mn_buf_puts(&t, ", ...");
                break;
            }
            mn_buf_printf(&t, "%s%s", i ? ", " : "", jstr(w, "name"));
        }
        mn_buf_puts(&t, ")");
        json_t *detail = json_array();
        json_array_foreach(gha, i, w) json_array_append(detail, json_object_get(w, "text"));
        json_array_append_new(d->ci, json_pack("{s:s,s:o}", "system", t.ptr, "details", detail));
        mn_buf_release(&t);
    }
    json_decref(gha);
    static const char *const others[][2] = {
        {".gitlab-ci.yml", "GitLab CI"},
        {".circleci/config.yml", "CircleCI"},
        {"Jenkinsfile", "Jenkins"},
        {".travis.yml", "Travis CI"},
        {"azure-pipelines.yml", "Azure Pipelines"},
        {"bitbucket-pipelines.yml", "Bitbucket Pipelines"},
        {"appveyor.yml", "AppVeyor"},
        {".appveyor.yml", "AppVeyor"},
        {".drone.yml", "Drone"},
        {".woodpecker.yml", "Woodpecker"},
        {"cloudbuild.yaml", "Google Cloud Build"},
        {".cirrus.yml", "Cirrus CI"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(others); i++)
        if (have(d, others[i][0])) {
            mn_buf t = MN_BUF_INIT;
            mn_buf_printf(&t, "%s (%s)", others[i][1], others[i][0]);
            json_array_append_new(d->ci, json_pack("{s:s,s:[]}", "system", t.ptr, "details"));
            mn_buf_release(&t);
        }
    if (have_under(d, ".buildkite"))
        json_array_append_new(
            d->ci, json_pack("{s:s,s:[]}", "system", "Buildkite (.buildkite/)", "details"));
    if (have_under(d, ".ci")) {
        json_t *files = json_array();
        for (size_t i = 0; i < d->files.len; i++)
            if (starts(d->files.items[i].path, ".ci/") && json_array_size(files) < 10)
                json_array_append_new(files, json_string(d->files.items[i].path));
        json_array_append_new(
            d->ci, json_pack("{s:s,s:o}", "system", "CI scripts in .ci/", "details", files));
    }
}

/* ---- documentation ---- */

static void scan_docs(dctx *d)
{
    const char *sphinx = NULL;
    static const char *const confs[] = {"docs/conf.py",        "doc/conf.py",
                                        "docs/source/conf.py", "doc/source/conf.py",
                                        "doc/en/conf.py",      "documentation/conf.py"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(confs) && !sphinx; i++)
        if (have(d, confs[i]))
            sphinx = confs[i];
    if (sphinx) {
        mn_buf t = MN_BUF_INIT;
        mn_buf_printf(&t, "Sphinx (%s)", sphinx);
        add_unique(d->docs, t.ptr);
        mn_buf_release(&t);
    }
    static const char *const tools[][2] = {
        {"mkdocs.yml", "MkDocs (mkdocs.yml)"},
        {"mkdocs.yaml", "MkDocs (mkdocs.yaml)"},
        {"docusaurus.config.js", "Docusaurus (docusaurus.config.js)"},
        {"docusaurus.config.ts", "Docusaurus (docusaurus.config.ts)"},
        {"book.toml", "mdBook (book.toml)"},
        {"Doxyfile", "Doxygen (Doxyfile)"},
        {"docs/Doxyfile", "Doxygen (docs/Doxyfile)"},
        {"typedoc.json", "TypeDoc (typedoc.json)"},
        {"antora.yml", "Antora (antora.yml)"},
        {".readthedocs.yaml", "published on Read the Docs (.readthedocs.yaml)"},
        {".readthedocs.yml", "published on Read the Docs (.readthedocs.yml)"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(tools); i++)
        if (have(d, tools[i][0]))
            add_unique(d->docs, tools[i][1]);
    static const char *const site_dirs[][2] = {{"docs/.vitepress", "VitePress (docs/.vitepress/)"},
                                               {"docs/.vuepress", "VuePress (docs/.vuepress/)"},
                                               {"website/docs", "a website in website/"}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(site_dirs); i++)
        if (have_under(d, site_dirs[i][0]))
            add_unique(d->docs, site_dirs[i][1]);
    static const char *const dirs[] = {"docs", "doc", "documentation"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        size_t n = 0, len = strlen(dirs[i]);
        for (size_t k = 0; k < d->files.len; k++)
            if (!strncmp(d->files.items[k].path, dirs[i], len) &&
                d->files.items[k].path[len] == '/' && d->files.items[k].role == MN_ROLE_DOC)
                n++;
        if (n) {
            mn_buf t = MN_BUF_INIT;
            mn_buf_printf(&t, "%zu documentation file%s in %s/", n, n == 1 ? "" : "s", dirs[i]);
            add_unique(d->docs, t.ptr);
            mn_buf_release(&t);
            break;
        }
    }
}

/* ---- the file table ---- */

static int on_file(void *payload, const mn_file_rec *f)
{
    dctx *d = payload;
    dfile x;
    x.path = mn_strdup(f->path);
    x.language = intern_lang(d, f->language);
    if (mn_role_parse(&x.role, f->role) != 0) {
        mn_error_clear();
        x.role = MN_ROLE_SOURCE;
    }
    x.lines = f->lines;
    x.rank = f->rank;
    x.domain = -1;
    mn_vec_push(&d->files, x);
    mn_map_set(&d->by_path, x.path, (void *)(uintptr_t)d->files.len);
    return 0;
}

/* ---- languages ---- */

/* Data and prose formats: files in them are not code, whatever their role. */
static const char not_code[] =
    "markdown rst asciidoc text json yaml toml xml svg ini properties csv diff";

static bool is_code(const char *lang)
{
    if (!lang)
        return false;
    const char *w = not_code;
    size_t n = strlen(lang);
    while (*w) {
        size_t m = strcspn(w, " ");
        if (m == n && !memcmp(w, lang, n))
            return false;
        w += m + (w[m] == ' ');
    }
    return true;
}

static bool counts_as_code(const dfile *f)
{
    return (f->role == MN_ROLE_SOURCE || f->role == MN_ROLE_TEST) && is_code(f->language);
}

static const char *lang_display(const char *l)
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

/* [[display name, lines, files]] largest first, over the files accepted by `in`. */
static json_t *language_table(const dctx *d, const char *under, bool (*in)(const dfile *))
{
    json_t *acc = json_object();
    size_t ul = under ? strlen(under) : 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        if (!in(f) || !f->language ||
            (under && (strncmp(f->path, under, ul) || f->path[ul] != '/')))
            continue;
        const char *name = lang_display(f->language);
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

/* Where an ecosystem's language stands in the share table (lower is bigger). */
static size_t lang_rank(const dctx *d, const char *eco_lang)
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

/* ---- monorepo packages ---- */

static const char *const manifest_names[] = {"package.json", "pyproject.toml",   "setup.py",
                                             "Cargo.toml",   "go.mod",           "pom.xml",
                                             "build.gradle", "build.gradle.kts", "composer.json",
                                             "mix.exs",      "pubspec.yaml",     "Package.swift"};

/* Directories that hold examples, tests, fixtures or docs, not packages of the project. */
static const char not_package_dirs[] =
    "examples example samples sample demo demos test tests testing testdata fixtures fixture "
    "__fixtures__ __tests__ docs doc documentation bench benches benchmarks benchmark e2e "
    "templates template node_modules vendor third_party playground playgrounds sandbox";

static bool dir_excluded(const char *dir)
{
    const char *p = dir;
    while (*p) {
        size_t n = strcspn(p, "/");
        const char *w = not_package_dirs;
        while (*w) {
            size_t m = strcspn(w, " ");
            if (m == n && !memcmp(w, p, n))
                return true;
            w += m + (w[m] == ' ');
        }
        p += n + (p[n] == '/');
    }
    return false;
}

static bool workspace_match(const dctx *d, const char *dir, bool *declared)
{
    size_t i;
    json_t *w;
    bool yes = false;
    *declared = json_array_size(d->workspaces) > 0;
    json_array_foreach(d->workspaces, i, w)
    {
        const char *g = jstr(w, "glob");
        bool neg = *g == '!';
        if (neg)
            g++;
        while (g[0] == '.' && g[1] == '/')
            g += 2;
        char *pat = mn_strdup(g);
        size_t n = strlen(pat);
        while (n && pat[n - 1] == '/')
            pat[--n] = '\0';
        bool m = fnmatch(pat, dir, strstr(pat, "**") ? 0 : FNM_PATHNAME) == 0;
        free(pat);
        if (m)
            yes = !neg;
    }
    return yes;
}

static void find_packages(dctx *d)
{
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        const char *b = base_name(f->path);
        if (b == f->path || f->role == MN_ROLE_VENDORED || f->role == MN_ROLE_GENERATED)
            continue;
        bool manifest = ends(b, ".csproj") || ends(b, ".fsproj") || ends(b, ".gemspec");
        for (size_t k = 0; k < MN_ARRAY_SIZE(manifest_names) && !manifest; k++)
            manifest = !strcmp(b, manifest_names[k]);
        if (!manifest)
            continue;
        char *dir = mn_strndup(f->path, (size_t)(b - f->path - 1));
        bool declared;
        bool in_ws = workspace_match(d, dir, &declared);
        if ((declared && !in_ws) || (!declared && dir_excluded(dir))) {
            free(dir);
            continue;
        }
        size_t k;
        json_t *p;
        bool dup = false;
        json_array_foreach(d->packages, k, p) if (!strcmp(jstr(p, "dir"), dir)) dup = true;
        if (!dup)
            json_array_append_new(d->packages, json_pack("{s:s,s:s,s:b}", "dir", dir, "manifest",
                                                         f->path, "declared", in_ws));
        free(dir);
    }
    /* keep the outermost package of nested ones */
    for (size_t i = 0; i < json_array_size(d->packages);) {
        const char *a = jstr(json_array_get(d->packages, i), "dir");
        bool nested = false;
        for (size_t j = 0; j < json_array_size(d->packages) && !nested; j++) {
            const char *b = jstr(json_array_get(d->packages, j), "dir");
            size_t n = strlen(b);
            nested = i != j && !strncmp(a, b, n) && a[n] == '/';
        }
        if (nested)
            json_array_remove(d->packages, i);
        else
            i++;
    }
    bool declared = json_array_size(d->workspaces) > 0;
    if (!(declared && json_array_size(d->packages) >= 1) && json_array_size(d->packages) < 2)
        json_array_clear(d->packages);
}

/* Read a package's own manifest for its name, description and scripts. */
static void package_details(dctx *d, json_t *pkg)
{
    const char *m = jstr(pkg, "manifest"), *b = base_name(m);
    if (d->nested_reads >= MAX_NESTED_READS)
        return;
    d->nested_reads++;
    json_t *v = NULL;
    const char *name = NULL, *desc = NULL;
    if (!strcmp(b, "package.json") || !strcmp(b, "composer.json")) {
        v = load(d, m, FMT_JSON, false);
        name = jstr(v, "name"), desc = jstr(v, "description");
        json_t *scripts = jget(v, "scripts", NULL);
        if (json_object_size(scripts)) {
            json_t *names = json_array();
            const char *k;
            json_t *x;
            json_object_foreach(scripts, k, x) if (json_array_size(names) < 12)
                json_array_append_new(names, json_string(k));
            json_object_set_new(pkg, "scripts", names);
        }
        json_t *deps = jget(v, !strcmp(b, "package.json") ? "dependencies" : "require", NULL);
        json_object_set_new(pkg, "ndeps", json_integer((json_int_t)json_object_size(deps)));
        const char *k;
        json_t *x;
        mn_buf where = MN_BUF_INIT;
        mn_buf_printf(&where, "%s dependencies", m);
        /* the frameworks of the biggest packages are the monorepo's; not of every fixture */
        if (!dir_excluded(jstr(pkg, "dir")) && d->packages_seen++ < 8)
            json_object_foreach(deps, k, x)
                see_dep(d, !strcmp(b, "package.json") ? "js" : "php", k, strlen(k), where.ptr);
        mn_buf_release(&where);
    } else if (!strcmp(b, "pyproject.toml") || !strcmp(b, "Cargo.toml")) {
        v = load(d, m, FMT_TOML, false);
        json_t *p = jget(v, !strcmp(b, "Cargo.toml") ? "package" : "project", NULL);
        name = jstr(p, "name"), desc = jstr(p, "description");
        if (!name)
            name = jstr(jget(v, "tool", "poetry", NULL), "name");
        json_t *deps = jget(!strcmp(b, "Cargo.toml") ? v : p, "dependencies", NULL);
        json_object_set_new(
            pkg, "ndeps",
            json_integer((json_int_t)(json_is_array(deps) ? json_array_size(deps)
                                                          : json_object_size(deps))));
    } else if (!strcmp(b, "go.mod")) {
        mn_buf t = MN_BUF_INIT;
        if (load_text(d, m, &t) && starts(t.ptr, "module ")) {
            char *mod = mn_strndup(t.ptr + 7, strcspn(t.ptr + 7, " \t\r\n"));
            json_object_set_new(pkg, "name", json_string(mod));
            free(mod);
        }
        mn_buf_release(&t);
    } else if (!strcmp(b, "pom.xml")) {
        mn_buf t = MN_BUF_INIT;
        if (load_text(d, m, &t)) {
            xml_blank(t.ptr, "parent");
            xml_blank(t.ptr, "dependencies");
            xml_blank(t.ptr, "build");
            char *a = xml_text(t.ptr, t.ptr + strlen(t.ptr), "artifactId");
            if (a)
                json_object_set_new(pkg, "name", json_string(a));
            free(a);
        }
        mn_buf_release(&t);
    } else if (ends(b, ".csproj") || ends(b, ".fsproj")) {
        char *n = mn_strndup(b, strlen(b) - 7);
        json_object_set_new(pkg, "name", json_string(n));
        free(n);
    }
    if (name)
        json_object_set_new(pkg, "name", json_string(name));
    if (desc) {
        mn_buf t = MN_BUF_INIT;
        put_oneline(&t, desc, 160);
        json_object_set_new(pkg, "description", json_string(t.ptr));
        mn_buf_release(&t);
    }
    json_decref(v);
}

/* ---- domains ---- */

static const char test_dirs[] = "test tests testing spec specs __tests__ e2e integration "
                                "testdata fixtures";

static const char containers[] = "src lib source sources packages apps libs crates cmd services "
                                 "modules plugins components internal pkg projects extensions "
                                 "addons";

/* The length of the common directory prefix of a (a directory) and dir(b). */
static size_t common_dir(const char *a, size_t alen, const char *b)
{
    const char *slash = strrchr(b, '/');
    size_t blen = slash ? (size_t)(slash - b) : 0;
    size_t n = alen < blen ? alen : blen, i = 0, last = 0;
    while (i < n && a[i] == b[i]) {
        i++;
        if (i < n && a[i] == '/')
            last = i;
    }
    if (i == n && (alen == n || a[n] == '/') && (blen == n || b[n] == '/'))
        return n;
    return last;
}

typedef struct {
    char *key;
    size_t prefix_len; /* of key's file dirs in common */
    char *prefix;
    int64_t files, lines;
} dgroup;

static int by_lines_desc(const void *a, const void *b)
{
    const ddomain *x = a, *y = b;
    if (x->lines != y->lines)
        return x->lines < y->lines ? 1 : -1;
    return strcmp(x->path, y->path);
}

/* The domain key of a source file, or NULL (caller frees). */
static char *domain_key(const dfile *f, const mn_map *pkg_dirs, const mn_map *test_trees)
{
    /* the package it is in: its directories, one at a time (O(depth), not O(packages)) */
    if (pkg_dirs->len) {
        char *dir = mn_strdup(f->path);
        for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
            *slash = '\0';
            if (mn_map_has(pkg_dirs, dir))
                return dir;
        }
        free(dir);
    }
    const char *s1 = strchr(f->path, '/');
    if (!s1)
        return mn_strdup(".");
    char *top = mn_strndup(f->path, (size_t)(s1 - f->path));
    bool test_tree = mn_map_has(test_trees, top);
    free(top);
    if (test_tree)
        return NULL;
    const char *s2 = strchr(s1 + 1, '/');
    if (in_words(f->path, (size_t)(s1 - f->path), containers) && s2)
        return mn_strndup(f->path, (size_t)(s2 - f->path));
    return mn_strndup(f->path, (size_t)(s1 - f->path));
}

static bool is_package_dir(const dctx *d, const char *dir)
{
    size_t i;
    json_t *p;
    json_array_foreach(d->packages, i, p) if (!strcmp(jstr(p, "dir"), dir)) return true;
    return false;
}

/* Group files into domains by key; narrow each to the common directory of its files. */
static void group_domains(dctx *d, char **keys)
{
    mn_map idx = MN_MAP_INIT;
    MN_VEC(dgroup) g = MN_VEC_INIT;
    size_t *group_of = mn_calloc(d->files.len ? d->files.len : 1, sizeof(size_t));
    for (size_t i = 0; i < d->files.len; i++) {
        if (!keys[i])
            continue;
        uintptr_t k = (uintptr_t)mn_map_get(&idx, keys[i]);
        const dfile *f = &d->files.items[i];
        if (!k) {
            dgroup x = {mn_strdup(keys[i]), 0, NULL, 0, 0};
            const char *slash = strrchr(f->path, '/');
            x.prefix = mn_strndup(f->path, slash ? (size_t)(slash - f->path) : 0);
            x.prefix_len = strlen(x.prefix);
            mn_vec_push(&g, x);
            k = g.len;
            mn_map_set(&idx, keys[i], (void *)k);
        }
        group_of[i] = k;
        dgroup *x = &g.items[k - 1];
        x->prefix_len = common_dir(x->prefix, x->prefix_len, f->path);
        x->files++;
        x->lines += f->lines;
    }
    for (size_t k = 0; k < g.len; k++) {
        ddomain dm = {0};
        dgroup *x = &g.items[k];
        bool keep_key =
            !strcmp(x->key, ".") || is_package_dir(d, x->key) || x->prefix_len < strlen(x->key);
        dm.path = keep_key ? mn_strdup(x->key) : mn_strndup(x->prefix, x->prefix_len);
        dm.files = x->files;
        dm.lines = x->lines;
        dm.is_package = is_package_dir(d, x->key);
        mn_vec_push(&d->domains, dm);
        free(x->key);
        free(x->prefix);
    }
    size_t first = d->domains.len - g.len;
    for (size_t i = 0; i < d->files.len; i++)
        if (group_of[i])
            d->files.items[i].domain = (int)(first + group_of[i] - 1);
    free(group_of);
    mn_vec_release(&g);
    mn_map_release(&idx);
}

static void find_domains(dctx *d)
{
    /* top directories with more test than source lines are test trees */
    mn_map src = MN_MAP_INIT, tst = MN_MAP_INIT, test_trees = MN_MAP_INIT;
    int64_t total = 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        const char *s = strchr(f->path, '/');
        if (!s || !counts_as_code(f))
            continue;
        char *top = mn_strndup(f->path, (size_t)(s - f->path));
        mn_map *m = f->role == MN_ROLE_TEST ? &tst : &src;
        mn_map_set(m, top, (void *)((uintptr_t)mn_map_get(m, top) + (uintptr_t)f->lines + 1));
        free(top);
    }
    size_t pos = 0;
    const char *k;
    void *v;
    /* by name, or by weight: Go and Rust keep tests beside the code, so a package with
     * thorough tests is not a test tree; three times more test than source lines is */
    while (mn_map_next(&tst, &pos, &k, &v))
        if (in_words(k, strlen(k), test_dirs) || (uintptr_t)v > 3 * (uintptr_t)mn_map_get(&src, k))
            mn_map_set(&test_trees, k, NULL);
    mn_map pkg_dirs = MN_MAP_INIT;
    for (size_t i = 0; i < json_array_size(d->packages); i++)
        mn_map_set(&pkg_dirs, jstr(json_array_get(d->packages, i), "dir"), NULL);
    char **keys = mn_calloc(d->files.len ? d->files.len : 1, sizeof(char *));
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        if (f->role == MN_ROLE_SOURCE && is_code(f->language)) {
            keys[i] = domain_key(f, &pkg_dirs, &test_trees);
            total += f->lines;
        }
    }
    group_domains(d, keys);
    /* one domain with no files of its own, spread over sub-directories: split it */
    for (size_t k2 = 0; k2 < d->domains.len; k2++) {
        ddomain *dm = &d->domains.items[k2];
        if (dm->is_package || dm->lines * 10 < total * 8 || !strcmp(dm->path, "."))
            continue;
        size_t n = strlen(dm->path), subs = 0, direct = 0;
        mn_map seen = MN_MAP_INIT;
        for (size_t i = 0; i < d->files.len; i++) {
            const dfile *f = &d->files.items[i];
            if (f->domain != (int)k2)
                continue;
            const char *rest = f->path + n + 1, *s = strchr(rest, '/');
            if (!s) {
                direct++;
                continue;
            }
            char *sub = mn_strndup(f->path, (size_t)(s - f->path));
            if (!mn_map_has(&seen, sub))
                subs++, mn_map_set(&seen, sub, NULL);
            free(keys[i]);
            keys[i] = sub;
        }
        mn_map_release(&seen);
        if (direct || subs < 2)
            break;
        for (size_t i = 0; i < d->domains.len; i++)
            free(d->domains.items[i].path);
        d->domains.len = 0;
        for (size_t i = 0; i < d->files.len; i++)
            d->files.items[i].domain = -1;
        group_domains(d, keys);
        break;
    }
    for (size_t i = 0; i < d->files.len; i++)
        free(keys[i]);
    free(keys);
    /* biggest first, at most MAX_DOMAINS (+ every package, up to MAX_PACKAGES) */
    int *old_of = mn_malloc((d->domains.len ? d->domains.len : 1) * sizeof(int));
    for (size_t i = 0; i < d->domains.len; i++)
        d->domains.items[i].orig = (int)i;
    if (d->domains.len)
        qsort(d->domains.items, d->domains.len, sizeof(ddomain), by_lines_desc);
    size_t kept = 0, pk = 0;
    for (size_t i = 0; i < d->domains.len; i++) {
        ddomain *dm = &d->domains.items[i];
        old_of[dm->orig] = -1;
        bool keep = dm->is_package ? pk < MAX_PACKAGES : kept < MAX_DOMAINS;
        /* the root's loose files are a domain only when they matter */
        if (!strcmp(dm->path, ".") && (dm->files < 2 || dm->lines * 10 < total))
            keep = false;
        /* a lone small file is not a module worth a fact */
        if (!dm->is_package && dm->files < 2 && dm->lines * 100 < total)
            keep = false;
        if (keep) {
            dm->is_package ? pk++ : kept++;
            old_of[dm->orig] = (int)i;
        }
    }
    for (size_t i = 0; i < d->files.len; i++)
        if (d->files.items[i].domain >= 0)
            d->files.items[i].domain = old_of[d->files.items[i].domain];
    size_t w = 0;
    int *new_of = mn_malloc((d->domains.len ? d->domains.len : 1) * sizeof(int));
    for (size_t i = 0; i < d->domains.len; i++) {
        ddomain *dm = &d->domains.items[i];
        if (old_of[dm->orig] == (int)i) {
            new_of[i] = (int)w;
            d->domains.items[w++] = *dm;
        } else {
            new_of[i] = -1;
            free(dm->path);
        }
    }
    d->domains.len = w;
    for (size_t i = 0; i < d->files.len; i++)
        if (d->files.items[i].domain >= 0)
            d->files.items[i].domain = new_of[d->files.items[i].domain];
    free(old_of);
    free(new_of);
    mn_map_release(&src);
    mn_map_release(&tst);
    mn_map_release(&test_trees);
    mn_map_release(&pkg_dirs);
}

/* ---- symbols: each domain's main symbols, and main() functions ---- */

static int on_symbol(void *payload, const mn_symbol_row *y)
{
    dctx *d = payload;
    const dfile *f = file_get(d, y->path);
    if (!f || f->role != MN_ROLE_SOURCE)
        return 0;
    bool fn = !strcmp(y->kind, "function") || !strcmp(y->kind, "method");
    if (fn && (!strcmp(y->name, "main") || !strcmp(y->name, "Main")) && f->language &&
        in_words(f->language, strlen(f->language),
                 "c cpp objc go rust java kotlin scala csharp swift zig dart") &&
        !dir_excluded(y->path) && json_array_size(d->mains) < 64)
        add_unique(d->mains, y->path);
    if (f->domain < 0 || y->name[0] == '_' || !strncmp(y->name, "test", 4))
        return 0;
    static const char kinds[] = "class interface struct enum trait function";
    if (!in_words(y->kind, strlen(y->kind), kinds))
        return 0;
    json_t *top = d->domains.items[f->domain].symbols;
    size_t n = json_array_size(top), at = n;
    while (at > 0 &&
           json_real_value(json_object_get(json_array_get(top, at - 1), "rank")) < y->rank)
        at--;
    if (at >= 8)
        return 0;
    json_array_insert_new(top, at,
                          json_pack("{s:s,s:s,s:s,s:f}", "name", y->name, "kind", y->kind, "path",
                                    y->path, "rank", y->rank));
    if (json_array_size(top) > 8)
        json_array_remove(top, 8);
    return 0;
}

/* ---- findings ---- */

/* A key within the tag limit: long ones are cut and end with a hash of the whole. */
static char *key_for(const char *key)
{
    size_t room = TAG_MAX - strlen("discovery:");
    if (strlen(key) <= room)
        return mn_strdup(key);
    mn_buf b = MN_BUF_INIT;
    size_t cut = mn_utf8_floor(key, strlen(key), room - 9);
    mn_buf_put(&b, key, cut);
    mn_buf_printf(&b, "~%08x", (unsigned)XXH3_64bits(key, strlen(key)));
    return mn_buf_detach(&b);
}

/* Add a finding; takes title and body (released), paths (stolen, may be NULL), keywords. */
static void emit(dctx *d, const char *key, int level, mn_buf *title, mn_buf *body, json_t *paths,
                 const char *keywords)
{
    mn_buf t = MN_BUF_INIT;
    put_oneline(&t, title->ptr, 600);
    if (mn_utf8_len(t.ptr, t.len) > TITLE_MAX) {
        size_t cut = 0, cp = 0;
        while (cut < t.len && cp < TITLE_MAX - 3) {
            cut++;
            while (cut < t.len && ((unsigned char)t.ptr[cut] & 0xC0) == 0x80)
                cut++;
            cp++;
        }
        mn_buf_truncate(&t, cut);
        mn_buf_puts(&t, "...");
    }
    if (body->len > BODY_MAX) {
        mn_buf_truncate(body, mn_utf8_floor(body->ptr, body->len, BODY_MAX - 20));
        mn_buf_puts(body, "\n(cut)\n");
    }
    json_t *kw = json_array();
    if (keywords) {
        char *words = mn_strdup(keywords);
        char *save = NULL;
        for (char *w = strtok_r(words, ",", &save); w && json_array_size(kw) < 32;
             w = strtok_r(NULL, ",", &save)) {
            while (*w == ' ')
                w++;
            size_t n = strlen(w);
            while (n && w[n - 1] == ' ')
                w[--n] = '\0';
            for (char *c = w; *c; c++)
                *c = lower(*c);
            if (n && mn_utf8_len(w, n) <= 64 && mn_utf8_valid(w, n))
                add_unique(kw, w);
        }
        free(words);
    }
    if (paths)
        while (json_array_size(paths) > 256)
            json_array_remove(paths, 256);
    char *k = key_for(key);
    json_array_append_new(d->findings,
                          json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "key", k, "level",
                                    level == 0 ? "L0" : "L1", "title", t.ptr, "body", body->ptr,
                                    "paths", paths ? paths : json_array(), "keywords", kw));
    free(k);
    mn_buf_release(&t);
    mn_buf_release(title);
    mn_buf_release(body);
}

static const char *main_language(const dctx *d)
{
    return json_array_size(d->langshare)
               ? json_string_value(json_array_get(json_array_get(d->langshare, 0), 0))
               : NULL;
}

static void emit_languages(dctx *d)
{
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    char n1[32], n2[32];
    int64_t total = 0;
    size_t i;
    json_t *e;
    json_array_foreach(d->langshare, i, e) total += json_integer_value(json_array_get(e, 1));
    if (!d->files.len) {
        mn_buf_puts(&t, "The repository is empty: no file is indexed");
        mn_buf_printf(&b,
                      "Discovery found no indexed file under %s. Facts appear after files are "
                      "added and `mnemo index` runs.\n",
                      d->root);
        emit(d, "languages", 0, &t, &b, NULL, "empty, languages, repository");
        return;
    }
    if (total == 0) {
        int64_t roles[MN_ROLE_COUNT] = {0};
        for (size_t k = 0; k < d->files.len; k++)
            roles[d->files.items[k].role]++;
        int best = 0;
        for (int r = 1; r < MN_ROLE_COUNT; r++)
            if (roles[r] > roles[best])
                best = r;
        fmt_count(n1, (int64_t)d->files.len);
        mn_buf_printf(&t, "No source code: %s file%s, mostly %s files", n1,
                      d->files.len == 1 ? "" : "s", mn_role_name((mn_file_role)best));
        mn_buf_puts(&b, "No file in a programming language was found (source or test role).\n"
                        "Files by role:\n");
        for (int r = 0; r < MN_ROLE_COUNT; r++)
            if (roles[r])
                mn_buf_printf(&b, "- %s: %lld\n", mn_role_name((mn_file_role)r),
                              (long long)roles[r]);
        emit(d, "languages", 0, &t, &b, NULL, "languages, no code, documentation");
        return;
    }
    const char *top = main_language(d);
    int64_t top_lines = json_integer_value(json_array_get(json_array_get(d->langshare, 0), 1));
    fmt_count(n1, total);
    mn_buf_printf(&t, "Main language: %s (%d%% of %s lines of code)", top,
                  (int)(top_lines * 100 / total), n1);
    int shown = 0;
    json_array_foreach(d->langshare, i, e)
    {
        int64_t l = json_integer_value(json_array_get(e, 1));
        if (i == 0 || l * 100 < total || shown >= 4)
            continue;
        mn_buf_printf(&t, "%s %s %d%%", shown ? "," : "; also",
                      json_string_value(json_array_get(e, 0)), (int)(l * 100 / total));
        shown++;
    }
    mn_buf_printf(&b,
                  "Lines of code by language (source and test files; vendored, generated, "
                  "documentation, configuration and data files left out), %s lines in all:\n",
                  n1);
    mn_buf kw = MN_BUF_INIT;
    mn_buf_puts(&kw, "language, languages");
    json_array_foreach(d->langshare, i, e)
    {
        int64_t l = json_integer_value(json_array_get(e, 1));
        fmt_count(n1, l);
        fmt_count(n2, json_integer_value(json_array_get(e, 2)));
        mn_buf_printf(&b, "- %s: %s lines in %s files (%.1f%%)\n",
                      json_string_value(json_array_get(e, 0)), n1, n2,
                      (double)l * 100 / (double)total);
        if (i < 6)
            mn_buf_printf(&kw, ", %s", json_string_value(json_array_get(e, 0)));
    }
    emit(d, "languages", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void join_keys(mn_buf *out, const json_t *obj, const char *sep, size_t max)
{
    const char *k;
    json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (i == max) {
            mn_buf_printf(out, "%s...", sep);
            break;
        }
        mn_buf_printf(out, "%s%s", i++ ? sep : "", k);
    }
}

static void emit_project_type(dctx *d)
{
    const char *lang = main_language(d);
    if (!lang && !json_object_size(d->types) && !d->name)
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kinds = MN_BUF_INIT, kw = MN_BUF_INIT;
    json_t *types = json_deep_copy(d->types);
    if (json_array_size(d->packages))
        json_object_set_new(types, "monorepo",
                            json_sprintf("%zu packages", json_array_size(d->packages)));
    /* a framework or a testing tool is a library, said more precisely */
    if (json_object_get(types, "framework") || json_object_get(types, "testing tool"))
        json_object_del(types, "library");
    json_t *cli = json_object_get(types, "command-line tool");
    if (cli)
        cli = json_incref(cli), json_object_del(types, "command-line tool");
    if (!json_object_size(types) && !cli)
        json_object_set_new(types, "project", json_string("no package manifest found"));
    join_keys(&kinds, types, " and ", 3);
    if (!json_object_size(types))
        mn_buf_puts(&kinds, "command-line tool");
    else if (cli) {
        size_t n = 0;
        for (size_t i = 0; i < json_array_size(d->entries); i++)
            n += starts(jstr(json_array_get(d->entries, i), "what"), "console script") ||
                 starts(jstr(json_array_get(d->entries, i), "what"), "command ");
        mn_buf_printf(&kinds, " with %s", n > 1 ? "command-line tools" : "a command-line tool");
        size_t shown = 0;
        for (size_t i = 0; i < json_array_size(d->entries) && shown < 3; i++) {
            const char *w = jstr(json_array_get(d->entries, i), "what");
            const char *nm = starts(w, "console script ") ? w + 15
                             : starts(w, "command ")      ? w + 8
                                                          : NULL;
            if (nm) {
                mn_buf_printf(&kinds, "%s%.*s", shown++ ? ", " : " ", (int)strcspn(nm, " "), nm);
            }
        }
    }
    if (d->name)
        mn_buf_printf(&t, "Project: %s, a %s%s%s", d->name, lang ? lang : "", lang ? " " : "",
                      kinds.ptr);
    else
        mn_buf_printf(&t, "Project type: %s%s%s", lang ? lang : "", lang ? " " : "", kinds.ptr);
    if (d->description)
        mn_buf_printf(&t, " - %s", d->description);
    if (d->name)
        mn_buf_printf(&b, "Name: %s (%s)\n", d->name, d->name_why);
    if (d->description)
        mn_buf_printf(&b, "Description: %s\n", d->description);
    if (lang)
        mn_buf_printf(&b, "Main language: %s\n", lang);
    mn_buf_puts(&b, "What it is, and why:\n");
    const char *k;
    json_t *v;
    json_object_foreach(types, k, v) mn_buf_printf(&b, "- %s: %s\n", k, json_string_value(v));
    if (cli)
        mn_buf_printf(&b, "- command-line tool: %s\n", json_string_value(cli));
    mn_buf_printf(&kw, "project, overview, what is this%s%s", d->name ? ", " : "",
                  d->name ? d->name : "");
    json_object_foreach(types, k, v) mn_buf_printf(&kw, ", %s", k);
    json_decref(types);
    json_decref(cli);
    emit(d, "project-type", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kinds);
    mn_buf_release(&kw);
}

static int by_rank_field(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "rank"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "rank"));
    json_int_t p = json_integer_value(json_object_get(*(json_t *const *)a, "order"));
    json_int_t q = json_integer_value(json_object_get(*(json_t *const *)b, "order"));
    return x != y ? (x < y ? -1 : 1) : (p < q ? -1 : p > q);
}

static void emit_package_manager(dctx *d)
{
    size_t n = json_array_size(d->managers), i;
    if (!n && !json_object_size(d->builders))
        return;
    json_t **v = mn_malloc((n ? n : 1) * sizeof(json_t *));
    for (i = 0; i < n; i++) {
        v[i] = json_array_get(d->managers, i);
        json_object_set_new(v[i], "rank",
                            json_integer((json_int_t)lang_rank(d, jstr(v[i], "lang"))));
        json_object_set_new(v[i], "order", json_integer((json_int_t)i));
    }
    qsort(v, n, sizeof(json_t *), by_rank_field);
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    mn_buf_puts(&kw, "package manager, install, dependencies, setup");
    if (n) {
        mn_buf_printf(&t, "Package manager: %s (%s)", jstr(v[0], "name"), jstr(v[0], "why"));
        if (jstr(v[0], "install"))
            mn_buf_printf(&t, ", install with %s", jstr(v[0], "install"));
        for (i = 1; i < n && i < 4; i++)
            mn_buf_printf(&t, "%s%s", i == 1 ? "; also " : ", ", jstr(v[i], "name"));
    }
    if (json_object_size(d->builders)) {
        mn_buf_puts(&t, n ? "; builds with " : "Build system: ");
        join_keys(&t, d->builders, ", ", 3);
        if (!n)
            mn_buf_printf(&t, " (%s)",
                          json_string_value(json_object_iter_value(json_object_iter(d->builders))));
    }
    for (i = 0; i < n; i++) {
        mn_buf_printf(&b, "- %s, from %s", jstr(v[i], "name"), jstr(v[i], "why"));
        if (jstr(v[i], "install"))
            mn_buf_printf(&b, "; install: %s", jstr(v[i], "install"));
        mn_buf_puts(&b, "\n");
        mn_buf_printf(&kw, ", %s", jstr(v[i], "name"));
    }
    const char *k;
    json_t *w;
    json_object_foreach(d->builders, k, w)
    {
        mn_buf_printf(&b, "- builds with %s, from %s\n", k, json_string_value(w));
        mn_buf_printf(&kw, ", %s", k);
    }
    free(v);
    emit(d, "package-manager", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_frameworks(dctx *d)
{
    if (!json_object_size(d->frameworks))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    const char *k;
    json_t *v;
    size_t i = 0;
    mn_buf_puts(&t, "Frameworks and key libraries: ");
    mn_buf_puts(&kw, "framework, frameworks, libraries");
    json_object_foreach(d->frameworks, k, v)
    {
        if (i < 8)
            mn_buf_printf(&t, "%s%s (%s)", i ? ", " : "", k, jstr(v, "what"));
        else if (i == 8)
            mn_buf_puts(&t, ", ...");
        i++;
        mn_buf_printf(&b, "- %s (%s): %s\n", k, jstr(v, "what"), jstr(v, "why"));
        mn_buf_printf(&kw, ", %s", k);
    }
    emit(d, "frameworks", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_dependencies(dctx *d)
{
    if (!json_array_size(d->deps))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    json_t *rt = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(d->deps, i, e)
    {
        const char *sec = jstr(e, "section");
        if (!rt && (!strcmp(sec, "runtime") || !strcmp(sec, "find_package")))
            rt = e;
        mn_buf_printf(&b, "%s (%s):", jstr(e, "manifest"), sec);
        size_t j;
        json_t *n;
        json_array_foreach(json_object_get(e, "names"), j, n)
            mn_buf_printf(&b, "%s%s", j ? ", " : " ", json_string_value(n));
        mn_buf_puts(&b, "\n");
    }
    mn_buf_puts(&kw, "dependencies, requirements, packages");
    if (rt) {
        json_t *names = json_object_get(rt, "names");
        mn_buf_printf(&t, "Runtime dependencies (%s): ", jstr(rt, "manifest"));
        size_t j;
        json_t *n;
        json_array_foreach(names, j, n)
        {
            if (j == 10) {
                mn_buf_printf(&t, " and %zu more", json_array_size(names) - 10);
                break;
            }
            mn_buf_printf(&t, "%s%s", j ? ", " : "", json_string_value(n));
            if (j < 12)
                mn_buf_printf(&kw, ", %s", json_string_value(n));
        }
    } else {
        e = json_array_get(d->deps, 0);
        mn_buf_printf(&t, "No runtime dependencies declared; %s (%s) lists %zu", jstr(e, "section"),
                      jstr(e, "manifest"), json_array_size(json_object_get(e, "names")));
    }
    emit(d, "dependencies", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_list(dctx *d, const char *key, const char *lead, const json_t *items,
                      const char *keywords)
{
    if (!json_array_size(items))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    size_t i;
    json_t *v;
    mn_buf_puts(&t, lead);
    json_array_foreach(items, i, v)
    {
        mn_buf_printf(&t, "%s%s", i ? "; " : "", json_string_value(v));
        mn_buf_printf(&b, "- %s\n", json_string_value(v));
    }
    emit(d, key, 0, &t, &b, NULL, keywords);
}

static int by_score(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "score"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "score"));
    json_int_t p = json_integer_value(json_object_get(*(json_t *const *)a, "order"));
    json_int_t q = json_integer_value(json_object_get(*(json_t *const *)b, "order"));
    return x != y ? (x < y ? 1 : -1) : (p < q ? -1 : p > q);
}

static void emit_commands(dctx *d)
{
    static const char *const kws[CMD_N] = {
        "build, compile, package, make",
        "test, tests, testing, run tests, unit tests",
        "run, start, serve, launch, dev server",
        "lint, linter, style, format, check",
    };
    for (int k = 0; k < CMD_N; k++) {
        size_t n = json_array_size(d->cmds[k]);
        if (!n)
            continue;
        json_t **v = mn_malloc(n * sizeof(json_t *));
        for (size_t i = 0; i < n; i++)
            v[i] = json_array_get(d->cmds[k], i);
        qsort(v, n, sizeof(json_t *), by_score);
        mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
        mn_buf_printf(&t, "%s command: %s (%s", cmd_names[k], jstr(v[0], "cmd"), jstr(v[0], "why"));
        if (jstr(v[0], "detail"))
            mn_buf_printf(&t, ": %s", jstr(v[0], "detail"));
        mn_buf_puts(&t, ")");
        mn_buf_printf(&b, "%s with: %s\n\nCandidates, best first:\n", cmd_names[k],
                      jstr(v[0], "cmd"));
        for (size_t i = 0; i < n; i++) {
            mn_buf_printf(&b, "- %s: %s", jstr(v[i], "cmd"), jstr(v[i], "why"));
            if (jstr(v[i], "detail"))
                mn_buf_printf(&b, " (%s)", jstr(v[i], "detail"));
            mn_buf_puts(&b, "\n");
        }
        mn_buf_printf(&kw, "%s, %s", kws[k], jstr(v[0], "cmd"));
        char first[64];
        snprintf(first, sizeof(first), "%s", jstr(v[0], "cmd"));
        first[strcspn(first, " ")] = '\0';
        mn_buf_printf(&kw, ", %s", first);
        free(v);
        emit(d, cmd_keys[k], 0, &t, &b, NULL, kw.ptr);
        mn_buf_release(&kw);
    }
}

static void emit_entries(dctx *d)
{
    size_t i;
    json_t *m;
    /* main() functions the manifests did not name already */
    json_array_foreach(d->mains, i, m)
    {
        const char *p = json_string_value(m);
        bool known = false;
        size_t j;
        json_t *e;
        json_array_foreach(d->entries, j, e) known |= strstr(jstr(e, "what"), p) != NULL;
        if (!known && json_array_size(d->entries) < 12) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (a main function)", p);
            add_entry(d, w.ptr, "the symbol index");
            mn_buf_release(&w);
        }
    }
    if (!json_array_size(d->entries))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    json_t *e;
    mn_buf_puts(&t, "Entry points: ");
    mn_buf_puts(&kw, "entry point, main, start, executable, command");
    json_array_foreach(d->entries, i, e)
    {
        if (i < 4)
            mn_buf_printf(&t, "%s%s", i ? "; " : "", jstr(e, "what"));
        else if (i == 4)
            mn_buf_printf(&t, "; and %zu more", json_array_size(d->entries) - 4);
        mn_buf_printf(&b, "- %s (from %s)\n", jstr(e, "what"), jstr(e, "why"));
    }
    emit(d, "entry-points", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static int domain_index(const dctx *d, const char *path)
{
    for (size_t i = 0; i < d->domains.len; i++)
        if (!strcmp(d->domains.items[i].path, path))
            return (int)i;
    return -1;
}

static void emit_main_package(dctx *d)
{
    if (!d->domains.len)
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    char n1[32];
    const ddomain *big = NULL;
    for (size_t i = 0; i < d->domains.len; i++)
        if (strcmp(d->domains.items[i].path, ".") &&
            (!big || d->domains.items[i].lines > big->lines))
            big = &d->domains.items[i];
    if (!big)
        big = &d->domains.items[0];
    /* the package named after the project, when there is one */
    const ddomain *named = NULL;
    if (d->name) {
        char want[128];
        snprintf(want, sizeof(want), "%s", d->self_norm);
        for (char *c = want; *c; c++)
            if (*c == '-')
                *c = '_';
        const char *slash = strrchr(want, '/');
        const char *w = slash ? slash + 1 : want;
        size_t i;
        json_t *p;
        json_array_foreach(d->pypkgs, i, p)
        {
            if (strcmp(base_name(json_string_value(p)), w))
                continue;
            int k = domain_index(d, json_string_value(p));
            if (k >= 0)
                named = &d->domains.items[k];
        }
        /* a module named after the project at the top, or in src/, lib/... */
        for (size_t k = 0; !named && k < d->domains.len; k++) {
            const char *dp = d->domains.items[k].path, *bn = base_name(dp);
            if (strcmp(bn, w) || depth_of(dp) > 1 ||
                (bn != dp &&
                 !in_words(dp, (size_t)(bn - dp - 1), "src lib source packages crates")))
                continue;
            named = &d->domains.items[k];
        }
        /* a public package that re-exports a bigger private one: pytest and _pytest */
        if (!named) {
            json_array_foreach(d->pypkgs, i, p) if (!strcmp(base_name(json_string_value(p)), w))
            {
                mn_buf_printf(&t, "Main package: %s (%s)", w, json_string_value(p));
                fmt_count(n1, big->lines);
                mn_buf_printf(&t, ", implemented mostly in %s (%lld files, %s lines)", big->path,
                              (long long)big->files, n1);
                mn_buf_printf(&b, "The project %s (%s) is the package %s in %s.\n", d->name,
                              d->name_why, w, json_string_value(p));
                mn_buf_printf(&b, "Most of the code is in %s: %lld source files, %s lines.\n",
                              big->path, (long long)big->files, n1);
                mn_buf_printf(&kw, "main package, package, %s, %s", w, base_name(big->path));
                json_t *paths = json_pack("[s,s]", json_string_value(p), big->path);
                emit(d, "main-package", 0, &t, &b, paths, kw.ptr);
                mn_buf_release(&kw);
                return;
            }
        }
    }
    if (named && big != named && big->lines > named->lines * 2) {
        fmt_count(n1, big->lines);
        mn_buf_printf(&t, "Main package: %s (%s), implemented mostly in %s (%lld files, %s lines)",
                      d->name, named->path, big->path, (long long)big->files, n1);
        mn_buf_printf(&b,
                      "The project %s (%s) is the package in %s (%lld files); most of its "
                      "code is in %s: %lld source files, %s lines.\n",
                      d->name, d->name_why, named->path, (long long)named->files, big->path,
                      (long long)big->files, n1);
        mn_buf_printf(&kw, "main package, package, main module, %s, %s", base_name(named->path),
                      base_name(big->path));
        emit(d, "main-package", 0, &t, &b, json_pack("[s,s]", named->path, big->path), kw.ptr);
        mn_buf_release(&kw);
        return;
    }
    if (!named && d->name && !strcmp(big->path, "."))
        named = big;
    const ddomain *m = named ? named : big;
    fmt_count(n1, m->lines);
    if (named && !strcmp(m->path, ".")) {
        mn_buf_printf(&t, "Main package: the top-level files (%s), %lld source file%s, %s lines",
                      d->name, (long long)m->files, m->files == 1 ? "" : "s", n1);
    } else if (named) {
        mn_buf_printf(&t, "Main package: %s (%s), %lld source file%s, %s lines", m->path, d->name,
                      (long long)m->files, m->files == 1 ? "" : "s", n1);
    } else {
        /* no module is named after the project: say which is the biggest, no more */
        mn_buf_printf(&t, "Main module: %s, the largest (%lld source file%s, %s lines)",
                      strcmp(m->path, ".") ? m->path : "the top-level files", (long long)m->files,
                      m->files == 1 ? "" : "s", n1);
    }
    if (d->name)
        mn_buf_printf(&b, "Project name: %s (%s).\n", d->name, d->name_why);
    mn_buf_printf(&b, "%s holds %lld source files, %s lines%s.\n", m->path, (long long)m->files, n1,
                  named ? ", and is named after the project" : ", the most of any module");
    mn_buf_printf(&kw, "main package, package, main module, %s", base_name(m->path));
    if (d->name)
        mn_buf_printf(&kw, ", %s", d->name);
    emit(d, "main-package", 0, &t, &b, strcmp(m->path, ".") ? json_pack("[s]", m->path) : NULL,
         kw.ptr);
    mn_buf_release(&kw);
}

static void emit_style(dctx *d)
{
    if (!json_object_size(d->style))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    const char *k;
    json_t *v;
    mn_buf_puts(&t, "Code style: ");
    join_keys(&t, d->style, ", ", 8);
    mn_buf_puts(&kw, "code style, conventions, formatter, linter, lint, format");
    json_object_foreach(d->style, k, v)
    {
        mn_buf_printf(&b, "- %s: %s\n", k, json_string_value(v));
        mn_buf_printf(&kw, ", %.*s", (int)strcspn(k, " ("), k);
    }
    emit(d, "code-style", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_ci(dctx *d)
{
    if (!json_array_size(d->ci))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    size_t i, j;
    json_t *c, *x;
    mn_buf_puts(&t, "CI: ");
    json_array_foreach(d->ci, i, c)
    {
        mn_buf_printf(&t, "%s%s", i ? "; " : "", jstr(c, "system"));
        mn_buf_printf(&b, "%s\n", jstr(c, "system"));
        json_array_foreach(json_object_get(c, "details"), j, x)
            mn_buf_printf(&b, "- %s\n", json_string_value(x));
    }
    emit(d, "ci", 0, &t, &b, NULL,
         "ci, continuous integration, pipeline, workflow, github actions, checks");
}

static void emit_monorepo(dctx *d)
{
    size_t n = json_array_size(d->packages), i;
    if (!n)
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, why = MN_BUF_INIT;
    json_t *p, *w;
    json_array_foreach(d->workspaces, i, w)
    {
        if (!strstr(why.ptr, jstr(w, "why")))
            mn_buf_printf(&why, "%s%s", why.len ? ", " : "", jstr(w, "why"));
    }
    mn_buf_printf(&t, "Monorepo: %zu packages (%s): ", n,
                  why.len ? why.ptr : "package manifests in sub-directories");
    json_array_foreach(d->packages, i, p)
    {
        if (i < 6)
            mn_buf_printf(&t, "%s%s", i ? ", " : "", jstr(p, "dir"));
        else if (i == 6)
            mn_buf_printf(&t, " and %zu more", n - 6);
        mn_buf_printf(&b, "- %s: %s", jstr(p, "dir"), jstr(p, "manifest"));
        if (jstr(p, "name"))
            mn_buf_printf(&b, " (%s)", jstr(p, "name"));
        mn_buf_puts(&b, "\n");
    }
    if (json_array_size(d->workspaces)) {
        mn_buf_puts(&b, "Workspace patterns:");
        json_array_foreach(d->workspaces, i, w) mn_buf_printf(&b, " %s", jstr(w, "glob"));
        mn_buf_puts(&b, "\n");
    }
    if (have(d, "nx.json"))
        mn_buf_puts(&b, "Tasks run with Nx (nx.json).\n");
    if (have(d, "turbo.json"))
        mn_buf_puts(&b, "Tasks run with Turborepo (turbo.json).\n");
    mn_buf_release(&why);
    emit(d, "monorepo", 0, &t, &b, NULL, "monorepo, workspace, workspaces, packages");
}

/* What a domain holds: languages, sub-modules, central files, main symbols. */
static void describe_domain(dctx *d, size_t k, mn_buf *t, mn_buf *b, mn_buf *kw)
{
    ddomain *dm = &d->domains.items[k];
    size_t plen = strcmp(dm->path, ".") ? strlen(dm->path) + 1 : 0;
    char n1[32];
    json_t *langs = json_object(), *subs = json_object();
    const dfile *central[5] = {NULL};
    for (size_t i = 0; i < d->files.len; i++) {
        const dfile *f = &d->files.items[i];
        if (f->domain != (int)k)
            continue;
        const char *ln = lang_display(f->language);
        json_object_set_new(
            langs, ln, json_integer(json_integer_value(json_object_get(langs, ln)) + f->lines));
        const char *rest = f->path + plen, *s = strchr(rest, '/');
        if (s) {
            char *sub = mn_strndup(rest, (size_t)(s - rest));
            json_object_set_new(subs, sub,
                                json_integer(json_integer_value(json_object_get(subs, sub)) + 1));
            free(sub);
        }
        for (int c = 0; c < 5; c++) {
            if (central[c] && (central[c]->rank > f->rank ||
                               (central[c]->rank == f->rank && central[c]->lines >= f->lines)))
                continue;
            memmove(&central[c + 1], &central[c], (size_t)(4 - c) * sizeof(central[0]));
            central[c] = f;
            break;
        }
    }
    const char *top = NULL;
    json_int_t topl = -1;
    const char *lk;
    json_t *lv;
    json_object_foreach(langs, lk, lv) if (json_integer_value(lv) > topl)
    {
        topl = json_integer_value(lv);
        top = lk;
    }
    fmt_count(n1, dm->lines);
    mn_buf_printf(t, "%lld %s file%s (%s lines)", (long long)dm->files, top ? top : "source",
                  dm->files == 1 ? "" : "s", n1);
    if (central[0]) {
        mn_buf_puts(t, "; central:");
        for (int c = 0; c < 3 && central[c]; c++)
            mn_buf_printf(t, "%s %s", c ? "," : "", central[c]->path + plen);
    }
    mn_buf_printf(b, "%s holds %lld source files, %s lines (", dm->path, (long long)dm->files, n1);
    size_t i = 0;
    json_object_foreach(langs, lk, lv)
    {
        fmt_count(n1, json_integer_value(lv));
        mn_buf_printf(b, "%s%s %s", i++ ? ", " : "", lk, n1);
    }
    mn_buf_puts(b, ").\n");
    if (json_object_size(subs)) {
        mn_buf_puts(b, "Sub-modules:");
        i = 0;
        json_object_foreach(subs, lk, lv)
        {
            if (i++ == 20) {
                mn_buf_puts(b, " ...");
                break;
            }
            mn_buf_printf(b, "%s %s/ (%lld files)", i > 1 ? "," : "", lk,
                          (long long)json_integer_value(lv));
            if (i <= 8)
                mn_buf_printf(kw, ", %s", lk);
        }
        mn_buf_puts(b, "\n");
    }
    if (central[0]) {
        /* the order only: rank values move with every file added anywhere */
        mn_buf_puts(b, "Central files (by PageRank over imports and calls, most central first):");
        for (int c = 0; c < 5 && central[c]; c++) {
            mn_buf_printf(b, "%s %s", c ? "," : "", central[c]->path);
            const char *base = base_name(central[c]->path);
            if (c < 3)
                mn_buf_printf(kw, ", %.*s", (int)strcspn(base, "."), base);
        }
        mn_buf_puts(b, "\n");
    }
    if (json_array_size(dm->symbols)) {
        mn_buf_puts(b, "Main symbols:");
        json_t *y;
        json_array_foreach(dm->symbols, i, y)
        {
            mn_buf_printf(b, "%s %s (%s, %s)", i ? "," : "", jstr(y, "name"), jstr(y, "kind"),
                          jstr(y, "path") + plen);
            if (i < 4)
                mn_buf_printf(kw, ", %s", jstr(y, "name"));
        }
        mn_buf_puts(b, "\n");
    }
    json_decref(langs);
    json_decref(subs);
}

static void emit_domains(dctx *d)
{
    for (size_t k = 0; k < d->domains.len; k++) {
        ddomain *dm = &d->domains.items[k];
        mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT, key = MN_BUF_INIT;
        json_t *pkg = NULL;
        size_t i;
        json_t *p;
        json_array_foreach(d->packages, i, p) if (!strcmp(jstr(p, "dir"), dm->path)) pkg = p;
        if (pkg) {
            mn_buf_printf(&t, "Package %s", dm->path);
            if (jstr(pkg, "name"))
                mn_buf_printf(&t, " (%s)", jstr(pkg, "name"));
            mn_buf_puts(&t, ": ");
            mn_buf_printf(&b, "Package of the monorepo, manifest %s", jstr(pkg, "manifest"));
            if (jstr(pkg, "name"))
                mn_buf_printf(&b, ", name %s", jstr(pkg, "name"));
            mn_buf_puts(&b, ".\n");
            if (jstr(pkg, "description"))
                mn_buf_printf(&b, "Description: %s\n", jstr(pkg, "description"));
            if (json_array_size(json_object_get(pkg, "scripts"))) {
                mn_buf_puts(&b, "Scripts:");
                json_t *s;
                json_array_foreach(json_object_get(pkg, "scripts"), i, s)
                    mn_buf_printf(&b, " %s", json_string_value(s));
                mn_buf_puts(&b, "\n");
            }
            if (json_object_get(pkg, "ndeps"))
                mn_buf_printf(&b, "Runtime dependencies: %lld\n",
                              (long long)json_integer_value(json_object_get(pkg, "ndeps")));
            mn_buf_printf(&kw, "package, %s", base_name(dm->path));
            if (jstr(pkg, "name"))
                mn_buf_printf(&kw, ", %s", jstr(pkg, "name"));
            mn_buf_printf(&key, "package:%s", dm->path);
        } else {
            mn_buf_printf(&t,
                          "Domain %s: ", strcmp(dm->path, ".") ? dm->path : "(top-level files)");
            mn_buf_printf(&kw, "domain, module, %s",
                          strcmp(dm->path, ".") ? base_name(dm->path) : "top-level");
            mn_buf_printf(&key, "domain:%s", dm->path);
        }
        describe_domain(d, k, &t, &b, &kw);
        emit(d, key.ptr, 1, &t, &b, strcmp(dm->path, ".") ? json_pack("[s]", dm->path) : NULL,
             kw.ptr);
        mn_buf_release(&kw);
        mn_buf_release(&key);
    }
}

/* ---- collecting ---- */

static void dctx_release(dctx *d)
{
    for (size_t i = 0; i < d->files.len; i++)
        free(d->files.items[i].path);
    mn_vec_release(&d->files);
    mn_map_release(&d->by_path);
    for (size_t i = 0; i < d->langs.len; i++)
        free(d->langs.items[i]);
    mn_vec_release(&d->langs);
    for (size_t i = 0; i < d->domains.len; i++) {
        free(d->domains.items[i].path);
        json_decref(d->domains.items[i].symbols);
    }
    mn_vec_release(&d->domains);
    json_t **all[] = {&d->findings,   &d->langshare, &d->managers, &d->frameworks, &d->deps,
                      &d->cmds[0],    &d->cmds[1],   &d->cmds[2],  &d->cmds[3],    &d->entries,
                      &d->style,      &d->types,     &d->runtime,  &d->docs,       &d->ci,
                      &d->workspaces, &d->builders,  &d->packages, &d->pypkgs,     &d->mains};
    for (size_t i = 0; i < MN_ARRAY_SIZE(all); i++) {
        json_decref(*all[i]);
        *all[i] = NULL;
    }
    free(d->name);
    free(d->name_why);
    free(d->description);
}

typedef struct {
    const char *lang;
    void (*scan)(dctx *d);
} scanner;

static int by_scanner_rank(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

int mn_discover_collect(json_t **out, mn_store *s, const char *root, mn_discover_stats *stats)
{
    mn_discover_stats local;
    dctx d;
    int rc;
    memset(&d, 0, sizeof(d));
    memset(&local, 0, sizeof(local));
    *out = NULL;
    d.s = s;
    d.root = root;
    d.st = stats ? stats : &local;
    mn_map empty = MN_MAP_INIT;
    d.by_path = empty;
    d.findings = json_array();
    d.managers = json_array();
    d.frameworks = json_object();
    d.deps = json_array();
    for (int k = 0; k < CMD_N; k++)
        d.cmds[k] = json_array();
    d.entries = json_array();
    d.style = json_object();
    d.types = json_object();
    d.runtime = json_array();
    d.docs = json_array();
    d.ci = json_array();
    d.workspaces = json_array();
    d.builders = json_object();
    d.packages = json_array();
    d.pypkgs = json_array();
    d.mains = json_array();

    if ((rc = mn_store_begin_read(s)) != 0)
        goto out;
    rc = mn_store_files_each(s, NULL, on_file, &d);
    if (rc) {
        mn_store_rollback(s);
        goto out;
    }
    d.langshare = language_table(&d, NULL, counts_as_code);

    /* the ecosystems, the main language's first (it names the project) */
    static const scanner scanners[] = {
        {"python", scan_python}, {"javascript", scan_node}, {"go", scan_go},
        {"rust", scan_rust},     {"java", scan_jvm},        {"ruby", scan_ruby},
        {"php", scan_php},       {"csharp", scan_dotnet},   {"c", scan_native},
    };
    int order[MN_ARRAY_SIZE(scanners)][2];
    for (size_t i = 0; i < MN_ARRAY_SIZE(scanners); i++) {
        order[i][0] = (int)lang_rank(&d, scanners[i].lang);
        order[i][1] = (int)i;
    }
    qsort(order, MN_ARRAY_SIZE(scanners), sizeof(order[0]), by_scanner_rank);
    for (size_t i = 0; i < MN_ARRAY_SIZE(scanners); i++) {
        d.cur_lang = scanners[order[i][1]].lang;
        scanners[order[i][1]].scan(&d);
    }
    d.cur_lang = NULL;
    scan_make(&d);
    scan_misc(&d);
    scan_conventions(&d);
    scan_ci(&d);
    scan_docs(&d);
    find_packages(&d);
    find_domains(&d);
    for (size_t i = 0; i < d.domains.len; i++) {
        d.domains.items[i].symbols = json_array();
        for (size_t k = 0; k < json_array_size(d.packages); k++) {
            json_t *p = json_array_get(d.packages, k);
            if (!strcmp(jstr(p, "dir"), d.domains.items[i].path))
                package_details(&d, p);
        }
    }
    if (d.domains.len || json_array_size(d.langshare))
        rc = mn_store_symbols_each(s, NULL, on_symbol, &d);
    if (rc) {
        mn_store_rollback(s);
        goto out;
    }
    if ((rc = mn_store_commit(s)) != 0)
        goto out;

    emit_languages(&d);
    emit_project_type(&d);
    emit_package_manager(&d);
    emit_frameworks(&d);
    emit_dependencies(&d);
    emit_list(&d, "runtime", "Runtime: ", d.runtime, "runtime, version, interpreter, toolchain");
    emit_commands(&d);
    emit_entries(&d);
    emit_main_package(&d);
    emit_style(&d);
    emit_ci(&d);
    emit_list(&d, "docs", "Documentation: ", d.docs, "documentation, docs, manual");
    emit_monorepo(&d);
    emit_domains(&d);
    *out = json_incref(d.findings);
out:
    dctx_release(&d);
    return rc;
}

/* ---- the fingerprint of what discovery reads ---- */

typedef struct {
    XXH3_state_t *h;
    mn_map tops, langs;
} fp_state;

static int fp_file(void *payload, const mn_file_rec *f)
{
    fp_state *st = payload;
    mn_file_role role;
    if (mn_role_parse(&role, f->role) != 0) {
        mn_error_clear();
        return 0;
    }
    if ((role == MN_ROLE_BUILD || role == MN_ROLE_CONFIG) && depth_of(f->path) <= 3) {
        XXH3_64bits_update(st->h, f->path, strlen(f->path) + 1);
        XXH3_64bits_update(st->h, f->hash, strlen(f->hash) + 1);
    } else if (role == MN_ROLE_LOCK && depth_of(f->path) <= 3) {
        XXH3_64bits_update(st->h, f->path, strlen(f->path) + 1);
    } else if ((role == MN_ROLE_SOURCE || role == MN_ROLE_TEST) && is_code(f->language)) {
        const char *s = strchr(f->path, '/'), *b = base_name(f->path);
        /* files whose presence is an entry point */
        if (in_words(b, strlen(b), "__main__.py manage.py main.go main.rs lib.rs Program.cs"))
            XXH3_64bits_update(st->h, f->path, strlen(f->path) + 1);
        char *top = s ? mn_strndup(f->path, (size_t)(s - f->path)) : mn_strdup(".");
        if (!mn_map_has(&st->tops, top)) {
            mn_map_set(&st->tops, top, NULL);
            XXH3_64bits_update(st->h, top, strlen(top) + 1);
        }
        free(top);
        mn_map_set(&st->langs, f->language, NULL);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int fingerprint(mn_store *s, char out[17])
{
    fp_state st = {XXH3_createState(), MN_MAP_INIT, MN_MAP_INIT};
    if (!st.h)
        abort();
    XXH3_64bits_reset(st.h);
    int rc = mn_store_files_each(s, NULL, fp_file, &st);
    if (rc == 0) {
        const char **names = mn_malloc((st.langs.len ? st.langs.len : 1) * sizeof(char *));
        size_t n = 0, pos = 0;
        const char *k;
        void *v;
        while (mn_map_next(&st.langs, &pos, &k, &v))
            names[n++] = k;
        qsort(names, n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < n; i++)
            XXH3_64bits_update(st.h, names[i], strlen(names[i]) + 1);
        free(names);
        snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(st.h));
    }
    XXH3_freeState(st.h);
    mn_map_release(&st.tops);
    mn_map_release(&st.langs);
    return rc;
}

/* ---- reconciling with the stored memories ---- */

static const char *discovery_key(const json_t *mem)
{
    size_t i;
    json_t *t;
    json_array_foreach(jget(mem, "scope", "tags", NULL), i, t)
    {
        const char *s = json_string_value(t);
        if (s && starts(s, "discovery:"))
            return s + strlen("discovery:");
    }
    return NULL;
}

static int collect_mem(void *payload, json_t *mem)
{
    json_array_append(payload, mem);
    return 0;
}

static void set_time_field(json_t *mem, const char *key, int64_t ms)
{
    char t[32];
    mn_time_format(t, ms);
    json_object_set_new(mem, key, json_string(t));
}

static json_t *group(json_t *mem, const char *name)
{
    json_t *g = json_object_get(mem, name);
    if (!json_is_object(g)) {
        g = json_object();
        json_object_set_new(mem, name, g);
    }
    return g;
}

/* Write a finding's fields into a memory (new or existing). */
static void apply_finding(json_t *mem, const json_t *f, const char *tag)
{
    json_object_set_new(mem, "kind", json_string("fact"));
    json_object_set(mem, "level", json_object_get(f, "level"));
    json_object_set(mem, "title", json_object_get(f, "title"));
    json_object_set(mem, "body", json_object_get(f, "body"));
    json_t *ctx = group(mem, "context"), *scope = group(mem, "scope");
    if (json_array_size(json_object_get(f, "keywords")))
        json_object_set_new(ctx, "trigger_keywords",
                            json_deep_copy(json_object_get(f, "keywords")));
    else
        json_object_del(ctx, "trigger_keywords");
    if (json_array_size(json_object_get(f, "paths")))
        json_object_set_new(scope, "paths", json_deep_copy(json_object_get(f, "paths")));
    else
        json_object_del(scope, "paths");
    json_t *tags = json_object_get(scope, "tags");
    if (!json_is_array(tags)) {
        tags = json_array();
        json_object_set_new(scope, "tags", tags);
    }
    add_unique(tags, "discovery");
    add_unique(tags, tag);
    if (!json_object_size(ctx))
        json_object_del(mem, "context");
    group(mem, "provenance");
    json_object_set_new(json_object_get(mem, "provenance"), "source", json_string("discovery"));
}

static void add_fact(mn_discover_stats *st, const char *key, const json_t *mem, const char *action)
{
    json_array_append_new(st->facts, json_pack("{s:s,s:s,s:s,s:s,s:s}", "key", key, "id",
                                               jstr(mem, "id"), "title", jstr(mem, "title"),
                                               "level", jstr(mem, "level"), "action", action));
}

static int audit(mn_store *s, const mn_memory_settings *cfg, const char *id, const char *key,
                 const char *action)
{
    json_t *detail = json_pack("{s:s,s:s}", "key", key, "action", action);
    int rc =
        mn_store_audit(s, cfg && cfg->actor ? cfg->actor : "discovery", "discover", id, detail);
    json_decref(detail);
    return rc;
}

void mn_discover_stats_release(mn_discover_stats *st)
{
    if (!st)
        return;
    json_decref(st->facts);
    st->facts = NULL;
}

int mn_discover(mn_store *s, const char *root, const mn_memory_settings *cfg,
                const mn_discover_options *opts, mn_discover_stats *out)
{
    mn_discover_options defaults = MN_DISCOVER_OPTIONS_INIT;
    uint64_t t0 = mn_time_mono_ns();
    json_t *found = NULL, *existing = json_array();
    mn_map by_key = MN_MAP_INIT;
    char *used = NULL;
    char fp[17];
    bool in_tx = false;
    int rc;
    memset(out, 0, sizeof(*out));
    out->facts = json_array();
    if (!opts)
        opts = &defaults;
    MN_ASSERT_OR(opts->version == MN_DISCOVER_OPTIONS_VERSION, MN_EINTERNAL);
    if ((rc = mn_discover_collect(&found, s, root, out)) != 0 || (rc = fingerprint(s, fp)) != 0)
        goto out;
    /* what manifests say (a registry URL with a token, a command with a key) is scrubbed
     * like any save */
    if (cfg && cfg->scanner && cfg->redact &&
        (rc = mn_scrub_json(found, cfg->scanner, cfg->redact, NULL)) != 0)
        goto out;
    if ((rc = mn_store_begin(s)) != 0)
        goto out;
    in_tx = true;
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.source = "discovery";
    f.include_deleted = true;
    if ((rc = mn_store_memory_list(s, &f, collect_mem, existing)) != 0)
        goto out;
    used = mn_calloc(json_array_size(existing) + 1, 1);
    size_t i;
    json_t *m;
    json_array_foreach(existing, i, m)
    {
        const char *k = discovery_key(m);
        if (k && !mn_map_has(&by_key, k))
            mn_map_set(&by_key, k, (void *)(uintptr_t)(i + 1));
    }
    int64_t now = mn_time_now_ms();
    double threshold = cfg ? cfg->review_threshold : 0.5;
    json_t *fd;
    json_array_foreach(found, i, fd)
    {
        const char *key = jstr(fd, "key");
        mn_buf tag = MN_BUF_INIT;
        mn_buf_printf(&tag, "discovery:%s", key);
        uintptr_t at = (uintptr_t)mn_map_get(&by_key, key);
        if (!at) {
            /* a person may have taken it over (its source is no longer discovery) */
            mn_memory_filter tf = MN_MEMORY_FILTER_INIT;
            int64_t n = 0;
            json_t *theirs = json_array();
            tf.tag = tag.ptr;
            tf.include_deleted = true;
            tf.limit = 1;
            rc = mn_store_memory_list(s, &tf, collect_mem, theirs);
            n = (int64_t)json_array_size(theirs);
            if (rc == 0 && n > 0) {
                out->kept++;
                add_fact(out, key, json_array_get(theirs, 0), "kept");
            }
            json_decref(theirs);
            if (rc || n > 0) {
                mn_buf_release(&tag);
                if (rc)
                    goto out;
                continue;
            }
            char id[MN_ID_LEN + 1];
            json_t *mem = json_object();
            mn_id_new(id);
            json_object_set_new(mem, "id", json_string(id));
            apply_finding(mem, fd, tag.ptr);
            json_object_set_new(mem, "status",
                                json_string(CONFIDENCE < threshold ? "pending" : "active"));
            json_object_set_new(mem, "confidence", json_real(CONFIDENCE));
            set_time_field(mem, "created_at", now);
            set_time_field(mem, "updated_at", now);
            rc = mn_store_memory_insert(s, mem);
            if (rc == 0)
                rc = audit(s, cfg, id, key, "created");
            if (rc == 0) {
                out->created++;
                add_fact(out, key, mem, "created");
            }
            json_decref(mem);
            mn_buf_release(&tag);
            if (rc)
                goto out;
            continue;
        }
        json_t *old = json_array_get(existing, at - 1);
        used[at - 1] = 1;
        if (json_object_get(old, "deleted_at") && !opts->restore_forgotten) {
            out->kept++;
            add_fact(out, key, old, "kept");
            mn_buf_release(&tag);
            continue;
        }
        json_t *mem = json_deep_copy(old);
        apply_finding(mem, fd, tag.ptr);
        if (!strcmp(jstr(mem, "status"), "archived"))
            json_object_set_new(mem, "status",
                                json_string(CONFIDENCE < threshold ? "pending" : "active"));
        json_object_del(mem, "deleted_at");
        if (json_equal(mem, old)) {
            out->unchanged++;
            add_fact(out, key, mem, "unchanged");
        } else {
            set_time_field(mem, "updated_at", now);
            rc = mn_store_memory_replace(s, mem);
            if (rc == 0 && json_object_get(old, "deleted_at"))
                rc = mn_store_memory_set_deleted(s, jstr(mem, "id"), 0);
            if (rc == 0)
                rc = audit(s, cfg, jstr(mem, "id"), key, "updated");
            if (rc == 0) {
                out->updated++;
                add_fact(out, key, mem, "updated");
            }
        }
        json_decref(mem);
        mn_buf_release(&tag);
        if (rc)
            goto out;
    }
    /* what no longer holds, and second copies of a key, are archived */
    json_array_foreach(existing, i, m)
    {
        const char *key = discovery_key(m);
        if (used[i] || !key || json_object_get(m, "deleted_at") ||
            !strcmp(jstr(m, "status"), "archived"))
            continue;
        json_t *mem = json_deep_copy(m);
        json_object_set_new(mem, "status", json_string("archived"));
        set_time_field(mem, "updated_at", now);
        rc = mn_store_memory_replace(s, mem);
        if (rc == 0)
            rc = audit(s, cfg, jstr(mem, "id"), key, "archived");
        if (rc == 0) {
            out->archived++;
            add_fact(out, key, mem, "archived");
        }
        json_decref(mem);
        if (rc)
            goto out;
    }
    char ts[32];
    snprintf(ts, sizeof(ts), "%lld", (long long)now);
    if ((rc = mn_store_config_set(s, MN_DISCOVER_KEY_ROOT, root)) != 0 ||
        (rc = mn_store_config_set(s, MN_DISCOVER_KEY_LAST_RUN, ts)) != 0 ||
        (rc = mn_store_config_set(s, MN_DISCOVER_KEY_FINGERPRINT, fp)) != 0)
        goto out;
    rc = mn_store_commit(s);
    in_tx = false;
out:
    if (in_tx)
        mn_store_rollback(s);
    free(used);
    mn_map_release(&by_key);
    json_decref(existing);
    json_decref(found);
    out->seconds = (double)(mn_time_mono_ns() - t0) / 1e9;
    return rc;
}

/* ---- when to run ---- */

int mn_discover_due(mn_store *s, const char *root, int64_t max_age_ms, bool *out, const char **why)
{
    char *last = NULL, *old_root = NULL, *old_fp = NULL, fp[17];
    int64_t n = 0, last_ms = 0;
    int rc;
    *out = false;
    *why = NULL;
    rc = mn_store_config_get(s, &last, MN_DISCOVER_KEY_LAST_RUN);
    if (rc == MN_ENOTFOUND) {
        mn_error_clear();
        *out = true, *why = "first run";
        return 0;
    }
    if (rc)
        return rc;
    last_ms = strtoll(last, NULL, 10);
    free(last);
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.source = "discovery";
    f.include_deleted = true;
    if ((rc = mn_store_memory_count(s, &f, &n)) != 0)
        return rc;
    if (n == 0) {
        *out = true, *why = "no discovery facts";
        return 0;
    }
    rc = mn_store_config_get(s, &old_root, MN_DISCOVER_KEY_ROOT);
    if (rc && rc != MN_ENOTFOUND)
        return rc;
    mn_error_clear();
    bool moved = !old_root || strcmp(old_root, root) != 0;
    free(old_root);
    if (moved) {
        *out = true, *why = "root changed";
        return 0;
    }
    if (max_age_ms > 0 && mn_time_now_ms() - last_ms > max_age_ms) {
        *out = true, *why = "older than max_age";
        return 0;
    }
    if ((rc = fingerprint(s, fp)) != 0)
        return rc;
    rc = mn_store_config_get(s, &old_fp, MN_DISCOVER_KEY_FINGERPRINT);
    if (rc && rc != MN_ENOTFOUND)
        return rc;
    mn_error_clear();
    if (!old_fp || strcmp(old_fp, fp) != 0)
        *out = true, *why = "manifests changed";
    free(old_fp);
    return 0;
}
