/*
 * resolve.c - imports to files, calls and base classes to symbols.
 *
 * Import candidates per language (mn_resolve_import_candidates) are exact
 * repository paths, or suffixes written "*" then "/suffix" (shown as
 * <any>/suffix below): any file whose path ends with the suffix; the
 * shortest such path wins, then the one sharing the longest directory
 * prefix with the importer. Examples:
 *   python  "..utils" in pkg/sub/m.py -> pkg/utils.py, pkg/utils/__init__.py,
 *                                        pkg/utils.pyi, pkg/__init__.py
 *           "requests.adapters"       -> <any>/requests/adapters.py, .../__init__.py
 *                                        (<any> must not be a package: see find_python)
 *   js/ts   "./lib/x" in src/a.ts     -> src/lib/x, src/lib/x.ts, ..., src/lib/x/index.ts
 *   c/cpp   "util.h" (quoted) in src/a.c -> src/util.h, <any>/util.h; <x.h> -> <any>/x.h
 *   go      "example.com/m/pkg/x"     -> a directory ending in pkg/x: its first
 *                                        non-test .go file
 *   rust    "crate::a::b" in src/x.rs -> src/a/b.rs, src/a/b/mod.rs, src/a.rs, src/a/mod.rs
 *   java    "a.b.C"                   -> <any>/a/b/C.java
 *   ruby    require_relative "x"      -> dir/x.rb; require "x" -> <any>/x.rb
 *   php     "A\\B\\C"                 -> <any>/A/B/C.php
 *   bash    source "./x.sh"           -> dir/x.sh
 * Calls use the last part of a dotted name ("obj.save" -> "save") and
 * resolve when the name has one definition in the repository, else one in
 * the calling file, else one among the files the calling file imports (for
 * C and C++, definitions outside headers before prototypes in them). A
 * call through a receiver whose type the file tells ("self:App.save",
 * "app:flask.Flask.run": parse.c and receivers.c), or through a
 * capitalized qualifier naming a class ("Foo.create", "Foo::new"),
 * resolves among the methods of that class, else of its bases (by the
 * names its inherit edges write, nearest level first), by the same three
 * rules; a type that is no class of the repository, or whose classes
 * define no such method, leaves the call unresolved rather than taking
 * another class's method of that name.
 *
 * What a receiver-typed call resolves to also depends on the classes its
 * candidates belong to and on the inherit edges on its way. A method that
 * moves to another class changes a qualified name, and index.c then
 * resolves its name again; but an incremental run that changes only a
 * class's bases re-resolves the calls of that class's own file, not those
 * through it elsewhere (until a name they use changes, or --full).
 */
#include "common.h"

#include "index/resolve.h"
#include "store/store_index.h"
#include "util/arena.h"
#include "util/map.h"
#include "util/vec.h"

typedef struct {
    int64_t id;
    char *path;
    char *language;
} file_ent;

typedef struct {
    int64_t id, file_id;
    const char *owner; /* the last part of the qualified name's scope: "App" of
                          "pkg.App.run"; NULL at the top level (arena) */
    bool classlike;    /* class, struct, interface, trait, enum */
    bool method;       /* kind method */
} sym_ent;

typedef MN_VEC(size_t) idx_vec;
typedef MN_VEC(sym_ent) sym_vec;
typedef MN_VEC(int64_t) id_vec;
typedef MN_VEC(const char *) base_vec;

typedef struct {
    int64_t id, src_file, dst_id;
    int64_t src_symbol; /* the calling symbol, 0 for the file itself */
    bool call;
    const char *name;
} name_edge;

typedef struct {
    MN_VEC(file_ent) files;
    mn_map by_path;      /* path -> index + 1 */
    mn_map by_base;      /* basename -> idx_vec* */
    mn_map by_id;        /* "%lld" id -> index + 1 */
    mn_map dirs_go;      /* directory -> index + 1 of its first non-test .go file */
    mn_map symbols;      /* name -> sym_vec*: every symbol, or those of the names wanted */
    mn_map imports;      /* "%lld" src file -> id_vec* of the files it imports, sorted */
    bool all_imports;    /* imports holds every file's; else filled file by file */
    mn_map import_names; /* "%lld\x1fname": the last part of each module a file imports */
    mn_store *store;
    MN_VEC(int64_t) edge_ids; /* changes to write: edge -> new target (0: none) */
    MN_VEC(int64_t) edge_dst;
    /* calls and inherits to resolve (again), after the imports */
    MN_VEC(name_edge) names;
    bool all_symbols;       /* symbols holds every symbol; else filled name by name */
    mn_map bases;           /* "%lld" class symbol id -> base_vec* (names of its bases) */
    mn_map bases_read;      /* "%lld" files whose inherit edges bases holds */
    mn_map seen;            /* "%lld" edge ids met this run */
    mn_map imports_changed; /* "%lld" files whose resolved imports changed */
    mn_arena arena;         /* names of queued edges */
} resolver;

static int symbols_named(resolver *r, const char *name, sym_vec **out);

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int add_file(void *payload, const mn_file_rec *f)
{
    resolver *r = payload;
    file_ent e = {f->id, mn_strdup(f->path), f->language ? mn_strdup(f->language) : NULL};
    mn_vec_push(&r->files, e);
    size_t ix = r->files.len;
    char key[32];
    mn_map_set(&r->by_path, f->path, (void *)ix);
    snprintf(key, sizeof(key), "%lld", (long long)f->id);
    mn_map_set(&r->by_id, key, (void *)ix);
    idx_vec *v = mn_map_get(&r->by_base, basename_of(f->path));
    if (!v) {
        v = mn_calloc(1, sizeof(*v));
        mn_map_set(&r->by_base, basename_of(f->path), v);
    }
    mn_vec_push(v, ix - 1);
    size_t n = strlen(f->path);
    if (n > 3 && !strcmp(f->path + n - 3, ".go") &&
        (n < 8 || strcmp(f->path + n - 8, "_test.go"))) {
        const char *slash = strrchr(f->path, '/');
        char *dir = mn_strndup(f->path, slash ? (size_t)(slash - f->path) : 0);
        if (!mn_map_has(&r->dirs_go, dir))
            mn_map_set(&r->dirs_go, dir, (void *)ix);
        free(dir);
    }
    return 0;
}

