/*
 * test_classify.c - mn_classify as a table: (path, head) -> (language, role,
 * binary), including the tricky cases (a docstring that mentions
 * "generated", Latin-1 text, a head cut inside a UTF-8 sequence, Latest.java,
 * vendor/ vs deps/, comment-only __init__.py vs one with code, minified JS),
 * plus the role names against the store's CHECK constraint.
 */
#include "common.h"

#include "index/classify.h"
#include "util/buf.h"
#include "test.h"

typedef struct {
    const char *path;
    const char *head; /* NULL: empty file */
    const char *lang; /* NULL: unknown */
    mn_file_role role;
    bool binary;
} ccase;

#define S MN_ROLE_SOURCE
#define T MN_ROLE_TEST
#define D MN_ROLE_DOC
#define C MN_ROLE_CONFIG
#define B MN_ROLE_BUILD
#define G MN_ROLE_GENERATED
#define V MN_ROLE_VENDORED
#define M MN_ROLE_MARKER
#define L MN_ROLE_LOCK

static const ccase table[] = {
    /* language by extension */
    {"src/app.py", "import os\n", "python", S, false},
    {"pkg/types.pyi", "def f() -> int: ...\n", "python", S, false},
    {"src/main.c", "int main(void) { return 0; }\n", "c", S, false},
    {"include/x.h", "#pragma once\n", "c", S, false},
    /* a .h whose head is C++ (issue 22: httplib.h was read with the C grammar) */
    {"httplib.h", "/* MIT */\n#include <string>\n", "cpp", S, false},
    {"include/a.h", "#pragma once\nnamespace simdjson {\n", "cpp", S, false},
    {"include/b.h", "template <typename T>\nT id(T x);\n", "cpp", S, false},
    {"include/c.h", "class Parser : public Base {\n", "cpp", S, false},
    {"include/d.h",
     "#include <stdio.h>\n#include <sys/types.h>\n#ifdef __cplusplus\n"
     "extern \"C\" {\n#endif\nstruct class_info;\n",
     "c", S, false},
    {"src/x.hpp", "#pragma once\n", "cpp", S, false},
    {"src/x.cc", "int x;\n", "cpp", S, false},
    {"src/x.cxx", "int x;\n", "cpp", S, false},
    {"src/legacy.C", "int x;\n", "cpp", S, false},
    {"web/a.ts", "export const a = 1;\n", "typescript", S, false},
    {"web/App.tsx", "export const A = () => <div/>;\n", "tsx", S, false},
    {"web/App.jsx", "export const A = () => <div/>;\n", "javascript", S, false},
    {"web/mod.mjs", "export default 1;\n", "javascript", S, false},
    {"web/cjs.cjs", "module.exports = 1;\n", "javascript", S, false},
    {"cmd/main.go", "package main\n", "go", S, false},
    {"src/lib.rs", "pub fn f() {}\n", "rust", S, false},
    {"src/main/java/com/x/App.java", "class App {}\n", "java", S, false},
    {"lib/x.rb", "class X; end\n", "ruby", S, false},
    {"web/index.php", "<?php echo 1;\n", "php", S, false},
    /* a language without a grammar here is still code: ponyc's standard library was config,
     * as text in no known language is */
    {"packages/collections/map.pony", "use \"builtin\"\n\nclass Map[K, V]\n", "pony", S, false},
    {"packages/collections/_test.pony", "use \"pony_test\"\n\nactor Main is TestList\n", "pony", T,
     false},
    {"lib/decompress/huf_decompress_amd64.S", "#include \"x.h\"\n.global f\n", "asm", S, false},
    {"src/solver.f90", "program main\nend program main\n", "fortran", S, false},
    {"src/app.cr", "class App\nend\n", "crystal", S, false},
    {"tests/all.tcl", "source tester.tcl\n", "tcl", T, false},
    {"App/Program.cs", "class P {}\n", "csharp", S, false},
    {"scripts/run.sh", "echo hi\n", "bash", S, false},
    {"scripts/run.BASH", "echo hi\n", "bash", S, false},
    {"src/App.kt", "fun main() {}\n", "kotlin", S, false},
    /* special names */
    {"Makefile", "all:\n\tcc x.c\n", "make", B, false},
    {"CMakeLists.txt", "project(x)\n", "cmake", B, false},
    {"docker/Dockerfile", "FROM debian\n", "dockerfile", B, false},
    {"Dockerfile.dev", "FROM debian\n", "dockerfile", B, false},
    {"Gemfile", "source 'https://rubygems.org'\n", "ruby", B, false},
    {"Rakefile", "task :default\n", "ruby", B, false},
    {"BUILD.bazel", "cc_library(name='x')\n", "starlark", B, false},
    {"meson.build", "project('x', 'c')\n", "meson", B, false},
    /* shebangs */
    {"bin/tool", "#!/usr/bin/env python3\nprint(1)\n", "python", S, false},
    {"bin/tool2", "#!/bin/bash\necho\n", "bash", S, false},
    {"bin/tool3", "#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n", "javascript", S, false},
    {"bin/tool4", "#!/usr/bin/ruby -w\nputs 1\n", "ruby", S, false},
    {"bin/tool5", "#!/usr/bin/env php\n<?php\n", "php", S, false},
    {"bin/tool6", "#!/usr/bin/python3.11\n", "python", S, false},
    {"bin/tool7", "#!/bin/sh\nset -e\n", "bash", S, false},
    /* content */
    {"templates/page", "<!DOCTYPE html>\n<html></html>\n", "html", S, false},
    {"conf/thing", "# -*- mode: python; coding: utf-8 -*-\nx = 1\n", "python", S, false},
    {"conf/other", "# vim: set ft=ruby :\nputs 1\n", "ruby", S, false},
    /* text in no language the index knows: a tool's settings or data, not code */
    {"data/unknown.xyz", "hello world\n", NULL, C, false},
    {"Doxyfile", "PROJECT_NAME = simdjson\nINPUT = include\n", NULL, C, false},
    {"pylintrc", "[MAIN]\njobs=1\n", NULL, C, false},
    {"cmake/x.pc.in", "prefix=@CMAKE_INSTALL_PREFIX@\n", NULL, C, false},
    {"elisp/pylint.el", "(defun pylint ()\n  (interactive))\n", "elisp", S, false},
    {"plugin/x.vim", "function! X()\nendfunction\n", "vim", S, false},
    /* binary */
    {"assets/logo.png", "\x89PNG\r\n\x1a\n", NULL, S, true},
    {"assets/blob", "abc\0def", NULL, S, true},
    {"docs/manual.pdf", "%PDF-1.4\n", NULL, D, true},
    {"tests/data/utf16.txt", "\xff\xfeh\0i\0", NULL, T, true},
    {"src/latin1.c", "/* caf\xe9 cr\xe8me */\nint x;\n", "c", S, false},
    {"data/random.bin2",
     "\x8f\x9a\xc3\x12\xfe\xaa\x01\x99\xd0\x81\x7f\x8e\x02\xb4\xc5\xe6\xf7\x88\x19\x2a", NULL, S,
     true},
    /* lock files */
    {"package-lock.json", "{\n", "json", L, false},
    {"web/yarn.lock", "# yarn lockfile v1\n", NULL, L, false},
    {"pnpm-lock.yaml", "lockfileVersion: 6\n", "yaml", L, false},
    {"Cargo.lock", "version = 3\n", "toml", L, false},
    {"poetry.lock", "[[package]]\n", "toml", L, false},
    {"Gemfile.lock", "GEM\n", NULL, L, false},
    {"composer.lock", "{\n", "json", L, false},
    {"go.sum", "golang.org/x/text v0.3.0 h1:abc=\n", NULL, L, false},
    {"uv.lock", "version = 1\n", "toml", L, false},
    {"Pipfile.lock", "{\n", "json", L, false},
    /* vendored (before everything else) */
    {"vendor/github.com/x/y/y.go", "package y\n", "go", V, false},
    {"web/node_modules/left-pad/index.js", "module.exports = 1;\n", "javascript", V, false},
    {"third_party/zlib/zlib.h", "#define Z 1\n", "c", V, false},
    {"src/pip/_vendor/six.py", "import sys\n", "python", V, false},
    {"vendor/x/x_test.go", "package x\n", "go", V, false},
    {"deps/debian.txt", "libgit2-dev\n", "text", D, false},
    {"external/api/client.py", "import requests\n", "python", S, false},
    /* benchmark suites are test code */
    {"asv_bench/benchmarks/rolling.py", "import xarray\n", "python", T, false},
    {"benchmarks/bench_parse.py", "import os\n", "python", T, false},
    /* a testing/ at the top is a test tree (pytest's); below, a module of test helpers */
    {"testing/python/fixtures.py", "import pytest\n", "python", T, false},
    {"Testing/example_scripts/issue_519.py", "import pytest\n", "python", T, false},
    {"numpy/testing/_private/utils.py", "import os\n", "python", S, false},
    {"testing.py", "import os\n", "python", S, false},
    /* a packages/ inside a Python package bundles libraries; at the top, or in JS, it is ours */
    {"requests/packages/urllib3/poolmanager.py", "import logging\n", "python", V, false},
    {"packages/core/models.py", "import os\n", "python", S, false},
    {"web/packages/ui/index.js", "export const x = 1;\n", "javascript", S, false},
    /* generated: names and content */
    {"web/jquery.min.js", "!function(){}\n", "javascript", G, false},
    {"proto/api_pb2.py", "# -*- coding: utf-8 -*-\n", "python", G, false},
    {"api/api.pb.go", "package api\n", "go", G, false},
    {"packages/ui/dist/index.js", "export{};\n", "javascript", G, false},
    {"internal/gen/x.go", "// Code generated by stringer -type=Kind; DO NOT EDIT.\n\npackage gen\n",
     "go", G, false},
    {"app/migrations/0001_initial.py", "# Generated by Django 4.2 on 2023-05-01 10:00\n", "python",
     G, false},
    {"src/Foo.rs", "// @generated by build.rs\npub fn f() {}\n", "rust", G, false},
    /* amalgamations: the sources concatenated into one file */
    {"extras/catch_amalgamated.cpp",
     "// SPDX-License-Identifier: BSL-1.0\n//  This file is an amalgamation of multiple different "
     "files.\n//  You probably shouldn't edit it directly.\n",
     "cpp", G, false},
    {"single_include/catch2/catch.hpp",
     "/*\n *  Catch v2.4.1\n *  This file has been merged from multiple headers. Please don't "
     "edit it directly\n */\n",
     "cpp", G, false},
    {"dist/jsoncpp.cpp", "/// Json-cpp amalgamated source (http://jsoncpp.sourceforge.net/).\n",
     "cpp", G, false},
    {"src/merge.c", "/* amalgamate the two lists in order */\nint f(void);\n", "c", S, false},
    /* parser and lexer generators' output, by their banners (jq's src/parser.c, src/lexer.c) */
    {"src/parser.c", "/* A Bison parser, made by GNU Bison 3.8.2.  */\n\n/* Bison implementation\n",
     "c", G, false},
    {"src/lexer.c",
     "#line 2 \"src/lexer.c\"\n\n#define  YY_INT_ALIGNED short int\n\n"
     "/* A lexical scanner generated by flex */\n",
     "c", G, false},
    {"src/keywords.c", "/* ANSI-C code produced by gperf version 3.1 */\n", "c", G, false},
    /* their grammars stay text in no known language: config (retrieval.md: as source, jq's
     * parser.y took the generated parser's places) */
    {"src/parser.y", "%{\n#include <stdio.h>\n%}\n%token IDENT\n", NULL, C, false},
    /* the same words outside a comment, or about another program, say nothing */
    {"src/grammar.c", "const char *about = \"made by GNU Bison\";\n", "c", S, false},
    {"src/scan.c", "/* a scanner written by hand, faster than one flex would make */\n", "c", S,
     false},
    {"src/thing.py", "\"\"\"This file is automatically generated by tool X.\"\"\"\n", "python", G,
     false},
    {"src/tokens.py", "\"\"\"Helpers for tokens generated by the server.\"\"\"\nimport os\n",
     "python", S, false},
    {"src/careful.c", "/* do not edit this table without updating docs/table.md */\n", "c", S,
     false},
    /* a mark after the first line of code is a template or a remark, not a banner: rich's
     * _export_format.py, xarray's generate_aggregations.py, sympy's _build_latex_antlr.py and
     * test_galois.py */
    {"rich/_export_format.py",
     "CONSOLE_HTML_FORMAT = \"\"\"\\\n<!DOCTYPE html>\n<head>\n<!-- Generated with Rich -->\n",
     "python", S, false},
    {"xarray/util/generate_aggregations.py",
     "\"\"\"Generate module and stub file.\n\nUsage:\n    python x.py\n\"\"\"\nimport textwrap\n\n"
     "MODULE_PREAMBLE = '''\\\n\"\"\"Mixin classes.\"\"\"\n"
     "# This file was generated using xarray.util.generate_aggregations. Do not edit manually.\n",
     "python", S, false},
    {"sympy/parsing/latex/_build_latex_antlr.py",
     "import os\n\nheader = '''\\\n# *** GENERATED BY `setup.py antlr`, DO NOT EDIT BY HAND ***\n",
     "python", S, false},
    {"sympy/combinatorics/galois_data.py",
     "\"\"\"Groups.\"\"\"\nfrom x import y\n\n# generated by the search procedure.\nT = 1\n",
     "python", S, false},
    /* prose inside a docstring is no banner (ponyc's pony_check.pony) */
    {"src/check.py",
     "\"\"\"Property checks.\n\ngenerated by a Generator: random values\n\"\"\"\nimport os\n",
     "python", S, false},
    /* banners after a docstring, a license block, an opening line: still the head */
    {"xarray/core/_aggregations.py",
     "\"\"\"Mixin classes with reduction operations.\"\"\"\n"
     "# This file was generated using xarray.util.generate_aggregations. Do not edit manually.\n"
     "from __future__ import annotations\n",
     "python", G, false},
    {"api/client.go",
     "/*\nCopyright 2024 The Authors.\n\nLicensed under the Apache License.\n*/\n\n"
     "// Code generated by client-gen. DO NOT EDIT.\n\npackage api\n",
     "go", G, false},
    {"gen/Api.php", "<?php\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n", "php", G,
     false},
    {"src/main/java/x/Api.java",
     "package x;\n\nimport javax.annotation.Generated;\n\n@Generated(\"tool\")\npublic class Api "
     "{}\n",
     "java", G, false},
    {"build/ci/release.sh", "#!/bin/sh\necho release\n", "bash", S, false},
    /* markers */
    {"pkg/__init__.py", NULL, "python", M, false},
    {"pkg/sub/__init__.py", "# package marker\n\n", "python", M, false},
    {"pkg/doc/__init__.py", "\"\"\"The pkg package.\"\"\"\n", "python", M, false},
    {"pkg/real/__init__.py", "from .x import y\n", "python", S, false},
    {"data/.gitkeep", NULL, NULL, M, false},
    {"src/pkg/py.typed", "partial\n", NULL, M, false},
    {"web/src/index.ts", "// barrel\n/* nothing yet */\n", "typescript", M, false},
    {"web/src/lib/index.ts", "export * from './a';\n", "typescript", S, false},
    {"tests/__init__.py", NULL, "python", M, false},
    /* build manifests */
    {"pyproject.toml", "[project]\n", "toml", B, false},
    {"setup.py", "from setuptools import setup\n", "python", B, false},
    {"package.json", "{\"name\": \"x\"}\n", "json", B, false},
    {"Cargo.toml", "[package]\n", "toml", B, false},
    {"go.mod", "module x\n", NULL, B, false},
    {"pom.xml", "<project/>\n", "xml", B, false},
    {"build.gradle", "plugins {}\n", "groovy", B, false},
    {"composer.json", "{}\n", "json", B, false},
    {"src/App/App.csproj", "<Project/>\n", "xml", B, false},
    {"cmake/deps.cmake", "find_package(x)\n", "cmake", B, false},
    {"requirements-dev.txt", "pytest\n", "text", B, false},
    {".github/workflows/ci.yml", "on: push\n", "yaml", B, false},
    {"tests/CMakeLists.txt", "add_test(x)\n", "cmake", B, false},
    /* tests */
    {"tests/test_api.py", "def test_x(): pass\n", "python", T, false},
    {"pkg/api_test.py", "def test_x(): pass\n", "python", T, false},
    {"test_util.py", "def test_x(): pass\n", "python", T, false},
    {"cart/session_test.go", "package cart\n", "go", T, false},
    {"web/src/a.test.ts", "test('a', () => {});\n", "typescript", T, false},
    {"web/src/b.spec.js", "it('b', () => {});\n", "javascript", T, false},
    {"web/src/__tests__/c.js", "it('c', () => {});\n", "javascript", T, false},
    {"src/test/java/com/x/AppTest.java", "class AppTest {}\n", "java", T, false},
    {"src/main/java/com/x/UserServiceTest.java", "class T {}\n", "java", T, false},
    {"src/main/java/com/x/Latest.java", "class Latest {}\n", "java", S, false},
    {"src/contest.py", "x = 1\n", "python", S, false},
    {"spec/models/user_spec.rb", "describe User do; end\n", "ruby", T, false},
    {"tests/conftest.py", "import pytest\n", "python", T, false},
    {"cart/testdata/input.json", "{}\n", "json", T, false},
    {"integration_tests/run.py", "x = 1\n", "python", T, false},
    /* CamelCase test directories, x.tests.cpp; _spec is RSpec's alone */
    {"projects/SelfTest/UsageTests/Tricky.tests.cpp", "int x;\n", "cpp", T, false},
    {"projects/ExtraTests/X01-PrefixedMacros.cpp", "int x;\n", "cpp", T, false},
    {"src/Latest/x.cpp", "int x;\n", "cpp", S, false},
    {"include/internal/catch_test_spec.cpp", "int x;\n", "cpp", S, false},
    {"lib/parser_spec.lua", "describe('p', function() end)\n", "lua", T, false},
    {"tests/fixtures/settings.yaml", "a: 1\n", "yaml", T, false},
    /* docs */
    {"README.md", "# x\n", "markdown", D, false},
    {"README", "x\n", NULL, D, false},
    {"README.zh-CN.md", "# x\n", "markdown", D, false},
    {"LICENSE", "MIT License\n", NULL, D, false},
    {"LICENSE-APACHE", "Apache\n", NULL, D, false},
    {"CHANGELOG.md", "# Changes\n", "markdown", D, false},
    {"docs/guide.rst", "Guide\n=====\n", "rst", D, false},
    {"docs/conf.py", "project = 'x'\n", "python", D, false},
    {"notes.txt", "remember\n", "text", D, false},
    {"tests/README.md", "# tests\n", "markdown", D, false},
    {"src/license.py", "LICENSE = 'MIT'\n", "python", S, false},
    /* config */
    {"config/settings.yaml", "a: 1\n", "yaml", C, false},
    {"tsconfig.json", "{}\n", "json", C, false},
    {"tox.ini", "[tox]\n", "ini", C, false},
    {".editorconfig", "root = true\n", "ini", C, false},
    {".eslintrc.js", "module.exports = {};\n", "javascript", C, false},
    {"webpack.config.js", "module.exports = {};\n", "javascript", C, false},
    {".gitignore", "*.o\n", NULL, C, false},
    {".env.example", "A=1\n", NULL, C, false},
    {"app.properties", "a=1\n", "properties", C, false},
    {".github/dependabot.yml", "version: 2\n", "yaml", C, false},
};

