#!/usr/bin/env bash
# cli_context.sh - `mnemo context` and `mnemo recall` on a real repository
# made here: the first call indexes and discovers by itself; a question
# brings the matching gotcha, the decision with its reason and the decision
# it supersedes (and, a link deeper, what that one was caused by), and the
# code to look at; the Markdown never costs more than
# the budget in cl100k_base tokens (js-tiktoken, pinned in deps/npm.lock),
# down to tiny budgets; a question nothing matches says so instead of
# padding; recall returns the same findings as data; bad input is refused.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,600)); process.exit(1)}" || fail "$1"; }
deps=${MNEMO_DEPS_DIR:-$MNEMO_SOURCE_DIR/.deps}/npm
mkdir -p "$tmp/node_modules"
ln -s "$deps/js-tiktoken@1.0.21" "$tmp/node_modules/js-tiktoken"
ln -s "$deps/base64-js@1.5.1" "$tmp/node_modules/base64-js"
# real ENCODING: the true token count of the markdown of the JSON on stdin (js-tiktoken)
real() { NODE_PATH=$tmp/node_modules node -e "const {getEncoding}=require('js-tiktoken'); const d=JSON.parse(require('fs').readFileSync(0,'utf8')); console.log(getEncoding('$1').encode(d.markdown, [], []).length)"; }

repo=$tmp/repo
mkdir -p "$repo/shop/cart" "$repo/tests"
cd "$repo"
git init -q
cat >pyproject.toml <<'TOML'
[project]
name = "shop"
[tool.pytest.ini_options]
testpaths = ["tests"]
TOML
: >shop/__init__.py
: >shop/cart/__init__.py
cat >shop/cart/session.py <<'PY'
"""Cart sessions: a session expires after its delay."""
from .store import load_cart


class Session:
    """A shopping session."""

    def refresh(self, delay=None):
        """Extend the session by its delay (default 30 seconds)."""
        self.expires = now() + (delay or 30)

    def checkout(self):
        return load_cart(self)
PY
cat >shop/cart/store.py <<'PY'
def load_cart(session):
    """Read the cart of a session from the database."""
    return []
PY
cat >tests/test_session.py <<'PY'
from shop.cart.session import Session


def test_refresh():
    Session().refresh()
PY
"$MNEMO" init >/dev/null

gotcha=$("$MNEMO" save --json --kind gotcha --title "Session refresh drops the delay" \
    --tag cart "Session.refresh ignored a delay of 0 and used the 30 second default: checkout then returned 401 after idle." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
cause=$("$MNEMO" save --json --kind decision --title "Carts are locked in the database while a session lives" \
    "Cart rows stay locked for the session's life." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
old=$("$MNEMO" call save --json "{\"kind\":\"decision\",\"title\":\"Sessions expire after 10 minutes\",\"body\":\"Sessions expire after 10 minutes of inactivity.\",\"links\":[{\"kind\":\"caused_by\",\"to\":\"$cause\"}]}" |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
new=$("$MNEMO" call save --json "{\"kind\":\"decision\",\"title\":\"Session delay defaults to 30 seconds\",\"body\":\"Session refresh extends by the delay, 30 seconds by default.\",\"context\":{\"situation\":\"long sessions kept carts locked in the database\"},\"links\":[{\"kind\":\"supersedes\",\"to\":\"$old\"}]}" |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")
"$MNEMO" save --kind fact "The billing export runs nightly at 02:00 UTC." >/dev/null

# the first context call indexes and discovers by itself
"$MNEMO" context --json "why does checkout return 401 after the session refresh" >"$tmp/c1.json"
js "first call indexed" "d.notes.some(n => n.startsWith('indexed the repository first'))" <"$tmp/c1.json"
js "route mode, relevant" "d.mode === 'route' && d.relevant === true" <"$tmp/c1.json"
js "overview first" "d.items[0].section === 'project' && d.markdown.indexOf('## Project') < d.markdown.indexOf('## Relevant knowledge')" <"$tmp/c1.json"
js "the gotcha is there, with why" "d.items.some(i => i.id === '$gotcha' && i.section === 'knowledge' && i.why.length > 0)" <"$tmp/c1.json"
js "the decision with its reason and chain" "d.items.some(i => i.id === '$new' && i.section === 'decisions') && /Because: long sessions/.test(d.markdown) && /supersedes: Sessions expire after 10 minutes/.test(d.markdown)" <"$tmp/c1.json"
# the chain goes on past the first link: what the superseded decision was caused by, one level deeper
js "the chain, two links deep" "/\\n  - supersedes: Sessions expire after 10 minutes[^\\n]*\\n    - caused by: Carts are locked in the database/.test(d.markdown)" <"$tmp/c1.json"
js "where to look: session.py" "d.items.some(i => i.section === 'code' && i.path === 'shop/cart/session.py')" <"$tmp/c1.json"
js "the unrelated fact is left out" "!/billing export/.test(d.markdown)" <"$tmp/c1.json"
js "tokens within budget" "d.tokens <= d.max_tokens && d.max_tokens === 3000" <"$tmp/c1.json"
js "served id" "d.served > 0" <"$tmp/c1.json"
# the reported count is the exact one, in the encoding asked for (default o200k_base)
js "o200k_base by default" "d.tokenizer === 'o200k_base'" <"$tmp/c1.json"
real=$(real o200k_base <"$tmp/c1.json")
said=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).tokens)" <"$tmp/c1.json")
[ "$real" = "$said" ] || fail "o200k_base counts $real tokens, context said $said"
"$MNEMO" context --json --tokenizer cl100k_base "why does checkout return 401 after the session refresh" >"$tmp/c1k.json"
real=$(real cl100k_base <"$tmp/c1k.json")
said=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).tokens)" <"$tmp/c1k.json")
[ "$real" = "$said" ] || fail "cl100k_base counts $real tokens, context said $said"

