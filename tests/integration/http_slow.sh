#!/usr/bin/env bash
# http_slow.sh - `mnemo serve` against slow and greedy clients (issue 24):
# a real server, the slow_clients helper and curl, all on loopback, where
# 127.0.0.2, 127.0.0.3... are other client addresses (all of 127/8 is
# loopback on Linux; the server listens on 127.0.0.1).
#
#   flood     1,000 connections from 10 addresses (100 each), half with
#             headers that never end and half with a body that never ends,
#             a byte a second each, reopened as soon as they are closed, for
#             7 s. With serve.request_deadline 2s: /healthz from 127.0.0.1
#             answers within 2 s three times during it, an MCP client from
#             127.0.0.1 initializes, lists and calls a tool, no slow
#             connection lives past the deadline (+ the reaper's period and
#             a second of slack), none is answered, and no address holds
#             more than serve.max_connections_per_address (32 by default)
#             at once. (Before the deadline, each trickled byte reset a
#             120 s idle timeout and 512 of them starved everyone.)
#   sessions  a session opened from 127.0.0.1, then 120 initialize calls
#             from 127.0.0.2: the first session still answers; 127.0.0.2
#             keeps at most serve.max_sessions_per_address (16), its oldest
#             ended (404), its newest alive. (Before, at serve.max_sessions
#             (100) each initialize ended the session idle longest, whoever
#             opened it.)
#   keep-alive after a whole request and its reply, the next request trickled
#             on the same connection is cut 2 s after that reply
#   config    the three keys' defaults and bad values
# The run takes about 15 s. A failed check is reported and the script goes
# on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_SLOW_CLIENTS:?MNEMO_SLOW_CLIENTS must name the slow_clients helper}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-slow.XXXXXX")
server_pid=
flood_pid=
cleanup() {
    if [ -n "$flood_pid" ]; then kill "$flood_pid" 2>/dev/null || true; fi
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
# 1,000 client sockets, the server's as many, and spare
ulimit -n 4096 2>/dev/null || true
[ "$(ulimit -n)" -ge 2200 ] || {
    echo "FAIL: this test needs 2,200 open files (ulimit -n is $(ulimit -n))"
    exit 1
}

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    """Charge the cart."""\n    return cart.total\n' >shop.py
git add shop.py
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null

# ==== config =================================================================
for kv in "serve.request_deadline 30s" "serve.max_connections_per_address 32" "serve.max_sessions_per_address 16"; do
    read -r key want <<<"$kv"
    got=$("$MNEMO" config get "$key" 2>&1 || true)
    [ "$got" = "$want" ] || fail "config get $key: '${got:0:100}', not $want"
done
for bad in "serve.request_deadline soon" "serve.max_connections_per_address 513" \
    "serve.max_connections_per_address -1" "serve.max_sessions_per_address 10001"; do
    rc=0
    # shellcheck disable=SC2086 # KEY VALUE are two words
    "$MNEMO" config set $bad 2>/dev/null || rc=$?
    [ "$rc" = 2 ] || fail "config set $bad: exit $rc, not 2"
done
"$MNEMO" config set serve.request_deadline 2s >/dev/null || fail "config set serve.request_deadline 2s"

# start: run `mnemo serve --port 0`, set $url (.../mcp), $base and $port
start() {
    : >"$tmp/server.err"
    "$MNEMO" serve --port 0 2>"$tmp/server.err" &
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
    port=${base##*:}
}

ACCEPT='Accept: application/json, text/event-stream'
CT='Content-Type: application/json'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
# post BODY [curl args...]: POST to /mcp within 3 s; sets $code, body in $tmp/body, headers in $tmp/headers
post() {
    local body=$1
    shift
    code=$(curl -s --max-time 3 -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$url" \
        -H "$CT" -H "$ACCEPT" "$@" --data-binary "$body" || true)
}
hdr() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -n 1; }
# rpc SESSION BODY [curl args...]
rpc() {
    local sid=$1 body=$2
    shift 2
    post "$body" -H "Mcp-Session-Id: $sid" -H "MCP-Protocol-Version: 2025-11-25" "$@"
}
# session [curl args...]: initialize + notifications/initialized; sets $sid ("" on failure)
session() {
    sid=
    post "$INIT" "$@"
    [ "$code" = 200 ] || return 0
    sid=$(hdr Mcp-Session-Id)
    rpc "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$@"
}

start

# ==== flood ==================================================================
"$MNEMO_SLOW_CLIENTS" "$port" 127.0.0.2 10 1000 7 mixed >"$tmp/flood" 2>"$tmp/flood.err" &
flood_pid=$!
sleep 1.5
for i in 1 2 3; do
    t0=$(date +%s%N)
    got=$(curl -s --max-time 2 "$base/healthz" || true)
    ms=$((($(date +%s%N) - t0) / 1000000))
    [ "$got" = ok ] || fail "/healthz during the flood ($i): no answer within 2 s"
    echo "healthz during the flood ($i): ${ms} ms"
    if [ "$i" = 2 ]; then
        # an agent from 127.0.0.1: a session, the tool list, a tool call
        session
        [ -n "$sid" ] || fail "initialize during the flood: HTTP $code"
        rpc "$sid" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
        [ "$code" = 200 ] && grep -q '"name":"search"' "$tmp/body" || fail "tools/list during the flood: HTTP $code"
        rpc "$sid" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"cart"}}}'
        [ "$code" = 200 ] && grep -q '"id":3,"result"' "$tmp/body" || fail "tools/call during the flood: HTTP $code $(head -c 200 "$tmp/body")"
    fi
    sleep 1
