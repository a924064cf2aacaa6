/*
 * test_edit.c - editing other programs' configuration files as text
 * (src/agent/jsonedit.c, tomledit.c): an edit changes only what it adds,
 * setting twice changes nothing, adding then removing gives back the
 * original bytes (block, one-line and empty objects; tabs; comments and
 * trailing commas of JSONC), invalid documents are refused with the place,
 * and TOML tables are put and removed with the rest of the file intact.
 */
#include "common.h"
#include "agent/agent.h"
#include "test.h"

static const char *const SERVER[] = {"mcpServers", "mnemo"};

static json_t *entry(void)
{
    return json_pack("{s:s,s:[s]}", "command", "/opt/mnemo", "args", "mcp");
}

/* set then remove: the text comes back byte for byte; set twice: no change. */
static void round_trip(const char *orig, const char *const *path, size_t depth)
{
    mn_buf t = MN_BUF_INIT;
    json_t *v = entry(), *got = NULL;
    bool ch = false;
    mn_buf_puts(&t, orig);
    CHECK_OK(mn_jsonedit_set(&t, path, depth, v, &ch));
    CHECK(ch);
    CHECK_OK(mn_jsonedit_check(t.ptr, t.len));
    CHECK_OK(mn_jsonedit_get(&got, t.ptr, t.len, path, depth));
    CHECK(got && json_equal(got, v));
    json_decref(got);
    char *once = mn_strdup(t.ptr);
    CHECK_OK(mn_jsonedit_set(&t, path, depth, v, &ch));
    CHECK(!ch);
    CHECK_STR(t.ptr, once);
    CHECK_OK(mn_jsonedit_remove(&t, path, depth, 0, &ch));
    CHECK(ch);
    CHECK_STR(t.ptr, orig);
    CHECK_OK(mn_jsonedit_remove(&t, path, depth, 0, &ch));
    CHECK(!ch);
    free(once);
    json_decref(v);
    mn_buf_release(&t);
}

static void test_round_trips(void)
{
    round_trip("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n", SERVER, 2);
    round_trip("{\n  \"other\": 1.50e3\n}\n", SERVER, 2); /* parents created and pruned */
    round_trip("{\n\t\"mcpServers\": {\n\t\t\"a\": 1\n\t}\n}", SERVER, 2); /* tabs */
    round_trip("{\"mcpServers\": {\"a\": 1}, \"z\": [1, 2]}", SERVER, 2);  /* one line */
    round_trip("{}", SERVER, 2);
    /* JSONC: comments stay, a trailing comma is kept */
    round_trip("{\n  // servers\n  \"servers\": {\n    \"a\": {}, /* x */\n  },\n}\n", SERVER, 2);
    round_trip("\xEF\xBB\xBF{\"k\": \"\\u00e9\\\"\"}", SERVER, 2);
}

