// review.mjs - the review queue as an agent sees it, through the official
// SDK client on `mnemo mcp` (tests/integration/mcp_review.sh sets up the
// fixture repository and mcp.tools): an agent's pattern without evidence
// waits; the review tool lists it with the judge's reasons and how it
// came; reject archives it and the same save, or a rewording, is skipped;
// approve (by ids) makes memories active and served by search; edit
// changes the title then approves; merge folds one into the fixture's
// gotcha; all_from agent rejects what is left; a decision naming nothing
// is an isError result that changes nothing; each decision is an audit
// row of the MCP front end.
import { execFileSync } from "node:child_process";
import { check, done, connectStdio, closeStdio, fixture } from "./lib.mjs";

const fx = fixture();

async function call(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (e) {
    check(`${name} answers`, false, `${e.code}: ${e.message}`);
    return null;
  }
}
async function tool(client, name, args) {
  const r = await call(client, name, args);
  check(`${name} ${JSON.stringify(args).slice(0, 70)}: not an error`, r && r.isError !== true && r.structuredContent, r?.content);
  return r?.structuredContent;
}
async function memory(client, id) {
  const rr = await client.readResource({ uri: `mnemo://memory/${id}` });
  return JSON.parse(rr.contents[0].text).memory;
}
const pattern = (title, body) => ({
  kind: "pattern", title, body,
  context: { situation: "changing the ledger code", solution: body, trigger_keywords: ["ledger", "review", "pattern"] },
});

const conn = await connectStdio();
const { client } = conn;
const tools = (await client.listTools()).tools;
const rt = tools.find((t) => t.name === "review");
check("mcp.tools offers review, with its decisions in the schema",
  rt && ["list", "approve", "reject", "edit", "merge"].every((a) => rt.inputSchema.properties.action.enum.includes(a)), rt);

// an agent's pattern without evidence waits, and the queue shows why
const p1 = await tool(client, "save", pattern("Amounts are Decimal, never float",
  "Every amount in ledger code is a decimal.Decimal built from a string; floats lose cents."));
check("an agent's pattern without evidence is pending", p1?.status === "pending", p1);
let q = await tool(client, "review", {});
let item = q?.memories?.find((m) => m.id === p1.id);
check("the queue lists it with the judge's reasons and how it came",
  item && item.judgement.reasons.some((r) => r.startsWith("no evidence")) && item.how.source === "agent" &&
  Array.isArray(item.neighbours) && Array.isArray(item.links), item);

// reject: archived, never proposed again
let r = await tool(client, "review", { action: "reject", id: p1.id, note: "the ledger uses integer cents" });
check("reject archives it", r?.decided?.[0]?.status === "archived" && (await memory(client, p1.id)).status === "archived", r);
const again = await tool(client, "save", pattern("Amounts are Decimal, never float",
  "Every amount in ledger code is a decimal.Decimal built from a string; floats lose cents."));
check("the same save again is skipped", again?.action === "skipped" && again.rejected_before === p1.id && /rejected/.test(again.note), again);
const reworded = await tool(client, "save", pattern("Amounts are Decimals, never floats",
  "Every amount in the ledger code is a decimal.Decimal built from a string; floats lose cents."));
check("a rewording is skipped too", reworded?.action === "skipped" && reworded.rejected_before === p1.id, reworded);
q = await tool(client, "review", {});
check("nothing new waits", q?.total === 0, q);

// approve by ids: active and served
const p2 = await tool(client, "save", pattern("Statement lines are matched by amount then date",
  "reconcile_statement pairs a statement line with the ledger entry of the same amount, the oldest date first."));
const p3 = await tool(client, "save", pattern("Ledger tests use fixed dates",
  "Tests of the ledger pass explicit dates; none read the clock."));
r = await tool(client, "review", { action: "approve", ids: [p2.id, p3.id.slice(0, 12)] });
check("approve by ids decides on both", r?.count === 2 && r.decided.every((d) => d.was === "pending" && d.status === "active"), r);
const s = await tool(client, "search", { query: "statement lines matched by amount then date", kinds: ["memory"] });
check("an approved memory is served", s?.items?.some((i) => i.id === p2.id && i.status === "active"), s?.items);

// edit then approve
const p4 = await tool(client, "save", pattern("Close the books monthly", "The ledger is closed on the first day of each month."));
r = await tool(client, "review", { action: "edit", id: p4.id, title: "Books close on the first of the month" });
let m = await memory(client, p4.id);
check("edit changes the title and approves", r?.decided?.[0]?.changed?.includes("title") && m.title === "Books close on the first of the month" && m.status === "active", { r, m });

// merge into the fixture's gotcha
const p5 = await tool(client, "save", pattern("Equal amounts overwrite each other",
  "load_entries keys the entries by amount, so a second entry of the same amount replaces the first."));
r = await tool(client, "review", { action: "merge", id: p5.id, into: fx.ids.gotcha });
check("merge folds it into the memory named", r?.decided?.[0]?.into === fx.ids.gotcha && (await memory(client, p5.id)).status === "archived" &&
  (await memory(client, fx.ids.gotcha)).status === "active", r);

// bad requests: an isError result, nothing changed
const p6 = await tool(client, "save", pattern("Reconcile per account", "reconcile_statement runs once per account, never across accounts."));
let bad = await call(client, "review", { action: "approve" });
check("a decision naming nothing is an error with a message", bad?.isError === true && /give one of: an id/.test(bad.content?.[0]?.text), bad);
bad = await call(client, "review", { action: "reject", ids: [p6.id, p2.id] });
check("a bulk decision with one memory not waiting is an error", bad?.isError === true && /not waiting for review/.test(bad.content?.[0]?.text), bad);
check("and changes nothing", (await memory(client, p6.id)).status === "pending");

// all_from agent: what is left
r = await tool(client, "review", { action: "reject", all_from: "agent" });
check("all_from agent rejects every waiting agent memory", r?.count === 1 && r.decided[0].id === p6.id, r);
q = await tool(client, "review", {});
check("the queue is empty", q?.total === 0 && q.memories.length === 0, q);
await closeStdio(conn);

const rows = execFileSync("sqlite3", [`${fx.repo}/.mnemo/mnemo.db`,
  "SELECT action || ' ' || target || ' ' || actor FROM audit WHERE action IN ('approve','reject','merge','skip') ORDER BY id"],
{ encoding: "utf8" }).trim().split("\n");
for (const [a, id] of [["reject", p1.id], ["skip", p1.id], ["approve", p2.id], ["approve", p3.id], ["approve", p4.id], ["merge", fx.ids.gotcha], ["reject", p6.id]])
  check(`an audit row: ${a} ${id}`, rows.some((x) => x.startsWith(`${a} ${id} `) && !x.endsWith(" cli")), rows);
done("mcp review");