static bool classlike_kind(const char *kind)
{
    static const char *const k[] = {"class", "struct", "interface", "trait", "enum", NULL};
    for (const char *const *p = k; kind && *p; p++)
        if (!strcmp(kind, *p))
            return true;
    return false;
}

/* One symbol row into v: its owner is the part of the qualified name before the name. */
static void push_symbol(resolver *r, sym_vec *v, const mn_symbol_row *y)
{
    sym_ent e = {y->id, y->file_id, NULL, classlike_kind(y->kind),
                 y->kind && !strcmp(y->kind, "method")};
    const char *q = y->qualified_name;
    size_t nl = strlen(y->name), ql = q ? strlen(q) : 0;
    if (ql > nl + 1 && !strcmp(q + ql - nl, y->name) && q[ql - nl - 1] == '.') {
        size_t end = ql - nl - 1, start = end;
        while (start && q[start - 1] != '.')
            start--;
        e.owner = mn_arena_strndup(&r->arena, q + start, end - start);
    }
    mn_vec_push(v, e);
}

static int add_symbol(void *payload, const mn_symbol_row *y)
{
    resolver *r = payload;
    sym_vec *v = mn_map_get(&r->symbols, y->name);
    if (!v) {
        v = mn_calloc(1, sizeof(*v));
        mn_map_set(&r->symbols, y->name, v);
    }
    push_symbol(r, v, y);
    return 0;
}

/* ---- import candidates ---- */

static void push(char **out, size_t max, size_t *n, const char *s)
{
    if (*n < max)
        out[(*n)++] = mn_strdup(s);
}

/* Normalize a '/' path with "." and ".." parts; NULL when it climbs above the root. */
static char *normalize(const char *path)
{
    mn_buf out = MN_BUF_INIT;
    const char *p = path;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* skip */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            char *slash = strrchr(out.ptr, '/');
            if (!out.len) {
                mn_buf_release(&out);
                return NULL;
            }
            mn_buf_truncate(&out, slash ? (size_t)(slash - out.ptr) : 0);
        } else {
            if (out.len)
                mn_buf_putc(&out, '/');
            mn_buf_put(&out, p, n);
        }
        p += n;
        if (*p == '/')
            p++;
    }
    return mn_buf_detach(&out);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return mn_strndup(path, slash ? (size_t)(slash - path) : 0);
}

/* dir + "/" + rel, normalized; NULL when it leaves the repository. */
static char *join(const char *dir, const char *rel)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s%s%s", dir, *dir ? "/" : "", rel);
    char *n = normalize(b.ptr);
    mn_buf_release(&b);
    return n;
}

static void with_exts(char **out, size_t max, size_t *n, const char *base, bool suffix,
                      const char *const *exts)
{
    for (const char *const *e = exts; *e; e++) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%s%s%s", suffix ? "*/" : "", base, *e);
        push(out, max, n, b.ptr);
        mn_buf_release(&b);
    }
}

static bool lang_is(const char *language, const char *a, const char *b)
{
    return language && (!strcmp(language, a) || (b && !strcmp(language, b)));
}

