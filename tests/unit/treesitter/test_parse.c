/*
 * test_parse.c - the tree-sitter runtime and the Python grammar, as built by
 * cmake/treesitter.cmake from the pinned npm tarballs, work together.
 *
 * It guards the two ways this set-up breaks silently: a grammar whose ABI the
 * runtime refuses (ts_parser_set_language returns false, as Debian's 0.20
 * runtime does with ABI 15 grammars) and a tree that parses with error nodes.
 */
#include <stdbool.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "test.h"

const TSLanguage *tree_sitter_python(void);

static const char python_source[] = "import os\n"
                                    "\n"
                                    "def greet(name):\n"
                                    "    return 'hello ' + name\n"
                                    "\n"
                                    "class Greeter:\n"
                                    "    def hello(self, who='world'):\n"
                                    "        return greet(who)\n";

/* Appends to `out` (space-separated) the names of every function_definition
 * under `node`, in document order. */
static void collect_functions(TSNode node, const char *source, char *out, size_t cap)
{
    if (strcmp(ts_node_type(node), "function_definition") == 0) {
        TSNode name = ts_node_child_by_field_name(node, "name", 4);
        if (!ts_node_is_null(name)) {
            uint32_t start = ts_node_start_byte(name), end = ts_node_end_byte(name);
            size_t used = strlen(out);
            if (used + (end - start) + 2 < cap) {
                if (used > 0)
                    out[used++] = ' ';
                memcpy(out + used, source + start, end - start);
                out[used + (end - start)] = '\0';
            }
        }
    }
    uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; i++)
        collect_functions(ts_node_named_child(node, i), source, out, cap);
}

static void test_abi_is_supported(void)
{
    uint32_t abi = ts_language_abi_version(tree_sitter_python());
    CHECK(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION);
    CHECK(abi <= TREE_SITTER_LANGUAGE_VERSION);
}

static void test_parse_python(void)
{
    TSParser *parser = ts_parser_new();
    REQUIRE(parser != NULL);
    bool ok = ts_parser_set_language(parser, tree_sitter_python());
    CHECK(ok);
    if (!ok) {
        ts_parser_delete(parser);
        return;
    }
    TSTree *tree =
        ts_parser_parse_string(parser, NULL, python_source, (uint32_t)strlen(python_source));
    CHECK(tree != NULL);
    if (tree) {
        TSNode root = ts_tree_root_node(tree);
        CHECK_STR(ts_node_type(root), "module");
        CHECK(!ts_node_has_error(root));
        CHECK(ts_node_end_byte(root) == strlen(python_source));

        char names[128] = "";
        collect_functions(root, python_source, names, sizeof(names));
        CHECK_STR(names, "greet hello");
        ts_tree_delete(tree);
    }
    ts_parser_delete(parser);
}

static void test_syntax_error_is_reported(void)
{
    static const char broken[] = "def broken(:\n    return\n";
    TSParser *parser = ts_parser_new();
    REQUIRE(parser != NULL);
    CHECK(ts_parser_set_language(parser, tree_sitter_python()));
    TSTree *tree = ts_parser_parse_string(parser, NULL, broken, (uint32_t)strlen(broken));
    CHECK(tree != NULL);
    if (tree) {
        CHECK(ts_node_has_error(ts_tree_root_node(tree)));
        ts_tree_delete(tree);
    }
    ts_parser_delete(parser);
}

MN_TEST_MAIN(MN_TEST(test_abi_is_supported), MN_TEST(test_parse_python),
             MN_TEST(test_syntax_error_is_reported))
