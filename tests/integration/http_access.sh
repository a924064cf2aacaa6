#!/usr/bin/env bash
# http_access.sh - who may do what on `mnemo serve` (issue 24, "Access"):
# a real server, real tokens from `mnemo token`, curl speaking MCP at /mcp.
#
#   tokens      create prints the secret once (--json too), list never
#               shows it, bad roles and names are usage errors
#   401         no token, an unknown one, a malformed header, a revoked one
#               (at the very next request of a running server, in the same
#               session), an expired one; WWW-Authenticate: Bearer; /healthz
#               needs nothing
#   403         a reader's save, forget and link through tools/call (the
#               JSON-RPC reply says which role it needs); reads pass;
#               tools/list offers a reader only what it may run
#   projects    project A's tokens never see project B: search, context,
#               get by id and by prefix, link, forget, resources/read,
#               audit; an id of B is "not found" exactly like an id that
#               never existed; a session answers only the token that opened it
#   audit       the rows name the token (actor token:NAME) on saves and
#               reads (search, context, recall, resources, get, list; MCP
#               and REST), with the ids shown; a refused read leaves none
#   modes       serve.auth local serves the local user without a token (a
#               bad token is still 401); a non-loopback bind demands a token
#               whatever serve.auth says, and warns on stderr
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-access.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 600)); process.exit(1) }" || fail "$1"
}

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    return cart.total\n' >shop.py
git add shop.py
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null

# ==== tokens =================================================================
# secret NAME PROJECT ROLE [ARGS]: make a token, print its secret
secret() {
    local name=$1 project=$2 role=$3
    shift 3
    "$MNEMO" --json token create --project "$project" --role "$role" --name "$name" "$@" |
        node -e "const d = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.stdout.write(d.secret)"
}
rA=$(secret reader-a alpha reader)
wA=$(secret writer-a alpha writer)
aA=$(secret admin-a alpha admin)
wB=$(secret writer-b beta writer)
rA2=$(secret reader-a2 alpha reader)
# made two days ago for one day: expired since yesterday
past=$(($(date +%s) * 1000 - 2 * 86400000))
old=$(MNEMO_NOW_MS=$past secret old-a alpha writer --expires 1d)
for s in "$rA" "$wA" "$aA" "$wB" "$old"; do
    [[ $s =~ ^mnemo_[0-9a-f]{64}$ ]] || fail "secret '$s' is not mnemo_ and 64 hex digits"
done
"$MNEMO" token create --project alpha --role reader --name plain >"$tmp/out" 2>"$tmp/err"
grep -Eq '^mnemo_[0-9a-f]{64}$' "$tmp/out" || fail "token create does not print the secret: $(cat "$tmp/out")"
grep -q "shown once" "$tmp/err" || fail "token create does not say the secret is shown once"
"$MNEMO" token list >"$tmp/list"
"$MNEMO" --json token list >>"$tmp/list"
grep -q "reader-a " "$tmp/list" || fail "token list does not show reader-a"
for s in "$rA" "$wA" "$aA" "$wB" "$old"; do
    grep -q "${s#mnemo_}" "$tmp/list" && fail "token list shows a secret"
done
grep -qi "hash" "$tmp/list" && fail "token list shows a hash"
"$MNEMO" --json token list | js "list: old-a expired, the rest active" \
    "d.tokens.length === 7 && d.tokens.find(t => t.name === 'old-a').state === 'expired' && d.tokens.filter(t => t.state === 'active').length === 6"
rc=0
"$MNEMO" token create --project alpha --role root 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "reader, writer, admin" "$tmp/err" || fail "role root: exit $rc: $(cat "$tmp/err")"
rc=0
"$MNEMO" token create --project alpha --role reader --name reader-a 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "exists already" "$tmp/err" || fail "a taken name: exit $rc: $(cat "$tmp/err")"
rc=0
"$MNEMO" token create --role reader 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "create without --project: exit $rc"
# not an operation: no agent reaches it
# its own status apart: under pipefail a failing `call` made the check always pass
call_out=$("$MNEMO" call 2>&1 || true)
grep "^token" <<<"$call_out" >/dev/null && fail "token is an operation"

