#!/usr/bin/env bash
# cli_pg.sh - the mnemo command line on a PostgreSQL store (CTest pg/cli_pg,
# label pg, on the throwaway cluster MNEMO_TEST_PG names; never run without
# it: the test fails if it is not set).
#
#   flows      save (a new memory, the same again: merged exact, a near copy:
#              merged near), show, edit, link, forget (undo, purge: its keys,
#              fingerprint and links go with it), config, audit;
#   projects   --project B in the same database sees nothing of A's;
#   round trip export from PostgreSQL, import into SQLite, export again:
#              byte-identical; and from SQLite into a new PostgreSQL store
#              and out again: byte-identical; consolidate answers alike;
#   writers    two processes saving at once: every save stored;
#   search     works (a purged and a superseded memory are not found); the
#              full-text index holds each live memory once and its counts,
#              moved by concurrent writers, are exact;
#   secrets    a conninfo's password never shows in an error.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"
db_setup cli_a cli_b
cd "$tmp" # a mnemo that took the conninfo for a path would make it here, not in the tree
unset VISUAL EDITOR
ID_RE='[0-9A-HJKMNP-TV-Z]{26}'

# ==== flows ====================================================================
out=$(m save --kind gotcha --title "Cart sessions expire when delay is nil" \
    "The cart session expires at once when the delay is nil; default it to thirty seconds.")
a=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
[[ $out == created* && -n $a ]] || fail "save: $out"
out=$(m save --kind gotcha --title "Cart sessions expire when delay is nil" \
    "The cart session expires at once when the delay is nil; default it to thirty seconds.")
[[ $out == "merged $a"* ]] || fail "the same save again is merged into $a: $out"
out=$(m save --kind gotcha --title "Cart sessions expire when the delay is nil" \
    "The cart session expires at once when the delay is nil; default it to thirty seconds!")
[[ $out == "merged $a"* ]] || fail "a near copy is merged into $a (near-duplicates): $out"
m audit | grep '"match":"near"' >/dev/null || fail "the audit log records the near merge"
out=$(m save --kind decision --title "One PostgreSQL server for the team" \
    "Every agent of the team reads and writes one PostgreSQL database through mnemo serve.")
b=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
[ -n "$b" ] && [ "$b" != "$a" ] || fail "a different memory is created: $out"
m edit "$a" --title "Cart sessions expire at once when delay is nil" >/dev/null || fail "edit"
m link "$a" relates_to "$b" >/dev/null || fail "link"
m show "$a" | grep "^title: Cart sessions expire at once when delay is nil" >/dev/null || fail "show after edit"
m show "$b" | grep "$a" >/dev/null || fail "show lists the backlink from $a"
out=$(m save --kind decision --title "Sessions are refreshed by the cart itself" \
    "The cart refreshes its own session every minute; the delay setting is gone.")
c=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
m link "$c" supersedes "$b" >/dev/null || fail "link supersedes"
m show "$b" | grep "^status: superseded" >/dev/null || fail "a superseded memory says so: $(m show "$b" | grep status)"
m audit | grep "supersede" >/dev/null || fail "the audit log records the supersede"
m forget --purge "$c" >/dev/null || fail "purge the superseding memory"
m config set memory.ttl.fact 30d >/dev/null || fail "config set"
[ "$(m config get memory.ttl.fact)" = 30d ] || fail "config get"
[ "$(m list | wc -l)" -eq 2 ] || fail "list shows two memories: $(m list)"
m forget "$a" >/dev/null || fail "forget"
[ "$(m list | wc -l)" -eq 1 ] || fail "a forgotten memory is not listed"
m forget --undo "$a" >/dev/null || fail "forget --undo"
[ "$(m list | wc -l)" -eq 2 ] || fail "an undone forget lists it again"

# ==== projects ================================================================
[ "$(MNEMO_PROJECT=other m list)" = "no memories" ] ||
    fail "another project in the same database sees none of these memories"
MNEMO_PROJECT=other m save --kind fact --title "The other project's own fact" \
    "Only the other project sees this fact about its own build." >/dev/null || fail "save in project other"
[ "$(m list | wc -l)" -eq 2 ] || fail "the default project does not see the other's memory"
[ "$(sql "SELECT count(*) FROM projects")" = 2 ] || fail "two projects in one database"

