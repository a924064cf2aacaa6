#!/usr/bin/env bash
# ingest_branch.sh - memories and branches:
#   a memory saved on branch `feature` carries the branch and the commit it
#   was learnt at (filled in from HEAD); it is served on `feature`; not on
#   `main` (search, context, recall) until `feature` is merged, except when
#   all branches are asked for, marked "from branch feature (not merged)";
#   after the merge it is served on `main`. A memory given no branch and no
#   commit (another store's, an import) is served everywhere; a branch given
#   by the caller wins over HEAD's.
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
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1200)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
echo "print('shop')" >shop.py && git add -A && git commit -q -m "shop"
mn init >/dev/null

git checkout -q -b feature
echo "FLAGS = 'redis'" >flags.py && git add -A && git commit -q -m "feature flags"
fsha=$(git rev-parse HEAD)
id=$(mn --json save "Feature flags are kept in redis under the ff: prefix, one hash per flag" \
    --keyword flags --keyword redis | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).id)")
mn --json show "$id" | js "branch and commit from HEAD" "d.memory.scope.branch==='feature' && d.memory.provenance.commit==='$fsha'"
# a memory placed nowhere: served everywhere
oid=$(mn --json save "Orders are numbered per shop" --keyword orders --scope-json '{"branch":""}' \
    --provenance-json '{"commit":""}' | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).id)")
mn --json show "$oid" | js "given empty: placed nowhere" "!d.memory.scope?.branch && !d.memory.provenance.commit"

q="where are feature flags kept redis"
served() { # served OP: whether the feature memory is in the answer
    case $1 in
    search) mn --json search "$q" --kinds memory | node -e "const d=JSON.parse(require('fs').readFileSync(0)); process.exit(d.items.some(i=>i.id==='$id')?0:1)" ;;
    context) mn --json context "$q" | node -e "const d=JSON.parse(require('fs').readFileSync(0)); process.exit(d.items.some(i=>i.id==='$id')?0:1)" ;;
    recall) mn --json recall "$q" | node -e "const d=JSON.parse(require('fs').readFileSync(0)); process.exit(d.facts.some(i=>i.id==='$id')?0:1)" ;;
    esac
}
for op in search context recall; do served $op || fail "$op on feature: the feature's memory is not served"; done

git checkout -q main
for op in search context recall; do served $op && fail "$op on main: the feature's memory is served before the merge"; done
mn --json search "$q" --kinds memory --all-branches |
    js "all branches: served, marked" "d.items.some(i=>i.id==='$id' && i.status==='from branch feature (not merged)')"
mn --json context "$q" --all-branches |
    js "context all branches: marked in the text" "d.markdown.includes('[from branch feature (not merged)]')"
mn --json search "orders numbered" --kinds memory | js "a memory of no branch is served" "d.items.length>0"

# a memory learnt on main after feature branched: not on feature until main is merged there
msha_before=$(git rev-parse HEAD)
echo "x" >main.txt && git add -A && git commit -q -m "main moves on"
mid=$(mn --json save "Invoices are rendered with weasyprint" --keyword invoices | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).id)")
git checkout -q feature
mn --json search "invoices rendered weasyprint" --kinds memory | js "main's newer memory not on feature" "!d.items.some(i=>i.id==='$mid')"
git checkout -q main

# the merge: served on main
git merge -q --no-ff -m "merge feature" feature
for op in search context recall; do served $op || fail "$op on main after the merge: not served"; done
mn --json search "$q" --kinds memory | js "merged: not marked" "d.items.some(i=>i.id==='$id' && i.status==='active')"

# the answers were cached per HEAD
[ "$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM branch_ancestry WHERE sha='$fsha'")" -ge 1 ] ||
    fail "no cached answer for the feature's commit"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_branch" || exit 1
