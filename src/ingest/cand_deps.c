/*
 * cand_deps.c - dependencies added, removed or changed, and the language
 * versions a project requires, from the manifests discovery reads
 * (index/discover.c): package.json, requirements*.txt, setup.py,
 * setup.cfg, pyproject.toml, Pipfile, go.mod, Cargo.toml, Gemfile,
 * composer.json, pom.xml, build.gradle(.kts), *.csproj.
 *
 * How: the old and the new text of every manifest the commit touched are
 * read into sets of (ecosystem, directory, section, name) -> spec, by
 * small lenient readers (a TOML subset, quoted lists of setup.py, tags of
 * XML, lines of the rest); the sets of all manifests of one directory are
 * compared as wholes, so moving a dependency from setup.py to
 * pyproject.toml is no removal and no addition.
 *
 * Candidates, and their confidence (save.c saves >= capture.auto_approve
 * active, the rest pending):
 *   runtime dependency added or removed            0.90
 *   optional or peer dependency added or removed   0.80
 *   development or build dependency                0.75
 *   a spec whose highest major version changed     0.86  (urllib3 <2 -> <3); of a
 *                                                  development or build tool 0.60
 *   any other spec change (a pin moved)            0.60
 *   more than MANY changes in one directory        one candidate listing them:
 *                                                  0.86 for a new manifest's runtime
 *                                                  dependencies, else 0.70
 *   required language version changed             0.90  (python_requires, engines.node,
 *                                                  go directive, rust-version, php, ruby)
 *   Python versions of the classifiers changed     0.86
 * Each fact holds a state ("dep:pip:.:urllib3"): a later change of the
 * same dependency supersedes it (save.c), so the active facts say what is
 * true today.
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "util/map.h"

#define MANY 8 /* changes in one directory above which they are listed in one candidate */

typedef struct {
    char *eco, *dir, *section, *name, *spec;
    char *shown; /* the name as the manifest writes it (name is folded for pip) */
} dep;

typedef MN_VEC(dep) dep_vec;

typedef struct {
    dep_vec deps;
    mn_map runtime; /* "python" -> spec */
    mn_map pyvers;  /* "3.12" -> "" from classifiers */
} manifest;

static void dep_add(manifest *m, const char *eco, const char *dir, const char *section,
                    const char *name, size_t nlen, const char *spec, size_t slen)
{
    while (nlen && isspace((unsigned char)name[nlen - 1]))
        nlen--;
    while (slen && isspace((unsigned char)*spec)) {
        spec++;
        slen--;
    }
    while (slen && isspace((unsigned char)spec[slen - 1]))
        slen--;
    /* a name starts with a letter or digit (not "-e .", "--index-url", "./local") */
    if (!nlen || nlen > 200 || !isalnum((unsigned char)name[0]))
        return;
    dep d;
    d.eco = mn_strdup(eco);
    d.dir = mn_strdup(dir);
    d.section = mn_strdup(section);
    d.name = mn_strndup(name, nlen);
    d.shown = mn_strndup(name, nlen);
    mn_ingest_utf8_fix(d.shown, strlen(d.shown));
    if (!strcmp(eco, "pip")) /* PEP 503: case and -_. runs fold */
        for (char *p = d.name; *p; p++)
            *p = *p == '_' || *p == '.' ? '-' : (char)tolower((unsigned char)*p);
    d.spec = mn_ingest_text_dup(spec, slen > 200 ? 200 : slen);
    mn_ingest_utf8_fix(d.name, strlen(d.name));
    mn_vec_push(&m->deps, d);
}

static void runtime_set(manifest *m, const char *lang, const char *spec, size_t len)
{
    while (len && (isspace((unsigned char)*spec) || *spec == '"' || *spec == '\'')) {
        spec++;
        len--;
    }
    while (len && (isspace((unsigned char)spec[len - 1]) || spec[len - 1] == '"' ||
                   spec[len - 1] == '\'' || spec[len - 1] == ','))
        len--;
    if (!len || len > 100)
        return;
    free(mn_map_set(&m->runtime, lang, mn_ingest_text_dup(spec, len)));
}

static void manifest_release(manifest *m)
{
    for (size_t i = 0; i < m->deps.len; i++) {
        dep *d = &m->deps.items[i];
        free(d->eco);
        free(d->dir);
        free(d->section);
        free(d->name);
        free(d->shown);
        free(d->spec);
    }
    mn_vec_release(&m->deps);
    size_t pos = 0;
    const char *k;
    void *v;
    while (mn_map_next(&m->runtime, &pos, &k, &v))
        free(v);
    mn_map_release(&m->runtime);
    mn_map_release(&m->pyvers);
}

/* ---- Python requirement strings ---- */

static void pip_req(manifest *m, const char *dir, const char *section, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    if (!n || *s == '#' || *s == '-' || !isalnum((unsigned char)*s))
        return;
    const char *hash = memchr(s, '#', n);
    if (hash)
        n = (size_t)(hash - s);
    const char *semi = memchr(s, ';', n);
    size_t body = semi ? (size_t)(semi - s) : n;
    if (memmem(s, body, "://", 3) || memmem(s, body, "git+", 4))
        return;
    size_t name = 0;
    while (name < body && (isalnum((unsigned char)s[name]) || strchr("._-", s[name])))
        name++;
    size_t spec = name;
    if (spec < body && s[spec] == '[') { /* extras */
        const char *close = memchr(s + spec, ']', body - spec);
        spec = close ? (size_t)(close - s) + 1 : body;
    }
    dep_add(m, "pip", dir, section, s, name, s + spec, body - spec);
}

