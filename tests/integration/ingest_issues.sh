#!/usr/bin/env bash
# ingest_issues.sh - `mnemo ingest issues` on GitHub, Jira and YouTrack
# exports (tests/data/ingest/issues, README there):
#   tasks       each issue stored with its comments, scrubbed;
#   memories    one per issue, found by its id by search, recall and context
#               ("#12", "CS-214", "SHOP-41");
#   decisions   stated in comments (a GitHub comment, Jira's ADF body, a
#               YouTrack comment): saved as candidates with their reason;
#   link_issue  commits that say "Fixes #12" are tied to it by the git
#               ingest; link_issue ties memories and commits by hand, and the
#               memories then carry the tag issue:<id>;
#   again       a second import changes nothing; an edited issue is updated
#               in place;
#   secrets     a token pasted into an issue reaches no file of the store;
#   bad input   a file outside the project, or JSON of no known shape: one
#               clear error, nothing written.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_TEST_DATA:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
unset MNEMO_DB MNEMO_PROJECT
fails=0
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
I=$MNEMO_TEST_DATA/ingest/issues

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
echo "TIMEOUT = 10" >gateway.py && git add -A && git commit -q -m "Time out gateway calls after 10 s. Fixes #12"
fix=$(git rev-parse HEAD)
mn init >/dev/null
mn ingest git >/dev/null
# GitHub's issues and comments as two calls of its API return them, in one object
node -e "const f=require('fs'); console.log(JSON.stringify({issues: JSON.parse(f.readFileSync('$I/github.json')), comments: JSON.parse(f.readFileSync('$I/github_comments.json'))}))" >github.json
cp "$I/jira.json" "$I/youtrack.json" .

mn --json ingest issues github.json >"$tmp/gh.json"
js "github" "d.format==='github' && d.issues===2 && d.comments===3 && d.created===2 && d.decisions>=1 && d.linked_commits===1" <"$tmp/gh.json"
mn --json ingest issues jira.json | js "jira" "d.format==='jira' && d.issues===1 && d.comments===1 && d.decisions===1"
mn --json ingest issues youtrack.json | js "youtrack" "d.format==='youtrack' && d.issues===1 && d.decisions===1"

mn export --format json | node -e "console.log(JSON.stringify({memories: JSON.parse(require('fs').readFileSync(0))}))" >"$tmp/all.json"
js "through the save pipeline" "d.memories.filter(m=>m.provenance.source==='issue').length>=4 && d.memories.filter(m=>m.provenance.source==='issue').every(m=>m.provenance.extraction_method==='auto' && m.judgement)" <"$tmp/all.json"
js "issue memories" "['#12','#15','CS-214','SHOP-41'].every(id=>d.memories.some(m=>m.provenance.source==='issue' && m.provenance.task===id && m.title.startsWith(id+': ') && m.scope.tags.includes('issue:'+id)))" <"$tmp/all.json"
js "github decision with its reason" "d.memories.some(m=>m.kind==='decision' && m.provenance.task==='#12' && /10 second timeout/.test(m.title) && /stuck checkout/.test(m.context.situation) && m.provenance.author==='bob')" <"$tmp/all.json"
js "jira ADF decision" "d.memories.some(m=>m.kind==='decision' && m.provenance.task==='CS-214' && /second approver/.test(m.title))" <"$tmp/all.json"
js "youtrack decision" "d.memories.some(m=>m.kind==='decision' && m.provenance.task==='SHOP-41' && /order's currency/.test(m.title))" <"$tmp/all.json"
js "the commit's memories carry the issue" "d.memories.filter(m=>m.provenance.commit==='$fix').every(m=>m.scope.tags.includes('issue:#12'))" <"$tmp/all.json"

# found by its id
mn --json search "#12" --kinds memory | js "search #12" "d.items.length>0 && d.items[0].title.startsWith('#12:')"
mn --json search "CS-214" --kinds memory | js "search CS-214" "d.items.some(i=>i.title.startsWith('CS-214:'))"
mn --json recall "SHOP-41" | js "recall SHOP-41" "JSON.stringify(d).includes('SHOP-41')"
mn --json context "what happened in CS-214" | js "context CS-214" "d.markdown.includes('CS-214') && d.relevant"

# link_issue: the commit tied by the message; a memory tied by hand
mn --json issue "#12" | js "the commit that fixes #12" "d.known && d.title.startsWith('Requests hang') && d.links.some(l=>l.ref==='commit:$fix' && l.kind==='fixes')"
mid=$(mn --json save "Gateway calls need a timeout or checkout hangs" --keyword gateway | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).id)")
mn --json issue GH-12 --memory "$mid" | js "link a memory" "d.issue==='#12' && d.links.some(l=>l.ref==='$mid')"
mn --json show "$mid" | js "the memory carries the issue" "d.memory.scope.tags.includes('issue:#12') && d.memory.links.some(l=>l.kind==='relates_to' && l.to==='issue:#12')"
short=$(echo "$fix" | cut -c1-8)
mn --json issue CS-214 --commit "$short" | js "an abbreviated commit resolved" "d.links.some(l=>l.ref==='commit:$fix')"

# again: unchanged; an edited issue updated in place
mn --json ingest issues github.json | js "again: unchanged" "d.created===0 && d.updated===0 && d.unchanged===2"
sed -i 's/Checkout spins for minutes/Checkout spins for ten minutes/' github.json
mn --json ingest issues github.json | js "edited: updated" "d.updated===1 && d.created===0"
mn --json search "#12" --kinds memory | js "updated in place" "d.items.filter(i=>i.title.startsWith('#12:')).length===1"

# the token pasted into #15: nowhere
for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal; do
    [ -e "$f" ] && grep -aqF FAKEq7Wm2Xr9Lk4Tz8 "$f" && fail "the issue's token is in $f"
done
sqlite3 .mnemo/mnemo.db "SELECT body FROM tasks WHERE external_id='#15'" | grep -q 'REDACTED' || fail "the task's body is not redacted"

# bad input
echo '{"hello": 1}' >odd.json
if mn ingest issues odd.json >/dev/null 2>"$tmp/err"; then fail "an unknown shape was accepted"; fi
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "unknown shape: $(cat "$tmp/err")"
if mn ingest issues "$I/github.json" >/dev/null 2>"$tmp/err"; then fail "a file outside the project was read"; fi
grep -q "outside the project" "$tmp/err" || fail "outside: $(cat "$tmp/err")"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_issues" || exit 1
