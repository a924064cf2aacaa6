#!/usr/bin/env bash
# token_context.sh - 1,000 `context` answers against js-tiktoken (pinned in
# deps/npm.lock), on a store holding this repository's code and memories
# made from its docs and, when ../shared/eval is there, from the
# evaluation files (SWE-bench issues with their patches, LoCoMo and
# LongMemEval sessions), asked their questions (issue texts, LoCoMo and
# LongMemEval questions, the repository's functions and doc headings) at
# budgets drawn from 64 to 8,000 (log-uniform, fixed seed), half in
# cl100k_base, half in o200k_base. Holds when:
#  - every answer's `tokens` is js-tiktoken's count of its markdown, and
#    none is over its budget;
#  - over the answers that could not give everything relevant whole
#    (complete false), the mean fill (tokens / max_tokens) is >= 0.90;
#  - no item ends inside a word: a line of code is the line of the file at
#    its number (the first and last lines of a symbol's span may be part of
#    one, cut between two tokens), a line of a memory is a whole sentence or field
#    of the stored memory (it ends where the field ends, at a line break
#    or after . ! ? and a space), and a shortened memory ends with the
#    line naming its whole id.
# Prints the figures (fill by budget range, counts) for the report.
set -euo pipefail
: "${MNEMO:?}" "${MNEMO_SOURCE_DIR:?}" "${MNEMO_CONTEXT_BATCH:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-token-context.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/xdg
unset MNEMO_DB
mkdir -p "$HOME"
deps=${MNEMO_DEPS_DIR:-$MNEMO_SOURCE_DIR/.deps}/npm
mkdir -p "$tmp/node_modules"
ln -s "$deps/js-tiktoken@1.0.21" "$tmp/node_modules/js-tiktoken"
ln -s "$deps/base64-js@1.5.1" "$tmp/node_modules/base64-js"
eval_dir=$MNEMO_SOURCE_DIR/../shared/eval
[ -d "$eval_dir" ] || eval_dir=

# the repository's sources, indexed in a copy
repo=$tmp/repo
mkdir -p "$repo"
for d in src include docs bench scripts cmake tests/integration tests/unit README.md ARCHITECTURE.md CMakeLists.txt; do
    [ -e "$MNEMO_SOURCE_DIR/$d" ] && mkdir -p "$repo/$(dirname "$d")" && cp -r "$MNEMO_SOURCE_DIR/$d" "$repo/$d"
done
(cd "$repo" && git init -q && "$MNEMO" init >/dev/null && "$MNEMO" index >/dev/null 2>&1)