# ==== the server =============================================================
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
stop() {
    kill -TERM "$server_pid"
    local rc=0
    wait "$server_pid" || rc=$?
    server_pid=
    [ "$rc" = 0 ] || fail "the server exited $rc"
}

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
# session SECRET: initialize with the token; prints the session id
session() {
    post "$INIT" -H "Authorization: Bearer $1"
    expect_code 200 "initialize with a token"
    local sid
    sid=$(hdr Mcp-Session-Id)
    post '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $sid"
    echo "$sid"
}
# call SECRET SID TOOL ARGS: tools/call; reply in $tmp/body, status in $code
n=0
call() {
    n=$((n + 1))
    post "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"tools/call\",\"params\":{\"name\":\"$3\",\"arguments\":$4}}" \
        -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $2"
}
rpc() {
    n=$((n + 1))
    post "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"$3\",\"params\":$4}" -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $2"
}
# the structured result of the last call
result() { node -e "const d = JSON.parse(require('fs').readFileSync('$tmp/body', 'utf8')); const r = d.result; process.stdout.write(JSON.stringify(r.structuredContent || JSON.parse(r.content[0].text)))"; }

"$MNEMO" config set serve.auth token >/dev/null
"$MNEMO" config set mcp.tools all >/dev/null
rc=0
"$MNEMO" config set serve.auth everyone 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "serve.auth everyone: exit $rc, not 2"
start

# ---- 401 ----
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz needs a token"
post "$INIT"
expect_code 401 "initialize without a token"
[ "$(hdr WWW-Authenticate)" = 'Bearer realm="mnemo"' ] || fail "401 without WWW-Authenticate: Bearer ($(hdr WWW-Authenticate))"
grep -q "needs a token" "$tmp/body" || fail "401 does not say a token is needed: $(cat "$tmp/body")"
post "$INIT" -H "Authorization: Bearer mnemo_$(printf '%064d' 7)"
expect_code 401 "an unknown token"
grep -q "unknown token" "$tmp/body" || fail "unknown token: $(cat "$tmp/body")"
post "$INIT" -H "Authorization: Basic $(printf 'u:p' | base64)"
expect_code 401 "Basic credentials"
post "$INIT" -H "Authorization: Bearer $old"
expect_code 401 "an expired token"
grep -q "expired" "$tmp/body" || fail "expired token: $(cat "$tmp/body")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/nowhere")
[ "$code" = 401 ] || fail "an unknown path without a token: $code, not 401"

