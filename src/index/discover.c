/*
 * discover.c - discovery: the project overview as L0/L1 fact memories.
 *
 * How it works. One pass over the index (mn_store_files_each: path,
 * language, role, lines, rank) gives the file table; then each ecosystem of
 * the table `dx_ecosystems` below scans its manifests and config files
 * (read bounded and safe, src/index/discover/read.c) and records evidence
 * in the context; the layout (monorepo packages, domains, their main
 * symbols) follows, and the evidence is written as findings, one per key.
 * The parts, in src/index/discover/ (discover_internal.h says what they
 * share):
 *   context.c   helpers, the file table, recording evidence
 *   read.c      reading files: bounds, probes, JSON/TOML/INI/YAML, text scans
 *   languages.c the language shares and the ranking of ecosystems by them
 *   layout.c    monorepo packages, domains, main symbols
 *   facts.c     the findings, from the evidence
 *   python.c node.c go.c rust.c jvm.c ruby.c php.c dotnet.c native.c
 *               the language ecosystems, one dx_ecosystem each
 *   tasks.c containers.c conventions.c ci.c docs.c
 *               the tools any project may use, one dx_ecosystem each
 *   other.c     ecosystems known only by their manifest (monorepo packages)
 * A manifest that cannot be read is skipped and counted in stats.broken,
 * never an error.
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
 * The order of the scans: the language ecosystems first, by their
 * language's share of the code (the main language's first, so it names the
 * project; ties in table order), then the others in table order. Domains
 * and packages: see layout.c.
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
 * files and of entry files (each ecosystem's entry_files: __main__.py,
 * main.go, main.rs...), the top
 * directories holding source files and the set of languages. So adding a dependency to
 * pyproject.toml refreshes the facts at the next `mnemo index`, while editing code does not.
 *
 * Cost: one scan of the files table, one of the symbols table (for the
 * domains' main symbols), at most a few hundred small file reads, and one
 * listing of the discovery memories; no per-file disk access.
 *
 * Decisions, and why:
 *  - Ecosystems are records of one table, each in its own file (as the
 *    clients of agent/setup.c are): what an ecosystem reads, its
 *    well-known dependencies, its monorepo manifests and its entry files
 *    live together, and adding one is a file and a line in the table
 *    (docs/internals/index.md, "Adding an ecosystem").
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
#include <xxhash.h>

#include "index/classify.h"
#include "index/discover.h"
#include "index/discover/discover_internal.h"
#include "memory/scrub.h"
#include "store/store_index.h"
#include "util/map.h"
#include "util/util.h"

#define CONFIDENCE 0.8

/*
 * The ecosystems (src/index/discover/<name>.c), the one list discovery
 * knows. The languages' scans run by the share of their language, ties in
 * this order; the others (no `lang`) run after them in this order, which
 * decides whose evidence comes first where two record the same thing.
 */
const dx_ecosystem *const dx_ecosystems[] = {
    &dx_python,      /* python.c: pyproject.toml, setup.py/cfg, requirements, Pipfile, tox, nox */
    &dx_node,        /* node.c: package.json, lock files, Deno, workspaces, ESLint/Prettier */
    &dx_go,          /* go.c: go.mod, go.work, main packages */
    &dx_rust,        /* rust.c: Cargo.toml, toolchain, rustfmt, Clippy */
    &dx_jvm,         /* jvm.c: Maven pom.xml, Gradle build and settings scripts */
    &dx_ruby,        /* ruby.c: gemspec, Gemfile, Rails, RSpec, RuboCop */
    &dx_php,         /* php.c: composer.json, PHPUnit, Laravel, PHP linters */
    &dx_dotnet,      /* dotnet.c: *.sln, *.csproj, *.fsproj, *.vbproj */
    &dx_native,      /* native.c: CMake, Meson, autotools, Bazel, vcpkg, Conan */
    &dx_tasks,       /* tasks.c: Makefile, justfile, Taskfile */
    &dx_containers,  /* containers.c: Dockerfile, Compose, Procfile */
    &dx_conventions, /* conventions.c: pre-commit, EditorConfig, commit and shell linters */
    &dx_ci,          /* ci.c: GitHub Actions and other CI systems */
    &dx_docs,        /* docs.c: Sphinx, MkDocs, Docusaurus... and docs/ */
    &dx_elixir,      /* other.c: mix.exs (monorepo packages only) */
    &dx_dart,        /* other.c: pubspec.yaml (monorepo packages only) */
    &dx_swift,       /* other.c: Package.swift (monorepo packages only) */
};
const size_t dx_necosystems = MN_ARRAY_SIZE(dx_ecosystems);

/* ---- collecting ---- */

static void ctx_release(dx_ctx *d)
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

