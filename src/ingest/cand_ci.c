/*
 * cand_ci.c - CI, build and configuration changes.
 *
 *   ci        a CI configuration added or removed (GitHub Actions, Travis,
 *             CircleCI, GitLab, AppVeyor, Azure Pipelines, Jenkins, Drone,
 *             Buildkite, Cirrus): 0.88; the language versions a CI matrix or
 *             tox's envlist tests changed (python-version, node, go, ruby,
 *             jdk, php keys of the YAML; py38 in envlist): 0.86, a state per
 *             file and language, so the newest matrix is the active fact;
 *   build     the base image of a Dockerfile changed (FROM): 0.86;
 *   config    a tool adopted or dropped: its configuration file added or
 *             removed at the top of the tree (docs/Makefile is Sphinx's,
 *             not the project's) (pre-commit,
 *             ESLint, Prettier, Black, Ruff, flake8, mypy, tox, nox,
 *             EditorConfig, clang-format, golangci-lint, Renovate,
 *             Dependabot, Read the Docs, Codecov, coverage, pytest, Docker,
 *             Make, CMake, Bazel, Meson...): 0.86, a state per tool;
 *   build     other edits of build and config files (three changed lines
 *             at least), one candidate per commit: 0.40 - the review queue
 *             keeps them for a person, they are rarely a fact on their own.
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"
#include "util/map.h"
#include "util/yaml.h"

static const struct {
    const char *path; /* exact path, or a directory prefix ending in '/' */
    const char *system;
} ci_files[] = {
    {".github/workflows/", "GitHub Actions"},
    {".travis.yml", "Travis CI"},
    {".circleci/", "CircleCI"},
    {".gitlab-ci.yml", "GitLab CI"},
    {"appveyor.yml", "AppVeyor"},
    {".appveyor.yml", "AppVeyor"},
    {"azure-pipelines.yml", "Azure Pipelines"},
    {"Jenkinsfile", "Jenkins"},
    {".drone.yml", "Drone"},
    {"bitbucket-pipelines.yml", "Bitbucket Pipelines"},
    {".buildkite/", "Buildkite"},
    {".cirrus.yml", "Cirrus CI"},
};

static const char *ci_system(const char *path)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(ci_files); i++) {
        size_t n = strlen(ci_files[i].path);
        if (ci_files[i].path[n - 1] == '/' ? !strncmp(path, ci_files[i].path, n)
                                           : !strcmp(path, ci_files[i].path))
            return ci_files[i].system;
    }
    return NULL;
}

/* Tools known by a configuration file's name (at the top two levels). */
static const struct {
    const char *file; /* a name, or a prefix ending in '*' */
    const char *tool;
} tools[] = {
    {".pre-commit-config.yaml", "pre-commit"},
    {".eslintrc*", "ESLint"},
    {"eslint.config.*", "ESLint"},
    {".prettierrc*", "Prettier"},
    {"prettier.config.*", "Prettier"},
    {"ruff.toml", "Ruff"},
    {".ruff.toml", "Ruff"},
    {".flake8", "flake8"},
    {"mypy.ini", "mypy"},
    {".mypy.ini", "mypy"},
    {"tox.ini", "tox"},
    {"noxfile.py", "nox"},
    {".editorconfig", "EditorConfig"},
    {".clang-format", "clang-format"},
    {".clang-tidy", "clang-tidy"},
    {".golangci.yml", "golangci-lint"},
    {".golangci.yaml", "golangci-lint"},
    {"renovate.json", "Renovate"},
    {".github/dependabot.yml", "Dependabot"},
    {".readthedocs.yml", "Read the Docs"},
    {".readthedocs.yaml", "Read the Docs"},
    {"codecov.yml", "Codecov"},
    {".codecov.yml", "Codecov"},
    {".coveragerc", "coverage.py"},
    {"pytest.ini", "pytest"},
    {"Dockerfile", "Docker"},
    {"docker-compose.yml", "Docker Compose"},
    {"docker-compose.yaml", "Docker Compose"},
    {"compose.yaml", "Docker Compose"},
    {"Makefile", "Make"},
    {"CMakeLists.txt", "CMake"},
    {"meson.build", "Meson"},
    {"WORKSPACE", "Bazel"},
    {"MODULE.bazel", "Bazel"},
    {"justfile", "just"},
    {"Taskfile.yml", "Task"},
    {".stylelintrc*", "Stylelint"},
    {"biome.json", "Biome"},
    {"tsconfig.json", "TypeScript"},
    {"babel.config.*", "Babel"},
    {".babelrc", "Babel"},
    {"webpack.config.*", "webpack"},
    {"vite.config.*", "Vite"},
    {"jest.config.*", "Jest"},
    {".pylintrc", "Pylint"},
    {".isort.cfg", "isort"},
    {".rubocop.yml", "RuboCop"},
    {"rustfmt.toml", "rustfmt"},
    {".rustfmt.toml", "rustfmt"},
    {"clippy.toml", "Clippy"},
    {"setup.cfg", "setup.cfg"},
    {"MANIFEST.in", "MANIFEST.in"},
};

