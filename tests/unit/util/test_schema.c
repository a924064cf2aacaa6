/*
 * test_schema.c - the JSON Schema subset validator and checker.
 *
 * Schemas and values are written as JSON with single quotes for
 * readability; J() turns every ' into " before parsing, so a literal
 * apostrophe is written \u0027. Each failing case asserts the exact
 * message, because the messages are part of the interface: agents read
 * them to fix their next call.
 */
#include "common.h"
#include "util/schema.h"
#include "util/buf.h"
#include "test.h"
#include "test_json.h"

static int validate(const char *schema, const char *value)
{
    json_t *s = J(schema), *v = J(value);
    int rc;
    mn_error_clear();
    rc = mn_schema_validate(s, v);
    json_decref(s);
    json_decref(v);
    return rc;
}

static int check(const char *schema)
{
    json_t *s = J(schema);
    int rc;
    mn_error_clear();
    rc = mn_schema_check(s);
    json_decref(s);
    return rc;
}

#define PASS(s, v) CHECK_OK(validate(s, v))
#define FAIL(s, v, msg)                     \
    do {                                    \
        CHECK(validate(s, v) == MN_EINVAL); \
        CHECK_STR(mn_error_last(), msg);    \
    } while (0)
#define CHECK_PASS(s) CHECK_OK(check(s))
#define CHECK_FAIL(s, msg)               \
    do {                                 \
        CHECK(check(s) == MN_EINVAL);    \
        CHECK_STR(mn_error_last(), msg); \
    } while (0)

/* A save-like operation schema, as the operation table will hold them. */
static const char *save_schema =
    "{'type': 'object', 'additionalProperties': false, 'required': ['kind', 'title'],"
    " 'properties': {"
    "  'kind': {'enum': ['fact', 'decision', 'gotcha'], 'description': 'what it is'},"
    "  'level': {'type': 'integer', 'minimum': 1, 'maximum': 5},"
    "  'title': {'type': 'string', 'minLength': 1, 'maxLength': 200, 'x-cli-positional': true},"
    "  'context': {'type': 'object', 'additionalProperties': false,"
    "   'properties': {"
    "    'trigger_keywords': {'type': 'array', 'items': {'type': 'string'}},"
    "    'title': {'type': 'string'}},"
    "   'required': ['title']},"
    "  'created': {'type': 'string', 'format': 'date-time'}}}";

static void test_type_each(void)
{
    PASS("{'type': 'string'}", "'x'");
    FAIL("{'type': 'string'}", "1", "input: must be a string");
    PASS("{'type': 'integer'}", "-7");
    FAIL("{'type': 'integer'}", "'7'", "input: must be an integer");
    PASS("{'type': 'number'}", "7");
    PASS("{'type': 'number'}", "7.5");
    FAIL("{'type': 'number'}", "true", "input: must be a number");
    PASS("{'type': 'boolean'}", "false");
    FAIL("{'type': 'boolean'}", "0", "input: must be a boolean");
    PASS("{'type': 'object'}", "{}");
    FAIL("{'type': 'object'}", "[]", "input: must be an object");
    PASS("{'type': 'array'}", "[]");
    FAIL("{'type': 'array'}", "{}", "input: must be an array");
    PASS("{'type': 'null'}", "null");
    FAIL("{'type': 'null'}", "'null'", "input: must be null");
    PASS("{}", "{'anything': [1, 2]}");
}

static void test_type_integer_vs_real(void)
{
    /* 1.0 is a real in JSON text, so it is not an integer; 1 is a number. */
    FAIL("{'type': 'integer'}", "1.0", "input: must be an integer");
    PASS("{'type': 'number'}", "1");
    PASS("{'type': 'integer'}", "9223372036854775807");
}

static void test_type_array(void)
{
    PASS("{'type': ['string', 'null']}", "null");
    PASS("{'type': ['string', 'null']}", "'a'");
    FAIL("{'type': ['string', 'null']}", "3", "input: must be a string or null");
    FAIL("{'type': ['string', 'integer', 'array']}", "true",
         "input: must be a string, an integer or an array");
    /* "integer" adds nothing next to "number". */
    FAIL("{'type': ['integer', 'number']}", "'x'", "input: must be a number");
}

