#!/usr/bin/env bash
# http_mcp.sh - `mnemo serve`: the MCP streamable HTTP transport at /mcp,
# checked with curl against a real server on a real repository's store.
#
#   sessions    initialize returns an Mcp-Session-Id (64 hex characters);
#               requests without it get 400, with an unknown one 404;
#               DELETE ends it (204, then 404); at serve.max_sessions the
#               session idle longest ends; an idle session expires
#               (serve.session_idle)
#   replies     JSON by default; an SSE stream (event: message) when the
#               client accepts only text/event-stream or ranks it first, or
#               when log notifications go with the result;
#               notifications and responses get 202 with no body; tools/call
#               really saves (the CLI shows the memory)
#   refusals    Origin not allowed (403, also a foreign Host), unsupported
#               MCP-Protocol-Version (400), Content-Type (415), Accept (406),
#               over 4 MiB (413, with and without Expect: 100-continue),
#               bad JSON (400 -32700), GET/PUT (405 with Allow), unknown path
#               (404); serve.allowed_origins lets an origin in
#   batches     only in sessions at 2025-03-26, never with initialize
#   concurrency 8 clients with their own sessions and 4 sharing one, in
#               parallel: every reply is a result
#   lifecycle   --port 0 prints the real URL; a taken port fails with a
#               message; bad flags and config values are usage errors;
#               SIGINT and SIGTERM stop it with exit 0 (under ASan the leak
#               check runs then, so a leak fails this test)
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-http.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_NOW_MS
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# js DESC EXPR < json: EXPR over the parsed JSON in d must be true
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 400)); process.exit(1) }" || fail "$1"
}

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    """Charge the cart."""\n    return cart.total\n' >shop.py
git add shop.py
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null

# start [ARGS...]: run `mnemo serve --port 0 ARGS`, set $url (.../mcp) and $base
start() {
    : >"$tmp/server.err"
    "$MNEMO" serve --port 0 "$@" 2>"$tmp/server.err" &
    server_pid=$!
    url=
    for _ in $(seq 1 600); do
        url=$(grep -o 'http://[^ ]*/mcp' "$tmp/server.err" || true)
        [ -n "$url" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    if [ -z "$url" ]; then
        cat "$tmp/server.err"
        echo "FAIL: the server did not say where it listens"
        exit 1
    fi
    base=${url%/mcp}
}

# stop SIGNAL: stop the server; it must exit 0
stop() {
    kill "-$1" "$server_pid"
    local rc=0
    wait "$server_pid" || rc=$?
    server_pid=
    [ "$rc" = 0 ] || {
        tail -n 20 "$tmp/server.err"
        fail "the server exited $rc after SIG$1"
    }
}

ACCEPT='Accept: application/json, text/event-stream'
CT='Content-Type: application/json'
# post BODY [curl args...]: POST to /mcp; sets $code, body in $tmp/body, headers in $tmp/headers
post() {
    local body=$1
    shift
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$url" "$@" --data-binary "$body")
}
# rpc SESSION BODY [curl args...]: post with the usual headers and a session
rpc() {
    local sid=$1 body=$2
    shift 2
    post "$body" -H "$CT" -H "$ACCEPT" -H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: ${PROTO:-2025-11-25}" "$@"
}
hdr() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -n 1; }
expect_code() { [ "$code" = "$1" ] || fail "$2: HTTP $code, not $1 ($(head -c 300 "$tmp/body"))"; }

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"VERSION","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
# open_session VERSION: initialize + notifications/initialized; sets $sid
open_session() {
    post "${INIT/VERSION/$1}" -H "$CT" -H "$ACCEPT"
    expect_code 200 "initialize ($1)"
    sid=$(hdr Mcp-Session-Id)
    PROTO=$1 rpc "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    expect_code 202 "notifications/initialized ($1)"
}

