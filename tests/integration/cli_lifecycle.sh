#!/usr/bin/env bash
# cli_lifecycle.sh - the life cycle of a memory through the mnemo command,
# on a git repository made here (issue 20):
#   citations: a gotcha naming a function cites it (hash, lines, text); the
#   function edited and the repository indexed again, the memory is stale:
#   `search` marks it, `context` lists it apart under "May be out of date"
#   and not as knowledge, `recall` puts it in `stale`, `mnemo stale` shows
#   the diff; `mnemo revalidate` makes it current; a renamed function is
#   followed (`show` cites the new name), nothing goes stale;
#   supersession: `save --links` and `link` retire the old decision (out of
#   search, kept in the new one's chain in context), `link --remove` brings
#   it back; expiry: `--ttl` and memory.ttl.episode (MNEMO_NOW_MS moves the
#   clock) hide memories from search, context and `list --expired exclude`;
#   `mnemo gc` counts by default, archives with --apply, purges on request;
#   an audit row for each change.
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
audit() { sqlite3 "$repo/.mnemo/mnemo.db" "SELECT count(*) FROM audit WHERE action = '$1' AND target = '$2'"; }

repo=$tmp/repo
mkdir -p "$repo/shop"
cd "$repo"
git init -q
: >shop/__init__.py
cat >shop/cart.py <<'PY'
"""Cart sessions."""


def refresh_session(session, delay=None):
    """Refresh an idle cart session."""
    if delay is None:
        delay = 0
    session.expires = session.now + delay
    return session


def checkout_total(items):
    """Sum the prices of the items."""
    return sum(i.price for i in items)
PY
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
m init >/dev/null
m index >/dev/null

# ---- citations ----
gotcha=$(m --json save --kind gotcha --title "Idle carts log out at once" \
    "refresh_session treats delay=None as 0, so idle carts expire on the next request." | id_of)
total=$(m --json save --kind fact --title "Checkout sums the prices" \
    "checkout_total adds the item prices without tax." | id_of)
m --json show "$gotcha" | js "a save cites the function it names, with its hash, lines and text" \
    '(c => c.path==="shop/cart.py" && c.symbol==="refresh_session" && c.start_line===4 && c.end_line===9 && c.hash.length===32 && c.text.includes("delay = 0") && !c.stale)(d.memory.citations[0])'

sed -i 's/        delay = 0/        delay = 30/' shop/cart.py
m --json index | js "the index run checks the citation into the edited function" \
    'd.citations && d.citations.stale===1'
q="idle carts log out after refresh_session"
m --json search "$q" --kinds memory | js "search marks the memory stale" \
    'd.items.some(i=>i.id==="'"$gotcha"'" && i.status==="stale")'
m --json context "$q" | js "context lists it apart, not as current knowledge" \
    'd.items.some(i=>i.id==="'"$gotcha"'" && i.section==="stale") && !d.items.some(i=>i.id==="'"$gotcha"'" && i.section!=="stale") && d.markdown.includes("## May be out of date") && !d.markdown.includes("treats delay=None as 0")'
m context "$q" | grep "May be out of date" >/dev/null || fail "context's text names the stale memory apart"
m --json recall "$q" | js "recall puts it in stale, not in facts" \
    'd.stale.some(s=>s.id==="'"$gotcha"'") && !d.facts.some(f=>f.id==="'"$gotcha"'")'
out=$(m stale)
echo "$out" | grep -q "$gotcha" || fail "mnemo stale lists the memory"
echo "$out" | grep -q -- "^-        delay = 0$" || fail "mnemo stale shows the old line"
echo "$out" | grep -q -- "^+        delay = 30$" || fail "mnemo stale shows the new line"
m --json stale | js "stale --json: the citation, where it is now, the diff" \
    'd.total===1 && d.memories[0].id==="'"$gotcha"'" && d.memories[0].citations[0].stale==="changed" && d.memories[0].citations[0].now.path==="shop/cart.py" && d.memories[0].citations[0].diff.includes("+        delay = 30")'
[ "$(audit stale "$gotcha")" = 1 ] || fail "an audit row says it went stale"

m revalidate "$gotcha" | grep "^revalidated $gotcha" >/dev/null || fail "revalidate says what it did"
m --json stale | js "revalidated, nothing is stale" 'd.total===0'
m --json context "$q" | js "revalidated, context serves it as knowledge again" \
    'd.items.some(i=>i.id==="'"$gotcha"'" && i.section==="knowledge")'
[ "$(audit revalidate "$gotcha")" = 1 ] || fail "an audit row says it was revalidated"

# the function renamed: the citation follows it
sed -i 's/checkout_total/order_total/' shop/cart.py
m --json index | js "the rename is followed" 'd.citations && d.citations.followed===1 && d.citations.stale===0'
m --json show "$total" | js "the memory cites the new name" \
    'd.memory.citations[0].symbol==="order_total" && !d.memory.citations[0].stale'
