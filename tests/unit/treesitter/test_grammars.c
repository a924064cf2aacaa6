/*
 * test_grammars.c - every grammar in the registry (src/index/grammars.h, made
 * from the mn_add_grammar() lines of cmake/treesitter.cmake) loads into the
 * 0.25 runtime, parses a small realistic file of its language without an
 * error node, and its embedded tags query compiles and finds the expected
 * definitions.
 *
 * Definitions are reported as "<kind>:<name>" for each match that has both a
 * @definition.<kind> and a @name capture, sorted and de-duplicated. The C
 * runtime applies no predicates (#not-eq?, #match?, #select-adjacent!...),
 * so these are the raw matches: the snippets avoid constructs that only a
 * predicate would filter out.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "index/grammars.h"
#include "test.h"

typedef struct {
    const char *grammar;
    const char *source;
    /* Sorted, space-separated "<kind>:<name>" found by the tags query; for a
     * grammar without tags.scm, NULL, and `node` names a node type the tree
     * must contain instead. */
    const char *definitions;
    const char *node;
} sample;

static const sample samples[] = {
    {"python",
     "import os\n"
     "\n"
     "def greet(name):\n"
     "    \"\"\"Say hello.\"\"\"\n"
     "    return 'hello ' + name\n"
     "\n"
     "class Greeter:\n"
     "    def hello(self, who='world'):\n"
     "        return greet(who)\n",
     "class:Greeter function:greet function:hello", NULL},
    {"javascript",
     "import fs from 'fs';\n"
     "\n"
     "/** Greets someone. */\n"
     "function greet(name) {\n"
     "  return `hello ${name}`;\n"
     "}\n"
     "\n"
     "class Greeter {\n"
     "  hello(who = 'world') {\n"
     "    return greet(who);\n"
     "  }\n"
     "}\n"
     "\n"
     "const shout = (s) => s.toUpperCase();\n"
     "module.exports = { greet, Greeter, shout };\n",
     "class:Greeter function:greet function:shout method:hello", NULL},
    {"typescript",
     "interface Shape {\n"
     "  area(): number;\n"
     "}\n"
     "\n"
     "export class Circle implements Shape {\n"
     "  private r: number = 1;\n"
     "  area(): number {\n"
     "    return Math.PI * this.r ** 2;\n"
     "  }\n"
     "}\n"
     "\n"
     "export function total(shapes: Shape[]): number {\n"
     "  return shapes.reduce((sum, s) => sum + s.area(), 0);\n"
     "}\n",
     "class:Circle function:total interface:Shape method:area", NULL},
    {"tsx",
     "import React from 'react';\n"
     "\n"
     "type Props = { name: string };\n"
     "\n"
     "export function Hello({ name }: Props) {\n"
     "  return <div className=\"hello\">Hello, {name}!</div>;\n"
     "}\n"
     "\n"
     "export default class App extends React.Component<Props> {\n"
     "  render() {\n"
     "    return <Hello name={this.props.name} />;\n"
     "  }\n"
     "}\n",
     "class:App function:Hello method:render", NULL},
    {"go",
     "package main\n"
     "\n"
     "import \"fmt\"\n"
     "\n"
     "// Greeter says hello.\n"
     "type Greeter struct {\n"
     "\tName string\n"
     "}\n"
     "\n"
     "// Hello greets.\n"
     "func (g *Greeter) Hello() string {\n"
     "\treturn fmt.Sprintf(\"hello %s\", g.Name)\n"
     "}\n"
     "\n"
     "func main() {\n"
     "\tfmt.Println((&Greeter{Name: \"world\"}).Hello())\n"
     "}\n",
     "function:main method:Hello type:Greeter", NULL},
    {"rust",
     "use std::fmt;\n"
     "\n"
     "pub struct Point {\n"
     "    x: i32,\n"
     "    y: i32,\n"
     "}\n"
     "\n"
     "pub trait Shape {\n"
     "    fn area(&self) -> f64;\n"
     "}\n"
     "\n"
     "impl fmt::Display for Point {\n"
     "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
     "        write!(f, \"({}, {})\", self.x, self.y)\n"
     "    }\n"
     "}\n"
     "\n"
     "pub fn origin() -> Point {\n"
     "    Point { x: 0, y: 0 }\n"
     "}\n",
     /* fmt matches both the method and the function pattern */
     "class:Point function:fmt function:origin interface:Shape method:fmt", NULL},
    {"java",
     "package demo;\n"
     "\n"
     "import java.util.List;\n"
     "\n"
     "public class Greeter implements Named {\n"
     "    private final String who;\n"
     "\n"
     "    public Greeter(String who) {\n"
     "        this.who = who;\n"
     "    }\n"
     "\n"
     "    public String greet(List<String> others) {\n"
     "        return \"hello \" + who + String.join(\", \", others);\n"
     "    }\n"
     "}\n"
     "\n"
     "interface Named {\n"
     "    String name();\n"
     "}\n",
     "class:Greeter interface:Named method:greet method:name", NULL},
    {"c",
     "#include <stdio.h>\n"
     "\n"
     "struct point {\n"
     "    int x, y;\n"
     "};\n"
     "\n"
     "typedef struct point point_t;\n"
     "\n"
     "static int add(int a, int b)\n"
     "{\n"
     "    return a + b;\n"
     "}\n"
     "\n"
     "int main(void)\n"
     "{\n"
     "    printf(\"%d\\n\", add(1, 2));\n"
     "    return 0;\n"
     "}\n",
     "class:point function:add function:main type:point_t", NULL},
    {"cpp",
     "#include <string>\n"
     "\n"
     "namespace demo {\n"
     "\n"
     "class Greeter {\n"
     "  public:\n"
     "    std::string greet() const;\n"
     "\n"
     "  private:\n"
     "    std::string name_ = \"world\";\n"
     "};\n"
     "\n"
     "std::string Greeter::greet() const { return \"hello \" + name_; }\n"
     "\n"
     "} // namespace demo\n"
     "\n"
     "int main() { return demo::Greeter().greet().empty(); }\n",
     "class:Greeter function:greet function:main method:greet", NULL},
    {"ruby",
     "require 'json'\n"
     "\n"
     "module Demo\n"
     "  # Says hello.\n"
     "  class Greeter\n"
     "    def initialize(name)\n"
     "      @name = name\n"
     "    end\n"
     "\n"
     "    def greet(other = 'world')\n"
     "      \"hello #{other} from #{@name}\"\n"
     "    end\n"
     "\n"
     "    def self.create\n"
     "      new('x')\n"
     "    end\n"
     "  end\n"
     "end\n",
     "class:Greeter method:create method:greet method:initialize module:Demo", NULL},
    {"php",
     "<?php\n"
     "\n"
     "namespace App;\n"
     "\n"
     "interface Named\n"
     "{\n"
     "    public function name(): string;\n"
     "}\n"
     "\n"
     "class Greeter implements Named\n"
     "{\n"
     "    private string $who = 'world';\n"
     "\n"
     "    public function name(): string\n"
     "    {\n"
     "        return $this->who;\n"
     "    }\n"
     "}\n"
     "\n"
     "function greet(Named $n): string\n"
     "{\n"
     "    return \"hello \" . $n->name();\n"
     "}\n",
     "class:Greeter field:who function:greet function:name interface:Named module:App", NULL},
    {"c_sharp",
     "using System;\n"
     "\n"
     "namespace Demo\n"
     "{\n"
     "    public interface INamed\n"
     "    {\n"
     "        string Name();\n"
     "    }\n"
     "\n"
     "    public class Greeter : INamed\n"
     "    {\n"
     "        public string Name() => \"world\";\n"
     "\n"
     "        public static void Main(string[] args)\n"
     "        {\n"
     "            Console.WriteLine(\"hello \" + new Greeter().Name());\n"
     "        }\n"
     "    }\n"
     "}\n",
     "class:Greeter interface:INamed method:Main method:Name module:Demo", NULL},
    {"bash",
     "#!/usr/bin/env bash\n"
     "set -euo pipefail\n"
     "\n"
     "greet() {\n"
     "    local name=${1:-world}\n"
     "    echo \"hello $name\"\n"
     "}\n"
     "\n"
     "for f in \"$@\"; do\n"
     "    greet \"$f\" | tr a-z A-Z\n"
     "done\n",
     NULL, "function_definition"},
    {"markdown",
     "# Title\n"
     "\n"
     "Some *text* with `code`.\n"
     "\n"
     "## Section\n"
     "\n"
     "- item one\n"
     "- item two\n"
     "\n"
     "```c\n"
     "int x;\n"
     "```\n",
     NULL, "atx_heading"},
};