size_t mn_resolve_import_candidates(char **out, size_t max, const char *language,
                                    const char *src_path, const char *target)
{
    static const char *const py[] = {".py", "/__init__.py", ".pyi", NULL};
    static const char *const js[] = {"",          ".ts",        ".tsx", ".d.ts",     ".js",
                                     ".jsx",      ".mjs",       ".cjs", "/index.ts", "/index.tsx",
                                     "/index.js", "/index.jsx", NULL};
    static const char *const none[] = {"", NULL};
    size_t n = 0;
    char *dir = dir_of(src_path);
    mn_buf b = MN_BUF_INIT;

    if (!target || !*target)
        goto out;
    if (lang_is(language, "python", NULL)) {
        size_t dots = strspn(target, ".");
        mn_buf_puts(&b, target + dots);
        for (char *c = b.ptr; *c; c++)
            if (*c == '.')
                *c = '/';
        if (dots) {
            char *base = mn_strdup(dir);
            for (size_t i = 1; i < dots && base; i++) {
                char *up = join(base, "..");
                free(base);
                base = up;
            }
            if (base) {
                char *p = b.len ? join(base, b.ptr) : mn_strdup(base);
                if (p && b.len)
                    with_exts(out, max, &n, p, false, py);
                /* ".name" is `from . import name` (a submodule, else something
                 * the package's __init__.py defines) or `from .name import x`
                 * (a module): a one-part name falls back to the package;
                 * ".a.b" names a module */
                if (p && (!b.len || !strchr(b.ptr, '/'))) {
                    char *init = join(base, "__init__.py");
                    if (init)
                        push(out, max, &n, init);
                    free(init);
                }
                free(p);
            }
            free(base);
        } else {
            with_exts(out, max, &n, b.ptr, true, py);
        }
    } else if (lang_is(language, "javascript", "typescript") || lang_is(language, "tsx", NULL)) {
        if (target[0] == '.') {
            char *p = join(dir, target);
            if (p)
                with_exts(out, max, &n, p, false, js);
            free(p);
        } else if (!strncmp(target, "@/", 2) || !strncmp(target, "~/", 2)) {
            with_exts(out, max, &n, target + 2, true, js); /* common src aliases */
        }
    } else if (lang_is(language, "c", "cpp")) {
        size_t len = strlen(target);
        bool quoted = target[0] == '"';
        if (len > 2 && (quoted || target[0] == '<')) {
            char *inner = mn_strndup(target + 1, len - 2);
            if (quoted) {
                char *p = join(dir, inner);
                if (p)
                    push(out, max, &n, p);
                free(p);
            }
            with_exts(out, max, &n, inner, true, none);
            free(inner);
        } else {
            with_exts(out, max, &n, target, true, none);
        }
    } else if (lang_is(language, "go", NULL)) {
        /* a package is a directory: "*dir:" asks for a directory suffix */
        const char *p = target;
        while (p) {
            mn_buf_clear(&b);
            mn_buf_printf(&b, "*dir:%s", p);
            push(out, max, &n, b.ptr);
            p = strchr(p, '/');
            if (p)
                p++;
        }
    } else if (lang_is(language, "rust", NULL)) {
        const char *t = target;
        char *base = NULL;
        if (!strncmp(t, "crate::", 7)) {
            /* the crate root: the nearest enclosing "src" directory */
            const char *src = strstr(src_path, "src/");
            base = src ? mn_strndup(src_path, (size_t)(src - src_path) + 3) : mn_strdup("src");
            t += 7;
        } else if (!strncmp(t, "super::", 7)) {
            base = join(dir, "..");
            t += 7;
        } else if (!strncmp(t, "self::", 6)) {
            base = mn_strdup(dir);
            t += 6;
        } else if (!strstr(t, "::")) {
            base = mn_strdup(dir); /* `mod x;` */
        }
        if (base) {
            mn_buf_puts(&b, t);
            for (int pass = 0; pass < 2 && b.len; pass++) {
                mn_buf path = MN_BUF_INIT;
                for (const char *c = b.ptr; *c; c++) {
                    if (c[0] == ':' && c[1] == ':') {
                        mn_buf_putc(&path, '/');
                        c++;
                    } else {
                        mn_buf_putc(&path, *c);
                    }
                }
                char *p = join(base, path.ptr);
                if (p)
                    with_exts(out, max, &n, p, false,
                              (const char *const[]){".rs", "/mod.rs", NULL});
                free(p);
                mn_buf_release(&path);
                /* the last part may be an item (use crate::a::Thing): try its module */
                char *last = strstr(b.ptr, "::") ? strrchr(b.ptr, ':') - 1 : NULL;
                if (!last)
                    break;
                mn_buf_truncate(&b, (size_t)(last - b.ptr));
            }
            free(base);
        }
    } else if (lang_is(language, "java", NULL)) {
        mn_buf_puts(&b, target);
        for (char *c = b.ptr; *c; c++)
            if (*c == '.')
                *c = '/';
        with_exts(out, max, &n, b.ptr, true, (const char *const[]){".java", NULL});
    } else if (lang_is(language, "ruby", NULL)) {
        if (target[0] == '.') {
            char *p = join(dir, target);
            if (p)
                with_exts(out, max, &n, p, false, (const char *const[]){".rb", "", NULL});
            free(p);
        } else {
            with_exts(out, max, &n, target, true, (const char *const[]){".rb", "", NULL});
        }
    } else if (lang_is(language, "php", NULL)) {
        mn_buf_puts(&b, target[0] == '\\' ? target + 1 : target);
        for (char *c = b.ptr; *c; c++)
            if (*c == '\\')
                *c = '/';
        if (strstr(b.ptr, ".php")) {
            char *p = join(dir, b.ptr);
            if (p)
                push(out, max, &n, p);
            free(p);
            with_exts(out, max, &n, b.ptr, true, none);
        } else {
            with_exts(out, max, &n, b.ptr, true, (const char *const[]){".php", NULL});
        }
    } else if (lang_is(language, "bash", NULL)) {
        char *p = join(dir, target);
        if (p)
            push(out, max, &n, p);
        free(p);
    }
out:
    mn_buf_release(&b);
    free(dir);
    return n;
}

/* Length of the common directory prefix of two paths. */
static size_t common_prefix(const char *a, const char *b)
{
    size_t n = 0, last = 0;
    while (a[n] && a[n] == b[n]) {
        if (a[n] == '/')
            last = n + 1;
        n++;
    }
    return last;
}

static bool ends_with_path(const char *path, const char *suffix)
{
    size_t p = strlen(path), s = strlen(suffix);
    return p == s ? !strcmp(path, suffix)
                  : p > s && path[p - s - 1] == '/' && !strcmp(path + p - s, suffix);
}

/* The file a candidate names, or -1. */
static ssize_t find_file(resolver *r, const char *cand, const char *importer)
{
    if (strncmp(cand, "*dir:", 5) == 0) {
        /* the go package whose directory path ends with the suffix */
        size_t pos = 0;
        const char *dir;
        void *v;
        ssize_t best = -1;
        size_t best_len = SIZE_MAX;
        while (mn_map_next(&r->dirs_go, &pos, &dir, &v)) {
            if (ends_with_path(dir, cand + 5) && strlen(dir) < best_len) {
                best = (ssize_t)(size_t)v - 1;
                best_len = strlen(dir);
            }
        }
        return best;
    }
    if (strncmp(cand, "*/", 2) != 0) {
        size_t ix = (size_t)mn_map_get(&r->by_path, cand);
        return ix ? (ssize_t)ix - 1 : -1;
    }
    const char *suffix = cand + 2;
    idx_vec *v = mn_map_get(&r->by_base, basename_of(suffix));
    ssize_t best = -1;
    for (size_t i = 0; v && i < v->len; i++) {
        const file_ent *f = &r->files.items[v->items[i]];
        if (!ends_with_path(f->path, suffix))
            continue;
        if (best < 0) {
            best = (ssize_t)v->items[i];
            continue;
        }
        const file_ent *b = &r->files.items[best];
        size_t fl = strlen(f->path), bl = strlen(b->path);
        if (fl < bl ||
            (fl == bl && common_prefix(f->path, importer) > common_prefix(b->path, importer)))
            best = (ssize_t)v->items[i];
    }
    return best;
}

static const file_ent *file_by_id(resolver *r, int64_t id)
{
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)id);
    size_t ix = (size_t)mn_map_get(&r->by_id, key);
    return ix ? &r->files.items[ix - 1] : NULL;
}

typedef struct {
    resolver *r;
    mn_resolve_stats *stats;
} walk_ctx;

/* Record an edge's target when it differs from what is stored. */
static void found(resolver *r, int64_t edge, int64_t old_dst, int64_t dst)
{
    if (dst == old_dst)
        return;
    mn_vec_push(&r->edge_ids, edge);
    mn_vec_push(&r->edge_dst, dst);
}

static bool has_init(resolver *r, const char *dir, size_t len)
{
    char key[4096];
    if ((size_t)snprintf(key, sizeof(key), "%.*s/__init__.py", (int)len, dir) >= sizeof(key))
        return false;
    return mn_map_has(&r->by_path, key);
}