/* Each quoted string of a list that starts at p (after '['); returns past the ']'. */
static const char *quoted_list(const char *p, const char *end,
                               void (*cb)(void *payload, const char *s, size_t n), void *payload)
{
    int depth = 1;
    while (p < end && depth > 0) {
        if (*p == '#') { /* a comment to the end of the line */
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            const char *s = p;
            while (p < end && *p != q && *p != '\n')
                p += *p == '\\' ? 2 : 1;
            if (p <= end && cb)
                cb(payload, s, (size_t)((p < end ? p : end) - s));
            if (p < end)
                p++;
            continue;
        }
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        p++;
    }
    return p;
}

typedef struct {
    manifest *m;
    const char *dir, *section;
} list_ctx;

static void list_pip(void *payload, const char *s, size_t n)
{
    list_ctx *c = payload;
    pip_req(c->m, c->dir, c->section, s, n);
}

static void list_classifier(void *payload, const char *s, size_t n)
{
    list_ctx *c = payload;
    static const char pre[] = "Programming Language :: Python :: ";
    if (n > sizeof(pre) - 1 && !memcmp(s, pre, sizeof(pre) - 1)) {
        char v[16];
        size_t vn = n - (sizeof(pre) - 1);
        if (vn < sizeof(v)) {
            memcpy(v, s + sizeof(pre) - 1, vn);
            v[vn] = '\0';
            if (strchr(v, '.') && mn_looks_like_version(v))
                mn_map_set(&c->m->pyvers, v, NULL);
        }
    }
}

/* setup.py: the quoted lists assigned to the requirement names, extras_require's dict. */
static void read_setup_py(manifest *m, const char *dir, const char *t, size_t len)
{
    static const struct {
        const char *name, *section;
    } names[] = {{"install_requires", "runtime"}, {"requires", "runtime"},
                 {"tests_require", "dev"},        {"test_requirements", "dev"},
                 {"test_requires", "dev"},        {"setup_requires", "build"},
                 {"dev_requires", "dev"},         {"classifiers", NULL}};
    const char *end = t + len;
    for (const char *p = t; p < end; p++) {
        if (!(isalpha((unsigned char)*p) || *p == '_') ||
            (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.')))
            continue;
        const char *w = p;
        while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        size_t wn = (size_t)(p - w);
        const char *q = p;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q >= end || (*q != '=' && *q != ':') || (q + 1 < end && q[1] == '='))
            continue;
        q++;
        while (q < end && isspace((unsigned char)*q))
            q++;
        if (wn == 14 && !memcmp(w, "extras_require", 14) && q < end && *q == '{') {
            /* "extra": [ ... ] pairs up to the closing brace */
            const char *r = q + 1;
            while (r < end && *r != '}') {
                if (*r == '[') {
                    list_ctx c = {m, dir, "optional"};
                    r = quoted_list(r + 1, end, list_pip, &c);
                    continue;
                }
                r++;
            }
            continue;
        }
        if (wn == 15 && !memcmp(w, "python_requires", 15) && q < end && (*q == '"' || *q == '\'')) {
            char quote = *q++;
            const char *e = memchr(q, quote, (size_t)(end - q));
            if (e)
                runtime_set(m, "python", q, (size_t)(e - q));
            continue;
        }
        if (q >= end || *q != '[')
            continue;
        for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++) {
            if (strlen(names[i].name) != wn || memcmp(names[i].name, w, wn) != 0)
                continue;
            list_ctx c = {m, dir, names[i].section};
            quoted_list(q + 1, end, names[i].section ? list_pip : list_classifier, &c);
            break;
        }
    }
}

/* ---- a TOML (and INI) subset: [table] key = value, arrays over lines ---- */

typedef void (*toml_cb)(void *payload, const char *table, const char *key, const char *value,
                        size_t vlen);

static void read_toml(const char *t, size_t len, toml_cb cb, void *payload)
{
    const char *p = t, *end = t + len;
    char table[200] = "";
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = p;
        while (s < le && isspace((unsigned char)*s))
            s++;
        if (s < le && *s == '[') {
            const char *close = memchr(s, ']', (size_t)(le - s));
            size_t n = close ? (size_t)(close - s - 1) : 0;
            if (n && s[1] == '[')
                n = 0; /* an array of tables: [[bin]] */
            if (close && n < sizeof(table)) {
                memcpy(table, s + 1, n);
                table[n] = '\0';
            }
            p = nl ? nl + 1 : end;
            continue;
        }
        const char *eq = memchr(s, '=', (size_t)(le - s));
        if (!eq || s == le || *s == '#' || *s == ';') {
            p = nl ? nl + 1 : end;
            continue;
        }
        const char *ke = eq;
        while (ke > s && isspace((unsigned char)ke[-1]))
            ke--;
        char key[200];
        size_t kn = (size_t)(ke - s);
        if (kn >= 2 && (s[0] == '"' || s[0] == '\'') && s[kn - 1] == s[0]) {
            s++;
            kn -= 2;
        }
        if (kn >= sizeof(key)) {
            p = nl ? nl + 1 : end;
            continue;
        }
        memcpy(key, s, kn);
        key[kn] = '\0';
        const char *v = eq + 1;
        while (v < le && isspace((unsigned char)*v) && *v != '\n')
            v++;
        const char *ve = le;
        if (v < end && *v == '[') { /* an array may run over lines */
            ve = quoted_list(v + 1, end, NULL, NULL);
        } else if (v < end && *v == '{') {
            const char *close = memchr(v, '}', (size_t)(end - v));
            ve = close ? close + 1 : le;
        }
        cb(payload, table, key, v, (size_t)(ve - v));
        p = ve;
        const char *next = memchr(p, '\n', (size_t)(end - p));
        p = next ? next + 1 : end;
    }
}

