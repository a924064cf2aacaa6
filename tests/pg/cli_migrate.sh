#!/usr/bin/env bash
# cli_migrate.sh - mnemo migrate between SQLite and PostgreSQL (CTest
# pg/cli_migrate, label pg, on the cluster MNEMO_TEST_PG names).
#
#   round trip   a SQLite store with every field (gen_memories: tags, paths,
#                citations, links, expiry, every status, forgotten ones) and
#                saved memories, config and an audit log in two projects ->
#                PostgreSQL -> a new SQLite store: the three exports are
#                byte-identical, per project; config and audit rows moved;
#   pages        the same round trip in pages of 5 (MNEMO_MIGRATE_PAGE), and a
#                merge in pages;
#   refusal      PostgreSQL holding the project's memories: refused, the
#                database unchanged;
#   secrets      a password in a location shows as *** in the output and
#                the audit log;
#   bad location a database that does not exist, with a password in the
#                conninfo: one error, the password never shown, nothing made.
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_TEST_PG:?MNEMO_TEST_PG must name the test cluster (tests/CMakeLists.txt)}"
GEN=${MNEMO_GEN_MEMORIES:?MNEMO_GEN_MEMORIES must name the gen_memories helper}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-pgmigrate.XXXXXX")
db=mnemo_migrate_$$
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 "$MNEMO_TEST_PG" -c "$1" >/dev/null; }
cleanup() {
    psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp/tmp
mkdir -p "$HOME" "$TMPDIR"
cd "$tmp"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
psql_admin "CREATE DATABASE $db"
PG="$MNEMO_TEST_PG dbname=$db"
sql() { psql -X -tA "$PG" -c "$1"; }
ID_RE='[0-9A-HJKMNP-TV-Z]{26}'
a() { "$MNEMO" --db a.db "$@"; }

"$GEN" 40 20261128 >gen.jsonl
a import gen.jsonl >/dev/null || fail "import the generated memories"
out=$(a save --kind gotcha --title "Cart sessions expire when delay is nil" --tag cart \
    --path src/cart.c --ttl 30d \
    "The cart session expires at once when the delay is nil; default it to thirty seconds.")
x=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
out=$(a save --kind decision --title "One PostgreSQL server for the team" \
    "Every agent of the team reads and writes one PostgreSQL database through mnemo serve.")
y=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
a link "$x" relates_to "$y" >/dev/null || fail "link"
a link "$y" supersedes "$x" >/dev/null || fail "supersede"
a config set memory.ttl.fact 30d >/dev/null || fail "config set"
MNEMO_PROJECT=other a save --kind fact --title "The other project's own fact" \
    "Only the other project sees this fact about its own build." >/dev/null
a export >a.jsonl
MNEMO_PROJECT=other a export >a_other.jsonl
nrows=$(a audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')

# ==== SQLite -> PostgreSQL -> SQLite ============================================
out=$("$MNEMO" migrate --from a.db --to "$PG") || fail "migrate to PostgreSQL: $out"
[[ $out == *"project 'default': 42 memories"* && $out == *"verified"* ]] || fail "report: $out"
"$MNEMO" --db "$PG" export >pg.jsonl || fail "export from PostgreSQL"
cmp -s a.jsonl pg.jsonl || fail "SQLite -> PostgreSQL: exports differ: $(diff a.jsonl pg.jsonl | head -4)"
MNEMO_PROJECT=other "$MNEMO" --db "$PG" export >pg_other.jsonl
cmp -s a_other.jsonl pg_other.jsonl || fail "the other project differs"
[ "$(sql "SELECT count(*) FROM projects")" = 2 ] || fail "two projects on PostgreSQL"
[ "$(sql "SELECT count(*) FROM audit a JOIN projects p ON p.id = a.project_id WHERE p.name = 'default'")" \
    = $((nrows + 2)) ] || fail "the audit rows moved (the export's too), and one migrate row"
[ "$("$MNEMO" --db "$PG" config get memory.ttl.fact)" = 30d ] || fail "config moved"
"$MNEMO" --db "$PG" show "$x" | grep "^status: superseded" >/dev/null || fail "status moved"
grep -q '"tags":\["cart"\]' pg.jsonl && grep -q '"paths":\["src/cart.c"\]' pg.jsonl &&
    grep -q "\"id\":\"$x\".*\"expires_at\":" pg.jsonl || fail "tags, paths, expiry moved"
# a password in the location (the test cluster trusts local users: it is not checked) is never shown
out=$("$MNEMO" migrate --from "$PG password=s3cret" --to back.db) || fail "migrate back to SQLite: $out"
[[ $out != *s3cret* && $out == *"password=***"* ]] || fail "the source is shown redacted: $out"
sqlite3 back.db "SELECT detail FROM audit WHERE action = 'migrate'" | grep -q 'password=\*\*\*' || fail "the migrate row names the source redacted"
! "$MNEMO" --db back.db audit --json | grep s3cret >/dev/null || fail "the password is in the audit log"
"$MNEMO" --db back.db export >back.jsonl
cmp -s a.jsonl back.jsonl || fail "PostgreSQL -> SQLite: exports differ: $(diff a.jsonl back.jsonl | head -4)"
MNEMO_PROJECT=other "$MNEMO" --db back.db export >back_other.jsonl
cmp -s a_other.jsonl back_other.jsonl || fail "the other project differs after the round trip"

# ==== pages ======================================================================
# The same round trip a few rows at a time (MNEMO_MIGRATE_PAGE, read by the tests
# only): pages of 5, so that links point to memories of later pages and the audit
# log crosses pages, both ways; the same bytes, the same number of audit rows.
db2=mnemo_migrate_pages_$$
psql_admin "CREATE DATABASE $db2"
trap 'psql_admin "DROP DATABASE IF EXISTS $db2 WITH (FORCE)" || true; cleanup' EXIT
PG2="$MNEMO_TEST_PG dbname=$db2"
out=$(MNEMO_MIGRATE_PAGE=5 "$MNEMO" migrate --from a.db --to "$PG2") || fail "migrate in pages to PostgreSQL: $out"
count_default="SELECT count(*) FROM audit a JOIN projects p ON p.id = a.project_id WHERE p.name = 'default'"
[ "$(psql -X -tA "$PG2" -c "$count_default")" = $(($(sqlite3 a.db "$count_default") + 1)) ] ||
    fail "the audit rows moved in pages"
out=$(MNEMO_MIGRATE_PAGE=5 "$MNEMO" migrate --from "$PG2" --to pages.db) || fail "migrate in pages back to SQLite: $out"
"$MNEMO" --db "$PG2" export >pg2.jsonl
"$MNEMO" --db pages.db export >pages.jsonl
cmp -s a.jsonl pg2.jsonl && cmp -s a.jsonl pages.jsonl || fail "exports differ after moves in pages"
MNEMO_PROJECT=other "$MNEMO" --db pages.db export >pages_other.jsonl
cmp -s a_other.jsonl pages_other.jsonl || fail "the other project differs after moves in pages"
out=$(MNEMO_MIGRATE_PAGE=5 "$MNEMO" migrate --from a.db --to "$PG2" --merge) || fail "merge in pages: $out"
[[ $out == *"42 kept as the target had them"* ]] || fail "merge in pages keeps every memory: $out"

# ==== refusal ====================================================================
before=$(sql "SELECT count(*) FROM audit")
out=$("$MNEMO" migrate --from a.db --to "$PG" 2>&1) && fail "a project holding memories is refused"
[[ $out == *"holds 42 memories already"* ]] || fail "refusal: $out"
[ "$(sql "SELECT count(*) FROM audit")" = "$before" ] || fail "a refused migrate wrote to PostgreSQL"

# ==== bad location ===============================================================
out=$("$MNEMO" migrate --from a.db --to "$MNEMO_TEST_PG dbname=mnemo_none_$$ password=s3cret" 2>&1) &&
    fail "a database that does not exist"
[[ $out != *s3cret* ]] || fail "the password shows in: $out"
[[ $out == *"migrate: the target"*"password=***"* ]] || fail "one error naming the target, redacted: $out"
[ "$(psql -X -tA "$MNEMO_TEST_PG" -c "SELECT count(*) FROM pg_database WHERE datname = 'mnemo_none_$$'")" = 0 ] ||
    fail "no database was made"

[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "cli_migrate (pg): all checks passed"
