#!/usr/bin/env bash
# cli_new_user.sh - what a new user met first, checked as they would see it:
#   - `list` shows the newest first (the last saved or changed), a page at a
#     time with --limit and --offset, and says how to see the next page;
#   - `status --files` names the stale, new and removed files;
#   - `--help` of mnemo and of every command: no line over 78 columns, and
#     the one-line summaries of `mnemo --help` are whole sentences (never
#     cut inside "serve.*" or a parenthesis).
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-newuser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS
mkdir -p "$HOME"
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
mn() { "$MNEMO" "$@"; }
saved_id() { node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).id)'; }

# ==== list: newest first, paged ==================================================
db=$tmp/list.db
ids=()
for i in 1 2 3 4 5; do
    ids+=("$(mn --db "$db" --json save --title "memory number $i" "body $i" | saved_id)")
done
mn --db "$db" list >"$tmp/out"
[ "$(head -1 "$tmp/out" | cut -c1-26)" = "${ids[4]}" ] && [ "$(sed -n 5p "$tmp/out" | cut -c1-26)" = "${ids[0]}" ] ||
    fail "list is not newest first: $(cat "$tmp/out")"
mn --db "$db" list --limit 2 >"$tmp/out"
[ "$(head -1 "$tmp/out" | cut -c1-26)" = "${ids[4]}" ] && [ "$(sed -n 2p "$tmp/out" | cut -c1-26)" = "${ids[3]}" ] &&
    grep -q '^-- 2 of 5 (more with --offset 2)$' "$tmp/out" || fail "list --limit 2: $(cat "$tmp/out")"
mn --db "$db" list --limit 2 --offset 2 >"$tmp/out"
[ "$(head -1 "$tmp/out" | cut -c1-26)" = "${ids[2]}" ] && [ "$(sed -n 2p "$tmp/out" | cut -c1-26)" = "${ids[1]}" ] &&
    grep -q '^-- 2 of 5 (more with --offset 4)$' "$tmp/out" || fail "list --limit 2 --offset 2: $(cat "$tmp/out")"
mn --db "$db" list --offset 4 >"$tmp/out"
[ "$(head -1 "$tmp/out" | cut -c1-26)" = "${ids[0]}" ] && grep -q '^-- 1 of 5 (the last page)$' "$tmp/out" ||
    fail "list --offset 4 (the last page, so no 'more'): $(cat "$tmp/out")"
# an edited memory is the newest
mn --db "$db" edit "${ids[0]}" --title "memory number 1, edited" >/dev/null
[ "$(mn --db "$db" list --limit 1 | head -1 | cut -c1-26)" = "${ids[0]}" ] || fail "an edited memory is not listed first"

# ==== status --files ===============================================================
repo=$tmp/repo
mkdir -p "$repo/src"
cd "$repo"
git init -q
for f in keep stale gone; do printf 'def %s():\n    return 1\n' "$f" >"src/$f.py"; done
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
mn index >/dev/null 2>&1
printf '# changed\n' >>src/stale.py
rm src/gone.py
printf 'def fresh():\n    pass\n' >src/added.py
printf '\0\1\2binary' >src/blob.bin
mn status --files >"$tmp/out" 2>&1 || true
grep -q '1 fresh, 1 stale, 1 new, 1 removed' "$tmp/out" || fail "status --files counts: $(cat "$tmp/out")"
for want in 'stale (changed since indexed):' '  src/stale.py' 'new (not indexed yet):' '  src/added.py' \
    'removed (gone from the tree):' '  src/gone.py'; do
    grep -qxF -- "$want" "$tmp/out" || fail "status --files does not say '$want': $(cat "$tmp/out")"
done
grep -q 'blob.bin\|keep.py' "$tmp/out" && fail "status --files names a binary or a fresh file: $(cat "$tmp/out")"
mn --json status --files | node -e '
    const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const ok = JSON.stringify([d.stale_files, d.new_files, d.removed_files]) ===
        JSON.stringify([["src/stale.py"], ["src/added.py"], ["src/gone.py"]]) && d.stale === 1 && d.fresh === 1;
    if (!ok) { console.error(JSON.stringify(d)); process.exit(1); }' || fail "status --files --json"
mn status >"$tmp/out" 2>&1 || true
grep -q 'src/stale.py' "$tmp/out" && fail "status without --files lists files"
grep -q -- '--files names the files' "$tmp/out" || fail "status does not point to --files: $(cat "$tmp/out")"
cd "$tmp"

# ==== --help: whole words, whole sentences =======================================
mn --help >"$tmp/help.main"
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/help.main" | grep -o '^  [a-z]\+' | tr -d ' ')
[ "$(echo "$cmds" | wc -w)" -ge 20 ] || fail "mnemo --help lists too few commands: $cmds"
for c in $cmds; do
    mn "$c" --help >"$tmp/help.$c" || fail "mnemo $c --help failed"
done
cat >"$tmp/check.js" <<'JS'
// every line of every help at most 78 columns; each command's summary in
// `mnemo --help` (its continuation lines joined) a whole sentence: balanced
// brackets, and the start of that command's own summary in its --help
const fs = require("fs");
const dir = process.argv[2];
let bad = 0;
const say = (m) => { bad++; console.error("FAIL: " + m); };
for (const f of fs.readdirSync(dir).filter((f) => f.startsWith("help."))) {
  fs.readFileSync(`${dir}/${f}`, "utf8").split("\n").forEach((l, i) => {
    if ([...l].length > 78) say(`${f} line ${i + 1} is ${[...l].length} columns: ${l}`);
  });
}
const main = fs.readFileSync(`${dir}/help.main`, "utf8").split("\n");
const rows = {};
let cur = null;
for (const l of main.slice(main.indexOf("commands:") + 1)) {
  if (!l.trim()) break;
  const m = /^  ([a-z]+) +(.*)$/.exec(l);
  if (m && l[2] !== " ") rows[(cur = m[1])] = m[2];
  else if (cur) rows[cur] += " " + l.trim();
}
for (const [c, s] of Object.entries(rows)) {
  const open = (s.match(/[([{]/g) || []).length, close = (s.match(/[)\]}]/g) || []).length;
  if (open !== close) say(`mnemo --help: the summary of ${c} is cut: "${s}"`);
  const own = fs.readFileSync(`${dir}/help.${c}`, "utf8").split("\n\n")[1].replace(/\s+/g, " ");
  if (!own.startsWith(s)) say(`mnemo --help: the summary of ${c} is not the start of its own: "${s}" / "${own.slice(0, 120)}"`);
}
process.exit(bad ? 1 : 0);
JS
node "$tmp/check.js" "$tmp" || fail "help text (above)"

[ "$fails" = 0 ] || exit 1
echo "cli_new_user: list newest first and paged, status --files names files, help wrapped at whole words"
