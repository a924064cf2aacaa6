#!/usr/bin/env bash
# ingest_git.sh - `mnemo ingest git` on a real repository built here, one
# commit per kind of fact:
#   dependency  chardet swapped for charset_normalizer in setup.py (runtime:
#               0.90, active), a test dependency added (0.75, pending);
#   decision    the swap's message says why: the decision, its reason, and
#               the diff agreeing (the dependency it names), saved active; a
#               later message that switches back supersedes it (chain);
#   api         a public function removed, one renamed (same parameters);
#   ci          a GitHub Actions workflow added; its Python matrix changed;
#   migration   a SQL migration added: its statements;
#   revert      git revert of a commit: the revert, and the memories of the
#               reverted commit superseded;
#   issues      "Fixes #12": the task link, the tag issue:#12, provenance.task.
# Every memory: provenance.source git, provenance.commit the full sha of its
# commit (never HEAD), a derived_from link to commit:<sha>, created_at the
# commit's time. A second run saves nothing and reads no commit again; a
# memory's wording changed by a person does not bring a second copy.
# config capture.auto_approve decides what is active: at 0.99 nothing is.
# A secret in a commit message never reaches the store's files.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
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
n=0
commit() { # commit MESSAGE: with dates a minute apart, so order is history's
    n=$((n + 1))
    GIT_AUTHOR_DATE="2024-01-01T10:$(printf %02d $n):00Z" GIT_COMMITTER_DATE="2024-01-01T10:$(printf %02d $n):00Z" \
        git commit -q -m "$1"
}

GH=ghp_FAKEq7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga1
GH_PART=FAKEq7Wm2Xr9Lk4Tz8

repo=$tmp/repo
mkdir -p "$repo/shop"
cd "$repo"
git init -q -b main
cat >setup.py <<'EOF'
from setuptools import setup

requires = [
    "chardet>=3.0.2,<5",
    "idna>=2.5",
]

setup(name="shop", install_requires=requires, python_requires=">=3.7")
EOF
cat >shop/__init__.py <<'EOF'
"""The shop."""
EOF
cat >shop/api.py <<'EOF'
def get(url, params=None, **kwargs):
    return request("get", url, params=params, **kwargs)


def post(url, data=None, **kwargs):
    return request("post", url, data=data, **kwargs)


def request(method, url, **kwargs):
    return (method, url, kwargs)
EOF
git add -A && commit "Initial shop"

sed -i 's/"chardet>=3.0.2,<5"/"charset_normalizer>=2,<4"/' setup.py
git add -A && commit "Use charset_normalizer instead of chardet because chardet is LGPL licensed"
swap=$(git rev-parse HEAD)

cat >requirements-dev.txt <<'EOF'
pytest>=7
EOF
git add -A && commit "Add pytest for the test suite"

cat >shop/api.py <<'EOF'
def get(url, params=None, **kwargs):
    return request("get", url, params=params, **kwargs)


def request(method, url, **kwargs):
    return (method, url, kwargs)
EOF
git add -A && commit "Drop post: callers use request('post', ...)"
drop=$(git rev-parse HEAD)

cat >shop/api.py <<'EOF'
def fetch(url, params=None, **kwargs):
    return request("get", url, params=params, **kwargs)


def request(method, url, **kwargs):
    return (method, url, kwargs)
EOF
git add -A && commit "Name the GET helper fetch"

mkdir -p .github/workflows
cat >.github/workflows/test.yml <<'EOF'
name: tests
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.8", "3.9"]
    steps:
      - uses: actions/checkout@v4
      - run: pytest -q
EOF
git add -A && commit "Run the tests on GitHub Actions"
sed -i 's/\["3.8", "3.9"\]/["3.9", "3.10"]/' .github/workflows/test.yml
git add -A && commit "CI: test 3.10, drop 3.8"

mkdir -p migrations
cat >migrations/0001_orders.sql <<'EOF'
CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER NOT NULL);
CREATE INDEX orders_total ON orders(total);
EOF
git add -A && commit "Store orders"

echo 'CACHE = {}' >shop/cache.py
cat >>setup.py <<'EOF'
# cache
EOF
sed -i 's/"idna>=2.5",/"idna>=2.5",\n    "cachetools>=5",/' setup.py
git add -A && commit "Add a response cache"
cache=$(git rev-parse HEAD)
GIT_AUTHOR_DATE="2024-01-01T11:00:00Z" GIT_COMMITTER_DATE="2024-01-01T11:00:00Z" \
    git revert --no-edit HEAD >/dev/null
revert=$(git rev-parse HEAD)

echo 'TIMEOUT = 5' >shop/timeouts.py
git add -A && commit "Set a default timeout. Fixes #12"
fixes=$(git rev-parse HEAD)

echo 'RETRIES = 3' >shop/retries.py
git add -A && commit "Retry failed requests (the token $GH leaked here)"

sed -i 's/"charset_normalizer>=2,<4"/"chardet>=5"/' setup.py
git add -A && commit "Switch from charset_normalizer to chardet because its 5.0 is MIT licensed"
back=$(git rev-parse HEAD)

