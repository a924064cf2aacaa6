#!/usr/bin/env bash
# store_corrupt.sh - a store whose file is damaged says so, and where.
#
#   a b-tree page of the memories table overwritten on disk (as a failing disk
#   or a copy taken while a write was under way leaves it): `mnemo list` fails
#   with one error that says the store is malformed, and SQLite's own line of
#   where it found the damage ("database corruption at line N") is printed
#   with it at the default log level, so a report carries what is needed to
#   find the cause; the other tables still answer (`mnemo config list`)
# A failed check is reported and the script goes on; it exits 1 if any failed.
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-corrupt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT MNEMO_LOG
mkdir -p "$HOME" "$tmp/p"
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

cd "$tmp/p"
"$MNEMO" init >/dev/null
for i in 1 2 3; do
    "$MNEMO" save --kind fact --title "Ledger fact $i" --body "The ledger closes at hour $i." >/dev/null
done
db=.mnemo/mnemo.db
# the last connection to close moved the write-ahead log into the file
[ -s "$db-wal" ] && sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
root=$(sqlite3 "$db" "SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'memories'")
size=$(sqlite3 "$db" 'PRAGMA page_size')
[ "${root:-0}" -gt 1 ] || fail "no root page for the memories table: '$root'"
# the page's type byte (2, 5, 10 or 13 in a sound file) becomes 0xff
printf '\377' | dd of="$db" bs=1 seek=$(((root - 1) * size)) conv=notrunc status=none

rc=0
"$MNEMO" list >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" != 0 ] || fail "list of a damaged table succeeded: $(head -c 300 "$tmp/out")"
grep -q 'malformed' "$tmp/err" || fail "the error does not say the store is malformed: $(cat "$tmp/err")"
grep -Eq 'sqlite \(11\): database corruption at line [0-9]+' "$tmp/err" ||
    fail "SQLite's line of where it found the damage is not printed: $(cat "$tmp/err")"
"$MNEMO" config list >/dev/null 2>"$tmp/err2" || fail "the settings of a store with one damaged table: $(cat "$tmp/err2")"

exit $((failures > 0))
