/*
 * native.c - C and C++: CMake (CMakeLists.txt: project, add_executable,
 * add_library, find_package, pkg_check_modules, testing), Meson
 * (meson.build), autotools (configure.ac / configure), Bazel
 * (MODULE.bazel, WORKSPACE), vcpkg and Conan manifests, clang-format and
 * clang-tidy configuration.
 *
 * C and C++ have no one package manifest, so this reads build files: CMake
 * calls are found as "name(" followed by their first word
 * (cmake_calls, which Meson's project() uses too); executables are entry
 * points (at most 12 in all) and make an application, libraries a
 * library; find_package and pkg_check_modules modules are the
 * dependencies. Each build system gives its configure-build-test commands
 * (Bazel's at 55, CMake's and Meson's at 50, autotools' at 45 and 40).
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

/* The first word inside each "cmd(" in CMake text, e.g. add_executable(name ...). */
static json_t *cmake_calls(const char *text, const char *cmd)
{
    json_t *out = json_array();
    size_t cl = strlen(cmd);
    for (const char *p = text; (p = strstr(p, cmd)) != NULL; p += cl) {
        if (p > text && (dx_name_char(p[-1])))
            continue;
        const char *q = p + cl;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != '(')
            continue;
        q++;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        const char *e = q;
        while (*e && !strchr(" \t\r\n)", *e))
            e++;
        if (e > q && e - q < 100) {
            char *w = mn_strndup(q, (size_t)(e - q));
            if (!strchr(w, '$') && !strchr(w, '"'))
                dx_add_unique(out, w);
            free(w);
        }
    }
    return out;
}