# budgets: the markdown never costs more than max_tokens, in either encoding
for enc in o200k_base cl100k_base; do
    for budget in 64 100 150 250 400 800; do
        "$MNEMO" context --json --tokenizer "$enc" --max-tokens "$budget" "session refresh delay checkout 401" >"$tmp/b.json"
        n=$(real "$enc" <"$tmp/b.json")
        [ "$n" -le "$budget" ] || fail "budget $budget: $enc counts $n tokens"
        js "budget $budget: reported tokens" "d.tokens === $n && d.tokens <= $budget" <"$tmp/b.json"
    done
done
"$MNEMO" context --json --max-tokens 250 "session refresh delay checkout 401" >"$tmp/b.json"
js "a small budget keeps the best" "d.items.some(i => i.id === '$gotcha')" <"$tmp/b.json"

# without its token tables (a mnemo copied without share/mnemo/tokenizers): the estimate, an
# upper bound, and the notes say so
mkdir -p "$tmp/bare"
cp "$MNEMO" "$tmp/bare/mnemo"
"$tmp/bare/mnemo" context --json --max-tokens 300 "session refresh delay checkout 401" >"$tmp/est.json"
js "no table: estimated, said in the notes" "d.tokenizer === 'estimate' && d.notes.some(n => /tokens are estimated, not counted/.test(n)) && d.tokens <= 300" <"$tmp/est.json"
n=$(real cl100k_base <"$tmp/est.json")
[ "$n" -le 300 ] || fail "no table: cl100k_base counts $n tokens over 300"
js "with its tables: counted" "d.tokenizer === 'o200k_base' && !d.notes.some(n => /estimated/.test(n))" <"$tmp/c1.json"

# nothing relevant: said, not padded
"$MNEMO" context --json "kubernetes helm chart ingress annotations" >"$tmp/none.json"
js "no relevant memory" "d.relevant === false && /No relevant project memory/.test(d.markdown) && !d.items.some(i => i.section !== 'project')" <"$tmp/none.json"

# one shared word is not an answer: search scores are relative to the best match, the floor
# also wants a share of the question's terms in the text
"$MNEMO" context --json "export the chart as a PDF for the quarterly slides and email it" >"$tmp/one.json"
js "one common word: not relevant" "d.relevant === false && !/billing export/.test(d.markdown)" <"$tmp/one.json"
"$MNEMO" context --json "when does the billing export run" >"$tmp/two.json"
js "several words: relevant" "d.relevant === true && /billing export runs nightly/.test(d.markdown)" <"$tmp/two.json"

# discovery mode: the overview alone
"$MNEMO" context --json --mode discovery "session refresh" >"$tmp/disc.json"
js "discovery: overview only" "d.mode === 'discovery' && d.items.length > 0 && d.items.every(i => i.section === 'project')" <"$tmp/disc.json"
"$MNEMO" context >"$tmp/plain.md"
grep -q '^# Project memory: overview' "$tmp/plain.md" || fail "plain output is the markdown"

