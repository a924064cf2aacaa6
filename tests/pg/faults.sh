#!/usr/bin/env bash
# faults.sh - the faults of issue 24 under load (CTest pg/faults, label pg).
# It starts its own PostgreSQL cluster (scripts/pg_cluster.sh), not the
# shared fixture's, since it restarts it.
#
#   restart  PostgreSQL restarted (pg_ctl restart -m fast) while bench_load
#            runs 4 clients against one `mnemo serve`: every request that
#            fails is a 503 with the retryable code "unavailable" or "busy"
#            (bench_load --tolerate unavailable counts those; anything else,
#            a 500 or a dropped connection included, is an error), at least
#            one request failed so (the restart hit the load), every
#            acknowledged save is there, no memory is half-written
#            (fingerprint, keys, audit row), and the same server process,
#            never restarted, then answers a second run with no error at all;
#   stopped  while PostgreSQL is stopped a request is a 503 with the code
#            "unavailable" and Retry-After: 5 (the token lookup included);
#            started again, the same server answers 200;
#   kill     `mnemo serve` killed with SIGKILL while 4 clients save: every
#            save it acknowledged (2xx) is read back, by id and title,
#            through a new server on the same store; on PostgreSQL and on
#            SQLite (a store file).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/load.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/load.sh"
load_setup

# The cluster's directory: its own, under /tmp (a unix socket path is short; as root the
# server's user must reach it, which $tmp, private to us, does not allow).
pgdir=$(mktemp -d /tmp/mnemo-pgf.XXXXXX)
load_cleanup_extra() { bash "$src/scripts/pg_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true; }
PG=$(cd / && bash "$src/scripts/pg_cluster.sh" start "$pgdir")
DB="$PG"
bindir=/usr/lib/postgresql/15/bin
[ -x "$bindir/pg_ctl" ] || bindir=$(dirname "$(printf "%s\n" /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)")
pg_ctl() { # as the cluster's owner, as pg_cluster.sh runs it
    local owner
    owner=$(stat -c %U "$pgdir/data")
    if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ]; then
        (cd / && setpriv --reuid="$owner" --regid="$(id -g "$owner")" --clear-groups "$bindir/pg_ctl" "$@")
    else
        "$bindir/pg_ctl" "$@"
    fi
}

# ==== restart ================================================================
load_token "$DB" load-bot
load_serve "$DB" "$tmp/serve.err"
pid=$SERVE_PID
url=$SERVE_URL
"$MNEMO_BENCH_LOAD" "${BENCH_AUTH[@]}" --url "$url" --clients 4 --seconds 4 \
    --tolerate unavailable --unacked "$tmp/unacked" >"$tmp/restart.out" 2>&1 &
bench=$!
sleep 1.5
pg_ctl -D "$pgdir/data" -l "$pgdir/server.log" -m fast -w -t 30 restart >/dev/null ||
    fail "pg_ctl restart"
rc=0
wait "$bench" || rc=$?
cp "$tmp/restart.out" "$tmp/bench.out"
cat "$tmp/bench.out"
[ "$rc" = 0 ] || fail "bench_load during the restart: exit $rc (an error other than a retryable 503, or a lost save)"
[ "$(bench_field errors)" = 0 ] || fail "errors during the restart: $(bench_field errors)"
[ "$(bench_field 'lost saves')" = 0 ] || fail "lost saves: $(bench_field 'lost saves')"
[ "$(bench_field 'retryable')" -gt 0 ] || fail "no request failed while PostgreSQL restarted: the fault was not hit"
[ "$(bench_field 'acknowledged saves')" -gt 0 ] || fail "no save was acknowledged"
[ "$(load_whole "$DB")" = 0 ] || fail "half-written memories after the restart"
late=$(psql -X -q -tA "$DB" <<EOF
CREATE TEMP TABLE unacked (title TEXT);
\copy unacked FROM '$tmp/unacked'
SELECT count(*) FROM memories m JOIN unacked u ON u.title = m.title;
EOF
)
echo "saves refused with 503 but stored all the same (their commit answered late): $late of $(wc -l <"$tmp/unacked")"
kill -0 "$pid" 2>/dev/null || fail "the server died with the database: $(tail -n 20 "$tmp/serve.err")"
load_bench --url "$url" --clients 4 --ops 50 ||
    fail "the server does not answer cleanly after the restart (it must reconnect by itself)"
