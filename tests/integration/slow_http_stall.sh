#!/usr/bin/env bash
# slow_http_stall.sh - a retraining of the built-in model does not stall the
# whole server (issue 24, docs/internals/load.md "The stalls").
#
# A store of 800 memories with its model, then 450 more: the next
# search is due to retrain (the corpus grew by 1.5x). `mnemo serve` with
# serve.threads 4 gets 4 searches at once on 4 connections (every worker
# reaches the retraining together), then, while they run, /healthz and a
# fifth search on new connections. Checks:
#   - exactly one model is trained (mnemo_embed_trainings_total in
#     /metrics): before, each worker trained the same model at once;
#   - /healthz and the fifth search answer within a third of the slowest
#     of the four (the one that trained), a ratio of the slow operation's
#     own time, not a fixed bound: before, every worker was training and
#     they waited for it as long;
#   - the four searches and the fifth answer 200.
# About 10 s. A failed check is reported and the script goes on; it exits 1
# if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-stall.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME" "$tmp/root"
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
cd "$tmp/root" # no code to index: the corpus is the memories
db=$tmp/stall.db

# memories FROM TO: JSONL of import, a few words of a small vocabulary each
words=(index schema migration query latency lock deadlock cache token server worker thread
    socket timeout retry commit branch merge review deploy config parser vector model journal
    backup replica quota budget planner sampler buffer)
memories() {
    local i
    for ((i = $1; i < $2; i++)); do
        printf '{"id":"01M8HGGCA65NB2F1ZHM3F%05d","kind":"fact","level":"L1","confidence":0.9,' "$i"
        printf '"provenance":{"source":"manual","author":"t","extraction_method":"manual"},'
        printf '"title":"note %d %s %s","body":"the %s of the %s waits on the %s (case %d)",' \
            "$i" "${words[i % 32]}" "${words[(i * 7 + 3) % 32]}" "${words[(i * 3 + 1) % 32]}" \
            "${words[(i * 5 + 2) % 32]}" "${words[(i * 11 + 7) % 32]}" "$i"
        printf '"status":"active","created_at":"2026-11-28T16:41:09.190Z",'
        printf '"updated_at":"2026-11-28T16:41:09.190Z"}\n'
    done
}
memories 0 800 >"$tmp/first.jsonl"
memories 800 1250 >"$tmp/second.jsonl"
"$MNEMO" --db "$db" import "$tmp/first.jsonl" >/dev/null
"$MNEMO" --db "$db" search "lock worker" >/dev/null 2>&1 # trains the first model
"$MNEMO" --db "$db" import "$tmp/second.jsonl" >/dev/null
"$MNEMO" --db "$db" config set serve.threads 4 >/dev/null

"$MNEMO" --db "$db" serve --port 0 2>"$tmp/server.err" &
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

# search N QUERY: POST /v1/search on a new connection; "status seconds" in $tmp/search.N
search() {
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --max-time 60 \
        -H 'Content-Type: application/json' -d "{\"query\":\"$2\"}" \
        "$base/v1/search" >"$tmp/search.$1" || echo "000 60" >"$tmp/search.$1"
}
pids=()
for n in 1 2 3 4; do
    search "$n" "${words[n]} ${words[n + 8]} timeout" &
    pids+=($!)
done
sleep 0.3 # the four are under way (the training takes seconds)
hz=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 60 "$base/healthz" ||
    echo "000 60")
search 5 "deploy backup"
for p in "${pids[@]}"; do wait "$p"; done

slowest=0
for n in 1 2 3 4 5; do
    read -r code secs <"$tmp/search.$n"
    [ "$code" = 200 ] || fail "search $n answered $code"
    if [ "$n" -le 4 ] && awk -v a="$secs" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then
        slowest=$secs
    fi
done
read -r _ fifth <"$tmp/search.5"
read -r hz_code hz_secs <<<"$hz"
[ "$hz_code" = 200 ] || fail "/healthz answered $hz_code"
echo "slowest of the four searches ${slowest}s, /healthz ${hz_secs}s, the fifth search ${fifth}s"
awk -v a="$hz_secs" -v b="$slowest" 'BEGIN { exit !(a < b / 3) }' ||
    fail "/healthz took ${hz_secs}s while the slowest search took ${slowest}s (not under a third)"
awk -v a="$fifth" -v b="$slowest" 'BEGIN { exit !(a < b / 3) }' ||
    fail "the fifth search took ${fifth}s while the slowest took ${slowest}s (not under a third)"

trainings=$(curl -s --max-time 30 "$base/metrics" |
    awk '$1 == "mnemo_embed_trainings_total" { print $2 }')
[ "$trainings" = 1 ] || fail "the server trained '${trainings}' models, not 1"

kill "$server_pid"
wait "$server_pid" || fail "the server did not stop cleanly"
server_pid=
if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "slow_http_stall: all checks passed"
