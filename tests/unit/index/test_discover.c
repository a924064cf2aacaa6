/*
 * test_discover.c - discovery on synthetic repositories built here, each
 * indexed for real (mn_index_run, mn_rank_all) and then discovered:
 *
 *  - a Python package (pyproject with hatchling, pytest, ruff, a console
 *    script, __main__.py, GitHub Actions): the exact set of findings and
 *    their titles;
 *  - a Node monorepo with npm workspaces, a Go module, a Rust crate, a C
 *    project with a Makefile, Python packages side by side without declared
 *    workspaces;
 *  - an empty repository, one with docs only, a broken package.json, huge
 *    manifests, a symlink loop and a file name that is not UTF-8;
 *  - TOML the way real projects write it (dotted keys, inline tables,
 *    multi-line arrays and strings, comments);
 *  - refresh in place: a second run changes nothing and duplicates
 *    nothing; a new dependency updates that fact under the same id; a
 *    removed Makefile archives its commands and bringing it back revives
 *    them; a fact a person took over or forgot is left alone;
 *  - mn_discover_due: first run, root moved, manifests changed, max_age.
 */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>

#include "index/discover.h"
#include "index/index.h"
#include "index/rank.h"
#include "memory/memory.h"
#include "store/store_index.h"
#include "test.h"

static char base[64];
static int seq;

typedef struct {
    char root[256];
    mn_store *s;
} repo;

static const mn_memory_settings settings = {32768, 0.5, true,  "tester", "test",
                                            NULL,  0,   false, false,    0};

static void mkdirs(const char *path)
{
    char *p = mn_strdup(path);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0755);
            *c = '/';
        }
    mkdir(p, 0755);
    free(p);
}

static void put(repo *r, const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", r->root, rel);
    char *dir = mn_strdup(p.ptr);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    free(dir);
    FILE *f = fopen(p.ptr, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    mn_buf_release(&p);
}

static void rm(repo *r, const char *rel)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", r->root, rel);
    unlink(p.ptr);
    mn_buf_release(&p);
}

static bool repo_new(repo *r)
{
    mn_store_options o = MN_STORE_OPTIONS_INIT;
    mn_buf db = MN_BUF_INIT;
    memset(r, 0, sizeof(*r));
    snprintf(r->root, sizeof(r->root), "%s/r%d", base, ++seq);
    mkdirs(r->root);
    mn_buf_printf(&db, "%s/db%d.sqlite", base, seq);
    int rc = mn_store_open(&r->s, db.ptr, &o);
    mn_buf_release(&db);
    return rc == 0;
}

static void repo_free(repo *r)
{
    mn_store_free(r->s);
    r->s = NULL;
}

/* Index, rank, discover; st filled (release it). */
static int run_opts(repo *r, mn_discover_stats *st, const mn_discover_options *opts)
{
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    mn_index_stats is;
    io.threads = 1;
    int rc = mn_index_run(r->s, r->root, &io, &is);
    if (rc == 0)
        rc = mn_rank_all(r->s);
    if (rc == 0)
        rc = mn_discover(r->s, r->root, &settings, opts, st);
    return rc;
}

static int run(repo *r, mn_discover_stats *st)
{
    return run_opts(r, st, NULL);
}

static int collect(void *payload, json_t *mem)
{
    const char *key = NULL;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(mem, "scope"), "tags"), i, t)
    {
        if (!strncmp(json_string_value(t), "discovery:", 10))
            key = json_string_value(t) + 10;
    }
    if (key)
        json_object_set(payload, key, mem);
    return 0;
}

/* Discovery memories by key; only active ones unless `all`. */
static json_t *facts_of(repo *r, bool all)
{
    json_t *out = json_object();
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.source = "discovery";
    if (!all)
        f.status = "active";
    mn_store_memory_list(r->s, &f, collect, out);
    return out;
}

static const char *title(const json_t *facts, const char *key)
{
    return json_string_value(json_object_get(json_object_get(facts, key), "title"));
}

static const char *field(const json_t *facts, const char *key, const char *name)
{
    return json_string_value(json_object_get(json_object_get(facts, key), name));
}

static bool has_prefix(const char *s, const char *pre)
{
    if (!s || strncmp(s, pre, strlen(pre)) != 0) {
        fprintf(stderr, "  '%s' does not start with '%s'\n", s ? s : "(null)", pre);
        return false;
    }
    return true;
}