static const char *tool_of(const char *path)
{
    int depth = 0;
    for (const char *p = path; *p; p++)
        depth += *p == '/';
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < MN_ARRAY_SIZE(tools); i++) {
        const char *f = tools[i].file;
        bool full = strchr(f, '/') != NULL;
        const char *what = full ? path : base;
        size_t n = strlen(f);
        bool match = f[n - 1] == '*' ? !strncmp(what, f, n - 1) : !strcmp(what, f);
        if (match && (full || depth == 0))
            return tools[i].tool;
    }
    return NULL;
}

/* ---- versions a CI matrix tests ---- */

static const char *lang_of_key(const char *key)
{
    static const struct {
        const char *word, *lang;
    } keys[] = {{"python", "Python"}, {"node", "Node.js"}, {"go", "Go"},   {"ruby", "Ruby"},
                {"jdk", "Java"},      {"java", "Java"},    {"php", "PHP"}, {"rust", "Rust"}};
    char low[64];
    size_t n = strlen(key);
    if (n >= sizeof(low))
        return NULL;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)key[i]);
    for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++) {
        const char *w = strstr(low, keys[i].word);
        /* "go" must be a word of its own: "go-version", "go", not "google" */
        if (w && (strcmp(keys[i].word, "go") != 0 ||
                  ((w == low || !isalpha((unsigned char)w[-1])) && !isalpha((unsigned char)w[2]))))
            return keys[i].lang;
    }
    return NULL;
}

static void add_version(mn_map *m, const char *lang, const char *v)
{
    if (!mn_looks_like_version(v))
        return;
    char key[96];
    snprintf(key, sizeof(key), "%s %s", lang, v);
    mn_map_set(m, key, NULL);
}

static void walk_versions(mn_map *m, const json_t *v, const char *lang)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x)
        {
            const char *l = lang_of_key(k);
            walk_versions(m, x, l ? l : lang);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) walk_versions(m, x, lang);
    } else if (lang && json_is_string(v)) {
        add_version(m, lang, json_string_value(v));
    } else if (lang && json_is_number(v)) {
        char num[32];
        snprintf(num, sizeof(num), "%g", json_number_value(v));
        /* YAML reads 3.10 as 3.1: a matrix writes it quoted when it means 3.10 */
        add_version(m, lang, num);
    }
}

typedef struct {
    mn_map *m;
} tox_ctx;

/* "38" -> "3.8", "310" -> "3.10", "27" -> "2.7" */
static void tox_version(mn_map *m, const char *digits, size_t n)
{
    char v[8];
    if (n < 2 || n > 3)
        return;
    snprintf(v, sizeof(v), "%c.%.*s", digits[0], (int)(n - 1), digits + 1);
    add_version(m, "Python", v);
}

