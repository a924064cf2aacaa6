#!/usr/bin/env bash
# http_sync.sh - the server's own clone of a project's repository (issue 24:
# "the server keeps each project's code index fresh from a clone it owns,
# updated by the push webhook or a poll interval"), against a real server
# and a local bare repository standing for the forge.
#
#   config      serve.repo takes an https:// or file:// URL or an absolute
#               path, refuses credentials (without printing them) and
#               anything else; serve.poll refuses less than 30s; both are
#               command line only (an agent cannot point the server away)
#   start       the server clones serve.repo (its directory private, 0700)
#               and indexes it: the symbol is found by search
#   webhook     a push to the bare repository, then a signed webhook: 202
#               at once, and the new symbol is found once the sync ran;
#               /healthz answers meanwhile
#   limit       a project whose repository is over serve.repo_max_mb is
#               refused: no clone, counted as failed in /metrics
#   metrics     mnemo_sync_runs_total by project and outcome; a token of
#               another project sees none of this project's series
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-sync.XXXXXX")
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
g() { git -c user.name=t -c user.email=t@t "$@"; }

# ---- the forge: a bare repository, and a developer's clone that pushes to it ----
g init -q --bare -b main "$tmp/forge.git"
g clone -q "$tmp/forge.git" "$tmp/dev" 2>/dev/null
cd "$tmp/dev"
printf 'def checkout_basket(cart):\n    return cart.total\n' >shop.py
g add shop.py
g commit -qm "add checkout"
g push -q origin main 2>/dev/null
# a repository over 1 MB (incompressible)
g init -q --bare -b main "$tmp/big.git"
g clone -q "$tmp/big.git" "$tmp/bigdev" 2>/dev/null
(cd "$tmp/bigdev" && head -c 3000000 /dev/urandom >blob.bin && g add blob.bin && g commit -qm big && g push -q origin main 2>/dev/null)

# ---- the server's store: not inside any repository ----
mkdir -p "$tmp/server"
cd "$tmp/server"
"$MNEMO" init >/dev/null

# ---- config ----
rc=0
"$MNEMO" config set serve.repo "https://bob:hunter2secret@git.example.com/shop.git" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || [ "$rc" = 1 ] || fail "serve.repo with credentials: exit $rc"
grep -q "credentials" "$tmp/err" || fail "serve.repo with credentials: $(cat "$tmp/err")"
grep -q "hunter2" "$tmp/err" "$tmp/out" && fail "the refusal prints the password"
for bad in "relative/path" "ssh://git@host/x.git" "http://host/x.git" "https://"; do
    "$MNEMO" config set serve.repo "$bad" >/dev/null 2>&1 && fail "serve.repo '$bad' accepted"
done
"$MNEMO" config set serve.poll 10s >/dev/null 2>"$tmp/err" && fail "serve.poll 10s accepted"
grep -q "at least 30s" "$tmp/err" || fail "serve.poll 10s: $(cat "$tmp/err")"
"$MNEMO" config set serve.poll 30s >/dev/null || fail "serve.poll 30s refused"
"$MNEMO" config set serve.poll 0 >/dev/null || fail "serve.poll 0 refused"
"$MNEMO" config set serve.repo "file://$tmp/forge.git" >/dev/null || fail "serve.repo file:// refused"
[ "$("$MNEMO" config get serve.repo)" = "file://$tmp/forge.git" ] || fail "config get serve.repo"
export MNEMO_TEST_HOOK_SECRET=0123456789abcdef0123456789abcdef
"$MNEMO" config set serve.webhook_secret env:MNEMO_TEST_HOOK_SECRET >/dev/null
# project "big": its repository is over its limit; a token makes the server look at it
big_token=$("$MNEMO" --json token create --project big --role reader --name big-reader |
    node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0, 'utf8')).secret)")
MNEMO_PROJECT=big "$MNEMO" config set serve.repo "$tmp/big.git" >/dev/null || fail "serve.repo absolute path refused"
MNEMO_PROJECT=big "$MNEMO" config set serve.repo_max_mb 1 >/dev/null