/* The keys of an object, sorted, joined with spaces. */
static char *keys_of(const json_t *obj)
{
    const char *names[128];
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) if (n < 128) names[n++] = k;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        mn_buf_printf(&b, "%s%s", i ? " " : "", names[i]);
    return mn_buf_detach(&b);
}

#define CHECK_KEYS(facts, want)      \
    do {                             \
        char *got_ = keys_of(facts); \
        CHECK_STR(got_, want);       \
        free(got_);                  \
    } while (0)

/* ---- a Python package ---- */

static void python_repo(repo *r)
{
    put(r, "pyproject.toml",
        "[build-system]\n"
        "requires = [\"hatchling\"]\n"
        "build-backend = \"hatchling.build\"\n"
        "\n"
        "[project]\n"
        "name = \"shop\"\n"
        "description = \"A tiny shop.\"\n"
        "requires-python = \">=3.10\"\n"
        "dependencies = [\n"
        "    \"requests>=2\",  # HTTP\n"
        "    'flask >= 2.0; python_version >= \"3.10\"',\n"
        "]\n"
        "\n"
        "[project.scripts]\n"
        "shop = \"shop.cli:main\"\n"
        "\n"
        "[dependency-groups]\n"
        "test = [\"pytest>=8\", \"numpy\"]\n"
        "\n"
        "[tool.pytest.ini_options]\n"
        "testpaths = [\"tests\"]\n"
        "\n"
        "[tool.ruff]\n"
        "line-length = 100\n");
    put(r, "src/shop/__init__.py", "\"\"\"The shop.\"\"\"\nVERSION = '1.0'\n");
    put(r, "src/shop/core.py",
        "class Cart:\n    def total(self):\n        return 0\n\n\ndef checkout(cart):\n"
        "    return cart.total()\n");
    put(r, "src/shop/cli.py",
        "from .core import Cart, checkout\n\n\ndef main():\n"
        "    print(checkout(Cart()))\n");
    put(r, "src/shop/__main__.py", "from .cli import main\n\nmain()\n");
    put(r, "tests/test_core.py",
        "from shop.core import Cart\n\n\ndef test_total():\n"
        "    assert Cart().total() == 0\n");
    put(r, ".github/workflows/ci.yml",
        "name: CI\non: [push]\njobs:\n  test:\n"
        "    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - run: pip install -e .\n      - run: pytest\n");
    put(r, "README.md", "# shop\n\nA tiny shop.\n");
}

static void test_python_package(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    python_repo(&r);
    REQUIRE_OK(run(&r, &st));
    json_t *f = facts_of(&r, false);
    CHECK(st.created == json_object_size(f));
    CHECK(st.updated == 0 && st.archived == 0 && st.unchanged == 0);
    CHECK_KEYS(f, "build-command ci code-style dependencies domain:src/shop entry-points "
                  "frameworks languages lint-command main-package package-manager project-type "
                  "run-command runtime test-command");
    CHECK(has_prefix(title(f, "languages"), "Main language: Python (100% of "));
    CHECK_STR(title(f, "project-type"),
              "Project: shop, a Python library with a command-line tool shop - A tiny shop.");
    CHECK_STR(title(f, "package-manager"),
              "Package manager: pip (pyproject.toml), install with pip install -e .; builds "
              "with hatchling");
    CHECK_STR(title(f, "frameworks"), "Frameworks and key libraries: Flask (web), pytest (test)");
    CHECK_STR(title(f, "dependencies"), "Runtime dependencies (pyproject.toml): requests, flask");
    CHECK_STR(title(f, "runtime"), "Runtime: Python >=3.10 (pyproject.toml requires-python)");
    CHECK_STR(title(f, "build-command"),
              "Build command: python -m build (pyproject.toml [build-system] build-backend = "
              "\"hatchling.build\": hatchling)");
    CHECK_STR(title(f, "test-command"),
              "Test command: pytest (pyproject.toml [tool.pytest.ini_options]: testpaths: tests)");
    CHECK_STR(title(f, "lint-command"), "Lint command: ruff check . (pyproject.toml [tool.ruff])");
    CHECK_STR(title(f, "run-command"),
              "Run command: shop (pyproject.toml [project.scripts]: shop.cli:main)");
    CHECK_STR(title(f, "entry-points"), "Entry points: console script shop -> shop.cli:main; "
                                        "python -m shop (src/shop/__main__.py)");
    CHECK(has_prefix(title(f, "main-package"), "Main package: src/shop (shop), 4 source files, "));
    CHECK_STR(title(f, "code-style"), "Code style: Ruff (linter)");
    CHECK_STR(title(f, "ci"), "CI: GitHub Actions (1 workflow: ci)");
    CHECK(has_prefix(title(f, "domain:src/shop"), "Domain src/shop: 4 Python files ("));
    /* levels, provenance, tags, scope, keywords */
    CHECK_STR(field(f, "languages", "level"), "L0");
    CHECK_STR(field(f, "domain:src/shop", "level"), "L1");
    json_t *dom = json_object_get(f, "domain:src/shop");
    CHECK_STR(json_string_value(
                  json_array_get(json_object_get(json_object_get(dom, "scope"), "paths"), 0)),
              "src/shop");
    CHECK_STR(json_string_value(json_object_get(json_object_get(dom, "provenance"), "source")),
              "discovery");
    CHECK(json_real_value(json_object_get(dom, "confidence")) == 0.8);
    CHECK(strstr(field(f, "domain:src/shop", "body"), "Cart (class, core.py)") != NULL);
    CHECK(strstr(field(f, "ci", "body"), "runs pip install -e .; pytest") != NULL);
    json_t *kw = json_object_get(json_object_get(json_object_get(f, "test-command"), "context"),
                                 "trigger_keywords");
    CHECK(json_array_size(kw) >= 3);
    json_decref(f);
    mn_discover_stats_release(&st);
    repo_free(&r);
}

