// session.mjs - a scripted MCP session as raw JSON lines for a server under
// a checker (tests/integration/mcp_valgrind.sh):
//   session.mjs write          print the session's messages, one per line
//   session.mjs check < OUT    check the replies: one per request, by id,
//                              errors exactly where expected, stdout all JSON
import { readFileSync } from "node:fs";
import { fixture } from "./lib.mjs";

const fx = fixture();
const req = (id, method, params, expectError) => ({ msg: { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, id, expectError });
const note = (method, params) => ({ msg: { jsonrpc: "2.0", method, ...(params ? { params } : {}) } });
const tool = (id, name, args, isError = false) => ({ ...req(id, "tools/call", { name, arguments: args }), isError });
const steps = [
  req(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "valgrind", version: "0" } }),
  note("notifications/initialized"),
  req(2, "tools/list"),
  tool(3, "save", { title: "Valgrind session memory", body: "Saved by the scripted valgrind session about quux widgets.",
    context: { situation: "a scripted session", solution: "none needed", trigger_keywords: ["valgrind", "quux", "widgets"] } }),
  tool(4, "search", { query: "quux widgets valgrind" }),
  tool(5, "context", { query: "reconcile pennies half to even", max_tokens: 600 }),
  tool(6, "recall", { query: "ledger entries duplicate" }),
  tool(7, "search_code", { query: "quantize_amount" }),
  tool(8, "feedback", { signal: "used", items: [fx.ids.rounding] }),
  tool(9, "forget", { id: fx.ids.scoped }),
  tool(10, "save", { kind: "nonsense" }, true),
  tool(11, "forget", { id: "ZZZZZZZZZZ" }, true),
  req(12, "tools/call", { name: "no_such_tool", arguments: {} }, -32602),
  req(13, "resources/list"),
  req(14, "resources/templates/list"),
  req(15, "resources/read", { uri: "mnemo://overview" }),
  req(16, "resources/read", { uri: `mnemo://memory/${fx.ids.rounding}` }),
  req(17, "resources/read", { uri: `mnemo://memory/${"0".repeat(26)}` }, -32002),
  req(18, "prompts/list"),
  req(19, "prompts/get", { name: "bugfix", arguments: { task: "pennies stay unmatched", files: "ledger/reconcile.py" } }),
  req(20, "prompts/get", { name: "bugfix", arguments: {} }, -32602),
  req(21, "logging/setLevel", { level: "debug" }),
  req(22, "ping"),
  req(23, "no/such/method", {}, -32601),
  { raw: "{not json", id: null, expectError: -32700 },
  { raw: JSON.stringify({ jsonrpc: "2.0", id: 24 }), id: 24, expectError: -32600 },
  note("notifications/cancelled", { requestId: 99, reason: "test" }),
  req(25, "ping"),
];

if (process.argv[2] === "write") {
  for (const s of steps) process.stdout.write((s.raw ?? JSON.stringify(s.msg)) + "\n");
} else if (process.argv[2] === "check") {
  const lines = readFileSync(0, "utf8").split("\n").filter(Boolean);
  const replies = lines.map((l) => { try { return JSON.parse(l); } catch { return { unparsable: l }; } });
  const want = steps.filter((s) => s.id !== undefined);
  let bad = 0;
  const fail = (m) => { bad++; console.error(`FAIL: ${m}`); };
  if (replies.length !== want.length) fail(`${replies.length} replies for ${want.length} requests`);
  for (const s of want) {
    const r = replies.find((x) => x.id === s.id && (s.id !== null || x.error));
    if (!r) { fail(`no reply for id ${s.id}`); continue; }
    if (s.expectError) {
      if (r.error?.code !== s.expectError) fail(`id ${s.id}: want error ${s.expectError}, got ${JSON.stringify(r).slice(0, 300)}`);
    } else if (!r.result) fail(`id ${s.id}: want a result, got ${JSON.stringify(r).slice(0, 300)}`);
    else if (s.isError !== undefined && (r.result.isError === true) !== s.isError)
      fail(`id ${s.id}: isError should be ${s.isError}: ${JSON.stringify(r.result).slice(0, 300)}`);
  }
  for (const r of replies) if (r.unparsable) fail(`not JSON on stdout: ${r.unparsable.slice(0, 200)}`);
  console.log(`session: ${want.length} requests, ${replies.length} replies, ${bad} problems`);
  process.exit(bad ? 1 : 0);
} else {
  console.error("usage: session.mjs write|check");
  process.exit(2);
}
