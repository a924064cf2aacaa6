#!/usr/bin/env bash
# ingest_why.sh - "why is this code like this?" and context's mode extract:
#   context --files path:lines and recall --symbols bring the commits that
#   made those lines (blame, newest first) with the decisions learnt from
#   them and their reasons, under the budget; in a clone never ingested,
#   blame alone still names the commits; the blame is cached per blob;
#   context --mode extract reads the commits made since the last one seen
#   and says what it saved and queued; run again, it reads nothing. Over
#   MCP 2025-11-25 context's answer with files, and extract's, match its
#   outputSchema.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
unset MNEMO_DB MNEMO_PROJECT
fails=0
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }

repo=$tmp/repo
mkdir -p "$repo/shop" && cd "$repo"
git init -q -b main
cat >shop/billing.py <<'EOF'
def invoice_total(lines):
    total = sum(line.amount for line in lines)
    return round(total, 2)


def describe(lines):
    return ", ".join(line.name for line in lines)
EOF
GIT_AUTHOR_DATE=2024-01-01T10:00:00Z GIT_COMMITTER_DATE=2024-01-01T10:00:00Z git add -A
GIT_AUTHOR_DATE=2024-01-01T10:00:00Z GIT_COMMITTER_DATE=2024-01-01T10:00:00Z git commit -q -m "Bill orders"
cat >shop/billing.py <<'EOF'
from decimal import ROUND_HALF_UP, Decimal


def invoice_total(lines):
    total = sum(Decimal(line.amount) for line in lines)
    return total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def describe(lines):
    return ", ".join(line.name for line in lines)
EOF
git add -A
GIT_AUTHOR_DATE=2024-02-01T10:00:00Z GIT_COMMITTER_DATE=2024-02-01T10:00:00Z \
    git commit -q -m "Round invoice totals half-up instead of banker's rounding because the tax office rounds half-up"
why_sha=$(git rev-parse HEAD)
mn init >/dev/null
mn ingest git >/dev/null

mn --json context "how are invoice totals rounded" --files shop/billing.py:4-6 >"$tmp/ctx.json"
js "why: the heading, the commit, the decision and its reason" "d.markdown.includes('## Why the code is like this') && d.markdown.includes('Round invoice totals half-up') && /decision: .*instead of banker's rounding.* Because: the tax office rounds half-up/.test(d.markdown) && d.items.some(i=>i.section==='history' && i.type==='commit' && i.id==='$why_sha')" <"$tmp/ctx.json"
js "within the budget" "d.tokens<=d.max_tokens && d.max_tokens===3000" <"$tmp/ctx.json"
mn --json context "how are invoice totals rounded" --files shop/billing.py:4-6 --max-tokens 300 |
    js "a small budget is kept" "d.tokens<=300"
# Over MCP 2025-11-25 the server checks the answer against context's outputSchema (an
# isError result names a field missing): the history's items carry ref and whole too,
# a commit's ref its sha (what feedback takes), a memory's its id as the Markdown prints it.
mcp_context() { # mcp_context ARGS_JSON: context's result over stdio MCP on one line
    {
        echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
        echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"context\",\"arguments\":$1}}"
    } | mn mcp 2>"$tmp/mcp.err" | grep '"id":2,'
}
for files in '"shop/billing.py:4-6"' '"shop/billing.py"'; do
    mcp_context "{\"query\":\"how are invoice totals rounded\",\"files\":[$files]}" |
        js "MCP context, files $files: the output matches its schema, history items with ref and whole" "
            !d.result.isError && (h => h.some(i=>i.type==='commit' && i.ref==='$why_sha' && i.whole===true) &&
            h.some(i=>i.type==='memory' && i.ref===i.id.slice(0,12) && i.whole===false) &&
            h.every(i=>typeof i.ref==='string' && typeof i.whole==='boolean')
            )(d.result.structuredContent.items.filter(i=>i.section==='history'))"
done
# newest first: the lines of describe() come from the first commit only; both for the whole range
mn --json recall "billing" --symbols invoice_total >"$tmp/rc.json"
js "recall: history of the symbol" "d.history.length===1 && d.history[0].commits[0].sha==='$why_sha' && d.history[0].commits[0].memories.some(m=>m.kind==='decision' && /tax office/.test(m.reason))" <"$tmp/rc.json"
mn --json recall "billing" --files shop/billing.py:1-10 |
    js "newest first" "d.history[0].commits.length===2 && d.history[0].commits[0].sha==='$why_sha' && d.history[0].commits[0].date>d.history[0].commits[1].date"
[ "$(sqlite3 .mnemo/mnemo.db 'SELECT count(*) FROM blame_cache')" -ge 1 ] || fail "the blame was not cached"

# a clone never ingested: blame alone names the commits
git clone -q "$repo" "$tmp/clone"
cd "$tmp/clone"
mn init >/dev/null
mn --json context "rounding" --files shop/billing.py:4-6 |
    js "blame without an ingest" "d.markdown.includes('Round invoice totals half-up') && d.items.some(i=>i.type==='commit' && i.id==='$why_sha')"

# extract: the commits since the last one seen
cd "$repo"
cat >requirements.txt <<'EOF'
babel>=2.12
EOF
git add -A && git commit -q -m "Format amounts with babel"
mn --json context --mode extract >"$tmp/ex.json"
js "extract: read and reported" "d.mode==='extract' && d.extract.commits.ingested===1 && /Added dependency babel>=2.12/.test(d.markdown) && d.items.some(i=>i.section==='extracted') && d.tokens<=d.max_tokens" <"$tmp/ex.json"
mn --json context --mode extract | js "extract again: nothing new" "d.extract.commits.ingested===0"
# over MCP too, the extract's answer matches context's outputSchema
echo 'requests>=2.31' >>requirements.txt
git add -A && git commit -q -m "Fetch rates with requests"
mcp_context '{"mode":"extract"}' |
    js "MCP context, mode extract: the output matches its schema" "!d.result.isError &&
        d.result.structuredContent.tokenizer==='estimate' && d.result.structuredContent.complete===true &&
        d.result.structuredContent.items.some(i=>i.section==='extracted' && i.ref===i.id.slice(0,12) && i.whole===false)"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_why" || exit 1
