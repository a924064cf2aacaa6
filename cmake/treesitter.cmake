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
#   MNEMO_GRAMMAR_<name>_DIR the grammar's directory (holding src/parser.c)
#   MNEMO_GRAMMAR_<name>_QUERIES
#                            its queries/ directory ("" if it ships none)
#   MNEMO_GRAMMAR_<name>_TAGS
#                            the tags.scm files its tags query is made of, in
#                            order ("" if none: bash, markdown)
#   mnemo_grammars           static library: the registry table behind
#                            src/index/grammars.h (generated/grammars_table.c:
#                            name, tree_sitter_<name>, tags query text)
#   MNEMO_TREESITTER_DIR     the runtime's lib/ directory
#   MNEMO_TREESITTER_LIBS    the registry, the runtime and all grammars, for
#                            mnemo_core
#
# Adding a grammar: a line in deps/npm.lock and an mn_add_grammar() line below;
# the registry, its embedded tags query and tests/unit/treesitter/
# test_grammars.c (which wants a snippet for every grammar) follow from it.
# Nothing under ${MNEMO_DEPS_DIR} is read at run time: the queries are
# compiled into the library.

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

# mn_add_grammar(<name> <dir> [TAGS_ALSO <grammar>...]): build
# ts_grammar_<name> from <dir>/src/parser.c (+ scanner.c; scanners must be C).
# <dir> is an npm package pinned in deps/npm.lock, optionally followed by the
# sub-directory that holds the grammar (tree-sitter-typescript/tsx). <name>
# must match the grammar's exported function tree_sitter_<name>.
# Queries are <dir>/queries, else the package's top-level queries/ (shared by
# typescript/tsx and php/php_only). The tags query is its queries/tags.scm,
# followed by the tags files of the grammars named after TAGS_ALSO (added
# before), as tree-sitter.json's "tags" lists do (typescript's builds on
# javascript's).
function(mn_add_grammar name dir)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "TAGS_ALSO")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mn_add_grammar(${name}): unexpected '${arg_UNPARSED_ARGUMENTS}'")
  endif()
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
  if(EXISTS "${gdir}/src/scanner.cc")
    message(FATAL_ERROR "mn_add_grammar(${name}): '${gdir}' has a C++ scanner; pin a version with src/scanner.c")
  endif()
  set(sources "${gdir}/src/parser.c")
  if(EXISTS "${gdir}/src/scanner.c")
    list(APPEND sources "${gdir}/src/scanner.c")
  endif()
  add_library(ts_grammar_${name} STATIC ${sources})
  target_include_directories(ts_grammar_${name} PRIVATE "${gdir}/src")
  mn__third_party(ts_grammar_${name})

  set(queries "")
  if(IS_DIRECTORY "${gdir}/queries")
    set(queries "${gdir}/queries")
  elseif(IS_DIRECTORY "${root}/queries")
    set(queries "${root}/queries")
  endif()
  set(tags "")
  if(queries AND EXISTS "${queries}/tags.scm")
    list(APPEND tags "${queries}/tags.scm")
  endif()
  foreach(other IN LISTS arg_TAGS_ALSO)
    if(NOT other IN_LIST MNEMO_GRAMMARS)
      message(FATAL_ERROR "mn_add_grammar(${name}): TAGS_ALSO '${other}' is not a grammar added before")
    endif()
    list(APPEND tags ${MNEMO_GRAMMAR_${other}_TAGS})
  endforeach()

  set(MNEMO_GRAMMAR_${name}_DIR "${gdir}" PARENT_SCOPE)
  set(MNEMO_GRAMMAR_${name}_QUERIES "${queries}" PARENT_SCOPE)
  set(MNEMO_GRAMMAR_${name}_TAGS "${tags}" PARENT_SCOPE)
  list(APPEND MNEMO_GRAMMARS ${name})
  set(MNEMO_GRAMMARS "${MNEMO_GRAMMARS}" PARENT_SCOPE)
  list(APPEND MNEMO_TREESITTER_LIBS ts_grammar_${name})
  set(MNEMO_TREESITTER_LIBS "${MNEMO_TREESITTER_LIBS}" PARENT_SCOPE)