/* A TOML value's string: "x", or { version = "x" }, or the bare text. */
static char *toml_string(const char *v, size_t n)
{
    const char *s = v, *e = v + n;
    if (n && *v == '{') {
        const char *ver = memmem(v, n, "version", 7);
        if (!ver)
            return mn_strdup("");
        s = ver + 7;
    }
    const char *q = s;
    while (q < e && *q != '"' && *q != '\'')
        q++;
    if (q < e) {
        char quote = *q++;
        const char *qe = memchr(q, quote, (size_t)(e - q));
        if (qe)
            return mn_strndup(q, (size_t)(qe - q));
    }
    return n && *v == '{' ? mn_strdup("") : mn_ingest_one_line(v, n);
}

typedef struct {
    manifest *m;
    const char *dir;
    const char *file; /* pyproject.toml, Cargo.toml, Pipfile, setup.cfg */
} toml_ctx;

static bool table_is(const char *t, const char *want)
{
    return !strcmp(t, want);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static void toml_dep(void *payload, const char *table, const char *key, const char *v, size_t n)
{
    toml_ctx *c = payload;
    const char *f = c->file;
    if (!strcmp(f, "pyproject.toml")) {
        list_ctx lc = {c->m, c->dir, NULL};
        if (table_is(table, "project") && !strcmp(key, "dependencies") && n && *v == '[')
            lc.section = "runtime";
        else if (table_is(table, "project.optional-dependencies") && n && *v == '[')
            lc.section = "optional";
        else if (table_is(table, "dependency-groups") && n && *v == '[')
            lc.section = "dev";
        else if (table_is(table, "build-system") && !strcmp(key, "requires") && n && *v == '[')
            lc.section = "build";
        else if (table_is(table, "project") && !strcmp(key, "requires-python")) {
            char *s = toml_string(v, n);
            runtime_set(c->m, "python", s, strlen(s));
            free(s);
            return;
        } else if (table_is(table, "project") && !strcmp(key, "classifiers") && n && *v == '[') {
            quoted_list(v + 1, v + n, list_classifier, &lc);
            return;
        }
        if (lc.section) {
            quoted_list(v + 1, v + n, list_pip, &lc);
            return;
        }
        const char *section =
            table_is(table, "tool.poetry.dependencies") ? "runtime"
            : table_is(table, "tool.poetry.dev-dependencies") ||
                    (!strncmp(table, "tool.poetry.group.", 18) && ends_with(table, ".dependencies"))
                ? "dev"
                : NULL;
        if (!section)
            return;
        char *spec = toml_string(v, n);
        if (!strcmp(key, "python"))
            runtime_set(c->m, "python", spec, strlen(spec));
        else
            dep_add(c->m, "pip", c->dir, section, key, strlen(key), spec, strlen(spec));
        free(spec);
    } else if (!strcmp(f, "Cargo.toml")) {
        const char *section = NULL;
        if (table_is(table, "dependencies") || table_is(table, "workspace.dependencies") ||
            (!strncmp(table, "target.", 7) && ends_with(table, ".dependencies")))
            section = "runtime";
        else if (table_is(table, "dev-dependencies"))
            section = "dev";
        else if (table_is(table, "build-dependencies"))
            section = "build";
        else if ((table_is(table, "package") || table_is(table, "workspace.package")) &&
                 !strcmp(key, "rust-version")) {
            char *s = toml_string(v, n);
            runtime_set(c->m, "rust", s, strlen(s));
            free(s);
            return;
        }
        if (!section)
            return;
        const char *dot = strchr(key, '.'); /* serde.workspace = true */
        char *spec = toml_string(v, n);
        dep_add(c->m, "cargo", c->dir, section, key, dot ? (size_t)(dot - key) : strlen(key), spec,
                strlen(spec));
        free(spec);
    } else if (!strcmp(f, "Pipfile")) {
        const char *section = table_is(table, "packages")       ? "runtime"
                              : table_is(table, "dev-packages") ? "dev"
                                                                : NULL;
        /* {path = ".", editable = true}: the project itself, no dependency */
        if (section && n && *v == '{' && (memmem(v, n, "path", 4) || memmem(v, n, "editable", 8)))
            return;
        char *spec = toml_string(v, n);
        if (section)
            dep_add(c->m, "pip", c->dir, section, key, strlen(key), spec, strlen(spec));
        else if (table_is(table, "requires") && !strcmp(key, "python_version"))
            runtime_set(c->m, "python", spec, strlen(spec));
        free(spec);
    }
}

/* setup.cfg: install_requires = \n  a\n  b (indented continuation lines). */
static void read_setup_cfg(manifest *m, const char *dir, const char *t, size_t len)
{
    const char *p = t, *end = t + len;
    char table[100] = "";
    const char *section = NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        bool cont = n && (*p == ' ' || *p == '\t');
        if (!cont) {
            section = NULL;
            if (n && *p == '[') {
                const char *close = memchr(p, ']', n);
                size_t tn = close ? (size_t)(close - p - 1) : 0;
                if (tn < sizeof(table)) {
                    memcpy(table, p + 1, tn);
                    table[tn] = '\0';
                }
            } else if (n && memchr(p, '=', n)) {
                const char *eq = memchr(p, '=', n);
                char *key = mn_ingest_norm(p, (size_t)(eq - p));
                bool opts = !strcmp(table, "options");
                if (opts && !strcmp(key, "install_requires"))
                    section = "runtime";
                else if (opts && !strcmp(key, "tests_require"))
                    section = "dev";
                else if (!strcmp(table, "options.extras_require"))
                    section = "optional";
                else if (opts && !strcmp(key, "python_requires"))
                    runtime_set(m, "python", eq + 1, (size_t)(p + n - eq - 1));
                free(key);
                if (section) /* a value on the same line */
                    pip_req(m, dir, section, eq + 1, (size_t)(p + n - eq - 1));
            }
        } else if (section) {
            pip_req(m, dir, section, p, n);
        }
        p = nl ? nl + 1 : end;
    }
}

