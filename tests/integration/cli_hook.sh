#!/usr/bin/env bash
# cli_hook.sh - `mnemo hook claude-code` on a real store in a git repository
# made here, fed the JSON Claude Code writes: UserPromptSubmit answers with
# valid hook JSON whose additionalContext holds the saved memory; PreToolUse
# of the sub-agent tool (Task, or Agent since Claude Code 2.1.63) extends
# the prompt through updatedInput (the context, then the plan of files:
# Graph Seeds, Semantic Hits, Final Context Files within MNEMO_PLAN_BUDGET
# tokens) and keeps the other fields; a prompt
# nothing matches, a trivial prompt, another tool or event, a budget of 0:
# nothing. Whatever is wrong (garbage, not an object, bad cwd, no store,
# oversize input) gives empty stdout, exit 0 and one line on stderr, and
# never creates a store; outside any repository: nothing at all (hook_quiet.sh has more).
# The budget (config hook.max_tokens) bounds the text. A stale
# index is used as it is and re-indexed in the background, one re-index at a time.
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
check() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,800)); process.exit(1)}" || fail "$1"; }
# hook INPUT: run the hook; stdout in $tmp/out, stderr in $tmp/err, exit status checked
hook() {
    local rc=0
    printf '%s' "$1" | "$MNEMO" hook claude-code >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || fail "hook exits 0 (got $rc) for: ${1:0:80}"
}
silent() { # $1: what; the last hook printed nothing and one line on stderr
    [ ! -s "$tmp/out" ] || fail "$1: stdout is empty (got $(head -c 200 "$tmp/out"))"
    [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$1: one line on stderr (got: $(cat "$tmp/err"))"
}
nothing() { # $1: what; nothing on stdout, nothing on stderr (not an error)
    [ ! -s "$tmp/out" ] || fail "$1: stdout is empty (got $(head -c 200 "$tmp/out"))"
    [ ! -s "$tmp/err" ] || fail "$1: stderr is empty (got $(cat "$tmp/err"))"
}
json() { node -e "console.log(JSON.stringify(process.argv[1]))" "$1"; }

repo=$tmp/repo
mkdir -p "$repo/shop/cart"
cd "$repo"
git init -q
cat >shop/cart/session.py <<'PY'
def refresh_session(session, delay=None):
    """Extend the cart session by its delay (default 30 seconds)."""
    session.expires = now() + (delay or 30)
PY
git add -A
"$MNEMO" init >/dev/null
"$MNEMO" save "Cart sessions expire after 30 seconds unless refresh_session is called; checkout must refresh the session first or the cart is lost" \
    --title "Cart session expiry during checkout" --kind gotcha >/dev/null
"$MNEMO" index >/dev/null 2>&1

q="why does the cart session expire during checkout?"
ups="{\"session_id\":\"s1\",\"transcript_path\":\"/x.jsonl\",\"cwd\":\"$repo/shop\",\"permission_mode\":\"default\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$q")}"
hook "$ups"
check "UserPromptSubmit answer" "d.hookSpecificOutput.hookEventName==='UserPromptSubmit' && d.hookSpecificOutput.additionalContext.includes('Cart session expiry during checkout') && Object.keys(d).length===1" <"$tmp/out"
[ ! -s "$tmp/err" ] || fail "UserPromptSubmit: quiet stderr: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out")" = 1 ] || fail "one line of JSON on stdout"
full=$(wc -c <"$tmp/out")

task() { # tool name, prompt
    echo "{\"session_id\":\"s1\",\"cwd\":\"$repo\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"$1\",\"tool_use_id\":\"toolu_1\",\"tool_input\":{\"description\":\"Look into expiry\",\"prompt\":$(json "$2"),\"subagent_type\":\"general-purpose\"}}"
}
sub="Find where the cart session expiry is handled during checkout and fix it"
for tool in Task Agent; do
    hook "$(task $tool "$sub")"
    check "PreToolUse $tool extends the prompt" "((h, u) => h.hookEventName==='PreToolUse' && h.permissionDecision==='allow' && u.prompt.startsWith($(json "$sub")+'\n\n<project-memory') && u.prompt.includes('Cart session expiry during checkout') && u.prompt.endsWith('</project-memory>') && u.description==='Look into expiry' && u.subagent_type==='general-purpose' && Object.keys(u).length===3)(d.hookSpecificOutput, d.hookSpecificOutput.updatedInput)" <"$tmp/out"
