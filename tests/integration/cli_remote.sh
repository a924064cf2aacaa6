#!/usr/bin/env bash
# cli_remote.sh - `mnemo remote add|list|remove`, and `context` merging a
# team server's memories with the local code index: a real `mnemo serve` on
# loopback (a SQLite store, serve.auth token) holding the team's memory, a
# local git project with code and no memory of its own.
#
#   config       add validates NAME ([a-z0-9_-]{1,32}) and URL (https://, or
#                http:// on loopback; no credentials, none in its query, never
#                repeated in the refusal), stores only the token
#                variable's name, never the token; list, remove; `config set`
#                cannot make a remote; the audit log has add and remove;
#   merge        context (CLI, and MCP stdio through `mnemo call`-free
#                `mnemo mcp`) returns the local code and the remote's memory,
#                marked with its remote's name, within the token budget;
#                search puts the remote's memories after the local items, with
#                the filters passed on; recall has them as its part "team";
#                get NAME:ID reads the remote's memory whole;
#   loop guard   a server whose project has a remote never asks it (get
#                NAME:ID over the server is refused);
#   failures     a wrong token, an unset variable, a server that is gone, a
#                server that does not answer in remote.timeout_ms: one note
#                each, the local answer intact.
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-remote.XXXXXX")
server_pid=
hang_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    if [ -n "$hang_pid" ]; then kill "$hang_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS MNEMO_TEAM_TOKEN
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

# ---- the team server ----------------------------------------------------------------
S="$tmp/server.db"
"$MNEMO" --db "$S" save --kind gotcha --title "Checkout must round cart totals to cents" \
    --keyword checkout --keyword cents \
    "The checkout charges cart.total; totals are floats and must be rounded to cents before charging." \
    >/dev/null
"$MNEMO" --db "$S" config set serve.auth token >/dev/null
token=$("$MNEMO" --db "$S" token create --project default --role reader --name laptop 2>/dev/null | tail -n 1)
# started outside any repository: the server's own directory is not the project's code
(cd "$tmp" && exec "$MNEMO" --db "$S" serve --port 0 2>"$tmp/server.err") &
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

# ---- the local project: code, no memories -------------------------------------------
repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    """Charge the cart total at checkout."""\n    return charge(cart.total)\n' >shop.py
git add shop.py
git -c user.name=t -c user.email=t@t commit -qm "shop: checkout charges the cart"
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null

# ---- config ---------------------------------------------------------------------------
for bad in "Team" "a b" "$(printf 'x%.0s' $(seq 1 33))" ""; do
    out=$("$MNEMO" remote add "$bad" "$base" --token-env MNEMO_TEAM_TOKEN 2>&1) &&
        fail "remote name '$bad' accepted"
    [[ $out == *"remote name"* || $out == *"needs NAME and URL"* ]] || fail "bad name '$bad': $out"
done
for bad in "ftp://h/x" "http://example.com" "https://user:pw@example.com" "https://a b" \
    "https://example.com/mcp?access_token=s3cr3tTOKENvalue99"; do
    out=$("$MNEMO" remote add team "$bad" --token-env MNEMO_TEAM_TOKEN 2>&1) &&
        fail "remote URL '$bad' accepted"
    [[ $out == *"remote URL"* && $out != *":pw@"* && $out != *"s3cr3t"* ]] || fail "bad URL '$bad': $out"
done
out=$("$MNEMO" remote add team "https://example.com" --token-env 'A-B' 2>&1) && fail "a bad variable name"
[ "$("$MNEMO" remote list)" = "no remotes (mnemo remote add NAME URL --token-env VAR adds one)" ] ||
    fail "refused adds stored nothing: $("$MNEMO" remote list)"
