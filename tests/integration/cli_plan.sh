#!/usr/bin/env bash
# cli_plan.sh - `mnemo plan` (op plan_files, issue 23) on mnemo's own code:
# a copy of this repository's committed tree (its code and docs: src/,
# include/, docs/...; not tests/, bench/, fuzz/) is indexed, then ten tasks
# written as a developer of mnemo would put them must bring the files of
# the module they are about into the top of the plan (the task about the
# graph candidates: >= 3 files of src/retrieve/plan* in the top 5), no
# marker or lock file in any top 10, the JSON fields of the graph-first
# pipeline, the three sections of the text within the budget, --trace,
# --legacy (legacy_v0), plan.graph_first false, and the fail-open fallback
# (a task the index cannot match: the legacy plan with its reason, exit 0;
# with plan.fail_open false, the error). A marker file (an empty
# __init__.py) is added to the copy so that its absence means something.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: evaluate EXPR with d = the JSON on stdin (node)
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }

# the committed tree of this repository, with its history's last commit
repo=$tmp/self
git clone -q --depth 1 "file://$MNEMO_SOURCE_DIR" "$repo" 2>/dev/null ||
    git clone -q "$MNEMO_SOURCE_DIR" "$repo"
cd "$repo"
# mnemo's code and docs; the test data, benches and fuzz corpora only make the index slow
git rm -rq --ignore-unmatch tests bench fuzz
mkdir -p src/retrieve/marker_pkg
: >src/retrieve/marker_pkg/__init__.py
printf 'lockfileVersion: 9\n' >pnpm-lock.yaml
git add -A && git -c user.name=t -c user.email=t@t commit -qm "a marker and a lock file"
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null

# plan TASK: the JSON of the plan for TASK
plan() { "$MNEMO" --json plan "$@"; }

# case NAME TASK K MIN PATTERN: at least MIN of the top K selected paths match PATTERN (a regex)
case_top() {
    local name=$1 task=$2 k=$3 min=$4 pat=$5
    plan "$task" | js "$name: >= $min of the top $k match $pat" \
        "d.pipeline_version === 'graph_first_v1' && d.selected.slice(0, $k).filter(s => /$pat/.test(s.path)).length >= $min && d.selected.slice(0, 10).every(s => s.role !== 'marker' && s.role !== 'lock' && !/__init__\\.py\$|-lock\\.yaml\$/.test(s.path))"
}

# 1. the graph candidates: >= 3 files of the plan module in the top 5
case_top graph "the graph candidates of a plan: tiers A, B and C, the noise filter for lock and marker files, and the candidate cap" 5 3 '^src\/retrieve\/plan'
# 2. the semantic stage's backend ladder
case_top semantic "the semantic stage of the plan: backend ladder from the embedder to ripgrep run with execve to the built-in scorer, matched terms and the evidence snippet" 3 1 '^src\/retrieve\/plan_semantic\.c$'
# 3. secrets in saved text
case_top scan "secret scanner rules: redact API keys and personal data like e-mail and IBAN before a memory is saved" 5 1 '^src\/text\/scan'
# 4. near-duplicates
case_top neardup "near-duplicate memories: fingerprints, LSH keys and the verdict on a pair" 5 2 '^src\/text\/neardup'
# 5. token counting
case_top tokens "count tokens exactly with the byte-pair encoding tables cl100k_base and o200k_base" 5 2 '^src\/(text\/bpe|retrieve\/tokens)'
# 6. the Claude Code hook
case_top hook "Claude Code hook: PreToolUse of the Task sub-agent tool gets updatedInput with the project memory, conversational prompts stay quiet" 3 1 '^src\/agent\/hook\.c$'
# 7. lenient TOML and INI
case_top toml "the lenient TOML and INI readers that turn manifests into JSON" 5 2 '^src\/util\/(toml|ini)\.[ch]$'
# 8. JSON-RPC of the MCP server
case_top jsonrpc "the JSON-RPC reader and writers of the MCP server: batches, ids, parse errors" 5 1 '^src\/mcp\/jsonrpc\.c$'
# 9. git hooks
case_top githooks "install the git post-commit hook chained after the user's own hook and restore it byte for byte on uninstall" 5 1 '^src\/ingest\/hooks\.c$'
# 10. config keys
case_top config "configuration keys: unknown keys refused, each value checked when set, embed.key holds a reference not the key" 3 1 '^src\/api\/config\.c$'

# the JSON fields of the graph-first pipeline
plan "the graph candidates of a plan and the noise filter" --trace | js "json fields" \
    "d.pipeline_version === 'graph_first_v1' && ['builtin', 'ripgrep', 'embedder'].includes(d.semantic_backend_used) && d.graph_candidate_count > 0 && d.graph_candidate_count <= 60 && d.semantic_hit_count > 0 && d.selected.length > 0 && d.selected.every(s => typeof s.final_score === 'number' && typeof s.graph_score === 'number' && s.semantic_score >= 0 && s.semantic_score <= 1 && Array.isArray(s.matched_terms) && ['A','B','C'].includes(s.tier)) && d.selected.some(s => s.matched_terms.length > 0 && s.evidence) && d.tokens <= d.budget && d.budget === 1800 && d.trace.some(t => /^tier A/.test(t)) && d.trace.some(t => /^noise filter/.test(t)) && d.trace.some(t => /^semantic: backend/.test(t)) && !('fallback_reason' in d)"