static void test_nested_path(void)
{
    FAIL(save_schema,
         "{'kind': 'fact', 'title': 't', 'context': {'title': 'c',"
         " 'trigger_keywords': ['a', 'b', 3]}}",
         "field 'context.trigger_keywords[2]': must be a string");
    FAIL("{'properties': {'a': {'properties': {'b': {'items': {'properties':"
         " {'c': {'type': 'boolean'}}}}}}}}",
         "{'a': {'b': [{}, {'c': true}, {}, {'c': 'yes'}]}}",
         "field 'a.b[3].c': must be a boolean");
    FAIL("{'items': {'items': {'type': 'null'}}}", "[[null], [null, 1]]",
         "field '[1][1]': must be null");
}

static void test_properties_and_unknown_fields(void)
{
    PASS(save_schema, "{'kind': 'fact', 'title': 'use WAL', 'level': 2,"
                      " 'context': {'title': 'x', 'trigger_keywords': []},"
                      " 'created': '2026-11-21T05:37:25Z'}");
    FAIL(save_schema, "{'kind': 'fact', 'title': 't', 'colour': 'red'}",
         "unknown field 'colour' (expected one of: kind, level, title, context, created)");
    FAIL(save_schema, "{'kind': 'fact', 'title': 't', 'context': {'title': 'c', 'x': 1}}",
         "unknown field 'context.x' (expected one of: trigger_keywords, title)");
    /* A near miss gets a suggestion, case and transpositions included. */
    FAIL(save_schema, "{'kind': 'fact', 'titel': 't'}",
         "unknown field 'titel', did you mean 'title'? (expected one of: kind, level, title, "
         "context, created)");
    FAIL(save_schema, "{'Kind': 'fact', 'title': 't'}",
         "unknown field 'Kind', did you mean 'kind'? (expected one of: kind, level, title, "
         "context, created)");
    FAIL("{'additionalProperties': false}", "{'a': 1}",
         "unknown field 'a' (no fields are accepted here)");
    /* additionalProperties defaults to true, and may be a schema. */
    PASS("{'properties': {'a': {'type': 'string'}}}", "{'a': 'x', 'b': 1}");
    PASS("{'additionalProperties': {'type': 'integer'}}", "{'a': 1, 'b': 2}");
    FAIL("{'properties': {'a': {}}, 'additionalProperties': {'type': 'integer'}}",
         "{'a': 'x', 'b': 'y'}", "field 'b': must be an integer");
    /* Properties only apply to objects. */
    PASS("{'properties': {'a': {'type': 'string'}}, 'required': ['a']}", "[1]");
}

static void test_unknown_field_list_is_cut(void)
{
    FAIL("{'additionalProperties': false, 'properties': {'a1': {}, 'a2': {}, 'a3': {}, 'a4': {},"
         " 'a5': {}, 'a6': {}, 'a7': {}, 'a8': {}, 'a9': {}, 'b1': {}, 'b2': {}, 'b3': {},"
         " 'b4': {}, 'b5': {}}}",
         "{'zzzz': 1}",
         "unknown field 'zzzz' (expected one of: a1, a2, a3, a4, a5, a6, a7, a8, a9, b1, b2, b3, "
         "...)");
}

static void test_required(void)
{
    FAIL(save_schema, "{'kind': 'fact'}", "missing required field 'title'");
    FAIL(save_schema, "{'kind': 'fact', 'title': 't', 'context': {}}",
         "missing required field 'context.title'");
    /* Unknown fields are reported before missing ones: a typo explains both. */
    FAIL("{'required': ['b'], 'additionalProperties': false, 'properties': {'b': {}}}", "{'c': 1}",
         "unknown field 'c' (expected one of: b)");
    PASS("{'required': ['a']}", "{'a': null}");
}

static void test_enum_and_const(void)
{
    FAIL(save_schema, "{'kind': 'fcat', 'title': 't'}",
         "field 'kind': must be one of fact, decision, gotcha (got 'fcat')");
    PASS("{'enum': [1, 'two', null, [3]]}", "[3]");
    PASS("{'enum': [1, 'two', null, [3]]}", "null");
    FAIL("{'enum': [1, 'two', null, [3]]}", "2", "input: must be one of 1, two, null, [3] (got 2)");
    FAIL("{'enum': [1, 2]}", "{'a': 1}", "input: must be one of 1, 2 (got an object)");
    FAIL("{'enum': ['only']}", "'other'", "input: must be only (got 'other')");
    PASS("{'const': 'v1'}", "'v1'");
    FAIL("{'properties': {'version': {'const': 1}}}", "{'version': 2}",
         "field 'version': must be 1 (got 2)");
    FAIL("{'const': true}", "[]", "input: must be true (got an array)");
}

