/*
 * test_options.c - mn_options_extract on small snippets written the way
 * each framework's documentation declares things: argparse, click, pytest's
 * addoption/addini, a pylint-style option table, clap (builder and derive),
 * cobra/pflag, Go's flag, urfave/cli, commander, getopt/getopt_long,
 * picocli and commons-cli, Ruby's OptionParser; environment reads in
 * Python, JavaScript, Go, Rust, Java, C and Ruby; and what must not count
 * (options in comments and docstrings, a lower-case environment lookup).
 */
#include "common.h"

#include "index/options.h"
#include "util/buf.h"
#include "test.h"

/* Whether src (in language) declares name of kind, at line (0: any line). */
static bool has(const char *language, const char *src, const char *kind, const char *name,
                int64_t line)
{
    mn_arena a = MN_ARENA_INIT;
    mn_decl_vec v = MN_VEC_INIT;
    mn_options_extract(language, src, strlen(src), &a, &v);
    bool found = false;
    for (size_t i = 0; i < v.len; i++)
        if (strcmp(v.items[i].kind, kind) == 0 && strcmp(v.items[i].name, name) == 0 &&
            (line == 0 || v.items[i].line == line))
            found = true;
    mn_vec_release(&v);
    mn_arena_release(&a);
    return found;
}

static size_t count(const char *language, const char *src)
{
    mn_arena a = MN_ARENA_INIT;
    mn_decl_vec v = MN_VEC_INIT;
    mn_options_extract(language, src, strlen(src), &a, &v);
    size_t n = v.len;
    mn_vec_release(&v);
    mn_arena_release(&a);
    return n;
}

static void test_python(void)
{
    const char *argparse = "import argparse\n"
                           "parser = argparse.ArgumentParser()\n"
                           "parser.add_argument('-v', '--verbose', action='store_true')\n"
                           "parser.add_argument(\"--max-depth\", type=int)\n";
    CHECK(has("python", argparse, "option", "-v", 3));
    CHECK(has("python", argparse, "option", "--verbose", 3));
    CHECK(has("python", argparse, "option", "--max-depth", 4));
    const char *pytest = "def pytest_addoption(parser):\n"
                         "    group = parser.getgroup('terminal reporting')\n"
                         "    group._addoption(\n"
                         "        \"--tb\",\n"
                         "        metavar=\"style\",\n"
                         "        dest=\"tbstyle\",\n"
                         "    )\n"
                         "    group._addoption('-l', '--showlocals', action='store_true')\n"
                         "    parser.addini('testpaths', 'directories to search', type='args')\n"
                         "    x = os.environ.get('PYTEST_ADDOPTS', '')\n"
                         "    y = os.getenv(\"PYTEST_DEBUG\")\n"
                         "    z = os.environ[\"PYTEST_CURRENT_TEST\"]\n";
    CHECK(has("python", pytest, "option", "--tb", 4));
    CHECK(has("python", pytest, "option", "-l", 8));
    CHECK(has("python", pytest, "option", "--showlocals", 8));
    CHECK(has("python", pytest, "config", "testpaths", 9));
    CHECK(has("python", pytest, "env", "PYTEST_ADDOPTS", 10));
    CHECK(has("python", pytest, "env", "PYTEST_DEBUG", 11));
    CHECK(has("python", pytest, "env", "PYTEST_CURRENT_TEST", 12));
    const char *click = "@click.command()\n"
                        "@click.option('--shout/--no-shout', default=False)\n"
                        "@click.option('-n', '--count', default=1)\n"
                        "def hello(shout, count):\n"
                        "    pass\n";
    CHECK(has("python", click, "option", "--shout", 2));
    CHECK(has("python", click, "option", "--no-shout", 2));
    CHECK(has("python", click, "option", "-n", 3));
    CHECK(has("python", click, "option", "--count", 3));
    const char *table = "OPTIONS = (\n"
                        "    (\n"
                        "        \"msg-template\",\n"
                        "        {\n"
                        "            \"type\": \"string\",\n"
                        "            \"default\": \"\",\n"
                        "            \"help\": \"Template used to display messages.\",\n"
                        "        },\n"
                        "    ),\n"
                        ")\n";
    CHECK(has("python", table, "option", "--msg-template", 3));
    /* not declarations: a comment, a docstring, a use of an option, a lower-case lookup */
    const char *none = "# parser.add_argument('--old')\n"
                       "def f():\n"
                       "    \"\"\"add_argument('--doc')\"\"\"\n"
                       "    if '--fast' in sys.argv:\n"
                       "        return os.environ.get('home')\n"
                       "    print(\"--not-an-option\")\n";
    CHECK(count("python", none) == 0);
}