/* tox's envlist = py38, py39, py{310,311}-{a,b}, pypy3 -> Python 3.8, 3.9, 3.10, 3.11 */
static int tox_line(void *payload, const char *l, size_t n)
{
    tox_ctx *t = payload;
    while (n && isspace((unsigned char)*l)) {
        l++;
        n--;
    }
    if (n < 7 || strncmp(l, "envlist", 7) != 0)
        return 0;
    for (size_t i = 7; i + 2 < n; i++) {
        if (l[i] != 'p' || l[i + 1] != 'y' || (i > 0 && isalnum((unsigned char)l[i - 1])))
            continue;
        size_t j = i + 2;
        if (isdigit((unsigned char)l[j])) {
            size_t k = j;
            while (k < n && isdigit((unsigned char)l[k]))
                k++;
            tox_version(t->m, l + j, k - j);
            i = k;
        } else if (l[j] == '{') {
            /* py{38,39,310}: each number of the braces */
            for (j++; j < n && l[j] != '}';) {
                size_t k = j;
                while (k < n && isdigit((unsigned char)l[k]))
                    k++;
                tox_version(t->m, l + j, k - j);
                while (k < n && l[k] != ',' && l[k] != '}')
                    k++;
                j = k < n && l[k] == ',' ? k + 1 : k;
            }
            i = j;
        }
    }
    return 1;
}

static void versions_of(mn_map *m, const char *path, const char *text, size_t len)
{
    if (!text)
        return;
    if (strstr(path, "tox.ini")) {
        tox_ctx t = {m};
        mn_lines_each(text, len, tox_line, &t);
        return;
    }
    json_t *docs = NULL;
    if (mn_yaml_parse_docs(&docs, text, len) != 0) {
        mn_error_clear();
        return;
    }
    walk_versions(m, docs, NULL);
    json_decref(docs);
}

/* 3.8 before 3.10: by the numbers of each part */
static int cmp_version(const void *a, const void *b)
{
    const char *x = json_string_value(*(json_t *const *)a),
               *y = json_string_value(*(json_t *const *)b);
    while (*x && *y) {
        if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
            long p = strtol(x, (char **)&x, 10), q = strtol(y, (char **)&y, 10);
            if (p != q)
                return p < q ? -1 : 1;
        } else if (*x != *y) {
            return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
        } else {
            x++, y++;
        }
    }
    return *x ? 1 : *y ? -1 : 0;
}

static void join_versions(mn_buf *b, json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **v = mn_calloc(n + 1, sizeof(json_t *));
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(arr, i);
    qsort(v, n, sizeof(json_t *), cmp_version);
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(b, "%s%s", i ? ", " : "", json_string_value(v[i]));
    free(v);
    json_decref(arr);
}

