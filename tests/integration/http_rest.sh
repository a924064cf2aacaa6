#!/usr/bin/env bash
# http_rest.sh - the REST API of `mnemo serve` (/v1, /v1/openapi.json,
# /metrics, the push webhook), checked with curl against a real server on a
# real git repository's store.
#
#   ops         every op of the table answers at POST /v1/<op> (its own
#               answer or its own error, never a routing one); save then
#               search finds it, feedback on the served id is recorded;
#               /v1/plan-context with legacy and trace
#   refusals    malformed JSON and a body that is no object (400), a wrong
#               field (400, the op's message), an unknown id (404
#               not_found), wrong Content-Type (415), unknown route (404),
#               wrong method (405 with Allow), over 4 MiB (413, with and
#               without Expect: 100-continue), a foreign Origin or Host
#               (403); each one JSON error
#   webhook     GitHub (X-Hub-Signature-256 computed here with openssl) and
#               GitLab (X-Gitlab-Token): a good signature runs ingest_git on
#               the repository (a new commit is read), a bad or missing one
#               gets 401 with WWW-Authenticate; ping and other events do
#               nothing; the secret is never in the log or in config get; a
#               literal secret is refused by config set; a secret that
#               cannot be read stops the server from starting; without one
#               the webhook is off (403)
#   metrics     request, error and latency counts per op and front end move
#               by exactly the calls made (REST and MCP), store sizes, served
#               items and feedback; 4 clients at once are each counted once
#   openapi     3.1, every op with its request and answer schemas, every
#               $ref resolves, each schema compiles with ajv (JSON Schema
#               2020-12, the dialect of OpenAPI 3.1)
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-rest.XXXXXX")
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
NODE_MODULES=${MNEMO_DEPS_DIR:-/work/main/.deps}/node/node_modules
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
git -c user.name=t -c user.email=t@t commit -qm "shop: checkout charges the cart"
"$MNEMO" init >/dev/null

SECRET=hook-secret-0123456789abcdef
export MNEMO_TEST_HOOK_SECRET=$SECRET
"$MNEMO" config set serve.webhook_secret "$SECRET" >/dev/null 2>"$tmp/err" &&
    fail "config set took a literal webhook secret" || true
grep -q "$SECRET" "$tmp/err" && fail "config set repeated the literal secret" || true
"$MNEMO" config set serve.webhook_secret env:MNEMO_TEST_HOOK_SECRET >/dev/null
[ "$("$MNEMO" config get serve.webhook_secret)" = "env:MNEMO_TEST_HOOK_SECRET" ] ||
    fail "config get serve.webhook_secret"

# start [ARGS...]: run `mnemo serve --port 0 ARGS`, set $base
start() {
    : >"$tmp/server.err"
    MNEMO_LOG=info "$MNEMO" serve --port 0 "$@" 2>"$tmp/server.err" &
    server_pid=$!
    local url=
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
    [ "$rc" = 0 ] || fail "the server exited $rc after SIGTERM"
}

CT='Content-Type: application/json'
# call PATH BODY [curl args...]: POST; sets $code, body in $tmp/body, headers in $tmp/headers
call() {
    local path=$1 body=$2
    shift 2
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$base$path" "$@" --data-binary "$body")
}
get() { code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' "$base$1"); }
hdr() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -n 1; }
expect_code() { [ "$code" = "$1" ] || fail "$2: HTTP $code, not $1 ($(head -c 300 "$tmp/body"))"; }
# expect_error STATUS CODE DESC: the answer is STATUS with {"error":{"code":CODE,"message":...}}
expect_error() {
    expect_code "$1" "$3"
    # jansson writes the keys in the order packed: one object, code then a message
    grep -Eq '^\{"error":\{"code":"'"$2"'","message":"[^"]{10,}.*"\}\}$' "$tmp/body" ||
        fail "$3: error body $(head -c 200 "$tmp/body")"
}
# metric NAME_AND_LABELS: its value in $tmp/metrics (0 when absent)
metric() {
    local v
    v=$(grep -v '^#' "$tmp/metrics" | grep -F "$1 " | head -n 1 | awk '{print $NF}')
    echo "${v:-0}"
}
scrape() { curl -s "$base/metrics" >"$tmp/metrics"; }

