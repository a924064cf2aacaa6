#!/usr/bin/env bash
# cli_migrate.sh - mnemo migrate between two SQLite stores (the PostgreSQL
# cases are tests/pg/cli_migrate.sh).
#
#   every field  60 generated memories with every field of the schema
#                (gen_memories), plus saved ones with tags, paths, a link, an
#                expiry, a forgotten one, config and an audit log, in two
#                projects: migrate, then both exports are byte-identical
#                (memories and the audit log, less the migrate row), config
#                the same, the source's bytes unchanged;
#   pages        the same in pages of 7 (MNEMO_MIGRATE_PAGE): links to later
#                pages, the audit log in order, merged again in pages;
#   verification a memory the target's import changes: refused naming the
#                line, on a later page;
#   one project  --project moves that one only;
#   refusal      a target project holding memories is refused, nothing
#                written; --merge adds, keeps the target's own, and writes no
#                audit row twice;
#   secrets      a key stored in embed.key is not moved, and said so;
#   bad input    an unknown URL scheme, a missing source, the same store
#                twice, a missing --to: one clear error each, no file made.
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
GEN=${MNEMO_GEN_MEMORIES:?MNEMO_GEN_MEMORIES must name the gen_memories helper}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-migrate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
mkdir -p "$HOME"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS
cd "$tmp"
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
ID_RE='[0-9A-HJKMNP-TV-Z]{26}'
a() { "$MNEMO" --db a.db "$@"; }

# ---- a source with every field -------------------------------------------------
"$GEN" 60 20261128 >gen.jsonl
a import gen.jsonl >/dev/null || fail "import the generated memories"
out=$(a save --kind gotcha --title "Cart sessions expire when delay is nil" --tag cart \
    --tag sessions --path src/cart.c --ttl 30d \
    "The cart session expires at once when the delay is nil; default it to thirty seconds.")
x=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
out=$(a save --kind decision --title "One PostgreSQL server for the team" \
    "Every agent of the team reads and writes one PostgreSQL database through mnemo serve.")
y=$(grep -Eo "$ID_RE" <<<"$out" | head -n 1)
a link "$x" relates_to "$y" >/dev/null || fail "link"
a forget "$y" >/dev/null || fail "forget"
a config set memory.ttl.fact 30d >/dev/null || fail "config set"
MNEMO_PROJECT=other a save --kind fact --title "The other project's own fact" \
    "Only the other project sees this fact about its own build." >/dev/null