static void test_idempotent_and_change(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    python_repo(&r);
    REQUIRE_OK(run(&r, &st));
    size_t created = st.created;
    mn_discover_stats_release(&st);
    json_t *before = facts_of(&r, true);

    /* a second run: nothing changes, nothing is duplicated */
    REQUIRE_OK(run(&r, &st));
    CHECK(st.created == 0 && st.updated == 0 && st.archived == 0);
    CHECK(st.unchanged == created);
    mn_discover_stats_release(&st);
    int64_t n = 0;
    mn_memory_filter mf = MN_MEMORY_FILTER_INIT;
    mf.include_deleted = true;
    CHECK_OK(mn_store_memory_count(r.s, &mf, &n));
    CHECK(n == (int64_t)created);

    /* a new dependency: that fact is updated in place */
    sleep(0); /* mtime granularity is handled by the hash */
    put(&r, "pyproject.toml",
        "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n"
        "[project]\nname = \"shop\"\ndescription = \"A tiny shop.\"\n"
        "requires-python = \">=3.10\"\n"
        "dependencies = [\"requests>=2\", 'flask >= 2.0; python_version >= \"3.10\"', "
        "\"attrs\"]\n"
        "[project.scripts]\nshop = \"shop.cli:main\"\n"
        "[dependency-groups]\ntest = [\"pytest>=8\", \"numpy\"]\n"
        "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n[tool.ruff]\nline-length = 100\n");
    REQUIRE_OK(run(&r, &st));
    CHECK(st.created == 0 && st.archived == 0 && st.updated == 1);
    mn_discover_stats_release(&st);
    json_t *after = facts_of(&r, true);
    CHECK_STR(title(after, "dependencies"),
              "Runtime dependencies (pyproject.toml): requests, flask, attrs");
    CHECK_STR(field(after, "dependencies", "id"), field(before, "dependencies", "id"));
    CHECK(strcmp(field(after, "dependencies", "updated_at"),
                 field(before, "dependencies", "updated_at")) >= 0);
    CHECK_STR(field(after, "languages", "updated_at"), field(before, "languages", "updated_at"));
    CHECK(json_object_size(after) == json_object_size(before));
    json_decref(before);
    json_decref(after);
    repo_free(&r);
}

/* ---- a C project with a Makefile: removal archives, return revives ---- */