static void matrix_change(mn_commit_view *c, mn_delta *d, mn_candidate_vec *out)
{
    mn_map before = MN_MAP_INIT, after = MN_MAP_INIT;
    size_t n0, n1;
    const char *t0 = mn_delta_text(c, d, 0, &n0), *t1 = mn_delta_text(c, d, 1, &n1);
    versions_of(&before, d->path, t0, n0);
    versions_of(&after, d->path, t1, n1);
    static const char *const langs[] = {"Python", "Node.js", "Go", "Ruby", "Java", "PHP", "Rust"};
    for (size_t li = 0; li < MN_ARRAY_SIZE(langs); li++) {
        mn_buf added = MN_BUF_INIT, dropped = MN_BUF_INIT, now = MN_BUF_INIT;
        size_t pos = 0, ln = strlen(langs[li]);
        const char *k;
        void *unused;
        bool had = false;
        json_t *vnow = json_array(), *vadd = json_array(), *vdrop = json_array();
        while (mn_map_next(&after, &pos, &k, &unused))
            if (!strncmp(k, langs[li], ln) && k[ln] == ' ') {
                json_array_append_new(vnow, json_string(k + ln + 1));
                if (!mn_map_has(&before, k))
                    json_array_append_new(vadd, json_string(k + ln + 1));
            }
        pos = 0;
        while (mn_map_next(&before, &pos, &k, &unused))
            if (!strncmp(k, langs[li], ln) && k[ln] == ' ') {
                had = true;
                if (!mn_map_has(&after, k))
                    json_array_append_new(vdrop, json_string(k + ln + 1));
            }
        join_versions(&now, vnow);
        join_versions(&added, vadd);
        join_versions(&dropped, vdrop);
        /* a file that names no version any more changed its form, not its matrix */
        if (had && now.len && (added.len || dropped.len)) {
            mn_candidate *cand = mn_candidate_add(out, "ci", "fact", 0.86);
            mn_candidate_key(cand, "ci-versions:%s:%s", d->path, langs[li]);
            mn_buf st = MN_BUF_INIT;
            mn_buf_printf(&st, "ci-versions:%s:%s", d->path, langs[li]);
            cand->state_key = mn_buf_detach(&st);
            mn_candidate_title(cand, "CI tests %s %s (%s%s%s%s%s)", langs[li],
                               now.len ? now.ptr : "(none)", added.len ? "added " : "",
                               added.len ? added.ptr : "", added.len && dropped.len ? "; " : "",
                               dropped.len ? "dropped " : "", dropped.len ? dropped.ptr : "");
            mn_candidate_intro(cand, c);
            mn_buf_printf(&cand->body, "\n%s now tests %s %s.", d->path, langs[li],
                          now.len ? now.ptr : "no version");
            mn_strv_add(cand->paths, d->path);
            mn_strv_add(cand->tags, "ci");
            size_t nh;
            const mn_hunk *h = mn_delta_patch(c, d, &nh);
            mn_candidate_evidence(cand, d->path, nh ? &h[0] : NULL);
        }
        mn_buf_release(&added);
        mn_buf_release(&dropped);
        mn_buf_release(&now);
    }
    mn_map_release(&before);
    mn_map_release(&after);
}

/*
 * A tool's file removed while another file of the commit gains lines naming it
 * (pytest.ini gone, [tool.pytest.ini_options] added to pyproject.toml): its
 * configuration moved, the tool stays.
 */
static bool config_moved(mn_commit_view *c, const mn_delta *gone, const char *tool)
{
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        if (d == gone || d->status == MN_DELTA_DELETED || d->binary)
            continue;
        size_t nh;
        const mn_hunk *h = mn_delta_patch(c, d, &nh);
        for (size_t k = 0; k < nh; k++)
            if (strcasestr(h[k].added, tool))
                return true;
    }
    return false;
}

/* A file that tested versions (a CI file, tox.ini) is gone: what it tested is history. */
static void matrix_gone(mn_candidate *k, const char *path)
{
    static const char *const langs[] = {"Python", "Node.js", "Go", "Ruby", "Java", "PHP", "Rust"};
    if (!k->supersedes_states)
        k->supersedes_states = json_array();
    for (size_t i = 0; i < MN_ARRAY_SIZE(langs); i++)
        json_array_append_new(k->supersedes_states,
                              json_sprintf("ci-versions:%s:%s", path, langs[i]));
}

