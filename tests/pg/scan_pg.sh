#!/usr/bin/env bash
# scan_pg.sh - `mnemo scan --fix` on a PostgreSQL store leaves no secret in
# the full-text postings (pg_scan.c).
#
# A token let through by an allow-list is indexed (a chunk's text and its
# symbol's docstring hold it, and so do their postings in fts_postings);
# the allow-list goes, `scan --fix` rewrites the texts, and then no posting
# of the chunks' table holds a word of the token, the postings of every
# rewritten chunk are those of its new text (the redaction marker's words
# are found), and the documents' count is unchanged. A commit subject holds
# a second token: after the scan the history's postings (tbl 3) hold none of
# its words and keep the subject's other words. A Markdown heading (a symbol's
# name) holds the token, and two links' targets differ only by a password:
# after the scan no name holds it and the two links are one.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"
db_setup scan

# a GitHub token's shape, made up; its tail is a word no other text holds
GH="ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1"
GH2="ghp_FAKEz3Qp8Rt5Ws1Xv7Yb4Nm2Kd6Lf9Hj0Ga2"
repo=$tmp/repo
mkdir -p "$repo/app"
cd "$repo"
git init -q -b main
cat >app/deploy.py <<PY
"""Deploy the app."""


def push_release(tag):
    """Push a release tag; the job uses $GH for now."""
    token = "$GH"
    return tag, token
PY
cat >.mnemo-scan.yaml <<YAML
allow:
  values: ["$GH", "$GH2", "Hunter2FAKEpass", "Hunter2FAKEpassX"]
YAML
printf '# Rotate %s every quarter\n\nThe on-call engineer rotates the token every ninety days.\n' "$GH" >ROTATE.md
git add -A && git commit -q -m "deploy"
printf 'def other():\n    return 1\n' >app/other.py
git add -A && git commit -q -m "Rotate the key $GH2 for the shop"
"$MNEMO" --db "$DB" index >"$tmp/index.out" 2>&1 || fail "index: $(cat "$tmp/index.out")"
id=$("$MNEMO" --db "$DB" --json save "The release job reads the tag before it pushes." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0, 'utf8')).id)")
for pw in Hunter2FAKEpass Hunter2FAKEpassX; do
    "$MNEMO" --db "$DB" link "$id" about "url:https://ops:$pw@twice.example.invalid/" >/dev/null ||
        fail "link with a password"
done
[ "$(sql "SELECT count(*) FROM links WHERE dst_ref LIKE '%Hunter2FAKE%'")" = 2 ] ||
    fail "the allow-list did not let the links' passwords in (the test plants nothing)"
[ "$(sql "SELECT count(*) FROM symbols WHERE name LIKE '%$GH%'")" -ge 1 ] ||
    fail "the allow-list did not let the token into a heading (the test plants nothing)"

# the postings of the chunks' table (tbl 1) that hold a word of the token
secret_postings() {
    sql "SELECT count(*) FROM fts_postings WHERE tbl = 1 AND (term LIKE '%q7wm2xr9%' OR term LIKE '%fakeq7%')"
}
docs_before=$(sql "SELECT count(*) FROM fts_docs WHERE tbl = 1")
[ "$(sql "SELECT count(*) FROM chunks WHERE text LIKE '%$GH%'")" -ge 1 ] ||
    fail "the allow-list did not let the token into the chunks (the test plants nothing)"
[ "$(secret_postings)" -ge 1 ] || fail "the token's words are not in the postings (the test plants nothing)"
# the history's postings (tbl 3) that hold WORD
history_postings() { sql "SELECT count(*) FROM fts_postings WHERE tbl = 3 AND term LIKE '%$1%'"; }
[ "$(history_postings z3qp8rt5)" -ge 1 ] ||
    fail "the commit subject's token is not in the history's postings (the test plants nothing)"

rm .mnemo-scan.yaml
"$MNEMO" --db "$DB" scan --fix >"$tmp/scan.out" 2>&1 || fail "scan --fix: $(cat "$tmp/scan.out")"
[ "$(sql "SELECT count(*) FROM chunks WHERE text LIKE '%$GH%'")" = 0 ] ||
    fail "the token is still in the chunks"
[ "$(sql "SELECT count(*) FROM symbols WHERE docstring LIKE '%$GH%'")" = 0 ] ||
    fail "the token is still in a docstring"
[ "$(sql "SELECT count(*) FROM symbols WHERE name LIKE '%$GH%' OR qualified_name LIKE '%$GH%'")" = 0 ] ||
    fail "the token is still in a symbol's name"
[ "$(sql "SELECT count(*) FROM links WHERE dst_ref LIKE '%Hunter2FAKE%'")" = 0 ] ||
    fail "a password is still in a link's target"
[ "$(sql "SELECT count(*) FROM links WHERE dst_ref LIKE '%twice.example%'")" = 1 ] ||
    fail "two links that became one are not one"
[ "$(secret_postings)" = 0 ] || fail "the token's words are still in the postings after scan --fix"
[ "$(sql "SELECT count(*) FROM fts_docs WHERE tbl = 1")" = "$docs_before" ] ||
    fail "the chunks' documents changed in number"
# the rewritten chunks are found by their new words: the marker names the rule
"$MNEMO" --db "$DB" search "redacted github pat push release" --kinds code --json >"$tmp/s.json" ||
    fail "search after scan --fix"
grep -q "deploy.py" "$tmp/s.json" || fail "the rewritten chunk is not found by its new text: $(cat "$tmp/s.json")"
[ "$(sql "SELECT count(*) FROM history_docs WHERE subjects LIKE '%$GH2%'")" = 0 ] ||
    fail "the token is still in a commit subject"
[ "$(history_postings z3qp8rt5)" = 0 ] || fail "the history's postings still hold the redacted token's words"
[ "$(history_postings rotat)" -ge 1 ] || fail "the subject's other words left the history's postings"
# the stats agree with the documents
[ "$(sql "SELECT ndocs FROM fts_stats WHERE tbl = 1")" = "$docs_before" ] ||
    fail "fts_stats' count is not the documents' ($(sql "SELECT ndocs FROM fts_stats WHERE tbl = 1") vs $docs_before)"

db_finish
