#!/usr/bin/env bash
# cli_discover.sh - discovery through the CLI on a git repository made here:
# the first `mnemo index` runs discovery by itself and the second does not;
# `mnemo discover` prints the facts and changes nothing on a re-run; a new
# dependency refreshes that fact in place at the next index; a removed
# Makefile archives the command it gave; `discover --force` brings back a
# forgotten fact; discovery.max_age (set, refused, 0) decides when age
# counts; an empty repository gets one fact.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB MNEMO_NOW_MS
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: evaluate EXPR with d = the JSON on stdin (node)
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,600)); process.exit(1)}" || fail "$1"; }
M() { "$MNEMO" "$@"; }

repo=$tmp/repo
mkdir -p "$repo/src/shop" "$repo/tests" "$repo/.github/workflows"
cd "$repo"
git init -q
cat >pyproject.toml <<'TOML'
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "shop"
description = "A tiny shop."
requires-python = ">=3.10"
dependencies = ["requests>=2"]

[tool.pytest.ini_options]
testpaths = ["tests"]
TOML
cat >Makefile <<'MAKE'
test:
	python -m pytest tests

serve:
	python -m shop
MAKE
cat >src/shop/__init__.py <<'PY'
"""The shop."""
PY
cat >src/shop/__main__.py <<'PY'
from .core import checkout

print(checkout([]))
PY
cat >src/shop/core.py <<'PY'
def checkout(items):
    return sum(items)
PY
cat >tests/test_core.py <<'PY'
from shop.core import checkout


def test_checkout():
    assert checkout([1, 2]) == 3
PY
cat >.github/workflows/ci.yml <<'YAML'
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make test
YAML
git add -A >/dev/null

M index --json >"$tmp/out" || fail "index"
js "the first index runs discovery" "d.discovery && d.discovery.reason === 'first run' &&
    d.discovery.created >= 10 && d.discovery.updated === 0" <"$tmp/out"
created=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).discovery.created)" <"$tmp/out")
M index --json >"$tmp/out"
js "the second index does not" "d.discovery === undefined" <"$tmp/out"
M index >"$tmp/out"
grep -q "^discovery" "$tmp/out" && fail "index prints no discovery line when it did not run"

M discover >"$tmp/out" || fail "discover"
grep -q "^Main language: Python (100% of" "$tmp/out" || fail "discover prints the language: $(cat "$tmp/out")"
grep -q "^Test command: make test (Makefile target test: python -m pytest tests)$" "$tmp/out" ||
    fail "discover prints the test command"
grep -q "^Main package: src/shop (shop)" "$tmp/out" || fail "discover prints the main package"
grep -q "^CI: GitHub Actions (1 workflow: ci)$" "$tmp/out" || fail "discover prints the CI"
grep -q "^discovery of $repo: 0 created, 0 updated, 0 archived, $created unchanged$" "$tmp/out" ||
    fail "a re-run changes nothing: $(tail -1 "$tmp/out")"
M discover --json >"$tmp/out"
js "discover --json" "d.root === '$repo' && d.created === 0 && d.unchanged === $created &&
    d.facts.length === $created && d.facts.every(f => f.id && f.title && f.action === 'unchanged') &&
    ['languages','project-type','package-manager','test-command','run-command','main-package','ci',
     'domain:src/shop'].every(k => d.facts.some(f => f.key === k)) &&
    d.facts.find(f => f.key === 'languages').level === 'L0' &&
    d.facts.find(f => f.key === 'domain:src/shop').level === 'L1'" <"$tmp/out"
M list --source discovery --json >"$tmp/out"
js "one memory per fact" "d.total === $created && d.memories.every(m => m.kind === 'fact')" <"$tmp/out"
M list --tag discovery:test-command --json >"$tmp/out"
js "facts carry their key as a tag" "d.total === 1" <"$tmp/out"
test_id=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memories[0].id)" <"$tmp/out")