mn init >/dev/null
mn --json ingest git >"$tmp/run1.json"
commits=$(git rev-list --count HEAD)
js "every commit read" "d.commits.ingested===$commits && d.commits.seen===$commits && d.commits.skipped===0" <"$tmp/run1.json"
js "kinds found" "['dependency','decision','api','ci','migration','revert','runtime'].every(k=>d.candidates[k]>0)" <"$tmp/run1.json"
js "some active, some pending" "d.saved>0 && d.queued>0 && d.saved+d.queued+d.merged===d.items.filter(i=>i.action!=='unchanged').length" <"$tmp/run1.json"
js "evidence: sha, file, hunk" "d.items.filter(i=>i.kind==='dependency' && i.evidence.file==='setup.py').length>=5 && d.items.filter(i=>i.kind==='dependency').every(i=>i.evidence.sha.length===40 && /setup.py|requirements-dev.txt/.test(i.evidence.file) && /charset_normalizer|chardet|cachetools|idna|pytest/.test(i.evidence.hunk))" <"$tmp/run1.json"

mn export --format json | node -e "console.log(JSON.stringify({memories: JSON.parse(require('fs').readFileSync(0))}))" >"$tmp/all.json"
# provenance: the full sha of the commit, a link to it, its time
js "git provenance on every memory" "d.memories.filter(m=>m.provenance.source==='git').length>0 && d.memories.filter(m=>m.provenance.source==='git').every(m=>/^[0-9a-f]{40}$/.test(m.provenance.commit) && m.links.some(l=>l.kind==='derived_from' && l.to==='commit:'+m.provenance.commit))" <"$tmp/all.json"
js "no HEAD anywhere" "!JSON.stringify(d).includes('commit:HEAD') && d.memories.every(m=>m.provenance.commit!=='HEAD')" <"$tmp/all.json"
js "created_at is the commit's time" "d.memories.filter(m=>m.provenance.commit==='$swap').every(m=>m.created_at==='2024-01-01T10:02:00.000Z')" <"$tmp/all.json"

# dependencies: runtime 0.90 active, development 0.75 pending
js "dependency added, active" "d.memories.some(m=>m.provenance.commit==='$swap' && /Added dependency charset_normalizer>=2,<4 \(setup.py\)/.test(m.title) && m.status==='superseded')" <"$tmp/all.json"
js "dependency dropped" "d.memories.some(m=>m.provenance.commit==='$swap' && /Dropped dependency chardet/.test(m.title))" <"$tmp/all.json"
js "dev dependency pending" "d.memories.some(m=>/Added development dependency pytest>=7/.test(m.title) && m.status==='pending' && m.confidence===0.75)" <"$tmp/all.json"
# the save pipeline's marks on every git memory: extraction auto, the judge's scores, an audit row
js "extraction auto, judged" "d.memories.filter(m=>m.provenance.source==='git').every(m=>m.provenance.extraction_method==='auto' && typeof m.judgement.score==='number')" <"$tmp/all.json"
mn --json audit --op save --limit 500 >"$tmp/audit.json"
node -e "
  const a=JSON.parse(require('fs').readFileSync('$tmp/audit.json')), d=JSON.parse(require('fs').readFileSync('$tmp/all.json'));
  const saved=new Set(a.entries.map(e=>e.target));
  process.exit(d.memories.filter(m=>m.provenance.source==='git').every(m=>saved.has(m.id)) ? 0 : 1)" ||
    fail "a git memory without its audit row"
# below capture.auto_approve: in the review queue `mnemo review` lists; approved, active
mn --json review --all-from git >"$tmp/queue.json"
js "the review queue lists the pending candidates" "d.memories.length>0 && d.memories.every(m=>m.status==='pending') && d.memories.some(m=>/Added development dependency pytest>=7/.test(m.title))" <"$tmp/queue.json"
dev=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$tmp/queue.json')).memories.find(m=>/pytest>=7/.test(m.title)).id)")
mn review approve "$dev" >/dev/null
mn --json call get "{\"id\":\"$dev\"}" | node -e "process.exit(JSON.parse(require('fs').readFileSync(0)).memory.status==='active'?0:1)" ||
    fail "an approved candidate is not active"