static void test_layout(void)
{
    /* a container that remove leaves empty goes, unless kept (the user's, empty, before) */
    {
        mn_buf t = MN_BUF_INIT;
        json_t *v = entry();
        bool ch;
        mn_buf_puts(&t, "{\n  \"mcpServers\": {},\n  \"x\": 1\n}\n");
        CHECK_OK(mn_jsonedit_set(&t, SERVER, 2, v, &ch));
        CHECK_OK(mn_jsonedit_remove(&t, SERVER, 2, 1, &ch));
        CHECK(ch);
        CHECK_STR(t.ptr, "{\n  \"mcpServers\": {},\n  \"x\": 1\n}\n");
        CHECK_OK(mn_jsonedit_set(&t, SERVER, 2, v, &ch));
        CHECK_OK(mn_jsonedit_remove(&t, SERVER, 2, 0, &ch));
        CHECK_STR(t.ptr, "{\n  \"x\": 1\n}\n");
        mn_buf_clear(&t);
        mn_buf_puts(&t, "{\"mcpServers\":{}}");
        CHECK_OK(mn_jsonedit_set(&t, SERVER, 2, v, &ch));
        CHECK_OK(mn_jsonedit_remove(&t, SERVER, 2, 1, &ch));
        CHECK_STR(t.ptr, "{\"mcpServers\":{}}");
        /* a comment about the next member, or after the one before, stays */
        static const char *const cases[][2] = {
            {"{\n  \"mcpServers\": {\n    \"mnemo\": {\"command\": \"x\"},\n"
             "    // my other server\n    \"a\": 1\n  }\n}\n",
             "{\n  \"mcpServers\": {\n    // my other server\n    \"a\": 1\n  }\n}\n"},
            {"{\"mcpServers\": {\"mnemo\": 1, /* a */ \"a\": 1}}",
             "{\"mcpServers\": {/* a */ \"a\": 1}}"},
            {"{\n  \"mcpServers\": {\n    \"a\": 1, // about a\n    \"mnemo\": {}\n  }\n}\n",
             "{\n  \"mcpServers\": {\n    \"a\": 1 // about a\n  }\n}\n"},
            {"{\n  \"mcpServers\": {\n    \"a\": 1, // about a\n    \"mnemo\": {},\n  }\n}\n",
             "{\n  \"mcpServers\": {\n    \"a\": 1, // about a\n  }\n}\n"},
        };
        for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
            mn_buf_clear(&t);
            mn_buf_puts(&t, cases[i][0]);
            CHECK_OK(mn_jsonedit_remove(&t, SERVER, 2, 1, &ch));
            CHECK(ch);
            CHECK_STR(t.ptr, cases[i][1]);
            CHECK_OK(mn_jsonedit_check(t.ptr, t.len));
        }
        json_decref(v);
        mn_buf_release(&t);
    }

    mn_buf t = MN_BUF_INIT;
    json_t *v = entry();
    bool ch;
    mn_buf_puts(&t, "{\n    \"mcpServers\": {\n        \"a\": 1\n    }\n}\n");
    CHECK_OK(mn_jsonedit_set(&t, SERVER, 2, v, &ch));
    CHECK_STR(t.ptr, "{\n    \"mcpServers\": {\n        \"a\": 1,\n        \"mnemo\": {\n"
                     "            \"command\": \"/opt/mnemo\",\n            \"args\": [\"mcp\"]\n"
                     "        }\n    }\n}\n");
    /* an empty file is a new document */
    mn_buf_clear(&t);
    CHECK_OK(mn_jsonedit_set(&t, SERVER, 2, v, &ch));
    CHECK_STR(t.ptr,
              "{\n  \"mcpServers\": {\n    \"mnemo\": {\n      \"command\": \"/opt/mnemo\",\n"
              "      \"args\": [\"mcp\"]\n    }\n  }\n}\n");
    /* replacing a value keeps its neighbours */
    json_t *w = json_string("new");
    const char *p[] = {"mcpServers", "mnemo", "command"};
    CHECK_OK(mn_jsonedit_set(&t, p, 3, w, &ch));
    CHECK(ch && strstr(t.ptr, "\"command\": \"new\",\n      \"args\""));
    json_decref(w);
    json_decref(v);
    mn_buf_release(&t);
}

static void test_arrays(void)
{
    mn_buf t = MN_BUF_INIT;
    const char *orig = "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": []}]\n  }\n}\n";
    const char *path[] = {"hooks", "Stop", "#1"};
    json_t *g = json_pack("{s:s}", "matcher", "Task");
    bool ch;
    mn_buf_puts(&t, orig);
    CHECK_OK(mn_jsonedit_append(&t, path, 2, g));
    json_t *got = NULL;
    CHECK_OK(mn_jsonedit_get(&got, t.ptr, t.len, path, 3));
    CHECK(got && json_equal(got, g));
    json_decref(got);
    CHECK_OK(mn_jsonedit_remove(&t, path, 3, 0, &ch));
    CHECK(ch);
    CHECK_STR(t.ptr, orig);
    /* removing the last element prunes the array and the object above it */
    path[2] = "#0";
    CHECK_OK(mn_jsonedit_remove(&t, path, 3, 0, &ch));
    CHECK_STR(t.ptr, "{}\n");
    json_decref(g);
    mn_buf_release(&t);
}

static void test_invalid(void)
{
    static const char *const bad[] = {
        "{",           "{\"a\": }",       "[1]",  "{\"a\": 1} x", "{'a': 1}",
        "{\"a\": 01}", "{\"a\": \"\n\"}", "{/* x"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bad); i++) {
        mn_buf t = MN_BUF_INIT;
        bool ch;
        json_t *v = json_true();
        mn_buf_puts(&t, bad[i]);
        CHECK(mn_jsonedit_check(bad[i], strlen(bad[i])) == MN_EINVAL);
        CHECK(mn_jsonedit_set(&t, SERVER, 2, v, &ch) == MN_EINVAL);
        CHECK_STR(t.ptr, bad[i]); /* untouched */
        json_decref(v);
        mn_buf_release(&t);
    }
    CHECK(mn_jsonedit_check("{\n  \"a\": tru\n}", 14) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "line 2, column 8") != NULL);
    /* a path through something that is not an object */
    mn_buf t = MN_BUF_INIT;
    bool ch;
    json_t *v = json_true();
    mn_buf_puts(&t, "{\"mcpServers\": []}");
    CHECK(mn_jsonedit_set(&t, SERVER, 2, v, &ch) == MN_EINVAL);
    json_decref(v);
    mn_buf_release(&t);
}

