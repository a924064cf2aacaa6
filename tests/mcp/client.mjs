// client.mjs stdio|http - mnemo's MCP server as the official TypeScript SDK
// client sees it (tests/integration/mcp_stdio.sh, mcp_http.sh).
//
// On the fixture of tests/mcp/fixture.sh: initialize (protocol 2025-11-25,
// serverInfo, capabilities), tools/list (exactly the default tools, every
// inputSchema and outputSchema compiled by ajv), every tool called with valid
// arguments (results checked against each other: a saved memory is found by
// search, recall, its resource and the bugfix prompt; forget hides it) and
// with invalid ones (isError with a message, nothing stored), an unknown
// tool, method, prompt and resource (JSON-RPC errors), resource templates,
// logging (an answer's notes as log messages), ping. Then without the SDK:
// the older protocol versions on a raw initialize, malformed messages,
// batches, oversize messages, config mcp.tools (stdio); sessions, DELETE,
// Origin, MCP-Protocol-Version, SSE replies (HTTP).
import { execFileSync } from "node:child_process";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  check, done, rejects, section, fixture, compileSchema, connectStdio, closeStdio, connectHttp, rawStdio,
} from "./lib.mjs";

const mode = process.argv[2];
if (mode !== "stdio" && mode !== "http") {
  console.error("usage: client.mjs stdio|http   (http: $MCP_URL)");
  process.exit(2);
}
const fx = fixture();
const LATEST = "2025-11-25";
const OLDER = ["2025-06-18", "2025-03-26", "2024-11-05"];
const DEFAULT_TOOLS = ["context", "feedback", "forget", "recall", "save", "search", "search_code"];
// context and recall may index the repository first (op flags), so only
// these are read-only; the writers must not claim to be.
const READ_ONLY = new Set(["search", "search_code"]);
const WRITERS = new Set(["save", "feedback", "forget"]);
const anyResult = ResultSchema;

const conn = mode === "stdio" ? await connectStdio() : await connectHttp(process.env.MCP_URL);
const { client, tap } = conn;

let saved, newId, served, sc;
const validators = {};
const byName = {};
const tools = [];

// call(name, args): a successful call whose structuredContent matches the
// tool's outputSchema and whose text is the compact JSON of it (Markdown for
// context).
async function call(name, args) {
  let r;
  try {
    r = await client.callTool({ name, arguments: args });
  } catch (e) {
    check(`${name} ${JSON.stringify(args)} answers`, false, `${e.code}: ${e.message}`);
    return null;
  }
  const sc = r.structuredContent;
  const ok = check(`${name} ${JSON.stringify(args).slice(0, 80)}: not an error`, r.isError !== true && sc && typeof sc === "object", r);
  if (!ok) return null;
  const v = validators[name];
  if (v) check(`${name}: structuredContent matches its outputSchema`, v.validate(sc), v.errors());
  const text = r.content?.[0];
  check(`${name}: one text content`, Array.isArray(r.content) && r.content.length >= 1 && text.type === "text" &&
    typeof text.text === "string", r.content);
  if (name === "context") {
    check("context: the text is the Markdown", text.text === sc.markdown, { text: text.text.slice(0, 200), md: sc.markdown?.slice(0, 200) });
  } else {
    let parsed;
    try { parsed = JSON.parse(text.text); } catch { parsed = undefined; }
    check(`${name}: the text is the JSON of structuredContent`,
      parsed !== undefined && JSON.stringify(parsed) === JSON.stringify(sc) && !text.text.includes("\n"), text.text.slice(0, 300));
  }
  return sc;
}

// fails(name, args, why): a tool result with isError and a message, no exception
async function fails(name, args, why) {
  let r;
  try {
    r = await client.callTool({ name, arguments: args });
  } catch (e) {
    return check(`${name} (${why}) is a tool error, not a JSON-RPC error`, false, `${e.code}: ${e.message}`);
  }
  return check(`${name} (${why}): isError with a message`, r.isError === true && r.content?.[0]?.type === "text" &&
    r.content[0].text.length >= 10, r);
}

const ids = (sc) => (sc?.items || []).map((i) => i.id);