# ---- the server ----
MNEMO_LOG=info "$MNEMO" serve --port 0 2>"$tmp/server.err" &
server_pid=$!
url=
for _ in $(seq 1 600); do
    url=$(grep -o 'http://[^ ]*/mcp' "$tmp/server.err" || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
done
[ -n "$url" ] || {
    cat "$tmp/server.err"
    echo "FAIL: the server did not say where it listens"
    exit 1
}
base=${url%/mcp}
CT='Content-Type: application/json'
# found SYMBOL: search (code) finds it, within 30 s
found() {
    for _ in $(seq 1 300); do
        curl -s -X POST "$base/v1/search" -H "$CT" --data-binary "{\"query\":\"$1\",\"kinds\":[\"code\"]}" >"$tmp/search"
        grep -q "$1" "$tmp/search" && return 0
        sleep 0.1
    done
    return 1
}
found checkout_basket || fail "the first sync did not index the clone: $(head -c 300 "$tmp/search"); $(grep sync "$tmp/server.err")"
clones=$(ls -d "$tmp/server/.mnemo/clones"/default-* 2>/dev/null | head -n 1)
[ -n "$clones" ] && [ -f "$clones/shop.py" ] || fail "no clone under the store's directory: $(ls -R "$tmp/server/.mnemo" | head)"
[ "$(stat -c %a "$tmp/server/.mnemo/clones")" = 700 ] || fail "clones/ is not 0700"
[ -n "$clones" ] && [ "$(stat -c %a "$clones")" = 700 ] || fail "the clone is not 0700"

# ---- a push, then the webhook ----
cd "$tmp/dev"
printf 'def refund_zebra_order(order):\n    return order.refund()\n' >refund.py
g add refund.py
g commit -qm "add the zebra refund"
g push -q origin main 2>/dev/null
cd "$tmp/server"
push='{"ref":"refs/heads/main","repository":{"full_name":"t/shop"}}'
sig=$(printf '%s' "$push" | openssl dgst -sha256 -hmac "$MNEMO_TEST_HOOK_SECRET" -r | cut -d' ' -f1)
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST "$base/v1/ingest/git" -H "$CT" -H "X-GitHub-Event: push" \
    -H "X-Hub-Signature-256: sha256=$sig" --data-binary "$push")
[ "$code" = 202 ] || fail "the signed push answered $code, not 202: $(cat "$tmp/body")"
js "the push is queued" "d.event === 'push' && d.sync === 'queued'" <"$tmp/body"
[ "$(curl -s "$base/healthz")" = ok ] || fail "/healthz while the sync runs"
found refund_zebra_order || fail "the pushed symbol is not found after the webhook: $(head -c 300 "$tmp/search")"
# the clone's history was ingested too (the commit's subject is in the store's git rows)
grep -q "sync: project 'default': [0-9]* commit(s) ingested" "$tmp/server.err" || fail "no ingest_git in the sync: $(grep sync "$tmp/server.err")"
# an unsigned push runs nothing
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/v1/ingest/git" -H "$CT" -H "X-GitHub-Event: push" --data-binary "$push")
[ "$code" = 401 ] || fail "an unsigned push answered $code"

# ---- the limit and the metrics ----
for _ in $(seq 1 200); do
    curl -s "$base/metrics" >"$tmp/metrics"
    grep -q 'mnemo_sync_runs_total{project="big",outcome="failed"} [1-9]' "$tmp/metrics" && break
    sleep 0.1
done
grep -q 'mnemo_sync_runs_total{project="big",outcome="failed"} [1-9]' "$tmp/metrics" ||
    fail "the oversize repository is not counted as failed: $(grep sync "$tmp/metrics")"
grep -q 'mnemo_sync_runs_total{project="default",outcome="ok"} 2' "$tmp/metrics" ||
    fail "two good runs of default (start, webhook): $(grep sync "$tmp/metrics")"
grep -q 'mnemo_sync_last_success_seconds{project="default"} [0-9]' "$tmp/metrics" || fail "no last success time"
ls -d "$tmp/server/.mnemo/clones"/big-* >/dev/null 2>&1 && fail "the oversize repository was cloned"
grep -q "serve.repo_max_mb" "$tmp/server.err" || fail "the refusal is not logged: $(grep sync "$tmp/server.err")"
# another project's token sees its project's series only
curl -s -H "Authorization: Bearer $big_token" "$base/metrics" >"$tmp/metrics.big"
grep -q 'project="default"' "$tmp/metrics.big" && fail "big's token sees default's series"
grep -q 'mnemo_sync_runs_total{project="big"' "$tmp/metrics.big" || fail "big's token does not see its own series: $(head -c 300 "$tmp/metrics.big")"

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=
[ "$rc" = 0 ] || fail "the server exited $rc: $(grep -v 'http: ' "$tmp/server.err" | tail -n 40)"
grep -q "hunter2" "$tmp/server.err" && fail "the server's log shows a password"
exit $((failures > 0))
