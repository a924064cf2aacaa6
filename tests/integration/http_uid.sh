#!/usr/bin/env bash
# http_uid.sh - a memory id is unique per project, not per store (issue 24,
# "Access": a token of project A learns nothing of project B). One served
# store, admin tokens of alpha and beta, REST and MCP.
#
#   oracle   every op that takes an id (get, update, forget, forget undo and
#            purge, link from/to/remove, chain, revalidate, feedback, review
#            approve/merge, save with links, resources/read) answers an id
#            of beta's, from alpha's token, exactly as an id that exists
#            nowhere: same HTTP status, same body once the id is masked
#   import   an import into alpha of a memory whose id is beta's is
#            imported (not skipped, not "not found" when replacing), and
#            beta's export imported whole into alpha keeps every memory in
#            both projects, each with its own text
#   migrate  `mnemo migrate --merge` of project alpha into a store whose
#            project beta holds the same ids moves every memory of alpha
# Run on SQLite by default; tests/pg/http_pg_uid.sh runs it on PostgreSQL
# with MNEMO_UID_DB naming the database.
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-uid.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
dbarg=()
[ -n "${MNEMO_UID_DB:-}" ] && dbarg=(--db "$MNEMO_UID_DB")
m() { "$MNEMO" "${dbarg[@]}" "$@"; }
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 600)); process.exit(1) }" || fail "$1"
}
secret() {
    m --json token create --project "$2" --role "$3" --name "$1" |
        node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0, 'utf8')).secret)"
}

mkdir -p "$tmp/server"
cd "$tmp/server"
[ -n "${MNEMO_UID_DB:-}" ] || m init >/dev/null
m config set serve.auth token >/dev/null
m config set mcp.tools all >/dev/null
aA=$(secret admin-a alpha admin)
aB=$(secret admin-b beta admin)

"$MNEMO" "${dbarg[@]}" serve --port 0 2>"$tmp/server.err" &
server_pid=$!
url=
for _ in $(seq 1 600); do
    url=$(grep -o 'http://[^ ]*/mcp' "$tmp/server.err" || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
done
[ -n "$url" ] || {
    cat "$tmp/server.err"
    echo "FAIL: the server did not say where it listens"
    exit 1
}
base=${url%/mcp}
CT='Content-Type: application/json'
ACCEPT='Accept: application/json, text/event-stream'
rest() { # rest TOKEN OP BODY
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X POST "$base/v1/$2" -H "$CT" -H "Authorization: Bearer $1" --data-binary "$3")
}
post() {
    local body=$1
    shift
    code=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' -X POST "$url" -H "$CT" -H "$ACCEPT" "$@" --data-binary "$body")
}
hdr() { tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -n 1; }
session() {
    post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' -H "Authorization: Bearer $1"
    local sid
    sid=$(hdr Mcp-Session-Id)
    post '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $sid"
    echo "$sid"
}
n=1
rpc() { # rpc SECRET SID METHOD PARAMS
    n=$((n + 1))
    post "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"$3\",\"params\":$4}" -H "Authorization: Bearer $1" -H "Mcp-Session-Id: $2"
}
field() { node -e "process.stdout.write(String(JSON.parse(require('fs').readFileSync('$tmp/body', 'utf8'))$1))"; }
save() { # save TOKEN TITLE BODY: prints the id
    rest "$1" save "{\"kind\":\"fact\",\"title\":\"$2\",\"body\":\"$3\",\"context\":{\"situation\":\"s\",\"solution\":\"s\",\"trigger_keywords\":[\"uid\",\"test\",\"$2\"]}}"
    [ "$code" = 200 ] || fail "save '$2': $code $(cat "$tmp/body")"
    field .id
}