static void test_table(void)
{
    size_t n = MN_ARRAY_SIZE(table);
    CHECK(n >= 60);
    for (size_t i = 0; i < n; i++) {
        const ccase *c = &table[i];
        /* heads with NUL bytes: the length is up to the last char written */
        size_t len = c->head ? strlen(c->head) : 0;
        if (c->head && c->binary && !strcmp(c->path, "assets/blob"))
            len = 7;
        if (c->head && !strcmp(c->path, "tests/data/utf16.txt"))
            len = 6;
        mn_file_class out;
        mn_classify(&out, c->path, c->head, len, len);
        bool lang_ok = (!c->lang && !out.language) ||
                       (c->lang && out.language && !strcmp(c->lang, out.language));
        if (!lang_ok || out.role != c->role || out.binary != c->binary) {
            fprintf(stderr, "case %zu '%s': got (%s, %s, %d), want (%s, %s, %d)\n", i, c->path,
                    out.language ? out.language : "NULL", mn_role_name(out.role), out.binary,
                    c->lang ? c->lang : "NULL", mn_role_name(c->role), c->binary);
            mn_test__failed_checks++;
        }
    }
    printf("classify table: %zu cases\n", n);
}

/* A minified bundle: one huge line after a license comment. */
static void test_minified(void)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "/*! lib v1 | MIT */\n");
    for (int i = 0; i < 400; i++)
        mn_buf_puts(&b, "var a=function(b){return b+1};");
    mn_file_class out;
    mn_classify(&out, "static/app.bundle.js", b.ptr, b.len, b.len);
    CHECK_STR(out.language, "javascript");
    CHECK(out.role == MN_ROLE_GENERATED);
    /* the same amount of hand-written code, one statement per line */
    mn_buf_clear(&b);
    for (int i = 0; i < 400; i++)
        mn_buf_puts(&b, "var a = function (b) { return b + 1; };\n");
    mn_classify(&out, "static/app.js", b.ptr, b.len, b.len);
    CHECK(out.role == MN_ROLE_SOURCE);
    mn_buf_release(&b);
}

