#!/usr/bin/env bash
# mcp_inspector.sh - @modelcontextprotocol/inspector 0.15.0 (pinned in
# tests/mcp/package-lock.json) in CLI mode against `mnemo mcp`: tools/list
# lists the default tools, tools/call of search and context find a saved
# memory, resources/read and prompts/get answer, and a call of an unknown
# tool fails (the Inspector exits 1 on a JSON-RPC error); then tools/list,
# tools/call and logging/setLevel against `mnemo serve` over streamable HTTP.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: EXPR holds for d = the JSON on stdin
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,800)); process.exit(1)}" || fail "$1"; }
inspector() {
    # the Inspector starts the server in its own working directory
    (cd "$tmp/repo" && node "$NM/@modelcontextprotocol/inspector/cli/build/cli.js" --cli "$MNEMO" mcp "$@")
}
inspector_url() {
    node "$NM/@modelcontextprotocol/inspector/cli/build/cli.js" --cli "$@"
}
rounding=$(node -e 'console.log(require(process.env.MCP_FIXTURE).ids.rounding)')

out=$(inspector --method tools/list) || fail "tools/list exited $?"
js "tools/list: the default tools" \
    'JSON.stringify(d.tools.map(t=>t.name).sort())===JSON.stringify(["context","feedback","forget","recall","save","search","search_code"]) && d.tools.every(t=>t.inputSchema.type==="object")' <<<"$out"

out=$(inspector --method tools/call --tool-name search --tool-arg "query=banker's rounding half to even") ||
    fail "tools/call search exited $?"
js "tools/call search finds the memory" \
    "!d.isError && d.structuredContent.items.some(i=>i.id==='$rounding') && d.content[0].type==='text'" <<<"$out"

out=$(inspector --method tools/call --tool-name context --tool-arg "query=pennies unmatched") ||
    fail "tools/call context exited $?"
js "tools/call context: Markdown" '!d.isError && /half to even/i.test(d.content[0].text)' <<<"$out"

out=$(inspector --method resources/read --uri mnemo://overview) || fail "resources/read exited $?"
js "resources/read the overview" 'd.contents[0].uri==="mnemo://overview" && d.contents[0].text.length>0' <<<"$out"

out=$(inspector --method prompts/get --prompt-name review --prompt-args "task=review the reconcile module") ||
    fail "prompts/get exited $?"
js "prompts/get review" 'd.messages.length>0 && d.messages.some(m=>/reconcile module/.test(m.content.text))' <<<"$out"

rc=0
inspector --method tools/call --tool-name no_such_tool >"$tmp/err.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "an unknown tool: the Inspector exits 1 (got $rc)"
grep -q -- '-32602\|no_such_tool' "$tmp/err.out" || fail "an unknown tool: the error names it: $(cat "$tmp/err.out")"

# the same client on streamable HTTP (a URL ending in /mcp)
mcp_serve_start
out=$(inspector_url "$MCP_URL" --method tools/list) || fail "HTTP tools/list exited $?"
js "HTTP tools/list: the default tools" 'd.tools.length===7 && d.tools.some(t=>t.name==="search_code")' <<<"$out"
out=$(inspector_url "$MCP_URL" --method tools/call --tool-name search --tool-arg "query=banker's rounding half to even") ||
    fail "HTTP tools/call search exited $?"
js "HTTP tools/call search finds the memory" \
    "!d.isError && d.structuredContent.items.some(i=>i.id==='$rounding')" <<<"$out"
out=$(inspector_url "$MCP_URL" --method logging/setLevel --log-level debug) || fail "HTTP logging/setLevel exited $?"
mcp_serve_stop

[ "$fails" = 0 ] || exit 1
echo "inspector: 9 checks passed"
