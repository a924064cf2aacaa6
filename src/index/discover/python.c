/*
 * python.c - the Python ecosystem: pyproject.toml (PEP 621 [project],
 * [tool.poetry], [dependency-groups], [build-system], the [tool.*] tables of
 * pytest, tox, Ruff, Black, isort, mypy, Pyright, Pylint, codespell, uv,
 * PDM, Hatch), setup.cfg, setup.py (keyword arguments scanned as text),
 * requirements*.txt, Pipfile, tox.ini, noxfile.py, environment.yml.
 *
 * What it records: the project's name and description; runtime,
 * optional and development dependencies (PEP 508 names; development ones
 * only count as test and build frameworks); package managers (uv, Poetry,
 * PDM, Pipenv, Hatch, conda, pip) with their install commands; the build
 * backend; the Python version required; console scripts, __main__.py of
 * the import packages, manage.py and app files as entry points; test
 * commands (pytest configured 70, pytest guessed 55, tox 60, nox sessions
 * 60, Django 55, unittest 30 as a last resort), lint commands and style
 * tools; and what kind of project it is (library when it is packaged,
 * application when only requirements say so, framework or testing tool by
 * its classifiers). Its import packages (<x>/__init__.py at the top or in
 * src/) are kept in d->pypkgs: the main-package fact looks for one named
 * after the project. Nothing is recorded when no Python manifest exists.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"django", "Django", "web"},
    {"flask", "Flask", "web"},
    {"fastapi", "FastAPI", "web"},
    {"starlette", "Starlette", "web"},
    {"tornado", "Tornado", "web"},
    {"aiohttp", "aiohttp", "web"},
    {"pyramid", "Pyramid", "web"},
    {"sanic", "Sanic", "web"},
    {"quart", "Quart", "web"},
    {"falcon", "Falcon", "web"},
    {"bottle", "Bottle", "web"},
    {"litestar", "Litestar", "web"},
    {"werkzeug", "Werkzeug", "web"},
    {"streamlit", "Streamlit", "web"},
    {"gradio", "Gradio", "web"},
    {"celery", "Celery", "tasks"},
    {"sqlalchemy", "SQLAlchemy", "orm"},
    {"pydantic", "Pydantic", "data"},
    {"jinja2", "Jinja", "templates"},
    {"click", "Click", "cli"},
    {"typer", "Typer", "cli"},
    {"pytest", "pytest", "test"},
    {"hypothesis", "Hypothesis", "test"},
    {"numpy", "NumPy", "data"},
    {"pandas", "pandas", "data"},
    {"scipy", "SciPy", "data"},
    {"torch", "PyTorch", "ml"},
    {"tensorflow", "TensorFlow", "ml"},
    {"jax", "JAX", "ml"},
    {"scikit-learn", "scikit-learn", "ml"},
    {"transformers", "Transformers", "ml"},
    {"pyqt5", "Qt (PyQt)", "desktop"},
    {"pyqt6", "Qt (PyQt)", "desktop"},
    {"pyside6", "Qt (PySide)", "desktop"},
};

/* The name part of a PEP 508 requirement ("urllib3>=1.26,<3; extra" -> "urllib3"). */
static size_t pep508_name(const char *s, const char **start)
{
    while (*s == ' ' || *s == '\t')
        s++;
    *start = s;
    size_t n = 0;
    while (s[n] && (dx_name_char(s[n]) || s[n] == '.'))
        n++;
    return n;
}

/* Requirement strings (an array) -> names; each seen as a dependency. */
static json_t *pep508_names(dx_ctx *d, const json_t *reqs, const char *where)
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
        dx_add_unique(names, nm);
        dx_see_dep(d, "py", st, n, where);
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
    while (dx_next_line(&p, end, &line, &len)) {
        while (len && (*line == ' ' || *line == '\t'))
            line++, len--;
        if (!len || *line == '#' || *line == '-')
            continue;
        json_array_append_new(a, json_stringn(line, len));
    }
    return a;
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
static void py_console_scripts(dx_ctx *d, const json_t *lines, const char *why)
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
        dx_add_entry(d, what.ptr, why);
        dx_add_kv(d->types, "command-line tool", why);
        char norm[128];
        dx_norm_name(norm, sizeof(norm), cmd.ptr, cmd.len);
        dx_add_cmd(d, CMD_RUN, d->self_dep && !strcmp(norm, d->self_dep) ? 52 : 50, cmd.ptr, why,
                   v);
        mn_buf_release(&what);
        mn_buf_release(&cmd);
    }
}