# a new dependency: the next index refreshes that fact in place
sed -i 's/dependencies = \["requests>=2"\]/dependencies = ["requests>=2", "attrs"]/' pyproject.toml
M index --json >"$tmp/out"
js "a manifest change makes the index rerun discovery" "d.discovery && d.discovery.reason === 'manifests changed' &&
    d.discovery.updated === 1 && d.discovery.created === 0 && d.discovery.archived === 0" <"$tmp/out"
M list --tag discovery:dependencies --json >"$tmp/out"
js "the dependencies fact, updated in place" "d.total === 1 && /requests, attrs$/.test(d.memories[0].title)" <"$tmp/out"

# the Makefile goes: the run command it gave is archived, the test command falls back
rm Makefile
M index --json >"$tmp/out"
js "removing the Makefile" "d.discovery && d.discovery.archived === 0 && d.discovery.updated >= 1" <"$tmp/out"
M list --tag discovery:test-command --json >"$tmp/out"
js "the test command falls back to pytest, same memory" "d.total === 1 && d.memories[0].id === '$test_id' &&
    d.memories[0].title.startsWith('Test command: pytest (pyproject.toml')" <"$tmp/out"
M list --tag discovery:run-command --json >"$tmp/out"
js "python -m shop still runs it" "d.total === 1 && d.memories[0].status === 'active'" <"$tmp/out"
rm src/shop/__main__.py
M index --json >"$tmp/out"
js "nothing runs it any more: the run command and the entry points are archived" \
    "d.discovery && d.discovery.archived === 2" <"$tmp/out"
M list --tag discovery:run-command --status archived --json >"$tmp/out"
js "the run command is archived, not deleted" "d.total === 1" <"$tmp/out"

# a forgotten fact stays forgotten; discover --force brings it back
lang_id=$(M list --tag discovery:languages --json | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memories[0].id)")
M forget "$lang_id" >/dev/null
M discover --json >"$tmp/out"
js "a forgotten fact is kept forgotten" "d.kept === 1 && d.created === 0" <"$tmp/out"
M discover --force --json >"$tmp/out"
js "--force restores it" "d.facts.find(f => f.key === 'languages').action === 'updated'" <"$tmp/out"
M show "$lang_id" --json >"$tmp/out"
js "restored" "!d.memory.deleted_at" <"$tmp/out"

# max_age
rc=0
M config set discovery.max_age soon >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "discovery.max_age must be a duration" "$tmp/err" || fail "a bad max_age is refused: rc=$rc"
M config set discovery.max_age 1h >/dev/null
M config get discovery.max_age >"$tmp/out"
grep -qx "1h" "$tmp/out" || fail "config get discovery.max_age"
later=$(($(date +%s) * 1000 + 2 * 3600 * 1000))
MNEMO_NOW_MS=$later M index --json >"$tmp/out"
js "facts older than max_age are refreshed at the next index" "d.discovery && d.discovery.reason === 'older than max_age'" <"$tmp/out"
M config set discovery.max_age 0 >/dev/null
later=$((later + 30 * 86400 * 1000))
MNEMO_NOW_MS=$later M index --json >"$tmp/out"
js "max_age 0: age never counts" "d.discovery === undefined" <"$tmp/out"

# an empty repository gets one fact, and no error
mkdir "$tmp/empty" && cd "$tmp/empty" && git init -q
M index --json >"$tmp/out"
js "an empty repository" "d.files === 0 && d.discovery && d.discovery.created === 1" <"$tmp/out"
M discover >"$tmp/out"
grep -q "^The repository is empty: no file is indexed$" "$tmp/out" || fail "empty: $(cat "$tmp/out")"

# discover in a repository never indexed indexes it first
mkdir "$tmp/fresh" && cd "$tmp/fresh" && git init -q
printf 'package main\n\nfunc main() {}\n' >main.go
printf 'module example.com/fresh\n\ngo 1.22\n' >go.mod
M discover --json >"$tmp/out"
js "discover without an index" "d.facts.some(f => f.key === 'test-command' && f.title === 'Test command: go test ./... (go.mod)')" <"$tmp/out"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_discover: ok"
