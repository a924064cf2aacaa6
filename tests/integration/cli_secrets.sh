#!/usr/bin/env bash
# cli_secrets.sh - nothing secret is kept or served, on every way in and out
# of the store that the command line reaches:
#   save      a token in a memory's fields is redacted before it is stored;
#             a memory that is mostly a secret is refused, naming the rule;
#             the audit row names the rule and the memory, never the value;
#   index     a secret committed in the repository (.env, settings.py) stays
#             in the file and never reaches the store (chunks, full-text
#             index, WAL); nor one in a commit message (history);
#   around    the texts stored beside memories: a link's target and note
#             (link, import), an issue's url, author, labels and a body cut
#             across a token, a document's title and url, the default
#             author (user.name); a setting holding a secret is refused;
#   out       rows stored while the project allow-listed the values (its
#             .mnemo-scan.yaml, removed afterwards: as if they were stored
#             before a rule existed) are not served by search, context,
#             recall, show or export; a question, and feedback's note and
#             new query, are recorded redacted;
#   scan      `mnemo scan` reports them by rule, never the text; --fix
#             redacts in place and leaves no byte of them in the store's
#             files (main file, WAL, side files), and a second scan finds
#             nothing.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,800)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }

# Fake credentials in the formats of real ones (none is live). The distinctive
# part of each is what must not be found anywhere afterwards.
GH=ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1
GH_PART=FAKEq7Wm2Xr9Lk4Tz8
AWS=AKIAZQ3FAKE7EXAMPLXQ
AWS_PART=ZQ3FAKE7EXAMPL
SL=xoxb-318273645091-2847561930284-FAKE8f3KqLw2ZtR9mXc7VbN1
SL_PART=FAKE8f3KqLw2ZtR9
parts=("$GH_PART" "$AWS_PART" "$SL_PART")

# nowhere FILE...: none of the distinctive parts in the bytes of the files
nowhere() {
    local what=$1 f p
    shift
    for f in "$@"; do
        [ -e "$f" ] || continue
        for p in "${parts[@]}"; do
            if grep -aqF "$p" "$f"; then fail "$what: '$p' found in $f"; fi
        done
    done
}
store_files() { ls "$repo"/.mnemo/mnemo.db* "$repo"/.mnemo/mnemo.db-* 2>/dev/null | sort -u; }

repo=$tmp/repo
mkdir -p "$repo/app"
cd "$repo"
git init -q
cat >.env <<EOF
GITHUB_TOKEN=$GH
DEBUG=true
EOF
cat >app/settings.py <<EOF
"""Settings of the app."""
AWS_ACCESS_KEY_ID = "$AWS"
SLACK_BOT_TOKEN = "$SL"


def load_settings():
    """Read the settings."""
    return {"region": "eu-west-1"}
EOF
git add -A
git -c user.email=dev@example.invalid -c user.name=dev commit -qm "settings; the bot uses $SL for now"
mn init >/dev/null

# ---- save -----------------------------------------------------------------
mn save --json --kind gotcha --title "Release job needs the CI token" \
    --situation "release failed: Bad credentials for $GH" --solution "export GH_TOKEN=$GH first" \
    --keyword release,token "The release job reads $GH from the runner; rotate it every 90 days." \
    >"$tmp/saved.json" || fail "save with a token"
js "save says what it redacted" "d.redacted && d.redacted.count >= 3 && d.redacted.rules.includes('github-pat')" <"$tmp/saved.json"
id=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)" <"$tmp/saved.json")
mn show "$id" >"$tmp/show.txt"
grep -q "rotate it every 90 days" "$tmp/show.txt" || fail "the rest of the memory is kept"
grep -q "REDACTED:github-pat" "$tmp/show.txt" || fail "the marker names the rule"
if mn save "$GH" >"$tmp/out" 2>"$tmp/err"; then fail "a memory that is only a token is saved"; fi
grep -q "mostly a secret.*github-pat" "$tmp/err" || fail "the refusal names the rule: $(cat "$tmp/err")"
sqlite3 .mnemo/mnemo.db "SELECT detail FROM audit WHERE action = 'redact'" >"$tmp/audit.txt"
grep -q github-pat "$tmp/audit.txt" || fail "no audit row names the rule"

# ---- index ----------------------------------------------------------------
mn index >/dev/null || fail "index"
n=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'app/settings.py' AND c.text LIKE '%REDACTED%'")
[ "$n" -ge 1 ] || fail "settings.py's chunks hold no redaction marker"
mn search "slack bot token aws access key" --kinds code --json >"$tmp/code.json" || fail "search code"
js "search finds the settings" "d.items.some(i => (i.path || '').includes('settings.py'))" <"$tmp/code.json"
nowhere "search of the code" "$tmp/code.json"
nowhere "after index" $(store_files)

