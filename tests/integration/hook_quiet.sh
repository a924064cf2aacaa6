#!/usr/bin/env bash
# hook_quiet.sh - what `mnemo hook claude-code` says and records, fed the
# JSON Claude Code writes, on a real store in a git repository made here:
#  - conversational turns ("yes, go ahead", "thanks", "looks good,
#    continue") get nothing, a task prompt gets the context;
#  - the overview comes with a session's first prompt only; later prompts
#    of the same session carry no overview line that does not share a
#    word with them; another session gets it again;
#  - outside any repository: nothing on stdout or stderr, exit 0, with and
#    without a per-user store holding another project's overview and
#    memories; MNEMO_DB naming a store makes it answer; `mnemo mcp` there
#    refuses to start unless a store is named;
#  - implicit feedback: a PostToolUse Read of a file the context served
#    marks what was served at it used (the memory's counter moves), a
#    Read of a file outside the repository or of a file nothing served
#    changes nothing, and Stop counts the rest ignored, once;
#  - explicit feedback with the ids the context printed moves the
#    counters; a made-up id is refused and nothing moves.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/xdg
unset MNEMO_DB
mkdir -p "$HOME"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1200)); process.exit(1)}" || fail "$1"; }
hook() {
    local rc=0
    printf '%s' "$1" | "$MNEMO" hook claude-code >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || fail "hook exits 0 (got $rc) for: ${1:0:80}"
}
nothing() {
    [ ! -s "$tmp/out" ] || fail "$1: stdout is empty (got $(head -c 300 "$tmp/out"))"
    [ ! -s "$tmp/err" ] || fail "$1: stderr is empty (got $(cat "$tmp/err"))"
}
json() { node -e "console.log(JSON.stringify(process.argv[1]))" "$1"; }
ups() { # session cwd prompt
    echo "{\"session_id\":\"$1\",\"transcript_path\":\"/x.jsonl\",\"cwd\":\"$2\",\"permission_mode\":\"default\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$3")}"
}
post() { # session cwd tool file
    echo "{\"session_id\":\"$1\",\"transcript_path\":\"/x.jsonl\",\"cwd\":\"$2\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"$3\",\"tool_use_id\":\"toolu_9\",\"tool_input\":{\"file_path\":\"$4\"},\"tool_response\":{\"type\":\"text\",\"file\":{\"filePath\":\"$4\"}}}"
}
stop() { echo "{\"session_id\":\"$1\",\"transcript_path\":\"/x.jsonl\",\"cwd\":\"$2\",\"hook_event_name\":\"Stop\",\"stop_hook_active\":false}"; }
counter() { "$MNEMO" show --json "$1" | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memory.counters.$2)"; }

repo=$tmp/repo
mkdir -p "$repo/shop/cart" "$repo/docs"
cd "$repo"
git init -q
cat >shop/cart/session.py <<'PY'
def refresh_session(session, delay=None):
    """Extend the cart session by its delay (default 30 seconds)."""
    session.expires = now() + (delay or 30)

refresh = refresh_session
PY
cat >shop/cart/billing.py <<'PY'
def export_invoices(month):
    """Write the month's invoices to the billing bucket."""
    return month