/* A head cut inside a UTF-8 sequence of a longer file is still text. */
static void test_partial_utf8(void)
{
    char head[64];
    memset(head, 'a', sizeof(head));
    head[62] = '\xc3'; /* first byte of "é", cut */
    head[63] = '\xa9';
    mn_file_class out;
    mn_classify(&out, "src/x.py", head, 63, 100000);
    CHECK(!out.binary);
    CHECK_STR(out.language, "python");
    /* a head longer than the cap is read only up to the cap */
    static char big[MN_CLASSIFY_HEAD_MAX + 100];
    memset(big, 'x', sizeof(big));
    big[MN_CLASSIFY_HEAD_MAX + 10] = '\0';
    mn_classify(&out, "src/y.py", big, sizeof(big), sizeof(big));
    CHECK(!out.binary);
}

static void test_degenerate(void)
{
    mn_file_class out;
    mn_classify(&out, "", NULL, 0, 0);
    CHECK(out.language == NULL);
    CHECK(out.role == MN_ROLE_MARKER); /* empty file */
    mn_classify(&out, "weird/.", "x", 1, 1);
    CHECK(!out.binary);
    mn_classify(&out, "a/b/c/", "x", 1, 1);
    CHECK(!out.binary);
    mn_classify(&out, "#!", "#!", 2, 2);
    CHECK(out.language == NULL);
    mn_classify(&out, "bin/x", "#!/usr/bin/env\n", 15, 15);
    CHECK(out.language == NULL);
    mn_classify(&out, "bin/y", "#!   \n", 6, 6);
    CHECK(out.language == NULL);
    mn_classify(&out, "conf/z", "-*- -*-", 7, 7);
    CHECK(out.language == NULL);
    mn_classify(&out, "conf/w", "vim: ft=", 8, 8);
    CHECK(out.language == NULL);
    mn_classify(&out, "pkg/__init__.py", "\"\"\"unterminated", 15, 15);
    CHECK(out.role == MN_ROLE_SOURCE);
    /* comment-only __init__.py longer than its head: cannot know, so not a marker */
    mn_classify(&out, "pkg/__init__.py", "# c\n", 4, 100000);
    CHECK(out.role == MN_ROLE_SOURCE);
}

