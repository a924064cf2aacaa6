#!/usr/bin/env bash
# cli_review.sh - the review queue through the mnemo command, on a real
# store in a git repository made here (issue 20): `mnemo review` lists
# what waits with the judge's reasons, its contradicts link and its near
# neighbours; `review approve` makes a memory active, `review reject`
# archives it and a later save of the same text, or a rewording, is not
# stored; `review edit` changes fields then approves; `review merge ID
# INTO` folds one into another; `--ids`, `--all-from SOURCE` and `--all
# --kind` decide in bulk, all or none; rejecting a save that contradicted
# a memory brings that memory back; each decision is an audit row with its
# actor; bad requests exit 2 and change nothing.
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
# audit ACTION TARGET: its rows by the command (actor cli) naming the person who decided (rita)
audit() { sqlite3 "$repo/.mnemo/mnemo.db" "SELECT count(*) FROM audit WHERE action = '$1' AND target = '$2' AND actor = 'cli' AND (action = 'skip' OR json_extract(detail, '\$.by') = 'rita')"; }
status() { m --json show "$1" | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memory.status)"; }
# agent_pattern TITLE BODY: an agent's pattern without evidence (it waits for review)
agent_pattern() {
    m --json save --source agent --kind pattern --title "$1" --situation "writing code here" \
        --solution "$2" --keyword code,review "$2" | id_of
}
total() { m --json list --deleted include --limit 1000 | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).total)"; }

repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
m init >/dev/null
m config set user.name rita >/dev/null

logp=$(agent_pattern "Handlers log through log.event" "Request handlers log with log.event(name, fields) from app/log.py, never with print().")
retry=$(agent_pattern "Always wrap database calls in retry_db" "Every call to the database goes through retry_db() with three attempts and an exponential backoff.")
old=$(m --json save --title "Payment API timeout" "Set the HTTP client timeout to 30 seconds for the payment API." | id_of)
new=$(m --json save --title "Payment API timeout" "Set the HTTP client timeout to 60 seconds for the payment API." | id_of)
cdn=$(m --json save --source discovery --confidence 0.2 --kind fact --title "The CDN caches for an hour" "Static assets are cached by the CDN for 3600 seconds." | id_of)
[ "$(status "$old")" = pending ] || fail "a save contradicting a memory sends it back to review"

# ---- the queue ----
m review >"$tmp/out" || fail "mnemo review lists the queue"
grep -q "^$logp  pattern  pending" "$tmp/out" || fail "the queue shows the agent's pattern"
grep -q "no evidence: no commit, issue, citation or file" "$tmp/out" || fail "the queue shows the judge's reasons"
grep -q "contradicts $old" "$tmp/out" || fail "the queue shows the contradicts link"
grep -q "near $old .* conflicting" "$tmp/out" || fail "the queue shows the near neighbour and its verdict"
grep -q "5 of 5 waiting" "$tmp/out" || fail "the queue counts what waits"
m --json review --kind pattern | js "the queue by kind" 'd.total===2 && d.memories.every(x=>x.kind==="pattern")'
m --json review --all-from discovery | js "the queue by source" 'd.total===1 && d.memories[0].id==="'"$cdn"'"'

# ---- approve ----
m review approve "${logp:0:10}" --note "matches app/log.py" >"$tmp/out" || fail "review approve by prefix"
grep -q "approve $logp: pending -> active" "$tmp/out" || fail "approve says what it did"
[ "$(status "$logp")" = active ] || fail "approved, the memory is active"
m --json show "$logp" | js "the decision is kept in the memory" \
    'd.memory.judgement.review.decision==="approved" && d.memory.judgement.review.by==="rita" && d.memory.judgement.review.via==="cli" && d.memory.judgement.review.note==="matches app/log.py"'
[ "$(audit approve "$logp")" = 1 ] || fail "an audit row for the approval, with its actor"

# ---- reject, never proposed again ----
m review reject "$retry" --note "we do not retry blindly" >/dev/null || fail "review reject"
[ "$(status "$retry")" = archived ] || fail "rejected, the memory is archived"
[ "$(audit reject "$retry")" = 1 ] || fail "an audit row for the rejection"
before=$(total)
m --json save --source agent --kind pattern --title "Always wrap database calls in retry_db" \
    --situation "writing code here" --solution "Every call to the database goes through retry_db() with three attempts and an exponential backoff." \
    --keyword code,review "Every call to the database goes through retry_db() with three attempts and an exponential backoff." |
    js "the same text again is not stored" 'd.action==="skipped" && d.rejected_before==="'"$retry"'"'