PY
cat >docs/intro.md <<'MD'
# Intro
Ah yes, go ahead and read the guide; thanks for looking, continue below.
MD
git add -A
"$MNEMO" init >/dev/null
gotcha=$("$MNEMO" call save --json "{\"kind\":\"gotcha\",\"title\":\"Cart session expiry during checkout\",\"body\":\"Cart sessions expire after 30 seconds unless refresh_session is called.\",\"context\":{\"solution\":\"Call refresh_session before checkout.\",\"files_modified\":[\"shop/cart/session.py\"]}}" |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
decision=$("$MNEMO" call save --json "{\"kind\":\"decision\",\"title\":\"Cart sessions expire after 30 seconds\",\"body\":\"The cart session delay is 30 seconds.\",\"context\":{\"situation\":\"long cart sessions kept checkout rows locked\"}}" |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
"$MNEMO" index >/dev/null 2>&1

# conversational turns: nothing (the docs page says "yes", "go ahead", "thanks", "continue")
for p in "yes, go ahead" "thanks" "looks good, continue" "ok thanks, keep going" "perfect!" \
    "can you run the tests again?" "hmm, that didn't work. try a different approach"; do
    hook "$(ups chat "$repo" "$p")"
    nothing "conversational turn '$p'"
done
# an identifier alone is a question about the code
hook "$(ups chat "$repo" "what about refresh_session?")"
check "an identifier alone is asked about" "d.hookSpecificOutput.additionalContext.includes('refresh_session')" <"$tmp/out"

# the overview once per session
q1="why does the cart session expire during checkout?"
hook "$(ups s1 "$repo" "$q1")"
cp "$tmp/out" "$tmp/s1a.json"
check "first prompt: the overview" "/## Project\n/.test(d.hookSpecificOutput.additionalContext) && d.hookSpecificOutput.additionalContext.includes('Main language: Python') && d.hookSpecificOutput.additionalContext.includes('Cart session expiry during checkout')" <"$tmp/out"
check "a reason per item" "/Cart session expiry during checkout \([0-9A-Z]{12}\) -- matches /.test(d.hookSpecificOutput.additionalContext)" <"$tmp/out"
check "code with its lines, from path:line" "/- \`shop\/cart\/session.py:1\`[^\n]*\n  \`\`\`python\n  def refresh_session\(session, delay=None\):\n/.test(d.hookSpecificOutput.additionalContext)" <"$tmp/out"
check "no alias offered" "!/refresh = refresh_session/.test(d.hookSpecificOutput.additionalContext)" <"$tmp/out"
hook "$(ups s1 "$repo" "and where is the cart session refreshed?")"
cp "$tmp/out" "$tmp/s1b.json"
check "later prompt of the session: no overview line without its words" "!d.hookSpecificOutput.additionalContext.includes('Main language: Python') && d.hookSpecificOutput.additionalContext.includes('refresh_session')" <"$tmp/out"
hook "$(ups s2 "$repo" "and where is the cart session refreshed?")"
check "another session: the overview again" "d.hookSpecificOutput.additionalContext.includes('Main language: Python')" <"$tmp/out"

# outside any repository: nothing, with no per-user store and with one filled from elsewhere
mkdir -p "$tmp/outside"
hook "$(ups s3 "$tmp/outside" "$q1")"
nothing "outside, no per-user store"
(cd "$tmp/outside" && "$MNEMO" save --kind gotcha --title "Cart session expiry in the other shop" \
    "Cart sessions of the other shop expire after idle; checkout refreshes the cart session." >/dev/null &&
    "$MNEMO" save --level L0 --title "Main language: Rust (the other project)" "Rust" >/dev/null)
[ -s "$XDG_DATA_HOME/mnemo/mnemo.db" ] || fail "the per-user store was filled"
hook "$(ups s3 "$tmp/outside" "$q1")"
nothing "outside, per-user store filled"
hook "$(post s3 "$tmp/outside" Read "$tmp/outside/x.py")"
nothing "outside: PostToolUse"
hook "$(stop s3 "$tmp/outside")"
nothing "outside: Stop"
MNEMO_DB=$XDG_DATA_HOME/mnemo/mnemo.db hook "$(ups s3 "$tmp/outside" "$q1")"
check "a store named by MNEMO_DB answers" "d.hookSpecificOutput.additionalContext.includes('other shop')" <"$tmp/out"
# MCP outside any repository: no server on the per-user store, unless a store is named
rc=0
(cd "$tmp/outside" && "$MNEMO" mcp </dev/null >"$tmp/out" 2>"$tmp/err") || rc=$?
[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] ||
    fail "mcp outside a repository refuses to start (rc $rc: $(cat "$tmp/err"))"
rc=0
(cd "$tmp/outside" && MNEMO_DB=$XDG_DATA_HOME/mnemo/mnemo.db "$MNEMO" mcp </dev/null >"$tmp/out" 2>"$tmp/err") || rc=$?
[ "$rc" = 0 ] || fail "mcp outside a repository with MNEMO_DB starts (rc $rc: $(cat "$tmp/err"))"

# implicit feedback: a Read of the served file marks the gotcha (it modified that file) used,
# once in each answer of session s1 that served it; Stop counts the decision ignored in each
# answer that served it and the gotcha in none
served_in() { # short id: how many of s1's answers show it
    cat "$tmp/s1a.json" "$tmp/s1b.json" | grep -c "(${1:0:12})" || true
}
g_answers=$(served_in "$gotcha")
d_answers=$(served_in "$decision")
[ "$g_answers" -ge 1 ] && [ "$d_answers" -ge 1 ] || fail "s1 served the gotcha ($g_answers) and the decision ($d_answers)"
[ "$(counter "$gotcha" used)" = 0 ] || fail "the gotcha starts unused"
hook "$(post s1 "$repo/shop" Read "$repo/shop/cart/billing.py")"
nothing "PostToolUse: no output"
[ "$(counter "$gotcha" used)" = 0 ] || fail "a file nothing served changes nothing"
hook "$(post s1 "$repo/shop" Read "/etc/hostname")"
nothing "PostToolUse outside the repository"
hook "$(post s1 "$repo/shop" Read "$repo/shop/cart/session.py")"
nothing "PostToolUse: no output"
[ "$(counter "$gotcha" used)" = "$g_answers" ] || fail "a Read of the served file marks the gotcha used in each answer that served it (got $(counter "$gotcha" used), want $g_answers)"
hook "$(post s1 "$repo/shop" Edit "$repo/shop/cart/session.py")"
[ "$(counter "$gotcha" used)" = "$g_answers" ] || fail "once per answer and item"
# Stop: the rest of the session's answers counts as ignored, once
[ "$(counter "$decision" ignored)" = 0 ] || fail "the decision starts not ignored"
hook "$(stop s1 "$repo")"
nothing "Stop: no output"
[ "$(counter "$decision" ignored)" = "$d_answers" ] || fail "Stop: the untouched decision counts ignored in each answer that served it (got $(counter "$decision" ignored), want $d_answers)"
[ "$(counter "$gotcha" ignored)" = 0 ] || fail "Stop: what was used is not ignored"
hook "$(stop s1 "$repo")"
[ "$(counter "$decision" ignored)" = "$d_answers" ] || fail "a second Stop counts nothing again"
hook "$(post s1 "$repo" Read "$repo/shop/cart/session.py")"
[ "$(counter "$gotcha" used)" = "$g_answers" ] || fail "settled answers take no more feedback"

# explicit feedback with the printed ids: served id and short id, path:line of code
"$MNEMO" context --json "why does the cart session expire during checkout" >"$tmp/c.json"
served=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).served)" <"$tmp/c.json")
short=$(node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); console.log(d.items.find(i=>i.id==='$decision').ref)" <"$tmp/c.json")
code=$(node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); console.log(d.items.find(i=>i.section==='code').ref)" <"$tmp/c.json")
check "the markdown names the served id and the short ids" "d.markdown.includes('Answer $served') && d.markdown.includes('($short)') && d.markdown.includes('\`$code\`')" <"$tmp/c.json"
used=$(counter "$decision" used)
"$MNEMO" feedback used --served "$served" --item "$short,$code" >"$tmp/fb.txt"
grep -q "recorded 2" "$tmp/fb.txt" || fail "feedback with printed ids: $(cat "$tmp/fb.txt")"
[ "$(counter "$decision" used)" = $((used + 1)) ] || fail "explicit feedback moved the counter"
rc=0
"$MNEMO" feedback used --served "$served" --item "01NOPE00000000000000000000" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || fail "a made-up id is refused with one line (rc $rc: $(cat "$tmp/err"))"
grep -q "01NOPE00000000000000000000" "$tmp/err" || fail "the error names the id"
[ "$(counter "$decision" used)" = $((used + 1)) ] || fail "a refused feedback moves nothing"
"$MNEMO" feedback refined --served "$served" --query "cart session lifetime setting" >"$tmp/fb.txt" ||
    fail "refined takes the new query"

[ "$fails" = 0 ] && echo "hook_quiet: all passed"
exit "$fails"
