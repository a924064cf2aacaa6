/*
 * facts.c - the evidence written as findings: one per key, with a title
 * (the answer in a line), a body (the answer with its evidence), the paths
 * it speaks of and keywords.
 *
 * dx_emit_all writes them in a fixed order (the keys at the top of
 * discover.c); each emit_* reads only the context, so a fact's text depends
 * on the evidence alone. Titles are one line of at most TITLE_MAX
 * characters (cut with "..."), bodies at most BODY_MAX bytes (cut with a
 * "(cut)" line), keywords lower case, at most 32; a key longer than the
 * 64-character tag limit is cut and ends with a hash of the whole key, so it
 * stays stable. The best command candidate (highest score, then first
 * found) is the title of its fact, every candidate is in the body. Bodies
 * name central files in rank order but print no rank values: ranks move
 * whenever any file is added, which would rewrite every domain fact on
 * every run.
 */
#include "common.h"
#include <xxhash.h>

#include "index/discover/discover_internal.h"
#include "util/util.h"

#define TITLE_MAX 200
#define BODY_MAX  12000
#define TAG_MAX   64

static const char *const cmd_keys[CMD_N] = {"build-command", "test-command", "run-command",
                                            "lint-command"};
static const char *const cmd_names[CMD_N] = {"Build", "Test", "Run", "Lint"};

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
static void emit(dx_ctx *d, const char *key, int level, mn_buf *title, mn_buf *body, json_t *paths,
                 const char *keywords)
{
    mn_buf t = MN_BUF_INIT;
    dx_put_oneline(&t, title->ptr, 600);
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
                *c = dx_lower(*c);
            if (n && mn_utf8_len(w, n) <= 64 && mn_utf8_valid(w, n))
                dx_add_unique(kw, w);
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

static const char *main_language(const dx_ctx *d)
{
    return json_array_size(d->langshare)
               ? json_string_value(json_array_get(json_array_get(d->langshare, 0), 0))
               : NULL;
}

static void emit_languages(dx_ctx *d)
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
        dx_fmt_count(n1, (int64_t)d->files.len);
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
    dx_fmt_count(n1, total);
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
        dx_fmt_count(n1, l);
        dx_fmt_count(n2, json_integer_value(json_array_get(e, 2)));
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

static void emit_project_type(dx_ctx *d)
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
            n += dx_starts(dx_jstr(json_array_get(d->entries, i), "what"), "console script") ||
                 dx_starts(dx_jstr(json_array_get(d->entries, i), "what"), "command ");
        mn_buf_printf(&kinds, " with %s", n > 1 ? "command-line tools" : "a command-line tool");
        size_t shown = 0;
        for (size_t i = 0; i < json_array_size(d->entries) && shown < 3; i++) {
            const char *w = dx_jstr(json_array_get(d->entries, i), "what");
            const char *nm = dx_starts(w, "console script ") ? w + 15
                             : dx_starts(w, "command ")      ? w + 8
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

static void emit_package_manager(dx_ctx *d)
{
    size_t n = json_array_size(d->managers), i;
    if (!n && !json_object_size(d->builders))
        return;
    json_t **v = mn_malloc((n ? n : 1) * sizeof(json_t *));
    for (i = 0; i < n; i++) {
        v[i] = json_array_get(d->managers, i);
        json_object_set_new(v[i], "rank",
                            json_integer((json_int_t)dx_lang_rank(d, dx_jstr(v[i], "lang"))));
        json_object_set_new(v[i], "order", json_integer((json_int_t)i));
    }
    qsort(v, n, sizeof(json_t *), by_rank_field);
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    mn_buf_puts(&kw, "package manager, install, dependencies, setup");
    if (n) {
        mn_buf_printf(&t, "Package manager: %s (%s)", dx_jstr(v[0], "name"), dx_jstr(v[0], "why"));
        if (dx_jstr(v[0], "install"))
            mn_buf_printf(&t, ", install with %s", dx_jstr(v[0], "install"));
        for (i = 1; i < n && i < 4; i++)
            mn_buf_printf(&t, "%s%s", i == 1 ? "; also " : ", ", dx_jstr(v[i], "name"));
    }
    if (json_object_size(d->builders)) {
        mn_buf_puts(&t, n ? "; builds with " : "Build system: ");
        join_keys(&t, d->builders, ", ", 3);
        if (!n)
            mn_buf_printf(&t, " (%s)",
                          json_string_value(json_object_iter_value(json_object_iter(d->builders))));
    }
    for (i = 0; i < n; i++) {
        mn_buf_printf(&b, "- %s, from %s", dx_jstr(v[i], "name"), dx_jstr(v[i], "why"));
        if (dx_jstr(v[i], "install"))
            mn_buf_printf(&b, "; install: %s", dx_jstr(v[i], "install"));
        mn_buf_puts(&b, "\n");
        mn_buf_printf(&kw, ", %s", dx_jstr(v[i], "name"));
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

static void emit_frameworks(dx_ctx *d)
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
            mn_buf_printf(&t, "%s%s (%s)", i ? ", " : "", k, dx_jstr(v, "what"));
        else if (i == 8)
            mn_buf_puts(&t, ", ...");
        i++;
        mn_buf_printf(&b, "- %s (%s): %s\n", k, dx_jstr(v, "what"), dx_jstr(v, "why"));
        mn_buf_printf(&kw, ", %s", k);
    }
    emit(d, "frameworks", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_dependencies(dx_ctx *d)
{
    if (!json_array_size(d->deps))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    json_t *rt = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(d->deps, i, e)
    {
        const char *sec = dx_jstr(e, "section");
        if (!rt && (!strcmp(sec, "runtime") || !strcmp(sec, "find_package")))
            rt = e;
        mn_buf_printf(&b, "%s (%s):", dx_jstr(e, "manifest"), sec);
        size_t j;
        json_t *n;
        json_array_foreach(json_object_get(e, "names"), j, n)
            mn_buf_printf(&b, "%s%s", j ? ", " : " ", json_string_value(n));
        mn_buf_puts(&b, "\n");
    }
    mn_buf_puts(&kw, "dependencies, requirements, packages");
    if (rt) {
        json_t *names = json_object_get(rt, "names");
        mn_buf_printf(&t, "Runtime dependencies (%s): ", dx_jstr(rt, "manifest"));
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
        mn_buf_printf(&t, "No runtime dependencies declared; %s (%s) lists %zu",
                      dx_jstr(e, "section"), dx_jstr(e, "manifest"),
                      json_array_size(json_object_get(e, "names")));
    }
    emit(d, "dependencies", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static void emit_list(dx_ctx *d, const char *key, const char *lead, const json_t *items,
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

static void emit_commands(dx_ctx *d)
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
        mn_buf_printf(&t, "%s command: %s (%s", cmd_names[k], dx_jstr(v[0], "cmd"),
                      dx_jstr(v[0], "why"));
        if (dx_jstr(v[0], "detail"))
            mn_buf_printf(&t, ": %s", dx_jstr(v[0], "detail"));
        mn_buf_puts(&t, ")");
        mn_buf_printf(&b, "%s with: %s\n\nCandidates, best first:\n", cmd_names[k],
                      dx_jstr(v[0], "cmd"));
        for (size_t i = 0; i < n; i++) {
            mn_buf_printf(&b, "- %s: %s", dx_jstr(v[i], "cmd"), dx_jstr(v[i], "why"));
            if (dx_jstr(v[i], "detail"))
                mn_buf_printf(&b, " (%s)", dx_jstr(v[i], "detail"));
            mn_buf_puts(&b, "\n");
        }
        mn_buf_printf(&kw, "%s, %s", kws[k], dx_jstr(v[0], "cmd"));
        char first[64];
        snprintf(first, sizeof(first), "%s", dx_jstr(v[0], "cmd"));
        first[strcspn(first, " ")] = '\0';
        mn_buf_printf(&kw, ", %s", first);
        free(v);
        emit(d, cmd_keys[k], 0, &t, &b, NULL, kw.ptr);
        mn_buf_release(&kw);
    }
}

static void emit_entries(dx_ctx *d)
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
        json_array_foreach(d->entries, j, e) known |= strstr(dx_jstr(e, "what"), p) != NULL;
        if (!known && json_array_size(d->entries) < 12) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (a main function)", p);
            dx_add_entry(d, w.ptr, "the symbol index");
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
            mn_buf_printf(&t, "%s%s", i ? "; " : "", dx_jstr(e, "what"));
        else if (i == 4)
            mn_buf_printf(&t, "; and %zu more", json_array_size(d->entries) - 4);
        mn_buf_printf(&b, "- %s (from %s)\n", dx_jstr(e, "what"), dx_jstr(e, "why"));
    }
    emit(d, "entry-points", 0, &t, &b, NULL, kw.ptr);
    mn_buf_release(&kw);
}

static int domain_index(const dx_ctx *d, const char *path)
{
    for (size_t i = 0; i < d->domains.len; i++)
        if (!strcmp(d->domains.items[i].path, path))
            return (int)i;
    return -1;
}

static void emit_main_package(dx_ctx *d)
{
    if (!d->domains.len)
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT;
    char n1[32];
    const dx_domain *big = NULL;
    for (size_t i = 0; i < d->domains.len; i++)
        if (strcmp(d->domains.items[i].path, ".") &&
            (!big || d->domains.items[i].lines > big->lines))
            big = &d->domains.items[i];
    if (!big)
        big = &d->domains.items[0];
    /* the package named after the project, when there is one */
    const dx_domain *named = NULL;
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
            if (strcmp(dx_base_name(json_string_value(p)), w))
                continue;
            int k = domain_index(d, json_string_value(p));
            if (k >= 0)
                named = &d->domains.items[k];
        }
        /* a module named after the project at the top, or in src/, lib/... */
        for (size_t k = 0; !named && k < d->domains.len; k++) {
            const char *dp = d->domains.items[k].path, *bn = dx_base_name(dp);
            if (strcmp(bn, w) || dx_depth_of(dp) > 1 ||
                (bn != dp &&
                 !dx_in_words(dp, (size_t)(bn - dp - 1), "src lib source packages crates")))
                continue;
            named = &d->domains.items[k];
        }
        /* a public package that re-exports a bigger private one: pytest and _pytest */
        if (!named) {
            json_array_foreach(d->pypkgs, i, p) if (!strcmp(dx_base_name(json_string_value(p)), w))
            {
                mn_buf_printf(&t, "Main package: %s (%s)", w, json_string_value(p));
                dx_fmt_count(n1, big->lines);
                mn_buf_printf(&t, ", implemented mostly in %s (%lld files, %s lines)", big->path,
                              (long long)big->files, n1);
                mn_buf_printf(&b, "The project %s (%s) is the package %s in %s.\n", d->name,
                              d->name_why, w, json_string_value(p));
                mn_buf_printf(&b, "Most of the code is in %s: %lld source files, %s lines.\n",
                              big->path, (long long)big->files, n1);
                mn_buf_printf(&kw, "main package, package, %s, %s", w, dx_base_name(big->path));
                json_t *paths = json_pack("[s,s]", json_string_value(p), big->path);
                emit(d, "main-package", 0, &t, &b, paths, kw.ptr);
                mn_buf_release(&kw);
                return;
            }
        }
    }
    if (named && big != named && big->lines > named->lines * 2) {
        dx_fmt_count(n1, big->lines);
        mn_buf_printf(&t, "Main package: %s (%s), implemented mostly in %s (%lld files, %s lines)",
                      d->name, named->path, big->path, (long long)big->files, n1);
        mn_buf_printf(&b,
                      "The project %s (%s) is the package in %s (%lld files); most of its "
                      "code is in %s: %lld source files, %s lines.\n",
                      d->name, d->name_why, named->path, (long long)named->files, big->path,
                      (long long)big->files, n1);
        mn_buf_printf(&kw, "main package, package, main module, %s, %s", dx_base_name(named->path),
                      dx_base_name(big->path));
        emit(d, "main-package", 0, &t, &b, json_pack("[s,s]", named->path, big->path), kw.ptr);
        mn_buf_release(&kw);
        return;
    }
    if (!named && d->name && !strcmp(big->path, "."))
        named = big;
    const dx_domain *m = named ? named : big;
    dx_fmt_count(n1, m->lines);
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
    mn_buf_printf(&kw, "main package, package, main module, %s", dx_base_name(m->path));
    if (d->name)
        mn_buf_printf(&kw, ", %s", d->name);
    emit(d, "main-package", 0, &t, &b, strcmp(m->path, ".") ? json_pack("[s]", m->path) : NULL,
         kw.ptr);
    mn_buf_release(&kw);
}

static void emit_style(dx_ctx *d)
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

static void emit_ci(dx_ctx *d)
{
    if (!json_array_size(d->ci))
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT;
    size_t i, j;
    json_t *c, *x;
    mn_buf_puts(&t, "CI: ");
    json_array_foreach(d->ci, i, c)
    {
        mn_buf_printf(&t, "%s%s", i ? "; " : "", dx_jstr(c, "system"));
        mn_buf_printf(&b, "%s\n", dx_jstr(c, "system"));
        json_array_foreach(json_object_get(c, "details"), j, x)
            mn_buf_printf(&b, "- %s\n", json_string_value(x));
    }
    emit(d, "ci", 0, &t, &b, NULL,
         "ci, continuous integration, pipeline, workflow, github actions, checks");
}

static void emit_monorepo(dx_ctx *d)
{
    size_t n = json_array_size(d->packages), i;
    if (!n)
        return;
    mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, why = MN_BUF_INIT;
    json_t *p, *w;
    json_array_foreach(d->workspaces, i, w)
    {
        if (!strstr(why.ptr, dx_jstr(w, "why")))
            mn_buf_printf(&why, "%s%s", why.len ? ", " : "", dx_jstr(w, "why"));
    }
    mn_buf_printf(&t, "Monorepo: %zu packages (%s): ", n,
                  why.len ? why.ptr : "package manifests in sub-directories");
    json_array_foreach(d->packages, i, p)
    {
        if (i < 6)
            mn_buf_printf(&t, "%s%s", i ? ", " : "", dx_jstr(p, "dir"));
        else if (i == 6)
            mn_buf_printf(&t, " and %zu more", n - 6);
        mn_buf_printf(&b, "- %s: %s", dx_jstr(p, "dir"), dx_jstr(p, "manifest"));
        if (dx_jstr(p, "name"))
            mn_buf_printf(&b, " (%s)", dx_jstr(p, "name"));
        mn_buf_puts(&b, "\n");
    }
    if (json_array_size(d->workspaces)) {
        mn_buf_puts(&b, "Workspace patterns:");
        json_array_foreach(d->workspaces, i, w) mn_buf_printf(&b, " %s", dx_jstr(w, "glob"));
        mn_buf_puts(&b, "\n");
    }
    if (dx_have(d, "nx.json"))
        mn_buf_puts(&b, "Tasks run with Nx (nx.json).\n");
    if (dx_have(d, "turbo.json"))
        mn_buf_puts(&b, "Tasks run with Turborepo (turbo.json).\n");
    mn_buf_release(&why);
    emit(d, "monorepo", 0, &t, &b, NULL, "monorepo, workspace, workspaces, packages");
}

/* What a domain holds: languages, sub-modules, central files, main symbols. */
static void describe_domain(dx_ctx *d, size_t k, mn_buf *t, mn_buf *b, mn_buf *kw)
{
    dx_domain *dm = &d->domains.items[k];
    size_t plen = strcmp(dm->path, ".") ? strlen(dm->path) + 1 : 0;
    char n1[32];
    json_t *langs = json_object(), *subs = json_object();
    const dx_file *central[5] = {NULL};
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        if (f->domain != (int)k)
            continue;
        const char *ln = dx_lang_display(f->language);
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
    dx_fmt_count(n1, dm->lines);
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
        dx_fmt_count(n1, json_integer_value(lv));
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
            const char *base = dx_base_name(central[c]->path);
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
            mn_buf_printf(b, "%s %s (%s, %s)", i ? "," : "", dx_jstr(y, "name"), dx_jstr(y, "kind"),
                          dx_jstr(y, "path") + plen);
            if (i < 4)
                mn_buf_printf(kw, ", %s", dx_jstr(y, "name"));
        }
        mn_buf_puts(b, "\n");
    }
    json_decref(langs);
    json_decref(subs);
}

