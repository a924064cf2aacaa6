#!/usr/bin/env bash
# load_small.sh - the load test of issue 24 in small (CTest pg/load_small,
# label pg, on the cluster MNEMO_TEST_PG names): two `mnemo serve`
# processes on one PostgreSQL database, a writer token, and bench_load with
# 4 clients x 100 mixed ops round robin over both servers.
#
#   errors   none: every answer 2xx (bench_load exits 1 otherwise)
#   lost     every acknowledged save is read back by id, with its title
#            (bench_load's check), and is in the database (psql), whole:
#            fingerprint, keys and the audit row of its save
#   servers  both served the run (each one's /metrics counts the project's REST ops)
#   actor    the audit rows name the token (the bench sent it; the store is
#            set to serve.auth token, so a request without it is refused)
#   stop     SIGTERM stops each server with exit 0 (no leak under ASan)
# The figures it prints are information; the full run (10 x 1,000) and its
# figures are in bench/README.md.
set -euo pipefail
: "${MNEMO_TEST_PG:?MNEMO_TEST_PG must name the test cluster (tests/CMakeLists.txt)}"
# shellcheck source-path=SCRIPTDIR source=lib/load.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/load.sh"
load_setup

db=mnemo_load_$$
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 "$MNEMO_TEST_PG" -c "$1" >/dev/null; }
load_cleanup_extra() { psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true; }
psql_admin "CREATE DATABASE $db"
DB="$MNEMO_TEST_PG dbname=$db"
sql() { psql -X -tA "$DB" -c "$1"; }

load_token "$DB" load-bot
load_serve "$DB" "$tmp/a.err"
url_a=$SERVE_URL
load_serve "$DB" "$tmp/b.err"
url_b=$SERVE_URL

load_bench --url "$url_a" --url "$url_b" --clients 4 --ops 100 ||
    fail "bench_load: errors or lost saves (above)"
[ "$(bench_field errors)" = 0 ] || fail "errors: $(bench_field errors)"
[ "$(bench_field 'lost saves')" = 0 ] || fail "lost saves: $(bench_field 'lost saves')"
acked=$(bench_field 'acknowledged saves')
[ "$acked" -gt 20 ] || fail "about 30% of 400 ops are saves; $acked acknowledged"
tag=$(grep -Eo 'run tag lt[0-9a-f]+' "$tmp/bench.out" | grep -Eo 'lt[0-9a-f]+$')
stored=$(sql "SELECT count(*) FROM memories WHERE title LIKE '%$tag%'")
[ "$stored" = "$acked" ] || fail "$acked saves acknowledged, $stored in the database"
[ "$(load_whole "$DB")" = 0 ] || fail "memories not whole (no fingerprint, keys or audit row)"
if [ ${#BENCH_AUTH[@]} -gt 0 ]; then
    [ "$(sql "SELECT count(*) FROM audit WHERE action = 'save' AND actor = 'token:load-bot'")" -ge "$acked" ] ||
        fail "the audit rows of the saves name the token: $(sql "SELECT DISTINCT actor FROM audit")"
fi
for u in "$url_a" "$url_b"; do
    m=$(curl -s ${LOAD_TOKEN:+-H "Authorization: Bearer $LOAD_TOKEN"} "${u%/v1}/metrics" || true)
    # the token's own project's series (the HTTP totals are the server admin's)
    n=$(grep -E '^mnemo_requests_total\{project="[^"]*",front="rest",op="(context|search|save|feedback)"\}' <<<"$m" |
        grep -Eo '[0-9]+$' | awk '{s += $1} END {print s + 0}')
    [ "${n:-0}" -gt 50 ] || fail "the server at $u answered $n of the run's requests"
done

# SIGTERM: requests done, every store connection freed, exit 0 (LeakSanitizer under ASan)
for p in "${servers[@]}"; do
    kill -TERM "$p"
    rc=0
    wait "$p" || rc=$?
    [ "$rc" = 0 ] || fail "a server stopped with SIGTERM exits $rc"
done
servers=()

[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "load_small: all checks passed"
