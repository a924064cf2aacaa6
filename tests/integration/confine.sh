#!/usr/bin/env bash
# confine.sh - nothing outside the project root is read, and a project's
# index is never replaced by another directory's.
#
#   paths      context --path and recall --repo-path (the default MCP tools,
#              over stdio and HTTP too), index, status and discover with a
#              directory outside the repository, or a link inside it that
#              points outside, are refused with one error; the index keeps
#              its files, and search_code finds nothing from outside
#   inside     a directory inside the repository names the repository: the
#              whole project is indexed, not the part
#   links      a file link to a secret, a link to a directory (~/.ssh), and
#              a .mnemoignore that is a link outside are never read
#   files      context's files outside the project are left out with a note,
#              never read; an absolute path inside it is the project's file
#   fifos      a named pipe inside the project given as a transcript, an
#              issue export or a document is refused at once, never waited
#              on (a request worker would hang on it)
#   root       a store named by --db records the root it indexes; another
#              directory is refused with what to do; a question asked from
#              elsewhere refreshes the recorded root
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-confine.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
# js DESC EXPR < json: EXPR over the parsed JSON in d must be true
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 600)); process.exit(1) }" || fail "$1"
}
# refused DESC ARGS...: mnemo exits non-zero with one stderr line saying the path is outside
refused() {
    local what=$1 rc=0
    shift
    "$MNEMO" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" = 0 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "outside the project root" "$tmp/err"; then
        fail "$what: exit $rc, stderr: $(head -c 400 "$tmp/err")"
    fi
}
# an hour on: every question finds the index older than index.refresh_age
later=$(($(date +%s) * 1000 + 3600000))

# ---- a repository, secrets beside it, links inside it pointing at them -----
mkdir -p "$HOME/.ssh" "$tmp/outside" "$tmp/repo/shop"
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOutsideKeyMaterial7 alice@laptop' >"$HOME/.ssh/authorized_keys"
printf 'password = "hunter2-outside-secret"\n' >"$tmp/outside/creds.py"
printf '*.py\n' >"$tmp/outside/rules"
cd "$tmp/repo"
git init -q
printf 'def checkout(cart):\n    """Charge the cart."""\n    return cart.total\n' >shop/cart.py
printf 'def refund(order):\n    return order.total\n' >shop/refund.py
printf '# Shop\n\nA small shop.\n' >README.md
ln -s "$tmp/outside/creds.py" leak.py
ln -s "$HOME/.ssh" keys
ln -s "$tmp/outside" escape
ln -s "$tmp/outside/rules" .mnemoignore
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null 2>"$tmp/err" || fail "index: $(cat "$tmp/err")"
"$MNEMO" --json files >"$tmp/out"
js "the index holds the repository's files, read through no link" \
    "d.total === 3 && d.files.map(f => f.path).sort().join() === 'README.md,shop/cart.py,shop/refund.py'" <"$tmp/out"
"$MNEMO" call search_code '{"query":"password hunter2 outside secret"}' >"$tmp/out"
js "no secret behind a link is indexed" "!JSON.stringify(d).includes('hunter2')" <"$tmp/out"
"$MNEMO" call search_code '{"query":"ssh-ed25519 alice laptop authorized_keys"}' >"$tmp/out"
js "nothing under a linked directory is indexed" "!JSON.stringify(d).includes('OutsideKeyMaterial')" <"$tmp/out"

files_unchanged() {
    "$MNEMO" --json files >"$tmp/files"
    js "$1: the index still holds the repository" \
        "d.total === 3 && d.files.every(f => !/creds|authorized|rules/.test(f.path))" <"$tmp/files"
}

# ---- context, recall, index, status, discover with a path outside -----------
MNEMO_NOW_MS=$later refused "context --path outside" context "password" --path "$tmp/outside"
files_unchanged "context --path outside"
MNEMO_NOW_MS=$later refused "context --path ~/.ssh" context "keys" --path "$HOME/.ssh"
MNEMO_NOW_MS=$later refused "recall --repo-path outside" recall "password" --repo-path "$tmp/outside"
MNEMO_NOW_MS=$later refused "context --path through a link inside" context "password" --path "$tmp/repo/escape"
MNEMO_NOW_MS=$later refused "context --path with .." context "password" --path "$tmp/repo/shop/../../outside"
refused "index outside" index "$tmp/outside"
refused "status outside" status "$tmp/outside"
refused "discover outside" discover "$tmp/outside"
files_unchanged "index, status and discover outside"
"$MNEMO" call search_code '{"query":"password hunter2 outside secret"}' >"$tmp/out"
js "search_code still finds nothing from outside" "!JSON.stringify(d).includes('hunter2')" <"$tmp/out"
grep -q "give it a store of its own" "$tmp/err" || fail "the refusal says what to do: $(cat "$tmp/err")"

# ---- a directory inside names the repository -------------------------------
MNEMO_NOW_MS=$later "$MNEMO" --json context "checkout cart" --path "$tmp/repo/shop" >"$tmp/out" ||
    fail "context --path inside the repository"
js "a path inside refreshes the whole repository" \
    "d.notes.some(n => n.includes('indexed again') && n.endsWith('$tmp/repo'))" <"$tmp/out"
files_unchanged "context --path inside"
"$MNEMO" --json index shop >"$tmp/out" || fail "index of a directory inside"
js "index of a part indexes the project" "d.root === '$tmp/repo' && d.files === 3" <"$tmp/out"

# ---- files outside the project are left out and said so -------------------
"$MNEMO" --json context "charge the cart" --files "$tmp/outside/creds.py:1-3" --files ../outside/creds.py \
    --files "$tmp/repo/shop/cart.py:1-3" >"$tmp/out" || fail "context with files outside"