static void emit_domains(dx_ctx *d)
{
    for (size_t k = 0; k < d->domains.len; k++) {
        dx_domain *dm = &d->domains.items[k];
        mn_buf t = MN_BUF_INIT, b = MN_BUF_INIT, kw = MN_BUF_INIT, key = MN_BUF_INIT;
        json_t *pkg = NULL;
        size_t i;
        json_t *p;
        json_array_foreach(d->packages, i, p) if (!strcmp(dx_jstr(p, "dir"), dm->path)) pkg = p;
        if (pkg) {
            mn_buf_printf(&t, "Package %s", dm->path);
            if (dx_jstr(pkg, "name"))
                mn_buf_printf(&t, " (%s)", dx_jstr(pkg, "name"));
            mn_buf_puts(&t, ": ");
            mn_buf_printf(&b, "Package of the monorepo, manifest %s", dx_jstr(pkg, "manifest"));
            if (dx_jstr(pkg, "name"))
                mn_buf_printf(&b, ", name %s", dx_jstr(pkg, "name"));
            mn_buf_puts(&b, ".\n");
            if (dx_jstr(pkg, "description"))
                mn_buf_printf(&b, "Description: %s\n", dx_jstr(pkg, "description"));
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
            mn_buf_printf(&kw, "package, %s", dx_base_name(dm->path));
            if (dx_jstr(pkg, "name"))
                mn_buf_printf(&kw, ", %s", dx_jstr(pkg, "name"));
            mn_buf_printf(&key, "package:%s", dm->path);
        } else {
            mn_buf_printf(&t,
                          "Domain %s: ", strcmp(dm->path, ".") ? dm->path : "(top-level files)");
            mn_buf_printf(&kw, "domain, module, %s",
                          strcmp(dm->path, ".") ? dx_base_name(dm->path) : "top-level");
            mn_buf_printf(&key, "domain:%s", dm->path);
        }
        describe_domain(d, k, &t, &b, &kw);
        emit(d, key.ptr, 1, &t, &b, strcmp(dm->path, ".") ? json_pack("[s]", dm->path) : NULL,
             kw.ptr);
        mn_buf_release(&kw);
        mn_buf_release(&key);
    }
}

void dx_emit_all(dx_ctx *d)
{
    emit_languages(d);
    emit_project_type(d);
    emit_package_manager(d);
    emit_frameworks(d);
    emit_dependencies(d);
    emit_list(d, "runtime", "Runtime: ", d->runtime, "runtime, version, interpreter, toolchain");
    emit_commands(d);
    emit_entries(d);
    emit_main_package(d);
    emit_style(d);
    emit_ci(d);
    emit_list(d, "docs", "Documentation: ", d->docs, "documentation, docs, manual");
    emit_monorepo(d);
    emit_domains(d);
}
