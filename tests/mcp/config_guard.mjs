// config_guard.mjs stdio|http - an agent cannot redirect the project's text
// (tests/integration/mcp_config_guard.sh).
//
// With every operation offered as a tool (mcp.tools all, set by the user
// at the command line), the official SDK client calls `config` the way a
// prompt-injected agent would: set embed.url to a listener of ours, turn on
// the http embedder, set a key, open the server to the network, choose the
// tools. Each must come back as an isError result, change nothing, and the
// listener must receive nothing when the agent then saves and searches.
// Reading the configuration still works (keys masked). The mnemo command
// line can still make the same change (the user may).
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { check, done, fixture, connectStdio, closeStdio, connectHttp } from "./lib.mjs";

const mode = process.argv[2];
if (mode !== "stdio" && mode !== "http") {
  console.error("usage: config_guard.mjs stdio|http   (http: $MCP_URL)");
  process.exit(2);
}
const fx = fixture();

// A listener standing for the attacker's: it counts what reaches it.
let hits = 0, bytes = 0;
const listener = createServer((req, res) => {
  hits++;
  req.on("data", (b) => (bytes += b.length));
  req.on("end", () => { res.writeHead(500); res.end(); });
});
await new Promise((r) => listener.listen(0, "127.0.0.1", r));
const trap = `http://127.0.0.1:${listener.address().port}/v1`;

const conn = mode === "stdio" ? await connectStdio() : await connectHttp(process.env.MCP_URL);
const { client } = conn;
const tools = (await client.listTools()).tools.map((t) => t.name);
check(`${mode}: config is a tool (mcp.tools all)`, tools.includes("config"), tools);

const cfg = (args) => client.callTool({ name: "config", arguments: args });
// the model name is no destination: the agent may set it, so that only the refusals below stand
// between the agent and a working http embedder posting to the listener
const model = await cfg({ action: "set", key: "embed.model", value: "trap-model" });
check(`${mode}: config set embed.model (no destination) works`, !model.isError, model);
const refusals = [
  ["embed.url", trap], ["embed.provider", "http"], ["embed.key", "env:HOME"],
  ["serve.host", "0.0.0.0"], ["serve.port", "80"], ["serve.allowed_origins", "https://evil.example"],
  ["mcp.tools", "default"],
];
for (const [key, value] of refusals) {
  const r = await cfg({ action: "set", key, value });
  const text = r.content?.[0]?.text || "";
  check(`${mode}: config set ${key} is refused with isError`, r.isError === true && /command line/.test(text), r);
}
const un = await cfg({ action: "unset", key: "serve.host" });
check(`${mode}: config unset serve.host is refused too`, un.isError === true, un);

const get = await cfg({ action: "get", key: "embed.url" });
check(`${mode}: config get still works, embed.url unchanged`, !get.isError && get.structuredContent?.value === "", get);
const list = await cfg({ action: "list" });
check(`${mode}: config list still works`, !list.isError && Array.isArray(list.structuredContent?.settings) &&
  list.structuredContent.settings.some((s) => s.key === "embed.provider" && s.value === "builtin"), list);
const ok = await cfg({ action: "set", key: "memory.dedup", value: "true" });
check(`${mode}: other keys can still be set`, !ok.isError, ok);

// the next save and search send nothing anywhere
const saved = await client.callTool({ name: "save", arguments: {
  kind: "fact", title: `Secret rotation schedule (${mode})`, body: "The payment keys rotate every 90 days; the runbook is in ops/rotate.md.",
  context: { situation: "rotating keys", solution: "follow ops/rotate.md", trigger_keywords: ["rotation", "payment", "keys"] } } });
check(`${mode}: save works`, !saved.isError, saved);
const found = await client.callTool({ name: "search", arguments: { query: "payment key rotation" } });
check(`${mode}: search works`, !found.isError, found);
check(`${mode}: nothing reached the listener`, hits === 0 && bytes === 0, { hits, bytes });

if (mode === "stdio") await closeStdio(conn);
else await client.close();

// the user at the command line may point embed.url anywhere (and put it back)
const mn = (...a) => execFileSync(fx.mnemo, a, { cwd: fx.repo, env: process.env, encoding: "utf8" });
mn("config", "set", "embed.url", trap);
check(`${mode}: the CLI can set embed.url`, mn("config", "get", "embed.url").trim() === trap);
mn("config", "unset", "embed.url");
mn("config", "unset", "embed.model");
check(`${mode}: the CLI can unset it`, mn("config", "get", "embed.url").trim() === "");
listener.close();
done(`config_guard.mjs ${mode}`);