start
scrape
m_search0=$(metric 'mnemo_requests_total{project="default",front="rest",op="search"}')
[ "$m_search0" = 0 ] || fail "a fresh server counted searches"

# ---- an error that quotes the input is scrubbed, on a worker's first call too ----
# (the scanner is loaded on first use, and a schema's refusal comes before anything loads it)
GH=ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1
for body in "{\"title\":\"x\",\"kind\":\"$GH\"}" "{\"title\":\"x\",\"$GH\":1}"; do
    call /v1/save "$body" -H "$CT"
    expect_code 400 "a save refused for its input"
    grep -q 'FAKEq7Wm2Xr9' "$tmp/body" && fail "an error repeats a token: $(head -c 300 "$tmp/body")"
    grep -q 'REDACTED:github-pat' "$tmp/body" || fail "the error does not say what it left out: $(head -c 300 "$tmp/body")"
done

# ---- ops: save, search, feedback, recall, review, plan-context ----
call /v1/save '{"kind":"gotcha","title":"Cart totals are in cents","body":"cart.total returns cents, not euros; divide by 100 before showing it.","context":{"situation":"showing a cart total","solution":"divide cart.total by 100","trigger_keywords":["cart","total","cents"]}}' -H "$CT"
expect_code 200 "save"
js "save answer" "d.action === 'created' && d.status === 'active' && /^[0-9A-Z]{26}$/.test(d.id)" <"$tmp/body"
saved_id=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)" <"$tmp/body")
[ "$(hdr Content-Type)" = "application/json" ] || fail "save: Content-Type $(hdr Content-Type)"
"$MNEMO" show "$saved_id" | grep "Cart totals are in cents" >/dev/null || fail "the CLI does not see the REST save"

call /v1/search '{"query":"why is the cart total in cents","kinds":["memory"]}' -H "$CT"
expect_code 200 "search"
js "search finds the save" "d.items.length >= 1 && d.items[0].id === '$saved_id' && d.served > 0" <"$tmp/body"
served=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).served)" <"$tmp/body")
call /v1/feedback "{\"signal\":\"used\",\"served\":$served,\"items\":[\"$saved_id\"]}" -H "$CT"
expect_code 200 "feedback"
js "feedback recorded" "d.recorded === 1" <"$tmp/body"
call /v1/recall '{"query":"cart total cents"}' -H "$CT"
expect_code 200 "recall"
js "recall" "Array.isArray(d.facts) && typeof d.confidence === 'number'" <"$tmp/body"
call /v1/review '{}' -H "$CT"
expect_code 200 "review (list)"

call /v1/plan-context '{"task":"checkout charges the cart","legacy":true,"trace":true}' -H "$CT"
expect_code 200 "plan-context legacy"
js "plan-context legacy+trace" "d.pipeline_version === 'legacy_v0' && d.trace !== undefined && d.selected.some(f => f.path === 'shop.py')" <"$tmp/body"
call /v1/plan-context '{"task":"checkout charges the cart","trace":true}' -H "$CT"
expect_code 200 "plan-context"
js "plan-context graph first" "d.pipeline_version === 'graph_first_v1' && d.trace !== undefined && typeof d.text === 'string'" <"$tmp/body"
call /v1/plan_files '{"task":"checkout charges the cart"}' -H "$CT"
js "plan_files without trace" "d.pipeline_version === 'graph_first_v1' && d.trace === undefined" <"$tmp/body"
call /v1/status '' -H 'Content-Type:' # no body, no Content-Type: {}
expect_code 200 "status without a body"

# ---- every op answers at its route ----
get /v1/openapi.json
expect_code 200 "openapi.json"
cp "$tmp/body" "$tmp/openapi.json"
node -e "const d = JSON.parse(require('fs').readFileSync('$tmp/openapi.json','utf8'));
for (const [p, v] of Object.entries(d.paths)) if (v.post && p === '/v1/' + v.post.operationId) console.log(v.post.operationId)" >"$tmp/ops"
nops=$(wc -l <"$tmp/ops")
[ "$nops" -ge 30 ] || fail "openapi lists $nops ops"
for op in save get list search search_code context recall feedback review plan_files ingest_git capture audit config; do
    grep -qx "$op" "$tmp/ops" || fail "openapi has no /v1/$op"
