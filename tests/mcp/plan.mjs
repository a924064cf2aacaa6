// plan.mjs - the file plan (op plan_files, issue 23) as an agent's tool,
// through the official SDK client on `mnemo mcp` (tests/integration/
// mcp_plan.sh sets up the fixture repository and mcp.tools): the tool is
// listed with its input and output schemas; a task about reconciling
// statements gets ledger/reconcile.py first and never the empty
// ledger/__init__.py, with the graph-first fields, an answer its output
// schema accepts and the three sections within the budget; legacy and
// trace flags; a bad budget is an isError result naming the field.
import { check, done, connectStdio, closeStdio, compileSchema } from "./lib.mjs";

const conn = await connectStdio();
const { client } = conn;
const tools = (await client.listTools()).tools;
const pt = tools.find((t) => t.name === "plan_files");
check("mcp.tools offers plan_files with its schemas",
  pt && pt.inputSchema.required.includes("task") && pt.inputSchema.properties.legacy && pt.inputSchema.properties.trace && pt.outputSchema, pt);
const out = compileSchema(pt?.outputSchema ?? {});
check("its output schema compiles", !out.error, out.error);

const task = "reconcile_statement leaves pennies unmatched: quantize the statement amounts half to even before matching ledger entries";
let r = await client.callTool({ name: "plan_files", arguments: { task, trace: true } });
let d = r.structuredContent;
check("plan_files answers", r.isError !== true && d, r.content);
check("the answer matches its output schema", out.validate && out.validate(d), out.errors && out.errors());
check("graph_first_v1 with its fields",
  d?.pipeline_version === "graph_first_v1" && d.graph_candidate_count > 0 && d.semantic_hit_count > 0 &&
  typeof d.semantic_backend_used === "string" && Array.isArray(d.trace) && d.trace.length > 0, d);
check("ledger/reconcile.py first, with matched terms and evidence",
  d?.selected?.[0]?.path === "ledger/reconcile.py" && d.selected[0].matched_terms.length > 0 && d.selected[0].evidence, d?.selected);
check("no marker file (the empty ledger/__init__.py)", d?.selected?.every((s) => s.path !== "ledger/__init__.py"), d?.selected);
check("the three sections within the budget",
  /^## Graph Seeds\n[\s\S]*\n## Semantic Hits\n[\s\S]*\n## Final Context Files\n1\. ledger\/reconcile\.py /.test(d?.text) && d.tokens <= d.budget, d?.text);

r = await client.callTool({ name: "plan_files", arguments: { task, legacy: true } });
d = r.structuredContent;
check("legacy: legacy_v0", r.isError !== true && d?.pipeline_version === "legacy_v0" && d.selected.length > 0 && !d.trace, d);

r = await client.callTool({ name: "plan_files", arguments: { task, budget: 3 } });
check("a budget under 50 is an error naming the field", r.isError === true && /budget/.test(r.content?.[0]?.text), r);
await closeStdio(conn);
done("mcp plan");
