#!/usr/bin/env bash
# concurrency.sh - several processes on one store: nothing lost, nothing torn,
# nobody fails.
#
# 4 processes save 1,000 memories each (one transaction per save) while 2
# processes list and export in a loop until the savers are done. Afterwards
# every one of the 4,001 memories (with the one that created the store) must
# be stored and complete, PRAGMA integrity_check and foreign_key_check must
# pass, and every process must have exited 0: a busy timeout is a failure.
# The readers also check every memory of every export, so a reader that saw
# half a save fails too. STRESS_SAVERS, STRESS_SAVES and STRESS_READERS
# change the numbers. Needs $MNEMO_STRESS_WORKER (tests/integration/stress_worker.c).
set -euo pipefail

W=${MNEMO_STRESS_WORKER:?MNEMO_STRESS_WORKER must name the stress_worker program}
SAVERS=${STRESS_SAVERS:-4}
SAVES=${STRESS_SAVES:-1000}
READERS=${STRESS_READERS:-2}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-concurrency.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

db=$tmp/mnemo.db
stop=$tmp/stop
start=$SECONDS

# the store and its schema exist before the race starts
"$W" save "$db" 1 init >"$tmp/init.out" 2>&1 || {
    echo "FAIL: creating the store failed:" >&2
    cat "$tmp/init.out" >&2
    exit 1
}

declare -A role
for r in $(seq 1 "$READERS"); do
    "$W" read "$db" "$stop" >"$tmp/reader$r.out" 2>&1 &
    pids+=($!)
    role[$!]=reader$r
done
savers=()
for s in $(seq 1 "$SAVERS"); do
    "$W" save "$db" "$SAVES" "saver$s" >"$tmp/saver$s.out" 2>&1 &
    pids+=($!)
    savers+=($!)
    role[$!]=saver$s
done

failed=0
for p in "${savers[@]}"; do
    if ! wait "$p"; then
        echo "FAIL: ${role[$p]} exited with an error:" >&2
        cat "$tmp/${role[$p]}.out" >&2
        failed=1
    fi
done
touch "$stop"
for p in "${pids[@]}"; do
    [[ ${role[$p]} == reader* ]] || continue
    if ! wait "$p"; then
        echo "FAIL: ${role[$p]} exited with an error:" >&2
        cat "$tmp/${role[$p]}.out" >&2
        failed=1
    fi
done
pids=()
for r in $(seq 1 "$SAVERS"); do cat "$tmp/saver$r.out"; done
for r in $(seq 1 "$READERS"); do cat "$tmp/reader$r.out"; done
[[ $failed == 0 ]] || exit 1

expect=$((SAVERS * SAVES + 1))
if ! "$W" check "$db" "$expect" >"$tmp/check.out" 2>&1; then
    echo "FAIL: the store is not whole after the race:" >&2
    cat "$tmp/check.out" >&2
    exit 1
fi
cat "$tmp/check.out"
echo "concurrency: ok: $SAVERS savers x $SAVES + $READERS readers in $((SECONDS - start)) s"