static void test_removed_makefile(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "Makefile",
        "CC ?= cc\n\nall: app\n\napp: main.c util.c\n\t$(CC) -o app main.c util.c\n"
        "\ntest: app\n\t@echo testing\n\t./app --self-test\n\n.PHONY: test\n");
    put(&r, "main.c", "#include \"util.h\"\nint main(void)\n{\n    return twice(0);\n}\n");
    put(&r, "util.c", "#include \"util.h\"\nint twice(int x)\n{\n    return 2 * x;\n}\n");
    put(&r, "util.h", "int twice(int x);\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_STR(title(f, "build-command"), "Build command: make (Makefile target all: runs app)");
    CHECK_STR(title(f, "test-command"),
              "Test command: make test (Makefile target test: ./app --self-test)");
    CHECK_STR(title(f, "entry-points"), "Entry points: main.c (a main function)");
    CHECK(has_prefix(title(f, "languages"), "Main language: C (100% of "));
    char *build_id = mn_strdup(field(f, "build-command", "id"));
    json_decref(f);

    rm(&r, "Makefile");
    REQUIRE_OK(run(&r, &st));
    CHECK(st.archived == 2 && st.created == 0);
    mn_discover_stats_release(&st);
    f = facts_of(&r, true);
    CHECK_STR(field(f, "build-command", "status"), "archived");
    CHECK_STR(field(f, "test-command", "status"), "archived");
    CHECK_STR(field(f, "build-command", "id"), build_id);
    CHECK_STR(field(f, "languages", "status"), "active");
    json_decref(f);

    /* archived facts stay archived on the next run */
    REQUIRE_OK(run(&r, &st));
    CHECK(st.archived == 0 && st.updated == 0 && st.created == 0);
    mn_discover_stats_release(&st);

    put(&r, "Makefile",
        "all: app\n\napp: main.c util.c\n\tcc -o app main.c util.c\n"
        "\ntest: app\n\t./app --self-test\n");
    REQUIRE_OK(run(&r, &st));
    CHECK(st.updated == 2 && st.created == 0);
    mn_discover_stats_release(&st);
    f = facts_of(&r, false);
    CHECK_STR(field(f, "build-command", "id"), build_id);
    CHECK_STR(field(f, "build-command", "status"), "active");
    json_decref(f);
    free(build_id);
    repo_free(&r);
}

/* ---- a person's changes win ---- */

static void test_manual_edits(void)
{
    repo r;
    mn_discover_stats st;
    json_t *out = NULL;
    REQUIRE(repo_new(&r));
    python_repo(&r);
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    char *test_id = mn_strdup(field(f, "test-command", "id"));
    char *lang_id = mn_strdup(field(f, "languages", "id"));
    json_decref(f);

    /* take over the test command: a new source, a new title */
    json_t *in = json_pack("{s:s,s:s,s:{s:s}}", "id", test_id, "title", "Tests: use tox -e py312",
                           "provenance", "source", "manual");
    CHECK_OK(mn_memory_update(&out, r.s, &settings, in));
    json_decref(in);
    json_decref(out);
    /* forget the languages fact */
    in = json_pack("{s:s}", "id", lang_id);
    CHECK_OK(mn_memory_forget(&out, r.s, &settings, in));
    json_decref(in);
    json_decref(out);

    REQUIRE_OK(run(&r, &st));
    CHECK(st.created == 0 && st.updated == 0 && st.archived == 0 && st.kept == 2);
    mn_discover_stats_release(&st);
    json_t *mine = NULL;
    REQUIRE_OK(mn_store_memory_get(r.s, &mine, test_id));
    CHECK_STR(json_string_value(json_object_get(mine, "title")), "Tests: use tox -e py312");
    json_decref(mine);
    REQUIRE_OK(mn_store_memory_get(r.s, &mine, lang_id));
    CHECK(json_object_get(mine, "deleted_at") != NULL);
    json_decref(mine);

    /* restore_forgotten brings the forgotten one back; the taken-over one stays a person's */
    mn_discover_options o = MN_DISCOVER_OPTIONS_INIT;
    o.restore_forgotten = true;
    REQUIRE_OK(run_opts(&r, &st, &o));
    CHECK(st.created == 0 && st.updated == 1 && st.kept == 1);
    mn_discover_stats_release(&st);
    REQUIRE_OK(mn_store_memory_get(r.s, &mine, lang_id));
    CHECK(json_object_get(mine, "deleted_at") == NULL);
    json_decref(mine);
    free(test_id);
    free(lang_id);
    repo_free(&r);
}

/* ---- a Node monorepo ---- */

