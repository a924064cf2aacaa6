#!/usr/bin/env bash
# load_run.sh - one run of bench_load against fresh `mnemo serve` processes
# on a fresh store: the figures of bench/README.md (bench_load).
#
#   bench/load_run.sh BUILD pg DIR SERVERS [bench_load options...]
#   bench/load_run.sh BUILD sqlite - 1 [bench_load options...]
#
# BUILD is a build directory (BUILD/mnemo, BUILD/bench/bench_load). pg: the
# cluster in DIR (scripts/pg_cluster.sh start DIR: started when it is not
# running, left running), a new database in it per run; sqlite: a store file
# in a temp dir. A writer token (serve.auth token: nothing is served without
# it), SERVERS processes of `mnemo serve --port 0` on that one store, then
# bench_load --url of each server and the options given (default 10 clients
# x 1,000 ops of the issue's mix). The servers and the temp dir go at the
# end; the PostgreSQL database stays (its name is printed) for a look. The
# servers run in an empty directory (no code to index). LOAD_RUN_SET="k=v ..."
# sets config keys of the store first (embed.provider=off: no built-in model).
# LOAD_RUN_WATCH=DIR starts bench/load_watch.sh on each server: the stacks of
# its threads in DIR whenever its /healthz takes longer than 2 s.
# Exit status: bench_load's.
set -euo pipefail
[ $# -ge 4 ] || {
    echo "usage: load_run.sh BUILD pg|sqlite DIR|- SERVERS [bench_load options...]" >&2
    exit 2
}
build=$(cd "$1" && pwd)
kind=$2
dir=$3
n=$4
shift 4
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-loadrun.XXXXXX")
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
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME" "$tmp/root"
# The servers run in an empty directory: the load is the memory path. Run from a checkout,
# a server's first context would index that code into the store first (half a minute for
# this repository on PostgreSQL, holding the project's write lock: saves time out meanwhile).
cd "$tmp/root"
unset MNEMO_DB MNEMO_PROJECT
case $kind in
pg)
    pg=$(cd / && bash "$src/scripts/pg_cluster.sh" start "$dir")
    name=mnemo_load_$(date +%s)_$$
    psql -X -q "$pg" -c "CREATE DATABASE $name" >/dev/null
    db="$pg dbname=$name"
    echo "store: PostgreSQL database $name in $dir"
    ;;
sqlite)
    db=$tmp/load.db
    echo "store: SQLite $db"
    ;;
*)
    echo "load_run.sh: pg or sqlite, not '$kind'" >&2
    exit 2
    ;;
esac
out=$("$build/mnemo" --db "$db" token create --project load --role writer --name load-bench)
LOAD_TOKEN=$(grep -Eo 'mnemo_[0-9a-f]{64}' <<<"$out" | head -n 1)
export LOAD_TOKEN
"$build/mnemo" --db "$db" config set serve.auth token >/dev/null
# LOAD_RUN_SET="key=value ...": config of the store for this run (e.g. embed.provider=off)
for kv in ${LOAD_RUN_SET:-}; do
    "$build/mnemo" --db "$db" config set "${kv%%=*}" "${kv#*=}" >/dev/null
    echo "config: ${kv%%=*} = ${kv#*=}"
done
urls=()
for i in $(seq 1 "$n"); do
    "$build/mnemo" --db "$db" serve --port 0 2>"$tmp/serve$i.err" &
    pids+=($!)
    u=
    for _ in $(seq 1 600); do
        u=$(grep -o 'http://[^ ]*/mcp' "$tmp/serve$i.err" || true)
        [ -n "$u" ] && break
        sleep 0.05
    done
    [ -n "$u" ] || {
        echo "load_run.sh: server $i did not start: $(cat "$tmp/serve$i.err")" >&2
        exit 2
    }
    urls+=(--url "${u%/mcp}/v1")
    if [ -n "${LOAD_RUN_WATCH:-}" ]; then
        "$src/bench/load_watch.sh" "${pids[-1]}" "${u%/mcp}" "$LOAD_RUN_WATCH" &
        pids+=($!)
    fi
done
"$build/bench/bench_load" --token-env LOAD_TOKEN "${urls[@]}" "$@"