/* Every role name is one the store's CHECK accepts, and parses back. */
static void test_role_names(void)
{
    static const char *const schema[] = {"source",    "test",     "doc",    "config", "build",
                                         "generated", "vendored", "marker", "lock"};
    CHECK(MN_ROLE_COUNT == MN_ARRAY_SIZE(schema));
    for (int i = 0; i < MN_ROLE_COUNT; i++) {
        CHECK_STR(mn_role_name((mn_file_role)i), schema[i]);
        mn_file_role r;
        CHECK_OK(mn_role_parse(&r, schema[i]));
        CHECK(r == (mn_file_role)i);
    }
    mn_file_role r;
    CHECK(mn_role_parse(&r, "asset") == MN_EINVAL);
    CHECK_STR(mn_role_name((mn_file_role)99), "source");
}

/* The store's schema really lists these roles (read from the source tree). */
static void test_schema_check(void)
{
    const char *dir = getenv("MNEMO_TEST_DATA");
    if (!dir)
        return;
    mn_buf path = MN_BUF_INIT;
    mn_buf_printf(&path, "%s/../../src/store/schema_v1.sql", dir);
    FILE *f = fopen(path.ptr, "r");
    mn_buf_release(&path);
    if (!f)
        return;
    char line[512];
    bool found = false;
    while (fgets(line, sizeof(line), f)) {
        if (!strstr(line, "CHECK (role IN"))
            continue;
        found = true;
        for (int i = 0; i < MN_ROLE_COUNT; i++) {
            char quoted[32];
            snprintf(quoted, sizeof(quoted), "'%s'", mn_role_name((mn_file_role)i));
            CHECK(strstr(line, quoted) != NULL);
        }
    }
    fclose(f);
    CHECK(found);
}

