// load.mjs - many tool calls through the official SDK client, no error
// allowed and every answer checked; prints p50/p95 per call
// (tests/integration/mcp_load.sh, bench/bench_mcp.sh).
//
//   load.mjs stdio CALLS            one `mnemo mcp` session, CALLS sequential calls
//   load.mjs http CLIENTS CALLS     CLIENTS concurrent sessions on $MCP_URL,
//                                   CALLS sequential calls each
//   load.mjs http-raw CLIENTS CALLS the same with a bare keep-alive node:http
//                                   client instead of the SDK's transport
//                                   (fetch + SSE parsing cost several ms a
//                                   call on a busy machine): the server's
//                                   own latency, for bench/bench_mcp.sh
//
// The calls cycle through a mix of the default tools but forget (reads, a
// save and a feedback in seven: writers contend on HTTP). After the tool
// calls, 100 pings on the same session(s) give the transport's own round
// trip, the floor the tool latencies sit on.
import http from "node:http";
import { check, done, connectStdio, closeStdio, connectHttp, summary, fixture } from "./lib.mjs";

const [mode, a, b] = process.argv.slice(2);
const run = `load${process.pid}`;
const FX = fixture();
const ids = (sc) => (sc.items || []).map((i) => i.id);
// [tool, arguments(i, client), what its answer must hold]
const MIX = [
  ["search", () => ({ query: "banker's rounding half to even" }), (sc) => ids(sc).includes(FX.ids.rounding)],
  ["context", () => ({ query: "why do reconciled statements leave pennies unmatched", max_tokens: 800 }),
    (sc) => /half to even/i.test(sc.markdown) && sc.tokens <= 800],
  ["recall", () => ({ query: "ledger entries with the same amount" }), (sc) => JSON.stringify(sc).includes(FX.ids.gotcha)],
  ["search_code", () => ({ query: "load_entries keyed by amount" }), (sc) => sc.items.some((i) => i.path === "ledger/store.py")],
  ["save", (i, c) => ({
    body: `Load note ${run} client ${c} call ${i}: batch ${i} of the statement importer was retried after a timeout.`,
    context: { situation: "a statement import timed out", solution: "the importer retries the batch",
      trigger_keywords: ["importer", "retry", "timeout", `batch${i}`] },
  }),
    (sc) => typeof sc.id === "string" && sc.id.length > 0],
  ["search", () => ({ query: "reconcile_statement", kinds: ["code", "file"], k: 5 }),
    (sc) => sc.items.some((i) => i.path === "ledger/reconcile.py")],
  ["feedback", () => ({ signal: "used", items: [FX.ids.rounding] }), (sc) => sc.recorded === 1],
];

// one session: n calls in order; returns {ms: [...], perTool: {name: [...]}, errors: [...]}
async function drive(client, n, c, out) {
  for (let i = 0; i < n; i++) {
    const [name, args, holds] = MIX[(i + c) % MIX.length];
    const t0 = performance.now();
    try {
      const r = await client.callTool({ name, arguments: args(i, c) });
      const ms = performance.now() - t0;
      if (r.isError || !r.structuredContent || !holds(r.structuredContent))
        out.errors.push(`${name}: ${JSON.stringify(r).slice(0, 300)}`);
      else {
        out.ms.push(ms);
        (out.perTool[name] ||= []).push(ms);
      }
    } catch (e) {
      out.errors.push(`${name}: ${e.code} ${e.message}`);
    }
  }
}
async function pings(client, n, out) {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    try {
      await client.ping();
      out.ping.push(performance.now() - t0);
    } catch (e) {
      out.errors.push(`ping: ${e.code} ${e.message}`);
    }
  }
}
function report(what, out, calls, wallMs) {
  check(`${what}: every call answered`, out.ms.length === calls && out.errors.length === 0,
    `${out.errors.length} errors of ${calls}; first: ${out.errors.slice(0, 3).join(" | ")}`);
  console.log(`${what}: ${out.ms.length}/${calls} tool calls ok, ${out.errors.length} errors, ` +
    `${(wallMs / 1000).toFixed(1)} s, ${((out.ms.length * 1000) / wallMs).toFixed(0)} calls/s`);
  console.log(`  per tool call: ${summary(out.ms)}`);
  for (const [name, ms] of Object.entries(out.perTool).sort()) console.log(`    ${name.padEnd(12)} ${summary(ms)}`);
  if (out.ping.length) console.log(`  ping (transport floor): ${summary(out.ping)}`);
}

// rawHttpClient(url): one session over one keep-alive connection, with the
// two methods drive() and pings() use; JSON replies only.
async function rawHttpClient(url) {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let headers = { "content-type": "application/json", accept: "application/json" };
  let id = 0;
  const send = (method, params) => new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent, headers }, (resp) => {
      let body = "";
      resp.setEncoding("utf8");
      resp.on("data", (c) => (body += c));
      resp.on("end", () => {
        if (resp.statusCode !== 200) return reject(new Error(`HTTP ${resp.statusCode}: ${body.slice(0, 200)}`));
        const m = JSON.parse(body);
        if (m.error) return reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
        resolve({ result: m.result, sid: resp.headers["mcp-session-id"] });
      });
    });
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
  });
  const init = await send("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "load", version: "0" } });
  headers = { ...headers, "mcp-session-id": init.sid, "mcp-protocol-version": init.result.protocolVersion };
  return {
    callTool: async (p) => (await send("tools/call", p)).result,
    ping: async () => (await send("ping")).result,
    close: () => new Promise((resolve) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "DELETE", agent, headers }, (resp) => {
        resp.resume();
        resp.on("end", () => { agent.destroy(); resolve(); });
      });
      req.on("error", () => { agent.destroy(); resolve(); });
      req.end();
    }),
  };
}

const out = { ms: [], perTool: {}, errors: [], ping: [] };
if (mode === "stdio") {
  const n = Number(a || 1000);
  const conn = await connectStdio({ keep: false });
  const t0 = performance.now();
  await drive(conn.client, n, 0, out);
  const wall = performance.now() - t0;
  await pings(conn.client, 100, out);
  report(`stdio, 1 session`, out, n, wall);
  await closeStdio(conn, "stdio server after the load");
} else if (mode === "http") {
  const clients = Number(a || 8), n = Number(b || 200);
  const conns = await Promise.all(Array.from({ length: clients }, () => connectHttp(process.env.MCP_URL, { keep: false })));
  const t0 = performance.now();
  await Promise.all(conns.map((c, i) => drive(c.client, n, i, out)));
  const wall = performance.now() - t0;
  await Promise.all(conns.map((c) => pings(c.client, Math.ceil(100 / clients), out)));
  report(`http, ${clients} concurrent sessions x ${n}`, out, clients * n, wall);
  for (const c of conns) {
    await c.transport.terminateSession();
    await c.client.close();
  }
} else if (mode === "http-raw") {
  const clients = Number(a || 8), n = Number(b || 200);
  const conns = await Promise.all(Array.from({ length: clients }, () => rawHttpClient(process.env.MCP_URL)));
  const t0 = performance.now();
  await Promise.all(conns.map((c, i) => drive(c, n, i, out)));
  const wall = performance.now() - t0;
  await Promise.all(conns.map((c) => pings(c, Math.ceil(100 / clients), out)));
  report(`http (bare client), ${clients} concurrent sessions x ${n}`, out, clients * n, wall);
  for (const c of conns) await c.close();
} else {
  console.error("usage: load.mjs stdio CALLS | load.mjs http|http-raw CLIENTS CALLS");
  process.exit(2);
}
done(`load.mjs ${mode}`);