/*
 * Python's absolute imports name a module from a sys.path entry, so a file
 * matching the suffix counts only where the directory above the match is
 * such a root: not itself a package (no __init__.py), or the top. Without
 * this `import pathlib` resolved to src/_pytest/pathlib.py (which is
 * _pytest.pathlib) and `import flask` to a test fixture's
 * tests/.../inner2/flask.py (tests.....inner2.flask). Among the roots that
 * hold the module, the importer's own base directory wins (the nearest
 * directory above it that is not a package: where a script or pytest puts
 * it on sys.path), then the shortest root (the repository's src/ or top
 * before nested copies), then the one sharing most of the importer's path;
 * in one directory a package (x/__init__.py) before a module (x.py), as
 * Python's finder does. Candidates that are exact paths (relative imports)
 * keep their order.
 */
static ssize_t find_python(resolver *r, char *const *cands, size_t n, const file_ent *src)
{
    const char *importer = src->path;
    size_t base = 0; /* length of the importer's base directory */
    const char *slash = strrchr(importer, '/');
    if (slash) {
        base = (size_t)(slash - importer);
        while (base && has_init(r, importer, base)) {
            size_t up = base;
            while (up && importer[up - 1] != '/')
                up--;
            base = up ? up - 1 : 0;
        }
    }
    ssize_t best = -1;
    size_t best_root = 0, best_common = 0;
    bool best_base = false, best_pkg = false;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(cands[i], "*/", 2) != 0) {
            if (best >= 0)
                break;
            ssize_t f = find_file(r, cands[i], importer);
            if (f >= 0 && r->files.items[f].id != src->id)
                return f;
            continue;
        }
        const char *suffix = cands[i] + 2;
        size_t slen = strlen(suffix);
        bool pkg = slen >= 12 && !strcmp(suffix + slen - 12, "/__init__.py");
        idx_vec *v = mn_map_get(&r->by_base, basename_of(suffix));
        for (size_t k = 0; v && k < v->len; k++) {
            const file_ent *f = &r->files.items[v->items[k]];
            if (f->id == src->id || !ends_with_path(f->path, suffix))
                continue;
            size_t plen = strlen(f->path);
            size_t root = plen > slen ? plen - slen - 1 : 0; /* the root directory's length */
            if (root && has_init(r, f->path, root))
                continue;
            bool at_base = root == base && !strncmp(f->path, importer, root);
            size_t common = common_prefix(f->path, importer);
            bool better;
            if (best < 0)
                better = true;
            else if (at_base != best_base)
                better = at_base;
            else if (root != best_root)
                better = root < best_root;
            else if (pkg != best_pkg)
                better = pkg;
            else
                better = common > best_common;
            if (better) {
                best = (ssize_t)v->items[k];
                best_root = root;
                best_common = common;
                best_base = at_base;
                best_pkg = pkg;
            }
        }
    }
    return best;
}

static int resolve_import(walk_ctx *w, const mn_edge_rec *e)
{
    const file_ent *src = file_by_id(w->r, e->src_file);
    char *cands[32];
    int64_t dst = 0;
    w->stats->imports++;
    if (src) {
        size_t n = mn_resolve_import_candidates(cands, 32, src->language, src->path, e->name);
        bool python = lang_is(src->language, "python", NULL);
        for (size_t i = 0; i < (python ? 1 : n); i++) {
            ssize_t f =
                python ? find_python(w->r, cands, n, src) : find_file(w->r, cands[i], src->path);
            if (f >= 0 && w->r->files.items[f].id != src->id) {
                dst = w->r->files.items[f].id;
                w->stats->imports_resolved++;
                break;
            }
        }
        for (size_t i = 0; i < n; i++)
            free(cands[i]);
    }
    if (dst != e->dst_id) {
        char key[32];
        snprintf(key, sizeof(key), "%lld", (long long)e->src_file);
        mn_map_set(&w->r->imports_changed, key, (void *)1);
    }
    found(w->r, e->id, e->dst_id, dst);
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static bool has_id(const id_vec *v, int64_t id)
{
    return v && bsearch(&id, v->items, v->len, sizeof(int64_t), cmp_id) != NULL;
}

static int add_import_pair(void *payload, const mn_edge_rec *e)
{
    resolver *r = payload;
    if (strcmp(e->kind, "import") != 0)
        return 0;
    char key[160];
    /* the module's last part, resolved or not ("flask", "os.path" -> "path") */
    const char *last = e->name;
    for (const char *p = e->name; *p; p++)
        if (*p == '.' || *p == '/' || *p == ':' || *p == '\\')
            last = p + 1;
    if (*last && strlen(last) < 120) {
        snprintf(key, sizeof(key), "%lld\x1f%s", (long long)e->src_file, last);
        mn_map_set(&r->import_names, key, (void *)1);
    }
    if (!e->dst_id)
        return 0;
    snprintf(key, sizeof(key), "%lld", (long long)e->src_file);
    id_vec *v = mn_map_get(&r->imports, key);
    if (!v) {
        v = mn_calloc(1, sizeof(*v));
        mn_map_set(&r->imports, key, v);
    }
    mn_vec_push(v, e->dst_id);
    return 0;
}

/* The files a file imports (as stored, after this run's imports were written). */
static int imports_of(resolver *r, int64_t file, const id_vec **out)
{
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)file);
    id_vec *v = mn_map_get(&r->imports, key);
    int rc = 0;
    if (!v && !r->all_imports) {
        mn_edge_query q = MN_EDGE_QUERY_INIT;
        q.file_imports = file;
        if ((rc = mn_store_edges_each(r->store, &q, add_import_pair, r)) != 0)
            return rc;
        if (!(v = mn_map_get(&r->imports, key))) { /* none: remember that too */
            v = mn_calloc(1, sizeof(*v));
            mn_map_set(&r->imports, key, v);
        }
        qsort(v->items, v->len, sizeof(int64_t), cmp_id);
    }
    *out = v;
    return rc;
}

static bool is_header(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
                   !strcmp(dot, ".hxx") || !strcmp(dot, ".h++"));
}