static int by_scanner_rank(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

int mn_discover_collect(json_t **out, mn_store *s, const char *root, mn_discover_stats *stats)
{
    mn_discover_stats local;
    dx_ctx d;
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
    rc = mn_store_files_each(s, NULL, dx_on_file, &d);
    if (rc) {
        mn_store_rollback(s);
        goto out;
    }
    d.langshare = dx_language_table(&d, NULL, dx_counts_as_code);

    /* the ecosystems, the main language's first (it names the project), then the tools */
    int(*order)[2] = mn_malloc(dx_necosystems * sizeof(*order));
    for (size_t i = 0; i < dx_necosystems; i++) {
        const char *lang = dx_ecosystems[i]->lang;
        order[i][0] = lang ? (int)dx_lang_rank(&d, lang) : INT_MAX;
        order[i][1] = (int)i;
    }
    qsort(order, dx_necosystems, sizeof(order[0]), by_scanner_rank);
    for (size_t i = 0; i < dx_necosystems; i++) {
        const dx_ecosystem *e = dx_ecosystems[order[i][1]];
        d.cur_lang = e->lang;
        if (e->scan)
            e->scan(&d);
    }
    free(order);
    d.cur_lang = NULL;
    dx_find_packages(&d);
    dx_find_domains(&d);
    for (size_t i = 0; i < d.domains.len; i++) {
        d.domains.items[i].symbols = json_array();
        for (size_t k = 0; k < json_array_size(d.packages); k++) {
            json_t *p = json_array_get(d.packages, k);
            if (!strcmp(dx_jstr(p, "dir"), d.domains.items[i].path))
                dx_package_details(&d, p);
        }
    }
    if (d.domains.len || json_array_size(d.langshare))
        rc = mn_store_symbols_each(s, NULL, dx_on_symbol, &d);
    if (rc) {
        mn_store_rollback(s);
        goto out;
    }
    if ((rc = mn_store_commit(s)) != 0)
        goto out;

    dx_emit_all(&d);
    *out = json_incref(d.findings);
out:
    ctx_release(&d);
    return rc;
}

/* ---- the fingerprint of what discovery reads ---- */

typedef struct {
    XXH3_state_t *h;
    mn_map tops, langs;
} fp_state;

/* Is b (a base name) an entry file of some ecosystem (__main__.py, main.go...)? */
static bool entry_file(const char *b)
{
    for (size_t e = 0; e < dx_necosystems; e++)
        if (dx_ecosystems[e]->entry_files &&
            dx_in_words(b, strlen(b), dx_ecosystems[e]->entry_files))
            return true;
    return false;
}

static int fp_file(void *payload, const mn_file_rec *f)
{
    fp_state *st = payload;
    mn_file_role role;
    if (mn_role_parse(&role, f->role) != 0) {
        mn_error_clear();
        return 0;
    }
    if ((role == MN_ROLE_BUILD || role == MN_ROLE_CONFIG) && dx_depth_of(f->path) <= 3) {
        XXH3_64bits_update(st->h, f->path, strlen(f->path) + 1);
        XXH3_64bits_update(st->h, f->hash, strlen(f->hash) + 1);
    } else if (role == MN_ROLE_LOCK && dx_depth_of(f->path) <= 3) {
        XXH3_64bits_update(st->h, f->path, strlen(f->path) + 1);
    } else if ((role == MN_ROLE_SOURCE || role == MN_ROLE_TEST) && dx_is_code(f->language)) {
        const char *s = strchr(f->path, '/'), *b = dx_base_name(f->path);
        /* files whose presence is an entry point */
        if (entry_file(b))
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
    json_array_foreach(dx_jget(mem, "scope", "tags", NULL), i, t)
    {
        const char *s = json_string_value(t);
        if (s && dx_starts(s, "discovery:"))
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
    dx_add_unique(tags, "discovery");
    dx_add_unique(tags, tag);
    if (!json_object_size(ctx))
        json_object_del(mem, "context");
    group(mem, "provenance");
    json_object_set_new(json_object_get(mem, "provenance"), "source", json_string("discovery"));
}

static void add_fact(mn_discover_stats *st, const char *key, const json_t *mem, const char *action)
{
    json_array_append_new(st->facts, json_pack("{s:s,s:s,s:s,s:s,s:s}", "key", key, "id",
                                               dx_jstr(mem, "id"), "title", dx_jstr(mem, "title"),
                                               "level", dx_jstr(mem, "level"), "action", action));
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
        const char *key = dx_jstr(fd, "key");
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
        if (!strcmp(dx_jstr(mem, "status"), "archived"))
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
                rc = mn_store_memory_set_deleted(s, dx_jstr(mem, "id"), 0);
            if (rc == 0)
                rc = audit(s, cfg, dx_jstr(mem, "id"), key, "updated");
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
            !strcmp(dx_jstr(m, "status"), "archived"))
            continue;
        json_t *mem = json_deep_copy(m);
        json_object_set_new(mem, "status", json_string("archived"));
        set_time_field(mem, "updated_at", now);
        rc = mn_store_memory_replace(s, mem);
        if (rc == 0)
            rc = audit(s, cfg, dx_jstr(mem, "id"), key, "archived");
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
