/*
 * layout.c - how the code is laid out: the packages of a monorepo, the
 * domains (top-level modules), and each domain's main symbols.
 *
 * Packages: a sub-directory holding a manifest of some ecosystem (its
 * `manifests`), inside a declared workspace pattern when there are any, or
 * else outside examples, tests, fixtures and docs; nested packages keep the
 * outermost one; fewer than two undeclared packages are no monorepo. Each
 * package's own manifest is read by its ecosystem's `package` callback
 * (dx_package_details), at most MAX_NESTED_READS of them, and the eight
 * biggest packages' dependencies count as the monorepo's frameworks.
 *
 * Domains: each source file belongs to its first path component, or to the
 * first two when the first is a container by convention (src, lib,
 * packages, apps, cmd, internal, pkg, crates, services...); a domain is
 * then narrowed to the common directory of its files (src/main/java/com/x
 * rather than src/main). A single domain with no files of its own but
 * several sub-directories (a Java or Go layout) is split into those. Top
 * directories holding more test than source lines (or named as tests) are
 * test trees, not domains. A package is its own domain. At most
 * MAX_DOMAINS domains and MAX_PACKAGES packages, biggest first; files keep
 * the index of their domain (dx_file.domain), renumbered as domains are
 * dropped. Symbols: the eight highest-ranked classes, interfaces, structs,
 * enums, traits and functions of each domain, and every main() of a
 * language where main is the entry point, outside examples and tests.
 */
#include "common.h"
#include <fnmatch.h>

#include "index/discover/discover_internal.h"
#include "util/util.h"

#define MAX_DOMAINS      15
#define MAX_PACKAGES     40
#define MAX_NESTED_READS 120 /* nested manifests read for monorepo packages */

/* ---- monorepo packages ---- */

/* The ecosystem one of whose manifests is named b (a base name), or NULL. */
static const dx_ecosystem *manifest_of(const char *b)
{
    size_t bl = strlen(b);
    for (size_t e = 0; e < dx_necosystems; e++) {
        const char *w = dx_ecosystems[e]->manifests;
        while (w && *w) {
            size_t m = strcspn(w, " ");
            bool hit = w[0] == '*' ? bl >= m - 1 && !memcmp(b + bl - (m - 1), w + 1, m - 1)
                                   : bl == m && !memcmp(b, w, m);
            if (hit)
                return dx_ecosystems[e];
            w += m + (w[m] == ' ');
        }
    }
    return NULL;
}

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
        if (dx_in_words(p, n, not_package_dirs))
            return true;
        p += n + (p[n] == '/');
    }
    return false;
}

