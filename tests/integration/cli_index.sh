#!/usr/bin/env bash
# cli_index.sh - mnemo index / status / files / symbols / graph on a real git
# repository made here: ignore rules, roles, Python and TypeScript imports
# resolved to files, calls to symbols, incremental re-index (change, rename,
# delete), --full, ranks, and an empty repository.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: evaluate EXPR with d = the JSON on stdin (node)
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,400)); process.exit(1)}" || fail "$1"; }

repo=$tmp/repo
mkdir -p "$repo/shop/cart" "$repo/web/lib" "$repo/tests" "$repo/build_out" "$repo/secret"
cd "$repo"
git init -q
printf 'build_out/\n*.log\n' >.gitignore
printf 'secret/\n' >.mnemoignore
cat >shop/__init__.py <<'PY'
PY
cat >shop/cart/__init__.py <<'PY'
"""The cart package."""
PY
cat >shop/cart/session.py <<'PY'
"""Cart sessions."""
from .store import load_cart, save_cart
from ..pricing import total


class Session:
    """A shopping session."""

    def checkout(self, delay=None):
        cart = load_cart(self)
        price = total(cart)
        save_cart(cart)
        return price
PY
cat >shop/cart/store.py <<'PY'
def load_cart(session):
    return []


def save_cart(cart):
    return None
PY
cat >shop/pricing.py <<'PY'
import os


def total(items):
    return sum(items)
PY
cat >tests/test_session.py <<'PY'
from shop.cart.session import Session


def test_checkout():
    assert Session().checkout() == 0
PY
cat >web/main.ts <<'TS'
import { format } from './lib/format';
import React from 'react';

export function render(n: number): string {
  return format(n);
}
TS
cat >web/lib/format.ts <<'TS'
export function format(n: number): string {
  return n.toFixed(2);
}
TS
echo "ignored" >build_out/gen.py
echo "ignored" >app.log
echo "def hidden(): pass" >secret/keys.py
printf '\x00\x01\x02binary' >logo.png
git add -A >/dev/null
M() { "$MNEMO" "$@"; }

M index --json >"$tmp/out" || fail "index"
js "first index parses every file" "d.files === 11 && d.parsed === 10 && d.binary === 1 && d.removed === 0" <"$tmp/out"
js "no commit yet: no history" "d.history_commits === 0" <"$tmp/out"
git -c user.name=t -c user.email=t@example.org commit -qm "The shop, first version"
M index --json >"$tmp/out"
js "the commit is read once" "d.history_commits === 1 && d.parsed === 0" <"$tmp/out"
M index --json >"$tmp/out"
js "and not again" "d.history_commits === 0" <"$tmp/out"
# history off: none read, and what was read is forgotten; on again: read again
M config set index.history false >/dev/null
git -c user.name=t -c user.email=t@example.org commit -q --allow-empty -m "An empty commit"
M index --json >"$tmp/out"
js "index.history false: no history read" "d.history_commits === 0" <"$tmp/out"
db=$(find "$tmp" -name mnemo.db | head -1)
n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM history_commits').fetchone()[0])" "$db")
[ "$n" = 0 ] || fail "index.history false: $n commits still stored"
M config set index.history true >/dev/null
M index --json >"$tmp/out"
# (the empty commit changed no file: it is not kept)
js "index.history true: the history is read again" "d.history_commits === 1" <"$tmp/out"
M files --json >"$tmp/out"
js "ignored files are not indexed" "!d.files.some(f => /build_out|app.log|secret/.test(f.path))" <"$tmp/out"
js "roles" "d.files.find(f => f.path === 'shop/__init__.py').role === 'marker' &&
    d.files.find(f => f.path === 'tests/test_session.py').role === 'test' &&
    d.files.find(f => f.path === '.gitignore').role === 'config' &&
    d.files.find(f => f.path === 'shop/pricing.py').language === 'python' &&
    d.files.find(f => f.path === 'web/main.ts').language === 'typescript'" <"$tmp/out"
M files 'shop/*' --json >"$tmp/out"
js "files PATTERN" "d.total === 5 && d.files.every(f => f.path.startsWith('shop/'))" <"$tmp/out"

M symbols --json >"$tmp/out"
js "symbols with kinds and lines" "d.symbols.some(s => s.qualified_name === 'Session.checkout' && s.kind === 'method' && s.path === 'shop/cart/session.py') &&
    d.symbols.some(s => s.name === 'Session' && s.kind === 'class' && s.start_line === 6) &&
    d.symbols.some(s => s.name === 'format' && s.path === 'web/lib/format.ts')" <"$tmp/out"
