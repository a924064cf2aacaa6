#!/usr/bin/env bash
# http_peer.sh - `mnemo serve` answers only its own user of this machine
# (src/http/peer.c). On loopback the server reads the owner of the client's
# socket from /proc/net/tcp{,6} when it accepts a connection:
#   - curl as the server's user reads the memory through MCP (200);
#   - curl as another user (nobody, by runuser) gets 403 with one clear
#     message for initialize, for a tool call without a session, and for
#     /healthz, and the memory it tried to purge is still there;
#   - a server run as nobody refuses root too (root is served only by a
#     server that runs as root);
#   - the same over IPv6 loopback ([::1]) when this machine has it.
# Switching users needs root (CI runs as root). Without it this test FAILS
# with a message: it cannot prove the refusal, and a skip would hide that.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
if [ "$(id -u)" != 0 ] || ! runuser -u nobody -- true 2>/dev/null; then
    echo "http_peer: FAIL: this test must switch to another user (runuser -u nobody) to show" >&2
    echo "that mnemo serve refuses it; run it as root (CI does), e.g. sudo ctest -R http_peer" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-peer.XXXXXX")
chmod 755 "$tmp"
pids=()
cleanup() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# serve AS_USER DB HOST: start `mnemo serve --port 0`, set $url (base) from its stderr line
serve() {
    local who=$1 db=$2 host=$3 err=$tmp/serve.$RANDOM.err _
    if [ "$who" = root ]; then
        "$MNEMO" --db "$db" serve --host "$host" --port 0 2>"$err" &
    else
        runuser -u "$who" -- "$MNEMO" --db "$db" serve --host "$host" --port 0 2>"$err" &
    fi
    pids+=($!)
    url=
    for _ in $(seq 1 300); do
        url=$(grep -o 'http://[^ ]*/mcp' "$err" 2>/dev/null | head -1 || true)
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || {
        echo "mnemo serve printed no URL:" >&2
        cat "$err" >&2
        exit 1
    }
    url=${url%/mcp}
}

# as WHO curl ARGS...: curl run as that user; prints the status line's code then the body
as() {
    local who=$1
    shift
    if [ "$who" = root ]; then
        curl -sS -g -o "$tmp/body" -w '%{http_code}' "$@"
    else
        runuser -u "$who" -- curl -sS -g -o - -w '\n%{http_code}' "$@" >"$tmp/both"
        # the body is everything before the last line, the code is the last line
        sed '$d' "$tmp/both" >"$tmp/body"
        tail -n 1 "$tmp/both"
    fi
}

mcp_headers=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peer-test","version":"1"}}}'

# a session as WHO on $url: sets $sid (empty when refused), $code
session() {
    local who=$1
    sid=
    if [ "$who" = root ]; then
        code=$(curl -sS -g -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}' "${mcp_headers[@]}" \
            --data "$init" "$url/mcp")
    else
        code=$(runuser -u "$who" -- curl -sS -g -D - -o /dev/null -w '%{http_code}' \
            "${mcp_headers[@]}" --data "$init" "$url/mcp" | tee "$tmp/headers" | tail -n 1)
    fi
    sid=$(tr -d '\r' <"$tmp/headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
}

call() { # call WHO SID JSON -> $code, body in $tmp/body
    local who=$1 s=$2 body=$3 h=()
    [ -n "$s" ] && h=(-H "Mcp-Session-Id: $s" -H 'MCP-Protocol-Version: 2025-11-25')
    code=$(as "$who" "${mcp_headers[@]}" "${h[@]}" --data "$body" "$url/mcp")
}

refused() { # refused WHAT: the last answer was 403 with the peer message
    if [ "$code" != 403 ] || ! grep -q "answers its own user (uid $1) only" "$tmp/body"; then
        fail "$2: expected 403 naming uid $1, got $code: $(head -c 300 "$tmp/body")"
    fi
}

# ---- a store of root's, served by root ----
db=$tmp/root/mnemo.db
mkdir -p "$tmp/root"
id=$("$MNEMO" --db "$db" --json save --kind fact --title "Deploy key rotation" \
    --keyword deploy,rotation "The deploy key is rotated on the first Monday of each month." |
    sed -n 's/.*"id":"\([0-9A-Z]*\)".*/\1/p')
[ -n "$id" ] || {
    echo "could not save the memory" >&2
    exit 1
}
forget='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forget","arguments":{"id":"'$id'","purge":true}}}'
search='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"deploy key rotation"}}}'

for host in 127.0.0.1 ::1; do
    if [ "$host" = ::1 ] && ! grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
        echo "note: no IPv6 loopback on this machine; the [::1] case did not run"
        continue
    fi
    serve root "$db" "$host"

    # the server's own user: served
    session root
    [ "$code" = 200 ] && [ -n "$sid" ] || fail "[$host] root: initialize got $code"
    call root "$sid" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    call root "$sid" "$search"
    [ "$code" = 200 ] && grep -q "$id" "$tmp/body" || fail "[$host] root: search got $code: $(head -c 300 "$tmp/body")"

    # another user: 403 before anything runs, whatever it asks (with the session it was given,
    # if it was given one)
    session nobody
    [ "$code" = 403 ] && [ -z "$sid" ] || fail "[$host] nobody: initialize got $code (session '$sid')"
    call nobody "$sid" "$search"
    refused 0 "[$host] nobody: search"
    call nobody "$sid" "$forget"
    refused 0 "[$host] nobody: forget --purge"
    code=$(as nobody "$url/healthz")
    refused 0 "[$host] nobody: /healthz"
    # and the memory is still there
    "$MNEMO" --db "$db" --json show "$id" >"$tmp/show" 2>&1 || fail "[$host] the memory is gone: $(cat "$tmp/show")"

    kill "${pids[-1]}"
    wait "${pids[-1]}" 2>/dev/null || true
    unset 'pids[-1]'
done

# ---- a server run by nobody refuses root ----
mkdir -p "$tmp/nobody"
chown nobody "$tmp/nobody"
ndb=$tmp/nobody/mnemo.db
runuser -u nobody -- env HOME="$tmp/nobody" "$MNEMO" --db "$ndb" save --title "nobody's note" "a note" >/dev/null
serve nobody "$ndb" 127.0.0.1
session root
[ "$code" = 403 ] && [ -z "$sid" ] || fail "a server of nobody's served root: $code"
grep -q "answers its own user (uid 65534) only; the connection comes from uid 0" "$tmp/body" ||
    fail "the refusal of root does not say why: $(head -c 300 "$tmp/body")"
session nobody
[ "$code" = 200 ] && [ -n "$sid" ] || fail "a server of nobody's refused nobody: $code"

[ "$fails" = 0 ] || exit 1
echo "http_peer: the server's own user served; another user and root (by nobody's server) refused with 403"