/* ---- JSON manifests ---- */

static void json_deps(manifest *m, const char *eco, const char *dir, const json_t *obj,
                      const char *section)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        const char *spec = json_is_string(v) ? json_string_value(v) : "";
        if (!strcmp(eco, "composer") && (!strcmp(k, "php") || !strncmp(k, "ext-", 4))) {
            if (!strcmp(k, "php"))
                runtime_set(m, "php", spec, strlen(spec));
            continue;
        }
        dep_add(m, eco, dir, section, k, strlen(k), spec, strlen(spec));
    }
}

static void read_package_json(manifest *m, const char *dir, const char *t, size_t len,
                              bool composer)
{
    json_t *j = json_loadb(t, len, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    if (composer) {
        json_deps(m, "composer", dir, json_object_get(j, "require"), "runtime");
        json_deps(m, "composer", dir, json_object_get(j, "require-dev"), "dev");
    } else {
        json_deps(m, "npm", dir, json_object_get(j, "dependencies"), "runtime");
        json_deps(m, "npm", dir, json_object_get(j, "devDependencies"), "dev");
        json_deps(m, "npm", dir, json_object_get(j, "peerDependencies"), "peer");
        json_deps(m, "npm", dir, json_object_get(j, "optionalDependencies"), "optional");
        const char *node =
            json_string_value(json_object_get(json_object_get(j, "engines"), "node"));
        if (node)
            runtime_set(m, "node", node, strlen(node));
    }
    json_decref(j);
}

/* ---- line manifests ---- */

typedef struct {
    manifest *m;
    const char *dir, *section;
    bool in_require; /* go.mod's require ( ... ) */
    int group_depth; /* Gemfile: inside a group :test do ... end */
} line_ctx;

static int req_line(void *payload, const char *l, size_t n)
{
    line_ctx *c = payload;
    pip_req(c->m, c->dir, c->section, l, n);
    return 0;
}

static int gomod_line(void *payload, const char *l, size_t n)
{
    line_ctx *c = payload;
    while (n && isspace((unsigned char)*l)) {
        l++;
        n--;
    }
    if (n >= 3 && !memcmp(l, "go ", 3)) {
        runtime_set(c->m, "go", l + 3, n - 3);
        return 0;
    }
    if (n >= 9 && !memcmp(l, "require (", 9)) {
        c->in_require = true;
        return 0;
    }
    if (c->in_require && n && *l == ')') {
        c->in_require = false;
        return 0;
    }
    bool single = n > 8 && !memcmp(l, "require ", 8);
    if (!c->in_require && !single)
        return 0;
    if (single) {
        l += 8;
        n -= 8;
    }
    const char *comment = memmem(l, n, "//", 2);
    bool indirect = comment && memmem(comment, n - (size_t)(comment - l), "indirect", 8);
    const char *sp = memchr(l, ' ', n);
    if (!sp || indirect)
        return 0;
    size_t rest = n - (size_t)(sp - l) - 1;
    const char *ver = sp + 1;
    size_t vn = comment ? (size_t)(comment - ver) : rest;
    dep_add(c->m, "go", c->dir, "runtime", l, (size_t)(sp - l), ver, vn);
    return 0;
}

static int gemfile_line(void *payload, const char *l, size_t n)
{
    line_ctx *c = payload;
    while (n && isspace((unsigned char)*l)) {
        l++;
        n--;
    }
    if (n >= 6 && !memcmp(l, "group ", 6) && memmem(l, n, " do", 3)) {
        c->group_depth++;
        c->section =
            memmem(l, n, ":development", 12) || memmem(l, n, ":test", 5) ? "dev" : "runtime";
        return 0;
    }
    if (c->group_depth && n == 3 && !memcmp(l, "end", 3)) {
        if (--c->group_depth == 0)
            c->section = "runtime";
        return 0;
    }
    if (n >= 5 && !memcmp(l, "ruby ", 5)) {
        runtime_set(c->m, "ruby", l + 5, n - 5);
        return 0;
    }
    if (n < 5 || memcmp(l, "gem ", 4) != 0)
        return 0;
    const char *q = l + 4;
    while (q < l + n && *q == ' ')
        q++;
    if (q >= l + n || (*q != '\'' && *q != '"'))
        return 0;
    char quote = *q++;
    const char *e = memchr(q, quote, (size_t)(l + n - q));
    if (!e)
        return 0;
    /* the next quoted string, if any, is the version */
    const char *vs = memchr(e + 1, quote, (size_t)(l + n - e - 1));
    const char *ve = vs ? memchr(vs + 1, quote, (size_t)(l + n - vs - 1)) : NULL;
    bool group_dev = memmem(l, n, "group: :development", 19) || memmem(l, n, "group: :test", 12);
    dep_add(c->m, "gem", c->dir, group_dev ? "dev" : c->section, q, (size_t)(e - q),
            ve ? vs + 1 : "", ve ? (size_t)(ve - vs - 1) : 0);
    return 0;
}

static int gradle_line(void *payload, const char *l, size_t n)
{
    line_ctx *c = payload;
    static const char *const confs[] = {"implementation",
                                        "api",
                                        "compile",
                                        "runtimeOnly",
                                        "compileOnly",
                                        "runtime",
                                        "testImplementation",
                                        "testCompile",
                                        "testRuntimeOnly",
                                        "androidTestImplementation",
                                        "kapt",
                                        "annotationProcessor"};
    while (n && isspace((unsigned char)*l)) {
        l++;
        n--;
    }
    for (size_t i = 0; i < MN_ARRAY_SIZE(confs); i++) {
        size_t cn = strlen(confs[i]);
        if (n <= cn || memcmp(l, confs[i], cn) != 0 || (l[cn] != ' ' && l[cn] != '('))
            continue;
        const char *q = l + cn;
        while (q < l + n && (*q == ' ' || *q == '('))
            q++;
        if (q >= l + n || (*q != '\'' && *q != '"'))
            return 0;
        char quote = *q++;
        const char *e = memchr(q, quote, (size_t)(l + n - q));
        if (!e)
            return 0;
        /* group:artifact:version */
        const char *c1 = memchr(q, ':', (size_t)(e - q));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
        const char *section =
            !strncmp(confs[i], "test", 4) || !strncmp(confs[i], "android", 7)       ? "dev"
            : !strcmp(confs[i], "kapt") || !strcmp(confs[i], "annotationProcessor") ? "build"
                                                                                    : "runtime";
        if (c1)
            dep_add(c->m, "gradle", c->dir, section, q, (size_t)((c2 ? c2 : e) - q),
                    c2 ? c2 + 1 : "", c2 ? (size_t)(e - c2 - 1) : 0);
        return 0;
    }
    return 0;
}

/* ---- XML manifests: tags, not a parser ---- */

static char *xml_tag(const char *s, const char *e, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    const char *a = memmem(s, (size_t)(e - s), open, strlen(open));
    if (!a)
        return NULL;
    a += strlen(open);
    const char *b = memmem(a, (size_t)(e - a), close, strlen(close));
    return b ? mn_ingest_one_line(a, (size_t)(b - a)) : NULL;
}

static void read_pom(manifest *m, const char *dir, const char *t, size_t len)
{
    const char *p = t, *end = t + len;
    while ((p = memmem(p, (size_t)(end - p), "<dependency>", 12)) != NULL) {
        const char *e = memmem(p, (size_t)(end - p), "</dependency>", 13);
        if (!e)
            break;
        char *g = xml_tag(p, e, "groupId"), *a = xml_tag(p, e, "artifactId"),
             *v = xml_tag(p, e, "version"), *scope = xml_tag(p, e, "scope");
        if (a) {
            mn_buf name = MN_BUF_INIT;
            mn_buf_printf(&name, "%s%s%s", g ? g : "", g ? ":" : "", a);
            dep_add(m, "maven", dir, scope && !strcmp(scope, "test") ? "dev" : "runtime", name.ptr,
                    name.len, v ? v : "", v ? strlen(v) : 0);
            mn_buf_release(&name);
        }
        free(g);
        free(a);
        free(v);
        free(scope);
        p = e + 13;
    }
}

static char *xml_attr(const char *s, const char *e, const char *attr)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "%s=\"", attr);
    const char *a = memmem(s, (size_t)(e - s), pat, strlen(pat));
    if (!a)
        return NULL;
    a += strlen(pat);
    const char *b = memchr(a, '"', (size_t)(e - a));
    return b ? mn_strndup(a, (size_t)(b - a)) : NULL;
}