static void test_node_monorepo(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "package.json",
        "{\"name\": \"acme\", \"private\": true, \"workspaces\": [\"packages/*\"],\n"
        " \"scripts\": {\"build\": \"tsc -b\", \"test\": \"vitest run\", \"lint\": \"eslint .\"},\n"
        " \"devDependencies\": {\"typescript\": \"^5\", \"vitest\": \"^1\", \"eslint\": "
        "\"^9\"}}\n");
    put(&r, "package-lock.json", "{\"lockfileVersion\": 3}\n");
    put(&r, "tsconfig.json", "{\"compilerOptions\": {\"strict\": true}}\n");
    put(&r, "packages/api/package.json",
        "{\"name\": \"@acme/api\", \"description\": \"The API.\", \"main\": \"dist/index.js\",\n"
        " \"scripts\": {\"start\": \"node dist/index.js\"}, \"dependencies\": {\"express\": "
        "\"^4\"}}\n");
    put(&r, "packages/api/src/index.ts",
        "import express from 'express';\nimport { route } from './route';\n"
        "export function start(): void {\n  express().get('/', route);\n}\n");
    put(&r, "packages/api/src/route.ts", "export function route(): string {\n  return 'ok';\n}\n");
    put(&r, "packages/web/package.json",
        "{\"name\": \"@acme/web\", \"dependencies\": {\"react\": \"^18\"}}\n");
    put(&r, "packages/web/src/App.tsx",
        "import React from 'react';\nexport function App() {\n  return <div>hi</div>;\n}\n");
    put(&r, "examples/demo/package.json", "{\"name\": \"demo\"}\n");
    put(&r, "examples/demo/index.js", "console.log('demo');\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_STR(title(f, "monorepo"),
              "Monorepo: 2 packages (package.json workspaces): packages/api, packages/web");
    CHECK(has_prefix(title(f, "package:packages/api"),
                     "Package packages/api (@acme/api): 2 TypeScript files ("));
    CHECK(has_prefix(title(f, "package:packages/web"), "Package packages/web (@acme/web): 1 "));
    CHECK(json_object_get(f, "domain:packages/api") == NULL);
    CHECK_STR(title(f, "package-manager"),
              "Package manager: npm (package-lock.json), install with npm ci");
    CHECK_STR(title(f, "test-command"), "Test command: npm test (package.json scripts.test: "
                                        "vitest run)");
    CHECK_STR(title(f, "build-command"),
              "Build command: npm run build (package.json scripts.build: tsc -b)");
    CHECK_STR(title(f, "lint-command"),
              "Lint command: npm run lint (package.json scripts.lint: eslint .)");
    CHECK_STR(title(f, "frameworks"),
              "Frameworks and key libraries: Vitest (test), Express (web), React (frontend)");
    CHECK(strstr(title(f, "code-style"), "TypeScript (strict)") != NULL);
    CHECK(strstr(title(f, "project-type"), "monorepo") != NULL);
    CHECK(strstr(field(f, "package:packages/api", "body"), "Description: The API.") != NULL);
    json_decref(f);
    repo_free(&r);
}

/* ---- Go, Rust ---- */

static void test_go_module(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "go.mod",
        "module example.com/tool\n\ngo 1.22\n\nrequire (\n"
        "\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/sys v0.1.0 // indirect\n)\n");
    put(&r, "cmd/tool/main.go",
        "package main\n\nimport \"example.com/tool/internal/app\"\n\n"
        "func main() {\n\tapp.Run()\n}\n");
    put(&r, "internal/app/app.go", "package app\n\n// Run runs.\nfunc Run() {}\n");
    put(&r, "internal/app/app_test.go",
        "package app\n\nimport \"testing\"\n\n"
        "func TestRun(t *testing.T) { Run() }\n");
    put(&r, ".golangci.yml", "linters:\n  enable: [govet]\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK(has_prefix(title(f, "languages"), "Main language: Go (100% of "));
    CHECK_STR(title(f, "project-type"), "Project: example.com/tool, a Go command-line tool");
    CHECK_STR(title(f, "package-manager"),
              "Package manager: Go modules (go.mod), install with go mod download");
    CHECK_STR(title(f, "dependencies"), "Runtime dependencies (go.mod): github.com/spf13/cobra");
    CHECK_STR(title(f, "frameworks"), "Frameworks and key libraries: Cobra (cli)");
    CHECK_STR(title(f, "runtime"), "Runtime: Go 1.22 (go.mod)");
    CHECK_STR(title(f, "test-command"), "Test command: go test ./... (go.mod)");
    CHECK_STR(title(f, "build-command"), "Build command: go build ./... (go.mod)");
    CHECK_STR(title(f, "lint-command"), "Lint command: golangci-lint run (.golangci.yml)");
    CHECK_STR(title(f, "run-command"), "Run command: go run ./cmd/tool (cmd/tool/main.go)");
    CHECK_STR(title(f, "entry-points"), "Entry points: cmd/tool/main.go");
    CHECK(json_object_get(f, "domain:cmd/tool") != NULL);
    CHECK(json_object_get(f, "domain:internal/app") != NULL);
    json_decref(f);
    repo_free(&r);
}

static void test_rust_crate(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "Cargo.toml",
        "[package]\nname = \"grep-lite\"\nversion = \"0.1.0\"\n"
        "edition = \"2021\"\ndescription = \"Search text.\"\n\n"
        "[dependencies]\nclap = { version = \"4\", features = [\"derive\"] }\n"
        "regex = \"1\"\n\n[dev-dependencies]\ntempfile = \"3\"\n");
    put(&r, "Cargo.lock", "version = 3\n");
    put(&r, "src/main.rs", "mod search;\n\nfn main() {\n    search::run();\n}\n");
    put(&r, "src/search.rs", "pub fn run() {}\n");
    put(&r, "rustfmt.toml", "max_width = 100\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_STR(title(f, "project-type"),
              "Project: grep-lite, a Rust command-line tool - Search text.");
    CHECK_STR(title(f, "package-manager"),
              "Package manager: Cargo (Cargo.toml), install with cargo build");
    CHECK_STR(title(f, "dependencies"), "Runtime dependencies (Cargo.toml): clap, regex");
    CHECK_STR(title(f, "frameworks"), "Frameworks and key libraries: clap (cli)");
    CHECK_STR(title(f, "runtime"), "Runtime: Rust, edition 2021 (Cargo.toml)");
    CHECK_STR(title(f, "test-command"), "Test command: cargo test (Cargo.toml)");
    CHECK_STR(title(f, "run-command"), "Run command: cargo run (Cargo.toml with a binary target)");
    CHECK_STR(title(f, "lint-command"), "Lint command: cargo clippy (Cargo.toml)");
    CHECK_STR(title(f, "entry-points"), "Entry points: src/main.rs (the binary)");
    CHECK_STR(title(f, "code-style"), "Code style: rustfmt");
    json_decref(f);
    repo_free(&r);
}

