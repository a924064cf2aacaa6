/*
 * cand_module.c - a new module or package appears, or one goes.
 *
 * A directory is new when the commit adds files under it and the parent's
 * tree has no such directory; only the topmost new directory counts (a
 * new package with sub-packages is one fact). It is a package when it
 * holds a package marker (__init__.py, package.json, Cargo.toml, go.mod,
 * pyproject.toml, setup.py, pom.xml, build.gradle, *.gemspec, mod.rs,
 * index.js/ts) and a module when it holds at least MIN_FILES source files
 * of one language. A directory is gone when the commit deletes files
 * under it and the commit's tree no longer has it. Test, example,
 * fixture, vendored and generated trees are none of the project's modules.
 *
 * Confidence: a new package 0.88, a new module (no marker) 0.75, a
 * module removed 0.86; in the root commit everything is new, so its
 * directories are 0.70 (the review queue): "the project started with a
 * package" says little that discovery does not.
 */
#include "common.h"

#include "ingest/ingest_internal.h"

#define MIN_FILES  3
#define LIST_FILES 12
#define LIST_DEFS  10

static bool is_marker(const char *base)
{
    static const char *const markers[] = {
        "__init__.py", "package.json", "Cargo.toml",   "go.mod",           "pyproject.toml",
        "setup.py",    "pom.xml",      "build.gradle", "build.gradle.kts", "mod.rs",
        "index.js",    "index.ts",     "lib.rs",       "__main__.py"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(markers); i++)
        if (!strcmp(base, markers[i]))
            return true;
    size_t n = strlen(base);
    return n > 8 && !strcmp(base + n - 8, ".gemspec");
}

typedef struct {
    char *dir;
    size_t files, sources;
    bool marker;
    const char *language;
    mn_delta *first;
} dir_info;

typedef MN_VEC(dir_info) dir_vec;

static dir_info *dir_get(dir_vec *v, const char *dir, size_t len)
{
    for (size_t i = 0; i < v->len; i++)
        if (strlen(v->items[i].dir) == len && !memcmp(v->items[i].dir, dir, len))
            return &v->items[i];
    dir_info d;
    memset(&d, 0, sizeof(d));
    d.dir = mn_strndup(dir, len);
    mn_vec_push(v, d);
    return &v->items[v->len - 1];
}

/* The topmost directory of path that is new (before: absent in the parent) or gone. */
static size_t changed_prefix(mn_commit_view *c, const char *path, bool added)
{
    const char *slash = path;
    while ((slash = strchr(slash, '/')) != NULL) {
        char *dir = mn_strndup(path, (size_t)(slash - path));
        bool there = mn_commit_has_path(c, dir, added);
        free(dir);
        if (!there)
            return (size_t)(slash - path);
        slash++;
    }
    return 0;
}

static void defs_of(mn_buf *out, size_t *n, const char *lang, const char *text, size_t len)
{
    for (const char *p = text; p < text + len && *n < LIST_DEFS;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t ln = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        char name[96];
        bool pub;
        const char *kind;
        if (ln && p[0] != ' ' && p[0] != '\t' &&
            mn_def_line(lang, p, ln, name, sizeof(name), &pub, &kind, NULL) && pub) {
            mn_buf_printf(out, "%s%s", *n ? ", " : "", name);
            (*n)++;
        }
        p = nl ? nl + 1 : text + len;
    }
}

static void emit(mn_commit_view *c, mn_candidate_vec *out, dir_info *d, bool added)
{
    bool package = d->marker;
    if (added && !package && d->sources < MIN_FILES)
        return;
    if (!added && d->sources < MIN_FILES - 1)
        return; /* a directory of one script going is no module going */
    double conf = !added ? 0.86 : c->nparents == 0 ? 0.70 : package ? 0.88 : 0.75;
    mn_candidate *k = mn_candidate_add(out, "module", "fact", conf);
    mn_candidate_key(k, "module:%s:%s", d->dir, added ? "added" : "removed");
    mn_buf st = MN_BUF_INIT;
    mn_buf_printf(&st, "module:%s", d->dir);
    k->state_key = mn_buf_detach(&st);
    const char *lang = d->language ? d->language : "";
    if (added)
        mn_candidate_title(k, "New %s %s (%zu file%s%s%s)", package ? "package" : "module", d->dir,
                           d->files, d->files == 1 ? "" : "s", *lang ? ", " : "", lang);
    else
        mn_candidate_title(k, "Removed module %s (%zu file%s)", d->dir, d->files,
                           d->files == 1 ? "" : "s");
    mn_candidate_intro(k, c);
    mn_buf_printf(&k->body, "\n%s %s%s", added ? "It adds" : "It removes", d->dir, "/:");
    size_t listed = 0, ndefs = 0;
    mn_buf defs = MN_BUF_INIT;
    size_t plen = strlen(d->dir);
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *x = &c->deltas[i];
        if (strncmp(x->path, d->dir, plen) != 0 || x->path[plen] != '/')
            continue;
        if (listed++ < LIST_FILES)
            mn_buf_printf(&k->body, " %s", x->path + plen + 1);
        if (x->cls.role == MN_ROLE_SOURCE && x->cls.language && ndefs < LIST_DEFS) {
            size_t len;
            const char *t = mn_delta_text(c, x, added ? 1 : 0, &len);
            if (t)
                defs_of(&defs, &ndefs, x->cls.language, t, len);
        }
    }
    if (listed > LIST_FILES)
        mn_buf_printf(&k->body, " (and %zu more)", listed - LIST_FILES);
    mn_buf_puts(&k->body, ".");
    if (defs.len)
        mn_buf_printf(&k->body, "\nIt %s %s.", added ? "defines" : "defined", defs.ptr);
    mn_buf_release(&defs);
    mn_strv_add(k->paths, d->dir);
    mn_strv_add(k->tags, "module");
    if (d->first) {
        size_t len;
        const char *t = mn_delta_text(c, d->first, added ? 1 : 0, &len);
        if (t && added)
            mn_candidate_evidence_text(k, d->first->path, t, len);
        else
            mn_candidate_evidence(k, d->first->path, NULL);
    }
}

int mn_cand_modules(mn_commit_view *c, mn_candidate_vec *out)
{
    for (int pass = 0; pass < 2; pass++) {
        bool added = pass == 0;
        dir_vec dirs = MN_VEC_INIT;
        for (size_t i = 0; i < c->ndeltas; i++) {
            mn_delta *d = &c->deltas[i];
            if ((added && d->status != MN_DELTA_ADDED) || (!added && d->status != MN_DELTA_DELETED))
                continue;
            if (mn_cand_noise_path(d) || d->cls.role == MN_ROLE_DOC || !strchr(d->path, '/'))
                continue;
            size_t n = changed_prefix(c, d->path, added);
            if (!n)
                continue;
            dir_info *di = dir_get(&dirs, d->path, n);
            di->files++;
            const char *base = strrchr(d->path, '/') + 1;
            if (added && is_marker(base) && strchr(d->path + n + 1, '/') == NULL)
                di->marker = true;
            if (d->cls.role == MN_ROLE_SOURCE && d->cls.language) {
                di->sources++;
                if (!di->language)
                    di->language = d->cls.language;
                if (!di->first)
                    di->first = d;
            }
        }
        for (size_t i = 0; i < dirs.len; i++) {
            emit(c, out, &dirs.items[i], added);
            free(dirs.items[i].dir);
        }
        mn_vec_release(&dirs);
    }
    return 0;
}