/*
 * One target among candidates, or 0: the only one; else the only one in the
 * calling file; else, when none is there, the only one among the files the
 * caller imports. For a C or C++ caller with no candidate in its own
 * file, candidates in headers are set aside when one outside a header
 * exists: a function declared in foo.h and defined in foo.c is two
 * symbols, and the import rule picked the prototype (curl: 453 of 476
 * wrong targets).
 */
static int choose(walk_ctx *w, const name_edge *e, const sym_ent *c, size_t n, int64_t *pick)
{
    *pick = 0;
    const file_ent *src = file_by_id(w->r, e->src_file);
    bool headers_aside = false;
    size_t here = 0;
    for (size_t i = 0; i < n; i++)
        here += c[i].file_id == e->src_file;
    /* the calling file's own first: a header-only library (cpp-httplib) calls into itself */
    if (n > 1 && !here && src && lang_is(src->language, "c", "cpp")) {
        for (size_t i = 0; i < n && !headers_aside; i++) {
            const file_ent *f = file_by_id(w->r, c[i].file_id);
            headers_aside = f && !is_header(f->path);
        }
    }
    size_t all = 0, same = 0, imported = 0;
    int64_t all_id = 0, same_id = 0, imported_id = 0;
    for (size_t i = 0; i < n; i++) {
        if (headers_aside) {
            const file_ent *f = file_by_id(w->r, c[i].file_id);
            if (!f || is_header(f->path))
                continue;
        }
        all++;
        all_id = c[i].id;
        if (c[i].file_id == e->src_file) {
            same++;
            same_id = c[i].id;
        }
    }
    if (all == 1) {
        *pick = all_id;
        return 0;
    }
    if (same) {
        *pick = same == 1 ? same_id : 0;
        return 0;
    }
    const id_vec *files = NULL;
    int rc = imports_of(w->r, e->src_file, &files);
    for (size_t i = 0; rc == 0 && files && i < n && imported < 2; i++) {
        if (headers_aside) {
            const file_ent *f = file_by_id(w->r, c[i].file_id);
            if (!f || is_header(f->path))
                continue;
        }
        if (has_id(files, c[i].file_id)) {
            imported++;
            imported_id = c[i].id;
        }
    }
    *pick = rc == 0 && imported == 1 ? imported_id : 0;
    return rc;
}

static bool ident_char(unsigned char ch)
{
    return ch >= 0x80 || (ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'z') ||
           ch == '_' || ch == '$';
}

/*
 * The class a call names its method through, or false: "recv:Type.m" (the
 * receiver's type, from parse.c and receivers.c: "self:App.run",
 * "app:flask.Flask.run") gives Type's last part; so does a capitalized
 * qualifier written before the name ("Foo.new", "Foo::create",
 * "pkg.Foo.make"), a call through a class (*typed false then: such a
 * qualifier may be a module or namespace rather than a class).
 */
static bool class_of_call(const char *name, const char **cls, size_t *len, bool *typed)
{
    const char *key = mn_store_ref_key(name);
    const char *colon = strchr(name, ':');
    *typed = false;
    if (key == name)
        return false;
    const char *end = key - 1; /* the separator before the key */
    if (end > name && end[0] == ':' && end[-1] == ':')
        end--;
    if (colon && colon > name && colon[1] != ':' && colon < end) {
        for (const char *p = name; p < colon; p++)
            if (!ident_char((unsigned char)*p))
                return false;
        *typed = true;
    }
    const char *start = end;
    while (start > name && ident_char((unsigned char)start[-1]))
        start--;
    if (start == end)
        return false;
    if (!*typed && !(*start >= 'A' && *start <= 'Z'))
        return false;
    if (!*typed && start > name && start[-1] != '.' && start[-1] != ':')
        return false;
    *cls = start;
    *len = (size_t)(end - start);
    return true;
}

static int add_base(void *payload, const mn_edge_rec *e)
{
    resolver *r = payload;
    if (strcmp(e->kind, "inherit") != 0 || strcmp(e->src_kind, "symbol") != 0)
        return 0;
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)e->src_id);
    base_vec *v = mn_map_get(&r->bases, key);
    if (!v) {
        v = mn_calloc(1, sizeof(*v));
        mn_map_set(&r->bases, key, v);
    }
    const char *b = mn_arena_strdup(&r->arena, mn_store_ref_key(e->name));
    mn_vec_push(v, b);
    return 0;
}

/* The names of a class symbol's bases (NULL when none), read a file at a time. */
static int bases_of(resolver *r, const sym_ent *cls, const base_vec **out)
{
    char key[32];
    int rc = 0;
    snprintf(key, sizeof(key), "%lld", (long long)cls->file_id);
    if (!mn_map_has(&r->bases_read, key)) {
        mn_map_set(&r->bases_read, key, (void *)1);
        mn_edge_query q = MN_EDGE_QUERY_INIT;
        q.file = cls->file_id;
        rc = mn_store_edges_each(r->store, &q, add_base, r);
    }
    snprintf(key, sizeof(key), "%lld", (long long)cls->id);
    *out = mn_map_get(&r->bases, key);
    return rc;
}

#define CLASS_LEVELS 6  /* bases followed this many classes up */
#define CLASS_WIDTH  32 /* classes looked at per level, at most */

/*
 * The method a call through class cls resolves to: the candidates (every
 * symbol of the call's name) whose owner is cls; none there, those whose
 * owner is one of cls's bases, then their bases (breadth first, the
 * nearest level that defines the name wins, as in Python's MRO for single
 * inheritance and Java/C++ lookup); then choose() among that level's. The
 * classes are known by name: the class symbols of the name, and the names
 * their inherit edges write. *known: whether the repository defines a
 * class of that name at all; *other: whether it also defines a top-level
 * function or variable of that name.
 */