[ "$(bench_field errors)" = 0 ] || fail "errors after the restart: $(bench_field errors)"
kill -0 "$pid" 2>/dev/null || fail "the same server process answered"

# ==== stopped ================================================================
# While PostgreSQL is down, a request (its token looked up in the store first) is a 503
# with the code "unavailable" and Retry-After; once it is up, the same server answers.
pg_ctl -D "$pgdir/data" -m fast -w -t 30 stop >/dev/null || fail "pg_ctl stop"
code=$(curl -s -o "$tmp/down.json" -D "$tmp/down.h" -w '%{http_code}' -X POST "$url/list" \
    ${LOAD_TOKEN:+-H "Authorization: Bearer $LOAD_TOKEN"} -H 'Content-Type: application/json' -d '{}')
[ "$code" = 503 ] || fail "a request while PostgreSQL is down: $code $(cat "$tmp/down.json")"
grep -q '"code":"unavailable"' "$tmp/down.json" || fail "the 503's code: $(cat "$tmp/down.json")"
grep -qi '^Retry-After: 5' "$tmp/down.h" || fail "the 503 has Retry-After: $(cat "$tmp/down.h")"
pg_ctl -D "$pgdir/data" -l "$pgdir/server.log" -w -t 30 start >/dev/null || fail "pg_ctl start"
code=$(curl -s -o "$tmp/up.json" -w '%{http_code}' -X POST "$url/list" \
    ${LOAD_TOKEN:+-H "Authorization: Bearer $LOAD_TOKEN"} -H 'Content-Type: application/json' -d '{}')
[ "$code" = 200 ] || fail "the same server once PostgreSQL is back: $code $(cat "$tmp/up.json")"

# ==== kill ===================================================================
# kill STORE: saves by 4 clients through a server SIGKILLed after 1 s; a new server on the
# same store must return every acknowledged one.
kill_check() {
    local db=$1 what=$2 acked
    load_serve "$db" "$tmp/kill1.err"
    "$MNEMO_BENCH_LOAD" "${BENCH_AUTH[@]}" --url "$SERVE_URL" --clients 4 --seconds 2 \
        --mix save=100 --tolerate down --no-verify --acked "$tmp/acked" >"$tmp/kill.out" 2>&1 &
    local bench=$!
    sleep 1
    kill -9 "$SERVE_PID"
    wait "$SERVE_PID" 2>/dev/null || true
    rc=0
    wait "$bench" || rc=$?
    cp "$tmp/kill.out" "$tmp/bench.out"
    cat "$tmp/bench.out"
    [ "$rc" = 0 ] || fail "$what: bench_load while the server was killed: exit $rc"
    acked=$(wc -l <"$tmp/acked")
    [ "$acked" -gt 0 ] || fail "$what: no save acknowledged before the kill"
    [ "$(bench_field down)" -gt 0 ] || fail "$what: no request failed: the kill did not hit the load"
    load_serve "$db" "$tmp/kill2.err"
    load_bench --url "$SERVE_URL" --clients 4 --verify "$tmp/acked" ||
        fail "$what: acknowledged saves lost after SIGKILL"
    [ "$(bench_field 'lost saves')" = 0 ] || fail "$what: lost saves $(bench_field 'lost saves') of $acked"
}
kill_check "$DB" PostgreSQL
[ "$(load_whole "$DB")" = 0 ] || fail "PostgreSQL: half-written memories after SIGKILL"

# SQLite: a store file, the same token rules
sqlite_db=$tmp/kill.db
load_token "$sqlite_db" load-bot
kill_check "$sqlite_db" SQLite

[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "faults: all checks passed"
