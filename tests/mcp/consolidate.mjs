// consolidate.mjs - consolidation as an agent sees it, through the official
// SDK client on `mnemo mcp` (tests/integration/mcp_consolidate.sh sets up
// the fixture repository and mcp.tools): three gotchas an agent saved about
// the same trouble, one unrelated; the consolidate tool proposes one
// pattern (dry run: nothing saved); apply saves it derived_from each, and
// since an agent's pattern without evidence waits, it is in the review
// queue, where approve makes it active and search serves it; a second run
// does nothing; bad arguments are an isError result.
import { check, done, connectStdio, closeStdio } from "./lib.mjs";

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
const gotcha = (account, solution) => ({
  kind: "gotcha",
  title: `Reconcile failed on the ${account} account`,
  body: `Lines of the ${account} statement stayed unmatched: load_entries keeps one of two entries with an equal amount.`,
  context: { situation: `reconciling the ${account} statement`, solution, trigger_keywords: ["reconcile", "duplicate", "amount"] },
});

const conn = await connectStdio();
const { client } = conn;
const names = (await client.listTools()).tools.map((t) => t.name);
check("mcp.tools offers consolidate", names.includes("consolidate"), names);

const ids = [];
for (const [acct, sol] of [["savings", "key the entries by amount and id"], ["payroll", "key the entries by amount and id"], ["escrow", "key the entries by amount and id"]])
  ids.push((await tool(client, "save", gotcha(acct, sol)))?.id);
const other = await tool(client, "save", {
  kind: "gotcha", title: "Docs build needs graphviz", body: "make docs fails without the dot binary.",
  context: { situation: "building the docs", solution: "apt install graphviz", trigger_keywords: ["docs", "graphviz", "dot"] },
});

let r = await tool(client, "consolidate", {});
const cl = r?.clusters?.find((c) => ids.every((id) => c.members.some((m) => m.id === id)));
check("a dry run proposes one pattern for the three", r?.dry_run === true && cl?.action === "create" &&
  cl.members.length === 3 && !cl.members.some((m) => m.id === other.id) && cl.generalize.solution === "key the entries by amount and id", r);
check("with the words they share", cl?.generalize?.shared_terms?.includes("reconcile") && !cl.generalize.shared_terms.includes("savings"), cl?.generalize);
let q = await tool(client, "review", {});
check("the dry run saved nothing", q?.total === 0, q);

r = await tool(client, "consolidate", { apply: true });
const made = r?.clusters?.find((c) => c.action === "create");
check("apply creates the pattern", r?.dry_run === false && r.created === 1 && made?.result?.action === "created", r);
const pid = made?.pattern;
let p = await memory(client, pid);
check("derived_from each source", ids.every((id) => p.links.some((l) => l.kind === "derived_from" && l.to === id)), p.links);
check("an agent's pattern without evidence waits for review", p.status === "pending", p.status);
for (const id of ids)
  check(`the source ${id} is unchanged and active`, (await memory(client, id)).status === "active");
r = await tool(client, "review", { action: "approve", id: pid });
check("approved in review", r?.decided?.[0]?.status === "active", r);
const s = await tool(client, "search", { query: "reconcile failed statement lines unmatched equal amount", kinds: ["memory"] });
check("search serves the pattern", s?.items?.some((i) => i.id === pid), s?.items);

r = await tool(client, "consolidate", { apply: true });
check("a second run does nothing", r?.created === 0 && r?.extended === 0 && r.clusters.every((c) => c.action === "none"), r);
const bad = await call(client, "consolidate", { min_size: 2 });
check("min_size below 3 is an error with a message", bad?.isError === true && /min_size/.test(bad.content?.[0]?.text), bad);
await closeStdio(conn);
done("mcp consolidate");