# recall: the same findings as data
"$MNEMO" recall --json "checkout returns 401 after session refresh" >"$tmp/r.json"
js "recall facts" "d.facts.some(f => f.id === '$gotcha' && f.text.length <= 301)" <"$tmp/r.json"
js "recall decisions with chain" "d.decisions.some(x => x.id === '$new' && x.chain.some(c => c.kind === 'supersedes' && c.to === '$old'))" <"$tmp/r.json"
js "recall: the chain's second link, with where it comes from" "d.decisions.some(x => x.id === '$new' && x.chain.some(c => c.kind === 'caused_by' && c.to === '$cause' && c.depth === 2 && c.from === '$old'))" <"$tmp/r.json"
js "recall confidence" "d.confidence > 0 && d.confidence <= 1" <"$tmp/r.json"
"$MNEMO" recall --json "kubernetes helm chart ingress" >"$tmp/r0.json"
js "recall: nothing, confidence 0" "d.confidence === 0 && d.facts.length === 0" <"$tmp/r0.json"

# a long fact is clipped to 300 characters and "…", whitespace runs counted as the one space
# they become (they once were not, and clipped prose came out ~340 characters long)
long=$(for i in $(seq 1 85); do printf 'zebrafish  \n\t  ledger%d ' "$i"; done)
"$MNEMO" save --kind fact --title "Zebrafish ledger notes" --keyword zebrafish --keyword ledger -- "$long" >/dev/null
"$MNEMO" recall --json "zebrafish ledger notes" >"$tmp/rl.json"
js "a long fact is clipped to 301 characters" "d.facts.some(f => /^Zebrafish|zebrafish/.test(f.text) && [...f.text].length <= 301 && f.text.endsWith('…') && [...f.text].length >= 290)" <"$tmp/rl.json"

# a summary of a part of the tree (discovery's domain facts list their files' names and
# symbols, so they share words with most questions) comes only when the code found lies
# in its directory: the shop's does, a summary of a directory with no such code does not
"$MNEMO" save --json --level L1 --source discovery --tag discovery --tag discovery:domain:legacy \
    --path legacy --title "Domain legacy: session refresh, checkout 401" \
    "legacy holds the old session refresh and checkout code: session.py, refresh.py, checkout.py" >/dev/null
"$MNEMO" save --json --level L1 --source discovery --tag discovery --tag discovery:domain:shop/cart \
    --path shop/cart --title "Domain shop/cart: session refresh, checkout" \
    "shop/cart holds the session refresh and checkout code: session.py, store.py" >/dev/null
"$MNEMO" context --json "why does checkout return 401 after the session refresh" >"$tmp/c2.json"
js "a summary of where the code is: in" "/Domain shop\/cart/.test(d.markdown)" <"$tmp/c2.json"
js "a summary of elsewhere: out" "!/Domain legacy/.test(d.markdown)" <"$tmp/c2.json"
"$MNEMO" recall --json "why does checkout return 401 after the session refresh" >"$tmp/r2.json"
js "recall: the summary of elsewhere is out" "d.facts.some(f => /Domain shop/.test(f.text)) && !d.facts.some(f => /Domain legacy/.test(f.text))" <"$tmp/r2.json"
"$MNEMO" search --json "why does checkout return 401 after the session refresh" >"$tmp/s2.json"
js "search: the summary of where the code is, not of elsewhere" "d.items.some(i => /Domain shop/.test(i.title)) && !d.items.some(i => /Domain legacy/.test(i.title))" <"$tmp/s2.json"
"$MNEMO" search --json --kinds memory "why does checkout return 401 after the session refresh" >"$tmp/s3.json"
js "search of memories alone: both summaries (no code to place them)" "d.items.some(i => /Domain shop/.test(i.title)) && d.items.some(i => /Domain legacy/.test(i.title))" <"$tmp/s3.json"

# bad input: one error line, exit 2, nothing stored changes
before=$("$MNEMO" export | md5sum)
for args in "--max-tokens 10 x" "--max-tokens abc x" "--mode sideways x"; do
    set +e
    # shellcheck disable=SC2086
    "$MNEMO" context $args >"$tmp/out" 2>"$tmp/err"
    code=$?
    set -e
    [ "$code" = 2 ] || fail "context $args: exit $code"
    [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^mnemo: error:' "$tmp/err" || fail "context $args: stderr $(cat "$tmp/err")"
done
[ "$before" = "$("$MNEMO" export | md5sum)" ] || fail "bad input changed the store"

[ "$fails" = 0 ] || exit 1
echo "cli_context: ok"
