#!/usr/bin/env bash
# http_pg_tokens.sh - `mnemo serve --db postgres://...` with access tokens
# kept in the PostgreSQL store (pg_tokens.c; CTest pg/http_pg_tokens, label
# pg, on the cluster MNEMO_TEST_PG names).
#
#   tokens   `mnemo token create/list/revoke --db CONNINFO` write and read the
#            tokens table of that database (checked with psql): only the
#            secret's SHA-256 is stored
#   401      no token, an unknown one, a revoked one (at the next request of
#            the running server)
#   403      a reader's save, through MCP and REST
#   200      a writer's save and a reader's get, through MCP and REST; the
#            memory is in the database, its audit row names the token
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"
db_setup tok
cd "$tmp"

# ==== tokens =================================================================
secret() { # secret NAME PROJECT ROLE: make a token, print its secret
    m --json token create --project "$2" --role "$3" --name "$1" |
        node -e "const d = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.stdout.write(d.secret)"
}
w=$(secret writer-a alpha writer)
r=$(secret reader-a alpha reader)
gone=$(secret gone-a alpha writer)
[[ $w =~ ^mnemo_[0-9a-f]{64}$ && $r =~ ^mnemo_[0-9a-f]{64}$ ]] || fail "secrets '$w' '$r'"
[ "$(sql "SELECT count(*) FROM tokens")" = 3 ] || fail "3 rows in the database's tokens table"
whash=$(printf '%s' "$w" | sha256sum | cut -d' ' -f1)
[ "$(sql "SELECT name FROM tokens WHERE secret_hash = '$whash'")" = writer-a ] ||
    fail "the stored hash is the secret's SHA-256"
[ "$(sql "SELECT count(*) FROM tokens WHERE secret_hash LIKE '%${w#mnemo_}%'")" = 0 ] ||
    fail "the secret itself is stored"
m token list >"$tmp/out"
grep -q reader-a "$tmp/out" && grep -q writer-a "$tmp/out" || fail "token list: $(cat "$tmp/out")"
grep -q "${w#mnemo_}" "$tmp/out" && fail "token list shows a secret"
rc=0
m token create --project alpha --role reader --name reader-a >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] && grep -q "'reader-a'" "$tmp/err" || fail "a name taken twice: exit $rc, $(cat "$tmp/err")"

# ==== the server =============================================================
m config set serve.auth token >/dev/null
: >"$tmp/server.err"
"$MNEMO" --db "$DB" serve --port 0 2>"$tmp/server.err" &
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

ACCEPT='Accept: application/json, text/event-stream'
CT='Content-Type: application/json'
post() {
    local body=$1
    shift
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$url" -H "$CT" -H "$ACCEPT" "$@" --data-binary "$body")
}
hdr() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -n 1; }
expect_code() { [ "$code" = "$1" ] || fail "$2: HTTP $code, not $1 ($(head -c 300 "$tmp/body"))"; }
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
session() {
    post "$INIT" -H "Authorization: Bearer $1"
    expect_code 200 "initialize with a token"
    local sid
    sid=$(hdr Mcp-Session-Id)
    post '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $sid"
    echo "$sid"
}
n=0
call() {
    n=$((n + 1))
    post "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"tools/call\",\"params\":{\"name\":\"$3\",\"arguments\":$4}}" \
        -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $2"
}
rest() { # rest TOKEN OP BODY: POST /v1/OP, as TOKEN ("" for none)
    local auth=()
    [ -n "$1" ] && auth=(-H "Authorization: Bearer $1")
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$base/v1/$2" -H "$CT" "${auth[@]}" --data-binary "$3")
}
SAVE='{"kind":"gotcha","title":"Alpha checkout retries","body":"Alpha retries the checkout twice; the idempotency key stops a double charge.","context":{"situation":"a checkout retried","solution":"send the idempotency key","trigger_keywords":["checkout","retry","idempotency"]}}'
SAVE2='{"kind":"decision","title":"Refunds go through the queue","body":"Refunds are queued and drained nightly so that a retry never pays twice."}'

# ---- 401 ----
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz needs a token"
post "$INIT"
expect_code 401 "MCP initialize without a token"
[ "$(hdr WWW-Authenticate)" = 'Bearer realm="mnemo"' ] || fail "401 without WWW-Authenticate: Bearer"
post "$INIT" -H "Authorization: Bearer mnemo_$(printf '%064d' 7)"
expect_code 401 "an unknown token"
rest "" save "$SAVE"
expect_code 401 "REST save without a token"

# ---- 200 and 403 through MCP ----
sw=$(session "$w")
call "$w" "$sw" save "$SAVE"
expect_code 200 "MCP: the writer saves"
grep -q '"isError":true' "$tmp/body" && fail "MCP save is an error: $(head -c 300 "$tmp/body")"
sr=$(session "$r")
call "$r" "$sr" save "$SAVE2"
expect_code 403 "MCP: the reader saves"
# ---- through REST ----
rest "$r" save "$SAVE2"
expect_code 403 "REST: the reader saves"
rest "$w" save "$SAVE2"
expect_code 200 "REST: the writer saves"
id=$(node -e "process.stdout.write(JSON.parse(require('fs').readFileSync('$tmp/body', 'utf8')).id || '')")
[ ${#id} = 26 ] || fail "REST save gave id '$id'"
rest "$r" get "{\"id\":\"$id\"}"
expect_code 200 "REST: the reader gets"
grep -q "Refunds go through the queue" "$tmp/body" || fail "REST get: $(head -c 300 "$tmp/body")"
[ "$(sql "SELECT count(*) FROM memories m JOIN projects p ON p.id = m.project_id WHERE p.name = 'alpha'")" = 2 ] ||
    fail "two memories of alpha in the database"
[ "$(sql "SELECT count(*) FROM audit WHERE action = 'save' AND actor = 'token:writer-a'")" = 2 ] ||
    fail "the audit rows name the writer's token: $(sql "SELECT actor, action FROM audit")"
[ -n "$(sql "SELECT last_used_at FROM tokens WHERE name = 'writer-a'")" ] || fail "last_used_at not noted"

# ---- revoked: at the next request ----
rest "$gone" get "{\"id\":\"$id\"}"
expect_code 200 "a token before its revocation"
m token revoke gone-a >/dev/null
[ -n "$(sql "SELECT revoked_at FROM tokens WHERE name = 'gone-a'")" ] || fail "revoked_at not set"
rest "$gone" get "{\"id\":\"$id\"}"
expect_code 401 "a revoked token"

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=
[ "$rc" = 0 ] || fail "the server exited $rc"
db_finish
