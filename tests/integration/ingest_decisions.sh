#!/usr/bin/env bash
# ingest_decisions.sh - decisions recorded on purpose and their chains:
#   record_decision  a decision with reasons, alternatives, consequences and
#                    scope; supersedes makes the old one superseded (and
#                    linked); caused_by links what led to it; an unknown id
#                    is refused and nothing is saved;
#   chain            from an id or a question: the tree with dates, statuses
#                    and reasons, both ways (what it replaced and what
#                    replaced it), depth bounded, every memory once even
#                    when the links make a cycle;
#   context          shows a decision with its reason and the one it replaced.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
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
id_of() { node -e "console.log(JSON.parse(require('fs').readFileSync(0)).id)"; }

mkdir -p "$tmp/p" && cd "$tmp/p"
mn init >/dev/null
incident=$(mn --json save "Checkout was down for an hour: the MySQL primary ran out of connections" --kind episode --keyword mysql | id_of)
a=$(mn --json decide "Use MySQL for the orders database" --reason "the team knows it" --alternative PostgreSQL | id_of)
b=$(mn --json decide "Use PostgreSQL for the orders database" --reason "window functions for reports" \
    --reason "the shipping service runs it already" --alternative "MySQL 8" --consequences "a migration weekend" \
    --supersedes "$a" --caused-by "$incident" --path orders/ | id_of)
c=$(mn --json decide "Use PgBouncer in front of PostgreSQL" --reason "connection storms at sale time" --caused-by "$b" | id_of)

mn --json show "$a" | js "the old one superseded" "d.memory.status==='superseded'"
mn --json show "$b" | js "the decision's fields" "d.memory.kind==='decision' && d.memory.context.situation==='window functions for reports; the shipping service runs it already' && /Alternatives set aside: MySQL 8/.test(d.memory.body) && /Consequences: a migration weekend/.test(d.memory.body) && d.memory.scope.paths[0]==='orders/' && d.memory.links.some(l=>l.kind==='supersedes' && l.to==='$a') && d.memory.links.some(l=>l.kind==='caused_by' && l.to==='$incident')"

mn --json chain "$b" >"$tmp/chain.json"
js "chain from an id" "(()=>{const r=d.roots[0]; const k=r.children; return r.id==='$b' && /window functions/.test(r.reasons) && /^\\d{4}-\\d{2}-\\d{2}$/.test(r.date) && k.some(c=>c.relation==='supersedes' && c.id==='$a' && c.status==='superseded') && k.some(c=>c.relation==='caused_by' && c.id==='$incident') && k.some(c=>c.relation==='led_to' && c.id==='$c') && d.nodes===4})()" <"$tmp/chain.json"
mn --json chain "why PostgreSQL for orders" | js "chain from a question" "d.roots.length>=1 && d.roots.some(r=>r.id==='$b' || JSON.stringify(r).includes('$b'))"
mn --json chain "$c" --depth 1 | js "depth bounded" "d.roots[0].children.length===1 && d.roots[0].children[0].children.length===0"
mn link "$a" caused_by "$c" >/dev/null # a cycle
mn --json chain "$a" --depth 10 | js "a cycle: each memory once" "d.nodes===4"
mn chain "$b" | grep -q "supersedes: .*Use MySQL for the orders database \[superseded\]" || fail "chain's text"

mn --json context "which database for orders and why" | js "context: the decision, its reason, what it replaced" "/Use PostgreSQL for the orders database/.test(d.markdown) && /window functions/.test(d.markdown) && /supersedes: Use MySQL/.test(d.markdown)"

before=$(mn --json list --limit 1 | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).total)")
if mn decide "Use Oracle" --supersedes 01ZZZZZZZZZZZZZZZZZZZZZZZZ >/dev/null 2>"$tmp/err"; then fail "an unknown id was accepted"; fi
after=$(mn --json list --limit 1 | node -e "console.log(JSON.parse(require('fs').readFileSync(0)).total)")
[ "$before" = "$after" ] || fail "a refused decision was saved"
if mn chain >/dev/null 2>&1; then fail "chain with nothing succeeded"; fi

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: ingest_decisions" || exit 1