static void read_csproj(manifest *m, const char *dir, const char *t, size_t len)
{
    const char *p = t, *end = t + len;
    while ((p = memmem(p, (size_t)(end - p), "<PackageReference", 17)) != NULL) {
        const char *e = memchr(p, '>', (size_t)(end - p));
        if (!e)
            break;
        char *inc = xml_attr(p, e, "Include"), *ver = xml_attr(p, e, "Version");
        if (inc)
            dep_add(m, "nuget", dir, "runtime", inc, strlen(inc), ver ? ver : "",
                    ver ? strlen(ver) : 0);
        free(inc);
        free(ver);
        p = e;
    }
}

/* ---- which files are manifests ---- */

typedef enum {
    M_NONE,
    M_PACKAGE_JSON,
    M_COMPOSER,
    M_REQUIREMENTS,
    M_SETUP_PY,
    M_SETUP_CFG,
    M_PYPROJECT,
    M_PIPFILE,
    M_GOMOD,
    M_CARGO,
    M_GEMFILE,
    M_POM,
    M_GRADLE,
    M_CSPROJ
} mkind;

static mkind manifest_kind(const char *path, const char **section)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    *section = "runtime";
    if (!strcmp(base, "package.json"))
        return M_PACKAGE_JSON;
    if (!strcmp(base, "composer.json"))
        return M_COMPOSER;
    if (!strcmp(base, "setup.py"))
        return M_SETUP_PY;
    if (!strcmp(base, "setup.cfg"))
        return M_SETUP_CFG;
    if (!strcmp(base, "pyproject.toml"))
        return M_PYPROJECT;
    if (!strcmp(base, "Pipfile"))
        return M_PIPFILE;
    if (!strcmp(base, "go.mod"))
        return M_GOMOD;
    if (!strcmp(base, "Cargo.toml"))
        return M_CARGO;
    if (!strcmp(base, "Gemfile"))
        return M_GEMFILE;
    if (!strcmp(base, "pom.xml"))
        return M_POM;
    if (!strcmp(base, "build.gradle") || !strcmp(base, "build.gradle.kts"))
        return M_GRADLE;
    if (ends_with(base, ".csproj"))
        return M_CSPROJ;
    /* requirements.txt, requirements-dev.txt, dev-requirements.txt, requirements/test.txt */
    bool in_req_dir = strstr(path, "requirements/") != NULL;
    if (ends_with(base, ".txt") && (strstr(base, "requirements") || in_req_dir)) {
        if (strstr(base, "dev") || strstr(base, "test") || strstr(base, "doc") ||
            strstr(base, "lint") || strstr(base, "ci"))
            *section = "dev";
        return M_REQUIREMENTS;
    }
    return M_NONE;
}