# ---- writers of A and B save ----
sWA=$(session "$wA")
call "$wA" "$sWA" save '{"kind":"gotcha","title":"Alpha checkout retries","body":"Alpha retries the checkout twice; the idempotency key stops a double charge.","context":{"situation":"a checkout retried","solution":"send the idempotency key","trigger_keywords":["checkout","retry","idempotency"]}}'
expect_code 200 "writer of alpha saves"
idA=$(result | node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0, 'utf8')).id || '')")
sWB=$(session "$wB")
call "$wB" "$sWB" save '{"kind":"gotcha","title":"Zebrafish checkout","body":"Zebrafish checkout charges the card in the refund queue before the retry.","context":{"situation":"a zebrafish refund","solution":"drain the refund queue first","trigger_keywords":["zebrafish","checkout","refund"]}}'
expect_code 200 "writer of beta saves"
idB=$(result | node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0, 'utf8')).id || '')")
[ ${#idA} = 26 ] && [ ${#idB} = 26 ] || fail "saves gave ids '$idA' and '$idB'"

# a session belongs to the token that opened it
call "$rA" "$sWA" search '{"query":"checkout"}'
expect_code 404 "reader-a in writer-a's session"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url" -H "Authorization: Bearer $wB" -H "Mcp-Session-Id: $sWA")
[ "$code" = 404 ] || fail "writer-b ends writer-a's session: $code, not 404"
call "$wA" "$sWA" search '{"query":"checkout"}'
expect_code 200 "writer-a's session after the others tried it"

# ---- 403 for a reader's writes ----
sRA=$(session "$rA")
rpc "$rA" "$sRA" tools/list '{}'
js "a reader is offered only what it may run" \
    "(n => n.includes('search') && n.includes('context') && !n.includes('save') && !n.includes('forget') && !n.includes('link') && !n.includes('audit'))(d.result.tools.map(t => t.name))" <"$tmp/body"
call "$rA" "$sRA" save '{"kind":"fact","title":"Reader note","body":"A reader must not write this.","context":{"situation":"s","solution":"s","trigger_keywords":["reader","note","write"]}}'
expect_code 403 "a reader's save"
js "403 save says why" "d.result.isError === true && d.result.content[0].text.includes('needs the writer role')" <"$tmp/body"
call "$rA" "$sRA" forget "{\"id\":\"$idA\"}"
expect_code 403 "a reader's forget"
call "$rA" "$sRA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"shop.py\"}"
expect_code 403 "a reader's link"
"$MNEMO" --json show "$idA" >/dev/null 2>&1 && fail "the CLI's own project sees alpha's memory"
MNEMO_PROJECT=alpha "$MNEMO" --json show "$idA" | js "the reader's forget did nothing" "d.memory.status === 'active'"
MNEMO_PROJECT=alpha "$MNEMO" --json list | js "the reader saved nothing" "d.memories.length === 1"

# ---- project A sees nothing of B ----
call "$rA" "$sRA" search '{"query":"zebrafish refund checkout"}'
expect_code 200 "a reader's search"
grep -q "$idB" "$tmp/body" && fail "alpha's search shows beta's memory"
grep -qi "zebrafish" "$tmp/body" && fail "alpha's search shows beta's text"
call "$rA" "$sRA" search '{"query":"checkout retries idempotency"}'
grep -q "$idA" "$tmp/body" || fail "alpha's search does not find alpha's memory"
call "$rA" "$sRA" context '{"query":"zebrafish refund queue"}'
expect_code 200 "a reader's context"
grep -q "$idB" "$tmp/body" && fail "alpha's context shows beta's memory"
grep -qi "zebrafish" "$tmp/body" && fail "alpha's context shows beta's text"
call "$rA" "$sRA" recall '{"query":"zebrafish refund queue"}'
grep -qi "zebrafish\|$idB" "$tmp/body" && fail "alpha's recall shows beta's memory"
# an id of B answers exactly as an id that never existed
none=01ZZZZZZZZZZZZZZZZZZZZZZZZ
same() { # same DESC: the last two replies, ids replaced, are equal
    sed "s/$idB/ID/g; s/${idB:0:10}/ID/g; s/$none/ID/g; s/${none:0:10}/ID/g; s/\"id\":[0-9]*/\"id\":N/" "$tmp/b1" >"$tmp/n1"
    sed "s/$idB/ID/g; s/${idB:0:10}/ID/g; s/$none/ID/g; s/${none:0:10}/ID/g; s/\"id\":[0-9]*/\"id\":N/" "$tmp/body" >"$tmp/n2"
    cmp -s "$tmp/n1" "$tmp/n2" || fail "$1: B's id and a missing id differ: $(cat "$tmp/n1") / $(cat "$tmp/n2")"
    grep -q "not found" "$tmp/body" || fail "$1: not 'not found': $(head -c 300 "$tmp/body")"
}
for args in "{\"id\":\"$idB\"}|{\"id\":\"$none\"}" "{\"id\":\"${idB:0:10}\"}|{\"id\":\"${none:0:10}\"}"; do
    call "$rA" "$sRA" get "${args%|*}"
    cp "$tmp/body" "$tmp/b1"
    call "$rA" "$sRA" get "${args#*|}"
    same "get ${args%|*}"
done
rpc "$rA" "$sRA" resources/read "{\"uri\":\"mnemo://memory/$idB\"}"
cp "$tmp/body" "$tmp/b1"
rpc "$rA" "$sRA" resources/read "{\"uri\":\"mnemo://memory/$none\"}"
same "resources/read"
rpc "$rA" "$sRA" resources/read "{\"uri\":\"mnemo://memory/$idA\"}"
grep -q "Alpha retries" "$tmp/body" || fail "alpha's reader cannot read alpha's memory: $(head -c 300 "$tmp/body")"
call "$wA" "$sWA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"$idB\"}"
cp "$tmp/body" "$tmp/b1"
call "$wA" "$sWA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"$none\"}"
same "link to B's memory"
call "$wA" "$sWA" forget "{\"id\":\"$idB\"}"
cp "$tmp/body" "$tmp/b1"
call "$wA" "$sWA" forget "{\"id\":\"$none\"}"
same "forget B's memory"
MNEMO_PROJECT=beta "$MNEMO" --json show "$idB" | js "B's memory is untouched" "d.memory.status === 'active'"

# ---- audit: admin only, A's rows only, naming the tokens ----
# every read leaves a row naming the reader and the ids it was shown (not only search/context)
call "$rA" "$sRA" get "{\"id\":\"$idA\"}"
expect_code 200 "a reader's get"
call "$rA" "$sRA" list '{}'
expect_code 200 "a reader's list"
call "$rA" "$sRA" audit '{}'
expect_code 403 "a reader's audit"
sAA=$(session "$aA")
rpc "$aA" "$sAA" tools/list '{}'
js "an admin is offered audit and save" "(n => n.includes('audit') && n.includes('save'))(d.result.tools.map(t => t.name))" <"$tmp/body"
call "$aA" "$sAA" audit '{"limit":1000}'
expect_code 200 "an admin's audit"
result >"$tmp/audit"
grep -q "$idB\|writer-b\|zebrafish" "$tmp/audit" && fail "alpha's audit shows beta's rows"
js "audit names the writer on the save" \
    "d.entries.some(r => r.actor === 'token:writer-a' && r.op === 'save' && r.target === '$idA')" <"$tmp/audit"
js "audit names the reader on its reads" \
    "['search', 'context', 'recall', 'resource', 'get', 'list'].every(a => d.entries.some(r => r.actor === 'token:reader-a' && r.op === a))" <"$tmp/audit"
js "the reader's get and list name the ids shown" \
    "d.entries.some(r => r.actor === 'token:reader-a' && r.op === 'get' && r.detail.ids.join() === '$idA') && d.entries.some(r => r.actor === 'token:reader-a' && r.op === 'list' && r.detail.ids.includes('$idA'))" <"$tmp/audit"
js "a get refused as not found leaves no row; a resource read leaves its own row only" \
    "d.entries.filter(r => r.actor === 'token:reader-a' && r.op === 'get').length === 1" <"$tmp/audit"
call "$aA" "$sAA" audit '{"actor":"token:reader-a","op":"search"}'
result | js "audit --actor --op" "d.entries.length === 2 && d.entries.every(r => r.actor === 'token:reader-a' && r.op === 'search')"
MNEMO_PROJECT=alpha "$MNEMO" audit --actor token:writer-a --op save >"$tmp/out"
grep -q "$idA" "$tmp/out" || fail "mnemo audit --actor token:writer-a: $(cat "$tmp/out")"

# ---- the same rules through REST (/v1): one check in mn_api_call for every front end ----
rest() { # rest TOKEN OP BODY: POST /v1/OP, as TOKEN ("" for none)
    local tok=$1 op=$2 body=$3
    local auth=()
    [ -n "$tok" ] && auth=(-H "Authorization: Bearer $tok")
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$base/v1/$op" -H "$CT" "${auth[@]}" --data-binary "$body")
}
rest "" search '{"query":"checkout"}'
expect_code 401 "REST search without a token"
[ "$(hdr WWW-Authenticate)" = 'Bearer realm="mnemo"' ] || fail "REST 401 without WWW-Authenticate: Bearer ($(hdr WWW-Authenticate))"
js "REST 401 has the REST error body" "d.error.code === 'unauthenticated' && d.error.message.includes('needs a token')" <"$tmp/body"
rest "$old" search '{"query":"checkout"}'
expect_code 401 "REST search with an expired token"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics")
[ "$code" = 401 ] || fail "/metrics without a token: $code, not 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $rA" "$base/metrics")
[ "$code" = 200 ] || fail "/metrics with a reader's token: $code, not 200"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/openapi.json")
[ "$code" = 200 ] || fail "/v1/openapi.json without a token: $code, not 200 (the API's shape, no data)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$CT" -H "X-GitHub-Event: push" "$base/v1/ingest/git" --data-binary '{}')
[ "$code" = 403 ] || fail "the webhook (off, no secret) answered $code, not 403: its signature, not a token, is its credential"
rest "$rA" save '{"kind":"fact","title":"Reader note over REST","body":"A reader must not write this either.","context":{"situation":"s","solution":"s","trigger_keywords":["reader","rest","write"]}}'
expect_code 403 "a reader's REST save"
js "REST 403 says why" "d.error.code === 'denied' && d.error.message.includes('needs the writer role')" <"$tmp/body"
rest "$rA" forget "{\"id\":\"$idA\"}"
expect_code 403 "a reader's REST forget"
rest "$rA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"shop.py\"}"
expect_code 403 "a reader's REST link"
rest "$rA" audit '{}'
expect_code 403 "a reader's REST audit"
rest "$rA" config '{"action":"set","key":"user.name","value":"x"}'
expect_code 403 "a reader's REST config set"
MNEMO_PROJECT=alpha "$MNEMO" --json list | js "the reader's REST calls saved nothing" "!d.memories.some(m => m.title.startsWith('Reader note'))"
rest "$rA" search '{"query":"zebrafish refund checkout"}'
expect_code 200 "a reader's REST search"
grep -q "$idB" "$tmp/body" && fail "alpha's REST search shows beta's memory"
grep -qi "zebrafish" "$tmp/body" && fail "alpha's REST search shows beta's text"
rest "$rA" context '{"query":"zebrafish refund queue"}'
expect_code 200 "a reader's REST context"
grep -qi "zebrafish\|$idB" "$tmp/body" && fail "alpha's REST context shows beta's memory"
rest "$rA" get "{\"id\":\"$idB\"}"
cp "$tmp/body" "$tmp/b1"
c1=$code
rest "$rA" get "{\"id\":\"$none\"}"
[ "$c1" = "$code" ] || fail "REST get: B's id answers $c1, a missing id $code"
same "REST get"
rest "$wA" search '{"query":"checkout retries idempotency"}'
grep -q "$idA" "$tmp/body" || fail "alpha's writer does not find alpha's memory over REST"
rest "$wB" get "{\"id\":\"$idA\"}"
expect_code 404 "beta's writer gets alpha's memory over REST"
MNEMO_PROJECT=beta "$MNEMO" audit --op get --actor token:writer-b --json | js "a get of another project's id leaves no row" "d.entries.length === 0"
# REST reads are audited as MCP's are: the reader, the op, the ids
rest "$rA" get "{\"id\":\"$idA\"}"
expect_code 200 "a reader's REST get"
rest "$rA" list '{"kind":"gotcha"}'
expect_code 200 "a reader's REST list"
MNEMO_PROJECT=alpha "$MNEMO" audit --actor token:reader-a --op get --json |
    js "MCP and REST gets both audited with the id" "d.entries.length === 2 && d.entries.every(r => r.detail.ids.join() === '$idA')"
