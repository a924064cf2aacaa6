/*
 * tools.c - MCP tools from the operation table: definitions and calls.
 *
 * Which ops are tools comes from config mcp.tools (mn_api_tools_select):
 * the ops flagged MN_OP_MCP_DEFAULT unless configured otherwise, so an op
 * added to the table later is a tool without a line here. A definition:
 *
 *   name         the op's name
 *   title        from the name ("search_code" -> "Search code")
 *   description  the op's summary, a blank line, its description: the
 *                description is what teaches an agent when to call it
 *   inputSchema  the op's input schema without the CLI's x-... keywords
 *   outputSchema the op's output schema, when its root is an object
 *                (MCP requires that; structuredContent must conform, and
 *                the SDK clients check it with ajv)
 *   annotations  readOnlyHint, destructiveHint, idempotentHint from the
 *                op's flags; openWorldHint false (only the local store)
 *
 * A call validates the arguments against the input schema inside
 * mn_api_call, and the output against the output schema here; invalid arguments and failures come
 * back as results with isError, whose text names the field and what to do, so the model can correct
 * itself (spec 2025-11-25, tools: "Tool Execution Errors").
 */
#include "common.h"

#include "mcp/tools.h"
#include "util/schema.h"
#include "util/util.h"

/* Revisions in which a field of Tool or CallToolResult exists. */
#define REV_ANNOTATIONS "2025-03-26"
#define REV_STRUCTURED  "2025-06-18"

static bool since(const char *version, const char *rev)
{
    return strcmp(version, rev) >= 0; /* YYYY-MM-DD compares as text */
}

/* A copy of schema without x-... keywords, recursing where schemas are. */
static json_t *strip(const json_t *schema)
{
    const char *key;
    json_t *v, *out;
    if (json_is_array(schema)) {
        size_t i;
        out = json_array();
        json_array_foreach(schema, i, v) json_array_append_new(out, strip(v));
        return out;
    }
    if (!json_is_object(schema))
        return json_deep_copy(schema);
    out = json_object();
    json_object_foreach((json_t *)schema, key, v)
    {
        if (!strncmp(key, "x-", 2))
            continue;
        if ((!strcmp(key, "properties") || !strcmp(key, "$defs") ||
             !strcmp(key, "patternProperties")) &&
            json_is_object(v)) {
            /* the keys here are names, which may start with x-; their values are schemas */
            json_t *names = json_object();
            const char *name;
            json_t *sub;
            json_object_foreach(v, name, sub) json_object_set_new(names, name, strip(sub));
            json_object_set_new(out, key, names);
        } else if (!strcmp(key, "enum") || !strcmp(key, "const") || !strcmp(key, "default") ||
                   !strcmp(key, "examples")) {
            json_object_set(out, key, v); /* values, not schemas */
        } else {
            json_object_set_new(out, key, strip(v));
        }
    }
    return out;
}

json_t *mn_mcp_schema_public(const json_t *schema)
{
    return strip(schema);
}

static json_t *title_of(const char *name)
{
    mn_buf b = MN_BUF_INIT;
    for (const char *p = name; *p; p++)
        mn_buf_putc(&b, p == name && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A')
                        : *p == '_'                         ? ' '
                                                            : *p);
    json_t *t = json_string(b.ptr);
    mn_buf_release(&b);
    return t;
}

/*
 * What an agent's save must carry, said in the schema it reads: a gotcha,
 * fact, pattern or few-shot (the default kind is fact) needs
 * context.situation, context.solution and context.trigger_keywords; the
 * save pipeline enforces it for every agent (memory.c: check_agent_context)
 * and answers with an example when it is missing. A person's save through
 * the CLI is not held to it, so the op's own schema cannot say it.
 */
static void agent_rules(const mn_op *op, json_t *schema)
{
    if (strcmp(op->name, "save") != 0)
        return;
    json_object_set_new(schema, "anyOf",
                        json_pack("[{s:[s],s:{s:{s:[s,s,s,s]}}},{s:[s],s:{s:{s:[s,s,s]}}}]",
                                  "required", "kind", "properties", "kind", "enum", "decision",
                                  "rule", "episode", "doc_link", "required", "context",
                                  "properties", "context", "required", "situation", "solution",
                                  "trigger_keywords"));
}

static json_t *definition(const mn_op *op, bool *structured)
{
    json_t *def = json_object(), *out_schema;
    const json_t *os = mn_api_output_schema(op);
    unsigned f = op->flags;
    mn_buf desc = MN_BUF_INIT;

    mn_buf_printf(&desc, "%s%s%s", op->summary, op->description ? "\n\n" : "",
                  op->description ? op->description : "");
    json_object_set_new(def, "name", json_string(op->name));
    json_object_set_new(def, "title", title_of(op->name));
    json_object_set_new(def, "description", json_string(desc.ptr));
    json_t *in_schema = strip(mn_api_input_schema(op));
    agent_rules(op, in_schema);
    json_object_set_new(def, "inputSchema", in_schema);
    *structured = false;
    if (os && json_is_string(json_object_get(os, "type")) &&
        !strcmp(json_string_value(json_object_get(os, "type")), "object")) {
        out_schema = strip(os);
        json_object_set_new(def, "outputSchema", out_schema);
        *structured = true;
    }
    json_object_set_new(def, "annotations",
                        json_pack("{s:b,s:b,s:b,s:b}", "readOnlyHint", (f & MN_OP_READONLY) != 0,
                                  "destructiveHint", (f & MN_OP_DESTRUCTIVE) != 0, "idempotentHint",
                                  (f & MN_OP_IDEMPOTENT) != 0, "openWorldHint", 0));
    mn_buf_release(&desc);
    return def;
}

