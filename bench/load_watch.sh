#!/usr/bin/env bash
# load_watch.sh - catch a stall of `mnemo serve` in the act: the stacks of
# every thread of the server at the moment its /healthz stopped answering.
#
#   bench/load_watch.sh PID URL OUTDIR [SECONDS]
#
# Polls URL/healthz (URL: the server's base, http://HOST:PORT) twice a
# second on a new connection each time and, when LOAD_TOKEN holds a token
# (load_run.sh sets it), a search through the store (POST /v1/search): a
# connection lands on a worker that is free to accept it, so /healthz alone
# answers while workers wait on the store. When either takes longer than
# SECONDS (default 2), it writes OUTDIR/stall-HHMMSS-PID.txt: the load
# average, then `gdb -batch -ex 'thread apply all bt'` of PID (or eu-stack
# when gdb is missing). At most 12 dumps, 8 s apart, so that the watcher
# does not become the stall; it ends with the server. load_run.sh starts
# one per server when LOAD_RUN_WATCH=OUTDIR is set (bench/README.md).
set -uo pipefail
[ $# -ge 3 ] || {
    echo "usage: load_watch.sh PID URL OUTDIR [SECONDS]" >&2
    exit 2
}
pid=$1 url=$2 out=$3 limit=${4:-2}
mkdir -p "$out"
n=0 last=0
while kill -0 "$pid" 2>/dev/null; do
    slow=
    curl -s -o /dev/null --max-time "$limit" "$url/healthz" || slow=healthz
    if [ -z "$slow" ] && [ -n "${LOAD_TOKEN:-}" ]; then
        curl -s -o /dev/null --max-time "$limit" -H "Authorization: Bearer $LOAD_TOKEN" \
            -H 'Content-Type: application/json' -d '{"query":"load watch probe"}' \
            "$url/v1/search" || slow=search
    fi
    if [ -n "$slow" ]; then
        kill -0 "$pid" 2>/dev/null || break
        now=$(date +%s)
        if ((now - last >= 8 && n < 12)); then
            n=$((n + 1))
            last=$now
            f="$out/stall-$(date +%H%M%S)-$pid-$slow.txt"
            echo "load_watch: $slow of $pid took > ${limit} s at $(date +%T): stacks in $f" >&2
            {
                uptime
                if command -v gdb >/dev/null; then
                    gdb -p "$pid" -batch -ex 'thread apply all bt' 2>&1
                else
                    eu-stack -p "$pid" 2>&1
                fi
            } >"$f"
        fi
    fi
    sleep 0.5
done
