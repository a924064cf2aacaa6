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
# change the numbers.
#
# First, STRESS_CREATE_ROUNDS times (default 20), 8 processes released at the
# same moment open a store that is not in WAL mode yet: a new file every
# third round, else a store switched back to a rollback journal (as a copy
# made by a backup tool may be). Each must succeed: switching to WAL mode
# takes a lock without waiting for it, and once failed at once with
# "database is locked" in all but one of them.
# Needs $MNEMO_STRESS_WORKER (tests/integration/stress_worker.c).
set -euo pipefail

W=${MNEMO_STRESS_WORKER:?MNEMO_STRESS_WORKER must name the stress_worker program}
SAVERS=${STRESS_SAVERS:-4}
SAVES=${STRESS_SAVES:-1000}
READERS=${STRESS_READERS:-2}
CREATE_ROUNDS=${STRESS_CREATE_ROUNDS:-20}

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

mkfifo "$tmp/barrier"
for round in $(seq 1 "$CREATE_ROUNDS"); do
    new=$tmp/new-$round.db
    if ((round % 3 != 0)); then
        if ! { "$W" open "$new" >/dev/null && "$W" unwal "$new"; }; then
            echo "FAIL: cannot prepare a store in rollback journal mode" >&2
            exit 1
        fi
    fi
    for c in 1 2 3 4 5 6 7 8; do
        MNEMO_STRESS_BARRIER=$tmp/barrier "$W" save "$new" 5 "create$c" >"$tmp/create$c.out" 2>&1 &
        pids+=($!)
    done
    # they wait in open(barrier) for a writer; opening it releases them all at once
    sleep 0.2
    exec 3<>"$tmp/barrier"
    c=0
    for p in "${pids[@]}"; do
        c=$((c + 1))
        wait "$p" || {
            echo "FAIL: round $round: process $c of 8 opening one store at once failed:" >&2
            cat "$tmp/create$c.out" >&2
            exit 1
        }
    done
    exec 3>&-
    pids=()
    "$W" check "$new" 40 >"$tmp/check.out" 2>&1 || {
        echo "FAIL: round $round: the store 8 processes opened at once is not whole:" >&2
        cat "$tmp/check.out" >&2
        exit 1
    }
done
echo "concurrency: ok: $CREATE_ROUNDS times 8 processes switched one store to WAL mode at once"

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