static bool workspace_match(const dx_ctx *d, const char *dir, bool *declared)
{
    size_t i;
    json_t *w;
    bool yes = false;
    *declared = json_array_size(d->workspaces) > 0;
    json_array_foreach(d->workspaces, i, w)
    {
        const char *g = dx_jstr(w, "glob");
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

void dx_find_packages(dx_ctx *d)
{
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        const char *b = dx_base_name(f->path);
        if (b == f->path || f->role == MN_ROLE_VENDORED || f->role == MN_ROLE_GENERATED)
            continue;
        if (!manifest_of(b))
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
        json_array_foreach(d->packages, k, p) if (!strcmp(dx_jstr(p, "dir"), dir)) dup = true;
        if (!dup)
            json_array_append_new(d->packages, json_pack("{s:s,s:s,s:b}", "dir", dir, "manifest",
                                                         f->path, "declared", in_ws));
        free(dir);
    }
    /* keep the outermost package of nested ones */
    for (size_t i = 0; i < json_array_size(d->packages);) {
        const char *a = dx_jstr(json_array_get(d->packages, i), "dir");
        bool nested = false;
        for (size_t j = 0; j < json_array_size(d->packages) && !nested; j++) {
            const char *b = dx_jstr(json_array_get(d->packages, j), "dir");
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

void dx_package_details(dx_ctx *d, json_t *pkg)
{
    const char *m = dx_jstr(pkg, "manifest");
    if (d->nested_reads >= MAX_NESTED_READS)
        return;
    d->nested_reads++;
    const dx_ecosystem *e = manifest_of(dx_base_name(m));
    if (e && e->package)
        e->package(d, pkg, m);
}

/* The name and description a package's manifest gives (either may be NULL). */
static void package_named(json_t *pkg, const char *name, const char *desc)
{
    if (name)
        json_object_set_new(pkg, "name", json_string(name));
    if (desc) {
        mn_buf t = MN_BUF_INIT;
        dx_put_oneline(&t, desc, 160);
        json_object_set_new(pkg, "description", json_string(t.ptr));
        mn_buf_release(&t);
    }
}

void dx_package_json(dx_ctx *d, json_t *pkg, const char *m, const char *deps_field, const char *eco)
{
    json_t *v = dx_load(d, m, FMT_JSON, false);
    json_t *scripts = dx_jget(v, "scripts", NULL);
    if (json_object_size(scripts)) {
        json_t *names = json_array();
        const char *k;
        json_t *x;
        json_object_foreach(scripts, k, x) if (json_array_size(names) < 12)
            json_array_append_new(names, json_string(k));
        json_object_set_new(pkg, "scripts", names);
    }
    json_t *deps = dx_jget(v, deps_field, NULL);
    json_object_set_new(pkg, "ndeps", json_integer((json_int_t)json_object_size(deps)));
    const char *k;
    json_t *x;
    mn_buf where = MN_BUF_INIT;
    mn_buf_printf(&where, "%s dependencies", m);
    /* the frameworks of the biggest packages are the monorepo's; not of every fixture */
    if (!dir_excluded(dx_jstr(pkg, "dir")) && d->packages_seen++ < 8)
        json_object_foreach(deps, k, x) dx_see_dep(d, eco, k, strlen(k), where.ptr);
    mn_buf_release(&where);
    package_named(pkg, dx_jstr(v, "name"), dx_jstr(v, "description"));
    json_decref(v);
}

void dx_package_toml(dx_ctx *d, json_t *pkg, const char *m, const char *table, bool deps_in_table)
{
    json_t *v = dx_load(d, m, FMT_TOML, false);
    json_t *p = dx_jget(v, table, NULL);
    const char *name = dx_jstr(p, "name");
    if (!name)
        name = dx_jstr(dx_jget(v, "tool", "poetry", NULL), "name");
    json_t *deps = dx_jget(deps_in_table ? p : v, "dependencies", NULL);
    json_object_set_new(pkg, "ndeps",
                        json_integer((json_int_t)(json_is_array(deps) ? json_array_size(deps)
                                                                      : json_object_size(deps))));
    package_named(pkg, name, dx_jstr(p, "description"));
    json_decref(v);
}

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
    const dx_domain *x = a, *y = b;
    if (x->lines != y->lines)
        return x->lines < y->lines ? 1 : -1;
    return strcmp(x->path, y->path);
}

/* The domain key of a source file, or NULL (caller frees). */
static char *domain_key(const dx_file *f, const mn_map *pkg_dirs, const mn_map *test_trees)
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
    if (dx_in_words(f->path, (size_t)(s1 - f->path), containers) && s2)
        return mn_strndup(f->path, (size_t)(s2 - f->path));
    return mn_strndup(f->path, (size_t)(s1 - f->path));
}

static bool is_package_dir(const dx_ctx *d, const char *dir)
{
    size_t i;
    json_t *p;
    json_array_foreach(d->packages, i, p) if (!strcmp(dx_jstr(p, "dir"), dir)) return true;
    return false;
}

/* Group files into domains by key; narrow each to the common directory of its files. */
static void group_domains(dx_ctx *d, char **keys)
{
    mn_map idx = MN_MAP_INIT;
    MN_VEC(dgroup) g = MN_VEC_INIT;
    size_t *group_of = mn_calloc(d->files.len ? d->files.len : 1, sizeof(size_t));
    for (size_t i = 0; i < d->files.len; i++) {
        if (!keys[i])
            continue;
        uintptr_t k = (uintptr_t)mn_map_get(&idx, keys[i]);
        const dx_file *f = &d->files.items[i];
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
        dx_domain dm = {0};
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

void dx_find_domains(dx_ctx *d)
{
    /* top directories with more test than source lines are test trees */
    mn_map src = MN_MAP_INIT, tst = MN_MAP_INIT, test_trees = MN_MAP_INIT;
    int64_t total = 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        const char *s = strchr(f->path, '/');
        if (!s || !dx_counts_as_code(f))
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
        if (dx_in_words(k, strlen(k), test_dirs) ||
            (uintptr_t)v > 3 * (uintptr_t)mn_map_get(&src, k))
            mn_map_set(&test_trees, k, NULL);
    mn_map pkg_dirs = MN_MAP_INIT;
    for (size_t i = 0; i < json_array_size(d->packages); i++)
        mn_map_set(&pkg_dirs, dx_jstr(json_array_get(d->packages, i), "dir"), NULL);
    char **keys = mn_calloc(d->files.len ? d->files.len : 1, sizeof(char *));
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        if (f->role == MN_ROLE_SOURCE && dx_is_code(f->language)) {
            keys[i] = domain_key(f, &pkg_dirs, &test_trees);
            total += f->lines;
        }
    }
    group_domains(d, keys);
    /* one domain with no files of its own, spread over sub-directories: split it */
    for (size_t k2 = 0; k2 < d->domains.len; k2++) {
        dx_domain *dm = &d->domains.items[k2];
        if (dm->is_package || dm->lines * 10 < total * 8 || !strcmp(dm->path, "."))
            continue;
        size_t n = strlen(dm->path), subs = 0, direct = 0;
        mn_map seen = MN_MAP_INIT;
        for (size_t i = 0; i < d->files.len; i++) {
            const dx_file *f = &d->files.items[i];
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
        qsort(d->domains.items, d->domains.len, sizeof(dx_domain), by_lines_desc);
    size_t kept = 0, pk = 0;
    for (size_t i = 0; i < d->domains.len; i++) {
        dx_domain *dm = &d->domains.items[i];
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
        dx_domain *dm = &d->domains.items[i];
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

int dx_on_symbol(void *payload, const mn_symbol_row *y)
{
    dx_ctx *d = payload;
    const dx_file *f = dx_file_get(d, y->path);
    if (!f || f->role != MN_ROLE_SOURCE)
        return 0;
    bool fn = !strcmp(y->kind, "function") || !strcmp(y->kind, "method");
    if (fn && (!strcmp(y->name, "main") || !strcmp(y->name, "Main")) && f->language &&
        dx_in_words(f->language, strlen(f->language),
                    "c cpp objc go rust java kotlin scala csharp swift zig dart") &&
        !dir_excluded(y->path) && json_array_size(d->mains) < 64)
        dx_add_unique(d->mains, y->path);
    if (f->domain < 0 || y->name[0] == '_' || !strncmp(y->name, "test", 4))
        return 0;
    static const char kinds[] = "class interface struct enum trait function";
    if (!dx_in_words(y->kind, strlen(y->kind), kinds))
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