M symbols 'save_*' --json >"$tmp/out"
js "symbols GLOB" "d.total === 1 && d.symbols[0].name === 'save_cart'" <"$tmp/out"

M graph shop/cart/session.py --json >"$tmp/out"
js "relative python imports resolve to files" "d.kind === 'file' &&
    d.imports.some(i => i.path === 'shop/cart/store.py') &&
    d.imports.some(i => i.path === 'shop/pricing.py') &&
    d.importers.some(i => i.path === 'tests/test_session.py')" <"$tmp/out"
M graph shop/pricing.py --json >"$tmp/out"
js "an external import stays a name" "d.imports.some(i => i.path === null && i.name === 'os')" <"$tmp/out"
M graph web/main.ts --json >"$tmp/out"
js "typescript relative import" "d.imports.some(i => i.path === 'web/lib/format.ts') &&
    d.imports.some(i => i.path === null && i.name === 'react')" <"$tmp/out"
M graph load_cart --json >"$tmp/out"
js "callers of a function" "d.kind === 'symbol' && d.callers.some(c => c.symbol === 'checkout' && c.path === 'shop/cart/session.py')" <"$tmp/out"
M graph Session.checkout --json >"$tmp/out"
js "callees of a method" "['load_cart','save_cart','total'].every(n => d.callees.some(c => c.symbol === n))" <"$tmp/out"
M files --json >"$tmp/out"
js "the most imported file ranks above a leaf" "d.files.find(f => f.path === 'shop/cart/store.py').rank > d.files.find(f => f.path === 'tests/test_session.py').rank" <"$tmp/out"

M files --sort rank --limit 3 --json >"$tmp/out"
js "files --sort rank: the most central first, then the page" "d.files.length === 3 && d.total === 10 &&
    d.files[0].rank >= d.files[1].rank && d.files[1].rank >= d.files[2].rank" <"$tmp/out"

# incremental: change one file, rename one, delete one
M status --json >"$tmp/out"
js "fresh after index (the binary file is not indexed)" "d.fresh === 10 && d.stale === 0 && d.new === 0 && d.removed === 0" <"$tmp/out"
sleep 0.01
printf '\n\ndef discount(items):\n    return total(items) * 0.9\n' >>shop/pricing.py
git mv web/lib/format.ts web/lib/fmt.ts
rm tests/test_session.py
M status --json >"$tmp/out"
js "status sees the changes without reading" "d.stale === 1 && d.new === 1 && d.removed === 2" <"$tmp/out"
M index --json >"$tmp/out"
js "re-index parses only what changed" "d.parsed === 2 && d.removed === 2 && d.unchanged === 7 && d.binary === 1" <"$tmp/out"
M symbols discount --json >"$tmp/out"
js "a new function is found" "d.total === 1" <"$tmp/out"
M graph web/main.ts --json >"$tmp/out"
js "an import of a renamed file is unresolved, not dangling" "d.imports.some(i => i.name === './lib/format' && i.path === null)" <"$tmp/out"
M graph shop/cart/session.py --json >"$tmp/out"
js "a deleted importer is gone" "d.importers.length === 0" <"$tmp/out"
M index --full --json >"$tmp/out"
js "--full re-parses everything" "d.parsed === 9 && d.unchanged === 0" <"$tmp/out"

# an index made under other rules (an older mnemo) is redone in full once, then incremental
db=$(find "$tmp" -name mnemo.db | head -1)
stamp() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()" "$db" "$1"; }
stamp "UPDATE config SET value = '1' WHERE key = 'index.rules'"
M index --json >"$tmp/out"
js "other rules: every file re-parsed" "d.parsed === 9 && d.unchanged === 0" <"$tmp/out"
M index --json >"$tmp/out"
js "same rules: nothing re-parsed" "d.parsed === 0 && d.unchanged === 9" <"$tmp/out"
stamp "DELETE FROM config WHERE key = 'index.rules'"
M index --json >"$tmp/out"
js "an index from before the rules were stamped is redone" "d.parsed === 9" <"$tmp/out"

rc=0
M graph no_such_thing >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "no indexed file or symbol 'no_such_thing'" "$tmp/err" || fail "unknown graph target: rc=$rc $(cat "$tmp/err")"
rc=0
M index "$tmp/nope" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && grep -q "is not a directory" "$tmp/err" || fail "missing directory: rc=$rc"

mkdir "$tmp/empty" && cd "$tmp/empty" && git init -q
M index --json >"$tmp/out"
js "an empty repository" "d.files === 0 && d.parsed === 0" <"$tmp/out"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_index: ok"