/* The directory a manifest speaks for: requirements/ belongs to its parent. */
static char *manifest_dir(const char *path)
{
    char *d = mn_strdup(path);
    char *slash = strrchr(d, '/');
    if (!slash) {
        free(d);
        return mn_strdup(".");
    }
    *slash = '\0';
    if (ends_with(d, "requirements")) {
        char *s2 = strrchr(d, '/');
        if (s2)
            *s2 = '\0';
        else {
            free(d);
            return mn_strdup(".");
        }
    }
    return d;
}

static void read_manifest(manifest *m, mkind k, const char *dir, const char *section, const char *t,
                          size_t len)
{
    line_ctx lc = {m, dir, section, false, 0};
    toml_ctx tc = {m, dir, ""};
    switch (k) {
    case M_PACKAGE_JSON:
        read_package_json(m, dir, t, len, false);
        break;
    case M_COMPOSER:
        read_package_json(m, dir, t, len, true);
        break;
    case M_REQUIREMENTS:
        mn_lines_each(t, len, req_line, &lc);
        break;
    case M_SETUP_PY:
        read_setup_py(m, dir, t, len);
        break;
    case M_SETUP_CFG:
        read_setup_cfg(m, dir, t, len);
        break;
    case M_PYPROJECT:
        tc.file = "pyproject.toml";
        read_toml(t, len, toml_dep, &tc);
        break;
    case M_PIPFILE:
        tc.file = "Pipfile";
        read_toml(t, len, toml_dep, &tc);
        break;
    case M_CARGO:
        tc.file = "Cargo.toml";
        read_toml(t, len, toml_dep, &tc);
        break;
    case M_GOMOD:
        mn_lines_each(t, len, gomod_line, &lc);
        break;
    case M_GEMFILE:
        mn_lines_each(t, len, gemfile_line, &lc);
        break;
    case M_POM:
        read_pom(m, dir, t, len);
        break;
    case M_GRADLE:
        mn_lines_each(t, len, gradle_line, &lc);
        break;
    case M_CSPROJ:
        read_csproj(m, dir, t, len);
        break;
    case M_NONE:
        break;
    }
}

/* ---- comparing ---- */

static const char *find_spec(const manifest *m, const dep *d, const char **section)
{
    for (size_t i = 0; i < m->deps.len; i++) {
        const dep *e = &m->deps.items[i];
        if (!strcmp(e->eco, d->eco) && !strcmp(e->dir, d->dir) && !strcmp(e->name, d->name)) {
            if (section)
                *section = e->section;
            return e->spec;
        }
    }
    return NULL;
}

static double section_confidence(const char *section)
{
    return !strcmp(section, "runtime")                                ? 0.90
           : !strcmp(section, "optional") || !strcmp(section, "peer") ? 0.80
                                                                      : 0.75;
}

static const char *section_words(const char *section)
{
    return !strcmp(section, "runtime")    ? "dependency"
           : !strcmp(section, "dev")      ? "development dependency"
           : !strcmp(section, "build")    ? "build dependency"
           : !strcmp(section, "optional") ? "optional dependency"
                                          : "peer dependency";
}

/* The delta and hunk that show a dependency (its name in a changed line). */
static void evidence_for(mn_commit_view *c, mn_candidate *k, mn_delta **files, size_t nfiles,
                         const char *name)
{
    for (size_t i = 0; i < nfiles; i++) {
        size_t nh;
        const mn_hunk *h = mn_delta_patch(c, files[i], &nh);
        for (size_t j = 0; j < nh; j++)
            if ((name && (strcasestr(h[j].added, name) || strcasestr(h[j].removed, name))) ||
                !name) {
                mn_candidate_evidence(k, files[i]->path, &h[j]);
                mn_strv_add(k->paths, files[i]->path);
                return;
            }
    }
    if (nfiles) {
        size_t len;
        const char *t = mn_delta_text(c, files[0], 1, &len);
        mn_strv_add(k->paths, files[0]->path);
        if (t)
            mn_candidate_evidence_text(k, files[0]->path, t, len);
    }
}

static void file_list(mn_buf *b, mn_delta **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(b, "%s%s", i ? ", " : "", files[i]->path);
}

typedef struct {
    const char *dir;
    mn_delta *files[16];
    size_t nfiles;
    bool added_manifest; /* a manifest appeared in this commit */
    manifest before, after;
} dir_group;