static void scan_native(dx_ctx *d)
{
    mn_buf b = MN_BUF_INIT;
    if (dx_load_text(d, "CMakeLists.txt", &b)) {
        json_t *proj = cmake_calls(b.ptr, "project");
        json_t *exes = cmake_calls(b.ptr, "add_executable");
        json_t *libs = cmake_calls(b.ptr, "add_library");
        json_t *pkgs = cmake_calls(b.ptr, "find_package");
        json_t *minv = cmake_calls(b.ptr, "cmake_minimum_required");
        if (json_array_size(proj))
            dx_set_name(d, json_string_value(json_array_get(proj, 0)), NULL,
                        "CMakeLists.txt project()");
        bool tests = strstr(b.ptr, "enable_testing") || strstr(b.ptr, "add_test") ||
                     strstr(b.ptr, "include(CTest)") || strstr(b.ptr, "gtest_discover_tests");
        dx_add_kv(d->builders, "CMake", "CMakeLists.txt");
        dx_add_cmd(d, CMD_BUILD, 50, "cmake -S . -B build && cmake --build build", "CMakeLists.txt",
                   NULL);
        if (tests)
            dx_add_cmd(d, CMD_TEST, 50, "ctest --test-dir build",
                       "CMakeLists.txt enable_testing/add_test", NULL);
        size_t i;
        json_t *v;
        json_array_foreach(exes, i, v)
        {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "executable %s (CMakeLists.txt add_executable)",
                          json_string_value(v));
            if (json_array_size(d->entries) < 12)
                dx_add_entry(d, w.ptr, "CMakeLists.txt");
            mn_buf_release(&w);
        }
        if (json_array_size(exes))
            dx_add_kv(d->types, "application", "CMakeLists.txt add_executable");
        if (json_array_size(libs))
            dx_add_kv(d->types, "library", "CMakeLists.txt add_library");
        json_t *names = json_array();
        json_array_foreach(pkgs, i, v) if (strcmp(json_string_value(v), "PkgConfig"))
            dx_add_unique(names, json_string_value(v));
        /* pkg_check_modules(PREFIX [REQUIRED] [IMPORTED_TARGET] module...) */
        static const char kwds[] = "REQUIRED QUIET IMPORTED_TARGET GLOBAL NO_CMAKE_PATH "
                                   "NO_CMAKE_ENVIRONMENT_PATH";
        for (const char *p = strstr(b.ptr, "pkg_check_modules"); p;
             p = strstr(p + 1, "pkg_check_modules")) {
            const char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
            if (!close || open - p > 20)
                break;
            int word = 0;
            for (const char *q = open + 1; q < close;) {
                while (q < close && strchr(" \t\r\n", *q))
                    q++;
                const char *e = q;
                while (e < close && !strchr(" \t\r\n", *e))
                    e++;
                if (e > q && word++ > 0 && !dx_in_words(q, (size_t)(e - q), kwds) && *q != '$') {
                    char *m = mn_strndup(q, strcspn(q, "<>= \t\r\n)"));
                    if (*m)
                        dx_add_unique(names, m);
                    free(m);
                }
                q = e;
            }
        }
        dx_add_deps(d, "CMakeLists.txt", "find_package", names);
        json_decref(proj);
        json_decref(exes);
        json_decref(libs);
        json_decref(pkgs);
        json_decref(minv);
    }
    if (dx_load_text(d, "meson.build", &b)) {
        json_t *proj = cmake_calls(b.ptr, "project");
        if (json_array_size(proj)) {
            char *n = mn_strdup(json_string_value(json_array_get(proj, 0)));
            for (char *c = n; *c; c++)
                if (*c == '\'' || *c == ',')
                    *c = '\0';
            dx_set_name(d, n[0] ? n : n + 1, NULL, "meson.build project()");
            free(n);
        }
        json_decref(proj);
        dx_add_kv(d->builders, "Meson", "meson.build");
        dx_add_cmd(d, CMD_BUILD, 50, "meson setup build && meson compile -C build", "meson.build",
                   NULL);
        if (strstr(b.ptr, "test("))
            dx_add_cmd(d, CMD_TEST, 50, "meson test -C build", "meson.build test()", NULL);
    }
    mn_buf_release(&b);
    if (dx_have(d, "configure.ac") || dx_have(d, "configure.in") || dx_have(d, "configure")) {
        const char *w = dx_have(d, "configure.ac")   ? "configure.ac"
                        : dx_have(d, "configure.in") ? "configure.in"
                                                     : "configure";
        dx_add_cmd(d, CMD_BUILD, 45,
                   dx_have(d, "configure") ? "./configure && make"
                                           : "autoreconf -i && ./configure && make",
                   w, NULL);
        dx_add_cmd(d, CMD_TEST, 40, "make check", w, "autotools convention");
        dx_add_kv(d->builders, "Autotools", w);
    }
    if (dx_have(d, "MODULE.bazel") || dx_have(d, "WORKSPACE") || dx_have(d, "WORKSPACE.bazel")) {
        const char *w = dx_have(d, "MODULE.bazel") ? "MODULE.bazel"
                        : dx_have(d, "WORKSPACE")  ? "WORKSPACE"
                                                   : "WORKSPACE.bazel";
        dx_add_kv(d->builders, "Bazel", w);
        dx_add_cmd(d, CMD_BUILD, 55, "bazel build //...", w, NULL);
        dx_add_cmd(d, CMD_TEST, 55, "bazel test //...", w, NULL);
    }
    if (dx_have(d, "vcpkg.json"))
        dx_add_manager(d, "cpp", "vcpkg", "vcpkg.json", "vcpkg install");
    if (dx_have(d, "conanfile.txt") || dx_have(d, "conanfile.py"))
        dx_add_manager(d, "cpp", "Conan",
                       dx_have(d, "conanfile.txt") ? "conanfile.txt" : "conanfile.py",
                       "conan install .");
    if (dx_have(d, ".clang-format") || dx_have(d, "_clang-format"))
        dx_add_kv(d->style, "clang-format",
                  dx_have(d, ".clang-format") ? ".clang-format" : "_clang-format");
    if (dx_have(d, ".clang-tidy"))
        dx_add_kv(d->style, "clang-tidy", ".clang-tidy");
}

const dx_ecosystem dx_native = {
    .name = "C and C++",
    .lang = "c",
    .scan = scan_native,
};
