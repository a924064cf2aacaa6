#!/usr/bin/env bash
# index_pg.sh - the code index on PostgreSQL answers as on SQLite (CTest
# pg/index_pg, label pg, on the throwaway cluster MNEMO_TEST_PG names).
#
# A real git repository (ten of mnemo's own src/util files, C, and a small
# Python package with imports, classes, calls and a base class) is indexed
# into a new PostgreSQL database and into a SQLite file; then `status`,
# `files`, `symbols` (all, and by name), `graph` of every file and of a few
# symbols must print the same on both. Then the repository changes (a file
# edited with a function gone and one added, a file removed, a file added)
# and is indexed again (incremental), and once more with --full: the same
# comparison each time, so replace (symbol ids kept, edges unresolved),
# remove and re-resolution agree on both back ends.
#
# Until the other back-end functions `mnemo index` calls exist on
# PostgreSQL (the citation checks), the run says which one is missing and
# the test is skipped (exit 77), never passed.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/db.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/db.sh"
db_setup idx
PG=$DB
SQ=$tmp/store.db

repo=$tmp/repo
mkdir -p "$repo/src/util" "$repo/shop"
for f in arena.c arena.h buf.c buf.h map.c map.h vec.h ini.c ini.h util.h; do
    cp "$src/src/util/$f" "$repo/src/util/"
done
cat >"$repo/shop/__init__.py" <<'PY'
from shop.cart import Cart
from shop.pricing import price_of
PY
cat >"$repo/shop/cart.py" <<'PY'
from shop.pricing import price_of, discount
from shop.base import Model


class Cart(Model):
    """A basket of items."""

    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return self.total()

    def total(self):
        return sum(price_of(i) for i in self.items) - discount(self)

    def clear(self):
        self.items = []
PY
cat >"$repo/shop/pricing.py" <<'PY'
TAX = 0.2


def price_of(item):
    return item.price * (1 + TAX)


def discount(cart):
    return 0 if len(cart.items) < 3 else 5
PY
cat >"$repo/shop/base.py" <<'PY'
class Model:
    def save(self):
        return validate(self)


def validate(model):
    return model is not None
PY
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -qm "first: cart, pricing, base"

m() { (cd "$repo" && "$MNEMO" --db "$1" "${@:2}"); }

# What the index says, in one text: every answer that reads files, symbols and edges.
dump() {
    local d=$1
    # (its "vectors:" line names how the back end ranks vectors: not the index)
    m "$d" status | grep -v '^vectors:'
    m "$d" files --json
    m "$d" symbols '*' --json
    for name in Cart total price_of mn_map_get; do
        m "$d" symbols "$name" --json
        m "$d" graph "$name" --json || true
    done
    (cd "$repo" && git ls-files shop src/util/map.c src/util/buf.c) | while read -r f; do
        m "$d" graph "$f" --json
    done
}

round() {
    local what=$1
    shift
    local out
    if ! out=$(m "$PG" index "$@" 2>&1); then
        # only another branch's functions (citations, embeddings), never the index's own
        if grep -Eq "the postgresql back end cannot do mn_store_(cite_|embed_|vector|code_fts_optimize)" <<<"$out"; then
            echo "skip: index on postgresql needs another branch's function: $out"
            exit 77
        fi
        fail "$what: index on postgresql: $out"
        return
    fi
    m "$SQ" index "$@" >/dev/null || fail "$what: index on sqlite"
    dump "$PG" >"$tmp/pg.$what" 2>&1 || fail "$what: reading the postgresql store"
    dump "$SQ" >"$tmp/sq.$what" 2>&1 || fail "$what: reading the sqlite store"
    grep -q '"name":"price_of"' "$tmp/sq.$what" || fail "$what: the sqlite index has no price_of"
    if ! diff "$tmp/sq.$what" "$tmp/pg.$what" >"$tmp/diff.$what"; then
        fail "$what: postgresql and sqlite differ: $(head -n 20 "$tmp/diff.$what")"
    fi
}

round first
grep -q '"path":"shop/base.py"' "$tmp/pg.first" || fail "first: the Cart's base class resolves to base.py"

# ==== an edit, a removal, an addition: incremental ============================
python3 - "$repo/shop/cart.py" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read().replace("    def clear(self):\n        self.items = []\n",
                           "    def empty(self):\n        return not self.items\n")
open(p, "w").write(t)
PY
git -C "$repo" rm -q shop/base.py
cat >"$repo/shop/models.py" <<'PY'
class Model:
    def save(self):
        return True
PY
sed -i 's/from shop.base import Model/from shop.models import Model/' "$repo/shop/cart.py"
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -qm "second: models instead of base"
round incremental
grep -q '"name":"empty"' "$tmp/pg.incremental" || fail "incremental: empty is indexed"
if grep -q '"name":"clear"' "$tmp/pg.incremental"; then fail "incremental: clear is gone"; fi
round full --full

db_finish