m --json stale | js "a rename makes nothing stale" 'd.total===0'
[ "$(audit cite_follow "$total")" = 1 ] || fail "an audit row says the citation followed"

# ---- supersession ----
old=$(m --json save --kind decision --title "Payments go through Stripe" \
    "We chose Stripe as the payments provider for its API." | id_of)
new=$(m --json save --kind decision --title "Payments go through Adyen" \
    --links "{\"kind\":\"supersedes\",\"to\":\"$old\",\"note\":\"lower fees\"}" \
    "We moved the payments provider from Stripe to Adyen for the fees." | id_of)
m --json show "$old" | js "the replaced decision is superseded" 'd.memory.status==="superseded"'
qp="payments provider stripe adyen fees"
m --json search "$qp" --kinds memory | js "search serves the new decision, not the old" \
    'd.items.some(i=>i.id==="'"$new"'") && !d.items.some(i=>i.id==="'"$old"'")'
m --json context "$qp" | js "context shows the decision with the one it replaced" \
    'd.markdown.includes("supersedes: Payments go through Stripe") && !d.items.some(i=>i.id==="'"$old"'")'
[ "$(audit supersede "$old")" = 1 ] || fail "an audit row says it was superseded"
m link "$new" supersedes "$old" --remove >/dev/null
m --json show "$old" | js "the link removed, the old decision is current again" 'd.memory.status==="active"'
m link "$new" supersedes "$old" >/dev/null
m --json show "$old" | js "linked again with link, it is superseded again" 'd.memory.status==="superseded"'

# ---- expiry and gc ----
now=$(($(date +%s) * 1000))
day=86400000
note=$(m --json save --kind fact --title "Shipping waits for the warehouse strike" --ttl 2d \
    "Orders ship a week late during the warehouse strike." | id_of)
ep=$(m --json save --kind episode --title "Asked about the warehouse strike" \
    "user: is shipping late because of the warehouse strike?" | id_of)
qs="shipping late warehouse strike"
m --json search "$qs" --kinds memory | js "before expiry both are served" \
    'd.items.some(i=>i.id==="'"$note"'") && d.items.some(i=>i.id==="'"$ep"'")'
export MNEMO_NOW_MS=$((now + 3 * day))
m --json search "$qs" --kinds memory | js "past its ttl a memory is not served" \
    '!d.items.some(i=>i.id==="'"$note"'") && d.items.some(i=>i.id==="'"$ep"'")'
m --json context "$qs" | js "nor by context" '!d.items.some(i=>i.id==="'"$note"'")'
m --json list --expired exclude | js "list --expired exclude leaves it out" '!d.memories.some(x=>x.id==="'"$note"'")'
m --json list --expired only | js "list --expired only has it alone" 'd.total===1 && d.memories[0].id==="'"$note"'"'
# `edit --ttl null` removes the expiry, as its help says: the memory is served again
m edit "$note" --ttl null >/dev/null || fail "edit --ttl null"
m --json show "$note" | js "edit --ttl null removes the expiry" '!(d.memory || d).expires_at'
m --json search "$qs" --kinds memory | js "without its expiry it is served again" 'd.items.some(i=>i.id==="'"$note"'")'
m edit "$note" --ttl 2d >/dev/null || fail "edit --ttl 2d"
export MNEMO_NOW_MS=$((now + 200 * day))
m --json search "$qs" --kinds memory | js "an episode unused for 180 days is not served" \
    '!d.items.some(i=>i.id==="'"$ep"'")'
m --json gc | js "gc is a dry run by default, counting what it would archive" \
    'd.dry_run===true && d.expired.count===2 && d.superseded.count===1 && d.expired.ids.includes("'"$note"'")'
m --json show "$note" | js "the dry run changed nothing" 'd.memory.status==="active"'
m gc --apply | grep "archived" >/dev/null || fail "gc --apply says what it archived"
m --json show "$note" | js "gc --apply archived the expired memory" 'd.memory.status==="archived"'
m --json show "$old" | js "and the decision superseded long ago" 'd.memory.status==="archived"'
[ "$(audit expire "$note")" = 1 ] || fail "an audit row says it expired"
export MNEMO_NOW_MS=$((now + 400 * day))
m --json gc --purge-archived-older-than 90d | js "purging counts first" 'd.dry_run===true && d.purged_archived.count===3'
m gc --purge-archived-older-than 90d --apply >/dev/null
m show "$note" >/dev/null 2>&1 && fail "purged memories are gone"
[ "$(audit purge "$note")" = 1 ] || fail "an audit row says it was purged"
m gc --purge-archived-older-than soon >/dev/null 2>&1 && fail "a bad age is refused"
unset MNEMO_NOW_MS

[ "$fails" = 0 ] || {
    echo "$fails failure(s)"
    exit 1
}
echo "cli_lifecycle: ok"