# ---- around the memories: links, issues, documents, the author, settings -----
pw=Hunter2FAKEpass
parts+=("$pw")
lid=$(mn save --json --kind fact --title "The deploy job reads the release notes" \
    "The deploy job reads the release notes before it tags." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
mn link "$lid" about "url:https://ops:$pw@ci.example.invalid/job" --note "it posts with $SL" \
    >/dev/null || fail "link with a secret target and note"
mn link "$lid" relates_to "task:$GH" >/dev/null || fail "link to a task named by a token"
cat >"$tmp/import.jsonl" <<EOF
{"id":"01JF0000000000000000000001","kind":"fact","level":"L1","title":"Imported with links","body":"A memory imported with links that carry secrets.","provenance":{"source":"import"},"status":"active","confidence":0.9,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","links":[{"kind":"about","to":"url:https://ops:$pw@wiki.example.invalid/x","note":"key $AWS"}]}
EOF
mn import "$tmp/import.jsonl" >/dev/null || fail "import with links"
# an issue whose url, author and labels hold secrets, and whose body is cut across a token
node -e "
const body = 'The deploy fails. ' + 'x'.repeat(256 * 1024 - 30) + ' $GH and more text after it';
console.log(JSON.stringify([{number: 7, title: 'Deploy fails', body, state: 'open',
  html_url: 'https://ops:$pw@github.example.invalid/o/r/issues/7', user: {login: '$AWS'},
  labels: [{name: 'ci'}, {name: '$SL'}]}]))" >issues.json
mn ingest issues issues.json >/dev/null || fail "ingest issues"
rm issues.json
mkdir -p docs
printf -- '---\nurl: https://admin:%s@wiki.example.invalid/p\n---\n# Rotate %s every quarter\n\nThe on-call engineer rotates the bot token every ninety days and records it.\n' \
    "$pw" "$GH" >docs/rotate.md
mn ingest docs docs >/dev/null || fail "ingest docs"
aid=$(USER=$GH mn save --json "Saved under a login that is a token: the author is redacted." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
sqlite3 .mnemo/mnemo.db "SELECT author FROM memories WHERE uid = '$aid'" | grep -q 'REDACTED:github-pat' ||
    fail "the default author is not redacted: $(sqlite3 .mnemo/mnemo.db "SELECT author FROM memories WHERE uid = '$aid'" | head -c 80)"
for kv in "user.name=$GH" "embed.url=https://ops:$pw@embed.example.invalid/v1" "embed.document_prefix=token $GH"; do
    if mn config set "${kv%%=*}" "${kv#*=}" >/dev/null 2>"$tmp/err"; then fail "config set ${kv%%=*} took a secret"; fi
    nowhere "config set's refusal" "$tmp/err"
done
nowhere "around the memories" $(store_files)
# no rule finds a bare password: the checks below name it where it is stored
parts=("$GH_PART" "$AWS_PART" "$SL_PART")

# ---- rows stored while allow-listed are not served once the allow-list goes ---
cat >.mnemo-scan.yaml <<EOF
allow:
  values: ["$GH", "$AWS", "$SL", "$pw", "${pw}X"]
EOF
old=$(mn save --json --kind fact --title "Deploy credentials of the old cluster" \
    "old note: the deploy key is $AWS and the slack bot posts with $SL" |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
echo "# legacy token $GH" >>app/settings.py
mn index >/dev/null
mn link "$old" about "url:https://ops:$pw@old.example.invalid/$AWS" --note "old key $AWS" >/dev/null
mn link "$old" about "url:https://ops:$pw@old.example.invalid/$SL" >/dev/null
# two links whose targets differ only by a password are one link once it is redacted
mn link "$old" about "url:https://ops:$pw@twice.example.invalid/" >/dev/null
mn link "$old" about "url:https://ops:${pw}X@twice.example.invalid/" >/dev/null
node -e "console.log(JSON.stringify([{number: 8, title: 'Old deploy', body: 'old', state: 'closed',
  html_url: 'https://ops:$pw@github.example.invalid/o/r/issues/8', user: {login: '$AWS'},
  labels: [{name: '$SL'}]}]))" >old_issues.json
mn ingest issues old_issues.json >/dev/null
rm old_issues.json
printf -- '---\nurl: https://admin:%s@wiki.example.invalid/old\n---\n# The old cluster\n\nThe old cluster is retired; its dashboards stay readable for a year.\n' \
    "$pw" >docs/old.md