static void test_string_length(void)
{
    char big[260];
    memset(big, 'a', 201);
    big[201] = '\0';
    mn_buf v = MN_BUF_INIT;
    mn_buf_printf(&v, "{'kind': 'fact', 'title': '%s'}", big);
    FAIL(save_schema, v.ptr, "field 'title': longer than 200 characters");
    mn_buf_release(&v);

    FAIL(save_schema, "{'kind': 'fact', 'title': ''}", "field 'title': must not be empty");
    FAIL("{'minLength': 3}", "'ab'", "input: shorter than 3 characters");
    FAIL("{'maxLength': 1}", "'ab'", "input: longer than 1 character");
    PASS("{'minLength': 3}", "'abc'");
    /* Code points, not bytes: 5 characters, 11 bytes. */
    PASS("{'maxLength': 5, 'minLength': 5}", "'h\u00e9\u20acl\U0001F600'");
    PASS("{'maxLength': 5}", "'\u00e9\u00e9\u00e9\u00e9\u00e9'");
    FAIL("{'maxLength': 5}", "'\u00e9\u00e9\u00e9\u00e9\u00e9\u20ac'",
         "input: longer than 5 characters");
    /* Length keywords only apply to strings. */
    PASS("{'maxLength': 1}", "12345");
}

static void test_numbers(void)
{
    FAIL(save_schema, "{'kind': 'fact', 'title': 't', 'level': 0}",
         "field 'level': must be at least 1 (got 0)");
    FAIL(save_schema, "{'kind': 'fact', 'title': 't', 'level': 9}",
         "field 'level': must be at most 5 (got 9)");
    PASS("{'minimum': 1, 'maximum': 5}", "1");
    PASS("{'minimum': 1, 'maximum': 5}", "5");
    PASS("{'minimum': 0.5}", "0.5");
    FAIL("{'minimum': 0.5}", "0", "input: must be at least 0.5 (got 0)");
    FAIL("{'exclusiveMinimum': 0}", "0", "input: must be greater than 0 (got 0)");
    PASS("{'exclusiveMinimum': 0}", "0.001");
    FAIL("{'exclusiveMaximum': 1}", "1.0", "input: must be less than 1 (got 1)");
    FAIL("{'exclusiveMaximum': 1.5}", "2", "input: must be less than 1.5 (got 2)");
    PASS("{'exclusiveMaximum': 1}", "0.999");
    FAIL("{'maximum': -0.25}", "-0.2", "input: must be at most -0.25 (got -0.2)");
    /* Exact beyond 2^53: 2^63 - 1 is below the real 2^63. */
    PASS("{'exclusiveMaximum': 9223372036854775808.0}", "9223372036854775807");
    FAIL("{'maximum': 9007199254740992}", "9007199254740993",
         "input: must be at most 9007199254740992 (got 9007199254740993)");
    PASS("{'maximum': 9007199254740993}", "9007199254740993");
    PASS("{'minimum': -1.5}", "-1");
    FAIL("{'minimum': -1.5}", "-2", "input: must be at least -1.5 (got -2)");
    /* Bounds only apply to numbers. */
    PASS("{'minimum': 10}", "'5'");
}

static void test_arrays(void)
{
    const char *tags = "{'type': 'array', 'items': {'type': 'string', 'maxLength': 3},"
                       " 'minItems': 1, 'maxItems': 3, 'uniqueItems': true}";
    PASS(tags, "['a', 'b', 'c']");
    FAIL(tags, "[]", "input: must not be empty");
    FAIL(tags, "['a', 'b', 'c', 'd']", "input: must have at most 3 items (got 4)");
    FAIL(tags, "['a', 'toolong']", "field '[1]': longer than 3 characters");
    FAIL(tags, "['a', 'b', 'a']", "input: must not contain duplicates (items 0 and 2 are equal)");
    FAIL("{'minItems': 2}", "[1]", "input: must have at least 2 items");
    FAIL("{'maxItems': 1}", "[1, 2]", "input: must have at most 1 item (got 2)");
    PASS("{'uniqueItems': true}", "[{'a': 1}, {'a': 2}]");
    FAIL("{'uniqueItems': true}", "[{'a': 1}, {'a': 1}]",
         "input: must not contain duplicates (items 0 and 1 are equal)");
    PASS("{'uniqueItems': false}", "[1, 1]");
}