out=$("$MNEMO" remote add team "$base/" --token-env MNEMO_TEAM_TOKEN) || fail "remote add: $out"
[[ $out == "added remote 'team': $base, token in \$MNEMO_TEAM_TOKEN" ]] || fail "add says: $out"
out=$("$MNEMO" remote list)
[[ $out == "team"*"$base  token in \$MNEMO_TEAM_TOKEN (not set)" ]] || fail "list: $out"
! grep -rqa "$token" .mnemo/ || fail "the token is in the store"
out=$("$MNEMO" config set remote:evil https://evil.example.com 2>&1) && fail "config set made a remote"
"$MNEMO" audit | grep "remote_add" >/dev/null || fail "the audit log has the add"

# ---- merge ----------------------------------------------------------------------------
export MNEMO_TEAM_TOKEN=$token
out=$("$MNEMO" --json context "why must checkout round the cart total" --max-tokens 1500) ||
    fail "context with a remote: $out"
jq_py '
items = d["items"]
md = d["markdown"]
code = [i for i in items if i.get("type") != "memory"]
remote = [i for i in items if i.get("remote") == "team"]
assert code and any("shop.py" in json.dumps(i) for i in code), ("local code", items)
assert remote and remote[0]["title"].startswith("Checkout must round"), ("remote memory", items)
assert "## From the team (remote team)" in md and "Checkout must round cart totals" in md, md
assert "shop.py" in md, md
assert d["tokens"] <= d["max_tokens"] == 1500, (d["tokens"], d["max_tokens"])
assert not any("remote" in n for n in d.get("notes", [])), d["notes"]
' <<<"$out" || fail "context merges the local code and the team's memory: ${out:0:600}"
# a small budget is kept, remote section included
out=$("$MNEMO" --json context "why must checkout round the cart total" --max-tokens 120)
jq_py 'assert d["tokens"] <= 120, d["tokens"]' <<<"$out" || fail "a budget of 120 is kept"
# MCP stdio (the op, not the CLI) merges too
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context","arguments":{"query":"why must checkout round the cart total"}}}' |
    "$MNEMO" mcp >"$tmp/mcp.out" 2>/dev/null || true
grep -q "From the team (remote team)" "$tmp/mcp.out" || fail "MCP stdio context merges the remote: $(head -c 400 "$tmp/mcp.out")"

# search: the local items, then the remote's memories marked with its name, filters passed on
out=$("$MNEMO" --json search "checkout round cart totals cents") || fail "search with a remote: $out"
jq_py '
items = d["items"]
remote = [i for i in items if i.get("remote") == "team"]
assert remote and remote[0]["title"].startswith("Checkout must round"), ("remote memory", items)
assert remote[0]["type"] == "memory" and remote[0]["signals"] == {}, remote[0]
assert "snippet" in remote[0] and "score" in remote[0], remote[0]
first = next(n for n, i in enumerate(items) if i.get("remote"))
assert all(i.get("remote") for i in items[first:]), ("local items first", items)
assert any("shop.py" in json.dumps(i) for i in items[:first]), ("local code", items)
assert d["total"] == first, ("total counts the local items", d["total"], first)
' <<<"$out" || fail "search merges the local items and the team's memories: ${out:0:600}"
out=$("$MNEMO" search "checkout round cart totals cents")
[[ $out == *"team:"*"Checkout must round cart totals"* ]] || fail "search prints the remote's memory as team:ID: $out"
# get NAME:ID: the remote's memory whole, as the server keeps it
rid=$("$MNEMO" --json search "checkout round cart totals cents" | jq_py 'print(next(i["id"] for i in d["items"] if i.get("remote") == "team"))')
out=$("$MNEMO" --json show "team:$rid") || fail "get team:ID: $out"
jq_py '
m = d["memory"]
assert d["remote"] == "team" and m["title"].startswith("Checkout must round"), d
assert "rounded to cents before charging" in m["body"], m
' <<<"$out" || fail "get team:ID gives the remote's memory: ${out:0:400}"
out=$("$MNEMO" show "team:$rid") || fail "show team:ID (text): $out"
[[ $out == *"rounded to cents before charging"* ]] || fail "get team:ID prints the body: $out"
out=$("$MNEMO" show "nosuch:$rid" 2>&1) && fail "get of an unknown remote succeeded"
[[ $out == *"no remote named 'nosuch'"* ]] || fail "get nosuch:ID names it: $out"
out=$("$MNEMO" show "team:01ZZZZZZZZZZZZZZZZZZZZZZZZ" 2>&1) && fail "get of a memory the server lacks succeeded"
[[ $out == *"remote 'team' ($base): HTTP 404"* ]] || fail "get team:missing says the server's 404: $out"
out=$(MNEMO_TEAM_TOKEN= "$MNEMO" show "team:$rid" 2>&1) && fail "get without the token succeeded"
[[ $out == *"\$MNEMO_TEAM_TOKEN is not set"* ]] || fail "get without the token says why: $out"
out=$("$MNEMO" --json search "checkout round cart totals cents" --kind fact)
jq_py 'assert not [i for i in d["items"] if i.get("remote")], d["items"]' <<<"$out" ||
    fail "the kind filter goes to the remote (its memory is a gotcha): ${out:0:400}"
out=$("$MNEMO" --json search "checkout round cart totals cents" --kinds code)
jq_py 'assert not [i for i in d["items"] if i.get("remote")], d["items"]' <<<"$out" ||
    fail "code alone asks no remote: ${out:0:400}"
# recall: the remote's memories as the part "team", within limit_tokens
out=$("$MNEMO" --json recall "why must checkout round the cart total" --limit-tokens 400) ||
    fail "recall with a remote: $out"
jq_py '
team = d["team"]
assert team and team[0]["remote"] == "team" and team[0]["title"].startswith("Checkout must round"), team
assert "rounded to cents" in team[0]["text"], team[0]
assert 0 < d["tokens"] <= 400, d["tokens"]
' <<<"$out" || fail "recall merges the team's memories: ${out:0:600}"
out=$("$MNEMO" recall "why must checkout round the cart total")
[[ $out == *"from the team:"*"team:"* ]] || fail "recall prints the team's part: $out"

# ---- failures: one note each, the local answer intact -----------------------------------
check_note() { # DESC WANT: context's notes hold WANT, the local code is there
    local out
    out=$("$MNEMO" --json context "why must checkout round the cart total") || {
        fail "$1: context failed"
        return
    }
    WANT="$2" jq_py '
import os
notes = [n for n in d["notes"] if n.startswith("remote ")]
assert len(notes) == 1 and os.environ["WANT"] in notes[0], notes
assert not any(i.get("remote") for i in d["items"]), d["items"]
assert any("shop.py" in json.dumps(i) for i in d["items"]), d["items"]
assert "From the team" not in d["markdown"]
' <<<"$out" || fail "$1: ${out:0:600}"
}
MNEMO_TEAM_TOKEN=mnemo_0000000000000000000000000000000000000000000000000000000000000000 \
    check_note "a wrong token" "remote 'team' ($base) left out: HTTP 401"
MNEMO_TEAM_TOKEN="$token
Host: evil" check_note "a token with a line break" "must hold the token alone"
MNEMO_TEAM_TOKEN= check_note "an unset variable" "remote 'team' not asked: \$MNEMO_TEAM_TOKEN is not set"
# a listener that accepts and never answers: the timeout
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' >"$tmp/hang.port" &
hang_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/hang.port" ] && break; sleep 0.05; done
# the loop guard: a server never asks remotes, even when its project has one (here one that
# would hang): a team server asking servers could loop, and would reach hosts for any token
"$MNEMO" --db "$S" remote add back "http://127.0.0.1:$(cat "$tmp/hang.port")" >/dev/null
for op in search context recall; do
    out=$(BASE=$base TOKEN=$token OP=$op python3 -c '
import json, os, urllib.request
req = urllib.request.Request(os.environ["BASE"] + "/v1/" + os.environ["OP"],
    data=json.dumps({"query": "why must checkout round the cart total"}).encode(),
    headers={"Authorization": "Bearer " + os.environ["TOKEN"], "Content-Type": "application/json"})
d = json.load(urllib.request.urlopen(req, timeout=30))
assert not [n for n in d.get("notes", []) if "remote" in n], d["notes"]
assert "Checkout must round" in json.dumps(d), d
print("ok")
' 2>&1) || true
    [ "$out" = ok ] || fail "the server asks no remote on $op: $out"
done
out=$(BASE=$base TOKEN=$token python3 -c '
import json, os, urllib.error, urllib.request
req = urllib.request.Request(os.environ["BASE"] + "/v1/get", data=json.dumps({"id": "back:01ZZZZZZZZZZZZZZZZZZZZZZZZ"}).encode(),
    headers={"Authorization": "Bearer " + os.environ["TOKEN"], "Content-Type": "application/json"})
try:
    urllib.request.urlopen(req, timeout=30)
    print("answered")
except urllib.error.HTTPError as e:
    print(e.code, json.dumps(json.load(e)))
' 2>&1) || true
[[ $out == "400 "*"a server does not ask remotes"* ]] || fail "the server refuses get of a remote memory: $out"
"$MNEMO" --db "$S" remote remove back >/dev/null
"$MNEMO" remote add team "http://127.0.0.1:$(cat "$tmp/hang.port")" --token-env MNEMO_TEAM_TOKEN >/dev/null
"$MNEMO" config set remote.timeout_ms 300 >/dev/null
t0=$(date +%s%N)
check_note "a server that does not answer" "no answer within 300 ms"
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 10000 ] || fail "the timeout bounds the wait ($(((t1 - t0) / 1000000)) ms)"
kill "$hang_pid" 2>/dev/null || true
wait "$hang_pid" 2>/dev/null || true
hang_pid=
check_note "a server that is gone" "unreachable"
out=$("$MNEMO" remote remove team) || fail "remove: $out"
[ "$out" = "removed remote 'team'" ] || fail "remove says: $out"
out=$("$MNEMO" remote remove team 2>&1) && fail "removing twice"
[[ $out == *"no remote named 'team'"* ]] || fail "remove names it: $out"
out=$("$MNEMO" --json context "why must checkout round the cart total")
jq_py 'assert not [n for n in d["notes"] if n.startswith("remote ")], d["notes"]' <<<"$out" ||
    fail "no remote, no note"

kill -TERM "$server_pid"
wait "$server_pid" || fail "the server exited $? after SIGTERM"
server_pid=
[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "cli_remote: all checks passed"
