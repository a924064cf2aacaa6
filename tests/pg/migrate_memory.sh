#!/usr/bin/env bash
# migrate_memory.sh - mnemo migrate runs in bounded memory: its peak RSS does
# not grow with the store (CTest pg/migrate_memory, label pg).
#
# Two stores of generated memories (gen_memories: every field, bodies up to
# 100,000 code points, links across the store), 300 and 3,000, each with as
# many audit rows, moved PostgreSQL -> PostgreSQL (two databases of the test
# cluster: no SQLite page cache on either side, whose 32 MB would blur the
# figure) under /usr/bin/time. The move of ten times the memories may take at
# most 1.5 times the peak memory (plus 8 MB of slack for the allocator): a move
# that holds a side whole (the store's memories, their export, the audit log,
# a PGresult of a table) takes ~45 KB more per memory, ~120 MB more here.
# Both moves must verify and export the same bytes as the source. Skipped
# (77) under the sanitizers, whose quarantine of freed memory grows with the
# work done, and without /usr/bin/time.
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_TEST_PG:?MNEMO_TEST_PG must name the test cluster (tests/CMakeLists.txt)}"
GEN=${MNEMO_GEN_MEMORIES:?MNEMO_GEN_MEMORIES must name the gen_memories helper}
[ -x /usr/bin/time ] || {
    echo "skipped: /usr/bin/time is not installed"
    exit 77
}
# grep -c reads all its input: with -q it may quit first, nm then dies of SIGPIPE and, under
# pipefail, the test ran on a sanitizer build (CI: 239 MB at 300 memories, 705 MB at 3,000)
if [ "$(nm -D "$MNEMO" 2>/dev/null | grep -c "__asan_init\|__tsan_init")" != 0 ] ||
    [ "$(ldd "$MNEMO" 2>/dev/null | grep -c "libasan\|libtsan")" != 0 ]; then
    echo "skipped: a sanitizer build (its quarantine of freed memory grows with the work)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-pgmigmem.XXXXXX")
dbs=()
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 "$MNEMO_TEST_PG" -c "$1" >/dev/null; }
cleanup() {
    local d
    for d in "${dbs[@]}"; do
        psql_admin "DROP DATABASE IF EXISTS $d WITH (FORCE)" || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp/tmp
mkdir -p "$HOME" "$TMPDIR"
cd "$tmp"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS MNEMO_MIGRATE_PAGE
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# peak RSS (KB) of moving n memories PostgreSQL -> PostgreSQL, into $peak_kb
peak() {
    local n=$1 from=mnemo_migmem_$$_${1}_a to=mnemo_migmem_$$_${1}_b
    dbs+=("$from" "$to")
    psql_admin "CREATE DATABASE $from"
    psql_admin "CREATE DATABASE $to"
    "$GEN" "$n" 20261128 >gen.jsonl
    rm -f s.db*
    "$MNEMO" --db s.db import gen.jsonl >/dev/null
    sqlite3 s.db "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
        INSERT INTO audit (project_id, ts, actor, action, target, detail)
        SELECT (SELECT id FROM projects WHERE name = 'default'), 1700000000000 + i * 1000, 'cli',
               'update', printf('01J%023d', i), json_object('n', i) FROM k"
    "$MNEMO" --db s.db export >s.jsonl
    "$MNEMO" migrate --from s.db --to "$MNEMO_TEST_PG dbname=$from" >/dev/null
    /usr/bin/time -f %M -o rss.txt "$MNEMO" migrate --from "$MNEMO_TEST_PG dbname=$from" \
        --to "$MNEMO_TEST_PG dbname=$to" >out.txt 2>&1 || fail "move $n: $(cat out.txt)"
    "$MNEMO" --db "$MNEMO_TEST_PG dbname=$to" export >t.jsonl
    cmp -s s.jsonl t.jsonl || fail "move $n: the exports differ"
    peak_kb=$(tail -n 1 rss.txt)
}

peak 300
small=$peak_kb
peak 3000
large=$peak_kb
echo "peak RSS: 300 memories $((small / 1024)) MB, 3,000 memories $((large / 1024)) MB"
[ "$large" -le $((small * 3 / 2 + 8192)) ] ||
    fail "peak RSS grows with the store: $((small / 1024)) MB at 300 memories, $((large / 1024)) MB at 3,000"

[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "migrate_memory (pg): all checks passed"
