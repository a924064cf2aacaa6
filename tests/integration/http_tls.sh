#!/usr/bin/env bash
# http_tls.sh - `mnemo serve --tls-cert FILE --tls-key FILE` serves HTTPS
# (libmicrohttpd with GnuTLS; src/http/tls.c). openssl makes a self-signed
# certificate for 127.0.0.1 in a temp dir, then:
#   - the server prints an https:// URL; curl trusting only that certificate
#     gets "ok" from /healthz and initializes an MCP session at /mcp;
#   - plain http to the same port gets no answer;
#   - one flag without the other is a usage error (exit 2);
#   - a missing key, a key that is not the certificate's, a file without
#     PEM, a key with a passphrase and a key readable by others each stop
#     the server before it listens, with one line naming the file;
#   - bound to 0.0.0.0 with TLS, no clear-text warning (without TLS there is one).
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"
command -v openssl >/dev/null || {
    echo "http_tls: FAIL: openssl is needed (deps/debian.txt)" >&2
    exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-tls.XXXXXX")
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

# cert NAME: a self-signed P-256 certificate for 127.0.0.1, NAME.crt and NAME.key (mode 600)
cert() {
    (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -keyout "$tmp/$1.key" -out "$tmp/$1.crt" -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 2>"$tmp/openssl.err") ||
        {
            cat "$tmp/openssl.err"
            exit 1
        }
}
cert a
cert b

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
"$MNEMO" init >/dev/null

# start ARGS...: run `mnemo serve --port 0 ARGS` until it prints its URL; sets $url and $base
start() {
    : >"$tmp/server.err"
    "$MNEMO" serve --port 0 "$@" 2>"$tmp/server.err" &
    server_pid=$!
    url=
    for _ in $(seq 1 100); do
        url=$(grep -o 'https\?://[^ ]*/mcp' "$tmp/server.err" || true)
        [ -n "$url" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    base=${url%/mcp}
}
# stop: SIGTERM; the server must exit 0 (under ASan: no leak, the key's buffer included)
stop() {
    local rc=0
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" || rc=$?
    server_pid=
    [ "$rc" = 0 ] || fail "the server exited $rc after SIGTERM: $(tail -n 20 "$tmp/server.err")"
}
# refused DESC EXIT PATTERN ARGS...: serve ARGS must exit EXIT (1: cannot read, 2: bad
# input) without listening, with one line matching PATTERN
refused() {
    local desc=$1 want=$2 pattern=$3 rc=0
    shift 3
    timeout 10 "$MNEMO" serve --port 0 "$@" 2>"$tmp/err" || rc=$?
    [ "$rc" = "$want" ] || fail "$desc: exit $rc, not $want ($(cat "$tmp/err"))"
    [ "$(wc -l <"$tmp/err")" = 1 ] || fail "$desc: not one line: $(cat "$tmp/err")"
    grep -q -- "$pattern" "$tmp/err" || fail "$desc: no '$pattern' in: $(cat "$tmp/err")"
    if grep -q "serving MCP" "$tmp/err"; then fail "$desc: it started"; fi
}

# ==== HTTPS works, plain HTTP does not ========================================
start --tls-cert "$tmp/a.crt" --tls-key "$tmp/a.key"
case $url in
https://127.0.0.1:*/mcp) ;;
*) fail "the URL is not https://127.0.0.1:PORT/mcp: '$url' ($(cat "$tmp/server.err"))" ;;
esac
if [ -n "$url" ]; then
    got=$(curl -sS --max-time 5 --cacert "$tmp/a.crt" "$base/healthz" 2>&1 || true)
    [ "$got" = ok ] || fail "/healthz over https: '$got'"
    # another certificate does not verify it: the server really presents a.crt
    if curl -s --max-time 5 --cacert "$tmp/b.crt" -o /dev/null "$base/healthz"; then
        fail "curl trusted the server with another certificate"
    fi
    rc=0
    got=$(curl -s --max-time 5 "${base/https:/http:}/healthz") || rc=$?
    [ "$rc" != 0 ] && [ "$got" != ok ] || fail "plain http to the TLS port answered: '$got'"
    code=$(curl -s --max-time 5 --cacert "$tmp/a.crt" -o "$tmp/body" -D "$tmp/headers" \
        -w '%{http_code}' -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' --data-binary \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' ||
        true)
    [ "$code" = 200 ] || fail "MCP initialize over https: HTTP $code ($(head -c 300 "$tmp/body" 2>/dev/null))"
    grep -q '"serverInfo"' "$tmp/body" || fail "initialize over https: no serverInfo: $(head -c 300 "$tmp/body")"
    grep -qi '^Mcp-Session-Id: [0-9a-f]\{64\}' "$tmp/headers" || fail "initialize over https: no session id"
fi
stop

# ==== flags and files that must refuse ========================================
rc=0
"$MNEMO" serve --port 0 --tls-cert "$tmp/a.crt" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--tls-cert and --tls-key go together" "$tmp/err" ||
    fail "--tls-cert alone: exit $rc: $(cat "$tmp/err")"
rc=0
"$MNEMO" serve --port 0 --tls-key "$tmp/a.key" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- "--tls-cert and --tls-key go together" "$tmp/err" ||
    fail "--tls-key alone: exit $rc: $(cat "$tmp/err")"
refused "missing key" 1 "cannot open the --tls-key file '$tmp/none.key'" \
    --tls-cert "$tmp/a.crt" --tls-key "$tmp/none.key"
refused "mismatched key" 2 "does not match the certificate '$tmp/a.crt'" \
    --tls-cert "$tmp/a.crt" --tls-key "$tmp/b.key"
refused "key given as the certificate" 2 "'$tmp/a.key' holds no PEM certificate" \
    --tls-cert "$tmp/a.key" --tls-key "$tmp/a.key"
(umask 077 && openssl pkcs8 -topk8 -in "$tmp/a.key" -out "$tmp/enc.key" -passout pass:secret)
refused "key with a passphrase" 2 "'$tmp/enc.key' is encrypted with a passphrase" \
    --tls-cert "$tmp/a.crt" --tls-key "$tmp/enc.key"
cp "$tmp/a.key" "$tmp/open.key"
chmod 644 "$tmp/open.key"
refused "world-readable key" 2 "'$tmp/open.key' is open to other users (mode 0644)" \
    --tls-cert "$tmp/a.crt" --tls-key "$tmp/open.key"
chmod 640 "$tmp/open.key"
refused "group-readable key" 2 "(mode 0640): make it private" \
    --tls-cert "$tmp/a.crt" --tls-key "$tmp/open.key"

# ==== no clear-text warning off loopback with TLS =============================
start --host 0.0.0.0 --tls-cert "$tmp/a.crt" --tls-key "$tmp/a.key"
[ -n "$url" ] || fail "no URL on 0.0.0.0 with TLS: $(cat "$tmp/server.err")"
if grep -q "warning" "$tmp/server.err"; then fail "a warning with TLS: $(cat "$tmp/server.err")"; fi
got=$(curl -sS --max-time 5 --cacert "$tmp/a.crt" "https://127.0.0.1:${base##*:}/healthz" 2>&1 || true)
[ "$got" = ok ] || fail "/healthz over https on 0.0.0.0: '$got'"
stop
# the same bind without TLS warns: the check above is not vacuous
start --host 0.0.0.0
grep -q "warning: .* without TLS" "$tmp/server.err" || fail "no warning without TLS: $(cat "$tmp/server.err")"
stop

if [ "$failures" -gt 0 ]; then
    echo "http_tls: $failures failure(s)"
    exit 1
fi
echo "http_tls: ok"