static void compare(mn_commit_view *c, dir_group *g, mn_candidate_vec *out)
{
    typedef struct {
        const dep *d;
        const char *old, *new, *section;
        const char *what; /* added removed changed */
        bool major;
    } change;
    MN_VEC(change) ch = MN_VEC_INIT;
    for (size_t i = 0; i < g->after.deps.len; i++) {
        const dep *d = &g->after.deps.items[i];
        const char *old_section = NULL;
        const char *old = find_spec(&g->before, d, &old_section);
        if (find_spec(&g->after, d, NULL) != d->spec)
            continue; /* listed twice (two manifests of the directory): the first counts */
        if (!old) {
            change x = {d, NULL, d->spec, d->section, "added", false};
            mn_vec_push(&ch, x);
        } else if (strcmp(old, d->spec) != 0) {
            int a = mn_version_major(old), b = mn_version_major(d->spec);
            change x = {d, old, d->spec, d->section, "changed", a >= 0 && b >= 0 && a != b};
            mn_vec_push(&ch, x);
        }
    }
    for (size_t i = 0; i < g->before.deps.len; i++) {
        const dep *d = &g->before.deps.items[i];
        if (find_spec(&g->before, d, NULL) != d->spec || find_spec(&g->after, d, NULL))
            continue;
        change x = {d, d->spec, NULL, d->section, "removed", false};
        mn_vec_push(&ch, x);
    }
    if (ch.len > MANY) {
        /* one candidate listing them: a new manifest, a mass re-pin */
        size_t adds = 0;
        for (size_t i = 0; i < ch.len; i++)
            adds += !strcmp(ch.items[i].what, "added");
        /* a new manifest's dependencies are a fact; a mass re-pin is for a person to read */
        bool runtime = false;
        for (size_t i = 0; i < ch.len; i++)
            runtime |= !strcmp(ch.items[i].section, "runtime");
        mn_candidate *k =
            mn_candidate_add(out, "dependency", "fact",
                             g->added_manifest && adds == ch.len && runtime ? 0.86 : 0.70);
        mn_candidate_key(k, "deps:%s", g->dir);
        mn_buf files = MN_BUF_INIT;
        file_list(&files, g->files, g->nfiles);
        size_t added = 0, removed = 0, changed = 0;
        for (size_t i = 0; i < ch.len; i++)
            added += !strcmp(ch.items[i].what, "added"),
                removed += !strcmp(ch.items[i].what, "removed"),
                changed += !strcmp(ch.items[i].what, "changed");
        if (g->added_manifest && !removed && !changed) {
            mn_buf names = MN_BUF_INIT;
            for (size_t i = 0; i < ch.len && i < 6; i++)
                mn_buf_printf(&names, "%s%s", i ? ", " : "", ch.items[i].d->shown);
            mn_candidate_title(k, "Dependencies declared in %s: %s%s (%zu)", files.ptr, names.ptr,
                               ch.len > 6 ? "..." : "", added);
            mn_buf_release(&names);
        } else
            mn_candidate_title(k,
                               "Dependencies of %s changed: %zu added, %zu removed, %zu re-pinned",
                               files.ptr, added, removed, changed);
        mn_candidate_intro(k, c);
        mn_buf_puts(&k->body, "\n");
        for (size_t i = 0; i < ch.len && i < 60; i++) {
            const change *x = &ch.items[i];
            mn_buf_printf(&k->body, "\n- %s %s %s%s%s%s", x->what, x->d->shown,
                          x->old ? x->old : "", x->old && x->new ? " -> " : "",
                          x->new ? x->new : "", strcmp(x->section, "runtime") ? " (" : "");
            if (strcmp(x->section, "runtime"))
                mn_buf_printf(&k->body, "%s)", x->section);
        }
        mn_strv_add(k->tags, "dependencies");
        evidence_for(c, k, g->files, g->nfiles, NULL);
        mn_buf_release(&files);
        mn_vec_release(&ch);
        return;
    }
    for (size_t i = 0; i < ch.len; i++) {
        const change *x = &ch.items[i];
        const dep *d = x->d;
        /* a new major version of what the package runs on is a fact; a development tool's
         * pins move all the time */
        bool runs_on = strcmp(x->section, "dev") != 0 && strcmp(x->section, "build") != 0;
        double conf = !strcmp(x->what, "changed") ? (x->major && runs_on ? 0.86 : 0.60)
                                                  : section_confidence(x->section);
        mn_candidate *k = mn_candidate_add(out, "dependency", "fact", conf);
        mn_candidate_key(k, "dep:%s:%s:%s:%s", d->eco, d->dir, d->name, x->what);
        free(k->state_key);
        mn_buf st = MN_BUF_INIT;
        mn_buf_printf(&st, "dep:%s:%s:%s", d->eco, d->dir, d->name);
        k->state_key = mn_buf_detach(&st);
        const char *where = g->nfiles ? g->files[0]->path : d->dir;
        for (size_t f = 0; f < g->nfiles; f++) {
            size_t n0, n1;
            const char *t0 = mn_delta_text(c, g->files[f], 0, &n0);
            const char *t1 = mn_delta_text(c, g->files[f], 1, &n1);
            if ((t1 && strcasestr(t1, d->name)) || (t0 && strcasestr(t0, d->name))) {
                where = g->files[f]->path;
                break;
            }
        }
        const char *words = section_words(x->section);
        /* pip and gem write the spec right after the name (requests>=2); others apart */
        bool glued = (!strcmp(d->eco, "pip")) && *d->spec && strchr("<>=!~[", d->spec[0]);
        if (!strcmp(x->what, "added"))
            mn_candidate_title(k, "Added %s %s%s%s (%s)", words, d->shown,
                               *d->spec && !glued ? " " : "", d->spec, where);
        else if (!strcmp(x->what, "removed"))
            mn_candidate_title(k, "Dropped %s %s (%s)", words, d->shown, where);
        else
            mn_candidate_title(k, "%s %s now %s (was %s) (%s)", words, d->shown,
                               *x->new ? x->new : "unpinned", *x->old ? x->old : "unpinned", where);
        k->title[0] = (char)toupper((unsigned char)k->title[0]);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\n%s %s %s", where, x->what, d->shown);
        if (x->old && x->new)
            mn_buf_printf(&k->body, ": %s -> %s", *x->old ? x->old : "(any)",
                          *x->new ? x->new : "(any)");
        else if (*d->spec)
            mn_buf_printf(&k->body, " %s", d->spec);
        mn_buf_printf(&k->body, " (%s, %s).", d->eco, x->section);
        mn_strv_add(k->tags, "dependencies");
        evidence_for(c, k, g->files, g->nfiles, d->name);
    }
    mn_vec_release(&ch);
}