int mn_mcp_tools_build(mn_mcp_tool **out, size_t *count, mn_ctx *ctx)
{
    size_t n, k = 0;
    const mn_op *ops = mn_api_ops(&n);
    bool *sel = mn_calloc(n, sizeof(bool));
    json_t *args = json_pack("{s:s,s:s}", "action", "get", "key", "mcp.tools"), *cfg = NULL;
    mn_mcp_tool *tools = NULL;
    int rc;

    *out = NULL;
    *count = 0;
    if ((rc = mn_api_call(ctx, "config", args, &cfg)) != 0)
        goto out;
    if ((rc = mn_api_tools_select(sel, json_string_value(json_object_get(cfg, "value")))) != 0)
        goto out;
    tools = mn_calloc(n ? n : 1, sizeof(*tools));
    for (size_t i = 0; i < n; i++) {
        if (!sel[i])
            continue;
        tools[k].op = &ops[i];
        tools[k].def = definition(&ops[i], &tools[k].structured);
        k++;
    }
    *out = tools;
    *count = k;
out:
    json_decref(args);
    json_decref(cfg);
    free(sel);
    return rc;
}

void mn_mcp_tools_free(mn_mcp_tool *tools, size_t count)
{
    for (size_t i = 0; i < count; i++)
        json_decref(tools[i].def);
    free(tools);
}

json_t *mn_mcp_tools_list(const mn_mcp_tool *tools, size_t count, const char *version,
                          const mn_ctx *ctx)
{
    json_t *list = json_array();
    for (size_t i = 0; i < count; i++) {
        /* a tool the caller's role may not run is not offered (src/api/access.c) */
        if (ctx && !mn_api_allowed(ctx, tools[i].op))
            continue;
        json_t *def = json_copy(tools[i].def); /* shallow: members are shared, not changed */
        if (!since(version, REV_STRUCTURED)) {
            json_object_del(def, "title");
            json_object_del(def, "outputSchema");
        }
        if (!since(version, REV_ANNOTATIONS))
            json_object_del(def, "annotations");
        json_array_append_new(list, def);
    }
    return json_pack("{s:o}", "tools", list);
}

static json_t *text_content(const char *text)
{
    json_t *s = json_string(text);
    if (!s) /* not UTF-8: say so rather than send nothing */
        s = json_string("(the result was not valid UTF-8)");
    return json_pack("[{s:s,s:o}]", "type", "text", "text", s);
}

static json_t *error_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *error_result(const char *fmt, ...)
{
    mn_buf b = MN_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    mn_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    json_t *r = json_pack("{s:o,s:b}", "content", text_content(b.ptr), "isError", 1);
    mn_buf_release(&b);
    return r;
}

json_t *mn_mcp_tool_call(const mn_mcp_tool *tool, mn_ctx *ctx, const json_t *arguments,
                         const char *version, json_t **output)
{
    const char *name = tool->op->name;
    json_t *out = NULL, *result;
    int rc;

    *output = NULL;
    /*
     * What an MCP client saves, an agent saves: provenance.source agent
     * (unless the arguments say otherwise), so the agent rule applies
     * (facts, gotchas, few-shots and patterns need trigger_keywords) and the
     * confidence starts at the agent's 0.7 (docs/memory-format.md).
     */
    json_t *args = NULL;
    if (!strcmp(name, "save") && json_is_object(arguments)) {
        const json_t *prov = json_object_get(arguments, "provenance");
        if (!prov || (json_is_object(prov) && !json_object_get(prov, "source"))) {
            args = json_deep_copy(arguments);
            if (!prov)
                json_object_set_new(args, "provenance", json_object());
            json_object_set_new(json_object_get(args, "provenance"), "source",
                                json_string("agent"));
            arguments = args;
        }
    }
    rc = mn_api_call(ctx, name, arguments, &out);
    json_decref(args);
    if (rc == MN_EINVAL)
        return error_result("invalid arguments: %s. Fix the arguments to match the inputSchema "
                            "of '%s' and call it again.",
                            mn_error_last(), name);
    if (rc == MN_ENOTFOUND || rc == MN_EAMBIGUOUS)
        return error_result("%s. Check the id (search or recall find ids) and call again.",
                            mn_error_last());
    if (rc == MN_EBUSY)
        return error_result("%s. The store is busy with another writer; call again in a moment.",
                            mn_error_last());
    if (rc)
        return error_result("%s failed: %s", name, mn_error_last());
    if (!json_is_object(out)) {
        json_decref(out);
        return error_result("%s failed: it returned no result object (a bug in mnemo)", name);
    }

    /*
     * An output that breaks its own outputSchema would make an SDK client
     * throw the whole answer away; a result with isError still reaches the
     * model, with the data, and the bug is logged here.
     */
    if (since(version, REV_STRUCTURED) && tool->structured &&
        mn_schema_validate(mn_api_output_schema(tool->op), out) != 0) {
        char *text = json_dumps(out, JSON_COMPACT);
        mn_log(MN_LOG_ERROR, "mcp: bug: the output of '%s' does not match its schema: %s", name,
               mn_error_last());
        result = error_result("%s answered, but its output does not match its outputSchema (a "
                              "bug in mnemo: %s). The output: %s",
                              name, mn_error_last(), text ? text : "{}");
        free(text);
        *output = out;
        return result;
    }

    const char *md = json_string_value(json_object_get(out, "markdown"));
    if (md && !strcmp(name, "context")) {
        result = json_pack("{s:o}", "content", text_content(md));
    } else {
        char *text = json_dumps(out, JSON_COMPACT);
        result = json_pack("{s:o}", "content", text_content(text ? text : "{}"));
        free(text);
    }
    if (since(version, REV_STRUCTURED) && tool->structured)
        json_object_set(result, "structuredContent", out);
    *output = out;
    return result;
}