static void test_javascript(void)
{
    const char *commander = "const { program } = require('commander');\n"
                            "program\n"
                            "  .option('-d, --debug', 'output extra debugging')\n"
                            "  .requiredOption('-p, --port <number>', 'port')\n"
                            "  .option('--no-color');\n"
                            "const level = process.env.LOG_LEVEL || 'info';\n"
                            "const home = process.env['APP_HOME'];\n"
                            "// .option('--commented')\n";
    CHECK(has("javascript", commander, "option", "-d", 3));
    CHECK(has("javascript", commander, "option", "--debug", 3));
    CHECK(has("javascript", commander, "option", "-p", 4));
    CHECK(has("javascript", commander, "option", "--port", 4));
    CHECK(has("javascript", commander, "option", "--no-color", 5));
    CHECK(has("javascript", commander, "env", "LOG_LEVEL", 6));
    CHECK(has("typescript", commander, "env", "APP_HOME", 7));
    CHECK(!has("javascript", commander, "option", "--commented", 0));
}

static void test_go(void)
{
    const char *cobra = "func init() {\n"
                        "\trootCmd.PersistentFlags().StringVarP(&cfgFile, \"config\", \"c\", \"\", "
                        "\"config file\")\n"
                        "\trootCmd.Flags().BoolP(\"verbose\", \"v\", false, \"verbose output\")\n"
                        "\tport := flag.Int(\"port\", 8080, \"port\")\n"
                        "\tflag.StringVar(&name, \"name\", \"\", \"name\")\n"
                        "\ttoken := os.Getenv(\"GITHUB_TOKEN\")\n"
                        "\tif v, ok := os.LookupEnv(\"NO_COLOR\"); ok {}\n"
                        "\tapp := &cli.App{Flags: []cli.Flag{&cli.StringFlag{Name: \"lang\", "
                        "Value: \"en\"}}}\n"
                        "\tviper.SetDefault(\"log.level\", \"info\")\n"
                        "}\n";
    CHECK(has("go", cobra, "option", "--config", 2));
    CHECK(has("go", cobra, "option", "-c", 2));
    CHECK(!has("go", cobra, "option", "--config file", 0));
    CHECK(has("go", cobra, "option", "--verbose", 3));
    CHECK(has("go", cobra, "option", "-v", 3));
    CHECK(has("go", cobra, "option", "--port", 4));
    CHECK(has("go", cobra, "option", "--name", 5));
    CHECK(has("go", cobra, "env", "GITHUB_TOKEN", 6));
    CHECK(has("go", cobra, "env", "NO_COLOR", 7));
    CHECK(has("go", cobra, "option", "--lang", 8));
    CHECK(!has("go", cobra, "option", "--en", 0));
    CHECK(has("go", cobra, "config", "log.level", 9));
}

static void test_rust(void)
{
    const char *derive = "#[derive(Parser)]\n"
                         "struct Args {\n"
                         "    /// Name of the person\n"
                         "    #[arg(short, long)]\n"
                         "    pub name_prefix: String,\n"
                         "    #[arg(long = \"max-count\", short = 'm', env = \"MAX_COUNT\")]\n"
                         "    count: u8,\n"
                         "}\n";
    CHECK(has("rust", derive, "option", "--name-prefix", 4));
    CHECK(has("rust", derive, "option", "-n", 4));
    CHECK(has("rust", derive, "option", "--max-count", 6));
    CHECK(has("rust", derive, "option", "-m", 6));
    CHECK(has("rust", derive, "env", "MAX_COUNT", 6));
    const char *builder =
        "fn cli<'a>() -> Command {\n"
        "    Command::new(\"rg\").arg(Arg::new(\"glob\").long(\"glob\").short('g'))\n"
        "}\n"
        "fn home() { let h = std::env::var(\"RIPGREP_CONFIG_PATH\"); "
        "let v = env!(\"CARGO_PKG_VERSION\"); }\n";
    CHECK(has("rust", builder, "option", "--glob", 2));
    CHECK(has("rust", builder, "option", "-g", 2));
    CHECK(has("rust", builder, "env", "RIPGREP_CONFIG_PATH", 4));
    CHECK(has("rust", builder, "env", "CARGO_PKG_VERSION", 4));
}