done
while read -r op; do
    case $op in
    ingest_git | index | discover | consolidate | scan | gc) body='{"dry_run":true}' ;;
    *) body='{}' ;;
    esac
    # ops whose schema has no dry_run get {} (their required fields missing: their own 400)
    call "/v1/$op" "$body" -H "$CT"
    if [ "$code" = 400 ] && grep -q "dry_run" "$tmp/body"; then call "/v1/$op" '{}' -H "$CT"; fi
    case $code in
    200) ;;
    400 | 404 | 409)
        grep -q '^{"error":{"code":"[a-z_]*","message":"'"$op"':' "$tmp/body" ||
            fail "/v1/$op: $code is not the op's own answer ($(head -c 200 "$tmp/body"))"
        ;;
    *) fail "/v1/$op: HTTP $code ($(head -c 200 "$tmp/body"))" ;;
    esac
done <"$tmp/ops"

# ---- refusals ----
scrape
m_search0=$(metric 'mnemo_requests_total{project="default",front="rest",op="search"}')
m_415=$(metric 'mnemo_http_responses_total{path="/v1",status="415"}')
call /v1/save '{"kind":' -H "$CT"
expect_error 400 invalid "malformed JSON"
grep -q "malformed JSON" "$tmp/body" || fail "malformed JSON: message"
call /v1/save '[{"kind":"fact"}]' -H "$CT"
expect_error 400 invalid "an array body"
call /v1/search '{"query":42}' -H "$CT"
expect_error 400 invalid "a wrong type"
grep -q "query" "$tmp/body" || fail "a wrong type: the message names the field"
call /v1/get '{"id":"0000000000"}' -H "$CT"
expect_error 404 not_found "an unknown id"
call /v1/save '{"kind":"fact"}' -H 'Content-Type: text/plain'
expect_error 415 unsupported_media_type "text/plain"
call /v1/save '{"kind":"fact"}'
expect_error 415 unsupported_media_type "a body without Content-Type"
call /v1/no_such_op '{}' -H "$CT"
expect_error 404 not_found "an unknown route"
get /v2/save
expect_code 404 "a path outside /v1"
get /v1/search
expect_error 405 method_not_allowed "GET on an op"
[ "$(hdr Allow)" = "POST" ] || fail "405: Allow is '$(hdr Allow)'"
call /metrics '' -X DELETE
expect_error 405 method_not_allowed "DELETE /metrics"
[ "$(hdr Allow)" = "GET, HEAD" ] || fail "405 /metrics: Allow is '$(hdr Allow)'"
head -c $((5 << 20)) /dev/zero | tr '\0' ' ' >"$tmp/big"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST "$base/v1/import" -H "$CT" -H 'Expect:' --data-binary @"$tmp/big")
expect_error 413 too_big "a 5 MiB body"
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST "$base/v1/import" -H "$CT" -H 'Expect: 100-continue' --data-binary @"$tmp/big")
expect_error 413 too_big "a 5 MiB body with Expect: 100-continue"
grep -q "4194304" "$tmp/body" || fail "413: the message names the limit"
call /v1/search '{"query":"cart"}' -H "$CT" -H 'Origin: http://evil.example'
expect_error 403 denied "a foreign Origin on /v1"
call /v1/search '{"query":"cart"}' -H "$CT" -H 'Host: evil.example'
expect_error 403 denied "a foreign Host on /v1"
get /healthz
expect_code 200 "healthz still served"