mn ingest docs docs >/dev/null
[ "$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM memories WHERE body LIKE '%$AWS_PART%'")" -ge 1 ] ||
    fail "the allow-list did not let the value through (the test plants nothing)"
sqlite3 .mnemo/mnemo.db "SELECT (SELECT count(*) FROM links WHERE dst_ref LIKE '%$pw%') || ' ' ||
    (SELECT count(*) FROM tasks WHERE url LIKE '%$pw%' AND author LIKE '%$AWS_PART%') || ' ' ||
    (SELECT count(*) FROM docs WHERE url LIKE '%$pw%')" | grep -Eqx '[1-9][0-9]* 1 1' ||
    fail "the allow-list did not let links, an issue and a document through (the test plants nothing)"
rm .mnemo-scan.yaml
for q in "deploy key old cluster" "legacy token settings"; do
    mn search "$q" --json >"$tmp/s.json" || fail "search $q"
    nowhere "search '$q'" "$tmp/s.json"
    mn context "$q" --json >"$tmp/c.json" || fail "context $q"
    nowhere "context '$q'" "$tmp/c.json"
    mn recall "$q" --json >"$tmp/r.json" || fail "recall $q"
    nowhere "recall '$q'" "$tmp/r.json"
done
mn show "$old" --json >"$tmp/show.json"
nowhere "show" "$tmp/show.json"
grep -q "REDACTED" "$tmp/show.json" || fail "show marks what it left out"
mn export -o "$tmp/export.jsonl"
nowhere "export" "$tmp/export.jsonl"
mn search "why is $GH refused by the release job" --json >"$tmp/q.json" || fail "a search quoting a token"
nowhere "a search quoting a token" "$tmp/q.json"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM served WHERE query LIKE '%REDACTED:github-pat%'" | grep -qx 1 ||
    fail "the question was not recorded, redacted"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM served WHERE query LIKE '%$GH_PART%'" | grep -qx 0 ||
    fail "a query was recorded with its secret"
served=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).served)" <"$tmp/q.json")
mn feedback refined --served "$served" --query "the release job and $SL" --note "it printed $AWS" \
    >/dev/null || fail "feedback refined quoting tokens"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM feedback WHERE query LIKE '%REDACTED:slack%' AND note LIKE '%REDACTED:aws%'" |
    grep -qx 1 || fail "feedback's query and note were not recorded, redacted"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM feedback WHERE query LIKE '%$SL_PART%' OR note LIKE '%$AWS_PART%'" |
    grep -qx 0 || fail "feedback was recorded with its secrets"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit WHERE action = 'feedback' AND (detail LIKE '%$SL_PART%' OR detail LIKE '%$AWS_PART%')" |
    grep -qx 0 || fail "feedback's audit row holds its secrets"

# ---- scan and scan --fix ----------------------------------------------------
mn scan --json >"$tmp/scan.json" || fail "scan"
js "scan counts the planted rows by rule" "d.memories.with_hits >= 1 && d.texts['chunks.text'].with_hits >= 1 && d.texts['links.dst_ref'].with_hits >= 1 && d.texts['tasks.url'].with_hits === 1 && d.texts['docs.url'].with_hits === 1 && d.rules['github-pat'] >= 1 && d.fixed === false" <"$tmp/scan.json"
nowhere "scan's report" "$tmp/scan.json"
mn scan >"$tmp/scan.txt"
grep -q "mnemo scan --fix" "$tmp/scan.txt" || fail "scan says how to fix"
mn scan --fix --json >"$tmp/fix.json" || fail "scan --fix"
js "scan --fix says it fixed" "d.fixed === true" <"$tmp/fix.json"
nowhere "after scan --fix" $(store_files)
mn scan --json >"$tmp/scan2.json"
sqlite3 .mnemo/mnemo.db "SELECT (SELECT count(*) FROM links WHERE dst_ref LIKE '%$pw%') +
    (SELECT count(*) FROM tasks WHERE url LIKE '%$pw%') + (SELECT count(*) FROM docs WHERE url LIKE '%$pw%')" |
    grep -qx 0 || fail "scan --fix left a password in a link, an issue or a document"
sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM links WHERE dst_ref LIKE '%twice.example%'" | grep -qx 1 ||
    fail "two links that became one are not one: $(sqlite3 .mnemo/mnemo.db "SELECT dst_ref FROM links WHERE dst_ref LIKE '%twice%'")"
js "a second scan finds nothing" "d.memories.with_hits === 0 && Object.keys(d.rules).length === 0" <"$tmp/scan2.json"
mn search "deploy key old cluster" --json >"$tmp/s.json" || fail "search after the fix"
js "the memory is still found" "d.items.some(i => i.id === '$old')" <"$tmp/s.json"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