static void test_c_java_ruby(void)
{
    const char *c = "static struct option long_options[] = {\n"
                    "    {\"verbose\", no_argument, 0, 'v'},\n"
                    "    {\"output\",  required_argument, 0, 'o'},\n"
                    "    {0, 0, 0, 0}\n"
                    "};\n"
                    "int main(int argc, char **argv) {\n"
                    "    int c = getopt_long(argc, argv, \"vo:\", long_options, NULL);\n"
                    "    const char *h = getenv(\"CURL_HOME\"); /* getenv(\"NOT_READ\") */\n"
                    "}\n";
    CHECK(has("c", c, "option", "--verbose", 2));
    CHECK(has("c", c, "option", "--output", 3));
    CHECK(has("c", c, "option", "-v", 7));
    CHECK(has("c", c, "option", "-o", 7));
    CHECK(has("cpp", c, "env", "CURL_HOME", 8));
    CHECK(!has("c", c, "env", "NOT_READ", 0));
    const char *java = "class App {\n"
                       "  @Option(names = {\"-x\", \"--exclude\"}, description = \"skip\")\n"
                       "  List<String> excludes;\n"
                       "  void setup(Options options) {\n"
                       "    options.addOption(Option.builder(\"f\").longOpt(\"file\").build());\n"
                       "    String t = System.getenv(\"JAVA_TOOL_OPTIONS\");\n"
                       "    String p = System.getProperty(\"user.home\");\n"
                       "  }\n"
                       "}\n";
    CHECK(has("java", java, "option", "-x", 2));
    CHECK(has("java", java, "option", "--exclude", 2));
    CHECK(has("java", java, "option", "-f", 5));
    CHECK(has("java", java, "option", "--file", 5));
    CHECK(has("java", java, "env", "JAVA_TOOL_OPTIONS", 6));
    CHECK(has("java", java, "config", "user.home", 7));
    const char *ruby = "OptionParser.new do |opts|\n"
                       "  opts.on(\"-v\", \"--[no-]verbose\", \"Run verbosely\") do |v|\n"
                       "  end\n"
                       "end\n"
                       "home = ENV[\"RUBY_HOME\"] || ENV.fetch(\"GEM_HOME\")\n";
    CHECK(has("ruby", ruby, "option", "-v", 2));
    CHECK(has("ruby", ruby, "option", "--verbose", 2));
    CHECK(has("ruby", ruby, "option", "--no-verbose", 2));
    CHECK(has("ruby", ruby, "env", "RUBY_HOME", 5));
    CHECK(has("ruby", ruby, "env", "GEM_HOME", 5));
}

static void test_bounds(void)
{
    /* once per file, first line kept; unknown languages and broken text add nothing */
    const char *twice = "p.add_argument('--x1')\np.add_argument('--x1')\n";
    CHECK(count("python", twice) == 1);
    CHECK(has("python", twice, "option", "--x1", 1));
    CHECK(count("markdown", "parser.add_argument('--x')\n") == 0);
    CHECK(count(NULL, "parser.add_argument('--x')\n") == 0);
    CHECK(count("python", "parser.add_argument('--x") == 0);
    CHECK(count("c", "))))}}}]]] getenv(\"A_B\")") == 1);
    mn_buf b = MN_BUF_INIT;
    for (int i = 0; i < 2000; i++)
        mn_buf_printf(&b, "p.add_argument('--opt%d')\n", i);
    CHECK(count("python", b.ptr) == MN_OPTIONS_MAX_PER_FILE);
    mn_buf_release(&b);
}

/* Random text of the characters the scanner reacts to, in every language:
 * no read outside the buffer (ASan), every name within bounds. */
static void test_random(void)
{
    static const char alphabet[] = "\"'`()[]{},#/*-\\\n :=!<>_aAzZ0rg$.";
    static const char *const langs[] = {"python", "javascript", "go",   "rust",  "java",
                                        "c",      "cpp",        "ruby", "csharp"};
    unsigned seed = 22;
    char buf[600];
    for (int round = 0; round < 3000; round++) {
        size_t n = (size_t)(rand_r(&seed) % (int)sizeof(buf));
        for (size_t i = 0; i < n; i++)
            buf[i] = alphabet[rand_r(&seed) % (int)(sizeof(alphabet) - 1)];
        mn_arena a = MN_ARENA_INIT;
        mn_decl_vec v = MN_VEC_INIT;
        char *copy = malloc(n ? n : 1); /* no NUL after it */
        memcpy(copy, buf, n);
        mn_options_extract(langs[round % MN_ARRAY_SIZE(langs)], copy, n, &a, &v);
        for (size_t i = 0; i < v.len; i++)
            CHECK(strlen(v.items[i].name) > 0 && strlen(v.items[i].name) <= 64 &&
                  v.items[i].line >= 1);
        free(copy);
        mn_vec_release(&v);
        mn_arena_release(&a);
    }
}

MN_TEST_MAIN(MN_TEST(test_python), MN_TEST(test_javascript), MN_TEST(test_go), MN_TEST(test_rust),
             MN_TEST(test_c_java_ruby), MN_TEST(test_bounds), MN_TEST(test_random))
