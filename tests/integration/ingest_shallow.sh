#!/usr/bin/env bash
# ingest_shallow.sh - `mnemo ingest git` in a shallow clone (a CI checkout,
# `git clone --depth 2`) reads the commits the clone has: its boundary
# commit for its message only (its parent is not in the clone), the one
# after it whole; a commit made on top is read by the next run and by the
# post-commit hook's incremental run. A history damaged elsewhere (a commit
# missing from a full clone) is an error, not a walk that reads nothing.
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

src=$tmp/src
mkdir -p "$src" && cd "$src"
git init -q -b main
for i in 1 2 3; do
    echo "x = $i" >"f$i.py"
    git add -A && commit "We decided to use lib$i for parsing because it is faster"
done

git clone -q --depth 2 "file://$src" "$tmp/clone"
cd "$tmp/clone"
[ "$(git rev-list --count HEAD)" = 2 ] || fail "the clone is not shallow"
mn init >/dev/null
mn --json ingest git >"$tmp/run1.json"
js "the clone's two commits read" "d.commits.seen===2 && d.commits.ingested===2 && d.commits.message_only===1 && d.commits.shallow_boundary===1 && d.shallow===true" <"$tmp/run1.json"
mn export --format json >"$tmp/all.json"
js "their decisions, not the one beyond the boundary" "d.some(m=>/use lib3/.test(m.title)) && d.some(m=>/use lib2/.test(m.title)) && !d.some(m=>/use lib1/.test(m.title))" <"$tmp/all.json"

# a commit on top: the next run and the hook's incremental run read it
echo "x = 4" >f4.py
git add -A && commit "We decided to use lib4 for parsing because it is faster"
mn --json ingest git >"$tmp/run2.json"
js "the new commit read" "d.commits.ingested===1 && d.commits.skipped===2" <"$tmp/run2.json"
echo "x = 5" >f5.py
git add -A && commit "We decided to use lib5 for parsing because it is faster"
mn --json call ingest_git '{"incremental": true}' >"$tmp/run3.json"
js "the hook's incremental run reads the commit just made" "d.commits.ingested===1" <"$tmp/run3.json"
mn export --format json | js "lib4 and lib5 saved" "d.some(m=>/use lib4/.test(m.title)) && d.some(m=>/use lib5/.test(m.title))"

# a full clone with a commit missing in the middle: an error, not a walk that reads nothing
git clone -q --no-local "$src" "$tmp/damaged"
cd "$tmp/damaged"
mv .git/objects/pack/*.pack "$tmp/objects.pack" # loose objects, so that one can be removed
rm -f .git/objects/pack/*
git unpack-objects -q <"$tmp/objects.pack"
mid=$(git rev-parse HEAD~1)
rm -f ".git/objects/${mid:0:2}/${mid:2}"
mn init >/dev/null 2>&1 || true
if mn ingest git >"$tmp/out" 2>"$tmp/err"; then
    fail "a history with a commit missing was walked without an error: $(cat "$tmp/out")"
fi
grep -q "cannot walk the history" "$tmp/err" || fail "damaged history: $(cat "$tmp/err")"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_shallow" || exit 1