static void test_any_of_one_of(void)
{
    const char *str_or_list = "{'properties': {'x': {'anyOf': [{'type': 'string'},"
                              " {'type': 'array', 'items': {'type': 'string'}}]}}}";
    PASS(str_or_list, "{'x': 'a'}");
    PASS(str_or_list, "{'x': ['a']}");
    /* Every branch failed on type: the types are merged. */
    FAIL(str_or_list, "{'x': 3}", "field 'x': must be a string or an array");
    /* A branch got past its type: its error is the hint. */
    FAIL(str_or_list, "{'x': ['a', 1]}",
         "field 'x': does not match any allowed form (field 'x[1]': must be a string)");
    FAIL("{'anyOf': [{'type': 'integer', 'minimum': 10}, {'type': 'string'}]}", "3",
         "input: does not match any allowed form (must be at least 10 (got 3))");
    FAIL("{'anyOf': [{'required': ['a']}, {'required': ['b']}]}", "{}",
         "input: does not match any allowed form (missing required field 'a')");

    const char *one = "{'oneOf': [{'type': 'integer'}, {'type': 'number', 'maximum': 100}]}";
    PASS(one, "1000");
    PASS(one, "1.5");
    FAIL(one, "5", "input: matches more than one allowed form (forms 1 and 2)");
    FAIL(one, "'x'", "input: must be a number");
    FAIL(one, "500.5", "input: does not match any allowed form (must be at most 100 (got 500.5))");
}

static void test_date_time(void)
{
    const char *s = "{'properties': {'created': {'type': 'string', 'format': 'date-time'}}}";
    static const char *const good[] = {
        "2026-11-21T05:37:25Z",        "2026-11-21T05:37:25.123Z", "2026-11-21T05:37:25+05:30",
        "2026-11-21t05:37:25.5-08:00", "2024-02-29T00:00:00z",     "1998-12-31T23:59:60Z",
        "1998-12-31T15:59:60.1-08:00",
    };
    static const char *const bad[] = {
        "2026-11-21",
        "2026-11-21 05:37:25Z",
        "2026-11-21T05:37:25",
        "2026-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "2026-11-21T24:00:00Z",
        "2026-11-21T05:60:00Z",
        "2026-11-21T05:37:25.Z",
        "2026-11-21T05:37:25+0530",
        "2026-11-21T05:37:25+24:00",
        "2026-11-21T12:00:60Z",
        "2026-11-21T05:37:25Zjunk",
        "yesterday",
        "2026-1-21T05:37:25Z",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(good); i++) {
        mn_buf v = MN_BUF_INIT;
        mn_buf_printf(&v, "{'created': '%s'}", good[i]);
        if (validate(s, v.ptr) != 0) {
            fprintf(stderr, "rejected good date-time %s: %s\n", good[i], mn_error_last());
            CHECK(0);
        }
        mn_buf_release(&v);
    }
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        mn_buf v = MN_BUF_INIT;
        mn_buf_printf(&v, "{'created': '%s'}", bad[i]);
        if (validate(s, v.ptr) != MN_EINVAL) {
            fprintf(stderr, "accepted bad date-time %s\n", bad[i]);
            CHECK(0);
        }
        mn_buf_release(&v);
    }
    FAIL(s, "{'created': 'yesterday'}",
         "field 'created': must be a date-time like 2026-11-21T05:37:25Z (got 'yesterday')");
    /* Other formats are annotations; formats only apply to strings. */
    PASS("{'format': 'email'}", "'not an email'");
    PASS("{'format': 'date-time'}", "5");
}