endfunction()

# mn__grammar_registry(<out.c>): write the table src/index/grammars.c serves,
# one entry per grammar in MNEMO_GRAMMARS: its name, tree_sitter_<name> and
# its tags query (the TAGS files concatenated, embedded as bytes) or NULL.
function(mn__grammar_registry out_c)
  set(decls "")
  set(texts "")
  set(rows "")
  foreach(name IN LISTS MNEMO_GRAMMARS)
    string(APPEND decls "const TSLanguage *tree_sitter_${name}(void);\n")
    set(tags_ref "NULL")
    if(MNEMO_GRAMMAR_${name}_TAGS)
      set(hex "")
      set(from "")
      foreach(f IN LISTS MNEMO_GRAMMAR_${name}_TAGS)
        set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
        file(READ "${f}" h HEX)
        string(APPEND hex "${h}0a") # a newline between files
        file(RELATIVE_PATH rel "${MNEMO_DEPS_DIR}/npm" "${f}")
        string(APPEND from " ${rel}")
      endforeach()
      string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
      string(APPEND texts "/* tags query of ${name}:${from} */\n"
        "static const char mn_tags_${name}[] = {${hex}0x00};\n")
      set(tags_ref "mn_tags_${name}")
    endif()
    string(APPEND rows "    {\"${name}\", tree_sitter_${name}, ${tags_ref}},\n")
  endforeach()
  list(LENGTH MNEMO_GRAMMARS count)
  file(WRITE "${out_c}.tmp"
    "/* generated by cmake/treesitter.cmake from MNEMO_GRAMMARS -- do not edit */\n"
    "#include <stddef.h>\n\n#include \"index/grammars.h\"\n\n"
    "${decls}\n${texts}\n"
    "extern const mn_grammar mn_grammar__table[];\nextern const size_t mn_grammar__count;\n\n"
    "const mn_grammar mn_grammar__table[] = {\n${rows}};\n"
    "const size_t mn_grammar__count = ${count};\n")
  file(COPY_FILE "${out_c}.tmp" "${out_c}" ONLY_IF_DIFFERENT)
  file(REMOVE "${out_c}.tmp")
endfunction()

mn_add_grammar(python tree-sitter-python)
mn_add_grammar(javascript tree-sitter-javascript)
mn_add_grammar(typescript tree-sitter-typescript/typescript TAGS_ALSO javascript)
mn_add_grammar(tsx tree-sitter-typescript/tsx TAGS_ALSO javascript)
mn_add_grammar(go tree-sitter-go)
mn_add_grammar(rust tree-sitter-rust)
mn_add_grammar(java tree-sitter-java)
mn_add_grammar(c tree-sitter-c)
mn_add_grammar(cpp tree-sitter-cpp)
mn_add_grammar(ruby tree-sitter-ruby)
# php parses whole .php files (text with <?php ... ?> islands). Its sibling
# php_only (PHP code without the opening tag, as injected into other
# languages) would add 1 MB and 1.3 s of compilation: not built.
mn_add_grammar(php tree-sitter-php/php)
mn_add_grammar(c_sharp tree-sitter-c-sharp)
mn_add_grammar(bash tree-sitter-bash)
# The block grammar only (sections, headings, code blocks); its companion
# tree-sitter-markdown-inline (emphasis, links) is not needed to split
# documents. Neither ships tags.scm.
mn_add_grammar(markdown @tree-sitter-grammars/tree-sitter-markdown/tree-sitter-markdown)

mn__grammar_registry("${CMAKE_BINARY_DIR}/generated/grammars_table.c")
add_library(mnemo_grammars STATIC "${CMAKE_BINARY_DIR}/generated/grammars_table.c")
target_include_directories(mnemo_grammars PRIVATE "${CMAKE_SOURCE_DIR}/src")
# PUBLIC: whoever links the table also links what it points to, after it.
target_link_libraries(mnemo_grammars PUBLIC ${MNEMO_TREESITTER_LIBS})
list(PREPEND MNEMO_TREESITTER_LIBS mnemo_grammars)
