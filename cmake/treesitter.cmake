# treesitter.cmake - the tree-sitter C runtime and the grammars, built from
# the npm tarballs that scripts/deps.sh unpacked into ${MNEMO_DEPS_DIR}/npm.
#
# Versions come from deps/npm.lock only; a package directory counts as present
# when its .mnemo-sha256 stamp (written by deps.sh last) matches the lock.
# Third-party code is compiled with -w: our -Wall -Wextra -Werror (added
# globally by add_compile_options) is for our code, not for generated parsers.
#
# Defines:
#   treesitter               static library: the runtime (lib/src/lib.c);
#                            consumers get lib/include, i.e. <tree_sitter/api.h>
#   ts_grammar_<name>        static library per grammar, exporting
#                            `const TSLanguage *tree_sitter_<name>(void)`
#   MNEMO_GRAMMARS           list of grammar names, in the order added
#   MNEMO_GRAMMAR_<name>_DIR the grammar's directory (its queries/ live there)
#   MNEMO_TREESITTER_DIR     the runtime's lib/ directory
#   MNEMO_TREESITTER_LIBS    the runtime and all grammars, for mnemo_core
#
# Adding a grammar: a line in deps/npm.lock and an mn_add_grammar() line below.

set(MNEMO_NPM_LOCK "${CMAKE_SOURCE_DIR}/deps/npm.lock")
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${MNEMO_NPM_LOCK}")

# scripts/deps.sh honours $MNEMO_DEPS_DIR; so does the first configuration,
# unless -DMNEMO_DEPS_DIR said otherwise. Kept in the cache, so that later
# automatic re-runs of cmake need not see the variable.
if(DEFINED ENV{MNEMO_DEPS_DIR} AND MNEMO_DEPS_DIR STREQUAL "${CMAKE_SOURCE_DIR}/.deps")
  get_filename_component(_mn_env_deps "$ENV{MNEMO_DEPS_DIR}" ABSOLUTE)
  set(MNEMO_DEPS_DIR "${_mn_env_deps}" CACHE PATH "Unpacked third-party sources" FORCE)
endif()

# mn_npm_package(<out> <name>): the directory holding npm package <name> at
# the version pinned in deps/npm.lock. Fails configuration if it is missing
# or was unpacked from another version or tarball.
function(mn_npm_package out name)
  file(STRINGS "${MNEMO_NPM_LOCK}" lines)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(REGEX MATCHALL "[^ \t]+" fields "${line}")
    list(LENGTH fields n)
    if(n EQUAL 0)
      continue()
    endif()
    list(GET fields 0 pkg)
    if(NOT pkg STREQUAL name)
      continue()
    endif()
    if(NOT n EQUAL 3)
      message(FATAL_ERROR "deps/npm.lock: bad line for '${name}' (want: name version sha256)")
    endif()
    list(GET fields 1 version)
    list(GET fields 2 sha)
    set(dir "${MNEMO_DEPS_DIR}/npm/${name}@${version}")
    set(stamp "")
    if(EXISTS "${dir}/.mnemo-sha256")
      file(STRINGS "${dir}/.mnemo-sha256" stamp LIMIT_COUNT 1)
    endif()
    if(NOT stamp STREQUAL sha)
      message(FATAL_ERROR
        "npm package '${name}@${version}' is missing or stale in '${MNEMO_DEPS_DIR}/npm': "
        "run scripts/deps.sh (or make deps), then configure again")
    endif()
    set(${out} "${dir}" PARENT_SCOPE)
    return()
  endforeach()
  message(FATAL_ERROR "npm package '${name}' is not pinned in deps/npm.lock")
endfunction()

# Third-party code: no warnings (so no -Werror failures), ours or theirs.
function(mn__third_party target)
  target_compile_options(${target} PRIVATE -w)
endfunction()

mn_npm_package(_mn_ts_pkg tree-sitter)
set(MNEMO_TREESITTER_DIR "${_mn_ts_pkg}/vendor/tree-sitter/lib")
add_library(treesitter STATIC "${MNEMO_TREESITTER_DIR}/src/lib.c")
# lib/src stays PRIVATE: its parser.h, tree.h, array.h... would shadow ours.
target_include_directories(treesitter SYSTEM PUBLIC "${MNEMO_TREESITTER_DIR}/include")
target_include_directories(treesitter PRIVATE "${MNEMO_TREESITTER_DIR}/src")
# As tree-sitter's own Makefile: -std=c11 hides fdopen and clock_gettime.
target_compile_definitions(treesitter PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
mn__third_party(treesitter)

set(MNEMO_GRAMMARS "")
set(MNEMO_TREESITTER_LIBS treesitter)

# mn_add_grammar(<name> <dir>): build ts_grammar_<name> from <dir>/src/parser.c
# (+ scanner.c). <dir> is an npm package pinned in deps/npm.lock, optionally
# followed by the sub-directory that holds the grammar
# (tree-sitter-typescript/tsx). <name> must match the grammar's exported
# function tree_sitter_<name>.
function(mn_add_grammar name dir)
  if(NOT dir MATCHES "^(@[^/]+/[^/]+|[^/@]+)(/(.+))?$")
    message(FATAL_ERROR "mn_add_grammar(${name}): bad directory '${dir}'")
  endif()
  set(sub "${CMAKE_MATCH_3}")
  mn_npm_package(root "${CMAKE_MATCH_1}")
  set(gdir "${root}")
  if(sub)
    set(gdir "${root}/${sub}")
  endif()
  if(NOT EXISTS "${gdir}/src/parser.c")
    message(FATAL_ERROR "mn_add_grammar(${name}): no src/parser.c in '${gdir}'")
  endif()
  set(sources "${gdir}/src/parser.c")
  if(EXISTS "${gdir}/src/scanner.c")
    list(APPEND sources "${gdir}/src/scanner.c")
  endif()
  add_library(ts_grammar_${name} STATIC ${sources})
  target_include_directories(ts_grammar_${name} PRIVATE "${gdir}/src")
  mn__third_party(ts_grammar_${name})

  set(MNEMO_GRAMMAR_${name}_DIR "${gdir}" PARENT_SCOPE)
  list(APPEND MNEMO_GRAMMARS ${name})
  set(MNEMO_GRAMMARS "${MNEMO_GRAMMARS}" PARENT_SCOPE)
  list(APPEND MNEMO_TREESITTER_LIBS ts_grammar_${name})
  set(MNEMO_TREESITTER_LIBS "${MNEMO_TREESITTER_LIBS}" PARENT_SCOPE)
endfunction()

mn_add_grammar(python tree-sitter-python)