MNEMO_PROJECT=alpha "$MNEMO" audit --actor token:reader-a --op search --json |
    js "MCP and REST searches both audited with the ids" "d.entries.length === 3 && d.entries.some(r => r.detail.ids.includes('$idA'))"
MNEMO_PROJECT=alpha "$MNEMO" audit --actor token:reader-a --op list --json |
    js "MCP and REST lists both audited" "d.entries.length === 2"

# ---- revocation: the next request of the running server ----
sRA2=$(session "$rA2")
call "$rA2" "$sRA2" search '{"query":"checkout"}'
expect_code 200 "reader-a2 before revocation"
"$MNEMO" token revoke reader-a2 >/dev/null
call "$rA2" "$sRA2" search '{"query":"checkout"}'
expect_code 401 "reader-a2 right after revocation"
grep -q "revoked" "$tmp/body" || fail "revoked: $(cat "$tmp/body")"
rest "$rA2" search '{"query":"checkout"}'
expect_code 401 "reader-a2 over REST after revocation"
stop
grep -q "warning" "$tmp/server.err" && fail "a loopback server warns: $(cat "$tmp/server.err")"

# ==== local mode, and a non-loopback bind ====================================
"$MNEMO" config set serve.auth local >/dev/null
start
post "$INIT"
expect_code 200 "serve.auth local on loopback without a token"
post "$INIT" -H "Authorization: Bearer mnemo_$(printf '%064d' 7)"
expect_code 401 "serve.auth local with an unknown token"
post "$INIT" -H "Authorization: Bearer $rA"
expect_code 200 "serve.auth local with a token"
stop
start --host 0.0.0.0
url=${url/0.0.0.0/127.0.0.1}
post "$INIT"
expect_code 401 "a non-loopback server without a token"
post "$INIT" -H "Authorization: Bearer $rA"
expect_code 200 "a non-loopback server with a token"
grep -q "warning: .*without TLS" "$tmp/server.err" || fail "no warning for a non-loopback bind: $(cat "$tmp/server.err")"
stop
"$MNEMO" config set serve.behind_proxy true >/dev/null
start --host 0.0.0.0
stop
grep -q "warning" "$tmp/server.err" && fail "warns behind a proxy: $(cat "$tmp/server.err")"

if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "http_access: all checks passed"
