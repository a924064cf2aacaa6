#!/usr/bin/env bash
# cli_search.sh - the search and feedback operations from the command line
# on real data made here: a git repository of a few Python modules indexed
# by `mnemo index`, memories saved with `mnemo save`, then searches whose
# order and ids are asserted (memories by their words, code by a named
# symbol, files for an issue with a traceback, a memory scoped to a matched
# file coming along), feedback moving a memory up, forgotten memories never
# served, and FTS5 syntax in a query taken as text.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg MNEMO_NOW_MS=1795239445123
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# js NAME EXPR: evaluate EXPR with d = the JSON on stdin (node)
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,600)); process.exit(1)}" || fail "$1"; }
# ids: the item ids of a search answer, one per line
ids() { node -e "for (const i of JSON.parse(require('fs').readFileSync(0,'utf8')).items) console.log(i.id)"; }

repo=$tmp/repo
mkdir -p "$repo/shop/cart" "$repo/shop/billing" "$repo/tests"
cd "$repo"
git init -q
: >shop/__init__.py
: >shop/cart/__init__.py
: >shop/billing/__init__.py
cat >shop/cart/session.py <<'PY'
"""Cart sessions: one per visitor, kept alive while they shop."""
from .store import save_cart


class Session:
    """A shopping session."""

    def refresh(self, delay=None):
        """Extend the session by its delay (30 s when none is given)."""
        self.expires = now() + (delay or 30)
        save_cart(self)

    def close(self):
        self.expires = 0
PY
cat >shop/cart/store.py <<'PY'
def save_cart(session):
    """Write the cart of a session to the database."""
    db.write(session.key, session.items)


def load_cart(key):
    """Read a cart back from the database, or None."""
    return db.read(key)
PY
cat >shop/billing/invoice.py <<'PY'
from decimal import Decimal, ROUND_HALF_UP


class Invoice:
    """An invoice: lines, taxes, a total."""

    def total(self):
        return sum(round_line(line) for line in self.lines)


def round_line(line):
    """Round one line to cents, half up."""
    return Decimal(line.amount).quantize(Decimal("0.01"), ROUND_HALF_UP)
PY
cat >tests/test_session.py <<'PY'
from shop.cart.session import Session


def test_refresh():
    s = Session()
    s.refresh(delay=5)
    assert s.expires
PY
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
M=$MNEMO
$M init >/dev/null
$M index >/dev/null

save() { $M --json save "$@" | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)"; }
cart=$(save --kind gotcha --title "Cart sessions expire when delay is nil" --keyword checkout,idle,401 \
  "Checkout returned 401 after idle: refresh got no delay.")
rounding=$(save --kind decision --title "Invoices round each line, not the total" \
  "Rounding the total made cents disappear.")
scoped=$(save --kind pattern --title "Persist only through the store module" --path shop/cart/store.py \
  --keyword persist "Nothing else writes to the database.")
gone=$(save --kind fact --title "Checkout idle limit was ten minutes" "An old rule.")
$M forget "$gone" >/dev/null

search() { $M call search "$1"; }

# memories by their words: the gotcha first, the forgotten one never
out=$(search '{"query":"why does checkout fail after being idle?","kinds":["memory"]}')
[ "$(ids <<<"$out" | head -1)" = "$cart" ] || fail "the gotcha leads a question about idle checkout"
ids <<<"$out" | grep -qx "$gone" && fail "a forgotten memory was served"
js "memory item fields" 'd.items[0].type==="memory" && d.items[0].status==="active" && d.items[0].signals.lexical===1 && d.items[0].snippet.includes("idle") && d.served>0' <<<"$out"

# code: the chunk of the named function, with its lines
out=$(search '{"query":"where is save_cart written to the database","kinds":["code"],"k":3}')
js "code item" 'd.items[0].type==="code" && d.items[0].path==="shop/cart/store.py" && d.items[0].title==="save_cart" && d.items[0].start_line===1 && d.items[0].id.startsWith("chunk:")' <<<"$out"

# files for an issue with a traceback: the two files of its frames first
issue='Cart not saved after refresh
Traceback (most recent call last):
  File "/home/me/venv/lib/python3.11/site-packages/shop/cart/session.py", line 11, in refresh
    save_cart(self)
  File "/home/me/venv/lib/python3.11/site-packages/shop/cart/store.py", line 3, in save_cart
    db.write(session.key, session.items)
AttributeError: Session has no attribute key'
args=$(node -e 'console.log(JSON.stringify({query: process.argv[1], kinds: ["file"], k: 5}))' "$issue")
out=$(search "$args")
top=$(ids <<<"$out" | head -2 | sort | tr '\n' ' ')
[ "$top" = "shop/cart/session.py shop/cart/store.py " ] || fail "files for the traceback: got '$top'"
js "billing far behind" '!d.items.some(i=>i.id==="shop/billing/invoice.py" && i.score > d.items[1].score / 2)' <<<"$out"

# a test file ranks under the source it tests
out=$(search '{"query":"Session.refresh ignores its delay","kinds":["file"],"k":5}')
[ "$(ids <<<"$out" | head -1)" = "shop/cart/session.py" ] || fail "the session module leads"
js "the test after its source" 'd.items.findIndex(i=>i.id==="tests/test_session.py") > d.items.findIndex(i=>i.id==="shop/cart/session.py")' <<<"$out"

# a memory scoped to a matched file comes along with the code
out=$(search '{"query":"load_cart reads a cart back from the database","k":10}')
js "scoped memory comes along" 'd.items.some(i=>i.id==="'"$scoped"'" && i.signals.graph>0)' <<<"$out"
js "memory and code mixed" 'd.items.some(i=>i.type==="memory") && d.items.some(i=>i.type==="code")' <<<"$out"

# feedback: used moves the counters and the rank
out=$(search '{"query":"rounding cents total","kinds":["memory"]}')
served=$(node -e 'console.log(JSON.parse(process.argv[1]).served)' "$out")
fb=$($M call feedback "{\"signal\":\"used\",\"items\":[\"$rounding\"],\"served\":$served}")
js "feedback counted" 'd.recorded===1 && d.memories[0].used===1' <<<"$fb"
out=$(search '{"query":"rounding cents total","kinds":["memory"]}')
js "usefulness after feedback" 'd.items[0].signals.usefulness > 0.5' <<<"$out"
$M call feedback "{\"signal\":\"used\",\"items\":[\"$cart\"],\"served\":$served}" >/dev/null 2>&1 &&
  fail "feedback on an item the answer did not serve"

# FTS5 syntax is text
for q in '"unbalanced' 'NEAR(cart session)' 'cart AND OR NOT' 'title:*' '((( cart' '^x* -y'; do
  a=$(node -e 'console.log(JSON.stringify({query: process.argv[1]}))' "$q")
  $M call search "$a" >/dev/null || fail "query '$q' failed"
done

# bad input is a usage error
$M call search '{"query":""}' >/dev/null 2>&1 && fail "an empty query was accepted"
set +e
$M call search '{"query":"x","kinds":["all"]}' >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad kinds: exit code 2"
set -e

if [ $fails -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "cli_search: ok"