# ==== round trip ==============================================================
m export >"$tmp/pg.jsonl" || fail "export from PostgreSQL"
"$MNEMO" --db "$tmp/copy.db" import "$tmp/pg.jsonl" >/dev/null || fail "import into SQLite"
"$MNEMO" --db "$tmp/copy.db" export >"$tmp/sqlite.jsonl" || fail "export from SQLite"
cmp -s "$tmp/pg.jsonl" "$tmp/sqlite.jsonl" || fail "PostgreSQL -> SQLite: exports differ: $(diff "$tmp/pg.jsonl" "$tmp/sqlite.jsonl" | head -5)"
"$MNEMO" --db "$DB2" import "$tmp/sqlite.jsonl" >/dev/null || fail "import into PostgreSQL"
"$MNEMO" --db "$DB2" export >"$tmp/pg2.jsonl" || fail "export from the second PostgreSQL store"
cmp -s "$tmp/sqlite.jsonl" "$tmp/pg2.jsonl" || fail "SQLite -> PostgreSQL: exports differ: $(diff "$tmp/sqlite.jsonl" "$tmp/pg2.jsonl" | head -5)"
[ "$(wc -l <"$tmp/pg.jsonl")" -ge 2 ] || fail "the export holds the memories"
# consolidation reads the same fingerprints on both (store_review.h)
pgc=$(m consolidate --json) || fail "consolidate on PostgreSQL"
sqc=$("$MNEMO" --db "$tmp/copy.db" consolidate --json) || fail "consolidate on SQLite"
[ "$pgc" = "$sqc" ] || fail "consolidate answers alike: PostgreSQL $pgc, SQLite $sqc"
[[ $pgc == *'"examined":'[1-9]* ]] || fail "consolidate examined the memories: $pgc"

# ==== purge ===================================================================
m forget --purge "$a" >/dev/null || fail "forget --purge"
[ "$(sql "SELECT count(*) FROM memories WHERE uid = '$a'")" = 0 ] || fail "purge removes the row"
[ "$(sql "SELECT count(*) FROM links")" = 0 ] || fail "purge removes its links"
[ "$(sql "SELECT count(*) FROM memory_fingerprints")" = 2 ] || fail "purge removes its fingerprint (b and the other project's stay)"
[ "$(sql "SELECT count(*) FROM memory_keys k JOIN memories x ON x.id = k.memory_id WHERE x.uid = '$a'")" = 0 ] ||
    fail "purge removes its keys"
[ "$(sql "SELECT count(*) FROM memory_keys")" -gt 0 ] || fail "the other memories keep their keys"

# ==== two writers =============================================================
# two processes saving into one project at once: every save lands (the project's advisory
# lock makes them take turns, as SQLite's write lock does)
before=$(sql "SELECT count(*) FROM memories")
for w in 1 2; do
    (for i in 1 2 3 4 5 6 7 8; do
        MNEMO_PROJECT=default m save --kind fact --title "Writer $w wrote fact number $i" \
            "Fact $i of writer $w: distinct words w${w}n$i so that no two saves merge." >/dev/null ||
            echo "writer $w save $i failed" >>"$tmp/writers.err"
    done) &
done
wait
[ ! -s "$tmp/writers.err" ] || fail "concurrent saves failed: $(cat "$tmp/writers.err")"
[ "$(sql "SELECT count(*) FROM memories")" = $((before + 16)) ] ||
    fail "16 concurrent saves, $(($(sql "SELECT count(*) FROM memories") - before)) stored"

# ==== search ==================================================================
# a is purged and b superseded: nothing to find by default, and no error
out=$(m search --kinds memory "cart session" 2>&1) || fail "search on PostgreSQL: $out"
[[ $out == *"nothing found"* ]] || fail "a purged and a superseded memory are not found: $out"
# the full-text index holds every live memory once, and its counts (moved by the 16
# concurrent writers above) are exact
live=$(sql "SELECT count(*) FROM memories WHERE deleted_at IS NULL")
[ "$(sql "SELECT count(*) FROM fts_docs WHERE tbl = 0")" = "$live" ] ||
    fail "fts_docs holds the $live live memories: $(sql "SELECT count(*) FROM fts_docs WHERE tbl = 0")"
[ "$(sql "SELECT sum(ndocs) FROM fts_stats WHERE tbl = 0")" = "$live" ] ||
    fail "fts_stats counts the $live live memories: $(sql "SELECT sum(ndocs) FROM fts_stats WHERE tbl = 0")"
[ "$(sql "SELECT sum(ntok) FROM fts_stats WHERE tbl = 0")" = "$(sql "SELECT sum(ntok) FROM fts_docs WHERE tbl = 0")" ] ||
    fail "fts_stats sums the memories' lengths"

# ==== secrets =================================================================
if out=$("$MNEMO" --db "$MNEMO_TEST_PG dbname=mnemo_none password=s3cret" list 2>&1); then
    fail "a missing database is an error"
fi
[[ $out != *s3cret* ]] || fail "the password shows in: $out"
[[ $out == *"password=***"* ]] || fail "the location is shown redacted: $out"

db_finish
