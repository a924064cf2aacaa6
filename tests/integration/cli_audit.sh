#!/usr/bin/env bash
# cli_audit.sh - the audit log on a real store, with real commands:
#   writes    save, merge (a duplicate: the same path as a rewording), update (a review
#             decision: the status it came to), link, forget, config set
#             and unset, import and export each leave a row with the actor
#             and the id they touched;
#   reads     search, search_code, context, recall (cli) and an MCP
#             resources/read and tools/call through the pinned Inspector
#             (actor mcp-stdio) each leave one, with the served answer's id and
#             the ids of what it served;
#   filters   --op, --actor, --since (an age, a time), --limit/--offset
#             paging newest first; --json and the printed lines agree;
#   secrets   a token saved in a memory and asked in a question, and the
#             words of a question (a search's, a refined feedback's), are in
#             no byte of the audit table;
#   bounds    read rows are pruned with served.max_age and served.max_rows,
#             rows of changes are not;
#   export    `export --audit` carries the log after the memories and
#             `import` of that file takes the memories and leaves the log;
#   read-only a store that cannot be written answers search and audit, and
#             its reads leave no row (as they leave no served answer).
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
js() { node -e "let d=JSON.parse(require('fs').readFileSync(0,'utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,800)); process.exit(1)}" || fail "$1"; }
mn() { "$MNEMO" "$@"; }
inspector() { (cd "$repo" && node "$NM/@modelcontextprotocol/inspector/cli/build/cli.js" --cli "$MNEMO" mcp "$@"); }
# rows OP: the audit rows of OP as JSON
rows() { mn --json audit --op "$1" --limit 1000; }

repo=$tmp/repo
mkdir -p "$repo/cart"
cd "$repo"
git init -q
cat >cart/session.py <<'EOF'
class Session:
    def refresh(self, delay=None):
        """Refresh the cart session after the idle delay."""
        return delay or 30
EOF
git add -A && git -c user.name=t -c user.email=t@t commit -qm init
mn init >/dev/null
mn index >/dev/null