a export >a.jsonl
a export --audit >a_audit.jsonl
MNEMO_PROJECT=other a export >a_other.jsonl
cp a.db a.before.db
# ---- every field ----------------------------------------------------------------
out=$("$MNEMO" migrate --from a.db --to b.db) || fail "migrate: $out"
[[ $out =~ "project 'default': 62 memories, "[0-9]+" links, 1 config keys, "[0-9]+" audit rows" ]] || fail "counts: $out"
[[ $out == *"project 'other': 1 memories"* ]] || fail "both projects: $out"
[[ $out == *"verified"* && $out == *"code index is not moved"* ]] || fail "says verified and the index: $out"
"$MNEMO" --db b.db export >b.jsonl
cmp -s a.jsonl b.jsonl || fail "exports differ: $(diff a.jsonl b.jsonl | head -4)"
MNEMO_PROJECT=other "$MNEMO" --db b.db export >b_other.jsonl
cmp -s a_other.jsonl b_other.jsonl || fail "the other project's exports differ"
grep -q '"tags":\["cart","sessions"\]' b.jsonl || fail "tags moved"
grep -q '"paths":\["src/cart.c"\]' b.jsonl || fail "paths moved"
grep -q '"expires_at":' b.jsonl || fail "expiry moved"
grep -q "\"id\":\"$y\".*\"deleted_at\":" b.jsonl || fail "a forgotten memory stays forgotten"
grep -q "\"links\":\[{\"kind\":\"relates_to\",\"to\":\"$y\"" b.jsonl || fail "the link moved"
[ "$("$MNEMO" --db b.db config get memory.ttl.fact)" = 30d ] || fail "config moved"
# the audit log: the source's rows (the two exports above are in it), then the migrate row
"$MNEMO" --db b.db audit --json >b_audit.json
python3 - a_audit.jsonl b_audit.json <<'PY' || fail "audit rows moved"
import json, sys
src = [json.loads(l)["audit"] for l in open(sys.argv[1]) if l.startswith('{"audit"')]
dst = json.load(open(sys.argv[2]))["entries"]
# newest first: the exports of b.db since, the migrate row, then the moved rows
ops = [r["op"] for r in dst]
assert ops.count("migrate") == 1, ops
strip = lambda rows: [{k: v for k, v in r.items() if k != "id"} for r in rows]
# the source's rows at a_audit time, after the export that wrote a_audit
moved = strip(dst[ops.index("migrate") + 1:])
assert moved[0]["op"] == "export" and len(moved) == len(src) + 1, (moved[0], len(moved), len(src))
assert strip(src) == moved[-len(src):], (strip(src)[:2], moved[-len(src):][:2])
PY
cmp -s a.db a.before.db || fail "the source was written to"
# ---- pages ------------------------------------------------------------------------
# The same move a few rows at a time (MNEMO_MIGRATE_PAGE, read by the tests only): the
# memories in pages of 7, so that links point to memories of later pages (written once
# every page's rows are) and the audit log's rows cross pages; the same bytes, the same
# log; then merged again in pages: every memory kept, no audit row twice.
python3 - a.jsonl <<'PY' || fail "the generated links cross pages of 7"
import json, sys
mems = [json.loads(l) for l in open(sys.argv[1])]
page = {m["id"]: i // 7 for i, m in enumerate(mems)}
ahead = [l for m in mems for l in m.get("links", []) if page.get(l["to"], -1) > page[m["id"]]]
assert len(ahead) >= 5, len(ahead)
PY
log() { sqlite3 "$1" "SELECT a.ts, a.actor, a.action, a.target, a.detail FROM audit a JOIN projects p
    ON p.id = a.project_id WHERE p.name = 'default' AND a.action != 'migrate' ORDER BY a.ts, a.id"; }
out=$(MNEMO_MIGRATE_PAGE=7 "$MNEMO" migrate --from a.db --to p.db) || fail "migrate in pages: $out"
[[ $out =~ "project 'default': 62 memories, "[0-9]+" links" ]] || fail "counts in pages: $out"
# (before the export below, which adds a row of its own)
[ "$(log a.db | wc -l)" -ge 8 ] && [ "$(log a.db)" = "$(log p.db)" ] || fail "the audit log moved in pages, in order"
"$MNEMO" --db p.db export >p.jsonl
cmp -s a.jsonl p.jsonl || fail "exports differ after a move in pages: $(diff a.jsonl p.jsonl | head -4)"
[ "$(grep -o '"to":"' a.jsonl | wc -l)" -gt 60 ] && [ "$(grep -o '"to":"' p.jsonl | wc -l)" = "$(grep -o '"to":"' a.jsonl | wc -l)" ] ||
    fail "every link moved in pages"
n1=$(log p.db | wc -l)
out=$(MNEMO_MIGRATE_PAGE=7 "$MNEMO" migrate --from a.db --to p.db --merge) || fail "merge in pages: $out"
[[ $out == *"62 kept as the target had them"* ]] || fail "merge in pages keeps every memory: $out"
[ "$(log p.db | wc -l)" -eq "$n1" ] || fail "merge in pages wrote a row twice"
# ---- verification ---------------------------------------------------------------
# A memory the target's import changes (personal data stored while scan.pii was off,
# redacted by the target's default): the move fails naming the first line that differs,
# here on the third page of 3.
for i in 1 2 3 4 5 6 7; do
    "$MNEMO" --db v.db save --kind fact --title "Build fact $i" "The build step $i runs the linker." >/dev/null
done
"$MNEMO" --db v.db config set scan.pii off >/dev/null
"$MNEMO" --db v.db save --kind fact --title "Who holds the release key" \
    "Mail alice.jones@example.com for the release key." >/dev/null
"$MNEMO" --db v.db config unset scan.pii >/dev/null
"$MNEMO" --db v.db save --kind fact --title "The last fact" "The last fact of the store." >/dev/null
out=$(MNEMO_MIGRATE_PAGE=3 "$MNEMO" migrate --from v.db --to v2.db 2>&1) && fail "a target that reads back otherwise"
[[ $out == *"project 'default' was moved but does not read back the same: the exports differ: line 8 differs (source '{\"id\":"* ]] ||
    fail "names the first line that differs: $out"
# ---- one project ----------------------------------------------------------------
out=$("$MNEMO" migrate --from a.db --to c.db --project other) || fail "migrate --project: $out"
[[ $out != *"'default'"* ]] || fail "--project moves that project only: $out"
[ "$("$MNEMO" --db c.db list)" = "no memories" ] || fail "the default project was not moved"
out=$("$MNEMO" migrate --from a.db --to c2.db --project nope 2>&1) && fail "an unknown project"
[[ $out == *"project 'nope' not found in 'a.db'"* ]] || fail "names the project: $out"
# ---- refusal and merge ------------------------------------------------------------
cp b.db b.before.db
out=$("$MNEMO" migrate --from a.db --to b.db 2>&1) && fail "a target holding memories is refused"
[[ $out == *"holds 62 memories already"*"--merge"* ]] || fail "refusal says why and what to do: $out"
cmp -s b.db b.before.db || fail "a refused migrate wrote to the target"
"$MNEMO" --db b.db save --kind fact --title "Only in the target" "A fact the target has of its own." >/dev/null
"$MNEMO" --db b.db edit "$x" --title "The target's own title" >/dev/null
out=$("$MNEMO" migrate --from a.db --to b.db --merge) || fail "merge: $out"
[[ $out == *"62 kept as the target had them"* && $out == *"every memory of the source"* ]] || fail "merge: $out"
"$MNEMO" --db b.db show "$x" | grep "^title: The target's own title" >/dev/null || fail "merge keeps the target's own"
[ "$("$MNEMO" --db b.db export | wc -l)" -eq 63 ] || fail "merge keeps the target's own memory: $("$MNEMO" --db b.db export | wc -l)"
n1=$("$MNEMO" --db b.db audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
"$MNEMO" migrate --from a.db --to b.db --merge >/dev/null || fail "merge again"
n2=$("$MNEMO" --db b.db audit --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
[ "$n2" -eq $((n1 + 1)) ] || fail "merging again adds its migrate row only ($n1 -> $n2)"
# ---- secrets ----------------------------------------------------------------------
sqlite3 a.db "INSERT INTO config(project_id, key, value, updated_at) SELECT id, 'embed.key', 'sk-literal-key-0123456789abcdef', 0 FROM projects WHERE name = 'default'"
out=$("$MNEMO" migrate --from a.db --to d.db) || fail "migrate with a stored key: $out"
[[ $out == *"config embed.key not moved"* ]] || fail "says the key is not moved: $out"
[[ $out != *sk-literal* ]] || fail "the key is printed"
! sqlite3 d.db "SELECT value FROM config" | grep -q sk-literal || fail "the key was copied"
# ---- bad input --------------------------------------------------------------------
out=$("$MNEMO" migrate --from a.db --to 'mysql://u:pw@h/db' 2>&1) && fail "an unknown scheme"
[[ $out == *"error"* && $out != *":pw@"* ]] || fail "one clear error, no password: $out"
out=$("$MNEMO" migrate --from missing.db --to e.db 2>&1) && fail "a missing source"
[[ $out == *"no mnemo store at 'missing.db'"* ]] || fail "names the source: $out"
[ ! -e e.db ] || fail "a failed migrate made the target"
out=$("$MNEMO" migrate --from a.db --to a.db 2>&1) && fail "the same store twice"
[[ $out == *"both the source and the target"* ]] || fail "same store: $out"
out=$("$MNEMO" migrate --from a.db 2>&1) && fail "no --to"
[[ $out == *"needs --from LOCATION and --to LOCATION"* ]] || fail "usage: $out"
[ ! -e missing.db ] || fail "the missing source was made"

[ "$failures" -eq 0 ] || {
    echo "$failures check(s) failed" >&2
    exit 1
}
echo "cli_migrate: all checks passed"