# the decision, its reason, the diff agreeing; superseded by the switch back
js "decision with its reason" "d.memories.some(m=>m.kind==='decision' && m.provenance.commit==='$swap' && /charset_normalizer instead of chardet/.test(m.title) && /LGPL/.test(m.context.situation) && m.status==='superseded')" <"$tmp/all.json"
js "the diff agrees with the decision" "d.items.some(i=>i.kind==='decision' && i.evidence.sha==='$swap' && /the diff agrees/.test(i.evidence.hunk) && i.confidence>=0.85)" <"$tmp/run1.json"
js "the switch back supersedes it" "(()=>{const a=d.memories.find(m=>m.kind==='decision' && m.provenance.commit==='$swap'); const b=d.memories.find(m=>m.kind==='decision' && m.provenance.commit==='$back'); return a && b && b.status==='active' && b.links.some(l=>l.kind==='supersedes' && l.to===a.id)})()" <"$tmp/all.json"
# api: removed, renamed
js "public function removed" "d.memories.some(m=>m.provenance.commit==='$drop' && /Removed public function post from shop\/api.py/.test(m.title) && m.status==='active' && m.scope.symbols.includes('post'))" <"$tmp/all.json"
js "function renamed" "d.memories.some(m=>/Renamed function get to fetch \(shop\/api.py\)/.test(m.title))" <"$tmp/all.json"
# ci, runtime
js "workflow added" "d.memories.some(m=>/CI: added GitHub Actions configuration .github\/workflows\/test.yml/.test(m.title) && /pytest -q/.test(m.body))" <"$tmp/all.json"
js "matrix changed" "d.memories.some(m=>/CI tests Python 3.9, 3.10 \(added 3.10; dropped 3.8\)/.test(m.title))" <"$tmp/all.json"
# migration
js "migration statements" "d.memories.some(m=>/Schema migration 0001_orders.sql: CREATE TABLE orders; CREATE INDEX orders_total ON orders/.test(m.title))" <"$tmp/all.json"
# revert: the fact, and the reverted commit's memories superseded by it
js "revert" "(()=>{const r=d.memories.find(m=>m.provenance.commit==='$revert' && /^Reverted \"Add a response cache\"/.test(m.title)); const c=d.memories.filter(m=>m.provenance.commit==='$cache'); return r && r.status==='active' && c.length>0 && c.every(m=>m.status==='superseded') && c.every(m=>r.links.some(l=>l.kind==='supersedes' && l.to===m.id))})()" <"$tmp/all.json"
# issues named by a message
js "issue tag and task" "d.memories.filter(m=>m.provenance.commit==='$fixes').every(m=>m.provenance.task==='#12' && m.scope.tags.includes('issue:#12'))" <"$tmp/all.json"
mn --json issue '#12' >"$tmp/issue.json"
js "the commit tied to the issue" "d.links.some(l=>l.ref==='commit:$fixes' && l.kind==='fixes')" <"$tmp/issue.json"

# a second run: nothing read, nothing saved
total=$(mn --json list --limit 1 | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).total)")
mn --json ingest git >"$tmp/run2.json"
js "second run reads nothing" "d.commits.ingested===0 && d.commits.skipped===$commits && d.saved===0 && d.queued===0" <"$tmp/run2.json"
total2=$(mn --json list --limit 1 | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).total)")
[ "$total" = "$total2" ] || fail "a second run changed the memories: $total -> $total2"
# a person rewords a memory; the ingest keys still know it: no copy comes back
id=$(node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/all.json')); console.log(d.memories.find(m=>m.provenance.commit==='$drop').id)")
mn edit "$id" --title "post() is gone: use request('post', url)" >/dev/null
sqlite3 .mnemo/mnemo.db "DELETE FROM git_commits" # even with the commits forgotten
mn --json ingest git >"$tmp/run3.json"
js "reworded memory not saved again" "d.saved===0 && d.queued===0 && d.unchanged>0" <"$tmp/run3.json"
total3=$(mn --json list --limit 1 | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).total)")
[ "$total" = "$total3" ] || fail "a third run changed the memories: $total -> $total3"

# the secret of a commit message: nowhere in the store's files
for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal .mnemo/mnemo.db-shm; do
    [ -e "$f" ] || continue
    if grep -aqF "$GH_PART" "$f"; then fail "the commit message's token is in $f"; fi
done
sqlite3 .mnemo/mnemo.db "SELECT subject FROM git_commits WHERE subject LIKE 'Retry%'" | grep -q 'REDACTED' ||
    fail "the commit's subject was not stored redacted"

# auto_approve decides what is active
repo2=$tmp/repo2
git clone -q "$repo" "$repo2"
cd "$repo2"
mn init >/dev/null
mn config set capture.auto_approve 0.99 >/dev/null
mn --json ingest git --max 3 >"$tmp/strict.json"
js "at 0.99 all wait for review" "d.commits.ingested===3 && d.saved===0 && d.queued>0 && d.commits.waiting===$commits-3" <"$tmp/strict.json"
mn --json ingest git --since HEAD~1 >"$tmp/since.json"
js "since: only what is after" "d.commits.ingested===0 && d.commits.seen===1" <"$tmp/since.json"
if mn ingest git --since no-such-rev >/dev/null 2>"$tmp/err"; then fail "a bad --since was accepted"; fi
grep -q "neither a revision" "$tmp/err" || fail "bad --since: $(cat "$tmp/err")"

# outside git: one clear error
mkdir "$tmp/plain" && cd "$tmp/plain" && mn init >/dev/null
if mn ingest git >/dev/null 2>"$tmp/err2"; then fail "ingest git outside git succeeded"; fi
[ "$(wc -l <"$tmp/err2")" = 1 ] || fail "outside git: $(cat "$tmp/err2")"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_git" || exit 1
