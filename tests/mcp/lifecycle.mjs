// lifecycle.mjs - the life cycle of a memory as an agent sees it, through
// the official SDK client on `mnemo mcp` (tests/integration/mcp_lifecycle.sh
// sets up the fixture repository and mcp.tools):
//   citations: a save names a function and cites it; the function edited and
//   indexed again (the index tool), the memory is stale: search marks it,
//   context lists it under "May be out of date", recall in `stale`, the
//   stale tool shows the diff; revalidate makes it current; a renamed
//   function is followed (the memory's resource cites the new name);
//   supersession: a save's supersedes link retires the old decision (out of
//   search and resources' current answers, in the new one's chain in
//   context), link with remove brings it back;
//   expiry: a ttl and memory.ttl.episode (a server whose clock is set
//   later, MNEMO_NOW_MS) keep memories out of search, context, recall and
//   resources/list; gc counts, then archives.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { check, done, connectStdio, closeStdio, fixture } from "./lib.mjs";

const fx = fixture();
const DAY = 86400000;

async function tool(client, name, args) {
  let r;
  try {
    r = await client.callTool({ name, arguments: args });
  } catch (e) {
    check(`${name} answers`, false, `${e.code}: ${e.message}`);
    return null;
  }
  check(`${name} ${JSON.stringify(args).slice(0, 70)}: not an error`, r.isError !== true && r.structuredContent, r.content);
  return r.structuredContent;
}

async function memory(client, id) {
  const rr = await client.readResource({ uri: `mnemo://memory/${id}` });
  return JSON.parse(rr.contents[0].text).memory;
}

const file = `${fx.repo}/ledger/reconcile.py`;
const edit = (from, to) => writeFileSync(file, readFileSync(file, "utf8").replace(from, to));

let conn = await connectStdio();
let { client } = conn;
const names = (await client.listTools()).tools.map((t) => t.name);
for (const t of ["stale", "revalidate", "gc", "link", "index"])
  check(`mcp.tools offers ${t}`, names.includes(t), names);

// ---- citations ----
const saved = await tool(client, "save", {
  kind: "gotcha",
  title: "Amounts are quantized to cents before matching",
  body: "quantize_amount rounds half to even; a statement line of 0.125 matches a ledger entry of 0.12.",
  context: { situation: "reconciling statements", solution: "quantize both sides", trigger_keywords: ["quantize", "cents", "rounding"] },
});
const gotcha = saved?.id;
let mem = await memory(client, gotcha);
const cite = (mem.citations || []).find((c) => c.symbol === "quantize_amount");
check("the save cites the function it names, with hash, lines and text",
  cite && cite.path === "ledger/reconcile.py" && cite.hash.length === 32 && cite.text.includes("ROUND_HALF_EVEN") && !cite.stale, mem.citations);

edit("ROUND_HALF_EVEN)", "ROUND_HALF_UP)");
let ix = await tool(client, "index", {});
check("the index run finds the cited function changed", ix?.citations?.stale >= 1, ix?.citations);
const q = "quantize amounts to cents before matching statements";
let s = await tool(client, "search", { query: q, kinds: ["memory"] });
check("search marks the memory stale", s.items.some((i) => i.id === gotcha && i.status === "stale"), s.items);
let c = await tool(client, "context", { query: q });
check("context lists it apart as possibly out of date, not as knowledge",
  c.items.some((i) => i.id === gotcha && i.section === "stale") && !c.items.some((i) => i.id === gotcha && i.section !== "stale") &&
  c.markdown.includes("## May be out of date"), c.items);
let r = await tool(client, "recall", { query: q });
check("recall puts it in stale, not in facts", r.stale.some((x) => x.id === gotcha) && !r.facts.some((x) => x.id === gotcha), r);
let st = await tool(client, "stale", {});
const entry = st.memories.find((m) => m.id === gotcha);
check("the stale tool lists it with the diff",
  entry && entry.citations[0].stale === "changed" && entry.citations[0].diff.includes("-") &&
  entry.citations[0].diff.includes("+    return Decimal(value).quantize(Decimal(\"0.01\"), ROUND_HALF_UP)"), entry);
const rv = await tool(client, "revalidate", { id: gotcha });
check("revalidate takes today's code", rv.action === "revalidated" && rv.citations === 1, rv);
st = await tool(client, "stale", {});
check("nothing stale after revalidate", !st.memories.some((m) => m.id === gotcha), st);
c = await tool(client, "context", { query: q });
check("context serves it as knowledge again", c.items.some((i) => i.id === gotcha && i.section === "knowledge"), c.items);