# scores: final = graph by default (plan.semantic_weight 0); with the issue's
# 0.35, final = 0.65 graph + 0.35 semantic with semantic evidence, graph alone without
plan "the graph candidates of a plan and the noise filter" | js "fusion, default" \
    "d.selected.every(s => Math.abs(s.final_score - s.graph_score) < 0.003) && d.selected.every((s, i) => i === 0 || d.selected[i - 1].final_score >= s.final_score)"
"$MNEMO" config set plan.semantic_weight 0.35 >/dev/null
plan "the graph candidates of a plan and the noise filter" | js "fusion, 0.35" \
    "d.selected.every(s => Math.abs(s.final_score - (s.semantic_backend_used !== 'none' ? 0.65 * s.graph_score + 0.35 * s.semantic_score : s.graph_score)) < 0.003) && d.selected.some(s => Math.abs(s.final_score - s.graph_score) > 0.003) && d.selected.every((s, i) => i === 0 || d.selected[i - 1].final_score >= s.final_score)"
"$MNEMO" config unset plan.semantic_weight >/dev/null

# the text: the three sections, in order, within a small budget
out=$("$MNEMO" plan "the graph candidates of a plan and the noise filter" --budget 120)
grep -q '^## Graph Seeds$' <<<"$out" || fail "text: no Graph Seeds"
grep -q '^## Semantic Hits$' <<<"$out" || fail "text: no Semantic Hits"
grep -q '^## Final Context Files$' <<<"$out" || fail "text: no Final Context Files"
[ "$(printf '%s\n' "$out" | grep -n '^## ' | cut -d: -f2 | tr '\n' '|')" = "## Graph Seeds|## Semantic Hits|## Final Context Files|" ] ||
    fail "text: sections out of order"
plan "the graph candidates of a plan and the noise filter" --budget 120 --trace | js "budget 120" \
    "d.tokens <= 120 && d.budget === 120 && d.selected.length >= 1 && d.trace.some(t => /^budget: /.test(t))"
# --trace in text
"$MNEMO" plan "the graph candidates of a plan" --trace >"$tmp/trace.txt"
grep -q '^## Trace (graph_first_v1' "$tmp/trace.txt" || fail "text trace"

# --legacy: the plain lexical plan
plan "the graph candidates of a plan and the noise filter" --legacy | js "legacy" \
    "d.pipeline_version === 'legacy_v0' && d.semantic_backend_used === 'none' && d.selected.length > 0 && !('fallback_reason' in d) && /^## Final Context Files/.test(d.text)"
# plan.graph_first false: legacy with the reason
"$MNEMO" config set plan.graph_first false >/dev/null
plan "the graph candidates of a plan" | js "graph_first false" \
    "d.pipeline_version === 'legacy_v0' && /plan.graph_first/.test(d.fallback_reason)"
"$MNEMO" config unset plan.graph_first >/dev/null

# fail open: a task the index cannot match falls back to the legacy plan, exit 0, with why
# (its words are made here, so that not even this file holds them)
z=zq
nonsense="${z}x${z}y${z}w ${z}v${z}k"
if plan "$nonsense" >"$tmp/open.json" 2>"$tmp/open.err"; then
    js "fail open" "d.pipeline_version === 'legacy_v0' && /no graph candidate/.test(d.fallback_reason)" <"$tmp/open.json"
else
    fail "fail open: exit status $?"
fi
"$MNEMO" plan "$nonsense" >/dev/null 2>"$tmp/open.err2" || fail "fail open: text exit status"
grep -q "graph-first plan failed" "$tmp/open.err2" || fail "fail open: said on stderr"
# plan.fail_open false: the error itself
"$MNEMO" config set plan.fail_open false >/dev/null
if "$MNEMO" plan "$nonsense" >/dev/null 2>"$tmp/closed.err"; then
    fail "fail closed: exit 0"
fi
grep -q "no graph candidate" "$tmp/closed.err" || fail "fail closed: message: $(cat "$tmp/closed.err")"
"$MNEMO" config unset plan.fail_open >/dev/null

# the config keys are checked when set
"$MNEMO" config set plan.candidate_cap 5000 2>/dev/null && fail "candidate_cap 5000 accepted"
"$MNEMO" config set plan.min_final_score 2 2>/dev/null && fail "min_final_score 2 accepted"
"$MNEMO" config set plan.candidate_cap 8 >/dev/null
plan "the graph candidates of a plan and the noise filter" | js "candidate_cap 8" "d.graph_candidate_count <= 8"
"$MNEMO" config unset plan.candidate_cap >/dev/null

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "cli_plan: ok"