idA=$(save "$aA" "Alpha anchor" "Alpha keeps its own anchor memory for links.")
idA2=$(save "$aA" "Alpha second" "Alpha has a second memory to merge and review.")
idB=$(save "$aB" "Beta secret ledger" "Beta closes the ledger at midnight; nobody in alpha may learn it exists.")
[ ${#idA} = 26 ] && [ ${#idB} = 26 ] || fail "saves gave ids '$idA' and '$idB'"
# an id that exists nowhere, of the same shape: beta's with its random part changed
none=${idB:0:10}ZZZZZZZZZZZZZZZZ
[ "$none" != "$idB" ] || none=${idB:0:10}YYYYYYYYYYYYYYYY

# ---- the oracle: B's id answers as an id that does not exist ----
# whole ids before prefixes: when beta's id has "ZZ" after its time part (1 run in 1,024),
# none's first 12 characters are beta's, and a prefix masked first left none's tail behind
mask() { sed "s/$idB/ID/g; s/$none/ID/g; s/${idB:0:12}/ID/g; s/${none:0:12}/ID/g; s/\"id\":[0-9]*/\"id\":N/; s/\"took_ms\":[0-9.]*/\"took_ms\":T/g" "$1"; }
# same FRONT OP ARGS: run twice, @ replaced by B's id then by none (% by 12-character prefixes)
same() {
    local front=$1 op=$2 args=$3 c1
    local withB=${args//@/$idB} withN=${args//@/$none}
    withB=${withB//\%/${idB:0:12}} withN=${withN//\%/${none:0:12}}
    if [ "$front" = rest ]; then rest "$aA" "$op" "$withB"; else rpc "$aA" "$sA" "$op" "$withB"; fi
    c1=$code
    mask "$tmp/body" >"$tmp/n1"
    if [ "$front" = rest ]; then rest "$aA" "$op" "$withN"; else rpc "$aA" "$sA" "$op" "$withN"; fi
    mask "$tmp/body" >"$tmp/n2"
    [ "$c1" = "$code" ] && cmp -s "$tmp/n1" "$tmp/n2" ||
        fail "$front $op $args: B's id and a missing id differ: $c1 $(head -c 300 "$tmp/n1") / $code $(head -c 300 "$tmp/n2")"
}
sA=$(session "$aA")
call_args() { printf '{"name":"%s","arguments":%s}' "$1" "$2"; }
while IFS='|' read -r op args; do
    [ -n "$op" ] || continue
    same rest "$op" "$args"
    same mcp tools/call "$(call_args "$op" "$args")"
done <<EOF
get|{"id":"@"}
get|{"id":"%"}
update|{"id":"@","title":"Overwritten by alpha"}
forget|{"id":"@"}
forget|{"id":"@","undo":true}
forget|{"id":"@","purge":true}
link|{"from":"$idA","kind":"relates_to","to":"@"}
link|{"from":"@","kind":"relates_to","to":"$idA"}
link|{"from":"$idA","kind":"relates_to","to":"@","remove":true}
chain|{"id":"@"}
revalidate|{"id":"@"}
feedback|{"signal":"used","items":["@"]}
feedback|{"signal":"ignored","items":["@"]}
review|{"action":"approve","id":"@"}
review|{"action":"reject","id":"@"}
review|{"action":"merge","id":"$idA2","into":"@"}
review|{"action":"merge","id":"@","into":"$idA2"}
save|{"kind":"fact","title":"Alpha links out","body":"Alpha links to a memory it names.","context":{"situation":"s","solution":"s","trigger_keywords":["alpha","link","out"]},"links":[{"kind":"relates_to","to":"@"}]}
EOF
same mcp resources/read '{"uri":"mnemo://memory/@"}'
MNEMO_PROJECT=beta m --json show "$idB" | js "beta's memory is untouched by alpha" \
    "d.memory.status === 'active' && d.memory.title === 'Beta secret ledger' && !(d.links || []).length"

# ---- import: an id of B imported into A is A's own ----
rest "$aB" export '{}'
[ "$code" = 200 ] || fail "beta's export: $code"
cp "$tmp/body" "$tmp/exportB"
countB=$(field .count)
[ "$countB" = 1 ] || fail "beta exports $countB memories, not 1"
for mode in skip replace; do
    node -e "const d = JSON.parse(require('fs').readFileSync('$tmp/exportB', 'utf8'));
process.stdout.write(JSON.stringify({memories: d.memories, on_conflict: '$mode'}))" >"$tmp/imp"
    rest "$aA" import "$(cat "$tmp/imp")"
    [ "$code" = 200 ] || fail "import ($mode) into alpha of beta's export: $code $(head -c 300 "$tmp/body")"
    if [ "$mode" = skip ]; then
        js "import (skip) into alpha of beta's export imports every memory" \
            "d.imported === $countB && d.skipped === 0" <"$tmp/body"
    else
        js "import (replace) again replaces alpha's copy" "d.replaced === $countB" <"$tmp/body"
    fi
done
rest "$aA" get "{\"id\":\"$idB\"}"
js "alpha's copy of beta's memory is alpha's" "d.memory.title === 'Beta secret ledger'" <"$tmp/body"
rest "$aA" update "{\"id\":\"$idB\",\"title\":\"Alpha's own copy\"}"
[ "$code" = 200 ] || fail "alpha updates its copy: $code $(head -c 300 "$tmp/body")"
rest "$aA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"$idB\"}"
[ "$code" = 200 ] || fail "alpha links to its copy: $code $(head -c 300 "$tmp/body")"
rest "$aA" link "{\"from\":\"$idA\",\"kind\":\"relates_to\",\"to\":\"$idB\",\"remove\":true}"
[ "$code" = 200 ] || fail "alpha removes the link to its copy: $code $(head -c 300 "$tmp/body")"
rest "$aA" feedback "{\"signal\":\"used\",\"items\":[\"$idB\"]}"
rest "$aA" forget "{\"id\":\"$idB\"}"
[ "$code" = 200 ] || fail "alpha forgets its copy: $code $(head -c 300 "$tmp/body")"
rest "$aB" get "{\"id\":\"$idB\"}"
js "beta's memory is beta's, untouched by what alpha did to its copy" \
    "d.memory.title === 'Beta secret ledger' && d.memory.status === 'active' && !(d.links || []).length && !d.memory.deleted_at" <"$tmp/body"
rest "$aB" search '{"query":"ledger midnight"}'
grep -q "$idB" "$tmp/body" || fail "beta's search does not find its memory after alpha's import: $(head -c 300 "$tmp/body")"
rest "$aA" forget "{\"id\":\"$idB\",\"undo\":true}"
rest "$aA" search '{"query":"copy"}'
js "alpha's search finds its copy, with alpha's title" \
    "d.items.filter(i => i.id === '$idB').length === 1 && d.items.find(i => i.id === '$idB').title === \"Alpha's own copy\"" <"$tmp/body"
# the whole of beta (many memories) into alpha, and the counts of both
for i in 1 2 3; do save "$aB" "Beta more $i" "Beta has more memory number $i to export." >/dev/null; done
rest "$aB" export '{}'
cp "$tmp/body" "$tmp/exportB"
node -e "const d = JSON.parse(require('fs').readFileSync('$tmp/exportB', 'utf8'));
process.stdout.write(JSON.stringify({memories: d.memories}))" >"$tmp/imp"
rest "$aA" import "$(cat "$tmp/imp")"
js "beta's whole export into alpha: the 3 new imported, the one alpha has skipped" \
    "d.imported === 3 && d.skipped === 1" <"$tmp/body"
rest "$aB" export '{}'
js "beta keeps its 4 memories" "d.count === 4" <"$tmp/body"
rest "$aA" export '{}'
js "alpha has its 2, the none it imported and beta's 4" "d.count >= 6" <"$tmp/body"

# ---- migrate --merge: the target's other project holding the same ids takes nothing away ----
mkdir -p "$tmp/mig"
rest "$aB" export '{}'
node -e "const d = JSON.parse(require('fs').readFileSync('$tmp/body', 'utf8'));
process.stdout.write(d.memories.map(m => JSON.stringify(m)).join('\\n') + '\\n')" >"$tmp/mig/b.jsonl"
MNEMO_PROJECT=alpha "$MNEMO" --db "$tmp/mig/x.db" import "$tmp/mig/b.jsonl" >/dev/null
MNEMO_PROJECT=beta "$MNEMO" --db "$tmp/mig/y.db" import "$tmp/mig/b.jsonl" >/dev/null
rc=0
"$MNEMO" migrate --from "$tmp/mig/x.db" --to "$tmp/mig/y.db" --merge >"$tmp/mig/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "migrate --merge into a store whose other project has the ids: exit $rc, $(cat "$tmp/mig/out")"
MNEMO_PROJECT=alpha "$MNEMO" --db "$tmp/mig/y.db" --json export >"$tmp/mig/alpha" 2>/dev/null || true
[ "$(grep -c '"id"' "$tmp/mig/alpha")" = 4 ] || fail "alpha in the target after migrate --merge: $(grep -c '"id"' "$tmp/mig/alpha") memories, not 4"

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=
[ "$rc" = 0 ] || fail "the server exited $rc: $(grep -v 'http: ' "$tmp/server.err" | tail -n 40)"
exit $((failures > 0))