// the function renamed: the citation follows
writeFileSync(file, readFileSync(file, "utf8").replaceAll("quantize_amount", "round_amount"));
ix = await tool(client, "index", {});
check("the rename is followed", ix?.citations?.followed >= 1, ix?.citations);
mem = await memory(client, gotcha);
check("the memory cites the new name", (mem.citations || []).some((x) => x.symbol === "round_amount" && !x.stale), mem.citations);
// the caller, reconcile_statement, changed with it: the decision citing it is stale, not the gotcha
st = await tool(client, "stale", {});
check("the renamed function's memory is not stale; its caller's is",
  !st.memories.some((m) => m.id === gotcha) && st.memories.some((m) => m.id === fx.ids.rounding &&
    m.citations.some((x) => x.symbol === "reconcile_statement" && x.diff.includes("+        amount = round_amount(line.amount)"))), st);
await tool(client, "revalidate", { id: fx.ids.rounding });

// ---- supersession ----
const nw = await tool(client, "save", {
  kind: "decision",
  title: "Statement amounts are compared exactly",
  body: "The bank now sends exact amounts, so reconcile_statement compares them without rounding.",
  links: [{ kind: "supersedes", to: fx.ids.rounding, note: "the bank changed its export" }],
});
mem = await memory(client, fx.ids.rounding);
check("the replaced decision is superseded", mem.status === "superseded", mem.status);
const qd = "statement amounts rounding half to even compared exactly";
s = await tool(client, "search", { query: qd, kinds: ["memory"] });
check("search serves the new decision, not the old", s.items.some((i) => i.id === nw.id) && !s.items.some((i) => i.id === fx.ids.rounding), s.items);
c = await tool(client, "context", { query: qd });
check("context shows the new decision with the one it replaced",
  c.markdown.includes("supersedes: Statement amounts round half to even") && !c.items.some((i) => i.id === fx.ids.rounding), c.markdown);
await tool(client, "link", { from: nw.id, kind: "supersedes", to: fx.ids.rounding, remove: true });
check("the link removed, the old decision is current again", (await memory(client, fx.ids.rounding)).status === "active");
await tool(client, "link", { from: nw.id, kind: "supersedes", to: fx.ids.rounding });
check("linked again, superseded again", (await memory(client, fx.ids.rounding)).status === "superseded");

// ---- expiry ----
const short = await tool(client, "save", {
  kind: "fact", title: "The bank export is late this week", ttl: "1d",
  body: "Statements of the bank export arrive two days late this week.",
  context: { situation: "statements missing this week", solution: "wait for the bank export", trigger_keywords: ["bank", "export", "late"] },
});
const episode = await tool(client, "save", {
  kind: "episode", title: "Asked why the bank export is late",
  body: "user: why is the bank export late this week?",
});
const qe = "bank export late this week";
s = await tool(client, "search", { query: qe, kinds: ["memory"] });
check("before expiry both are served", s.items.some((i) => i.id === short.id) && s.items.some((i) => i.id === episode.id), s.items);
await closeStdio(conn);

// a server whose clock is three days later: the ttl ran out
process.env.MNEMO_NOW_MS = String(Date.now() + 3 * DAY);
conn = await connectStdio();
client = conn.client;
s = await tool(client, "search", { query: qe, kinds: ["memory"] });
check("past its ttl a memory is not served", !s.items.some((i) => i.id === short.id) && s.items.some((i) => i.id === episode.id), s.items);
c = await tool(client, "context", { query: qe });
check("nor by context", !c.items.some((i) => i.id === short.id), c.items);
r = await tool(client, "recall", { query: qe });
check("nor by recall", !r.facts.some((x) => x.id === short.id), r.facts);
let listed = (await client.listResources()).resources.map((x) => x.uri);
check("resources/list leaves out what expired", !listed.includes(`mnemo://memory/${short.id}`) && listed.includes(`mnemo://memory/${episode.id}`), listed);
await closeStdio(conn);

// 200 days later: the episode, unused since day 3, expired too (memory.ttl.episode 180d)
process.env.MNEMO_NOW_MS = String(Date.now() + 200 * DAY);
conn = await connectStdio();
client = conn.client;
s = await tool(client, "search", { query: qe, kinds: ["memory"] });
check("an episode unused for 180 days is not served", !s.items.some((i) => i.id === episode.id), s.items);
let gc = await tool(client, "gc", {});
check("gc counts first", gc.dry_run === true && gc.expired.ids.includes(short.id) && gc.expired.ids.includes(episode.id), gc);
check("the dry run changed nothing", (await memory(client, short.id)).status === "active");
gc = await tool(client, "gc", { apply: true });
check("gc with apply archives", gc.dry_run === false && (await memory(client, short.id)).status === "archived" &&
  (await memory(client, episode.id)).status === "archived", gc);
await closeStdio(conn);
delete process.env.MNEMO_NOW_MS;

const audit = execFileSync("sqlite3", [`${fx.repo}/.mnemo/mnemo.db`,
  "SELECT action FROM audit WHERE action IN ('stale','revalidate','cite_follow','supersede','unsupersede','expire') ORDER BY id"],
{ encoding: "utf8" }).trim().split("\n");
for (const a of ["stale", "revalidate", "cite_follow", "supersede", "unsupersede", "expire"])
  check(`an audit row for ${a}`, audit.includes(a), audit);
done("mcp lifecycle");