static const sample *sample_for(const char *grammar)
{
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        if (strcmp(samples[i].grammar, grammar) == 0)
            return &samples[i];
    }
    return NULL;
}

static bool has_node_type(TSNode node, const char *type)
{
    if (strcmp(ts_node_type(node), type) == 0)
        return true;
    uint32_t n = ts_node_child_count(node);
    for (uint32_t i = 0; i < n; i++) {
        if (has_node_type(ts_node_child(node, i), type))
            return true;
    }
    return false;
}

/* Prints where the first ERROR or MISSING node is, to make a failure
 * readable. */
static void report_error(TSNode node, const char *grammar)
{
    if (ts_node_is_error(node) || ts_node_is_missing(node)) {
        TSPoint at = ts_node_start_point(node);
        fprintf(stderr, "%s: %s node at %u:%u\n", grammar,
                ts_node_is_missing(node) ? "MISSING" : "ERROR", at.row + 1, at.column + 1);
        return;
    }
    uint32_t n = ts_node_child_count(node);
    for (uint32_t i = 0; i < n; i++) {
        TSNode child = ts_node_child(node, i);
        if (ts_node_has_error(child)) {
            report_error(child, grammar);
            return;
        }
    }
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Runs `query` over `root` and writes the sorted, unique "<kind>:<name>" of
 * its definitions into out. */
static void collect_definitions(const TSQuery *query, TSNode root, const char *source, char *out,
                                size_t cap)
{
    enum { MAX_DEFS = 64 };
    char defs[MAX_DEFS][64];
    const char *sorted[MAX_DEFS];
    size_t ndefs = 0;

    TSQueryCursor *cursor = ts_query_cursor_new();
    ts_query_cursor_exec(cursor, query, root);
    TSQueryMatch match;
    while (ts_query_cursor_next_match(cursor, &match)) {
        const char *kind = NULL;
        TSNode name = {0};
        bool have_name = false;
        for (uint16_t i = 0; i < match.capture_count; i++) {
            uint32_t len;
            const char *capture =
                ts_query_capture_name_for_id(query, match.captures[i].index, &len);
            if (strncmp(capture, "definition.", 11) == 0) {
                kind = capture + 11;
            } else if (strcmp(capture, "name") == 0) {
                name = match.captures[i].node;
                have_name = true;
            }
        }
        if (!kind || !have_name || ndefs == MAX_DEFS)
            continue;
        uint32_t start = ts_node_start_byte(name), end = ts_node_end_byte(name);
        snprintf(defs[ndefs], sizeof(defs[ndefs]), "%s:%.*s", kind, (int)(end - start),
                 source + start);
        sorted[ndefs] = defs[ndefs];
        ndefs++;
    }
    ts_query_cursor_delete(cursor);

    qsort(sorted, ndefs, sizeof(sorted[0]), compare_strings);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ndefs; i++) {
        if (i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
            continue;
        int n = snprintf(out + used, cap - used, "%s%s", used ? " " : "", sorted[i]);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
}

static const char *query_error_name(TSQueryError error)
{
    switch (error) {
    case TSQueryErrorNone:
        return "none";
    case TSQueryErrorSyntax:
        return "syntax";
    case TSQueryErrorNodeType:
        return "node type";
    case TSQueryErrorField:
        return "field";
    case TSQueryErrorCapture:
        return "capture";
    case TSQueryErrorStructure:
        return "structure";
    case TSQueryErrorLanguage:
        return "language";
    }
    return "?";
}

static void check_grammar(const mn_grammar *g)
{
    const sample *s = sample_for(g->name);
    if (!s) {
        fprintf(stderr, "grammar '%s' has no sample in test_grammars.c\n", g->name);
        CHECK(s != NULL);
        return;
    }
    REQUIRE(g->language != NULL);
    const TSLanguage *language = g->language();
    REQUIRE(language != NULL);
    uint32_t abi = ts_language_abi_version(language);
    CHECK(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION);
    CHECK(abi <= TREE_SITTER_LANGUAGE_VERSION);

    TSParser *parser = ts_parser_new();
    REQUIRE(parser != NULL);
    bool ok = ts_parser_set_language(parser, language);
    if (!ok)
        fprintf(stderr, "%s: ts_parser_set_language failed (ABI %u)\n", g->name, abi);
    CHECK(ok);
    TSTree *tree =
        ok ? ts_parser_parse_string(parser, NULL, s->source, (uint32_t)strlen(s->source)) : NULL;
    CHECK(!ok || tree != NULL);
    if (tree) {
        TSNode root = ts_tree_root_node(tree);
        bool clean = !ts_node_has_error(root);
        if (!clean)
            report_error(root, g->name);
        CHECK(clean);
        CHECK(ts_node_end_byte(root) <= strlen(s->source));
        if (s->node) {
            bool found = has_node_type(root, s->node);
            if (!found) {
                char *tree_text = ts_node_string(root);
                fprintf(stderr, "%s: no %s node in %s\n", g->name, s->node, tree_text);
                free(tree_text);
            }
            CHECK(found);
        }
    }

    if (!s->definitions) {
        if (g->tags_query)
            fprintf(stderr, "%s: has a tags query now: give its sample definitions\n", g->name);
        CHECK(g->tags_query == NULL);
    } else if (!g->tags_query) {
        fprintf(stderr, "%s: no tags query\n", g->name);
        CHECK(g->tags_query != NULL);
    } else {
        uint32_t error_offset = 0;
        TSQueryError error = TSQueryErrorNone;
        TSQuery *query = ts_query_new(language, g->tags_query, (uint32_t)strlen(g->tags_query),
                                      &error_offset, &error);
        if (!query) {
            fprintf(stderr, "%s: tags query: %s error at offset %u: %.40s\n", g->name,
                    query_error_name(error), error_offset, g->tags_query + error_offset);
        }
        CHECK(query != NULL);
        if (query && tree) {
            char found[512];
            collect_definitions(query, ts_tree_root_node(tree), s->source, found, sizeof(found));
            if (strcmp(found, s->definitions) != 0)
                fprintf(stderr, "%s: the tags query found other definitions\n", g->name);
            CHECK_STR(found, s->definitions);
        }
        if (query)
            ts_query_delete(query);
    }
    if (tree)
        ts_tree_delete(tree);
    ts_parser_delete(parser);
}

static void test_every_grammar_parses_and_tags(void)
{
    size_t count = 0;
    const mn_grammar *all = mn_grammars(&count);
    REQUIRE(all != NULL);
    for (size_t i = 0; i < count; i++)
        check_grammar(&all[i]);
}

/* The registry and this test agree on the list, both ways, and the names
 * are unique. */
static void test_registry(void)
{
    size_t count = 0;
    const mn_grammar *all = mn_grammars(&count);
    CHECK(count == sizeof(samples) / sizeof(samples[0]));
    for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        const mn_grammar *g = mn_grammar_find(samples[i].grammar);
        if (!g)
            fprintf(stderr, "grammar '%s' is not registered\n", samples[i].grammar);
        CHECK(g != NULL);
        if (g)
            CHECK_STR(g->name, samples[i].grammar);
    }
    for (size_t i = 0; i < count; i++) {
        CHECK(mn_grammar_find(all[i].name) == &all[i]);
        for (size_t j = i + 1; j < count; j++)
            CHECK(strcmp(all[i].name, all[j].name) != 0);
    }
    CHECK(mn_grammar_find("cobol") == NULL);
    CHECK(mn_grammar_find("") == NULL);
    CHECK(mn_grammar_find(NULL) == NULL);
    CHECK(mn_grammars(NULL) == all);
}

/* typescript's tags query carries javascript's after its own (functions and
 * classes come from there), as tree-sitter-typescript's tree-sitter.json asks. */
static void test_typescript_tags_include_javascript(void)
{
    const mn_grammar *ts = mn_grammar_find("typescript");
    const mn_grammar *js = mn_grammar_find("javascript");
    REQUIRE(ts && js && ts->tags_query && js->tags_query);
    CHECK(strstr(ts->tags_query, js->tags_query) != NULL);
    CHECK(strstr(ts->tags_query, "function_signature") != NULL);
}

MN_TEST_MAIN(MN_TEST(test_registry), MN_TEST(test_every_grammar_parses_and_tags),
             MN_TEST(test_typescript_tags_include_javascript))
