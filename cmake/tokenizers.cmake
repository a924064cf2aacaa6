# tokenizers.cmake - the token tables `context` counts its budget with
# (src/text/bpe.h): cl100k_base and o200k_base, made at build time from the
# ranks in the npm package js-tiktoken (pinned in deps/npm.lock, unpacked by
# scripts/deps.sh) by scripts/bpe_table.c.
#
# Defines:
#   mn_bpe_table            the generator (a build tool, not installed)
#   mnemo_tokenizers        target: ${CMAKE_BINARY_DIR}/share/mnemo/tokenizers/<name>.bpe
#   MNEMO_TOKENIZER_FILES   those files, for install() (share/mnemo/tokenizers)
#
# The tables sit under share/mnemo/tokenizers of the build tree, where bpe.c
# finds them from build/mnemo (<dir>/share/...) and from build/tests/ and
# build/bench/ (<dir>/../share/...), as from an installed bin/mnemo. Nothing
# under ${MNEMO_DEPS_DIR} is read at run time.

mn_npm_package(MNEMO_TIKTOKEN_DIR js-tiktoken)
add_executable(mn_bpe_table ${CMAKE_SOURCE_DIR}/scripts/bpe_table.c)
target_link_libraries(mn_bpe_table PRIVATE PkgConfig::JANSSON PkgConfig::XXHASH PkgConfig::PCRE2)

set(MNEMO_TOKENIZER_FILES "")
set(_mn_tok_dir ${CMAKE_BINARY_DIR}/share/mnemo/tokenizers)
foreach(enc cl100k_base o200k_base)
  set(_src ${MNEMO_TIKTOKEN_DIR}/dist/ranks/${enc}.cjs)
  set(_out ${_mn_tok_dir}/${enc}.bpe)
  add_custom_command(OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_mn_tok_dir}
    COMMAND mn_bpe_table ${enc} ${_src} ${_out}
    DEPENDS mn_bpe_table ${_src} ${CMAKE_SOURCE_DIR}/src/text/bpe_format.h
    COMMENT "token table ${enc}"
    VERBATIM)
  list(APPEND MNEMO_TOKENIZER_FILES ${_out})
endforeach()
add_custom_target(mnemo_tokenizers ALL DEPENDS ${MNEMO_TOKENIZER_FILES})
