/*
 * context.c - the run's context: small string and JSON helpers, the file
 * table taken from the index, and the recording of evidence.
 *
 * The file table (dx_on_file) holds every indexed file, in path order, with
 * a map from path to index, so dx_have is one lookup and a scanner never
 * touches the disk to learn whether a file exists. Evidence goes into
 * dx_ctx's JSON arrays and objects; every recorder keeps the first
 * evidence for a thing (a manager, a command, an entry point, a style
 * tool), so the order of the scans decides whose evidence is shown: the
 * main language's ecosystem scans first. Dependencies are matched against
 * the well-known ones of the ecosystem that owns their deps key (the
 * `frameworks` of its dx_ecosystem), normalized the PEP 503 way.
 */
#include "common.h"
#include <fnmatch.h>

#include "index/discover/discover_internal.h"
#include "util/util.h"

/* ---- small helpers ---- */

const char *dx_jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

json_t *dx_jget(const json_t *o, ...)
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

bool dx_starts(const char *s, const char *pre)
{
    return strncmp(s, pre, strlen(pre)) == 0;
}

bool dx_ends(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

bool dx_in_words(const char *s, size_t n, const char *words)
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

const char *dx_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int dx_depth_of(const char *path)
{
    int n = 0;
    for (const char *p = path; *p; p++)
        n += *p == '/';
    return n;
}

char dx_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

void dx_norm_name(char *out, size_t cap, const char *s, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < cap; i++)
        out[j++] = s[i] == '_' || s[i] == '.' ? '-' : dx_lower(s[i]);
    out[j] = '\0';
}

void dx_add_unique(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(arr, json_string(s));
}

void dx_put_oneline(mn_buf *b, const char *s, size_t max)
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

void dx_fmt_count(char out[32], int64_t n)
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

/* ---- the file table ---- */

static const char *intern_lang(dx_ctx *d, const char *l)
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

const dx_file *dx_file_get(const dx_ctx *d, const char *path)
{
    uintptr_t i = (uintptr_t)mn_map_get(&d->by_path, path);
    return i ? &d->files.items[i - 1] : NULL;
}

bool dx_have(const dx_ctx *d, const char *path)
{
    return dx_file_get(d, path) != NULL;
}

bool dx_have_under(const dx_ctx *d, const char *dir)
{
    size_t n = strlen(dir);
    for (size_t i = 0; i < d->files.len; i++)
        if (!strncmp(d->files.items[i].path, dir, n) && d->files.items[i].path[n] == '/')
            return true;
    return false;
}

const char *dx_have_first(const dx_ctx *d, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (dx_have(d, names[i]))
            return names[i];
    return NULL;
}

const char *dx_find_glob(const dx_ctx *d, const char *glob)
{
    for (size_t i = 0; i < d->files.len; i++)
        if (fnmatch(glob, d->files.items[i].path, FNM_PATHNAME) == 0)
            return d->files.items[i].path;
    return NULL;
}

int dx_on_file(void *payload, const mn_file_rec *f)
{
    dx_ctx *d = payload;
    dx_file x;
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

/* ---- recording evidence ---- */

void dx_add_manager(dx_ctx *d, const char *lang, const char *name, const char *why,
                    const char *install)
{
    size_t i;
    json_t *m;
    json_array_foreach(d->managers, i, m) if (!strcmp(dx_jstr(m, "name"), name)) return;
    json_array_append_new(d->managers, json_pack("{s:s,s:s,s:s?,s:s}", "name", name, "why", why,
                                                 "install", install, "lang", lang));
}

void dx_add_cmd(dx_ctx *d, int kind, int score, const char *cmd, const char *why,
                const char *detail)
{
    size_t i;
    json_t *c;
    json_array_foreach(d->cmds[kind], i, c) if (!strcmp(dx_jstr(c, "cmd"), cmd)) return;
    /* another ecosystem's command loses to the main language's and to the build tools' */
    if (d->cur_lang && dx_lang_rank(d, d->cur_lang) > 0)
        score -= 25;
    json_array_append_new(d->cmds[kind], json_pack("{s:s,s:s,s:s?,s:i,s:i}", "cmd", cmd, "why", why,
                                                   "detail", detail, "score", score, "order",
                                                   (int)json_array_size(d->cmds[kind])));
}

void dx_add_entry(dx_ctx *d, const char *what, const char *why)
{
    size_t i;
    json_t *e;
    json_array_foreach(d->entries, i, e) if (!strcmp(dx_jstr(e, "what"), what)) return;
    json_array_append_new(d->entries, json_pack("{s:s,s:s}", "what", what, "why", why));
}

void dx_add_kv(json_t *obj, const char *k, const char *why)
{
    if (!json_object_get(obj, k))
        json_object_set_new(obj, k, json_string(why));
}

void dx_add_deps(dx_ctx *d, const char *manifest, const char *section, json_t *names)
{
    if (json_array_size(names))
        json_array_append_new(d->deps, json_pack("{s:s,s:s,s:o}", "manifest", manifest, "section",
                                                 section, "names", names));
    else
        json_decref(names);
}

void dx_set_name(dx_ctx *d, const char *name, const char *desc, const char *why)
{
    if (d->name || !name || !*name)
        return;
    d->name = mn_strdup(name);
    d->name_why = mn_strdup(why);
    if (desc && *desc) {
        mn_buf b = MN_BUF_INIT;
        dx_put_oneline(&b, desc, 160);
        d->description = mn_buf_detach(&b);
    }
    dx_norm_name(d->self_norm, sizeof(d->self_norm), name, strlen(name));
    d->self_dep = d->self_norm;
}

void dx_add_workspace(dx_ctx *d, const char *glob, const char *why)
{
    json_array_append_new(d->workspaces, json_pack("{s:s,s:s}", "glob", glob, "why", why));
}

/* ---- dependencies and frameworks ---- */

/* The well-known dependency norm of the ecosystem whose deps key is eco, or NULL. */
static const dx_framework *framework_of(const char *eco, const char *norm)
{
    for (size_t e = 0; e < dx_necosystems; e++) {
        const dx_ecosystem *x = dx_ecosystems[e];
        if (!x->deps || strcmp(x->deps, eco))
            continue;
        for (size_t i = 0; i < x->nframeworks; i++) {
            const dx_framework *f = &x->frameworks[i];
            size_t n = strlen(f->dep);
            if (f->dep[n - 1] == '*' ? !strncmp(norm, f->dep, n - 1) : !strcmp(norm, f->dep))
                return f;
        }
    }
    return NULL;
}

void dx_see_dep(dx_ctx *d, const char *eco, const char *name, size_t n, const char *where)
{
    char norm[160];
    dx_norm_name(norm, sizeof(norm), name, n);
    if (d->self_dep && !strcmp(norm, d->self_dep))
        return;
    const dx_framework *f = framework_of(eco, norm);
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

json_t *dx_keys_as_deps(dx_ctx *d, const char *eco, const json_t *obj, const char *where,
                        const char *skip)
{
    json_t *names = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (skip && !strcmp(k, skip))
            continue;
        dx_add_unique(names, k);
        dx_see_dep(d, eco, k, strlen(k), where);
    }
    return names;
}