/* What a workflow runs: its name and the first run steps. */
static void describe_workflow(mn_buf *b, const char *text, size_t len)
{
    json_t *docs = NULL;
    if (mn_yaml_parse_docs(&docs, text, len) != 0) {
        mn_error_clear();
        return;
    }
    const json_t *doc = json_array_get(docs, 0);
    const char *name = json_string_value(json_object_get(doc, "name"));
    if (name)
        mn_buf_printf(b, " Workflow \"%s\".", name);
    const json_t *jobs = json_object_get(doc, "jobs");
    const char *k;
    json_t *job;
    size_t runs = 0;
    json_object_foreach((json_t *)jobs, k, job)
    {
        size_t i;
        json_t *step;
        json_array_foreach(json_object_get(job, "steps"), i, step)
        {
            const char *run = json_string_value(json_object_get(step, "run"));
            if (run && runs < 4) {
                char *line = mn_ingest_one_line(run, strlen(run));
                char *clip = mn_ingest_clip(line, 120);
                mn_buf_printf(b, "%s `%s`", runs ? "," : " Runs:", clip);
                free(line);
                free(clip);
                runs++;
            }
        }
    }
    json_decref(docs);
}

/* FROM lines of a Dockerfile, in order, space separated. */
static char *docker_from(const char *text, size_t len)
{
    mn_buf b = MN_BUF_INIT;
    for (const char *p = text; p && p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        if (n > 5 && !strncasecmp(p, "FROM ", 5)) {
            const char *img = p + 5;
            while (img < p + n && *img == ' ')
                img++;
            if (!strncmp(img, "--platform", 10)) {
                while (img < p + n && *img != ' ')
                    img++;
                while (img < p + n && *img == ' ')
                    img++;
            }
            size_t in = strcspn(img, " \r\n");
            mn_buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)in, img);
        }
        p = nl ? nl + 1 : NULL;
    }
    return b.ptr ? mn_buf_detach(&b) : mn_strdup("");
}

static size_t changed_lines(mn_commit_view *c, mn_delta *d)
{
    size_t nh, n = 0;
    const mn_hunk *h = mn_delta_patch(c, d, &nh);
    for (size_t i = 0; i < nh; i++)
        n += (size_t)(h[i].old_lines + h[i].new_lines);
    return n;
}