/* Random paths and heads: never crash, always a role in range (ASan checks the reads). */
static void test_random(void)
{
    static const char alphabet[] = "ab./_-#!*\"\\ \n\t\xc3\xa9\xff\x00-*-vim:ft=testdocs";
    unsigned seed = 12345;
    char path[64], head[256];
    for (int i = 0; i < 20000; i++) {
        size_t pl = (size_t)(rand_r(&seed) % (sizeof(path) - 1));
        for (size_t k = 0; k < pl; k++) {
            char ch = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
            path[k] = ch ? ch : '/';
        }
        path[pl] = '\0';
        size_t hl = (size_t)(rand_r(&seed) % sizeof(head));
        for (size_t k = 0; k < hl; k++)
            head[k] = (i & 1) ? alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)]
                              : (char)(rand_r(&seed) & 0xff);
        /* exactly hl bytes: a heap copy so that ASan sees any read past the end */
        char *h = hl ? mn_malloc(hl) : NULL;
        if (hl)
            memcpy(h, head, hl);
        mn_file_class out;
        mn_classify(&out, path, h, hl, hl + (uint64_t)(i % 3) * 100);
        CHECK((unsigned)out.role < MN_ROLE_COUNT);
        CHECK(!out.binary || out.language == NULL);
        free(h);
    }
}

MN_TEST_MAIN(MN_TEST(test_table), MN_TEST(test_random), MN_TEST(test_minified),
             MN_TEST(test_partial_utf8), MN_TEST(test_degenerate), MN_TEST(test_role_names),
             MN_TEST(test_schema_check))
