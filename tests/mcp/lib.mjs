// lib.mjs - what the MCP test scripts share: connecting the official SDK
// client to `mnemo mcp` (stdio) or `mnemo serve` (streamable HTTP), a
// transport tap that keeps the raw JSON-RPC messages, a check counter,
// JSON Schema compilation with ajv, percentiles.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft7 from "ajv";
import addFormats from "ajv-formats";

export const fixture = () => JSON.parse(readFileSync(process.env.MCP_FIXTURE, "utf8"));

// --- checks: every failure is printed, the process fails at the end --------

let failures = 0;
let passed = 0;
export function check(name, cond, detail) {
  if (cond) {
    passed++;
    return true;
  }
  failures++;
  const d = detail === undefined ? "" : `: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
  console.error(`FAIL: ${name}${d.length > 1200 ? d.slice(0, 1200) + "..." : d}`);
  return false;
}
export function done(what) {
  console.log(`${what}: ${passed} checks passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}
// rejects(name, promise, code): the promise fails with a JSON-RPC error of code
export async function rejects(name, p, code) {
  try {
    const r = await p;
    return check(name, false, `expected JSON-RPC error ${code}, got result ${JSON.stringify(r)}`);
  } catch (e) {
    return check(name, e.code === code && typeof e.message === "string" && e.message.length > 0,
      `expected code ${code}, got ${e.code}: ${e.message}`);
  }
}

// --- transports ------------------------------------------------------------

// Tap: wraps an SDK transport and keeps every message it receives, so a test
// can look at the raw initialize result or error objects.
export class Tap {
  constructor(inner, keep = true) {
    this.inner = inner;
    this.received = [];
    inner.onmessage = (m, extra) => {
      if (keep) this.received.push(m);
      this.onmessage?.(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start() { return this.inner.start(); }
  send(m, o) { return this.inner.send(m, o); }
  close() { return this.inner.close(); }
  get sessionId() { return this.inner.sessionId; }
  setProtocolVersion(v) { this.inner.setProtocolVersion?.(v); }
}

// The server's environment: ours (MNEMO_DB unset by the wrapper, HOME private,
// sanitizer options passed on).
const serverEnv = () => Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));

// connectStdio(): a Client over `$MNEMO mcp` started in the fixture repo.
// Returns {client, tap, exited}: exited resolves to {code, signal} of the
// server once it is gone; the server's stderr is collected in tap.stderr.
export async function connectStdio(opts = {}) {
  const fx = fixture();
  const transport = new StdioClientTransport({
    command: fx.mnemo,
    args: ["mcp", ...(opts.args || [])],
    cwd: fx.repo,
    env: serverEnv(),
    stderr: "pipe",
  });
  const tap = new Tap(transport, opts.keep !== false);
  tap.stderr = "";
  transport.stderr?.on("data", (b) => { tap.stderr += b.toString(); });
  const client = new Client({ name: "mnemo-tests", version: "1.0.0" }, { capabilities: {} });
  await client.connect(tap);
  const proc = transport._process; // the SDK keeps the child here
  const exited = new Promise((resolve) => {
    if (proc.exitCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return { client, tap, exited, proc };
}

// closeStdio(): end the server's stdin and wait for it to exit by itself (it
// must exit 0 at end of input, and LeakSanitizer reports at exit), then let
// the SDK tidy up. Checks the exit.
export async function closeStdio({ client, tap, exited, proc }, what = "stdio server") {
  proc.stdin.end();
  const timeout = new Promise((r) => setTimeout(() => r({ code: "timeout" }), 120000).unref());
  const st = await Promise.race([exited, timeout]);
  await client.close();
  check(`${what} exits 0 at end of input`, st.code === 0 && !st.signal, { ...st, stderr: tap.stderr.slice(-2000) });
  check(`${what}: no sanitizer report`, !/Sanitizer|runtime error:/.test(tap.stderr), tap.stderr.slice(-3000));
}

export async function connectHttp(url, opts = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const tap = new Tap(transport, opts.keep !== false);
  const client = new Client({ name: "mnemo-tests", version: "1.0.0" }, { capabilities: {} });
  await client.connect(tap);
  return { client, tap, transport };
}

// rawStdio(lines): run `$MNEMO mcp` on the given JSON lines (objects or raw
// strings), end its input, return {replies (parsed), stdout, stderr, code}.
export function rawStdio(lines, args = []) {
  const fx = fixture();
  return new Promise((resolve, reject) => {
    const p = spawn(fx.mnemo, ["mcp", ...args], { cwd: fx.repo, env: serverEnv() });
    let out = "", err = "";
    p.stdout.on("data", (b) => (out += b));
    p.stderr.on("data", (b) => (err += b));
    p.on("error", reject);
    p.on("close", (code, signal) => {
      const replies = [];
      let bad = null;
      for (const l of out.split("\n")) {
        if (!l) continue;
        try { replies.push(JSON.parse(l)); } catch { bad = l; }
      }
      resolve({ replies, stdout: out, stderr: err, code, signal, bad });
    });
    for (const l of lines) p.stdin.write((typeof l === "string" ? l : JSON.stringify(l)) + "\n");
    p.stdin.end();
  });
}

// --- JSON Schema -------------------------------------------------------------

// compileSchema(schema): ajv compiles it under its dialect ($schema, else
// 2020-12 as MCP 2025-11-25 says), strictly: unknown keywords and formats are
// errors, except x-* annotations. Returns {validate} or {error}.
export function compileSchema(schema) {
  const draft7 = typeof schema?.$schema === "string" && /draft-07/.test(schema.$schema);
  const Ajv = draft7 ? AjvDraft7 : Ajv2020;
  const ajv = new Ajv({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allErrors: true });
  addFormats.default ? addFormats.default(ajv) : addFormats(ajv);
  const xs = new Set();
  (function walk(v) {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object")
      for (const [k, w] of Object.entries(v)) {
        if (k.startsWith("x-")) xs.add(k);
        walk(w);
      }
  })(schema);
  for (const k of xs) ajv.addKeyword({ keyword: k });
  try {
    if (!ajv.validateSchema(schema)) return { error: ajv.errorsText(ajv.errors) };
    const validate = ajv.compile(schema);
    return { validate, errors: () => ajv.errorsText(validate.errors) };
  } catch (e) {
    return { error: e.message };
  }
}

// --- numbers -----------------------------------------------------------------

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
export function summary(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x) => x.toFixed(2);
  return `p50 ${f(percentile(s, 0.5))} ms, p95 ${f(percentile(s, 0.95))} ms, max ${f(s[s.length - 1])} ms`;
}

// section(name, fn): run one part of a test; an exception fails it with its
// message and the next part still runs.
export async function section(name, fn) {
  try {
    await fn();
  } catch (e) {
    check(`${name}: no exception`, false, `${e.code ?? ""} ${e.stack || e.message}`);
  }
}