static void py_scripts_table(dx_ctx *d, const json_t *scripts, const char *why)
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
static void find_pypkgs(dx_ctx *d)
{
    for (size_t i = 0; i < d->files.len; i++) {
        const dx_file *f = &d->files.items[i];
        int dep = dx_depth_of(f->path);
        if (strcmp(dx_base_name(f->path), "__init__.py") || f->role == MN_ROLE_TEST ||
            f->role == MN_ROLE_VENDORED || !(dep == 1 || (dep == 2 && dx_starts(f->path, "src/"))))
            continue;
        char *dir = mn_strndup(f->path, strlen(f->path) - strlen("/__init__.py"));
        const char *b = dx_base_name(dir);
        if (strcmp(b, "tests") && strcmp(b, "test") && strcmp(b, "testing") && strcmp(b, "docs"))
            dx_add_unique(d->pypkgs, dir);
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
        if (dx_starts(backend, map[i][0]))
            return map[i][1];
    return backend;
}

static void scan_python(dx_ctx *d)
{
    json_t *py = dx_load(d, "pyproject.toml", FMT_TOML, true);
    json_t *cfg = dx_have(d, "setup.cfg") ? dx_load(d, "setup.cfg", FMT_INI, false) : NULL;
    json_t *tox = dx_have(d, "tox.ini") ? dx_load(d, "tox.ini", FMT_INI, false) : NULL;
    json_t *proj = dx_jget(py, "project", NULL), *poetry = dx_jget(py, "tool", "poetry", NULL);
    json_t *tool = dx_jget(py, "tool", NULL);
    json_t *meta = dx_jget(cfg, "metadata", NULL), *opts = dx_jget(cfg, "options", NULL);
    mn_buf setup = MN_BUF_INIT;
    bool setup_py = dx_load_text(d, "setup.py", &setup);
    const char *req_main = dx_have(d, "requirements.txt") ? "requirements.txt" : NULL;
    const char *req_first = NULL;
    for (size_t i = 0; i < d->files.len && !req_first; i++) {
        const char *p = d->files.items[i].path;
        if ((dx_depth_of(p) == 0 && dx_starts(p, "requirements") && dx_ends(p, ".txt")) ||
            (dx_starts(p, "requirements/") && dx_ends(p, ".txt") && dx_depth_of(p) == 1))
            req_first = p;
    }
    bool any_req = req_first != NULL;
    bool is_py = py || cfg || setup_py || any_req || dx_have(d, "Pipfile") ||
                 dx_have(d, "environment.yml") || dx_have(d, "manage.py");
    find_pypkgs(d);
    if (!is_py)
        goto out;

    /* name */
    dx_set_name(d, dx_jstr(proj, "name"), dx_jstr(proj, "description"), "pyproject.toml [project]");
    dx_set_name(d, dx_jstr(poetry, "name"), dx_jstr(poetry, "description"),
                "pyproject.toml [tool.poetry]");
    dx_set_name(d, dx_jstr(meta, "name"), dx_jstr(meta, "description"), "setup.cfg [metadata]");
    if (setup_py && !d->name) {
        char *n = dx_kwarg(setup.ptr, "name"), *ds = dx_kwarg(setup.ptr, "description");
        dx_set_name(d, n, ds, "setup.py");
        free(n);
        free(ds);
    }

    /* dependencies (and frameworks among them) */
    if (json_is_array(dx_jget(proj, "dependencies", NULL)))
        dx_add_deps(d, "pyproject.toml", "runtime",
                    pep508_names(d, dx_jget(proj, "dependencies", NULL), "pyproject.toml"));
    if (json_is_object(dx_jget(poetry, "dependencies", NULL)))
        dx_add_deps(d, "pyproject.toml", "runtime",
                    dx_keys_as_deps(d, "py", dx_jget(poetry, "dependencies", NULL),
                                    "pyproject.toml [tool.poetry.dependencies]", "python"));
    if (dx_jstr(opts, "install_requires")) {
        json_t *r = lines_to_reqs(dx_jstr(opts, "install_requires"));
        dx_add_deps(d, "setup.cfg", "runtime", pep508_names(d, r, "setup.cfg"));
        json_decref(r);
    }
    if (setup_py) {
        json_t *r = py_list_after(setup.ptr, "install_requires");
        dx_add_deps(d, "setup.py", "runtime", pep508_names(d, r, "setup.py"));
        json_decref(r);
    }
    d->dev = true;
    {
        json_t *all = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(dx_jget(proj, "optional-dependencies", NULL), k, v)
        {
            json_t *n = pep508_names(d, v, "pyproject.toml [project.optional-dependencies]");
            json_array_extend(all, n);
            json_decref(n);
        }
        dx_add_deps(d, "pyproject.toml", "optional", all);
        all = json_array();
        json_object_foreach(dx_jget(py, "dependency-groups", NULL), k, v)
        {
            json_t *n = pep508_names(d, v, "pyproject.toml [dependency-groups]");
            json_array_extend(all, n);
            json_decref(n);
        }
        json_object_foreach(dx_jget(poetry, "group", NULL), k, v)
        {
            json_t *n = dx_keys_as_deps(d, "py", dx_jget(v, "dependencies", NULL),
                                        "pyproject.toml [tool.poetry.group]", NULL);
            json_array_extend(all, n);
            json_decref(n);
        }
        dx_add_deps(d, "pyproject.toml", "development", all);
    }
    d->dev = false;
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!((dx_depth_of(p) == 0 && dx_starts(p, "requirements") && dx_ends(p, ".txt")) ||
              (dx_starts(p, "requirements/") && dx_ends(p, ".txt") && dx_depth_of(p) == 1)))
            continue;
        mn_buf b = MN_BUF_INIT;
        if (dx_load_text(d, p, &b)) {
            json_t *r = lines_to_reqs(b.ptr);
            d->dev = !(req_main && !strcmp(p, req_main));
            dx_add_deps(d, p, d->dev ? "development" : "runtime", pep508_names(d, r, p));
            d->dev = false;
            json_decref(r);
        }
        mn_buf_release(&b);
    }
    if (dx_have(d, "Pipfile")) {
        json_t *pf = dx_load(d, "Pipfile", FMT_TOML, false);
        if (json_is_object(dx_jget(pf, "packages", NULL)))
            dx_add_deps(d, "Pipfile", "runtime",
                        dx_keys_as_deps(d, "py", dx_jget(pf, "packages", NULL), "Pipfile", NULL));
        d->dev = true;
        if (json_is_object(dx_jget(pf, "dev-packages", NULL)))
            dx_add_deps(
                d, "Pipfile", "development",
                dx_keys_as_deps(d, "py", dx_jget(pf, "dev-packages", NULL), "Pipfile", NULL));
        d->dev = false;
        json_decref(pf);
    }

    /* package managers and the build backend */
    const char *backend = dx_jstr(dx_jget(py, "build-system", NULL), "build-backend");
    if (dx_have(d, "uv.lock") || dx_jget(tool, "uv", NULL))
        dx_add_manager(d, "python", "uv",
                       dx_have(d, "uv.lock") ? "uv.lock" : "pyproject.toml [tool.uv]", "uv sync");
    if (dx_have(d, "poetry.lock") || poetry)
        dx_add_manager(d, "python", "Poetry",
                       dx_have(d, "poetry.lock") ? "poetry.lock" : "pyproject.toml [tool.poetry]",
                       "poetry install");
    if (dx_have(d, "pdm.lock") || dx_jget(tool, "pdm", NULL))
        dx_add_manager(d, "python", "PDM",
                       dx_have(d, "pdm.lock") ? "pdm.lock" : "pyproject.toml [tool.pdm]",
                       "pdm install");
    if (dx_have(d, "Pipfile"))
        dx_add_manager(d, "python", "Pipenv", "Pipfile", "pipenv install --dev");
    if (dx_jget(tool, "hatch", "envs", NULL))
        dx_add_manager(d, "python", "Hatch", "pyproject.toml [tool.hatch.envs]",
                       "hatch env create");
    if (dx_have(d, "environment.yml") || dx_have(d, "environment.yaml"))
        dx_add_manager(d, "python", "conda", "environment.yml",
                       "conda env create -f environment.yml");
    if (any_req) {
        mn_buf inst = MN_BUF_INIT;
        mn_buf_printf(&inst, "pip install -r %s", req_main ? req_main : req_first);
        dx_add_manager(d, "python", "pip", req_main ? req_main : req_first, inst.ptr);
        mn_buf_release(&inst);
    }
    if (proj || setup_py || cfg)
        dx_add_manager(d, "python", "pip",
                       proj       ? "pyproject.toml"
                       : setup_py ? "setup.py"
                                  : "setup.cfg",
                       "pip install -e .");
    if (backend) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "pyproject.toml [build-system] build-backend = \"%s\"", backend);
        dx_add_cmd(d, CMD_BUILD, 50, "python -m build", b.ptr, py_backend_name(backend));
        dx_add_kv(d->builders, py_backend_name(backend), b.ptr);
        mn_buf_release(&b);
    } else if (setup_py) {
        dx_add_cmd(d, CMD_BUILD, 45, "python -m build", "setup.py", "setuptools");
        dx_add_kv(d->builders, "setuptools", "setup.py");
    }

    /* runtime */
    {
        const char *rp = dx_jstr(proj, "requires-python");
        const char *why = "pyproject.toml requires-python";
        if (!rp)
            rp = dx_jstr(dx_jget(poetry, "dependencies", NULL), "python"),
            why = "pyproject.toml [tool.poetry.dependencies] python";
        if (!rp)
            rp = dx_jstr(opts, "python_requires"), why = "setup.cfg python_requires";
        if (rp) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "Python %s (%s)", rp, why);
            dx_add_unique(d->runtime, b.ptr);
            mn_buf_release(&b);
        }
        mn_buf v = MN_BUF_INIT;
        if (dx_load_text(d, ".python-version", &v)) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_puts(&b, "Python ");
            dx_put_oneline(&b, v.ptr, 40);
            mn_buf_puts(&b, " (.python-version)");
            dx_add_unique(d->runtime, b.ptr);
            mn_buf_release(&b);
        }
        mn_buf_release(&v);
    }

    /* entry points */
    if (json_is_object(dx_jget(proj, "scripts", NULL)))
        py_scripts_table(d, dx_jget(proj, "scripts", NULL), "pyproject.toml [project.scripts]");
    if (json_is_object(dx_jget(proj, "gui-scripts", NULL)))
        py_scripts_table(d, dx_jget(proj, "gui-scripts", NULL),
                         "pyproject.toml [project.gui-scripts]");
    if (json_is_object(dx_jget(poetry, "scripts", NULL)))
        py_scripts_table(d, dx_jget(poetry, "scripts", NULL),
                         "pyproject.toml [tool.poetry.scripts]");
    if (dx_jstr(dx_jget(cfg, "options.entry_points", NULL), "console_scripts")) {
        json_t *r =
            lines_to_reqs(dx_jstr(dx_jget(cfg, "options.entry_points", NULL), "console_scripts"));
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
            if (dx_have(d, m.ptr)) {
                mn_buf_printf(&cmd, "python -m %s", dx_base_name(json_string_value(pk)));
                mn_buf_printf(&what, "%s (%s)", cmd.ptr, m.ptr);
                dx_add_entry(d, what.ptr, m.ptr);
                dx_add_cmd(d, CMD_RUN, 45, cmd.ptr, m.ptr, NULL);
            }
            mn_buf_release(&m);
            mn_buf_release(&what);
            mn_buf_release(&cmd);
        }
    }
    if (dx_have(d, "manage.py")) {
        dx_add_entry(d, "manage.py (Django management commands)", "manage.py");
        dx_add_cmd(d, CMD_RUN, 70, "python manage.py runserver", "manage.py", NULL);
        dx_add_cmd(d, CMD_TEST, 55, "python manage.py test", "manage.py", NULL);
        dx_add_kv(d->types, "web application", "manage.py (Django)");
    }
    static const char *const app_files[] = {"app.py", "main.py", "wsgi.py", "asgi.py", "run.py"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(app_files); i++)
        if (dx_have(d, app_files[i]) && dx_file_get(d, app_files[i])->role == MN_ROLE_SOURCE) {
            mn_buf cmd = MN_BUF_INIT;
            mn_buf_printf(&cmd, "python %s", app_files[i]);
            dx_add_entry(d, app_files[i], app_files[i]);
            dx_add_cmd(d, CMD_RUN, 35, cmd.ptr, app_files[i], NULL);
            mn_buf_release(&cmd);
        }

    /* tests */
    {
        const char *why = NULL;
        const json_t *paths = NULL;
        if (dx_jget(tool, "pytest", "ini_options", NULL))
            why = "pyproject.toml [tool.pytest.ini_options]",
            paths = dx_jget(tool, "pytest", "ini_options", "testpaths", NULL);
        else if (dx_jget(tool, "pytest", NULL))
            why = "pyproject.toml [tool.pytest]",
            paths = dx_jget(tool, "pytest", "testpaths", NULL);
        else if (dx_have(d, "pytest.ini"))
            why = "pytest.ini";
        else if (ini_has(cfg, "tool:pytest"))
            why = "setup.cfg [tool:pytest]";
        else if (ini_has(tox, "pytest") || ini_has(tox, "tool:pytest"))
            why = "tox.ini [pytest]";
        int score = 70;
        if (!why && (dx_have(d, "conftest.py") || dx_have(d, "tests/conftest.py") ||
                     json_object_get(d->frameworks, "pytest")))
            why = dx_have(d, "conftest.py")         ? "conftest.py"
                  : dx_have(d, "tests/conftest.py") ? "tests/conftest.py"
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
            dx_add_cmd(d, CMD_TEST, score, "pytest", why, det.len ? det.ptr : NULL);
            mn_buf_release(&det);
        }
    }
    if (tox || dx_jget(tool, "tox", NULL)) {
        const char *cmds = dx_jstr(dx_jget(tox, "testenv", NULL), "commands");
        mn_buf det = MN_BUF_INIT;
        if (cmds)
            dx_put_oneline(&det, cmds, 160);
        dx_add_cmd(d, CMD_TEST, 60, "tox", tox ? "tox.ini [testenv]" : "pyproject.toml [tool.tox]",
                   det.len ? det.ptr : NULL);
        mn_buf_release(&det);
        static const char *const lint_envs[] = {"linting", "lint", "style",
                                                "flake8",  "ruff", "pre-commit"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(lint_envs); i++) {
            mn_buf sec = MN_BUF_INIT, cmd = MN_BUF_INIT;
            mn_buf_printf(&sec, "testenv:%s", lint_envs[i]);
            json_t *env = dx_jget(tox, sec.ptr, NULL);
            if (!env)
                env = dx_jget(tool, "tox", "env", lint_envs[i], NULL);
            if (env) {
                mn_buf_printf(&cmd, "tox -e %s", lint_envs[i]);
                mn_buf det2 = MN_BUF_INIT;
                if (dx_jstr(env, "commands"))
                    dx_put_oneline(&det2, dx_jstr(env, "commands"), 160);
                dx_add_cmd(d, CMD_LINT, 62, cmd.ptr,
                           tox && json_object_get(tox, sec.ptr) ? "tox.ini"
                                                                : "pyproject.toml [tool.tox]",
                           det2.len ? det2.ptr : NULL);
                mn_buf_release(&det2);
            }
            mn_buf_release(&sec);
            mn_buf_release(&cmd);
        }
    }
    if (dx_have(d, "noxfile.py")) {
        mn_buf nb = MN_BUF_INIT;
        if (dx_load_text(d, "noxfile.py", &nb)) {
            /* sessions: the function after each @nox.session */
            for (const char *p = strstr(nb.ptr, "@nox.session"); p;
                 p = strstr(p + 1, "@nox.session")) {
                const char *def = strstr(p, "def ");
                if (!def)
                    break;
                const char *s = def + 4, *e = s;
                while (dx_name_char(*e))
                    e++;
                char *name = mn_strndup(s, (size_t)(e - s));
                mn_buf cmd = MN_BUF_INIT;
                mn_buf_printf(&cmd, "nox -s %s", name);
                if (strstr(name, "test"))
                    dx_add_cmd(d, CMD_TEST, 60, cmd.ptr, "noxfile.py session", NULL);
                else if (strstr(name, "lint") || !strcmp(name, "style"))
                    dx_add_cmd(d, CMD_LINT, 60, cmd.ptr, "noxfile.py session", NULL);
                mn_buf_release(&cmd);
                free(name);
            }
        }
        mn_buf_release(&nb);
    }
    if (!json_array_size(d->cmds[CMD_TEST]) && dx_have_under(d, "tests"))
        dx_add_cmd(d, CMD_TEST, 30, "python -m unittest discover", "tests/ without a pytest setup",
                   NULL);

    /* code style */
    if (dx_jget(tool, "ruff", NULL) || dx_have(d, "ruff.toml") || dx_have(d, ".ruff.toml")) {
        const char *why = dx_jget(tool, "ruff", NULL) ? "pyproject.toml [tool.ruff]"
                          : dx_have(d, "ruff.toml")   ? "ruff.toml"
                                                      : ".ruff.toml";
        dx_add_kv(d->style, "Ruff (linter)", why);
        if (dx_jget(tool, "ruff", "format", NULL))
            dx_add_kv(d->style, "Ruff (formatter)", "pyproject.toml [tool.ruff.format]");
        dx_add_cmd(d, CMD_LINT, 60, "ruff check .", why, NULL);
    }
    if (dx_jget(tool, "black", NULL))
        dx_add_kv(d->style, "Black", "pyproject.toml [tool.black]");
    if (dx_jget(tool, "isort", NULL) || dx_have(d, ".isort.cfg") || ini_has(cfg, "isort"))
        dx_add_kv(d->style, "isort",
                  dx_jget(tool, "isort", NULL) ? "pyproject.toml [tool.isort]"
                  : dx_have(d, ".isort.cfg")   ? ".isort.cfg"
                                               : "setup.cfg [isort]");
    if (dx_have(d, ".flake8") || ini_has(cfg, "flake8") || ini_has(tox, "flake8")) {
        const char *why = dx_have(d, ".flake8")    ? ".flake8"
                          : ini_has(cfg, "flake8") ? "setup.cfg [flake8]"
                                                   : "tox.ini [flake8]";
        dx_add_kv(d->style, "Flake8", why);
        dx_add_cmd(d, CMD_LINT, 55, "flake8", why, NULL);
    }
    if (dx_jget(tool, "mypy", NULL) || dx_have(d, "mypy.ini") || dx_have(d, ".mypy.ini") ||
        ini_has(cfg, "mypy"))
        dx_add_kv(d->style, "mypy (type checker)",
                  dx_jget(tool, "mypy", NULL) ? "pyproject.toml [tool.mypy]"
                  : dx_have(d, "mypy.ini")    ? "mypy.ini"
                  : dx_have(d, ".mypy.ini")   ? ".mypy.ini"
                                              : "setup.cfg [mypy]");
    if (dx_jget(tool, "pyright", NULL) || dx_have(d, "pyrightconfig.json"))
        dx_add_kv(d->style, "Pyright (type checker)",
                  dx_jget(tool, "pyright", NULL) ? "pyproject.toml [tool.pyright]"
                                                 : "pyrightconfig.json");
    if (dx_jget(tool, "pylint", NULL) || dx_have(d, ".pylintrc") || dx_have(d, "pylintrc"))
        dx_add_kv(d->style, "Pylint",
                  dx_jget(tool, "pylint", NULL) ? "pyproject.toml [tool.pylint]"
                  : dx_have(d, ".pylintrc")     ? ".pylintrc"
                                                : "pylintrc");
    if (dx_jget(tool, "codespell", NULL) || dx_have(d, ".codespellrc"))
        dx_add_kv(d->style, "codespell",
                  dx_jget(tool, "codespell", NULL) ? "pyproject.toml [tool.codespell]"
                                                   : ".codespellrc");

    /* what kind of project */
    {
        json_t *cls = dx_jget(proj, "classifiers", NULL);
        bool lib = false, framework = false, testing = false;
        size_t i;
        json_t *c;
        json_array_foreach(cls, i, c)
        {
            const char *s = json_string_value(c);
            if (!s || !dx_starts(s, "Topic :: Software Development"))
                continue;
            lib |= strstr(s, "Libraries") != NULL;
            framework |= strstr(s, "Application Frameworks") != NULL;
            testing |= strstr(s, ":: Testing") != NULL;
        }
        if (framework)
            dx_add_kv(d->types, "framework", "pyproject.toml classifier Application Frameworks");
        if (testing)
            dx_add_kv(d->types, "testing tool", "pyproject.toml classifier Testing");
        if (lib || proj || poetry || setup_py || meta)
            dx_add_kv(d->types, "library",
                      lib        ? "pyproject.toml classifier Libraries"
                      : proj     ? "pyproject.toml [project] (a distributable package)"
                      : poetry   ? "pyproject.toml [tool.poetry] (a distributable package)"
                      : setup_py ? "setup.py (a distributable package)"
                                 : "setup.cfg [metadata] (a distributable package)");
        else if (any_req)
            dx_add_kv(d->types, "application", "requirements.txt without packaging metadata");
    }
out:
    mn_buf_release(&setup);
    json_decref(py);
    json_decref(cfg);
    json_decref(tox);
}

/* A package of a monorepo: its pyproject.toml [project] (a setup.py is not read). */
static void python_package(dx_ctx *d, json_t *pkg, const char *manifest)
{
    if (!strcmp(dx_base_name(manifest), "pyproject.toml"))
        dx_package_toml(d, pkg, manifest, "project", true);
}

const dx_ecosystem dx_python = {
    .name = "Python",
    .lang = "python",
    .deps = "py",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "pyproject.toml setup.py",
    .entry_files = "__main__.py manage.py",
    .scan = scan_python,
    .package = python_package,
};
