# scan_rules.cmake - the secret scanner's built-in rules as C data
# (mn_scan__builtin_data, src/text/scan_internal.h), made at build time from
# src/text/scan_rules.yaml by scripts/scan_rules_gen.c, which reads the file
# with the scanner's own parser (the sources listed here) and so fails the
# build on any error in it. The YAML stays the source of truth; it is also
# embedded as text (mn_text_scan_rules) for unit/text/scan and bench_scan,
# which compare the data with what the file gives at run time.
#
# Defines:
#   mn_scan_rules_gen          the generator (a build tool, not installed)
#   MNEMO_SCAN_RULES_SOURCES   the generated files, for mnemo_core

set(_mn_scan_yaml ${CMAKE_SOURCE_DIR}/src/text/scan_rules.yaml)
set(_mn_scan_data ${CMAKE_BINARY_DIR}/generated/scan_builtin.c)
add_executable(mn_scan_rules_gen ${CMAKE_SOURCE_DIR}/scripts/scan_rules_gen.c
  ${CMAKE_SOURCE_DIR}/src/text/scan_rules.c ${CMAKE_SOURCE_DIR}/src/text/scan_prefilter.c
  ${CMAKE_SOURCE_DIR}/src/text/scan_checks.c ${CMAKE_SOURCE_DIR}/src/util/alloc.c
  ${CMAKE_SOURCE_DIR}/src/util/buf.c ${CMAKE_SOURCE_DIR}/src/util/error.c
  ${CMAKE_SOURCE_DIR}/src/util/yaml.c)
target_include_directories(mn_scan_rules_gen PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(mn_scan_rules_gen PRIVATE PkgConfig::JANSSON PkgConfig::YAML PkgConfig::PCRE2 m pthread)
add_custom_command(OUTPUT ${_mn_scan_data}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND mn_scan_rules_gen ${_mn_scan_yaml} ${_mn_scan_data}
  DEPENDS mn_scan_rules_gen ${_mn_scan_yaml}
  COMMENT "scanner rules as data (src/text/scan_rules.yaml)"
  VERBATIM)
mn_embed_named(${CMAKE_BINARY_DIR}/generated/scan_rules.c mn_text_ ${_mn_scan_yaml})
set(MNEMO_SCAN_RULES_SOURCES ${_mn_scan_data} ${CMAKE_BINARY_DIR}/generated/scan_rules.c)
