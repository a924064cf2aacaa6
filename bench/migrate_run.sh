#!/usr/bin/env bash
# migrate_run.sh - wall time and peak memory of `mnemo migrate` as the store
# grows: the figures of bench/README.md (migrate_run.sh).
#
#   bench/migrate_run.sh BUILD [N...]      (default N: 1000 10000)
#
# BUILD is a build directory (BUILD/mnemo, BUILD/tests/gen_memories). For
# each N: N memories from gen_memories (every field, every kind, bodies up to
# 100,000 code points, links to earlier and later memories and to
# references; JSON Lines as `mnemo export` writes them) imported with
# `mnemo import` into a fresh SQLite store, plus N audit rows written
# straight into its audit table (a store that has served a while holds
# more rows of its log than memories; importing writes one). Then
# `mnemo migrate` SQLite -> a new PostgreSQL database -> a new SQLite store,
# each under /usr/bin/time -v: one line per direction with the wall time
# (s) and the peak RSS (MB). The three exports must be byte-identical
# (exit 1 otherwise). The PostgreSQL cluster is a throwaway one
# (scripts/pg_cluster.sh) in the temp dir, stopped at the end; MIGRATE_RUN_PG=DIR
# uses (and leaves running) the cluster in DIR instead.
# The machine is shared: wall times move by 20-50% between runs; peak RSS
# does not.
set -euo pipefail
[ $# -ge 1 ] || {
    echo "usage: migrate_run.sh BUILD [N...]" >&2
    exit 2
}
build=$(cd "$1" && pwd)
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MNEMO=$build/mnemo
GEN=$build/tests/gen_memories
[ -x "$MNEMO" ] && [ -x "$GEN" ] || {
    echo "migrate_run: $MNEMO or $GEN missing: build first" >&2
    exit 2
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-migraterun.XXXXXX")
pgdir=${MIGRATE_RUN_PG:-$tmp/pg}
chmod 711 "$tmp" # as root the server runs as another user, who must reach $tmp/pg
dbs=()
cleanup() {
    local d
    for d in "${dbs[@]}"; do
        psql -X -q "$conninfo" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true
    done
    [ -n "${MIGRATE_RUN_PG:-}" ] || bash "$src/scripts/pg_cluster.sh" stop "$pgdir" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
conninfo=$(bash "$src/scripts/pg_cluster.sh" start "$pgdir" | tail -n 1)
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS
cd "$tmp"

# /usr/bin/time -v's report in $1: "wall_s peak_mb"
figures() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
            n = split($2, t, ":"); s = 0
            for (i = 1; i <= n; i++) s = s * 60 + t[i]
        }
        /Maximum resident set size/ { kb = $2 }
        END { printf "%.1f %.1f\n", s, kb / 1024 }' "$1"
}

status=0
printf '%-8s %-14s %8s %10s\n' N direction wall_s peak_MB
for n in "${sizes[@]}"; do
    rm -f a.db b.db ./*.jsonl
    "$GEN" "$n" 20261128 >gen.jsonl
    "$MNEMO" --db a.db import gen.jsonl >/dev/null
    # N audit rows, oldest first, a second apart, before the import's own row
    sqlite3 a.db "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
        INSERT INTO audit (project_id, ts, actor, action, target, detail)
        SELECT (SELECT id FROM projects WHERE name = 'default'), 1700000000000 + i * 1000,
               CASE i % 3 WHEN 0 THEN 'cli' WHEN 1 THEN 'mcp' ELSE 'http:alice' END,
               CASE i % 4 WHEN 0 THEN 'save' WHEN 1 THEN 'search' WHEN 2 THEN 'link' ELSE 'update' END,
               printf('01J%023d', i), json_object('n', i, 'query', 'why does the cart expire ' || i)
        FROM k"
    "$MNEMO" --db a.db export >a.jsonl
    db=mnemo_migraterun_$$_$n
    dbs+=("$db")
    psql -X -q -v ON_ERROR_STOP=1 "$conninfo" -c "CREATE DATABASE $db" >/dev/null
    pg="$conninfo dbname=$db"
    /usr/bin/time -v -o time_to.txt "$MNEMO" migrate --from a.db --to "$pg" >out_to.txt
    "$MNEMO" --db "$pg" export >pg.jsonl
    /usr/bin/time -v -o time_back.txt "$MNEMO" migrate --from "$pg" --to b.db >out_back.txt
    "$MNEMO" --db b.db export >b.jsonl
    read -r w m < <(figures time_to.txt)
    printf '%-8s %-14s %8s %10s\n' "$n" "sqlite->pg" "$w" "$m"
    read -r w m < <(figures time_back.txt)
    printf '%-8s %-14s %8s %10s\n' "$n" "pg->sqlite" "$w" "$m"
    if cmp -s a.jsonl pg.jsonl && cmp -s a.jsonl b.jsonl; then
        echo "$n: exports byte-identical ($(wc -l <a.jsonl) memories, $(wc -c <a.jsonl) bytes)"
    else
        echo "$n: FAIL: the exports differ" >&2
        status=1
    fi
done
exit $status