static int through_class(walk_ctx *w, const name_edge *e, const char *cls, size_t len,
                         const sym_vec *cands, bool *known, bool *other, int64_t *pick)
{
    resolver *r = w->r;
    const char *level[CLASS_WIDTH], *next[CLASS_WIDTH];
    size_t nl = 1, nn;
    mn_map visited = {0};
    sym_vec hits = MN_VEC_INIT;
    int rc = 0;
    *pick = 0;
    *known = *other = false;
    level[0] = mn_arena_strndup(&r->arena, cls, len);
    mn_map_set(&visited, level[0], (void *)1);
    for (int depth = 0; rc == 0 && depth < CLASS_LEVELS && nl; depth++) {
        hits.len = 0;
        for (size_t i = 0; cands && i < cands->len; i++)
            for (size_t k = 0; k < nl && cands->items[i].owner; k++)
                if (!strcmp(cands->items[i].owner, level[k])) {
                    mn_vec_push(&hits, cands->items[i]);
                    break;
                }
        nn = 0;
        for (size_t k = 0; rc == 0 && k < nl; k++) {
            sym_vec *classes = NULL;
            if ((rc = symbols_named(r, level[k], &classes)) != 0)
                break;
            for (size_t j = 0; rc == 0 && classes && j < classes->len; j++) {
                if (!classes->items[j].classlike) {
                    /* a top-level function or variable of that name too (a JS constructor
                     * function, `Foo = make()`); a constructor has its class as owner */
                    if (depth == 0 && !classes->items[j].owner)
                        *other = true;
                    continue;
                }
                if (depth == 0)
                    *known = true;
                const base_vec *bases = NULL;
                rc = bases_of(r, &classes->items[j], &bases);
                for (size_t b = 0; rc == 0 && bases && b < bases->len; b++) {
                    if (nn < CLASS_WIDTH && !mn_map_has(&visited, bases->items[b])) {
                        mn_map_set(&visited, bases->items[b], (void *)1);
                        next[nn++] = bases->items[b];
                    }
                }
            }
        }
        if (rc || hits.len)
            break;
        memcpy(level, next, nn * sizeof(*next));
        nl = nn;
    }
    if (rc == 0 && hits.len)
        rc = choose(w, e, hits.items, hits.len, pick);
    mn_vec_release(&hits);
    mn_map_release(&visited);
    return rc;
}

static bool same_dir(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && !strncmp(a, b, la);
}

/* Whether the directory of path ends with the name q ("internal/status" and "status"). */
static bool dir_named(const char *path, const char *q, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return false;
    const char *start = slash;
    while (start > path && start[-1] != '/')
        start--;
    return (size_t)(slash - start) == n && !strncmp(start, q, n);
}

/*
 * Go: a package is a directory. `F()` is the function F of the caller's own
 * package when exactly one file of its directory defines it; `pkg.F()` the
 * F of an imported package (the import resolves to one file of the
 * package's directory: any file of that directory counts), when exactly
 * one, else the one whose directory is named pkg. Only functions and
 * types (no owner): a method needs its receiver's type. Nothing found:
 * the usual rules (choose()).
 */
static int go_package(walk_ctx *w, const name_edge *e, const file_ent *src, const sym_vec *v,
                      int64_t *pick)
{
    const char *key = mn_store_ref_key(e->name);
    const char *dot = strchr(e->name, '.');
    *pick = 0;
    if (key == e->name) {
        size_t n = 0;
        int64_t id = 0;
        for (size_t i = 0; i < v->len; i++) {
            const file_ent *f = file_by_id(w->r, v->items[i].file_id);
            if (!v->items[i].owner && f && same_dir(f->path, src->path)) {
                n++;
                id = v->items[i].id;
            }
        }
        *pick = n == 1 ? id : 0;
        return 0;
    }
    if (!dot || dot + 1 != key)
        return 0;
    const id_vec *files = NULL;
    int rc = imports_of(w->r, e->src_file, &files);
    size_t n = 0, named = 0;
    int64_t id = 0, named_id = 0;
    for (size_t i = 0; rc == 0 && files && i < v->len; i++) {
        const file_ent *f = file_by_id(w->r, v->items[i].file_id);
        if (v->items[i].owner || !f)
            continue;
        bool imported = false;
        for (size_t k = 0; k < files->len && !imported; k++) {
            const file_ent *g = file_by_id(w->r, files->items[k]);
            imported = g && same_dir(f->path, g->path);
        }
        if (!imported)
            continue;
        n++;
        id = v->items[i].id;
        if (dir_named(f->path, e->name, (size_t)(dot - e->name))) {
            named++;
            named_id = v->items[i].id;
        }
    }
    *pick = n == 1 ? id : named == 1 ? named_id : 0;
    return rc;
}

/*
 * A receiver of unknown type named after a class of the repository: "app"
 * for App, "url_map" for UrlMap ("app.register_blueprint" in a test whose
 * `app` is a pytest fixture). Only where the name alone is ambiguous
 * (several definitions, none chosen): then the method of the class the
 * receiver is named after, or of its bases, if exactly one such. The
 * receiver must be one plain name before the method's ("a.b.m" is not),
 * and no module the file imports (`flask.url_for` is helpers.url_for, not
 * Flask.url_for).
 */
static int through_named_receiver(walk_ctx *w, const name_edge *e, const sym_vec *cands,
                                  int64_t *pick)
{
    const char *key = mn_store_ref_key(e->name);
    const char *dot = strchr(e->name, '.');
    char cls[128];
    size_t n = 0;
    bool up = true, known, other;
    *pick = 0;
    if (!dot || dot + 1 != key || dot == e->name || (size_t)(dot - e->name) >= sizeof(cls))
        return 0;
    for (const char *p = e->name; p < dot; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '_') {
            up = true;
            continue;
        }
        if (!ident_char(ch) || ch == '$' || (p == e->name && ch >= 'A' && ch <= 'Z'))
            return 0;
        cls[n++] = (char)(up && ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
        up = false;
    }
    if (!n)
        return 0;
    /* a module the file imports is no instance (`flask.url_for` is not Flask's) */
    const id_vec *files = NULL;
    char mod[160];
    int rc = imports_of(w->r, e->src_file, &files);
    snprintf(mod, sizeof(mod), "%lld\x1f%.*s", (long long)e->src_file, (int)(dot - e->name),
             e->name);
    if (rc || mn_map_has(&w->r->import_names, mod))
        return rc;
    return through_class(w, e, cls, n, cands, &known, &other, pick);
}

