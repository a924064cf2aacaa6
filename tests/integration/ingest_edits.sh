#!/usr/bin/env bash
# ingest_edits.sh - an ingest run again on a changed source updates what the
# source changed and keeps what a person did to the memory:
#   docs       a section's memory: tags and a situation added with `mnemo
#              edit`, and its title reworded, survive the document's edit;
#              the body and the front matter's paths the edit changed are
#              the document's; a front-matter tag it dropped goes, one it
#              added comes; a tag a person removed stays removed;
#   link_issue the tag issue:<id> that `mnemo issue` gave a section stays;
#   issues     an issue's memory keeps a person's tag when the issue is
#              imported again changed; a label the issue dropped goes;
#   old keys   a key saved before the record of what its source gave (its
#              hash alone): every field the source does not give is kept,
#              and the tags are the union.
set -euo pipefail
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,1500)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
mem() { mn --json show "$1" | node -e "console.log(JSON.stringify(JSON.parse(require('fs').readFileSync(0)).memory))"; }
id_titled() { # id_titled PREFIX: the memory whose title starts so
    mn --json list --limit 100 | node -e "const d=JSON.parse(require('fs').readFileSync(0)); console.log(d.memories.find(m=>m.title.startsWith(process.argv[1])).id)" "$1"
}

repo=$tmp/repo
mkdir -p "$repo/wiki" && cd "$repo"
git init -q -b main
mn init >/dev/null

write_doc() { # write_doc MINUTES TAGS PATHS
    cat >wiki/cache.md <<EOF
---
tags: [$2]
scope: [$3]
---
# Cache

## Eviction

The cache evicts entries after $1 minutes; the janitor runs every minute.
EOF
}
write_doc ten "cache, stale" "src/cache.py"
mn ingest docs wiki >/dev/null
id=$(id_titled "Cache > Eviction")
mn edit "$id" --add-tags hot-path,oncall --remove-tags stale --situation "pager fires when eviction lags" \
    --title "Cache > Eviction: entries expire on a timer" >/dev/null
cat >github.json <<'EOF'
[{"number": 7, "title": "Eviction lags under load", "state": "open", "user": {"login": "ada"},
  "labels": [{"name": "bug"}, {"name": "perf"}], "body": "The janitor falls behind when the cache is large.",
  "created_at": "2024-01-03T09:00:00Z", "updated_at": "2024-01-03T09:00:00Z"}]
EOF
mn ingest issues github.json >/dev/null
mn issue '#7' --memory "$id" >/dev/null
issue=$(id_titled "#7:")
mn edit "$issue" --add-tags triaged >/dev/null
mem "$id" | js "the edits are there" "d.scope.tags.includes('hot-path') && d.scope.tags.includes('issue:#7') && !d.scope.tags.includes('stale') && d.context.situation==='pager fires when eviction lags'"

# the document changes: its body, a tag, its paths
write_doc fifteen "cache, stale, eviction" "src/cache.py, src/janitor.py"
mn --json ingest docs wiki | js "the section updated" "d.updated===1"
mem "$id" >"$tmp/doc.json"
js "the document's words" "/fifteen minutes/.test(d.body) && d.scope.paths.includes('src/janitor.py')" <"$tmp/doc.json"
js "a person's tags stay" "['hot-path','oncall'].every(t=>d.scope.tags.includes(t))" <"$tmp/doc.json"
js "link_issue's tag stays" "d.scope.tags.includes('issue:#7')" <"$tmp/doc.json"
js "the source's new tag comes" "d.scope.tags.includes('eviction') && d.scope.tags.includes('cache') && d.scope.tags.includes('doc')" <"$tmp/doc.json"
js "a tag the person removed stays removed" "!d.scope.tags.includes('stale')" <"$tmp/doc.json"
js "a person's situation stays" "d.context && d.context.situation==='pager fires when eviction lags'" <"$tmp/doc.json"
js "a person's title stays (the heading did not change)" "d.title==='Cache > Eviction: entries expire on a timer'" <"$tmp/doc.json"

# it changes again: a tag dropped from the front matter goes, the person's stay
write_doc twenty "eviction" "src/cache.py"
mn ingest docs wiki >/dev/null
mem "$id" >"$tmp/doc2.json"
js "a tag the source dropped goes" "!d.scope.tags.includes('cache') && d.scope.tags.includes('eviction')" <"$tmp/doc2.json"
js "paths the source dropped go" "!d.scope.paths.includes('src/janitor.py') && d.scope.paths.includes('src/cache.py')" <"$tmp/doc2.json"
js "the person's edits still there" "['hot-path','oncall','issue:#7'].every(t=>d.scope.tags.includes(t)) && d.context.situation==='pager fires when eviction lags' && /twenty minutes/.test(d.body)" <"$tmp/doc2.json"

# the issue changes: a label dropped, the person's tag kept
sed -i 's/"title": "Eviction lags under load"/"title": "Eviction lags under heavy load"/; s/, {"name": "perf"}//' github.json
mn --json ingest issues github.json | js "the issue updated" "d.updated===1"
mem "$issue" | js "the issue's memory: the person's tag stays, the dropped label goes" "d.title.includes('heavy load') && d.scope.tags.includes('triaged') && d.scope.tags.includes('issue:#7') && d.scope.tags.includes('bug') && !d.scope.tags.includes('perf')"

# a key saved before the record: the hash alone
write_doc thirty "eviction" "src/cache.py"
sqlite3 .mnemo/mnemo.db "UPDATE ingest_keys SET source_hash = substr(source_hash, 1, 16) WHERE key LIKE 'doc:wiki/cache.md#%'"
mn edit "$id" --add-tags legacy-kept >/dev/null
mn ingest docs wiki >/dev/null
mem "$id" | js "an old key: a person's tags and situation kept" "/thirty minutes/.test(d.body) && ['hot-path','oncall','issue:#7','legacy-kept','eviction'].every(t=>d.scope.tags.includes(t)) && d.context.situation==='pager fires when eviction lags'"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_edits" || exit 1