done
wait "$flood_pid" || fail "slow_clients failed: $(cat "$tmp/flood.err")"
flood_pid=
echo "flood: $(cat "$tmp/flood")"
num() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" "$tmp/flood"; }
[ -n "$(num attempts)" ] || fail "slow_clients said nothing"
# the deadline (2 s) + the reaper's period (250 ms) + the helper's second between checks
[ "$(num longest_ms)" -le 3500 ] 2>/dev/null || fail "a slow connection lived $(num longest_ms) ms, past the 2 s deadline"
[ "$(num cut)" -ge 100 ] 2>/dev/null || fail "only $(num cut) slow connections were cut at the deadline"
[ "$(num answered)" = 0 ] || fail "$(num answered) slow connections got a reply"
[ "$(num held_per_address_max)" -le 32 ] 2>/dev/null || fail "one address held $(num held_per_address_max) connections, over the cap of 32"
[ "$(num refused)" -ge 100 ] 2>/dev/null || fail "only $(num refused) connections over the cap were refused"
kill -0 "$server_pid" 2>/dev/null || fail "the server died during the flood"

# ==== a kept-alive connection ================================================
# its next request is due within the deadline from the end of the reply:
# a whole request and its answer, then a next one trickled (a byte each 250 ms)
ka=$(python3 - "$port" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
got = b""
while not got.endswith(b"ok\n"):
    d = s.recv(4096)
    if not d:
        print("closed before the first reply")
        sys.exit(0)
    got += d
t0 = time.monotonic()
s.sendall(b"GET /healthz HTTP/1.1\r\nHo")
s.settimeout(0.25)
for b in b"st: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
    try:
        if not s.recv(1):
            break
    except socket.timeout:
        pass
    except ConnectionResetError:
        break
    try:
        s.sendall(bytes([b]))
    except (BrokenPipeError, ConnectionResetError):
        break
    if time.monotonic() - t0 > 6:
        print("still open after 6 s")
        sys.exit(0)
print(int((time.monotonic() - t0) * 1000))
EOF
)
echo "kept-alive connection trickling its second request: cut after $ka ms"
[[ $ka =~ ^[0-9]+$ ]] && [ "$ka" -ge 1500 ] && [ "$ka" -le 3500 ] || fail "kept-alive connection trickling its next request: $ka (not cut 2 s after its reply)"

# ==== sessions per address ===================================================
session
first=$sid
[ -n "$first" ] || fail "initialize from 127.0.0.1: HTTP $code"
session --interface 127.0.0.3
third=$sid
# 120 initialize calls on one kept-alive connection from 127.0.0.2 (python: one process, not 240 curls)
mapfile -t ids < <(python3 - "$port" "$INIT" <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5, source_address=("127.0.0.2", 0))
for i in range(120):
    c.request("POST", "/mcp", body=sys.argv[2], headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    r = c.getresponse()
    r.read()
    sid = r.getheader("Mcp-Session-Id")
    if r.status != 200 or not sid:
        print("initialize %d from 127.0.0.2: HTTP %d" % (i + 1, r.status))
        break
    print(sid)
EOF
)
[ "${#ids[@]}" = 120 ] || fail "120 initialize calls from 127.0.0.2: ${ids[*]: -1}"
for who in "127.0.0.1 $first" "127.0.0.3 $third"; do
    read -r addr id <<<"$who"
    rpc "$id" '{"jsonrpc":"2.0","id":5,"method":"ping"}'
    [ "$code" = 200 ] || fail "the session of $addr after 120 initialize calls from 127.0.0.2: HTTP $code"
done
if [ "${#ids[@]}" = 120 ]; then
    rpc "${ids[103]}" '{"jsonrpc":"2.0","id":6,"method":"ping"}' --interface 127.0.0.2
    [ "$code" = 404 ] || fail "127.0.0.2's 17th newest session: HTTP $code, not 404 (over its cap of 16)"
    rpc "${ids[104]}" '{"jsonrpc":"2.0","id":7,"method":"ping"}' --interface 127.0.0.2
    [ "$code" = 200 ] || fail "127.0.0.2's 16th newest session: HTTP $code, not 200"
    # a session id works from any address: the cap counts where it was opened
    rpc "${ids[119]}" '{"jsonrpc":"2.0","id":8,"method":"ping"}'
    [ "$code" = 200 ] || fail "127.0.0.2's newest session from 127.0.0.1: HTTP $code, not 200"
fi

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=
[ "$rc" = 0 ] || {
    tail -n 20 "$tmp/server.err"
    fail "the server exited $rc after SIGTERM"
}

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "http_slow: all checks passed"