/*
 * The candidates a call can reach as it is written, when some cannot
 * (false: all can; else *out holds those that can). In Python,
 * JavaScript/TypeScript, PHP, Go and Rust a method calls itself only
 * through its receiver (self.m, this.m: typed, so not here), never as a
 * plain `m()`: flask's `dumps(...)` inside the method
 * TaggedJSONSerializer.dumps took that method by "one in the calling
 * file". (Other methods cannot be set aside for a plain name: parse.c
 * writes `f().m()` and an untyped `this.m()` as plain `m`.) And in Python
 * a call through a receiver `x.f()` never reaches a function nested in
 * another (a closure is no attribute: `app.get` took a test's nested view
 * function `get`).
 */
static bool reachable(walk_ctx *w, const name_edge *e, const sym_vec *v, sym_vec *out)
{
    const file_ent *src = file_by_id(w->r, e->src_file);
    if (!e->call || !src ||
        !(lang_is(src->language, "python", "javascript") ||
          lang_is(src->language, "typescript", "tsx") || lang_is(src->language, "php", "go") ||
          lang_is(src->language, "rust", NULL)))
        return false;
    bool plain = mn_store_ref_key(e->name) == e->name;
    bool python = lang_is(src->language, "python", NULL);
    for (size_t i = 0; i < v->len; i++) {
        const sym_ent *c = &v->items[i];
        /* in Python a function with an owner is nested in a function (in a class it is a
         * method); elsewhere the owner may be a namespace or module (TS, Rust) */
        bool nested_fn = python && !c->method && !c->classlike && c->owner;
        if (plain ? c->method && c->id == e->src_symbol : nested_fn)
            continue;
        mn_vec_push(out, *c);
    }
    if (out->len == v->len) {
        out->len = 0;
        return false;
    }
    return true;
}

/*
 * A call or base class to a symbol. A call through a class (class_of_call)
 * resolves only among that class's methods and its bases': when the
 * receiver's type is known but names no class of the repository
 * (std::string, a dependency's class) or the class and its bases define
 * no such method, the call stays unresolved, where the name alone took
 * the repository's only `size` or `read` (C++ 632 of 740 wrong targets,
 * Java 153 of 195). A capitalized qualifier that is no class of the
 * repository counts so too, except in JavaScript and TypeScript, where it
 * is as often a namespace import (`Utils.f`); a qualifier that is both a
 * class and a top-level function or variable (axios's `function
 * AxiosError` beside index.d.ts's `class AxiosError`) is left to the name. Anything else by the
 * name alone (choose()).
 */
static int resolve_name(walk_ctx *w, const name_edge *e)
{
    if (e->call)
        w->stats->calls++;
    else
        w->stats->inherits++;
    sym_vec *v = NULL;
    int64_t pick = 0;
    int rc = symbols_named(w->r, mn_store_ref_key(e->name), &v);
    const char *cls;
    size_t len;
    bool typed, known = false, other = false, done = false;
    if (rc == 0 && e->call && class_of_call(e->name, &cls, &len, &typed)) {
        rc = through_class(w, e, cls, len, v, &known, &other, &pick);
        const file_ent *src = file_by_id(w->r, e->src_file);
        bool js = src && (lang_is(src->language, "javascript", "typescript") ||
                          lang_is(src->language, "tsx", NULL));
        done = typed || (known && !other) || (!known && !js);
        if (!done)
            pick = 0;
    }
    sym_vec kept = MN_VEC_INIT;
    if (rc == 0 && !done && v && v->len > 1 && reachable(w, e, v, &kept))
        v = &kept;
    if (rc == 0 && !done && v && v->len > 1) {
        const file_ent *src = file_by_id(w->r, e->src_file);
        if (src && lang_is(src->language, "go", NULL) && !strchr(e->name, ':'))
            rc = go_package(w, e, src, v, &pick);
        done = pick != 0;
    }
    if (rc == 0 && !done && v)
        rc = choose(w, e, v->items, v->len, &pick);
    if (rc == 0 && !done && !pick && e->call && v && v->len > 1)
        rc = through_named_receiver(w, e, v, &pick);
    mn_vec_release(&kept);
    if (rc)
        return rc;
    if (pick) {
        if (e->call)
            w->stats->calls_resolved++;
        else
            w->stats->inherits_resolved++;
    }
    found(w->r, e->id, e->dst_id, pick);
    return 0;
}

/* Whether an edge was met already this run (each is looked at once). */
static bool seen(resolver *r, int64_t id)
{
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)id);
    if (mn_map_has(&r->seen, key))
        return true;
    mn_map_set(&r->seen, key, (void *)1);
    return false;
}

/* Pass 1 resolves an import; a call or inherit is queued for pass 2. */
static int on_edge(void *payload, const mn_edge_rec *e)
{
    walk_ctx *w = payload;
    bool import = !strcmp(e->kind, "import");
    if (!import && strcmp(e->kind, "call") != 0 && strcmp(e->kind, "inherit") != 0)
        return 0;
    if (seen(w->r, e->id))
        return 0;
    if (import)
        return resolve_import(w, e);
    name_edge n = {e->id,
                   e->src_file,
                   e->dst_id,
                   !strcmp(e->src_kind, "symbol") ? e->src_id : 0,
                   !strcmp(e->kind, "call"),
                   mn_arena_strdup(&w->r->arena, e->name)};
    mn_vec_push(&w->r->names, n);
    return 0;
}

static int apply(mn_store *s, resolver *r)
{
    int rc = 0;
    if (!r->edge_ids.len)
        return 0;
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    for (size_t i = 0; i < r->edge_ids.len && rc == 0; i++)
        rc = mn_store_edge_resolve(s, r->edge_ids.items[i], r->edge_dst.items[i]);
    if (rc == 0)
        rc = mn_store_commit(s);
    else
        mn_store_rollback(s);
    r->edge_ids.len = r->edge_dst.len = 0;
    return rc;
}

static void free_vec_map(mn_map *m)
{
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(m, &pos, &k, &v)) {
        idx_vec *iv = v; /* idx_vec, id_vec and sym_vec share the layout of their header */
        free(iv->items);
        free(iv);
    }
    mn_map_release(m);
}

typedef struct {
    resolver *r;
    sym_vec *v;
    const char *name;
} named_ctx;