m save --source agent --kind pattern --title "Always wrap the database calls in retry_db" \
    --situation "writing code here" --solution "Every database call goes through retry_db() with three attempts and an exponential backoff." \
    --keyword code,review "Every database call goes through retry_db() with three attempts and an exponential backoff." >"$tmp/out" ||
    fail "a reworded save of a rejected memory exits 0"
grep -q "not saved: a reviewer rejected this before (memory $retry, near duplicate)" "$tmp/out" || fail "a rewording is not stored either, and the person is told"
[ "$(total)" = "$before" ] || fail "nothing was stored"
[ "$(audit skip "$retry")" = 2 ] || fail "an audit row for each skipped save"

# ---- a conflict: the newcomer rejected, the old memory is current again ----
m --json review reject "$new" | js "rejecting the contradicting save releases the old memory" \
    'd.decided[0].released[0]==="'"$old"'"'
[ "$(status "$old")" = active ] || fail "the contradicted memory is active again"

# ---- edit ----
dates=$(agent_pattern "Dates in UTC" "Store dates as UTC in the database.")
m review edit "$dates" --title "Dates are stored in UTC, shown in local time" >"$tmp/out" || fail "review edit"
grep -q "edited $dates: pending -> active" "$tmp/out" || fail "edit says what it did"
grep -q "changed: title" "$tmp/out" || fail "edit says which fields changed"
m --json show "$dates" | js "edited, then active" 'd.memory.title==="Dates are stored in UTC, shown in local time" && d.memory.status==="active"'

# ---- merge ----
flags=$(m --json save --kind fact --title "Feature flags live in flags.yaml" "Feature flags are read from config/flags.yaml at start-up." | id_of)
hup=$(m --json save --source agent --kind pattern --title "Flags are reloaded on SIGHUP" --tag flags \
    --situation "changing flags" --solution "send SIGHUP" --keyword flags,sighup \
    "config/flags.yaml is read again when the server gets SIGHUP." | id_of)
m review merge "$hup" "$flags" >"$tmp/out" || fail "review merge ID INTO"
grep -q "merge $hup: pending -> archived (into $flags)" "$tmp/out" || fail "merge says where it went"
m --json show "$flags" | js "the merged memory's tags are kept" 'd.memory.scope.tags.includes("flags") && d.memory.status==="active"'
[ "$(status "$hup")" = archived ] || fail "merged away, the memory is archived"
[ "$(audit merge "$flags")" = 1 ] || fail "an audit row for the merge"

# ---- bulk ----
a=$(agent_pattern "Workers are idempotent" "Every background job may run twice; write it so.")
b=$(agent_pattern "Jobs carry a request id" "A background job logs the request id that queued it.")
set +e
m review reject --ids "$a,$flags" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a bulk decision with one memory not waiting exits 2 (got $rc)"
grep -q "not waiting for review" "$tmp/err" || fail "and says which memory is not waiting"
[ "$(status "$a")" = pending ] || fail "all or none: nothing was rejected"
m review reject --all-from discovery >"$tmp/out" || fail "review reject --all-from discovery"
grep -q "^1 decided" "$tmp/out" || fail "--all-from takes that source's memories only"
[ "$(status "$cdn")" = archived ] || fail "the discovery fact is rejected"
m review approve --all --kind pattern >"$tmp/out" || fail "review approve --all --kind pattern"
grep -q "^2 decided" "$tmp/out" || fail "--all --kind takes every waiting pattern"
[ "$(status "$a")" = active ] && [ "$(status "$b")" = active ] || fail "both patterns approved"
m review >"$tmp/out"
grep -q "nothing waits for review" "$tmp/out" || fail "the queue is empty at the end"

# ---- bad requests ----
for bad in "approve" "frobnicate" "approve --all --ids $a" "merge $a" "reject $a --limit 0"; do
    set +e
    # shellcheck disable=SC2086 # the words are the arguments
    m review $bad >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "mnemo review $bad exits 2 (got $rc)"
    grep -q "^mnemo: error: " "$tmp/err" || fail "mnemo review $bad says why"
done
m review approve 0000000000000000 >/dev/null 2>&1 && fail "an unknown id is refused"

[ "$fails" = 0 ] || {
    echo "$fails failure(s)"
    exit 1
}
echo "cli_review: ok"