static const char TOML[] = "# my codex settings\n"
                           "model = \"o3\"  # fast\n"
                           "\n"
                           "[mcp_servers.other]\n"
                           "command = \"npx\"\n"
                           "args = [\"-y\", \"x\"]\n"
                           "\n"
                           "# trailing notes\n"
                           "[profiles.deep]\n"
                           "text = \"\"\"\n"
                           "[mcp_servers.mnemo]\n"
                           "\"\"\"\n";

static void test_toml(void)
{
    mn_buf t = MN_BUF_INIT;
    bool ch;
    const char *body = "command = \"/opt/mnemo\"\nargs = [\"mcp\"]\n";
    mn_buf_puts(&t, TOML);
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(ch);
    CHECK(!strncmp(t.ptr, TOML, sizeof(TOML) - 1)); /* appended: the rest untouched */
    CHECK_STR(t.ptr + sizeof(TOML) - 1, "\n[mcp_servers.mnemo]\ncommand = \"/opt/mnemo\"\n"
                                        "args = [\"mcp\"]\n");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(!ch);
    /* a changed command replaces our lines only */
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", "command = \"m\"\n", &ch));
    CHECK(ch && strstr(t.ptr, "[mcp_servers.mnemo]\ncommand = \"m\"\n") && !strstr(t.ptr, "/opt"));
    CHECK_OK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(ch);
    CHECK_STR(t.ptr, TOML);
    CHECK_OK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(!ch);

    /* our table in the middle, with a sub-table, quoted name */
    mn_buf_clear(&t);
    mn_buf_puts(&t, "[mcp_servers . \"mnemo\"]\ncommand = \"old\"\n\n[mcp_servers.mnemo.env]\n"
                    "A = \"1\"\n# about b\n[b]\nx = 1\n");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "[mcp_servers . \"mnemo\"]\nargs = [\"mcp\"]\ncommand = \"/opt/mnemo\"\n\n"
                     "[mcp_servers.mnemo.env]\nA = \"1\"\n# about b\n[b]\nx = 1\n");
    /* the sub-table is the user's: remove refuses rather than lose it */
    char *before = mn_strdup(t.ptr);
    CHECK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch) == MN_EINVAL);
    CHECK_STR(t.ptr, before);
    free(before);

    /* the user's keys and comments in our table stay byte for byte */
    mn_buf_clear(&t);
    static const char user[] = "x = 1\n\n[mcp_servers.mnemo]\n# give indexing time\n"
                               "command = \"old\"\nstartup_timeout_sec = 60\n"
                               "env = { MNEMO_LOG = \"info\" }\n\n[z]\n";
    mn_buf_puts(&t, user);
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(ch);
    CHECK_STR(t.ptr, "x = 1\n\n[mcp_servers.mnemo]\nargs = [\"mcp\"]\n# give indexing time\n"
                     "command = \"/opt/mnemo\"\nstartup_timeout_sec = 60\n"
                     "env = { MNEMO_LOG = \"info\" }\n\n[z]\n");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(!ch);
    before = mn_strdup(t.ptr);
    CHECK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch) == MN_EINVAL);
    CHECK(!ch);
    CHECK_STR(t.ptr, before);
    free(before);
    /* a quoted key is the same key: replaced, not doubled */
    mn_buf_clear(&t);
    mn_buf_puts(&t, "[mcp_servers.mnemo]\n\"command\" = \"old\"\n'args' = [\"mcp\"]\n");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "[mcp_servers.mnemo]\ncommand = \"/opt/mnemo\"\nargs = [\"mcp\"]\n");
    CHECK_OK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "");
    /* a table without a final newline */
    mn_buf_clear(&t);
    mn_buf_puts(&t, "[mcp_servers.mnemo]\ncommand = \"old\"");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "[mcp_servers.mnemo]\nargs = [\"mcp\"]\ncommand = \"/opt/mnemo\"");
    mn_buf_clear(&t);
    mn_buf_puts(&t, "[mcp_servers.mnemo]");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "[mcp_servers.mnemo]\ncommand = \"/opt/mnemo\"\nargs = [\"mcp\"]\n");

    /* a "[" that starts a line inside a multi-line array is not a header */
    static const char arr[] = "[a]\nm = [\n  [\"x\"], # [b]\n  [\"mcp_servers.mnemo\"],\n]\n"
                              "s = '''\n]'''\n";
    mn_buf_clear(&t);
    mn_buf_puts(&t, arr);
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK(!strncmp(t.ptr, arr, sizeof(arr) - 1));
    CHECK_STR(t.ptr + sizeof(arr) - 1, "\n[mcp_servers.mnemo]\ncommand = \"/opt/mnemo\"\n"
                                       "args = [\"mcp\"]\n");
    CHECK_OK(mn_tomledit_remove_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, arr);
    /* our key's value on several lines is replaced whole */
    mn_buf_clear(&t);
    mn_buf_puts(&t, "[mcp_servers.mnemo]\nargs = [\n  [\"mcp\"],\n]\ncommand = \"/opt/mnemo\"\n");
    CHECK_OK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch));
    CHECK_STR(t.ptr, "[mcp_servers.mnemo]\nargs = [\"mcp\"]\ncommand = \"/opt/mnemo\"\n");

    /* defined in a way a line edit cannot change: refused, untouched */
    static const char *const refused[] = {
        "mcp_servers = { mnemo = { command = \"x\" } }\n",
        "mcp_servers.mnemo.command = \"x\"\n",
        "[mcp_servers]\nmnemo = { command = \"x\" }\n",
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(refused); i++) {
        mn_buf_clear(&t);
        mn_buf_puts(&t, refused[i]);
        CHECK(mn_tomledit_set_table(&t, "mcp_servers.mnemo", body, &ch) == MN_EINVAL);
        CHECK_STR(t.ptr, refused[i]);
    }
    mn_buf_clear(&t);
    mn_toml_quote(&t, "a\"b\\c\n");
    CHECK_STR(t.ptr, "\"a\\\"b\\\\c\\u000a\"");
    mn_buf_release(&t);
}

