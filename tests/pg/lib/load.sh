# lib/load.sh - what tests/pg/load_small.sh and tests/pg/faults.sh share
# (sourced; CTest registers tests/pg/*.sh only, not this directory).
#
# load_setup           a temp dir $tmp (removed on exit with every server started)
# load_token DB NAME   a writer token of project "load" in the store DB; sets
#                      LOAD_TOKEN (exported: bench_load reads it by name) and
#                      BENCH_AUTH (the bench's --token-env option)
# load_serve DB LOG    starts `mnemo --db DB serve --port 0` in the background,
#                      waits for its URL; sets SERVE_PID and SERVE_URL (.../v1)
# load_bench ARGS...   runs bench_load with the token, output in $tmp/bench.out
# bench_field WORDS    the number after "WORDS" in $tmp/bench.out
# load_whole DB        prints the number of memories of the store that are not
#                      whole: without their fingerprint, keys, or audit row
#                      of the save (a half-written save)
# shellcheck shell=bash disable=SC2034 # what it sets is read by the tests that source it

: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_BENCH_LOAD:?MNEMO_BENCH_LOAD must name the bench_load program (tests/CMakeLists.txt)}"

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

servers=()
load_cleanup_extra() { :; }
load_cleanup() {
    local p
    for p in "${servers[@]}"; do
        kill -9 "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    load_cleanup_extra
    rm -rf "$tmp"
}

load_setup() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-load.XXXXXX")
    trap load_cleanup EXIT
    export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config TMPDIR=$tmp/tmp
    mkdir -p "$HOME" "$TMPDIR"
    cd "$tmp" || exit 1
    unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
}

load_token() {
    local db=$1 name=$2 out
    if ! out=$("$MNEMO" --db "$db" token create --project load --role writer --name "$name" 2>&1); then
        echo "FAIL: token create: $out" >&2
        exit 1
    fi
    LOAD_TOKEN=$(grep -Eo 'mnemo_[0-9a-f]{64}' <<<"$out" | head -n 1)
    [ -n "$LOAD_TOKEN" ] || {
        echo "FAIL: no secret in: $out" >&2
        exit 1
    }
    export LOAD_TOKEN
    BENCH_AUTH=(--token-env LOAD_TOKEN)
    # no request without the token is served: the bench must send it
    "$MNEMO" --db "$db" config set serve.auth token >/dev/null
}

load_serve() {
    local db=$1 log=$2 u=
    : >"$log"
    "$MNEMO" --db "$db" serve --port 0 2>"$log" &
    SERVE_PID=$!
    servers+=("$SERVE_PID")
    for _ in $(seq 1 600); do
        u=$(grep -o 'http://[^ ]*/mcp' "$log" || true)
        [ -n "$u" ] && break
        kill -0 "$SERVE_PID" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$u" ] || {
        echo "FAIL: the server did not start: $(cat "$log")" >&2
        exit 1
    }
    SERVE_URL=${u%/mcp}/v1
}

load_bench() {
    local rc=0
    "$MNEMO_BENCH_LOAD" "${BENCH_AUTH[@]}" "$@" >"$tmp/bench.out" 2>&1 || rc=$?
    cat "$tmp/bench.out"
    return "$rc"
}

bench_field() {
    grep -Eo "$1 [0-9]+" "$tmp/bench.out" | tail -n 1 | grep -Eo '[0-9]+$' || echo -1
}

load_whole() {
    psql -X -tA "$1" -c "SELECT count(*) FROM memories m WHERE
        NOT EXISTS (SELECT 1 FROM memory_fingerprints f WHERE f.memory_id = m.id) OR
        NOT EXISTS (SELECT 1 FROM memory_keys k WHERE k.memory_id = m.id) OR
        NOT EXISTS (SELECT 1 FROM audit a WHERE a.target = m.uid AND a.action = 'save')"
}