# ==== command line and config ================================================
"$MNEMO" serve --port 70000 2>"$tmp/err" && fail "--port 70000 accepted"
grep -q "port must be a number from 0 to 65535" "$tmp/err" || fail "--port 70000: $(cat "$tmp/err")"
rc=0
"$MNEMO" serve --port 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--port without a value: exit $rc, not 2"
rc=0
"$MNEMO" serve --bogus 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "unknown option '--bogus'" "$tmp/err" || fail "--bogus: exit $rc: $(cat "$tmp/err")"
rc=0
"$MNEMO" serve words 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "serve with words: exit $rc, not 2"
for bad in "serve.port 65536" "serve.threads 65" "serve.host has_space,x" "serve.allowed_origins evil.example" \
    "serve.allowed_origins https://a.example/path" "serve.session_idle soon"; do
    rc=0
    # shellcheck disable=SC2086 # KEY VALUE are two words
    "$MNEMO" config set $bad 2>/dev/null || rc=$?
    [ "$rc" = 2 ] || fail "config set $bad: exit $rc, not 2"
done
"$MNEMO" serve --help | grep -- "--port P" >/dev/null || fail "serve --help does not show --port"

# ==== sessions, replies ======================================================
start
case $url in http://127.0.0.1:[0-9]*/mcp) ;; *) fail "not bound to 127.0.0.1 by default: $url" ;; esac
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz does not say ok"

post "${INIT/VERSION/2025-11-25}" -H "$CT" -H "$ACCEPT"
expect_code 200 "initialize"
sid=$(hdr Mcp-Session-Id)
main_sid=$sid
[[ $sid =~ ^[0-9a-f]{64}$ ]] || fail "session id '$sid' is not 64 hex characters"
[ "$(hdr Content-Type)" = application/json ] || fail "initialize reply is $(hdr Content-Type)"
js "initialize result" "d.id === 1 && d.result.protocolVersion === '2025-11-25' && d.result.serverInfo.name === 'mnemo'" <"$tmp/body"

rpc "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
expect_code 202 "a notification"
[ ! -s "$tmp/body" ] || fail "202 with a body: $(cat "$tmp/body")"

# log notifications sent while a request runs make its reply an SSE stream
# (for a client that accepts one): they come first, then the result (the
# first context call indexes the repository and says so)
rpc "$sid" '{"jsonrpc":"2.0","id":"l","method":"logging/setLevel","params":{"level":"debug"}}'
expect_code 200 "logging/setLevel"
rpc "$sid" '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"context","arguments":{"query":"how is the cart charged"}}}'
expect_code 200 "context with log notifications"
[ "$(hdr Content-Type)" = text/event-stream ] || fail "a reply with log notifications is $(hdr Content-Type)"
node -e "const t = require('fs').readFileSync(0, 'utf8');
const ev = t.split('\n\n').filter(Boolean).map(e => { const m = /^event: message\ndata: (.*)$/.exec(e); if (!m) throw new Error('bad event ' + e.slice(0, 100)); return JSON.parse(m[1]); });
const last = ev.pop();
if (last.id !== 'c1' || last.result.isError) throw new Error('last event is not the result');
if (!ev.some(n => n.method === 'notifications/message' && /indexed the repository first/.test(n.params.data))) throw new Error('no log notification before it');" \
    <"$tmp/body" || fail "SSE stream: log notifications, then the result"

rpc "$sid" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
expect_code 200 "tools/list"
js "tools/list has context and save" "d.id === 2 && ['context','save','search'].every(n => d.result.tools.some(t => t.name === n))" <"$tmp/body"

rpc "$sid" '{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"save","arguments":{"kind":"gotcha","title":"Checkout over HTTP","body":"The cart total must be charged once; retries double-charge without the idempotency key.","context":{"situation":"a checkout retried","solution":"send the idempotency key","trigger_keywords":["checkout","retry","idempotency key"]}}}}'
expect_code 200 "tools/call save"
js "save result" "d.id === 's1' && !d.result.isError && /^[0-9A-Z]{26}$/.test(d.result.structuredContent.id)" <"$tmp/body"
mid=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).result.structuredContent.id)" <"$tmp/body" 2>/dev/null || true)
"$MNEMO" show "$mid" 2>/dev/null | grep "Checkout over HTTP" >/dev/null || fail "the memory saved over HTTP is not in the store"

rpc "$sid" '{"jsonrpc":"2.0","id":3,"method":"no/such/method"}'
expect_code 200 "an unknown method"
js "unknown method is -32601" "d.id === 3 && d.error.code === -32601" <"$tmp/body"