# ---- writes ------------------------------------------------------------------
a=$(mn --json save --kind fact --keyword cart --keyword session "Cart sessions refresh after a thirty second idle delay in cart/session.py" | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
b=$(mn --json save --kind decision "We keep cart sessions in the database, not in cookies, because carts outlive a browser" | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
m=$(mn --json save --kind fact --keyword cart --keyword session "Cart sessions refresh after a thirty second idle delay in cart/session.py" | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
[ "$m" = "$a" ] || fail "the same words were not merged ($m, $a)"
mn edit "$b" --status pending >/dev/null
mn edit "$b" --status active >/dev/null
mn link "$b" relates_to "$a" >/dev/null
c=$(mn --json save --kind fact "The checkout page shows prices in the customer's currency" | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
mn forget "$c" >/dev/null
mn config set served.max_age 30d >/dev/null
mn config unset served.max_age >/dev/null
mn export -o "$tmp/plain.jsonl" 2>/dev/null

rows save | js "save: one row per new memory, actor cli, the id as target" \
    "d.entries.length===3 && d.entries.every(e=>e.actor==='cli' && e.op==='save') && ['$a','$b','$c'].every(i=>d.entries.some(e=>e.target===i))"
rows merge | js "merge: a row naming the memory merged into" \
    "d.entries.length===1 && d.entries[0].target==='$a' && d.entries[0].actor==='cli'"
rows update | js "update: the review decisions with the status each came to" \
    "d.entries.length===2 && d.entries[0].target==='$b' && d.entries[0].detail.status==='active' && d.entries[1].detail.status==='pending'"
rows link | js "link: from, kind and to" \
    "d.entries.length===1 && d.entries[0].target==='$b' && d.entries[0].detail.kind==='relates_to' && d.entries[0].detail.to==='$a'"
rows forget | js "forget: the memory forgotten" "d.entries.length===1 && d.entries[0].target==='$c'"
rows config | js "config: set and unset, the key as target" \
    "d.entries.length===2 && d.entries.every(e=>e.target==='served.max_age') && d.entries[1].detail.value==='30d' && d.entries[0].detail.value===null"
rows export | js "export: a row with the count" "d.entries.length===1 && d.entries[0].detail.count===$(grep -c . "$tmp/plain.jsonl") && d.entries[0].actor==='cli'"

# ---- reads -------------------------------------------------------------------
QWORD=zebraquokka
mn --json search "cart session idle delay $QWORD" >"$tmp/search.json"
served=$(node -pe 'JSON.parse(require("fs").readFileSync(process.argv[1])).served' "$tmp/search.json")
rows search | js "search: the served id and the ids it served, no query" \
    "d.entries.length===1 && d.entries[0].actor==='cli' && d.entries[0].detail.served===$served && d.entries[0].detail.ids.includes('$a') && !('query' in d.entries[0].detail)"
mn --json call search_code '{"query":"where is the session refreshed"}' >"$tmp/sc.json"
rows search_code | js "search_code: its own op, code ids" \
    "d.entries.length===1 && d.entries[0].detail.ids.length>0 && d.entries[0].detail.ids.every(i=>!/^[0-9A-Z]{26}$/.test(i))"
mn --json context "how long is the cart idle delay" >/dev/null
rows context | js "context: a row with the ids served" "d.entries.length===1 && d.entries[0].detail.ids.includes('$a')"
mn --json recall "cart session delay" >/dev/null
rows recall | js "recall: a row with the ids served" "d.entries.length===1 && d.entries[0].detail.ids.includes('$a')"
mn feedback refined --served "$served" --query "cart delay in seconds $QWORD" >/dev/null
rows feedback | js "feedback: the answer and signal, not the new question" \
    "d.entries.length===1 && d.entries[0].detail.served===$served && d.entries[0].detail.signal==='refined' && !('query' in d.entries[0].detail)"

out=$(inspector --method resources/read --uri "mnemo://memory/$a") || fail "resources/read exited $?"
js "resources/read answers" "d.contents[0].text.includes('$a')" <<<"$out"
rows resource | js "resources/read: actor mcp-stdio, the URI and the memory id" \
    "d.entries.length===1 && d.entries[0].actor==='mcp-stdio' && d.entries[0].target==='mnemo://memory/$a' && d.entries[0].detail.ids[0]==='$a'"
out=$(inspector --method tools/call --tool-name search --tool-arg "query=cart idle delay") || fail "tools/call search exited $?"
mn --json audit --actor mcp-stdio | js "--actor mcp-stdio: the MCP reads only" \
    "d.total===2 && d.entries.every(e=>e.actor==='mcp-stdio') && d.entries[0].op==='search' && d.entries[1].op==='resource'"

# ---- filters and paging --------------------------------------------------------
mn --json audit --limit 1000 >"$tmp/all.json"
total=$(node -pe 'JSON.parse(require("fs").readFileSync(process.argv[1])).total' "$tmp/all.json")
[ "$total" -ge 18 ] || fail "expected every row above, got $total"
js "newest first" "d.entries.every((e,i,a)=>i===0 || a[i-1].time>=e.time && a[i-1].id>e.id)" <"$tmp/all.json"
mn --json audit --limit 3 --offset 2 | js "--limit/--offset page newest first" \
    "d.entries.length===3 && d.total===$total && d.entries[0].id===JSON.parse(require('fs').readFileSync('$tmp/all.json')).entries[2].id"
mn --json audit --since 1h | js "--since 1h: everything" "d.total===$total"
mn --json audit --since 2099-01-01T00:00:00Z | js "--since a later time: nothing" "d.total===0 && d.entries.length===0"
mn audit --op save >"$tmp/printed" || fail "audit exited $?"
[ "$(grep -c ' cli  *save  *' "$tmp/printed")" = 3 ] || fail "printed: not three save lines: $(cat "$tmp/printed")"
grep -q "$a" "$tmp/printed" || fail "printed: the saved id is missing"
mn audit --op nothing-like-this | grep -qx "no audit rows" || fail "no rows: not said"
mn audit --offset 9223372036854775807 | grep -Eqx "no audit rows at --offset 9223372036854775807 \([0-9]+ in all\)" ||
    fail "a page past the end: not said"

# ---- secrets and questions stay out ----------------------------------------------
TOKEN=ghp_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7
PART=FAKEa1B2c3D4e5F6g7H8
mn save --kind gotcha "The deploy script failed until the token $TOKEN was rotated in the CI settings" >/dev/null 2>&1 || true
mn search "deploy token $TOKEN" >/dev/null 2>&1
mn context "why did deploy fail with $TOKEN" >/dev/null 2>&1
sqlite3 "$repo/.mnemo/mnemo.db" "SELECT actor, action, coalesce(target,''), coalesce(detail,'') FROM audit" >"$tmp/audit.bytes"
[ -s "$tmp/audit.bytes" ] || fail "the audit table could not be read with sqlite3"
! grep -aqF "$PART" "$tmp/audit.bytes" || fail "the token is in the audit table"
! grep -aqF "$QWORD" "$tmp/audit.bytes" || fail "a question's words are in the audit table"
! grep -aqiF "deploy" "$tmp/audit.bytes" || fail "text of a memory or a question is in the audit table"

# ---- export and import -------------------------------------------------------------
mn export --audit -o "$tmp/full.jsonl" 2>/dev/null
nmem=$(mn call export '{}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).count')
node -e '
const lines=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
const mem=lines.filter(l=>!l.audit), aud=lines.filter(l=>l.audit);
if(mem.length!==+process.argv[2] || aud.length<17 || lines.findIndex(l=>l.audit)!==mem.length ||
   !aud.some(l=>l.audit.op==="save" && l.audit.target===process.argv[3])) process.exit(1)' \
    "$tmp/full.jsonl" "$nmem" "$a" || fail "export --audit: memories, then the audit rows"
mn export -o "$tmp/plain2.jsonl" 2>/dev/null
! grep -q '"audit"' "$tmp/plain2.jsonl" || fail "a plain export carries the audit"
mn call export '{"audit":true,"kind":"fact"}' | js "export --audit with a filter: the log too" "Array.isArray(d.audit) && d.audit.length>0"
mn export --audit --format yaml -o "$tmp/full.yaml" 2>/dev/null
repo2=$tmp/repo2
mkdir -p "$repo2" && cd "$repo2" && git init -q && mn init >/dev/null
mn --json import "$tmp/full.jsonl" | js "import of an export with its audit: the memories" "d.imported===$nmem"
mn --json audit | js "the imported store's log is its own: one import row" "d.total===1 && d.entries[0].op==='import' && d.entries[0].detail.imported===$nmem"
rm -rf .mnemo && mn init >/dev/null
mn --json import "$tmp/full.yaml" | js "import of a YAML export with its audit" "d.imported===$nmem"
cd "$repo"

# ---- bounds: read rows pruned like served, changes kept -----------------------------
writes=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit WHERE action NOT IN ('context','recall','search','search_code','resource')")
mn config set served.max_rows 3 >/dev/null
for i in 1 2 3 4 5; do mn search "cart $i" >/dev/null 2>&1; done
reads=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit WHERE action IN ('context','recall','search','search_code','resource')")
[ "$reads" = 3 ] || fail "served.max_rows 3: $reads read rows kept"
mn config set served.max_rows 10000 >/dev/null
mn config set served.max_age 1d >/dev/null
later=$(($(date +%s) * 1000 + 2 * 86400000))
MNEMO_NOW_MS=$later mn search "cart later" >/dev/null 2>&1
reads=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit WHERE action IN ('context','recall','search','search_code','resource')")
[ "$reads" = 1 ] || fail "served.max_age 1d, two days later: $reads read rows kept"
now_writes=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit WHERE action NOT IN ('context','recall','search','search_code','resource')")
[ "$now_writes" -ge "$((writes + 3))" ] || fail "rows of changes were pruned ($writes, then $now_writes)"

# ---- a read-only store ----------------------------------------------------------------
as_user=()
if [ "$(id -u)" = 0 ]; then
    # shellcheck disable=SC2054 # the commas are setpriv's
    if setpriv --bounding-set=-dac_override,-dac_read_search,-fowner -- true 2>/dev/null; then
        as_user=(setpriv --bounding-set=-dac_override,-dac_read_search,-fowner --)
    else
        echo "SKIP: root without setpriv's bounding set: the read-only checks"
        as_user=(SKIP)
    fi
fi
if [ "${as_user[0]:-}" != SKIP ]; then
    before=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit")
    chmod 444 .mnemo/mnemo.db
    "${as_user[@]}" "$MNEMO" --json search "cart idle delay" >"$tmp/ro.json" 2>/dev/null || fail "read-only: search failed"
    js "read-only: search answers" "d.items.length>0 && !d.served" <"$tmp/ro.json"
    "${as_user[@]}" "$MNEMO" --json audit >"$tmp/ro.audit" 2>/dev/null || fail "read-only: audit failed"
    js "read-only: audit answers" "d.total===$before" <"$tmp/ro.audit"
    "${as_user[@]}" "$MNEMO" --json export --audit >/dev/null 2>&1 || fail "read-only: export --audit failed"
    chmod 644 .mnemo/mnemo.db
    after=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM audit")
    [ "$after" = "$before" ] || fail "read-only: rows were written ($before, then $after)"
fi

if [ "$fails" -gt 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "cli_audit: ok"
