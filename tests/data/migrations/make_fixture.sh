#!/usr/bin/env bash
# make_fixture.sh MNEMO N - write vN.sql, the fixture of schema N, from v(N-1).sql:
# the previous fixture's store opened writable by MNEMO (a build whose newest
# schema is N), which migrates it (and computes what the migration's C code
# computes: fingerprints), then dumped. The content is the one every fixture
# holds (tests/unit/store/test_migrate.c), so test_migrate checks it as is.
# Run it once, when schema N lands; never rerun it over an existing vN.sql.
set -euo pipefail
mnemo=${1:?usage: make_fixture.sh MNEMO N}
n=${2:?usage: make_fixture.sh MNEMO N}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prev=$here/v$((n - 1)).sql
out=$here/v$n.sql
[ -f "$prev" ] || { echo "no $prev" >&2; exit 1; }
[ ! -e "$out" ] || { echo "$out exists: fixtures are never rewritten" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sqlite3 "$tmp/m.db" <"$prev"
MNEMO_NOW_MS=1795000000000 "$mnemo" --db "$tmp/m.db" config get user.name >/dev/null
[ "$(sqlite3 "$tmp/m.db" 'PRAGMA user_version')" = "$n" ] || { echo "the store is not at schema $n" >&2; exit 1; }
sqlite3 "$tmp/m.db" .dump >"$out"
echo "PRAGMA user_version=$n;" >>"$out"
echo "wrote $out"