rpc "$sid" '{"jsonrpc":"2.0","id":99,"result":{}}'
expect_code 202 "a response from the client"
rpc "$sid" '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone","reason":"test"}}'
expect_code 202 "notifications/cancelled"

# SSE: only text/event-stream accepted, or ranked above JSON
for accept in 'text/event-stream' 'application/json;q=0.5, text/event-stream' 'text/*'; do
    post '{"jsonrpc":"2.0","id":4,"method":"ping"}' -H "$CT" -H "Accept: $accept" -H "Mcp-Session-Id: $sid"
    expect_code 200 "ping with Accept: $accept"
    [ "$(hdr Content-Type)" = text/event-stream ] || fail "Accept: $accept got $(hdr Content-Type)"
    printf 'event: message\ndata: {"jsonrpc":"2.0","id":4,"result":{}}\n\n' | cmp -s - "$tmp/body" ||
        fail "SSE reply with Accept: $accept: $(cat "$tmp/body")"
done
for accept in 'application/json' 'text/event-stream;q=0.9, application/json' '*/*'; do
    post '{"jsonrpc":"2.0","id":5,"method":"ping"}' -H "$CT" -H "Accept: $accept" -H "Mcp-Session-Id: $sid"
    expect_code 200 "ping with Accept: $accept"
    [ "$(hdr Content-Type)" = application/json ] || fail "Accept: $accept got $(hdr Content-Type)"
done
post '{"jsonrpc":"2.0","id":5,"method":"ping"}' -H "$CT" -H "Mcp-Session-Id: $sid"
[ "$code" = 200 ] && [ "$(hdr Content-Type)" = application/json ] || fail "no Accept: HTTP $code $(hdr Content-Type)"

# ==== refusals ===============================================================
rpc "" '{"jsonrpc":"2.0","id":6,"method":"tools/list"}' -H "Mcp-Session-Id:"
expect_code 400 "no session id"
js "no session id: a JSON-RPC error" "d.id === null && d.error.code === -32000 && /Mcp-Session-Id/.test(d.error.message)" <"$tmp/body"
rpc "0000000000000000000000000000000000000000000000000000000000000000" '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
expect_code 404 "an unknown session"
rpc "$(printf 'x%.0s' $(seq 1 300))" '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
expect_code 400 "a 300-character session id"
PROTO=1999-01-01 rpc "$sid" '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
expect_code 400 "MCP-Protocol-Version 1999-01-01"
grep -q "unsupported MCP-Protocol-Version" "$tmp/body" || fail "version refusal does not say why"
for v in 2025-06-18 2025-03-26 2024-11-05; do
    PROTO=$v rpc "$sid" '{"jsonrpc":"2.0","id":6,"method":"ping"}'
    expect_code 200 "MCP-Protocol-Version $v"
done
for origin in http://evil.example https://localhost.evil.example:443 null http://127.0.0.2:80; do
    rpc "$sid" '{"jsonrpc":"2.0","id":7,"method":"ping"}' -H "Origin: $origin"
    expect_code 403 "Origin: $origin"
done
for origin in http://localhost:6274 https://127.0.0.1 'http://[::1]:8080' HTTP://LOCALHOST; do
    rpc "$sid" '{"jsonrpc":"2.0","id":7,"method":"ping"}' -H "Origin: $origin"
    expect_code 200 "Origin: $origin"
    [ "$(hdr Access-Control-Allow-Origin)" = "$origin" ] || fail "Origin $origin: no Access-Control-Allow-Origin"
