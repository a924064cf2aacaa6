#!/usr/bin/env bash
# ingest_capture.sh - `mnemo capture` on a Claude Code transcript (the JSON
# Lines Claude Code writes; tests/data/ingest/transcripts, README there):
#   what       the decision, the error fixed by an edit (error, change,
#              passing run) and the gotcha are saved, with the excerpt, the
#              files the session edited (relative to its cwd) and the
#              session id; a sidechain's and a meta record's words are not;
#   served     the next context on a matching question serves them;
#   secrets    the token a user pasted in the session reaches no file of the
#              store (excerpts included);
#   again      a second capture of the same transcript adds nothing;
#   where      a transcript in Claude Code's directory ($HOME/.claude/projects,
#              or $CLAUDE_CONFIG_DIR/projects) or the project is read; one
#              anywhere else is refused; text works as well as a file;
#   threshold  below capture.auto_approve, candidates wait for review;
#   large      a session over 64 MiB is read from its end (skipped_bytes).
# Claude Code's Stop hook runs the same capture: hook_capture.sh.
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
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
T=$MNEMO_TEST_DATA/ingest/transcripts/claude_session.jsonl
S=8b7f3c2e-5d41-4a8e-9c60-2f1e7a9b0d13

repo=$tmp/repo
mkdir -p "$repo/shop" && cd "$repo"
git init -q -b main
echo 'def invoice_total(lines): return sum(lines)' >shop/billing.py
mn init >/dev/null
cc=$HOME/.claude/projects/-home-ada-shop
mkdir -p "$cc"
cp "$T" "$cc/$S.jsonl"

mn --json capture "$cc/$S.jsonl" >"$tmp/cap.json"
js "candidates" "d.session_id==='$S' && d.candidates.decision===1 && d.candidates.fix===1 && d.candidates.gotcha===1 && d.files_touched.length===1 && d.files_touched[0]==='shop/billing.py'" <"$tmp/cap.json"
mn export --format json | node -e "console.log(JSON.stringify({memories: JSON.parse(require('fs').readFileSync(0))}))" >"$tmp/all.json"
js "the decision" "d.memories.some(m=>m.kind==='decision' && m.title==='We decided to keep money as Decimal everywhere instead of floats' && /float rounding broke/.test(m.context.situation) && m.provenance.session==='$S' && m.provenance.source==='agent' && m.context.files_modified.includes('shop/billing.py') && /Assistant: All 5 checkout tests pass/.test(m.context.conversation_excerpt))" <"$tmp/all.json"
js "the fixed error" "d.memories.some(m=>m.kind==='fewshot' && /TypeError: unsupported operand/.test(m.title) && m.context.error_messages.length===1 && /convert each line amount to Decimal/.test(m.context.solution) && m.scope.paths.includes('shop/billing.py') && m.status==='active' && m.confidence>=0.85)" <"$tmp/all.json"
js "the gotcha" "d.memories.some(m=>m.kind==='gotcha' && /rounds half-up/.test(m.title) && /gateway rounds again/.test(m.context.situation))" <"$tmp/all.json"
js "no sidechain, no meta" "!d.memories.some(m=>/Rust/.test(m.title) || /command-name/.test(JSON.stringify(m)))" <"$tmp/all.json"
js "through the save pipeline: extraction auto, judged" "d.memories.length===3 && d.memories.every(m=>m.provenance.extraction_method==='auto' && typeof m.judgement.score==='number')" <"$tmp/all.json"

# served by the next context
mn --json context "checkout total TypeError float and Decimal" >"$tmp/ctx.json"
js "context serves the fix and the decision" "d.relevant && /TypeError: unsupported operand/.test(d.markdown) && /keep money as Decimal/.test(d.markdown)" <"$tmp/ctx.json"

# the token: nowhere
for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal; do
    [ -e "$f" ] && grep -aqF FAKEq7Wm2Xr9Lk4Tz8 "$f" && fail "the session's token is in $f"
done
mn export --format json | grep -q FAKEq7Wm2Xr9Lk4Tz8 && fail "the session's token is in an export"

# again: nothing new
mn --json capture "$cc/$S.jsonl" | js "a second capture adds nothing" "d.saved===0 && d.queued===0 && d.unchanged===3"

# where a transcript may be
cp "$T" "$tmp/elsewhere.jsonl"
if mn capture "$tmp/elsewhere.jsonl" >/dev/null 2>"$tmp/err"; then fail "a transcript outside the allowed places was read"; fi
grep -q "outside the project" "$tmp/err" || fail "outside: $(cat "$tmp/err")"
export CLAUDE_CONFIG_DIR=$tmp/cfg
mkdir -p "$tmp/cfg/projects/x" && cp "$T" "$tmp/cfg/projects/x/t.jsonl"
mn --json capture "$tmp/cfg/projects/x/t.jsonl" | js "CLAUDE_CONFIG_DIR's projects" "d.turns>0"
if mn capture "$cc/$S.jsonl" >/dev/null 2>&1; then fail "with CLAUDE_CONFIG_DIR set, ~/.claude is not Claude Code's directory"; fi
unset CLAUDE_CONFIG_DIR

# text, and the threshold
repo2=$tmp/repo2
mkdir -p "$repo2" && cd "$repo2" && git init -q -b main && mn init >/dev/null
mn config set capture.auto_approve 0.99 >/dev/null
mn --json capture --text "We decided to use Celery instead of cron jobs because retries come for free.

Turns out the broker drops messages over 256 KB, so split large payloads." |
    js "text: candidates pending under 0.99" "d.candidates.decision===1 && d.candidates.gotcha===1 && d.saved===0 && d.queued===2"
mn --json review --all-from agent | js "the review queue lists them" "d.memories.length===2 && d.memories.every(m=>m.status==='pending')"
if mn capture >/dev/null 2>"$tmp/err"; then fail "capture with nothing succeeded"; fi

# a session over 64 MiB (long tool outputs) is read from its end: its last turns are there
node -e "const fs = require('fs'), line = JSON.stringify({type: 'summary', summary: 'x'.repeat(1 << 20)}) + '\n';
const fd = fs.openSync('$cc/big.jsonl', 'w');
for (let i = 0; i < 65; i++) fs.writeSync(fd, line);
fs.writeSync(fd, fs.readFileSync('$T')); fs.closeSync(fd)"
mn --json capture "$cc/big.jsonl" >"$tmp/big.json" 2>"$tmp/err" || fail "a transcript over 64 MiB: $(cat "$tmp/err")"
js "over 64 MiB: its start is skipped, its last turns read" \
    "d.skipped_bytes > 0 && d.candidates.decision === 1 && d.candidates.fix === 1" <"$tmp/big.json"
rm -f "$cc/big.jsonl"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_capture" || exit 1
