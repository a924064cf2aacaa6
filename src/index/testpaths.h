/*
 * testpaths.h - the test code a project declares in its root manifests,
 * for the file roles (classify.c): directories and files that hold tests
 * whatever their names. Read once per index run (index.c) before the walk.
 *
 * Sources (the first MN_TEST_PATHS_READ_MAX bytes of each, at the root only):
 *   pytest     pyproject.toml [tool.pytest.ini_options], pytest.ini [pytest],
 *              tox.ini [pytest], setup.cfg [tool:pytest]: the testpaths when
 *              python_files takes every file under them (its patterns name
 *              no test convention, `*.py`); the literal directory of a
 *              python_files pattern ("testing/python/" then a wildcard: testing/python).
 *              Under the default python_files (test_*.py, *_test.py) the
 *              testpaths are collection roots holding sources too (sympy's
 *              `testpaths = sympy doc/src`): nothing is added
 *   Jest       package.json "jest" and jest.config.json: the literal directory
 *              before the first wildcard of each testMatch pattern
 *              ("<rootDir>/test/" then a wildcard: test), a testRegex's leading
 *              directory, each when the rest of the pattern names no test
 *              files (src/ then __tests__: src holds sources too); and
 *              "roots" when the patterns name no test-file
 *              convention (no test, spec or __tests__ in them: then every
 *              file they match under the roots is a test)
 *   Maven      pom.xml <testSourceDirectory>
 *   Gradle     build.gradle(.kts): the srcDir / srcDirs strings of the test
 *              source set (sourceSets { test { java { srcDirs = [...] } } },
 *              sourceSets.test.java.srcDir '...')
 *   Cargo      Cargo.toml [[test]] path (a test target outside tests/)
 * Conventions that need no declaration (tests/, src/test/, *_test.go,
 * #[cfg(test)] modules) stay classify.c's. A manifest that is missing,
 * unreadable or malformed adds nothing; there are no errors.
 */
#ifndef MN_INDEX_TESTPATHS_H
#define MN_INDEX_TESTPATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MN_TEST_PATHS_MAX      64         /* declared paths kept */
#define MN_TEST_PATHS_READ_MAX (1u << 20) /* bytes of one manifest read */

typedef struct mn_test_paths {
    char *paths[MN_TEST_PATHS_MAX]; /* repo-relative, no leading "./" nor trailing '/' */
    size_t n;
    uint64_t hash; /* of the sorted list: a change re-classifies every file */
} mn_test_paths;

/** Read the declarations of the project at root into out (zeroed first). Never fails. */
void mn_test_paths_read(mn_test_paths *out, const char *root);

/** Add one declared path (a directory or a file), normalised; ignored when empty or leaving the
 * tree. */
void mn_test_paths_add(mn_test_paths *tp, const char *path, size_t len);

/** Is path (repo-relative) a declared test file or under a declared test directory? */
bool mn_test_paths_has(const mn_test_paths *tp, const char *path);

void mn_test_paths_release(mn_test_paths *tp);

#endif