# ---- the webhook ----
git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "ci: run the tests on every push"
push='{"ref":"refs/heads/main","after":"'$(git rev-parse HEAD)'","commits":[{"id":"x"}]}'
sig=$(printf '%s' "$push" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: push" -H "X-Hub-Signature-256: sha256=$sig"
expect_code 200 "webhook: a signed push"
js "webhook push ran ingest_git" "d.event === 'push' && d.ingest_git.commits.ingested >= 1" <"$tmp/body"
git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "build: pin the toolchain"
call /v1/ingest/git "$push" -H "$CT" -H "X-Gitlab-Event: Push Hook" -H "X-Gitlab-Token: $SECRET"
expect_code 200 "webhook: a GitLab push"
js "GitLab push read the new commit only" "d.ingest_git.commits.ingested === 1" <"$tmp/body"
# The last hex digit changed to another one (replacing it with a fixed digit
# would leave the signature right one time in sixteen).
case "$sig" in *0) badsig="${sig%?}1" ;; *) badsig="${sig%?}0" ;; esac
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: push" -H "X-Hub-Signature-256: sha256=$badsig"
expect_error 401 unauthenticated "webhook: a wrong signature"
hdr WWW-Authenticate | grep -q '^Bearer' || fail "401 without WWW-Authenticate"
call /v1/ingest/git "${push} " -H "$CT" -H "X-GitHub-Event: push" -H "X-Hub-Signature-256: sha256=$sig"
expect_error 401 unauthenticated "webhook: a changed body"
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: push"
expect_error 401 unauthenticated "webhook: no signature"
call /v1/ingest/git "$push" -H "$CT" -H "X-Gitlab-Event: Push Hook" -H "X-Gitlab-Token: wrong-token"
expect_error 401 unauthenticated "webhook: a wrong GitLab token"
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: ping" -H "X-Hub-Signature-256: sha256=$sig"
expect_code 200 "webhook: ping"
js "ping" "d.event === 'ping'" <"$tmp/body"
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: issues" -H "X-Hub-Signature-256: sha256=$sig"
expect_code 202 "webhook: another event"
bad='not json'
sig2=$(printf '%s' "$bad" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)
call /v1/ingest/git "$bad" -H "$CT" -H "X-GitHub-Event: push" -H "X-Hub-Signature-256: sha256=$sig2"
expect_error 400 invalid "webhook: a signed payload that is not JSON"

# ---- MCP counts under its own front end ----
mcp() { curl -s -o "$tmp/mcp" -D "$tmp/mcph" -X POST "$base/mcp" -H "$CT" -H 'Accept: application/json, text/event-stream' "$@"; }
mcp --data-binary '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
sid=$(tr -d '\r' <"$tmp/mcph" | sed -n 's/^Mcp-Session-Id: //Ip')
mcp -H "Mcp-Session-Id: $sid" --data-binary '{"jsonrpc":"2.0","method":"notifications/initialized"}'
mcp -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' --data-binary '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"cart"}}}'
grep -q '"result"' "$tmp/mcp" || fail "MCP search: $(head -c 200 "$tmp/mcp")"

# ---- metrics ----
scrape
[ "$(metric 'mnemo_requests_total{project="default",front="rest",op="search"}')" = $((m_search0 + 1)) ] ||
    fail "rest search count: $(metric 'mnemo_requests_total{project="default",front="rest",op="search"}'), not $m_search0 + 1 (the wrong type)"
[ "$(metric 'mnemo_errors_total{project="default",front="rest",op="search",code="invalid"}')" -ge 1 ] || fail "search error count"
[ "$(metric 'mnemo_requests_total{project="default",front="mcp",op="search"}')" = 1 ] || fail "mcp search count"
[ "$(metric 'mnemo_errors_total{project="default",front="rest",op="get",code="not_found"}')" -ge 1 ] || fail "get not_found count"
[ "$(metric 'mnemo_requests_total{project="default",front="rest",op="ingest_git"}')" -ge 2 ] || fail "the webhook's ingest_git count"
[ "$(metric 'mnemo_op_duration_seconds_count{project="default",front="rest",op="save"}')" = "$(metric 'mnemo_requests_total{project="default",front="rest",op="save"}')" ] ||
    fail "histogram count != requests"
[ "$(metric 'mnemo_op_duration_seconds_bucket{project="default",front="rest",op="save",le="+Inf"}')" -ge 1 ] || fail "save histogram"
[ "$(metric 'mnemo_feedback_total{project="default",signal="used"}')" = 1 ] || fail "feedback used count"
[ "$(metric 'mnemo_served_items_total{project="default",op="search"}')" -ge 1 ] || fail "served items"
[ "$(metric 'mnemo_memories{project="default",status="active"}')" -ge 1 ] || fail "memories gauge"
[ "$(metric 'mnemo_files{project="default"}')" = 1 ] || fail "files gauge: $(metric 'mnemo_files{project="default"}')"
[ "$(metric 'mnemo_http_responses_total{path="/v1",status="415"}')" = $((m_415 + 2)) ] || fail "415 responses counted"
grep -q '^# TYPE mnemo_op_duration_seconds histogram$' "$tmp/metrics" || fail "histogram TYPE line"
# the text format: every sample line is NAME{LABELS} VALUE
grep -v '^#' "$tmp/metrics" | grep -Ev '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$' &&
    fail "lines above are not Prometheus samples" || true
