#!/usr/bin/env bash
# ingest_pg.sh - `mnemo ingest git` on a real small repository into a
# PostgreSQL store (pg_ingest.c; CTest pg/ingest_pg, label pg, on the
# cluster MNEMO_TEST_PG names), against the same ingest into SQLite.
#
#   ingest    a dependency swap with its reason (dependency facts, a
#             decision, the old dependency superseded) and "Fixes #12": the
#             memories saved are SQLite's, title for title and status for
#             status; git_commits, git_commit_files, ingest_keys and
#             task_links rows are in the database (psql), of this project
#   again     a second run reads no commit again and saves nothing
#   project   another project in the same database reads every commit anew
#   gc, scan  run on the store (life_each, texts_each): a secret in a link's
#             note is found and redacted in the database
# A failed check is reported and the script goes on; it exits 1 if any failed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"
db_setup ingest
n=0
commit() { # commit MESSAGE: a minute apart, so order is history's
    n=$((n + 1))
    GIT_AUTHOR_DATE="2024-01-01T10:0$n:00Z" GIT_COMMITTER_DATE="2024-01-01T10:0$n:00Z" \
        git commit -q -m "$1"
}

repo=$tmp/repo
mkdir -p "$repo/shop"
cd "$repo"
git init -q -b main
printf 'from setuptools import setup\n\nrequires = [\n    "chardet>=3.0.2,<5",\n    "idna>=2.5",\n]\n\nsetup(name="shop", install_requires=requires)\n' >setup.py
printf 'def get(url):\n    return url\n' >shop/api.py
git add -A && commit "Initial shop"
sed -i 's/"chardet>=3.0.2,<5"/"charset_normalizer>=2,<4"/' setup.py
git add -A && commit "Use charset_normalizer instead of chardet because chardet is LGPL licensed"
printf 'def get(url):\n    return url.strip()\n' >shop/api.py
git add -A && commit "Strip the URL before use

Fixes #12"
fix=$(git rev-parse HEAD)

# ==== ingest: the same memories on both back ends =============================
"$MNEMO" --db "$DB" ingest git >"$tmp/pg.out" 2>&1 || fail "ingest git on PostgreSQL: $(cat "$tmp/pg.out")"
"$MNEMO" --db "$tmp/s.db" ingest git >"$tmp/sq.out" 2>&1 || fail "ingest git on SQLite: $(cat "$tmp/sq.out")"
grep -q "commits: 3 read" "$tmp/pg.out" || fail "3 commits read: $(cat "$tmp/pg.out")"
listing() { # the git memories: kind, status, title, sorted
    "$MNEMO" --db "$1" --json list --source git --limit 100 |
        node -e "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(d.memories.map(m => m.kind + '|' + m.status + '|' + m.title).sort().join('\n') + '\n')"
}
listing "$DB" >"$tmp/pg.list"
listing "$tmp/s.db" >"$tmp/sq.list"
[ "$(wc -l <"$tmp/pg.list")" -ge 4 ] || fail "PostgreSQL: at least 4 git memories: $(cat "$tmp/pg.list")"
grep -q '^decision|active|Use charset_normalizer instead of chardet' "$tmp/pg.list" ||
    fail "the decision is saved: $(cat "$tmp/pg.list")"
grep -q '^fact|superseded|Added dependency chardet' "$tmp/pg.list" ||
    fail "the old dependency is superseded: $(cat "$tmp/pg.list")"
diff "$tmp/sq.list" "$tmp/pg.list" >"$tmp/diff" || fail "the git memories differ from SQLite's: $(cat "$tmp/diff")"

[ "$(sql "SELECT count(*) FROM git_commits WHERE state = 'done'")" = 3 ] || fail "3 commits done in git_commits"
[ "$(sql "SELECT count(*) FROM git_commit_files f JOIN git_commits c ON c.id = f.commit_id WHERE c.sha = '$fix' AND f.path = 'shop/api.py' AND f.status = 'modified'")" = 1 ] ||
    fail "the fix's path in git_commit_files: $(sql "SELECT * FROM git_commit_files")"
[ "$(sql "SELECT kind FROM task_links WHERE task_key = '#12' AND ref = 'commit:$fix'")" = fixes ] ||
    fail "Fixes #12 in task_links: $(sql "SELECT * FROM task_links")"
keys=$(sql "SELECT count(*) FROM ingest_keys")
[ "$keys" -ge 4 ] || fail "ingest keys stored: $keys"
[ "$(sql "SELECT count(*) FROM ingest_keys k LEFT JOIN memories m ON m.uid = k.memory_uid WHERE m.id IS NULL")" = 0 ] ||
    fail "every ingest key names a stored memory"

# ==== again: nothing read twice ===============================================
before=$(sql "SELECT count(*) FROM memories")
"$MNEMO" --db "$DB" ingest git >"$tmp/pg2.out" 2>&1 || fail "second ingest: $(cat "$tmp/pg2.out")"
grep -q "commits: 0 read, 3 read before" "$tmp/pg2.out" || fail "second run: $(cat "$tmp/pg2.out")"
[ "$(sql "SELECT count(*) FROM memories")" = "$before" ] || fail "the second run saved something"

# ==== another project in the database reads the commits for itself ============
MNEMO_PROJECT=other "$MNEMO" --db "$DB" ingest git >"$tmp/pg3.out" 2>&1 || fail "ingest into project other: $(cat "$tmp/pg3.out")"
grep -q "commits: 3 read, 0 read before" "$tmp/pg3.out" || fail "project other: $(cat "$tmp/pg3.out")"
[ "$(sql "SELECT count(DISTINCT project_id) FROM git_commits")" = 2 ] || fail "two projects' commits"

# ==== gc and scan =============================================================
"$MNEMO" --db "$DB" gc >"$tmp/gc.out" 2>&1 || fail "gc: $(cat "$tmp/gc.out")"
src=$(sql "SELECT uid FROM memories m JOIN projects p ON p.id = m.project_id WHERE p.name <> 'other' AND m.kind = 'decision'")
"$MNEMO" --db "$DB" link "$src" relates_to "commit:$fix" --note "token ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1 used" >/dev/null 2>&1 ||
    fail "link with a note"
[ "$(sql "SELECT count(*) FROM links WHERE note LIKE '%FAKEq7Wm2Xr9Lk4Tz8%'")" = 0 ] || fail "a link's note is stored with its secret"
# as an older mnemo stored it, unscrubbed
sql "UPDATE links SET note = 'token ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1 used' WHERE dst_ref = 'commit:$fix'" >/dev/null
[ "$(sql "SELECT count(*) FROM links WHERE note LIKE '%FAKEq7Wm2Xr9Lk4Tz8%'")" = 1 ] || fail "the note is stored"
"$MNEMO" --db "$DB" scan --fix >"$tmp/scan.out" 2>&1 || fail "scan --fix: $(cat "$tmp/scan.out")"
[ "$(sql "SELECT count(*) FROM links WHERE note LIKE '%FAKEq7Wm2Xr9Lk4Tz8%'")" = 0 ] ||
    fail "the secret is still in the links table: $(cat "$tmp/scan.out")"

db_finish