/* ---- Python packages side by side, without declared workspaces ---- */

static void test_python_monorepo(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "libs/alpha/pyproject.toml", "[project]\nname = \"alpha\"\n");
    put(&r, "libs/alpha/alpha/__init__.py", "def a():\n    return 1\n");
    put(&r, "libs/beta/pyproject.toml", "[project]\nname = \"beta\"\ndependencies = [\"alpha\"]\n");
    put(&r, "libs/beta/beta/__init__.py", "from alpha import a\n\n\ndef b():\n    return a()\n");
    put(&r, "examples/demo/pyproject.toml", "[project]\nname = \"demo\"\n");
    put(&r, "examples/demo/demo.py", "print('demo')\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_STR(title(f, "monorepo"),
              "Monorepo: 2 packages (package manifests in sub-directories): libs/alpha, libs/beta");
    CHECK(has_prefix(title(f, "package:libs/alpha"), "Package libs/alpha (alpha): 1 Python file"));
    CHECK(has_prefix(title(f, "package:libs/beta"), "Package libs/beta (beta): 1 Python file"));
    CHECK(json_object_get(f, "package:examples/demo") == NULL);
    json_decref(f);
    repo_free(&r);
}

/* ---- the edges: empty, docs only, broken and huge files, odd names ---- */

static void test_empty(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    REQUIRE_OK(run(&r, &st));
    CHECK(st.created == 1);
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_KEYS(f, "languages");
    CHECK_STR(title(f, "languages"), "The repository is empty: no file is indexed");
    json_decref(f);
    /* files arrive: the same fact is updated */
    put(&r, "hello.py", "print('hi')\n");
    REQUIRE_OK(run(&r, &st));
    CHECK(st.updated == 1);
    mn_discover_stats_release(&st);
    f = facts_of(&r, false);
    CHECK(has_prefix(title(f, "languages"), "Main language: Python (100% of 1 lines of code)"));
    json_decref(f);
    repo_free(&r);
}

static void test_docs_only(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "README.md", "# Notes\n");
    put(&r, "docs/guide.md", "# Guide\n");
    put(&r, "docs/faq.md", "# FAQ\n");
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_KEYS(f, "docs languages");
    CHECK_STR(title(f, "languages"), "No source code: 3 files, mostly doc files");
    CHECK_STR(title(f, "docs"), "Documentation: 2 documentation files in docs/");
    json_decref(f);
    repo_free(&r);
}