before=$(metric 'mnemo_requests_total{project="default",front="rest",op="recall"}')
call /v1/recall '{"query":"x"}' -H "$CT"
scrape
[ "$(metric 'mnemo_requests_total{project="default",front="rest",op="recall"}')" = $((before + 1)) ] || fail "recall count: $(metric 'mnemo_requests_total{project="default",front="rest",op="recall"}'), not $before + 1"

# 4 clients at once, 10 calls each: every one answered and counted once (the counters are atomics)
before=$(metric 'mnemo_requests_total{project="default",front="rest",op="status"}')
pids=()
for c in 1 2 3 4; do
    (for _ in $(seq 1 10); do
        curl -s -o /dev/null -w '%{http_code}\n' -X POST "$base/v1/status"
    done >"$tmp/parallel.$c") &
    pids+=($!)
done
wait "${pids[@]}"
[ "$(cat "$tmp"/parallel.* | grep -c '^200$')" = 40 ] || fail "parallel calls: $(sort "$tmp"/parallel.* | uniq -c)"
scrape
[ "$(metric 'mnemo_requests_total{project="default",front="rest",op="status"}')" = $((before + 40)) ] ||
    fail "parallel status count: $(metric 'mnemo_requests_total{project="default",front="rest",op="status"}'), not $before + 40"

# ---- openapi.json shape, and ajv compiles every schema ----
NODE_PATH=$NODE_MODULES node -e "
const d = JSON.parse(require('fs').readFileSync('$tmp/openapi.json', 'utf8'));
const Ajv = require('ajv/dist/2020').default, addFormats = require('ajv-formats');
const ajv = new Ajv({strict: true, allowUnionTypes: true, allErrors: true}); addFormats(ajv);
const bad = [];
if (d.openapi !== '3.1.0' || !d.info || !d.info.title || !d.info.version) bad.push('info');
if (!d.components.securitySchemes.bearer || d.components.securitySchemes.bearer.scheme !== 'bearer') bad.push('bearer');
const resolve = r => r.replace(/^#\//, '').split('/').reduce((o, k) => o && o[k], d);
(function walk(v, at) {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, at + '/' + i));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
    if (k === '\$ref' && !resolve(x)) bad.push('dangling ' + x + ' at ' + at);
    walk(x, at + '/' + k);
  }
})(d, '');
const ops = require('fs').readFileSync('$tmp/ops', 'utf8').trim().split('\n');
for (const op of ops) {
  const p = d.paths['/v1/' + op].post;
  if (!p.requestBody || !p.responses['200'] || !p.responses['400'] || !p.summary) bad.push('path ' + op);
  for (const k of [op + '.input', op + '.output']) {
    const s = d.components.schemas[k];
    if (!s || typeof s !== 'object' || Array.isArray(s)) { bad.push('schema ' + k); continue; }
    try { ajv.compile(s) } catch (e) { bad.push(k + ': ' + e.message) }
  }
}
for (const p of ['/v1/plan-context', '/v1/ingest/git', '/metrics', '/healthz', '/v1/openapi.json'])
  if (!d.paths[p]) bad.push('no ' + p);
if (bad.length) { console.error(bad.slice(0, 10).join('\n')); process.exit(1) }
" || fail "openapi.json"

stop
grep -q "$SECRET" "$tmp/server.err" && fail "the server's log holds the webhook secret" || true

# ---- the secret: unreadable stops the start; none turns the webhook off ----
if MNEMO_TEST_HOOK_SECRET= "$MNEMO" serve --port 0 2>"$tmp/err"; then
    fail "serve started with an unset webhook secret variable"
else
    grep -q "serve.webhook_secret names \$MNEMO_TEST_HOOK_SECRET, which is not set" "$tmp/err" || fail "unset secret: $(cat "$tmp/err")"
fi
"$MNEMO" config unset serve.webhook_secret >/dev/null
start
call /v1/ingest/git "$push" -H "$CT" -H "X-GitHub-Event: push" -H "X-Hub-Signature-256: sha256=$sig"
expect_error 403 denied "webhook without a secret"
stop

echo "http_rest: $failures failure(s)"
[ "$failures" = 0 ]