done
code=$(curl -s -o /dev/null -D "$tmp/headers" -w '%{http_code}' -X OPTIONS "$url" -H "Origin: http://localhost:6274" -H "Access-Control-Request-Method: POST")
[ "$code" = 204 ] && hdr Access-Control-Allow-Headers | grep -q Mcp-Session-Id || fail "CORS preflight: HTTP $code"
rpc "$sid" '{"jsonrpc":"2.0","id":7,"method":"ping"}' -H "Host: evil.example:${base##*:}"
expect_code 403 "a foreign Host header (DNS rebinding)"
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' -H "Content-Type: text/plain" -H "$ACCEPT" -H "Mcp-Session-Id: $sid"
expect_code 415 "Content-Type text/plain"
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' -H "Content-Type: application/json; charset=latin1" -H "$ACCEPT" -H "Mcp-Session-Id: $sid"
expect_code 415 "charset latin1"
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' -H "Content-Type: application/json; charset=UTF-8" -H "$ACCEPT" -H "Mcp-Session-Id: $sid"
expect_code 200 "charset UTF-8"
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' -H "$CT" -H "Accept: text/html" -H "Mcp-Session-Id: $sid"
expect_code 406 "Accept text/html"
post '{"jsonrpc":"2.0","id":8,"method":"ping"}' -H "$CT" -H "Accept: application/json;q=0, text/event-stream;q=0" -H "Mcp-Session-Id: $sid"
expect_code 406 "Accept with q=0 only"
rpc "$sid" '{"jsonrpc":"2.0","id":9,'
expect_code 400 "broken JSON"
js "broken JSON is -32700" "d.id === null && d.error.code === -32700" <"$tmp/body"
rpc "$sid" '"just a string"'
expect_code 400 "a JSON string"
js "a JSON string is -32600" "d.error.code === -32600" <"$tmp/body"
rpc "$sid" '{"jsonrpc":"2.0","params":{}}'
expect_code 400 "neither request nor notification"
# over MN_MCP_MAX_MESSAGE (4 MiB): refused, and the server still answers afterwards
{
    printf '{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"'
    head -c $((4 * 1024 * 1024)) /dev/zero | tr '\0' a
    printf '"}}'
} >"$tmp/big.json"
rpc "$sid" "@$tmp/big.json"
expect_code 413 "a 4 MiB message (Expect: 100-continue)"
rpc "$sid" "@$tmp/big.json" -H "Expect:"
expect_code 413 "a 4 MiB message sent whole"
js "413 carries a JSON-RPC error" "d.error.code === -32600 && /larger than/.test(d.error.message)" <"$tmp/body"
code=$(curl -s -o /dev/null -D "$tmp/headers" -w '%{http_code}' "$url" -H "Mcp-Session-Id: $sid")
[ "$code" = 405 ] && hdr Allow | grep -q POST || fail "GET /mcp: HTTP $code, Allow $(hdr Allow)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$url" -H "Mcp-Session-Id: $sid" --data x)
[ "$code" = 405 ] || fail "PUT /mcp: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/other" -H "$CT" --data '{}')
[ "$code" = 404 ] || fail "POST /other: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/healthz" --data x)
[ "$code" = 405 ] || fail "POST /healthz: HTTP $code"
rpc "$sid" '{"jsonrpc":"2.0","id":11,"method":"ping"}'
expect_code 200 "ping after the refusals"
rpc "$sid" "${INIT/VERSION/2025-11-25}"
expect_code 200 "initialize again in a session"
js "a second initialize is refused" "d.error && d.error.code === -32600" <"$tmp/body"
post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' -H "$CT" -H "$ACCEPT"
[ -z "$(hdr Mcp-Session-Id)" ] || fail "a failed initialize got a session id"

# ==== batches ================================================================
rpc "$sid" '[{"jsonrpc":"2.0","id":12,"method":"ping"}]'
expect_code 400 "a batch in a 2025-11-25 session"
post "[${INIT/VERSION/2025-03-26}]" -H "$CT" -H "$ACCEPT"
expect_code 400 "initialize in a batch"
open_session 2025-03-26
old_sid=$sid
PROTO=2025-03-26 rpc "$sid" '[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":14,"method":"tools/list"}]'
expect_code 200 "a batch at 2025-03-26"
js "batch replies" "Array.isArray(d) && d.length === 2 && d.some(r => r.id === 13) && d.some(r => r.id === 14 && r.result.tools.length > 0)" <"$tmp/body"
PROTO=2025-03-26 rpc "$sid" '[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}]'
expect_code 202 "a batch of notifications"
PROTO=2025-03-26 rpc "$sid" '[]'
expect_code 400 "an empty batch"