static void compare_runtime(mn_commit_view *c, dir_group *g, mn_candidate_vec *out)
{
    static const char *const langs[] = {"python", "node", "go", "rust", "php", "ruby"};
    static const char *const names[] = {"Python", "Node.js", "Go", "Rust", "PHP", "Ruby"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(langs); i++) {
        const char *a = mn_map_get(&g->before.runtime, langs[i]);
        const char *b = mn_map_get(&g->after.runtime, langs[i]);
        if ((!a && !b) || (a && b && !strcmp(a, b)) || !b)
            continue;
        mn_candidate *k = mn_candidate_add(out, "runtime", "fact", 0.90);
        mn_candidate_key(k, "runtime:%s:%s", g->dir, langs[i]);
        mn_buf st = MN_BUF_INIT;
        mn_buf_printf(&st, "runtime:%s:%s", g->dir, langs[i]);
        k->state_key = mn_buf_detach(&st);
        if (a)
            mn_candidate_title(k, "Requires %s %s (was %s)", names[i], b, a);
        else
            mn_candidate_title(k, "Requires %s %s", names[i], b);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\nThe %s version required is now %s%s%s.", names[i], b,
                      a ? ", was " : "", a ? a : "");
        mn_strv_add(k->tags, "runtime");
        evidence_for(c, k, g->files, g->nfiles,
                     langs[i][0] == 'p' && langs[i][1] == 'y' ? "python" : NULL);
    }
    /* the Python versions the classifiers declare */
    mn_buf added = MN_BUF_INIT, dropped = MN_BUF_INIT;
    size_t pos = 0;
    const char *v;
    void *unused;
    while (mn_map_next(&g->after.pyvers, &pos, &v, &unused))
        if (!mn_map_has(&g->before.pyvers, v))
            mn_buf_printf(&added, "%s%s", added.len ? ", " : "", v);
    pos = 0;
    while (mn_map_next(&g->before.pyvers, &pos, &v, &unused))
        if (!mn_map_has(&g->after.pyvers, v))
            mn_buf_printf(&dropped, "%s%s", dropped.len ? ", " : "", v);
    bool had = mn_map_next(&g->before.pyvers, &(size_t){0}, &v, &unused);
    if ((added.len || dropped.len) && had) {
        mn_candidate *k = mn_candidate_add(out, "runtime", "fact", 0.86);
        mn_candidate_key(k, "pyversions:%s", g->dir);
        mn_buf st = MN_BUF_INIT;
        mn_buf_printf(&st, "pyversions:%s", g->dir);
        k->state_key = mn_buf_detach(&st);
        mn_buf all = MN_BUF_INIT;
        pos = 0;
        while (mn_map_next(&g->after.pyvers, &pos, &v, &unused))
            mn_buf_printf(&all, "%s%s", all.len ? ", " : "", v);
        mn_candidate_title(k, "Supported Python versions: %s%s%s%s%s", added.len ? "added " : "",
                           added.len ? added.ptr : "", added.len && dropped.len ? "; " : "",
                           dropped.len ? "dropped " : "", dropped.len ? dropped.ptr : "");
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\nThe package classifiers now list Python %s.",
                      all.len ? all.ptr : "(none)");
        mn_strv_add(k->tags, "runtime");
        evidence_for(c, k, g->files, g->nfiles, "Programming Language");
        mn_buf_release(&all);
    }
    mn_buf_release(&added);
    mn_buf_release(&dropped);
}

int mn_cand_dependencies(mn_commit_view *c, mn_candidate_vec *out)
{
    MN_VEC(dir_group) groups = MN_VEC_INIT;
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        const char *section;
        mkind k = manifest_kind(d->path, &section);
        if (k == M_NONE || d->binary || d->cls.role == MN_ROLE_VENDORED ||
            d->cls.role == MN_ROLE_GENERATED || strstr(d->path, "fixtures/") ||
            strstr(d->path, "node_modules/") || strstr(d->path, "testdata/"))
            continue;
        char *dir = manifest_dir(d->path);
        /* requirements*.txt beside a package manifest (setup.py, setup.cfg, pyproject.toml)
         * pins an environment (tests, docs, development): the package's own dependencies
         * are the manifest's */
        if (k == M_REQUIREMENTS && !strcmp(section, "runtime")) {
            static const char *const pkg[] = {"setup.py", "setup.cfg", "pyproject.toml"};
            for (size_t j = 0; j < MN_ARRAY_SIZE(pkg); j++) {
                mn_buf p = MN_BUF_INIT;
                mn_buf_printf(&p, "%s%s%s", strcmp(dir, ".") ? dir : "",
                              strcmp(dir, ".") ? "/" : "", pkg[j]);
                bool there = mn_commit_has_path(c, p.ptr, false);
                mn_buf_release(&p);
                if (there) {
                    section = "dev";
                    break;
                }
            }
        }
        dir_group *g = NULL;
        for (size_t j = 0; j < groups.len && !g; j++)
            if (!strcmp(groups.items[j].dir, dir))
                g = &groups.items[j];
        if (!g) {
            dir_group ng;
            memset(&ng, 0, sizeof(ng));
            ng.dir = dir;
            mn_vec_push(&groups, ng);
            g = &groups.items[groups.len - 1];
        } else {
            free(dir);
        }
        if (g->nfiles < MN_ARRAY_SIZE(g->files))
            g->files[g->nfiles++] = d;
        if (d->status == MN_DELTA_ADDED)
            g->added_manifest = true;
        for (int w = 0; w < 2; w++) {
            size_t len;
            const char *t = mn_delta_text(c, d, w, &len);
            if (t)
                read_manifest(w ? &g->after : &g->before, k, g->dir, section, t, len);
        }
    }
    for (size_t i = 0; i < groups.len; i++) {
        dir_group *g = &groups.items[i];
        compare(c, g, out);
        compare_runtime(c, g, out);
        manifest_release(&g->before);
        manifest_release(&g->after);
        free((char *)g->dir);
    }
    mn_vec_release(&groups);
    return 0;
}