static int add_named(void *payload, const mn_symbol_row *y)
{
    named_ctx *c = payload;
    if (!strcmp(y->name, c->name)) /* a name with glob characters lists others too */
        push_symbol(c->r, c->v, y);
    return 0;
}

/*
 * The symbols named name (NULL when none): from the map when it holds every
 * symbol, else read once and kept. Same rows, same order (path, line)
 * either way, so an incremental run resolves as a fresh one does.
 */
static int symbols_named(resolver *r, const char *name, sym_vec **out)
{
    int rc = 0;
    sym_vec *v = mn_map_get(&r->symbols, name);
    if (!v && !r->all_symbols) {
        v = mn_calloc(1, sizeof(*v));
        mn_map_set(&r->symbols, name, v);
        named_ctx c = {r, v, name};
        rc = mn_store_symbols_each(r->store, name, add_named, &c);
    }
    *out = v && v->len ? v : NULL;
    return rc;
}

/* The symbols of the queued edges' names, read name by name. */
static int load_named_symbols(mn_store *s, resolver *r)
{
    (void)s;
    int rc = 0;
    sym_vec *v;
    for (size_t i = 0; rc == 0 && i < r->names.len; i++)
        rc = symbols_named(r, mn_store_ref_key(r->names.items[i].name), &v);
    return rc;
}

static int sort_imports(resolver *r)
{
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(&r->imports, &pos, &k, &v)) {
        id_vec *iv = v;
        qsort(iv->items, iv->len, sizeof(int64_t), cmp_id);
    }
    return 0;
}

static int edges_each(mn_store *s, const mn_edge_query *q, walk_ctx *w)
{
    return mn_store_edges_each(s, q, on_edge, w);
}

/*
 * The incremental run, in two passes with a write between them:
 *  1. imports: those out of the scope's files, and those that pointed into
 *     a replaced or removed file; every import when files came or went (a
 *     new file can be a closer match for any of them). Files whose imports
 *     now point elsewhere join the scope of pass 2.
 *  2. calls and inherits: those out of the scope's files and of files whose
 *     imports changed, those that pointed into a replaced or removed file,
 *     and every one whose key is a name the change defined more or fewer
 *     times (it may resolve now, or have become ambiguous).
 * Each edge looked at gets the target a fresh resolution would give it, so
 * an incremental index ends with the same graph as a new one; nothing else
 * can change, since a resolution depends only on the symbols of its key,
 * the importer's files and imports, and the set of files.
 */
int mn_resolve_run(mn_store *s, const mn_resolve_scope *scope, mn_resolve_stats *stats)
{
    resolver r;
    memset(&r, 0, sizeof(r));
    memset(stats, 0, sizeof(*stats));
    mn_arena_init(&r.arena);
    r.store = s;
    walk_ctx w = {&r, stats};
    bool everything = !scope || scope->everything;
    mn_edge_query q;

    int rc = mn_store_files_each(s, NULL, add_file, &r);
    if (rc == 0 && everything)
        rc = mn_store_edges_unresolved_each(s, on_edge, &w);
    if (rc == 0 && !everything && scope->files_added_or_removed) {
        q = (mn_edge_query)MN_EDGE_QUERY_INIT;
        q.imports = true;
        rc = edges_each(s, &q, &w);
    }
    for (size_t i = 0; rc == 0 && !everything && i < scope->nfiles; i++) {
        q = (mn_edge_query)MN_EDGE_QUERY_INIT;
        q.file = scope->files[i];
        rc = edges_each(s, &q, &w);
    }
    for (size_t i = 0; rc == 0 && !everything && i < scope->nedges; i++) {
        q = (mn_edge_query)MN_EDGE_QUERY_INIT;
        q.id = scope->edges[i];
        rc = edges_each(s, &q, &w);
    }
    if (rc == 0)
        rc = apply(s, &r);

    if (rc == 0 && !everything) {
        size_t pos = 0;
        const char *k;
        void *v;
        while (rc == 0 && mn_map_next(&r.imports_changed, &pos, &k, &v)) {
            q = (mn_edge_query)MN_EDGE_QUERY_INIT;
            q.file = strtoll(k, NULL, 10);
            rc = edges_each(s, &q, &w);
        }
        for (size_t i = 0; rc == 0 && i < scope->nnames; i++) {
            q = (mn_edge_query)MN_EDGE_QUERY_INIT;
            q.key = scope->names[i];
            rc = edges_each(s, &q, &w);
        }
    }
    if (rc == 0 && r.names.len) {
        if (everything) { /* most names are wanted: read every symbol and import once */
            r.all_imports = true;
            q = (mn_edge_query)MN_EDGE_QUERY_INIT;
            q.imports = true;
            if ((rc = mn_store_edges_each(s, &q, add_import_pair, &r)) == 0)
                rc = sort_imports(&r);
            if (rc == 0)
                rc = mn_store_symbols_each(s, NULL, add_symbol, &r);
            r.all_symbols = true;
        } else {
            rc = load_named_symbols(s, &r);
        }
    }
    for (size_t i = 0; rc == 0 && i < r.names.len; i++)
        rc = resolve_name(&w, &r.names.items[i]);
    if (rc == 0)
        rc = apply(s, &r);

    for (size_t i = 0; i < r.files.len; i++) {
        free(r.files.items[i].path);
        free(r.files.items[i].language);
    }
    mn_vec_release(&r.files);
    mn_map_release(&r.by_path);
    mn_map_release(&r.by_id);
    mn_map_release(&r.dirs_go);
    mn_map_release(&r.seen);
    mn_map_release(&r.bases_read);
    mn_map_release(&r.import_names);
    free_vec_map(&r.bases);
    mn_map_release(&r.imports_changed);
    free_vec_map(&r.imports);
    free_vec_map(&r.by_base);
    free_vec_map(&r.symbols);
    mn_vec_release(&r.edge_ids);
    mn_vec_release(&r.edge_dst);
    mn_vec_release(&r.names);
    mn_arena_release(&r.arena);
    return rc;
}

int mn_resolve_all(mn_store *s, mn_resolve_stats *stats)
{
    return mn_resolve_run(s, NULL, stats);
}