int mn_cand_ci_build(mn_commit_view *c, mn_candidate_vec *out)
{
    mn_buf build = MN_BUF_INIT;
    mn_delta *first_build = NULL;
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->binary || d->cls.role == MN_ROLE_VENDORED || d->cls.role == MN_ROLE_GENERATED)
            continue;
        const char *sys = ci_system(d->path);
        const char *tool = tool_of(d->path);
        const char *base = strrchr(d->path, '/');
        base = base ? base + 1 : d->path;
        if (sys && (d->status == MN_DELTA_ADDED || d->status == MN_DELTA_DELETED)) {
            bool add = d->status == MN_DELTA_ADDED;
            mn_candidate *k = mn_candidate_add(out, "ci", "fact", 0.88);
            mn_candidate_key(k, "ci:%s:%s", d->path, add ? "added" : "removed");
            mn_buf st = MN_BUF_INIT;
            mn_buf_printf(&st, "ci-file:%s", d->path);
            k->state_key = mn_buf_detach(&st);
            if (!add)
                matrix_gone(k, d->path);
            mn_candidate_title(k, "CI: %s %s configuration %s", add ? "added" : "removed", sys,
                               d->path);
            mn_candidate_intro(k, c);
            mn_buf_printf(&k->body, "\n%s %s %s.", d->path,
                          add ? "now runs on" : "no longer runs on", sys);
            size_t len;
            const char *t = mn_delta_text(c, d, add ? 1 : 0, &len);
            if (t && add && strstr(d->path, ".github/workflows/"))
                describe_workflow(&k->body, t, len);
            mn_strv_add(k->paths, d->path);
            mn_strv_add(k->tags, "ci");
            if (t && add)
                mn_candidate_evidence_text(k, d->path, t, len);
            else
                mn_candidate_evidence(k, d->path, NULL);
            continue;
        }
        if ((sys || !strcmp(base, "tox.ini")) && d->status != MN_DELTA_DELETED)
            matrix_change(c, d, out);
        if (!strcmp(base, "Dockerfile") && d->status == MN_DELTA_MODIFIED) {
            size_t n0, n1;
            const char *t0 = mn_delta_text(c, d, 0, &n0), *t1 = mn_delta_text(c, d, 1, &n1);
            char *f0 = t0 ? docker_from(t0, n0) : NULL, *f1 = t1 ? docker_from(t1, n1) : NULL;
            if (f0 && f1 && *f0 && *f1 && strcmp(f0, f1) != 0) {
                mn_candidate *k = mn_candidate_add(out, "build", "fact", 0.86);
                mn_candidate_key(k, "docker-from:%s", d->path);
                mn_buf st = MN_BUF_INIT;
                mn_buf_printf(&st, "docker-from:%s", d->path);
                k->state_key = mn_buf_detach(&st);
                mn_candidate_title(k, "Docker base image now %s (was %s) (%s)", f1, f0, d->path);
                mn_candidate_intro(k, c);
                mn_buf_printf(&k->body, "\n%s builds FROM %s (was %s).", d->path, f1, f0);
                mn_strv_add(k->paths, d->path);
                mn_strv_add(k->tags, "build");
                size_t nh;
                const mn_hunk *h = mn_delta_patch(c, d, &nh);
                mn_candidate_evidence(k, d->path, nh ? &h[0] : NULL);
            }
            free(f0);
            free(f1);
        }
        if (tool && !sys && (d->status == MN_DELTA_ADDED || d->status == MN_DELTA_DELETED) &&
            strcmp(tool, "setup.cfg") != 0 && strcmp(tool, "MANIFEST.in") != 0 &&
            !(d->status == MN_DELTA_DELETED && config_moved(c, d, tool))) {
            bool add = d->status == MN_DELTA_ADDED;
            mn_candidate *k = mn_candidate_add(out, "config", "fact", 0.86);
            mn_candidate_key(k, "tool:%s:%s", d->path, add ? "added" : "removed");
            mn_buf st = MN_BUF_INIT;
            mn_buf_printf(&st, "tool:%s", tool);
            k->state_key = mn_buf_detach(&st);
            if (!add)
                matrix_gone(k, d->path);
            mn_candidate_title(k, "%s %s (%s %s)", add ? "Adopted" : "Dropped", tool, d->path,
                               add ? "added" : "removed");
            mn_candidate_intro(k, c);
            mn_buf_printf(&k->body, "\nThe project %s %s: %s was %s.",
                          add ? "uses" : "no longer uses", tool, d->path,
                          add ? "added" : "removed");
            mn_strv_add(k->paths, d->path);
            mn_strv_add(k->tags, "config");
            size_t len;
            const char *t = mn_delta_text(c, d, add ? 1 : 0, &len);
            if (t && add)
                mn_candidate_evidence_text(k, d->path, t, len);
            else
                mn_candidate_evidence(k, d->path, NULL);
            continue;
        }
        /* other edits of build and configuration files: one low candidate (CI files only by
         * their matrices: their other edits are mostly bumps of actions' versions) */
        if (!sys && (tool || d->cls.role == MN_ROLE_BUILD) && d->status == MN_DELTA_MODIFIED &&
            !mn_cand_noise_path(d) && changed_lines(c, d) >= 3) {
            mn_buf_printf(&build, "%s%s", build.len ? ", " : "", d->path);
            if (!first_build)
                first_build = d;
        }
    }
    if (build.len) {
        mn_candidate *k = mn_candidate_add(out, "build", "fact", 0.40);
        mn_candidate_key(k, "build-edit");
        mn_candidate_title(k, "Build and configuration changed: %s", build.ptr);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\nChanged: %s.", build.ptr);
        mn_strv_add(k->paths, first_build->path);
        mn_strv_add(k->tags, "build");
        size_t nh;
        const mn_hunk *h = mn_delta_patch(c, first_build, &nh);
        mn_candidate_evidence(k, first_build->path, nh ? &h[0] : NULL);
    }
    mn_buf_release(&build);
    return 0;
}