cat >"$tmp/gen.cjs" <<'JS'
// Memories (JSON Lines for `mnemo import`) and the questions, from the repository and the
// evaluation files. argv: repo, eval dir ("" when none), memories out, questions out.
const fs = require("fs"), path = require("path");
const [repo, evalDir, memOut, qOut] = process.argv.slice(2);
let seed = 20261127;
const rnd = () => { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const B32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let serial = 0;
const newId = () => { let s = "01KT" + (serial++).toString(32).toUpperCase().padStart(6, "0").replace(/[ILOU]/g, "X");
  while (s.length < 26) s += B32[Math.floor(rnd() * 32)]; return s; };
const mems = [], questions = [];
const clip = (s, n) => s.length <= n ? s : s.slice(0, s.lastIndexOf(" ", n) > 0 ? s.lastIndexOf(" ", n) : n);
const firstLine = s => clip((s.split("\n").find(l => l.trim()) || "untitled").replace(/^[#\s]+/, "").trim(), 100) || "untitled";
function walk(dir, ext, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, ext, out); else if (p.endsWith(ext)) out.push(p);
  }
  return out;
}
// the docs: one fact per section; decisions.md's sections are decisions
for (const f of walk(path.join(repo, "docs"), ".md", [])) {
  const parts = fs.readFileSync(f, "utf8").split(/^## /m).slice(1);
  for (const sec of parts) {
    const title = firstLine(sec), body = sec.slice(sec.indexOf("\n") + 1).trim();
    if (!body) continue;
    const decision = f.endsWith("decisions.md");
    const m = { id: newId(), kind: decision ? "decision" : "fact", title, body: body.slice(0, 60000) };
    if (decision) m.context = { situation: clip(body.split("\n\n")[0].replace(/\n/g, " "), 1500) };
    m.scope = { paths: [path.relative(repo, f)] };
    mems.push(m);
    questions.push(title);
  }
}
// the code: questions about its functions
const fns = new Set();
for (const f of walk(path.join(repo, "src"), ".c", []))
  for (const m of fs.readFileSync(f, "utf8").matchAll(/^[a-z][\w *]* \**(mn_\w+)\(/gm)) fns.add(m[1]);
const kinds = ["how does %s work", "where is %s called and what does it return", "%s fails with an error", "fix a bug in %s when the input is empty"];
[...fns].sort().forEach((f, i) => questions.push(kinds[i % kinds.length].replace("%s", f)));
questions.push("x", "the", "why?", "how does the token budget work", "yes, go ahead", "ünïcödé 中文 query —");
if (evalDir) {
  const lines = f => fs.readFileSync(path.join(evalDir, f), "utf8").split("\n").filter(Boolean).map(JSON.parse);
  for (const f of ["swebench/dev.jsonl", "swebench/multi_dev.jsonl"]) {
    for (const x of lines(f)) {
      const ps = x.problem_statement, files = [...x.patch.matchAll(/^diff --git a\/(\S+)/gm)].map(m => m[1]);
      const errs = ps.split("\n").filter(l => /(Error|Exception|error:|Traceback)/.test(l)).slice(0, 3).map(l => l.slice(0, 2000));
      mems.push({ id: newId(), kind: "gotcha", title: firstLine(ps), body: ps.slice(0, 60000),
        context: { solution: x.patch.split("\n").slice(0, 40).join("\n").slice(0, 16000), error_messages: errs,
          files_modified: files.slice(0, 20) }, provenance: { source: "issue", task: x.instance_id } });
      questions.push(ps.slice(0, 32000));
    }
  }
  const loco = JSON.parse(fs.readFileSync(path.join(evalDir, "locomo/locomo10.json"), "utf8"));
  for (const conv of loco.slice(0, 2)) {
    for (const [k, turns] of Object.entries(conv.conversation)) {
      if (!/^session_\d+$/.test(k) || !Array.isArray(turns)) continue;
      mems.push({ id: newId(), kind: "episode", title: `${k.replace("_", " ")} of ${conv.conversation.speaker_a} and ${conv.conversation.speaker_b}`,
        body: turns.map(t => `${t.speaker}: ${t.text}`).join("\n").slice(0, 60000),
        context: { situation: String(conv.conversation[k + "_date_time"] || "") } });
    }
    for (const q of conv.qa.slice(0, 150)) questions.push(String(q.question));
  }
  const lme = JSON.parse(fs.readFileSync(path.join(evalDir, "longmemeval/longmemeval_s_dev.json"), "utf8"));
  for (const q of lme.slice(0, 60)) {
    questions.push(q.question);
    const i = q.haystack_session_ids.indexOf(q.answer_session_ids[0]);
    if (i >= 0) mems.push({ id: newId(), kind: "episode", title: clip(`Chat of ${q.haystack_dates[i]}: ${q.haystack_sessions[i][0].content}`.replace(/\s+/g, " "), 190),
      body: q.haystack_sessions[i].filter(t => t.role === "user").map(t => t.content).join("\n\n").slice(0, 60000) });
  }
}
// what import wants of every memory
for (const m of mems) {
  m.level = m.level || "L1";
  m.provenance = Object.assign({ source: "import" }, m.provenance || {});
  m.status = "active";
  m.confidence = 0.8;
  m.created_at = m.updated_at = "2026-11-20T10:00:00.000Z";
}
fs.writeFileSync(memOut, mems.map(m => JSON.stringify(m)).join("\n") + "\n");
const out = [];
for (let i = 0; i < 1000; i++) {
  const q = questions[Math.floor(rnd() * questions.length)];
  const budget = Math.round(64 * Math.pow(8000 / 64, rnd()));
  out.push(JSON.stringify({ query: q, max_tokens: budget, tokenizer: i % 2 ? "cl100k_base" : "o200k_base" }));
}
fs.writeFileSync(qOut, out.join("\n") + "\n");
console.log(`${mems.length} memories, ${questions.length} questions`);
JS
node "$tmp/gen.cjs" "$repo" "$eval_dir" "$tmp/memories.jsonl" "$tmp/questions.jsonl"
(cd "$repo" && "$MNEMO" config set memory.dedup false >/dev/null && "$MNEMO" import "$tmp/memories.jsonl" >/dev/null &&
    "$MNEMO" export >"$tmp/export.jsonl")
"$MNEMO_CONTEXT_BATCH" "$repo" <"$tmp/questions.jsonl" >"$tmp/answers.jsonl"
[ "$(wc -l <"$tmp/answers.jsonl")" = 1000 ]

cat >"$tmp/check.cjs" <<'JS'
const fs = require("fs"), path = require("path");
const { getEncoding } = require("js-tiktoken");
const enc = { cl100k_base: getEncoding("cl100k_base"), o200k_base: getEncoding("o200k_base") };
const [answersFile, exportFile, repo] = process.argv.slice(2);
const mems = fs.readFileSync(exportFile, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const byId = new Map(mems.map(m => [m.id, m]));
const fileLines = new Map();
const linesOf = p => { if (!fileLines.has(p)) { try { fileLines.set(p, fs.readFileSync(path.join(repo, p), "utf8").split("\n").map(l => l.replace(/\r$/, ""))); } catch { fileLines.set(p, null); } } return fileLines.get(p); };
let n = 0, errors = 0, over = 0, differ = 0, cut = 0, checkedLines = 0, shortened = 0, whole = 0;
const fills = [], buckets = new Map();
const bad = (what) => { cut++; if (cut <= 8) console.error("cut: " + what); };
// where a line of a memory's text ends: at the end of the field, a line break, or after . ! ? and a space
function wholeIn(text, line) {
  text = text.replace(/\r/g, "");
  for (let p = text.indexOf(line); p >= 0; p = text.indexOf(line, p + 1)) {
    const before = p === 0 ? "\n" : text[p - 1], rest = text.slice(p + line.length);
    const startOk = /\s/.test(before);
    const endOk = /^[ \t]*(\n|$)/.test(rest) || (/^ /.test(rest) && /[.!?]["')\]]*$/.test(line));
    if (startOk && endOk) return true;
  }
  return false;
}
const labels = /^(When|Because|Error|Tried, did not work|Fix|Alternatives|Excerpt): /;
for (const l of fs.readFileSync(answersFile, "utf8").split("\n").filter(Boolean)) {
  const { args, answer, error } = JSON.parse(l);
  n++;
  if (error) { errors++; console.error(`error for ${JSON.stringify(args.query.slice(0, 60))}: ${error}`); continue; }
  const md = answer.markdown, real = enc[args.tokenizer].encode(md, [], []).length;
  if (real !== answer.tokens) { differ++; if (differ < 5) console.error(`tokens ${answer.tokens} != ${args.tokenizer} ${real}`); }
  if (real > args.max_tokens) { over++; console.error(`over: ${real} > ${args.max_tokens}`); }
  if (!answer.complete) {
    const f = real / args.max_tokens;
    fills.push(f);
    const b = args.max_tokens < 128 ? "64-127" : args.max_tokens < 512 ? "128-511" : args.max_tokens < 2048 ? "512-2047" : "2048-8000";
    if (!buckets.has(b)) buckets.set(b, []);
    buckets.get(b).push(f);
  }
  // the items: a head line "- ..." at column 0 and the lines under it
  const lines = md.split("\n");
  const refs = new Map(answer.items.filter(i => i.type === "memory").map(i => [i.ref, i.id]));
  let item = null;
  const finish = () => {
    if (!item) return;
    const head = item[0];
    const code = head.match(/^- `([^`]+?):(\d+)`/), mem = head.match(/\(([0-9A-Z]{12,26})\)(?: \[[^\]]*\])? --/);
    if (code && item.length > 1) {
      const src = linesOf(code[1]);
      const fence = item.findIndex(x => /^  (```|~~~)/.test(x));
      const body = item.slice(fence + 1, item.length - 1);
      // a line is the file's line; the chunk's first and last may be part of one (a symbol's
      // span), cut between two tokens, never inside a word
      const word = ch => ch !== undefined && /[\w$]/.test(ch);
      // a secret in the file (scrub.c's own examples) is served as [REDACTED:rule]
      const esc = x => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const redactedOf = (f, t) => f !== undefined && t.includes("[REDACTED:") &&
        new RegExp("^" + t.split(/\[REDACTED:[\w.-]+\]/).map(esc).join(".+?") + "$").test(f);
      body.forEach((x, k) => {
        checkedLines++;
        const f = src ? src[Number(code[2]) - 1 + k] : undefined, t = x.slice(2);
        const ok = f === t || redactedOf(f, t) ||
          (f !== undefined && k === body.length - 1 && f.startsWith(t) && !(word(t.slice(-1)) && word(f[t.length]))) ||
          (f !== undefined && k === 0 && f.endsWith(t) && !(word(t[0]) && word(f[f.length - t.length - 1])));
        if (!ok) bad(`${code[1]}:${Number(code[2]) + k} ${JSON.stringify(x)} (file: ${JSON.stringify(f)})`);
      });
    } else if (mem && !refs.has(mem[1])) {
      bad(`an item's id is not one of the answer's: ${head}`);
    } else if (mem && byId.has(refs.get(mem[1]))) {
      const m = byId.get(refs.get(mem[1])), c = m.context || {};
      const last = item[item.length - 1];
      if (/^  \(Shortened: the whole memory is `mnemo show [0-9A-Z]{26}`\.\)$/.test(last)) {
        shortened++;
        if (!last.includes(m.id)) bad(`pointer of ${m.id} names another id: ${last}`);
      } else whole++;
      for (const x of item.slice(1)) {
        if (/^  \(Shortened:/.test(x) || /^ +- (supersedes|caused by): /.test(x) || /^  (Files|Scope|Links|Keywords|Saved)\b/.test(x)) continue;
        const t = x.replace(/^ +/, "").replace(labels, "");
        const fields = [m.body || "", c.situation || "", c.solution || "", c.what_failed || "", c.conversation_excerpt || "", ...(c.error_messages || [])];
        checkedLines++;
        if (t && !fields.some(f => wholeIn(f, t))) bad(`${m.id}: ${JSON.stringify(x.slice(0, 160))}`);
      }
    }
    for (const x of item) if (/…$/.test(x) && !x.includes("…\"") && !(x.length > 2 && md.includes(x) && mems.some(m => (m.body || "").includes(x.trim())))) bad(`ends in an ellipsis: ${JSON.stringify(x.slice(-80))}`);
  };
  for (const x of lines) {
    if (/^- /.test(x)) { finish(); item = [x]; }
    else if (/^(#|$)/.test(x) || /^Answer \d+:/.test(x) || /^No relevant/.test(x)) { finish(); item = null; }
    else if (item) item.push(x);
  }
  finish();
}
const mean = a => a.reduce((s, x) => s + x, 0) / Math.max(a.length, 1);
console.log(`${n} answers: ${errors} errors, ${differ} counts not js-tiktoken's, ${over} over budget, ${cut} items cut (${checkedLines} lines of items checked; memories ${whole} whole, ${shortened} shortened)`);
console.log(`fill where the relevant material exceeds the budget: mean ${mean(fills).toFixed(3)} over ${fills.length} answers, min ${Math.min(...fills).toFixed(3)}`);
for (const b of ["64-127", "128-511", "512-2047", "2048-8000"]) if (buckets.has(b)) console.log(`  budget ${b}: mean fill ${mean(buckets.get(b)).toFixed(3)} (${buckets.get(b).length})`);
process.exit(errors || differ || over || cut || fills.length < 100 || mean(fills) < 0.9 ? 1 : 0);
JS
NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" "$tmp/answers.jsonl" "$tmp/export.jsonl" "$repo"