// --- initialize ------------------------------------------------------------
await section("initialize", async () => {
  const init = tap.received.find((m) => m.result && m.result.protocolVersion);
  check("initialize answered", !!init, tap.received);
  const ir = init?.result || {};
  check("protocolVersion is 2025-11-25", ir.protocolVersion === LATEST, ir.protocolVersion);
  check("serverInfo names mnemo with a version",
    ir.serverInfo?.name === "mnemo" && typeof ir.serverInfo?.version === "string" && ir.serverInfo.version.length > 0,
    ir.serverInfo);
  const caps = ir.capabilities || {};
  check("capabilities: tools, resources, prompts, logging",
    caps.tools && caps.resources && caps.prompts && caps.logging && caps.tools.listChanged === false &&
      caps.resources.subscribe === false && caps.prompts.listChanged === false, caps);
  check("instructions tell the agent to call context first",
    typeof ir.instructions === "string" && /\bcontext\b/.test(ir.instructions), ir.instructions);
  if (mode === "http") check("HTTP session id assigned", typeof conn.transport.sessionId === "string" && conn.transport.sessionId.length > 0);

  check("ping answers {}", JSON.stringify(await client.ping()) === "{}");
});
// --- tools/list ------------------------------------------------------------
await section("tools/list", async () => {
  for (let cursor; ;) {
    const r = await client.listTools(cursor ? { cursor } : {});
    tools.push(...r.tools);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  Object.assign(byName, Object.fromEntries(tools.map((t) => [t.name, t])));
  check("the default tools, exactly", JSON.stringify(tools.map((t) => t.name).sort()) === JSON.stringify(DEFAULT_TOOLS),
    tools.map((t) => t.name));
  for (const t of tools) {
    check(`${t.name}: title and a description that teaches`, typeof t.title === "string" && t.title.length > 0 &&
      typeof t.description === "string" && t.description.length >= 80, { title: t.title, description: t.description });
    for (const which of ["inputSchema", "outputSchema"]) {
      const s = t[which];
      check(`${t.name}: ${which} is an object schema`, s && s.type === "object", s);
      const c = compileSchema(s);
      check(`${t.name}: ${which} compiles as JSON Schema (ajv)`, !c.error, c.error);
      if (which === "outputSchema" && c.validate) validators[t.name] = c;
    }
    const a = t.annotations || {};
    check(`${t.name}: annotations`, typeof a.readOnlyHint === "boolean" && (READ_ONLY.has(t.name) ? a.readOnlyHint : true) &&
    (WRITERS.has(t.name) ? !a.readOnlyHint : true) && typeof a.destructiveHint === "boolean" &&
      typeof a.idempotentHint === "boolean" && a.openWorldHint === false, a);
  }
  check("forget is marked destructive", byName.forget?.annotations?.destructiveHint === true, byName.forget?.annotations);
  check("save says when to save (bug, decision, gotcha)",
    /bug/i.test(byName.save?.description) && /decision/i.test(byName.save?.description) && /gotcha/i.test(byName.save?.description),
    byName.save?.description);
  check("context says it is the first call", /first|start/i.test(byName.context?.description), byName.context?.description);

});
// --- every tool, valid arguments ---------------------------------------------
await section("every tool, valid arguments", async () => {
  saved = await call("save", {
    kind: "gotcha",
    title: "Quux importer drops the trailing semicolon",
    body: "The quux importer strips the last semicolon of every flibbertigibbet record; keep a sentinel line.",
    scope: { tags: ["importer"] },
    context: { situation: "importing quux flibbertigibbet records", solution: "append a sentinel line",
      trigger_keywords: ["quux", "importer", "semicolon", "flibbertigibbet"] },
  });
  check("save creates a memory with an id", saved && typeof saved.id === "string" && saved.action === "created", saved);
  newId = saved?.id;

  sc = await call("search", { query: "flibbertigibbet semicolon", kinds: ["memory"] });
  check("search finds the memory just saved, first", ids(sc)[0] === newId, sc);
  served = sc?.served;
  sc = await call("search", { query: "banker's rounding half to even", kinds: ["memory"] });
  check("search finds a fixture memory", ids(sc).includes(fx.ids.rounding), sc);
  check("search never serves a forgotten memory", !ids(sc).includes(fx.ids.gone));

  sc = await call("context", { query: "why do reconciled statement amounts leave pennies unmatched?" });
  check("context Markdown mentions the saved decision", /half to even/i.test(sc?.markdown || ""), sc?.markdown);
  check("context reports its tokens under the budget", sc && sc.tokens > 0 && sc.tokens <= sc.max_tokens, sc && { tokens: sc.tokens, max: sc.max_tokens });
  sc = await call("context", { query: "", max_tokens: 500 });
  check("context without a query: the overview under 500 tokens", sc && sc.markdown.length > 0 && sc.tokens <= 500, sc);

  sc = await call("recall", { query: "flibbertigibbet importer semicolon" });
  check("recall brings the saved gotcha", JSON.stringify(sc || {}).includes(newId), sc);
  sc = await call("recall", { query: "ledger entries with the same amount" });
  check("recall brings the fixture's gotcha", JSON.stringify(sc || {}).includes(fx.ids.gotcha), sc);

  sc = await call("search_code", { query: "quantize_amount rounds cents" });
  check("search_code finds the function's chunk",
    (sc?.items || []).some((i) => i.path === "ledger/reconcile.py" && /quantize_amount/.test(i.title + i.snippet)), sc);
  check("search_code serves code only", (sc?.items || []).length > 0 && sc.items.every((i) => i.type !== "memory"), sc);

  sc = await call("feedback", { signal: "used", items: [newId], served });
  check("feedback records the item", sc && sc.recorded === 1, sc);

  // text outside ASCII and JSON escapes survive the round trip
  const uni = "Zählerstände — 日本語 🚀 \"quoted\" back\\slash\ttab";
  const u = await call("save", { kind: "fact", title: uni, body: `Ümlaut check: ${uni}`,
    context: { situation: "reading meters", solution: "keep the text as it is",
      trigger_keywords: ["Zählerstände", "日本語", "🚀"] } });
  sc = await call("search", { query: "Zählerstände", kinds: ["memory"] });
  const hit = (sc?.items || []).find((i) => i.id === u?.id);
  // a title is one line with single spaces (the save pipeline makes its white space regular)
  const want = uni.replace(/\s+/g, " ");
  check("non-ASCII text round-trips through save and search", hit && hit.title === want, { want, hit });
});
// --- resources ---------------------------------------------------------------
await section("resources", async () => {
  const res = await client.listResources();
  const overview = res.resources.find((r) => r.uri === "mnemo://overview");
  check("resources/list has the overview (Markdown)", overview && overview.mimeType === "text/markdown" && overview.name, res.resources.slice(0, 5));
  let rr = await client.readResource({ uri: "mnemo://overview" });
  check("the overview reads as Markdown text", rr.contents?.[0]?.uri === "mnemo://overview" &&
    typeof rr.contents[0].text === "string" && rr.contents[0].text.length > 20, rr);
  const memUri = `mnemo://memory/${newId}`;
  rr = await client.readResource({ uri: memUri });
  check("a memory reads by its URI", rr.contents?.[0]?.uri === memUri && /flibbertigibbet/.test(rr.contents[0].text || ""), rr);
  const listed = res.resources.filter((r) => r.uri.startsWith("mnemo://memory/"));
  check("resources/list lists memories", listed.some((r) => r.uri === `mnemo://memory/${fx.ids.rounding}`) &&
    !listed.some((r) => r.uri === `mnemo://memory/${fx.ids.gone}`), listed.map((r) => r.uri));
  await rejects("an unknown memory id is -32002", client.readResource({ uri: `mnemo://memory/${"0".repeat(26)}` }), -32002);
  await rejects("a malformed memory URI is -32602", client.readResource({ uri: "mnemo://memory/ZZZZZZZZZZ" }), -32602);
  await rejects("a URI of another scheme is -32602", client.readResource({ uri: "file:///etc/passwd" }), -32602);
  await rejects("a forgotten memory's resource is -32002", client.readResource({ uri: `mnemo://memory/${fx.ids.gone}` }), -32002);
  const tpl = await client.listResourceTemplates();
  check("resource template mnemo://memory/{id}", tpl.resourceTemplates.some((t) => t.uriTemplate === "mnemo://memory/{id}" && t.name),
    tpl.resourceTemplates);
});
// --- prompts -------------------------------------------------------------------
await section("prompts", async () => {
  const pl = await client.listPrompts();
  const pnames = pl.prompts.map((p) => p.name);
  check("prompts bugfix, refactor, migration, review",
    ["bugfix", "refactor", "migration", "review"].every((n) => pnames.includes(n)), pnames);
  for (const p of pl.prompts)
    check(`prompt ${p.name}: a required task argument`,
      (p.arguments || []).some((a) => a.name === "task" && a.required === true) && p.description, p);
  const pg = await client.getPrompt({
    name: "bugfix",
    arguments: { task: "Reconciliation leaves pennies unmatched on statements rounded half to even", files: "ledger/reconcile.py" },
  });
  const ptext = (pg.messages || []).map((m) => m.content?.text || "").join("\n");
  check("bugfix prompt: messages of text", pg.messages?.length > 0 && pg.messages.every((m) => m.content?.type === "text" &&
    ["user", "assistant"].includes(m.role)), pg);
  check("bugfix prompt carries the task", ptext.includes("pennies unmatched"), ptext.slice(0, 500));
  check("bugfix prompt lists its steps", /step|1\./i.test(ptext) && ptext.split("\n").length > 5, ptext.slice(0, 800));
  check("bugfix prompt brings the saved memory", /half to even/i.test(ptext) && /ROUND_HALF_EVEN|banker/i.test(ptext), ptext);
  await rejects("a prompt without its task is -32602", client.getPrompt({ name: "bugfix", arguments: {} }), -32602);
  await rejects("an unknown prompt is -32602", client.getPrompt({ name: "nope", arguments: { task: "x" } }), -32602);
});
// --- logging ---------------------------------------------------------------------
await section("logging", async () => {
  // the notes of an answer come as notifications/message once the client asks for info
  const logs = () => tap.received.filter((m) => m.method === "notifications/message");
  check("no info log before logging/setLevel", logs().every((m) => !["debug", "info", "notice"].includes(m.params?.level)), logs());
  check("logging/setLevel info", JSON.stringify(await client.setLoggingLevel("info")) === "{}");
  const before = logs().length;
  const r = await call("search", { query: "pennies half to even" });
  const got = logs().slice(before).map((m) => m.params);
  check("an answer's notes arrive as info log messages", r && r.notes?.length > 0 &&
    r.notes.every((n) => got.some((p) => p.level === "info" && p.data === n && typeof p.logger === "string")), { notes: r?.notes, got });
  check("logging/setLevel debug", JSON.stringify(await client.setLoggingLevel("debug")) === "{}");
  await rejects("logging/setLevel with a made-up level is -32602",
    client.request({ method: "logging/setLevel", params: { level: "chatty" } }, anyResult), -32602);
});
// --- cancellation ------------------------------------------------------------------
await section("cancellation", async () => {
  // the SDK sends notifications/cancelled for an aborted request and drops a
  // late reply; the server must take the cancel and keep serving
  const ac = new AbortController();
  const p = client.callTool({ name: "context", arguments: { query: "reconcile pennies" } }, undefined, { signal: ac.signal });
  ac.abort("the test cancels it");
  let aborted = false;
  try { await p; } catch { aborted = true; }
  check("an aborted call rejects on the client", aborted);
  check("the session serves after a cancel", JSON.stringify(await client.ping()) === "{}");
  const sc = await call("search", { query: "banker's rounding half to even", kinds: ["memory"] });
  check("a call after a cancel answers", ids(sc).includes(fx.ids.rounding), sc);
});
// --- invalid arguments: tool errors, nothing stored ------------------------------
await section("invalid arguments: tool errors, nothing stored", async () => {
  await fails("context", { max_tokens: "lots" }, "a string budget");
  await fails("context", { max_tokens: 1 }, "a budget under the minimum");
  await fails("recall", { colour: "blue" }, "an unknown property");
  await fails("save", { kind: "nonsense", body: "zzyzx should never be stored" }, "an unknown kind");
  await fails("save", {}, "no body");
  await fails("save", { kind: "fact", body: "zzyzx facts from an agent need trigger keywords" }, "an agent's fact without trigger_keywords");
  await fails("save", { kind: "gotcha", body: "zzyzx gotchas from an agent need their situation and solution",
    context: { trigger_keywords: ["zzyzx"] } }, "an agent's gotcha without situation and solution");
  await fails("search", {}, "no query");
  await fails("search", { query: "x", k: -3 }, "a negative k");
  await fails("search_code", {}, "no query");
  await fails("feedback", { signal: "maybe", items: [newId] }, "an unknown signal");
  await fails("feedback", { signal: "used", items: [] }, "no items");
  await fails("forget", {}, "no id");
  await fails("forget", { id: "ZZZZZZZZZZ" }, "an unknown id");
  sc = await call("search", { query: "zzyzx", kinds: ["memory"] });
  check("a rejected save stored nothing", sc && sc.items.length === 0, sc);

  // unknown tool and method: JSON-RPC errors
  await rejects("an unknown tool is -32602", client.callTool({ name: "no_such_tool", arguments: {} }), -32602);
  await rejects("a tool hidden by default (update) is -32602", client.callTool({ name: "update", arguments: {} }), -32602);
  await rejects("an unknown method is -32601", client.request({ method: "tools/frobnicate", params: {} }, anyResult), -32601);
  await rejects("tools/call without a name is -32602", client.request({ method: "tools/call", params: {} }, anyResult), -32602);

  // forget last: the memory is gone from search and from its resource
  sc = await call("forget", { id: newId });
  check("forget forgets", sc && sc.id === newId && sc.action === "forgotten", sc);
  sc = await call("search", { query: "flibbertigibbet semicolon", kinds: ["memory"] });
  check("a forgotten memory is not found", sc && !ids(sc).includes(newId), sc);
});
// --- protocol versions and raw errors --------------------------------------------
await section("protocol versions and raw errors", async () => {
  const initMsg = (v, id = 1) => ({
    jsonrpc: "2.0", id, method: "initialize",
    params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  if (mode === "stdio") {
    await closeStdio(conn);
    for (const v of [...OLDER, LATEST, "1999-01-01"]) {
      const r = await rawStdio([initMsg(v), { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" }]);
      const want = v === "1999-01-01" ? LATEST : v;
      check(`raw initialize ${v} -> ${want}`, r.replies[0]?.id === 1 && r.replies[0]?.result?.protocolVersion === want, r.replies[0]);
      check(`tools/list after initialize ${v}`, r.replies[1]?.id === 2 && r.replies[1]?.result?.tools?.length === DEFAULT_TOOLS.length,
        r.replies[1]?.error || r.replies[1]?.result?.tools?.length);
      check(`${v}: stdout is protocol only, exit 0`, !r.bad && r.code === 0 && r.replies.length === 2, { bad: r.bad, code: r.code, stderr: r.stderr.slice(-500) });
    }
    const r = await rawStdio([initMsg(LATEST), "{not json", '{"jsonrpc":"2.0","id":7}', { jsonrpc: "2.0", id: 8, method: "ping" }]);
    check("parse error: -32700 with id null", r.replies[1]?.error?.code === -32700 && r.replies[1].id === null, r.replies[1]);
    check("invalid request: -32600", r.replies[2]?.error?.code === -32600 && r.replies[2].id === 7, r.replies[2]);
    check("the session goes on after bad input", r.replies[3]?.id === 8 && JSON.stringify(r.replies[3].result) === "{}", r.replies[3]);

    // batches: JSON-RPC arrays only in 2025-03-26 (removed in 2025-06-18)
    const batch = [{ jsonrpc: "2.0", id: 2, method: "ping" }, { jsonrpc: "2.0", id: "s3", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" }];
    let b = await rawStdio([initMsg("2025-03-26"), JSON.stringify(batch)]);
    check("2025-03-26: a batch gets an array of the replies (string ids kept)", Array.isArray(b.replies[1]) &&
      b.replies[1].length === 2 && b.replies[1][0].id === 2 && b.replies[1][1].id === "s3" && b.replies[1][1].result, b.replies[1]);
    b = await rawStdio([initMsg(LATEST), JSON.stringify(batch), { jsonrpc: "2.0", id: 4, method: "ping" }]);
    check("2025-11-25: a batch is -32600", b.replies[1]?.error?.code === -32600 && b.replies[1].id === null, b.replies[1]);
    check("2025-11-25: the session goes on after a batch", b.replies[2]?.id === 4 && b.replies.length === 3, b.replies);

    // a second initialize, blank lines, a call without arguments
    b = await rawStdio([initMsg(LATEST), initMsg(LATEST, 2), "", "   ",
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "context" } }]);
    check("a second initialize is -32600", b.replies[1]?.id === 2 && b.replies[1]?.error?.code === -32600, b.replies[1]);
    check("blank lines are skipped, a call without arguments works", b.replies.length === 3 && b.replies[2]?.id === 3 &&
      b.replies[2].result?.structuredContent?.markdown?.length > 0, b.replies.slice(2));

    // a message over the 4 MiB limit: one error, the session goes on
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
      params: { name: "save", arguments: { body: "oversize ".repeat(600000) } } });
    b = await rawStdio([initMsg(LATEST), huge, { jsonrpc: "2.0", id: 3, method: "ping" }]);
    check("an oversize message is -32600 with a message", b.replies[1]?.error?.code === -32600 &&
      /limit|large|long/i.test(b.replies[1].error.message), b.replies[1]);
    check("the session goes on after an oversize message", b.replies[2]?.id === 3 && b.replies.length === 3, b.replies.slice(2));

    // config mcp.tools picks the tools: a list, or all operations (whose
    // schemas must compile too), then back to the default
    const setTools = (v) => execFileSync(fx.mnemo, ["config", "set", "mcp.tools", v], { cwd: fx.repo, env: process.env });
    const listed = async () => (await rawStdio([initMsg(LATEST), { jsonrpc: "2.0", id: 2, method: "tools/list" }])).replies[1]?.result?.tools || [];
    setTools("search,context");
    let tl = await listed();
    check("mcp.tools=search,context lists those two", JSON.stringify(tl.map((t) => t.name).sort()) === '["context","search"]', tl.map((t) => t.name));
    setTools("all");
    tl = await listed();
    // the operation table, as `mnemo call` lists it: one "name  summary" line each
    const ops = new Map(execFileSync(fx.mnemo, ["call"], { cwd: fx.repo, env: process.env, encoding: "utf8" })
      .split("\n").filter(Boolean).map((l) => [l.split(/\s+/)[0], l.replace(/^\S+\s+/, "")]));
    check("mcp.tools=all lists every operation of the table", ops.size > DEFAULT_TOOLS.length &&
      JSON.stringify(tl.map((t) => t.name).sort()) === JSON.stringify([...ops.keys()].sort()), { tools: tl.map((t) => t.name), ops: [...ops.keys()] });
    check("each tool's description starts with its operation's summary",
      tl.every((t) => ops.has(t.name) && t.description.startsWith(ops.get(t.name))), tl.map((t) => t.description.slice(0, 60)));
    for (const t of tl)
      for (const which of ["inputSchema", "outputSchema"])
        if (t[which] || which === "inputSchema") {
          const c = compileSchema(t[which]);
          check(`all tools: ${t.name} ${which} compiles`, !c.error && t[which].type === "object", c.error || t[which]);
        }
    b = await rawStdio([initMsg(LATEST), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get", arguments: { id: fx.ids.rounding } } }]);
    check("mcp.tools=all: get works", b.replies[1]?.result?.structuredContent?.memory?.id === fx.ids.rounding, b.replies[1]);
    setTools("default");
    tl = await listed();
    check("mcp.tools=default: the default tools again", tl.length === DEFAULT_TOOLS.length, tl.map((t) => t.name));
    let refused = false;
    try { execFileSync(fx.mnemo, ["config", "set", "mcp.tools", "no_such_op"], { cwd: fx.repo, stdio: "pipe" }); } catch { refused = true; }
    check("mcp.tools with an unknown operation is refused", refused);

    // a request before initialize is refused; initialize still works after it
    b = await rawStdio([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, initMsg(LATEST, 2)]);
    check("tools/list before initialize: an error, then initialize works", b.replies[0]?.error && b.replies[1]?.result?.protocolVersion === LATEST, b.replies);

  } else {
    const url = process.env.MCP_URL;
    const post = (body, headers = {}) => fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const readJson = async (resp) => {
      const t = await resp.text();
      if ((resp.headers.get("content-type") || "").startsWith("text/event-stream")) {
        const data = t.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
        return JSON.parse(data);
      }
      return JSON.parse(t);
    };
    for (const v of [...OLDER, "1999-01-01"]) {
      const resp = await post(initMsg(v));
      const want = v === "1999-01-01" ? LATEST : v;
      const sid = resp.headers.get("mcp-session-id");
      const body = resp.status === 200 ? await readJson(resp) : await resp.text();
      check(`HTTP initialize ${v} -> ${want}`, resp.status === 200 && body.result?.protocolVersion === want && sid, { status: resp.status, body });
      if (!sid) continue;
      const h = { "mcp-session-id": sid, "mcp-protocol-version": want };
      check(`HTTP initialized notification (${v}) -> 202`, (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, h)).status === 202);
      const tl = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, h);
      const tb = tl.status === 200 ? await readJson(tl) : null;
      check(`HTTP tools/list in a ${v} session`, tb?.result?.tools?.length === DEFAULT_TOOLS.length, { status: tl.status, tb });
      const del = await fetch(url, { method: "DELETE", headers: h });
      check(`HTTP DELETE ends the ${v} session`, del.status === 200 || del.status === 204, del.status);
      const after = await post({ jsonrpc: "2.0", id: 3, method: "ping" }, h);
      check(`HTTP a deleted session is 404`, after.status === 404, after.status);
    }
    {
      // batches only in a 2025-03-26 session
      const resp = await post(initMsg("2025-03-26"));
      const sid = resp.headers.get("mcp-session-id");
      await resp.text();
      const h = { "mcp-session-id": sid, "mcp-protocol-version": "2025-03-26" };
      const b = await post([{ jsonrpc: "2.0", id: 2, method: "ping" }, { jsonrpc: "2.0", id: "s3", method: "ping" }], h);
      const body = b.status === 200 ? await readJson(b) : await b.text();
      check("HTTP 2025-03-26: a batch gets an array of the replies", Array.isArray(body) && body.length === 2 &&
        body[1].id === "s3", { status: b.status, body });
      await fetch(url, { method: "DELETE", headers: h });
    }

    const sid = conn.transport.sessionId;
    const h = { "mcp-session-id": sid, "mcp-protocol-version": LATEST };
    {
      const b = await post([{ jsonrpc: "2.0", id: 2, method: "ping" }], h);
      const t = await b.text();
      check("HTTP 2025-11-25: a batch is refused", b.status === 400 || /-32600/.test(t), { status: b.status, t });
      const huge = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
        params: { name: "save", arguments: { body: "oversize ".repeat(600000) } } });
      const o = await post(huge, h);
      const ot = await o.text();
      check("HTTP an oversize message is refused (413 or -32600)", o.status === 413 || /-32600/.test(ot), { status: o.status, ot: ot.slice(0, 300) });
    }

    let resp = await post("{not json", h);
    let body = await resp.text();
    check("HTTP parse error: -32700", resp.status === 400 || resp.status === 200 ? /-32700/.test(body) : false, { status: resp.status, body });
    resp = await post({ jsonrpc: "2.0", id: 9, method: "ping" }, {});
    check("HTTP a request without a session is 400", resp.status === 400, resp.status);
    resp = await post({ jsonrpc: "2.0", id: 9, method: "ping" }, { ...h, "mcp-protocol-version": "1999-01-01" });
    check("HTTP an unsupported MCP-Protocol-Version is 400", resp.status === 400, resp.status);
    resp = await post({ jsonrpc: "2.0", id: 9, method: "ping" }, { ...h, origin: "https://evil.example" });
    check("HTTP a foreign Origin is 403", resp.status === 403, resp.status);
    resp = await post({ jsonrpc: "2.0", id: 9, method: "ping" }, { ...h, origin: "http://localhost:3000" });
    check("HTTP a localhost Origin is allowed", resp.status === 200, resp.status);
    await resp.text();
    resp = await fetch(url, { method: "GET", headers: { ...h, accept: "text/event-stream" } });
    check("HTTP GET is 405", resp.status === 405, resp.status);
    await resp.text();
    resp = await post({ jsonrpc: "2.0", id: 10, method: "ping" }, { ...h, accept: "text/event-stream" });
    check("HTTP SSE reply when asked for text/event-stream only", resp.status === 200 &&
      (resp.headers.get("content-type") || "").startsWith("text/event-stream"), { status: resp.status, ct: resp.headers.get("content-type") });
    body = resp.status === 200 ? await readJson(resp) : null;
    check("HTTP the SSE event holds the reply", body?.id === 10 && JSON.stringify(body.result) === "{}", body);
    await conn.transport.terminateSession();
    resp = await post({ jsonrpc: "2.0", id: 11, method: "ping" }, h);
    check("HTTP the SDK's session is gone after terminateSession", resp.status === 404, resp.status);
    await client.close();
  }
});
done(`client.mjs ${mode}`);