static void test_user_text_is_cut_and_escaped(void)
{
    mn_buf v = MN_BUF_INIT;
    mn_buf_puts(&v, "{'kind': 'line1\\nline2\\t\\u0001\\u2028");
    for (int i = 0; i < 100; i++)
        mn_buf_putc(&v, 'x');
    mn_buf_puts(&v, "', 'title': 't'}");
    FAIL(save_schema, v.ptr,
         "field 'kind': must be one of fact, decision, gotcha (got 'line1\\nline2\\t\\u0001\\u2028"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...')");
    CHECK(strchr(mn_error_last(), '\n') == NULL);
    mn_buf_release(&v);

    /* Field names from the input are escaped and cut the same way. */
    mn_buf_clear(&v);
    mn_buf_puts(&v, "{'a\\nb");
    for (int i = 0; i < 70; i++)
        mn_buf_putc(&v, 'k');
    mn_buf_puts(&v, "': 1}");
    FAIL("{'additionalProperties': false}", v.ptr,
         "unknown field 'a\\nbkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' (no "
         "fields are accepted here)");
    mn_buf_release(&v);

    /* Multi-byte characters are never split. */
    mn_buf_puts(&v, "{'enum': ['a']}");
    mn_buf w = MN_BUF_INIT;
    mn_buf_putc(&w, '\'');
    for (int i = 0; i < 70; i++)
        mn_buf_puts(&w, "\u00e9");
    mn_buf_putc(&w, '\'');
    CHECK(validate(v.ptr, w.ptr) == MN_EINVAL);
    mn_buf_release(&w);
    mn_buf_puts(&w, "input: must be a (got '");
    for (int i = 0; i < 60; i++)
        mn_buf_puts(&w, "\u00e9");
    mn_buf_puts(&w, "...')");
    CHECK_STR(mn_error_last(), w.ptr);
    mn_buf_release(&v);
    mn_buf_release(&w);
}

static void test_depth_cap(void)
{
    mn_buf v = MN_BUF_INIT;
    for (int i = 0; i < MN_SCHEMA_MAX_DEPTH; i++)
        mn_buf_putc(&v, '[');
    for (int i = 0; i < MN_SCHEMA_MAX_DEPTH; i++)
        mn_buf_putc(&v, ']');
    PASS("{}", v.ptr);
    mn_buf_clear(&v);

    mn_buf_puts(&v, "{'a': ");
    for (int i = 0; i < MN_SCHEMA_MAX_DEPTH; i++)
        mn_buf_putc(&v, '[');
    for (int i = 0; i < MN_SCHEMA_MAX_DEPTH; i++)
        mn_buf_putc(&v, ']');
    mn_buf_putc(&v, '}');
    FAIL("{}", v.ptr,
         "field 'a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
         "[0][0][0][0][0]': nested too deeply (at most 32 levels)");
    mn_buf_release(&v);
}

static void test_boolean_schemas_and_annotations(void)
{
    PASS("true", "{'a': 1}");
    FAIL("false", "1", "input: is not allowed");
    FAIL("{'properties': {'old': false}}", "{'old': 1}", "field 'old': is not allowed");
    PASS("{'type': 'string', 'description': 'd', 'title': 't', 'default': 'x', 'examples': ['y'],"
         " '$comment': 'c', 'deprecated': true, 'readOnly': false, 'writeOnly': false,"
         " 'x-cli-short': 'k', 'x-anything': {'nested': 1}}",
         "'z'");
}

static void test_error_code(void)
{
    mn_error_clear();
    CHECK(validate("{'type': 'string'}", "1") == MN_EINVAL);
    CHECK(mn_error_last_code() == MN_EINVAL);
    CHECK_OK(validate("{'type': 'string'}", "'1'"));
}

static void test_check_accepts_supported_schemas(void)
{
    CHECK_PASS(save_schema);
    CHECK_PASS("true");
    CHECK_PASS("{'$schema': 'https://json-schema.org/draft/2020-12/schema', 'type': 'object',"
               " 'properties': {'tags': {'type': 'array', 'items': {'type': 'string'},"
               " 'minItems': 0, 'maxItems': 10, 'uniqueItems': true},"
               " 'when': {'anyOf': [{'type': 'string', 'format': 'date-time'}, {'type': 'null'}]},"
               " 'limit': {'type': 'integer', 'exclusiveMinimum': 0, 'exclusiveMaximum': 1e3},"
               " 'mode': {'oneOf': [{'const': 'a'}, {'const': 'b'}], 'default': 'a'},"
               " 'extra': {'additionalProperties': {'type': 'number'}}},"
               " 'additionalProperties': false, 'required': ['tags'], 'x-cli-group': 'x'}");
}

static void test_check_rejects_unknown_keywords(void)
{
    CHECK_FAIL("{'properties': {'title': {'type': 'string', 'patern': 'x'}}}",
               "schema '#/properties/title': unknown keyword 'patern'");
    CHECK_FAIL("{'type': 'string', 'pattern': '^a'}",
               "schema '#': keyword 'pattern' is not supported by mnemo's schema validator");
    CHECK_FAIL("{'items': {'$ref': '#/x'}}",
               "schema '#/items': keyword '$ref' is not supported by mnemo's schema validator");
    CHECK_FAIL("{'anyOf': [{}, {'maxlength': 3}]}",
               "schema '#/anyOf/1': unknown keyword 'maxlength'");
    CHECK_FAIL("{'properties': {'a/b': {'typ': 'string'}}}",
               "schema '#/properties/a~1b': unknown keyword 'typ'");
}

static void test_check_rejects_wrong_types(void)
{
    CHECK_FAIL("{'type': 'strng'}", "schema '#/type': unknown type 'strng' (expected string, "
                                    "integer, number, boolean, object, array or null)");
    CHECK_FAIL("{'type': []}",
               "schema '#/type': must be a type name or a non-empty array of type names");
    CHECK_FAIL("{'type': ['string', 'string']}", "schema '#/type': lists type 'string' twice");
    CHECK_FAIL("{'properties': {'t': {'maxLength': '200'}}}",
               "schema '#/properties/t/maxLength': must be a non-negative integer");
    CHECK_FAIL("{'minItems': -1}", "schema '#/minItems': must be a non-negative integer");
    CHECK_FAIL("{'minLength': 1.0}", "schema '#/minLength': must be a non-negative integer");
    CHECK_FAIL("{'minimum': '1'}", "schema '#/minimum': must be a number");
    CHECK_FAIL("{'required': 'title'}", "schema '#/required': must be an array of field names");
    CHECK_FAIL("{'required': ['a', 1]}", "schema '#/required': item 1 must be a string");
    CHECK_FAIL("{'required': ['a', 'a']}", "schema '#/required': lists 'a' twice");
    CHECK_FAIL("{'enum': []}", "schema '#/enum': must be a non-empty array");
    CHECK_FAIL("{'anyOf': {}}", "schema '#/anyOf': must be a non-empty array of schemas");
    CHECK_FAIL("{'oneOf': [{}, 3]}", "schema '#/oneOf/1': a schema must be an object or a boolean");
    CHECK_FAIL("{'items': [{}]}", "schema '#/items': a schema must be an object or a boolean");
    CHECK_FAIL("{'additionalProperties': 'no'}",
               "schema '#/additionalProperties': a schema must be an object or a boolean");
    CHECK_FAIL("{'properties': []}", "schema '#/properties': must be an object of schemas");
    CHECK_FAIL("{'uniqueItems': 1}", "schema '#/uniqueItems': must be true or false");
    CHECK_FAIL("{'description': 5}", "schema '#/description': must be a string");
    CHECK_FAIL("{'format': 'datetime'}", "schema '#/format': unknown format 'datetime'");
    CHECK_FAIL("{'examples': 'x'}", "schema '#/examples': must be an array");
    CHECK_FAIL("3", "schema '#': a schema must be an object or a boolean");
}

static void test_check_rejects_contradictions(void)
{
    CHECK_FAIL("{'minLength': 5, 'maxLength': 2}",
               "schema '#': 'minLength' is greater than 'maxLength'");
    CHECK_FAIL("{'minimum': 1.5, 'maximum': 1}", "schema '#': 'minimum' is greater than 'maximum'");
    CHECK_FAIL(
        "{'additionalProperties': false, 'properties': {'title': {}}, 'required': ['titel']}",
        "schema '#': required field 'titel' is not in 'properties'");
    CHECK_PASS("{'properties': {'title': {}}, 'required': ['other']}");
}

static void test_check_depth(void)
{
    mn_buf s = MN_BUF_INIT;
    for (int i = 0; i < 100; i++)
        mn_buf_puts(&s, "{'items': ");
    mn_buf_puts(&s, "{}");
    for (int i = 0; i < 100; i++)
        mn_buf_putc(&s, '}');
    CHECK(check(s.ptr) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "nested too deeply") != NULL);
    mn_buf_release(&s);
}

MN_TEST_MAIN(MN_TEST(test_type_each), MN_TEST(test_type_integer_vs_real), MN_TEST(test_type_array),
             MN_TEST(test_nested_path), MN_TEST(test_properties_and_unknown_fields),
             MN_TEST(test_unknown_field_list_is_cut), MN_TEST(test_required),
             MN_TEST(test_enum_and_const), MN_TEST(test_string_length), MN_TEST(test_numbers),
             MN_TEST(test_arrays), MN_TEST(test_any_of_one_of), MN_TEST(test_date_time),
             MN_TEST(test_user_text_is_cut_and_escaped), MN_TEST(test_depth_cap),
             MN_TEST(test_boolean_schemas_and_annotations), MN_TEST(test_error_code),
             MN_TEST(test_check_accepts_supported_schemas),
             MN_TEST(test_check_rejects_unknown_keywords), MN_TEST(test_check_rejects_wrong_types),
             MN_TEST(test_check_rejects_contradictions), MN_TEST(test_check_depth))