done
# the sub-agent's prompt carries the plan of files for its task: the three sections, in order
check "PreToolUse: the plan's three sections" "(p => { const a = p.indexOf('## Graph Seeds\n'), b = p.indexOf('## Semantic Hits\n'), c = p.indexOf('## Final Context Files\n'); return a > 0 && b > a && c > b && /## Final Context Files\n1\. shop\/cart\/session\.py /.test(p) })(d.hookSpecificOutput.updatedInput.prompt)" <"$tmp/out"
# within MNEMO_PLAN_BUDGET tokens (o200k_base, counted by js-tiktoken); 0: no plan
deps=${MNEMO_DEPS_DIR:-${MNEMO_SOURCE_DIR:-.}/.deps}/npm
mkdir -p "$tmp/node_modules"
ln -s "$deps/js-tiktoken@1.0.21" "$tmp/node_modules/js-tiktoken"
ln -s "$deps/base64-js@1.5.1" "$tmp/node_modules/base64-js"
printf '%s' "$(task Task "$sub")" | MNEMO_PLAN_BUDGET=70 "$MNEMO" hook claude-code >"$tmp/out" 2>"$tmp/err"
NODE_PATH=$tmp/node_modules node -e "const {getEncoding}=require('js-tiktoken'); const p=JSON.parse(require('fs').readFileSync(0,'utf8')).hookSpecificOutput.updatedInput.prompt; const t=p.slice(p.indexOf('## Graph Seeds'), p.lastIndexOf('\n</project-memory>')); const n=getEncoding('o200k_base').encode(t, [], []).length; if (!(p.includes('## Final Context Files') && n <= 70 && n > 10)) { console.error(n, t); process.exit(1) }" <"$tmp/out" ||
    fail "PreToolUse: the plan within MNEMO_PLAN_BUDGET=70"
printf '%s' "$(task Task "$sub")" | MNEMO_PLAN_BUDGET=0 "$MNEMO" hook claude-code >"$tmp/out" 2>"$tmp/err"
check "PreToolUse: MNEMO_PLAN_BUDGET=0, no plan" "((u) => u.prompt.includes('Cart session expiry during checkout') && !u.prompt.includes('## Graph Seeds'))(d.hookSpecificOutput.updatedInput)" <"$tmp/out"
hook "$(task Task "$sub")"
# a prompt that already carries the memory (a hook ran twice) is left alone
extended=$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0,'utf8')).hookSpecificOutput.updatedInput.prompt)" <"$tmp/out")
hook "$(task Task "$extended")"
nothing "already extended"
hook "$(task Bash "$sub")"
nothing "another tool"

# nothing relevant, trivial prompts, other events
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"explain the zygomorphic xylophone quorum\"}"
nothing "no relevant memory"
for p in yes "go on" "ok, thanks"; do
    hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$p")}"
    nothing "trivial prompt '$p'"
done
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"Stop\",\"stop_hook_active\":false}"
nothing "unknown event"

# the budget
"$MNEMO" config set hook.max_tokens 100 >/dev/null
hook "$ups"
check "small budget still answers" "d.hookSpecificOutput.additionalContext.length>0" <"$tmp/out"
[ "$(wc -c <"$tmp/out")" -lt "$full" ] || fail "hook.max_tokens 100 gives less text ($(wc -c <"$tmp/out") vs $full)"
"$MNEMO" config set hook.max_tokens 0 >/dev/null
hook "$ups"
nothing "hook.max_tokens 0"
"$MNEMO" config unset hook.max_tokens >/dev/null
"$MNEMO" config set hook.max_tokens -1 >/dev/null 2>&1 && fail "negative budget refused"

# a stale index: the hook answers from the index as it is (no re-index while the prompt
# waits) and starts `mnemo index` in the background, which brings the new file in
"$MNEMO" config set index.refresh_age 1s >/dev/null
sleep 1.2
printf 'def apply_coupon(cart, code):\n    return cart\n' >shop/cart/coupon.py
"$MNEMO" --json files >"$tmp/files0.json"
check "the new file is not indexed yet" "!d.files.some(f => f.path === 'shop/cart/coupon.py')" <"$tmp/files0.json"
hook "$ups"
check "stale index: still answers" "d.hookSpecificOutput.additionalContext.includes('Cart session expiry during checkout')" <"$tmp/out"
[ ! -s "$tmp/err" ] || fail "stale index: quiet stderr: $(cat "$tmp/err")"
indexed=no
for _ in $(seq 100); do
    if "$MNEMO" --json files 2>/dev/null | grep '"shop/cart/coupon.py"' >/dev/null; then indexed=yes; break; fi
    sleep 0.1
