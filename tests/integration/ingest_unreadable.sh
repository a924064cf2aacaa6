#!/usr/bin/env bash
# ingest_unreadable.sh - a commit whose changes cannot be read (a tree
# object missing from .git/objects) does not stop `mnemo ingest git`: it is
# read for its message only, counted as unreadable and named in the
# report's notes, and the run goes on with the other commits; a later run
# (the post-commit hook's included) does not stop there again.
# HEAD~1's tree is removed: HEAD~1 cannot be diffed, nor can HEAD (its
# parent's tree is HEAD~1's), so `--max 1` meets it at once.
set -euo pipefail
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
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
n=0
commit() { # commit MESSAGE: a minute apart
    n=$((n + 1))
    GIT_AUTHOR_DATE="2024-01-01T10:$(printf %02d $n):00Z" GIT_COMMITTER_DATE="2024-01-01T10:$(printf %02d $n):00Z" \
        git commit -q -m "$1"
}

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cat >setup.py <<'EOF'
from setuptools import setup

setup(name="shop", install_requires=["idna>=2.5"])
EOF
git add -A && commit "Initial shop"
sed -i 's/\["idna>=2.5"\]/["idna>=2.5", "chardet>=3.0.2,<5"]/' setup.py
git add -A && commit "Add chardet to detect encodings"
echo 'TIMEOUT = 5' >timeouts.py
git add -A && commit "We decided to use lib3 for parsing because it is faster"
echo 'RETRIES = 3' >retries.py
git add -A && commit "We decided to use lib4 for parsing because it is faster"
tree=$(git rev-parse HEAD~1^{tree})
rm -f ".git/objects/${tree:0:2}/${tree:2}"
git cat-file -e "$tree" 2>/dev/null && fail "the tree is still there"

mn init >/dev/null 2>&1
if ! mn --json ingest git --max 1 >"$tmp/run1.json" 2>"$tmp/err1"; then
    fail "ingest git --max 1 stopped at the unreadable commit: $(cat "$tmp/err1")"
fi
js "--max 1: HEAD read for its message, counted unreadable, named" "d.commits.ingested===1 && d.commits.unreadable===1 && d.notes.some(n=>/cannot be read/.test(n) && /git fsck/.test(n)) && d.candidates.decision===1" <"$tmp/run1.json"
if ! mn --json ingest git >"$tmp/run2.json" 2>"$tmp/err2"; then
    fail "ingest git stopped at the unreadable commit: $(cat "$tmp/err2")"
fi
js "the rest read past it" "d.commits.ingested===3 && d.commits.skipped===1 && d.commits.unreadable===1 && d.candidates.dependency>=1 && d.candidates.decision===1" <"$tmp/run2.json"
mn export --format json >"$tmp/all.json"
js "the readable commit's fact, the unreadable ones' decisions" "d.some(m=>/Added dependency chardet/.test(m.title)) && d.some(m=>/use lib3/.test(m.title)) && d.some(m=>/use lib4/.test(m.title))" <"$tmp/all.json"
mn --json ingest git >"$tmp/run3.json" 2>&1 || fail "a later run failed: $(cat "$tmp/run3.json")"
js "a later run does not stop there again" "d.commits.ingested===0 && d.commits.skipped===4 && d.commits.unreadable===0" <"$tmp/run3.json"

# the post-commit hook's incremental run
echo 'LIMIT = 9' >limits.py
git add -A && commit "We decided to use lib5 for parsing because it is faster"
mn --json call ingest_git '{"incremental": true}' >"$tmp/run4.json" 2>&1 || fail "the hook's run failed: $(cat "$tmp/run4.json")"
js "the hook's run reads the new commit" "d.commits.ingested===1 && d.commits.unreadable===0" <"$tmp/run4.json"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_unreadable" || exit 1