static void test_broken_and_huge(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "package.json", "{\"name\": \"broken\", \"scripts\": {\"test\": \"jest\"\n");
    put(&r, "src/index.js", "module.exports = function () {\n  return 1;\n};\n");
    /* a pyproject of 2 MiB: the walk skips it (over 1 MiB), discovery reads its head */
    mn_buf big = MN_BUF_INIT;
    mn_buf_puts(&big, "[project]\nname = \"huge\"\ndescription = \"Big.\"\n[tool.x]\n");
    while (big.len < (2u << 20))
        mn_buf_puts(&big, "# filler filler filler filler filler filler filler filler\n");
    put(&r, "pyproject.toml", big.ptr);
    mn_buf_release(&big);
    /* a Gemfile holding bytes that are not UTF-8 */
    put(&r, "Gemfile", "gem 'rails'\n# caf\xe9\n");
    /* no wall-clock bound here (a loaded CI machine under ASan is no measure): that only the
     * head is read shows in `broken`, which counts the pyproject cut */
    REQUIRE_OK(run(&r, &st));
    CHECK(st.broken >= 2); /* package.json does not parse, pyproject is cut */
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK(has_prefix(title(f, "languages"), "Main language: JavaScript"));
    CHECK(has_prefix(title(f, "project-type"), "Project: huge, a JavaScript "));
    CHECK(json_object_get(f, "test-command") == NULL);
    CHECK(title(f, "frameworks") == NULL || !strstr(title(f, "frameworks"), "Rails"));
    json_decref(f);
    repo_free(&r);
}

static void test_odd_tree(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "lib/a.py", "def a():\n    return 1\n");
    put(&r, "lib/b.weird", "something in no known language\n");
    put(&r, "lib/\xff\xfe.py", "x = 1\n");
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/lib/loop", r.root);
    CHECK(symlink(".", p.ptr) == 0);
    mn_buf_clear(&p);
    mn_buf_printf(&p, "%s/package.json", r.root);
    CHECK(symlink("/etc/passwd", p.ptr) == 0); /* a link is never read */
    mn_buf_release(&p);
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK(has_prefix(title(f, "languages"), "Main language: Python (100% of 2 lines of code)"));
    CHECK(json_object_get(f, "package-manager") == NULL);
    json_decref(f);
    repo_free(&r);
}

/* ---- TOML as projects write it ---- */

static void test_toml(void)
{
    repo r;
    mn_discover_stats st;
    REQUIRE(repo_new(&r));
    put(&r, "pyproject.toml",
        "# a comment\n"
        "[build-system]\n"
        "build-backend = 'setuptools.build_meta'  # literal string\n"
        "requires = [\n"
        "  \"setuptools>=77\",\n"
        "  # a comment inside\n"
        "  \"setuptools-scm[toml]\",\n"
        "]\n"
        "[project]\n"
        "name = \"tomlish\"\n"
        "description = \"\"\"Many\n"
        "lines.\"\"\"\n"
        "license = { text = \"MIT\" }\n"
        "requires-python = '>=3.9'\n"
        "dependencies = [ \"packaging>=24\" , \"pluggy>=1.5,<2\" ]\n"
        "urls.Source = \"https://example.com\"\n"
        "scripts.\"py.tomlish\" = \"tomlish.main:run\"\n"
        "scripts.tomlish = \"tomlish.main:run\"\n"
        "optional-dependencies.dev = [\"numpy\", \"hypothesis>=6\"]\n"
        "[[tool.towncrier.type]]\n"
        "directory = \"feature\"\n"
        "[[tool.towncrier.type]]\n"
        "directory = \"bugfix\"\n"
        "[tool.pytest]\n"
        "minversion = 8.0\n"
        "testpaths = [\"testing\"]\n"
        "xfail_strict = true\n"
        "[tool.black]\n"
        "target-version = [ \"py310\", \"py311\" ]\n");
    put(&r, "src/tomlish/__init__.py", "def run():\n    return 0\n");
    put(&r, "src/tomlish/main.py", "from . import run\n");
    REQUIRE_OK(run(&r, &st));
    CHECK(st.broken == 0);
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    CHECK_STR(title(f, "project-type"), "Project: tomlish, a Python library with command-line "
                                        "tools py.tomlish, tomlish - Many lines.");
    CHECK_STR(title(f, "dependencies"), "Runtime dependencies (pyproject.toml): packaging, pluggy");
    CHECK_STR(title(f, "frameworks"), "Frameworks and key libraries: Hypothesis (test)");
    CHECK_STR(title(f, "test-command"),
              "Test command: pytest (pyproject.toml [tool.pytest]: testpaths: testing)");
    CHECK_STR(title(f, "run-command"),
              "Run command: tomlish (pyproject.toml [project.scripts]: tomlish.main:run)");
    CHECK_STR(title(f, "code-style"), "Code style: Black");
    json_decref(f);
    repo_free(&r);
}

/* ---- a long domain path fits the tag limit ---- */