# ==== DELETE =================================================================
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url" -H "Mcp-Session-Id: $old_sid")
[ "$code" = 204 ] || fail "DELETE: HTTP $code"
PROTO=2025-03-26 rpc "$old_sid" '{"jsonrpc":"2.0","id":15,"method":"ping"}'
expect_code 404 "a request in a deleted session"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url" -H "Mcp-Session-Id: $old_sid")
[ "$code" = 404 ] || fail "DELETE of a deleted session: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url")
[ "$code" = 400 ] || fail "DELETE without a session id: HTTP $code"
rpc "$main_sid" '{"jsonrpc":"2.0","id":16,"method":"ping"}'
expect_code 200 "other sessions live on"

# a second server on the same port fails with a message
port=${base##*:}
rc=0
"$MNEMO" serve --port "$port" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "cannot listen on 127.0.0.1 port $port" "$tmp/err" || fail "a taken port: exit $rc: $(cat "$tmp/err")"
stop INT
grep -q "stopping" "$tmp/server.err" || fail "SIGINT: the server did not say it stops"

# ==== concurrency ============================================================
# A fresh repository, nothing indexed: 8 clients with their own sessions and 4
# more on one shared session, 25 calls each, all at once; the first calls
# index in several threads together (libgit2's per-thread state once leaked
# then: the ASan run checks at exit).
repo2=$tmp/repo2
mkdir -p "$repo2"
cd "$repo2"
git init -q
printf 'def refund(order):\n    """Refund an order."""\n    return order.total\n' >refund.py
git add refund.py
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null
start
calls=25
client() { # client N SESSION: $calls recall and search calls, each reply a result with its id
    local n=$1 s=$2 i tool
    for i in $(seq 1 "$calls"); do
        tool=search
        ((i % 2)) && tool=recall
        curl -s -X POST "$url" -H "$CT" -H "$ACCEPT" -H "Mcp-Session-Id: $s" -H "MCP-Protocol-Version: 2025-11-25" \
            --data-binary "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"$tool\",\"arguments\":{\"query\":\"checkout cart $n\"}}}"
        echo
    done >"$tmp/client.$n"
}
sids=()
for n in 1 2 3 4 5 6 7 8 9; do
    open_session 2025-11-25
    sids+=("$sid")
done
pids=()
for n in $(seq 1 12); do
    client "$n" "${sids[$((n <= 8 ? n - 1 : 8))]}" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a client failed"; done
for n in $(seq 1 12); do
    node -e "const lines = require('fs').readFileSync(0, 'utf8').trim().split('\n');
if (lines.length !== $calls) throw new Error(lines.length + ' replies');
lines.forEach((l, i) => { const d = JSON.parse(l); if (d.id !== i + 1 || !d.result || d.result.isError) throw new Error(l.slice(0, 300)); });" \
        <"$tmp/client.$n" || fail "client $n: not every call answered with a result"
done

stop TERM
cd "$repo"

# ==== configured: cap, idle expiry, allowed origins ==========================
"$MNEMO" config set serve.max_sessions 2 >/dev/null
# 3 s, not 1: under TSan beside other tests one request can take over a
# second, and the sessions used below must not expire between requests.
"$MNEMO" config set serve.session_idle 3s >/dev/null
"$MNEMO" config set serve.allowed_origins "https://app.example.com, http://tools.example:8080/" >/dev/null
start --host localhost
case $url in http://127.0.0.1:*/mcp | http://\[::1\]:*/mcp) ;; *) fail "--host localhost: $url" ;; esac
open_session 2025-11-25
a=$sid
open_session 2025-11-25
b=$sid
open_session 2025-11-25
c=$sid
rpc "$a" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
expect_code 404 "the session idle longest, at serve.max_sessions 2"
rpc "$c" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
expect_code 200 "the newest session, at the cap"
for origin in https://app.example.com http://tools.example:8080; do
    rpc "$c" '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: $origin"
    expect_code 200 "configured Origin $origin"
done
rpc "$c" '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Origin: https://app.example.com:444"
expect_code 403 "an origin on another port than configured"
rpc "$c" '{"jsonrpc":"2.0","id":1,"method":"ping"}' -H "Host: app.example.com"
expect_code 200 "the Host of a configured origin"
sleep 4 # past serve.session_idle (3s): expiry is checked on use
rpc "$b" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
expect_code 404 "a session idle past serve.session_idle"
stop TERM

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "ok: serve, sessions, JSON and SSE replies, refusals, batches, concurrency, DELETE, cap, expiry, shutdown"
