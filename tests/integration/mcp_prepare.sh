#!/usr/bin/env bash
# mcp_prepare.sh - the MCP servers do the work a save leaves for the next
# question once the save is answered: with no other request, the built-in
# model is trained when due and every memory gets its vector, without any
# search or context asking for it, and the memories' full-text index split
# by forty saves is rebuilt (mn_ctx_prepare). `mnemo mcp` (stdio):
# starting a session does nothing of the kind, a save does; `mnemo serve`
# (HTTP): the same after the reply to a save.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
command -v sqlite3 >/dev/null || { echo "the sqlite3 shell is not installed (deps/debian.txt)"; exit 1; }
tmp=$(mktemp -d)
server=
cleanup() {
    [ -z "$server" ] || kill "$server" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/xdg
unset MNEMO_DB MNEMO_PROJECT
mkdir -p "$HOME" "$tmp/repo"
cd "$tmp/repo"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$MNEMO" init >/dev/null
topics=(pottery adoption camping guitar marathon painting retriever shelter)
for t in "${topics[@]}"; do
    for i in 1 2 3 4 5; do
        "$MNEMO" save --kind fact --title "$t note $i" "the $t plans, part $i: $t with friends on weekday $i" >/dev/null
    done
done
db=$tmp/repo/.mnemo/mnemo.db
vectors() { sqlite3 "$db" "SELECT count(*) FROM vectors WHERE owner_kind = 'memory'"; }
[ "$(vectors)" = 0 ] || fail "saves from the command line embed nothing by themselves"
# FTS5 b-trees of the memories' index: a commit each, merged by FTS5 at 16 (fts_tidy.c)
segments() { sqlite3 "$db" "SELECT count(DISTINCT segid) FROM memories_fts_idx"; }
[ "$(segments)" -gt 8 ] || fail "forty saves leave the memories' index in many segments (got $(segments))"

mkfifo "$tmp/in"
"$MNEMO" mcp <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
server=$!
exec 3>"$tmp/in"
send() { printf '%s\n' "$1" >&3; }
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"ping"}'
for _ in $(seq 50); do grep -q '"id":2' "$tmp/out" && break; sleep 0.1; done
sleep 0.5
[ "$(vectors)" = 0 ] || fail "starting a session embeds nothing (only a tool that wrote does)"
[ "$(segments)" -gt 8 ] || fail "starting a session rebuilds nothing (got $(segments) segments)"
send '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"save","arguments":{"kind":"fact","title":"kiln schedule","body":"the pottery kiln fires on fridays","context":{"situation":"planning a firing","solution":"book friday","trigger_keywords":["kiln","pottery"]}}}}'
n=0
for _ in $(seq 100); do
    n=$(vectors)
    [ "$n" = 41 ] && break
    sleep 0.1
done
[ "$n" = 41 ] || fail "idle after a save: every memory embedded (got $n of 41 vectors)"
[ "$(segments)" = 1 ] || fail "idle after a save: the memories' index rebuilt into one segment (got $(segments))"
grep -q '"id":3' "$tmp/out" || fail "the save was answered"
exec 3>&-
wait "$server" || fail "mnemo mcp exits 0 at end of input: $(cat "$tmp/err")"
server=

# the HTTP server: after the reply to a save, on the worker that answered it
command -v curl >/dev/null || { echo "curl is not installed (deps/debian.txt)"; exit 1; }
"$MNEMO" serve --port 0 2>"$tmp/serve.err" &
server=$!
url=
for _ in $(seq 1 600); do
    url=$(grep -o 'http://[^ ]*/mcp' "$tmp/serve.err" || true)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.05
done
[ -n "$url" ] || { cat "$tmp/serve.err"; echo "FAIL: mnemo serve did not say where it listens"; exit 1; }
H=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
sid=$(curl -s -D - -o /dev/null "${H[@]}" -X POST "$url" --data-binary \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
    tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
[ -n "$sid" ] || fail "mnemo serve gave a session id"
H+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
curl -s -o /dev/null "${H[@]}" -X POST "$url" --data-binary '{"jsonrpc":"2.0","method":"notifications/initialized"}'
"$MNEMO" save --kind fact --title "glaze colours" "the pottery glaze colours are blue and green" >/dev/null
curl -s -o "$tmp/saved.json" "${H[@]}" -X POST "$url" --data-binary \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"save","arguments":{"kind":"fact","title":"kiln cone","body":"the pottery kiln fires to cone six","context":{"situation":"loading the kiln","solution":"use cone six pieces","trigger_keywords":["kiln","cone"]}}}}'
grep -q '"isError":false\|"structuredContent"' "$tmp/saved.json" || fail "the save over HTTP succeeded: $(head -c 300 "$tmp/saved.json")"
n=0
for _ in $(seq 100); do
    n=$(vectors)
    [ "$n" = 43 ] && break
    sleep 0.1
done
[ "$n" = 43 ] || fail "after a save over HTTP: every memory embedded (got $n of 43 vectors)"
kill -TERM "$server"
wait "$server" || fail "mnemo serve exits 0 on SIGTERM: $(tail -5 "$tmp/serve.err")"
server=
[ "$fails" = 0 ] || exit 1
echo "mcp_prepare: ok"
