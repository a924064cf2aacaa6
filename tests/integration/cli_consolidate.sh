#!/usr/bin/env bash
# cli_consolidate.sh - consolidation through the mnemo command, on a real
# store in a git repository made here (issue 20): three similar gotchas
# and an unrelated one; `mnemo consolidate` proposes one pattern for the
# three and saves nothing; `--apply` saves it linked derived_from each
# (the gotchas unchanged), served by search; run again, nothing to do; a
# fourth similar gotcha extends the pattern; episodes are clustered with
# --kinds; bad values exit 2.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB MNEMO_NOW_MS
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: EXPR over the JSON on stdin (d) must hold
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,900)); process.exit(1)}" || fail "$1"; }
m() { "$MNEMO" "$@"; }
id_of() { node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)"; }
total() { m --json list --limit 1000 | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).total)"; }
# gotcha TABLE SOLUTION
gotcha() {
    m --json save --kind gotcha --title "Migration failed: lock timeout on $1" \
        --situation "running the deploy migration on the $1 table" --solution "$2" --tag deploy \
        "The deploy migration on $1 failed with a lock timeout while the workers held locks." | id_of
}

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
m init >/dev/null

g1=$(gotcha orders "run migrations with lock_timeout=5s off-peak")
g2=$(gotcha payments "run migrations with lock_timeout=5s off-peak")
g3=$(gotcha invoices "stop the workers first")
css=$(m --json save --kind gotcha --title "CSS build breaks on node 22" --situation "npm run build" \
    --solution "pin node 20" "The CSS build breaks on node 22 because of sass." | id_of)
before=$(total)
m --json show "$g1" | node -e "console.log(JSON.stringify(JSON.parse(require('fs').readFileSync(0,'utf8')).memory))" >"$tmp/g1.before"

m consolidate >"$tmp/out" || fail "mnemo consolidate"
grep -q "^would create: Recurring gotcha (3 times): Migration failed: lock timeout on" "$tmp/out" || fail "a dry run proposes the pattern"
grep -q "  do:   run migrations with lock_timeout=5s off-peak" "$tmp/out" || fail "with the shared solution"
for id in "$g1" "$g2" "$g3"; do grep -q "  from $id  gotcha" "$tmp/out" || fail "the proposal names its source $id"; done
grep -q "$css" "$tmp/out" && fail "the unrelated gotcha is in no cluster"
grep -q "dry run: nothing saved" "$tmp/out" || fail "the dry run says so"
[ "$(total)" = "$before" ] || fail "a dry run saves nothing"

m consolidate --apply >"$tmp/out" || fail "mnemo consolidate --apply"
grep -q "^created: Recurring gotcha" "$tmp/out" || fail "apply creates the pattern"
grep -q "1 pattern(s) created" "$tmp/out" || fail "apply counts it"
[ "$(total)" = $((before + 1)) ] || fail "one memory more"
p=$(m --json list --kind pattern | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memories[0].id)")
m --json show "$p" | js "the pattern is derived from each source" \
    '["'"$g1"'","'"$g2"'","'"$g3"'"].every(s=>d.memory.links.some(l=>l.kind==="derived_from" && l.to===s)) && !d.memory.links.some(l=>l.to==="'"$css"'") && d.memory.context.solution==="run migrations with lock_timeout=5s off-peak" && d.memory.scope.tags.includes("deploy") && d.memory.provenance.extraction_method==="hybrid"'
m --json show "$g1" | node -e "console.log(JSON.stringify(JSON.parse(require('fs').readFileSync(0,'utf8')).memory))" |
    cmp -s - "$tmp/g1.before" || fail "the sources are unchanged"
m --json search "deploy migration lock timeout" --kinds memory | js "search serves the pattern" \
    'd.items.some(i=>i.id==="'"$p"'")'

m --json consolidate --apply | js "run again, nothing to do" 'd.created===0 && d.extended===0 && d.clusters[0].action==="none"'
[ "$(total)" = $((before + 1)) ] || fail "nothing saved twice"
g4=$(gotcha refunds "run migrations with lock_timeout=5s off-peak")
m consolidate --apply >"$tmp/out"
grep -q "^extended: " "$tmp/out" || fail "a fourth member extends the pattern"
m --json show "$p" | js "the pattern is derived from the fourth too" 'd.memory.links.some(l=>l.kind==="derived_from" && l.to==="'"$g4"'")'

# episodes: clustered when asked
for who in Ann Bob Cid; do
    m save --kind episode --title "Asked how to rotate the API key" "user $who: how do I rotate the staging API key without downtime?" >/dev/null
done
m --json consolidate --kinds episode | js "three similar episodes make a cluster" \
    'd.clusters.length===1 && d.clusters[0].members.length===3 && d.clusters[0].members.every(x=>x.kind==="episode")'

for bad in "--min-size 2" "--kinds nonsense" "--since yesterday-ish"; do
    set +e
    # shellcheck disable=SC2086 # the words are the arguments
    m consolidate $bad >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "mnemo consolidate $bad exits 2 (got $rc)"
    grep -q "^mnemo: error: " "$tmp/err" || fail "mnemo consolidate $bad says why"
done

[ "$fails" = 0 ] || {
    echo "$fails failure(s)"
    exit 1
}
echo "cli_consolidate: ok"