static void test_long_key(void)
{
    repo r;
    mn_discover_stats st;
    const char *dir = "a_rather_long_directory_name_for_a_module/and_a_second_level_that_is_long";
    REQUIRE(repo_new(&r));
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/x.py", dir);
    put(&r, p.ptr, "def x():\n    return 1\n");
    mn_buf_clear(&p);
    mn_buf_printf(&p, "%s/y.py", dir);
    put(&r, p.ptr, "def y():\n    return 2\n");
    mn_buf_release(&p);
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    json_t *f = facts_of(&r, false);
    const char *k;
    json_t *v;
    bool found = false;
    json_object_foreach(f, k, v)
    {
        CHECK(strlen(k) + 10 <= 64);
        if (!strncmp(k, "domain:a_rather", 15)) {
            found = true;
            CHECK(strchr(k, '~') != NULL);
        }
    }
    CHECK(found);
    REQUIRE_OK(run(&r, &st));
    CHECK(st.created == 0 && st.unchanged == json_object_size(f));
    mn_discover_stats_release(&st);
    json_decref(f);
    repo_free(&r);
}

/* ---- when discovery is due ---- */

static void test_due(void)
{
    repo r;
    mn_discover_stats st;
    bool due;
    const char *why;
    REQUIRE(repo_new(&r));
    python_repo(&r);
    mn_index_options io = MN_INDEX_OPTIONS_INIT;
    mn_index_stats is;
    REQUIRE_OK(mn_index_run(r.s, r.root, &io, &is));
    REQUIRE_OK(mn_discover_due(r.s, r.root, 0, &due, &why));
    CHECK(due && !strcmp(why, "first run"));
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    REQUIRE_OK(mn_discover_due(r.s, r.root, 7 * 86400000LL, &due, &why));
    CHECK(!due && why == NULL);
    REQUIRE_OK(mn_discover_due(r.s, "/elsewhere", 0, &due, &why));
    CHECK(due && !strcmp(why, "root changed"));
    /* a code change is not a reason; a manifest change is */
    put(&r, "src/shop/core.py", "class Cart:\n    pass\n");
    REQUIRE_OK(mn_index_run(r.s, r.root, &io, &is));
    REQUIRE_OK(mn_discover_due(r.s, r.root, 0, &due, &why));
    CHECK(!due);
    put(&r, "pyproject.toml", "[project]\nname = \"shop\"\ndependencies = [\"attrs\"]\n");
    REQUIRE_OK(mn_index_run(r.s, r.root, &io, &is));
    REQUIRE_OK(mn_discover_due(r.s, r.root, 0, &due, &why));
    CHECK(due && !strcmp(why, "manifests changed"));
    REQUIRE_OK(run(&r, &st));
    mn_discover_stats_release(&st);
    /* eight days later */
    char later[32];
    snprintf(later, sizeof(later), "%lld", (long long)(mn_time_now_ms() + 8 * 86400000LL));
    setenv("MNEMO_NOW_MS", later, 1);
    REQUIRE_OK(mn_discover_due(r.s, r.root, 7 * 86400000LL, &due, &why));
    CHECK(due && !strcmp(why, "older than max_age"));
    REQUIRE_OK(mn_discover_due(r.s, r.root, 0, &due, &why));
    CHECK(!due);
    unsetenv("MNEMO_NOW_MS");
    repo_free(&r);
}

static void rm_rf(const char *path)
{
    mn_buf cmd = MN_BUF_INIT;
    mn_buf_printf(&cmd, "rm -rf '%s'", path);
    if (system(cmd.ptr) != 0)
        fprintf(stderr, "cannot remove %s\n", path);
    mn_buf_release(&cmd);
}

static void setup(void)
{
    snprintf(base, sizeof(base), "/tmp/mnemo-test-discover-XXXXXX");
    if (!mkdtemp(base))
        abort();
}

static void teardown(void)
{
    rm_rf(base);
}

MN_TEST_MAIN(MN_TEST(setup), MN_TEST(test_python_package), MN_TEST(test_idempotent_and_change),
             MN_TEST(test_removed_makefile), MN_TEST(test_manual_edits),
             MN_TEST(test_node_monorepo), MN_TEST(test_go_module), MN_TEST(test_rust_crate),
             MN_TEST(test_python_monorepo), MN_TEST(test_empty), MN_TEST(test_docs_only),
             MN_TEST(test_broken_and_huge), MN_TEST(test_odd_tree), MN_TEST(test_toml),
             MN_TEST(test_long_key), MN_TEST(test_due), MN_TEST(teardown))