js "files outside are left out with a note" \
    "d.notes.some(n => n.startsWith('left out of files') && n.includes('outside/creds.py:1-3') && n.includes(\"'../outside/creds.py'\"))" <"$tmp/out"
js "an absolute path inside is the project's file" "d.items.some(i => i.path === 'shop/cart.py')" <"$tmp/out"
js "nothing outside is read" "!JSON.stringify(d).includes('hunter2')" <"$tmp/out"

# ---- a named pipe is not a file: refused at once, never waited on ----------
mkfifo t.jsonl issues.json notes.md
for cmd in "capture t.jsonl" "ingest issues issues.json" "doc --path notes.md"; do
    rc=0
    # shellcheck disable=SC2086 # the words of cmd are the command's
    timeout 20 "$MNEMO" $cmd >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$cmd on a named pipe: exit $rc (124: it waited)"
    grep -Eq 'not a regular file|not a text document' "$tmp/err" || fail "$cmd on a named pipe: $(cat "$tmp/err")"
done
rc=0
timeout 20 "$MNEMO" call capture '{"transcript_path":"t.jsonl"}' >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "call capture on a named pipe: exit $rc"
rm t.jsonl issues.json notes.md

# ---- the default MCP tools: stdio ------------------------------------------
{
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"context\",\"arguments\":{\"query\":\"password\",\"path\":\"$HOME/.ssh\"}}}"
    echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"recall\",\"arguments\":{\"query\":\"password\",\"repo_path\":\"$tmp/outside\"}}}"
} | MNEMO_NOW_MS=$later "$MNEMO" mcp >"$tmp/mcp.out" 2>"$tmp/mcp.err" || fail "mnemo mcp exited non-zero"
for id in 2 3; do
    grep "\"id\":$id," "$tmp/mcp.out" >"$tmp/out" || true
    js "MCP stdio call $id: an error result naming the project root" \
        "d.result && d.result.isError === true && d.result.content[0].text.includes('outside the project root')" <"$tmp/out"
done
files_unchanged "MCP stdio"

# ---- the default MCP tools: streamable HTTP --------------------------------
: >"$tmp/server.err"
MNEMO_NOW_MS=$later "$MNEMO" serve --port 0 2>"$tmp/server.err" &
server_pid=$!
url=
for _ in $(seq 1 600); do
    url=$(grep -o 'http://[^ ]*/mcp' "$tmp/server.err" || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
done
if [ -z "$url" ]; then
    fail "mnemo serve did not start: $(cat "$tmp/server.err")"
else
    H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
    curl -s -D "$tmp/headers" -o "$tmp/out" "${H[@]}" -X POST "$url" --data-binary \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
    sid=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^Mcp-Session-Id: //Ip' | head -n 1)
    H+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
    curl -s -o /dev/null "${H[@]}" -X POST "$url" --data-binary '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    curl -s -o "$tmp/out" "${H[@]}" -X POST "$url" --data-binary \
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"context\",\"arguments\":{\"query\":\"password\",\"path\":\"$tmp/outside\"}}}"
    js "MCP HTTP context: an error result" \
        "d.result && d.result.isError === true && d.result.content[0].text.includes('outside the project root')" <"$tmp/out"
    curl -s -o "$tmp/out" "${H[@]}" -X POST "$url" --data-binary \
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"recall\",\"arguments\":{\"query\":\"keys\",\"repo_path\":\"$HOME/.ssh\"}}}"
    js "MCP HTTP recall: an error result" \
        "d.result && d.result.isError === true && d.result.content[0].text.includes('outside the project root')" <"$tmp/out"
    kill -TERM "$server_pid"
    wait "$server_pid" || true
    server_pid=
fi
files_unchanged "MCP HTTP"

# ---- a store named by --db records its root ---------------------------------
ext=$tmp/ext/mnemo.db
mkdir -p "$tmp/ext"
cd "$tmp"
"$MNEMO" --db "$ext" index "$tmp/repo" >/dev/null 2>&1 || fail "--db store: first index"
rc=0
"$MNEMO" --db "$ext" index "$tmp/outside" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q "outside the project root '$tmp/repo'" "$tmp/err" &&
    grep -q "'mnemo init' there, or --db PATH" "$tmp/err" ||
    fail "--db store: another root refused with what to do (exit $rc): $(cat "$tmp/err")"
"$MNEMO" --db "$ext" --json files >"$tmp/out"
js "--db store: still the repository's files" "d.total === 3" <"$tmp/out"
# asked from outside any repository, a question refreshes the recorded root
(cd / && MNEMO_NOW_MS=$later "$MNEMO" --db "$ext" --json context "checkout cart") >"$tmp/out" ||
    fail "--db store: context from elsewhere"
js "--db store: the recorded root is refreshed" \
    "d.notes.some(n => n.includes('indexed again') && n.endsWith('$tmp/repo'))" <"$tmp/out"
# a store that has indexed nothing takes no path from a question outside the repository around it
rc=0
(cd "$tmp/repo" && MNEMO_NOW_MS=$later "$MNEMO" --db "$tmp/fresh.db" context "x" --path "$tmp/outside") \
    >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "no repository yet\|outside" "$tmp/err" ||
    fail "a fresh --db store: context --path outside refused (exit $rc): $(cat "$tmp/err")"
if [ -e "$tmp/fresh.db" ]; then
    "$MNEMO" --db "$tmp/fresh.db" --json files >"$tmp/out"
    js "a fresh --db store indexed nothing from outside" "d.total === 0" <"$tmp/out"
fi

[ "$failures" = 0 ] || {
    echo "$failures check(s) failed"
    exit 1
}
echo "confine: all checks passed"
