#!/usr/bin/env bash
# ingest_docs.sh - `mnemo ingest docs` on ADR directories and a wiki
# (tests/data/ingest/, README there):
#   ADRs       one decision each, with its status: accepted active, proposed
#              pending, superseded superseded and linked from the one that
#              replaced it (chain follows); the Context is its reason; MADR's
#              front matter gives status, date and tags;
#   wiki       a section per heading, "Document > Section", tags and scope
#              from the front matter, links to the documents it names
#              ([[Rollback]] resolved by name), the document's date;
#   re-ingest  unchanged: nothing written; a section edited: updated in
#              place (same id); a section removed, a document deleted:
#              archived;
#   open_doc   by title, path or url; a project file not ingested is read as
#              it is; outside the project refused;
#   fences     a path outside the project, or a link pointing out of it, is
#              refused and nothing is written; a secret in a document
#              reaches neither the memories nor the stored document.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_TEST_DATA:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MNEMO_DB MNEMO_PROJECT
fails=0
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
all() { mn export --format json | node -e "console.log(JSON.stringify({memories: JSON.parse(require('fs').readFileSync(0))}))"; }

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cp -r "$MNEMO_TEST_DATA/ingest/docs" "$MNEMO_TEST_DATA/ingest/wiki" .
echo "# Shop" >README.md
mn init >/dev/null

mn --json ingest docs docs wiki >"$tmp/run1.json"
js "counts" "d.files===7 && d.decisions===5 && d.created>=8" <"$tmp/run1.json"
all >"$tmp/all.json"
A() { js "$1" "(()=>{const M=d.memories; const t=x=>M.find(m=>m.title===x); $2})()" <"$tmp/all.json"; }
A "ADR accepted: an active decision, its context its reason" "const m=t('1. Record architecture decisions'); return m && m.kind==='decision' && m.status==='active' && /Architecture Decision Records/.test(m.body) && /people joining later/.test(m.context.situation) && m.provenance.source==='document' && m.created_at.startsWith('2023-01-10')"
A "superseded ADR" "const a=t('2. Use MySQL for orders'), b=t('3. Use PostgreSQL for orders'); return a && b && a.status==='superseded' && b.status==='active' && b.links.some(l=>l.kind==='supersedes' && l.to===a.id)"
A "proposed ADR waits for review" "const m=t('4. Cache catalogue pages'); return m && m.status==='pending'"
A "through the save pipeline" "return M.length>=8 && M.every(m=>m.provenance.source!=='document' || (m.provenance.extraction_method==='auto' && m.judgement))"
A "MADR front matter" "const m=t('Use Ruff for linting'); return m && m.kind==='decision' && m.status==='active' && m.scope.tags.includes('lint') && /Chosen option/.test(m.body) && /Considered options/.test(m.body) && m.created_at.startsWith('2024-03-01')"
A "wiki sections" "const s=t('Deploy > Staging'), p=t('Deploy > Production'); return s && p && s.kind==='doc_link' && s.scope.tags.includes('ops') && s.scope.paths.includes('deploy/') && s.links.some(l=>l.kind==='derived_from' && l.to==='doc:wiki/Deploy.md')"
A "a wikilink resolved" "const m=t('Deploy'); return m && m.links.some(l=>l.kind==='relates_to' && l.to==='doc:wiki/Rollback.md')"
mn --json chain "$(node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/all.json')); console.log(d.memories.find(m=>m.title==='3. Use PostgreSQL for orders').id)")" |
    js "the chain follows the ADRs" "d.roots[0].children.some(c=>c.relation==='supersedes' && c.title==='2. Use MySQL for orders' && c.status==='superseded' && c.date==='2023-02-01')"

# the secret: in neither the memories nor the stored document
for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal; do
    [ -e "$f" ] && grep -aqF FAKEq7Wm2Xr9Lk4Tz8 "$f" && fail "the document's secret is in $f"
done

# open_doc
mn --json doc "Use PostgreSQL" | js "open by title prefix" "d.ingested && /PostgreSQL 15/.test(d.body) && d.memories.length===1"
mn --json doc --path wiki/Deploy.md | js "open by path" "d.title==='Deploy' && !/FAKEq7Wm2Xr9Lk4Tz8/.test(d.body) && d.memories.length>=2"
mn --json doc --path README.md | js "a project file not ingested" "d.ingested===false && d.title==='Shop'"
if mn doc --path ../../etc/passwd >/dev/null 2>"$tmp/err"; then fail "open_doc read outside the project"; fi
grep -q "outside the project" "$tmp/err" || fail "open_doc outside: $(cat "$tmp/err")"

# re-ingest: nothing changed
ids1=$(all | node -e "const d=JSON.parse(require('fs').readFileSync(0)); console.log(d.memories.map(m=>m.id).sort().join(','))")
mn --json ingest docs docs wiki | js "unchanged" "d.created===0 && d.updated===0" 
ids2=$(all | node -e "const d=JSON.parse(require('fs').readFileSync(0)); console.log(d.memories.map(m=>m.id).sort().join(','))")
[ "$ids1" = "$ids2" ] || fail "re-ingest changed the memories"
# a section edited, a section removed, a document deleted
staging=$(node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/all.json')); console.log(d.memories.find(m=>m.title==='Deploy > Staging').id)")
rollback=$(node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/all.json')); console.log(d.memories.find(m=>m.title==='Rollback').id)")
production=$(node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/all.json')); console.log(d.memories.find(m=>m.title==='Deploy > Production').id)")
sed -i 's/smoke tests run/the full end-to-end suite runs/' wiki/Deploy.md
sed -i '/^## Production/,$d' wiki/Deploy.md
rm wiki/Rollback.md
mn --json ingest docs wiki | js "updated, archived" "d.updated>=1 && d.archived>=2"
mn --json show "$staging" | js "updated in place" "/end-to-end suite/.test(d.memory.body) && d.memory.status==='active'"
mn --json show "$production" | js "a removed section archived" "d.memory.status==='archived'"
mn --json show "$rollback" | js "a deleted document archived" "d.memory.status==='archived'"

# fences: nothing outside the project
mkdir -p "$tmp/outside" && echo "# Secret plans" >"$tmp/outside/plans.md"
if mn ingest docs "$tmp/outside" >/dev/null 2>"$tmp/err"; then fail "ingest docs read outside the project"; fi
grep -q "outside the project" "$tmp/err" || fail "outside: $(cat "$tmp/err")"
ln -s "$tmp/outside" linked
if mn ingest docs linked >/dev/null 2>&1; then fail "a link out of the project was followed"; fi
ln -s "$tmp/outside/plans.md" wiki/plans.md
mn --json ingest docs wiki | js "a linked file in a folder is skipped" "!JSON.stringify(d).includes('Secret plans')"
all | js "nothing from outside" "!d.memories.some(m=>/Secret plans/.test(m.title))"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_docs" || exit 1
