/*
 * test_decl_only.c - files that only declare error and annotation types
 * (index/decl_only.h), on real files extracted by the real parser: an
 * exception module whose classes derive from each other (Timeout from
 * RequestException, which no name marks), Java exception and annotation
 * types, a Go error type with its Error() method, C++ errors in a
 * namespace, a Rust error enum with its Display impl; and the files that
 * must not count: one more free function, one ordinary class, no type at
 * all, a file of ordinary classes whose names merely hold "Error" inside.
 */
#include "common.h"

#include "index/decl_only.h"
#include "index/parse.h"
#include "util/buf.h"
#include "test.h"

static mn_parser *parser;

static bool decl_only(const char *language, const char *path, const char *src)
{
    mn_parse_result r = MN_PARSE_RESULT_INIT;
    bool got = false;
    if (mn_parser_parse(parser, &r, language, path, src, strlen(src)) == 0)
        got = mn_decl_only(r.symbols.items, r.symbols.len, r.refs.items, r.refs.len);
    else
        CHECK(!"the parser failed");
    mn_parse_result_release(&r);
    return got;
}

static void test_declares_only(void)
{
    CHECK(
        decl_only("python", "requests/exceptions.py",
                  "class RequestException(IOError):\n"
                  "    def __init__(self, *args, **kwargs):\n"
                  "        self.response = kwargs.pop('response', None)\n"
                  "        super().__init__(*args, **kwargs)\n\n"
                  "class HTTPError(RequestException):\n    \"\"\"An HTTP error occurred.\"\"\"\n\n"
                  "class Timeout(RequestException):\n    pass\n\n"
                  "class ConnectTimeout(ConnectionError, Timeout):\n    pass\n\n"
                  "DEFAULT_MESSAGE = 'request failed'\n"));
    CHECK(decl_only("java", "src/main/java/x/RegistryException.java",
                    "package x;\n\npublic class RegistryException extends Exception {\n"
                    "  public RegistryException(String message) { super(message); }\n"
                    "  public RegistryException(Throwable cause) { super(cause); }\n}\n"));
    CHECK(decl_only(
        "java", "src/main/java/x/JacksonXmlText.java",
        "package x;\n\nimport java.lang.annotation.*;\n\n"
        "@Target({ElementType.FIELD, ElementType.METHOD})\n"
        "@Retention(RetentionPolicy.RUNTIME)\n"
        "public @interface JacksonXmlText {\n  public boolean value() default true;\n}\n"));
    CHECK(decl_only("go", "errors.go",
                    "package x\n\ntype ParseError struct {\n\tLine int\n}\n\n"
                    "func (e *ParseError) Error() string { return \"bad line\" }\n"));
    CHECK(decl_only("cpp", "include/sj/error.h",
                    "#include <stdexcept>\nnamespace sj {\n"
                    "class parse_error : public std::runtime_error {\n"
                    "public:\n  explicit parse_error(const char *m) : std::runtime_error(m) {}\n"
                    "};\nclass depth_error : public parse_error {\n"
                    "public:\n  using parse_error::parse_error;\n};\n}\n"));
    CHECK(decl_only("rust", "src/error.rs",
                    "use std::fmt;\n\npub enum Error {\n    Io,\n    Closed,\n}\n\n"
                    "impl fmt::Display for Error {\n"
                    "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n"
                    "        write!(f, \"error\")\n    }\n}\n"));
}

static void test_not_only(void)
{
    /* the same module with a helper that raises: behaviour to fix */
    CHECK(!decl_only("python", "requests/exceptions.py",
                     "class RequestException(IOError):\n    pass\n\n"
                     "def raise_for_status(response):\n"
                     "    if response.status >= 400:\n        raise RequestException(response)\n"));
    /* an error type beside an ordinary class */
    CHECK(!decl_only("python", "x/session.py",
                     "class SessionError(Exception):\n    pass\n\n"
                     "class Session:\n    def get(self, url):\n        return url\n"));
    CHECK(!decl_only("java", "src/main/java/x/Registry.java",
                     "package x;\n\npublic class Registry {\n"
                     "  public String pull(String image) { return image; }\n}\n"));
    /* "Error" inside the name is not its end */
    CHECK(!decl_only("java", "src/main/java/x/ErrorHandler.java",
                     "package x;\n\npublic class ErrorHandler {\n"
                     "  public void handle(Exception e) { }\n}\n"));
    /* an ordinary interface is no annotation */
    CHECK(!decl_only("java", "src/main/java/x/Puller.java",
                     "package x;\n\npublic interface Puller {\n  String pull(String image);\n}\n"));
    /* no type at all */
    CHECK(!decl_only("python", "x/constants.py", "TIMEOUT = 30\nRETRIES = 3\n"));
    CHECK(!decl_only("python", "x/empty.py", ""));
    /* more types than an exception module declares: no such module (and bounded work) */
    mn_buf many = MN_BUF_INIT;
    for (int i = 0; i < 129; i++)
        mn_buf_printf(&many, "class E%dError(Exception):\n    pass\n\n", i);
    CHECK(!decl_only("python", "x/many.py", many.ptr));
    many.len = 0;
    for (int i = 0; i < 128; i++)
        mn_buf_printf(&many, "class E%dError(Exception):\n    pass\n\n", i);
    CHECK(decl_only("python", "x/many.py", many.ptr));
    mn_buf_release(&many);
    /* a free function beside a Go error type */
    CHECK(!decl_only("go", "parse.go",
                     "package x\n\ntype ParseError struct{}\n\n"
                     "func (e *ParseError) Error() string { return \"\" }\n\n"
                     "func Parse(s string) error { return &ParseError{} }\n"));
}

static void test_names(void)
{
    CHECK(mn_error_type_name("ProxyError"));
    CHECK(mn_error_type_name("requests.exceptions.RequestException"));
    CHECK(mn_error_type_name("std::runtime_error"));
    CHECK(mn_error_type_name("DeprecationWarning"));
    CHECK(mn_error_type_name("Throwable"));
    CHECK(mn_error_type_name("error"));
    CHECK(!mn_error_type_name("ErrorHandler"));
    CHECK(!mn_error_type_name("Mirror"));
    CHECK(!mn_error_type_name("terror"));
    CHECK(!mn_error_type_name(""));
    CHECK(!mn_error_type_name(NULL));
}

static void setup(void)
{
    REQUIRE_OK(mn_parser_new(&parser));
}

static void teardown(void)
{
    mn_parser_free(parser);
}

static void test_all(void)
{
    setup();
    test_declares_only();
    test_not_only();
    test_names();
    teardown();
}

MN_TEST_MAIN(MN_TEST(test_all))