/* A random JSON value (depth-bounded) from a simple LCG. */
static uint32_t seed = 12345;
static uint32_t rnd(uint32_t n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
}

static json_t *random_value(int depth)
{
    static const char *const words[] = {"a", "mcp", "x y", "\u00e9t\u00e9", "q\"t", "/p"};
    switch (depth > 3 ? rnd(4) : rnd(6)) {
    case 0:
        return json_integer((json_int_t)rnd(100000) - 500);
    case 1:
        return json_string(words[rnd(MN_ARRAY_SIZE(words))]);
    case 2:
        return rnd(2) ? json_true() : json_null();
    case 3:
        return json_real(rnd(1000) / 8.0);
    case 4: {
        json_t *a = json_array();
        for (uint32_t i = rnd(4); i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (uint32_t i = rnd(5); i > 0; i--) {
            char k[16];
            snprintf(k, sizeof(k), "k%u", rnd(20));
            json_object_set_new(o, k, random_value(depth + 1));
        }
        return o;
    }
    }
}

/*
 * Random documents in random layouts (jansson's compact and indented
 * output): putting mnemo under an existing or a new key keeps every other
 * value, and removing it gives back the bytes.
 */
static void test_random_documents(void)
{
    json_t *v = entry();
    for (int iter = 0; iter < 300; iter++) {
        json_t *doc = json_object();
        for (uint32_t i = rnd(6); i > 0; i--) {
            char k[16];
            snprintf(k, sizeof(k), "k%u", rnd(20));
            json_object_set_new(doc, k, random_value(1));
        }
        /* an existing, non-empty object to put our entry in, half of the time */
        const char *parent = "servers";
        if (rnd(2))
            json_object_set_new(doc, "servers", json_pack("{s:i}", "other", 1));
        static const size_t flags[] = {JSON_COMPACT, JSON_INDENT(2), JSON_INDENT(4), 0};
        char *text = json_dumps(doc, flags[rnd(4)]);
        mn_buf t = MN_BUF_INIT;
        bool ch;
        const char *path[] = {parent, "mnemo"};
        mn_buf_puts(&t, text);
        CHECK_OK(mn_jsonedit_set(&t, path, 2, v, &ch));
        json_t *after = json_loads(t.ptr, JSON_REJECT_DUPLICATES, NULL);
        CHECK(after != NULL); /* strict JSON still */
        if (after) {
            CHECK(json_equal(json_object_get(json_object_get(after, parent), "mnemo"), v));
            json_object_del(json_object_get(after, parent), "mnemo");
            if (!json_object_size(json_object_get(after, parent)) && !json_object_get(doc, parent))
                json_object_del(after, parent);
            CHECK(json_equal(after, doc));
            json_decref(after);
        }
        CHECK_OK(mn_jsonedit_remove(&t, path, 2, 0, &ch));
        CHECK(ch);
        CHECK_STR(t.ptr, text);
        free(text);
        json_decref(doc);
        mn_buf_release(&t);
    }
    json_decref(v);
}

MN_TEST_MAIN(MN_TEST(test_round_trips), MN_TEST(test_random_documents), MN_TEST(test_layout),
             MN_TEST(test_arrays), MN_TEST(test_invalid), MN_TEST(test_toml))
