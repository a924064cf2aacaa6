#!/usr/bin/env bash
# hook_capture.sh - Claude Code's Stop hook captures the session: `mnemo hook
# claude-code` given the Stop JSON (the real format: session_id,
# transcript_path under ~/.claude/projects, cwd, hook_event_name,
# stop_hook_active) answers at once with nothing, and a process of its own
# saves what the transcript (tests/data/ingest/transcripts) decided and
# fixed, scrubbed of the token pasted in it; the next context serves them.
# A Stop outside a project, or for a project without a store, starts
# nothing and creates no store; a second Stop saves nothing twice.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_TEST_DATA:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MNEMO_DB MNEMO_PROJECT CLAUDE_CONFIG_DIR
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
T=$MNEMO_TEST_DATA/ingest/transcripts/claude_session.jsonl
S=8b7f3c2e-5d41-4a8e-9c60-2f1e7a9b0d13

repo=$tmp/repo
mkdir -p "$repo/shop" && cd "$repo"
git init -q -b main
echo 'def invoice_total(lines): return sum(lines)' >shop/billing.py
mn init >/dev/null
cc=$HOME/.claude/projects/-tmp-repo
mkdir -p "$cc"
cp "$T" "$cc/$S.jsonl"
stop() { # stop DIR: the hook's JSON for a Stop in DIR
    node -e 'console.log(JSON.stringify({session_id: process.argv[1], transcript_path: process.argv[2],
        cwd: process.argv[3], hook_event_name: "Stop", stop_hook_active: false}))' "$S" "$cc/$S.jsonl" "$1"
}
# count of the captured memories, once the background capture has let go of its lock
captured() {
    for _ in $(seq 100); do
        if flock -n .mnemo/mnemo.db-capture.lock true 2>/dev/null; then
            n=$(mn --json list --source agent | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).total)")
            [ "$n" -gt 0 ] && { echo "$n"; return; }
        fi
        sleep 0.1
    done
    echo 0
}

stop "$repo" | mn hook claude-code >"$tmp/out" 2>"$tmp/err" || fail "the Stop hook exits 0"
[ -s "$tmp/out" ] && fail "the Stop hook prints nothing: $(cat "$tmp/out")"
[ -s "$tmp/err" ] && fail "the Stop hook is quiet on stderr: $(cat "$tmp/err")"
n=$(captured)
[ "$n" = 3 ] || fail "the Stop hook captured the decision, the fix and the gotcha (got $n)"
mn export --format json | node -e "console.log(JSON.stringify({memories: JSON.parse(require('fs').readFileSync(0)).filter(m=>m.provenance.source==='agent')}))" |
    js "the captured memories, extraction auto, with the session" \
    "d.memories.length===3 && d.memories.every(m=>m.provenance.extraction_method==='auto' && m.provenance.session==='$S') && d.memories.some(m=>m.kind==='decision') && d.memories.some(m=>m.kind==='fewshot')"
mn --json context "checkout total TypeError float and Decimal" | js "the next context serves them" \
    "d.relevant && /TypeError: unsupported operand/.test(d.markdown) && /keep money as Decimal/.test(d.markdown)"
for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal; do
    [ -e "$f" ] && grep -aqF FAKEq7Wm2Xr9Lk4Tz8 "$f" && fail "the session's token is in $f"
done

# a second Stop: nothing twice
stop "$repo" | mn hook claude-code >/dev/null 2>&1 || fail "the second Stop exits 0"
sleep 0.5
n=$(captured)
[ "$n" = 3 ] || fail "a second Stop saves nothing twice (got $n)"

# no store, no project: nothing started, nothing created
bare=$tmp/bare
mkdir -p "$bare" && (cd "$bare" && git init -q -b main)
stop "$bare" | mn hook claude-code >/dev/null 2>&1 || fail "a Stop in a project without a store exits 0"
sleep 0.5
[ -e "$bare/.mnemo" ] && fail "a Stop created a store"
outside=$tmp/outside
mkdir -p "$outside"
stop "$outside" | mn hook claude-code >/dev/null 2>&1 || fail "a Stop outside a project exits 0"
sleep 0.5
[ -e "$outside/.mnemo" ] || [ -e "$tmp/xdg/mnemo" ] && fail "a Stop outside a project created a store"

[ "$fails" = 0 ] && echo "ok: hook_capture" || exit 1
