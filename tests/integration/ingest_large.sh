#!/usr/bin/env bash
# ingest_large.sh - a file over the 1 MiB the git ingest reads of a file (a
# 3 MB source file, a 2 MB package.json) is not read, for its diff nor its
# text: its size comes from the object's header, the run succeeds, counts it
# in large_files and names it in the notes; the other files of the commit
# are read as usual. (Reading a big file's patch cost three times its size
# in memory: 600 MB for a 200 MB file.)
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

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cat >setup.py <<'EOF'
from setuptools import setup

setup(name="shop", install_requires=["idna>=2.5"])
EOF
git add -A && git commit -q -m "Initial shop"
mn init >/dev/null
mn ingest git >/dev/null 2>&1

# a 3 MB source file, a 2 MB package.json, and a dependency added beside them
python3 - <<'PY'
import json
open("data.py", "w").write("TABLE = [\n" + "    1,\n" * 500000 + "]\n")
deps = {"pkg%d" % i: "^1.0.%d" % i for i in range(60000)}
open("package.json", "w").write(json.dumps({"name": "shop", "dependencies": deps}, indent=1))
PY
sed -i 's/\["idna>=2.5"\]/["idna>=2.5", "chardet>=3.0.2,<5"]/' setup.py
git add -A && git commit -q -m "Add the data table and the front end's packages"
mn --json ingest git >"$tmp/run.json" 2>"$tmp/err" || fail "ingest git failed: $(cat "$tmp/err")"
js "the big files skipped, counted and named" "d.commits.ingested===1 && d.large_files===2 && d.notes.some(n=>/^data.py in commit /.test(n) && /not read/.test(n)) && d.notes.some(n=>/^package.json in commit /.test(n))" <"$tmp/run.json"
js "the rest of the commit read" "d.items.some(i=>/Added dependency chardet/.test(i.title))" <"$tmp/run.json"
js "nothing from the big files" "!d.items.some(i=>/pkg1/.test(i.title))" <"$tmp/run.json"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_large" || exit 1