done
[ "$indexed" = yes ] || fail "the background re-index brought in the new file"
# one background re-index at a time: while one runs (holds the store's re-index lock), a
# prompt on the stale index starts none; once it is done, the next prompt starts one
printf 'def drop_coupon(cart):\n    return cart\n' >shop/cart/drop.py
sleep 1.2
flock "$repo/.mnemo/mnemo.db-reindex.lock" sleep 3 &
holder=$!
sleep 0.3
hook "$ups"
sleep 2
"$MNEMO" --json files | grep '"shop/cart/drop.py"' >/dev/null && fail "no second re-index while one runs"
wait "$holder"
hook "$ups"
indexed=no
for _ in $(seq 100); do
    if "$MNEMO" --json files 2>/dev/null | grep '"shop/cart/drop.py"' >/dev/null; then indexed=yes; break; fi
    sleep 0.1
done
[ "$indexed" = yes ] || fail "a re-index starts again once the lock is free"
"$MNEMO" config unset index.refresh_age >/dev/null

# the warm path: with a `mnemo mcp` running on the store (as Claude Code runs one), the hook
# is answered by it, the same answer; when it is gone, the hook answers by itself again
hook "$ups"
cp "$tmp/out" "$tmp/cold.json"
mkfifo "$tmp/mcp.in"
MNEMO_LOG=info "$MNEMO" mcp <"$tmp/mcp.in" >/dev/null 2>"$tmp/mcp.err" &
server=$!
exec 7>"$tmp/mcp.in" # the server's stdin stays open until fd 7 closes
served=no
for _ in $(seq 100); do
    hook "$ups"
    if grep -q "warm: answered a hook's context" "$tmp/mcp.err"; then served=yes; break; fi
    sleep 0.1
done
[ "$served" = yes ] || fail "warm path: mnemo mcp answered the hook ($(cat "$tmp/mcp.err"))"
cmp -s "$tmp/out" "$tmp/cold.json" || fail "warm path: the same answer as the hook's own"
[ ! -s "$tmp/err" ] || fail "warm path: quiet stderr: $(cat "$tmp/err")"
exec 7>&-
wait "$server" || fail "mnemo mcp ends with exit 0 at the end of its input"
hook "$ups"
cmp -s "$tmp/out" "$tmp/cold.json" || fail "after the server is gone, the hook answers by itself"

# errors: empty stdout, exit 0, one line on stderr
hook 'garbage'
silent "garbage"
hook ''
silent "empty input"
hook '[1,2]'
silent "not an object"
hook '{"hook_event_name":"UserPromptSubmit","prompt":"why does the cart expire?"}'
silent "no cwd"
hook "{\"cwd\":\"shop\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"why does the cart expire?\"}"
silent "relative cwd"
hook "{\"cwd\":\"$repo/nope\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"why does the cart expire?\"}"
silent "missing cwd"
hook '{"cwd":"/no\nsuch\rdir","hook_event_name":"UserPromptSubmit","prompt":"why does the cart expire?"}'
silent "cwd with line breaks"
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":42}"
silent "prompt not a string"
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Task\",\"tool_input\":\"x\"}"
silent "tool_input not an object"
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"a\",\"prompt\":\"b\"}"
silent "duplicate keys"
mkdir -p "$tmp/other"
(cd "$tmp/other" && git init -q)
hook "{\"cwd\":\"$tmp/other\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$q")}"
silent "no store"
[ ! -e "$tmp/other/.mnemo" ] && [ ! -e "$XDG_DATA_HOME/mnemo" ] || fail "the hook never creates a store"
hook "{\"cwd\":\"$tmp\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$q")}"
nothing "outside any repository, no user store (hook_quiet.sh: with one)"
big=$(head -c 5000000 /dev/zero | tr '\0' 'a')
printf '{"cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"%s"}' "$repo" "$big" >"$tmp/big.json"
rc=0
"$MNEMO" hook claude-code <"$tmp/big.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 0 ] || fail "oversize input: exit 0"
silent "oversize input"
# a long prompt (over context's 32768-character query) is cut, not refused
long="why does the cart session expire during checkout? $(head -c 40000 /dev/zero | tr '\0' 'x')"
hook "{\"cwd\":\"$repo\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json "$long")}"
[ ! -s "$tmp/err" ] || fail "long prompt: no error ($(cat "$tmp/err"))"

# usage: never exit 2 (Claude Code reads 2 as "block the prompt")
rc=0
echo '{}' | "$MNEMO" hook cursor >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "unknown client: exit 1, not 2 (got $rc)"

[ "$fails" = 0 ] && echo "cli_hook: all passed"
exit "$fails"
