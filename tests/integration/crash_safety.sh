#!/usr/bin/env bash
# crash_safety.sh - a save killed with SIGKILL at a random moment leaves the
# store openable and whole: each memory fully there or absent.
#
# CRASH_RUNS times (default 60), a process saves rich memories in a loop
# and is killed with SIGKILL 10-300 ms after it starts. After each kill
# `stress_worker check` opens the store, runs PRAGMA integrity_check and
# foreign_key_check, and compares every stored memory field by field with
# what was saved; the number of memories must never go down, and every save
# the killed process saw commit must be there (committed means durable).
# The store grows by a few hundred memories a run, so every 10 runs start
# a new one (CRASH_SERIES) to keep the check after each kill quick.
# Every 10th run also kills 3 processes during the very first open of a
# fresh database, while the schema is being created: that database must
# open (and migrate) afterwards. The kills are aimed at random moments
# within the first half of the time a process takes to create a store (the
# sleep before the kill takes time of its own), and at least one must land
# inside the open. Needs $MNEMO_STRESS_WORKER.
set -euo pipefail

W=${MNEMO_STRESS_WORKER:?MNEMO_STRESS_WORKER must name the stress_worker program}
RUNS=${CRASH_RUNS:-60}
SERIES=${CRASH_SERIES:-10}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-crash.XXXXXX")
pid=
cleanup() {
    [[ -z $pid ]] || kill -9 "$pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

now_us() {
    local t
    t=$(date +%s%N)
    echo $((t / 1000))
}

# sleep for $1 microseconds
sleep_us() {
    sleep "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))"
}

# Start a crashloop on $1 (log $2, may be empty), kill it after $3 us.
crash() {
    local db=$1 log=$2 delay=$3
    "$W" crashloop "$db" ${log:+"$log"} 2>"$tmp/crashloop.err" &
    pid=$!
    sleep_us "$delay"
    if ! kill -9 "$pid" 2>/dev/null; then
        wait "$pid" || true
        pid=
        fail "the saving process died before it was killed: $(cat "$tmp/crashloop.err")"
    fi
    wait "$pid" 2>/dev/null || true
    pid=
}

check() {
    local out
    if ! out=$("$W" check "$@" 2>&1); then
        fail "after run $run: $out"
    fi
    echo "$out"
}

start=$SECONDS

# How long a process takes to create a store (the median of 3), to aim kills inside that.
times=()
for k in 1 2 3; do
    t0=$(now_us)
    "$W" open "$tmp/calibrate-$k.db" >/dev/null || fail "cannot create a store"
    times+=($(($(now_us) - t0)))
done
open_us=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)

total=0 committed=0
fresh_total=0 fresh_no_file=0 fresh_mid_tx=0 fresh_mid_open=0 fresh_after_open=0
for run in $(seq 1 "$RUNS"); do
    if (((run - 1) % SERIES == 0)); then
        ((run == 1)) || total=$((total + prev)) committed=$((committed + $(wc -l <"$log")))
        db=$tmp/series-$run.db
        log=$tmp/series-$run.log
        : >"$log"
        prev=0
    fi
    crash "$db" "$log" $(((10 + RANDOM % 291) * 1000))
    out=$(check "$db" --committed "$log")
    n=${out#check: }
    n=${n%% *}
    ((n >= prev)) || fail "after run $run: $n memories stored, $prev before"
    prev=$n

    if ((run % 10 == 0)); then
        for k in 1 2 3; do
            fresh=$tmp/fresh-$run-$k.db
            crash "$fresh" "" $(((RANDOM * 32768 + RANDOM) % (open_us / 2 + 1)))
            fresh_total=$((fresh_total + 1))
            if [[ -e $fresh.opened ]]; then
                fresh_after_open=$((fresh_after_open + 1))
            elif [[ -e $fresh-journal ]]; then
                fresh_mid_tx=$((fresh_mid_tx + 1))
            elif [[ -e $fresh ]]; then
                fresh_mid_open=$((fresh_mid_open + 1))
            else
                fresh_no_file=$((fresh_no_file + 1))
            fi
            check "$fresh" >/dev/null
        done
    fi
done

total=$((total + prev)) committed=$((committed + $(wc -l <"$log")))
((total > 0)) || fail "no save committed in $RUNS runs: the kills came too early"
echo "crash_safety: ok: $RUNS kills during saves, $total memories stored and whole," \
    "$committed committed saves all present"
((fresh_mid_tx + fresh_mid_open > 0)) ||
    fail "none of $fresh_total kills aimed at the first open landed inside it"
echo "crash_safety: ok: $fresh_total kills while creating a store (open takes" \
    "$((open_us / 1000)) ms): $fresh_no_file before the file existed, $fresh_mid_tx inside a" \
    "transaction (schema creation or the switch to WAL; a hot journal left behind)," \
    "$fresh_mid_open between the steps of the open, $fresh_after_open once open; each opened" \
    "afterwards ($((SECONDS - start)) s)"
