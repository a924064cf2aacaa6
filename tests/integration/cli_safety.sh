#!/usr/bin/env bash
# cli_safety.sh - the CLI loses nothing it is given and prints nothing a
# terminal would act on:
#   - flags and --context-json / --scope-json merge (either order); a key
#     given both ways with different values is refused, nothing saved;
#   - a NUL byte in stdin (save -, call -) or in a file (import) is refused;
#   - --confidence nan / inf / -inf / 1e999 are refused (never a default);
#   - titles, bodies, tags, file paths and config values holding ESC
#     sequences, C1 controls (U+009B), BEL, CR and newlines are printed with
#     those bytes escaped, by every human-readable output: save, list, show,
#     search, context, recall, files, symbols, graph, status --files,
#     config get/list, forget, edit, and errors on stderr. A list row stays
#     one line whatever its title holds.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-safety.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home MNEMO_NOW_MS=
unset MNEMO_NOW_MS MNEMO_DB MNEMO_PROJECT
mkdir -p "$HOME"
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}
repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
mn() { "$MNEMO" "$@"; }
count() { mn --json list --deleted include | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).total)'; }
field() { # field ID JS-EXPR: a field of the memory, as JSON
    mn --json show "$1" | node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')).memory; console.log(JSON.stringify($2))"
}
saved_id() { node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).id)'; }

# ==== flags and --*-json merge =================================================
id=$(mn --json save --title "merge one" --keyword k1 --context-json '{"situation":"s1"}' body1 | saved_id)
[ "$(field "$id" 'd.context.trigger_keywords')" = '["k1"]' ] && [ "$(field "$id" 'd.context.situation')" = '"s1"' ] ||
    fail "--keyword with --context-json: $(field "$id" 'd.context')"
id=$(mn --json save --title "merge two" --context-json '{"situation":"s2","solution":"x"}' --error "E1" --situation s2 body2 | saved_id)
[ "$(field "$id" '[d.context.situation, d.context.solution, d.context.error_messages]')" = '["s2","x",["E1"]]' ] ||
    fail "--context-json before the flags: $(field "$id" 'd.context')"
id=$(mn --json save --title "merge three" --tag t1 --scope-json '{"paths":["src/a.c"]}' body3 | saved_id)
[ "$(field "$id" '[d.scope.tags, d.scope.paths]')" = '[["t1"],["src/a.c"]]' ] ||
    fail "--tag with --scope-json: $(field "$id" 'd.scope')"
before=$(count)
for args in "--keyword k1 --context-json {\"trigger_keywords\":[\"k2\"]}" \
    "--context-json {\"situation\":\"a\"} --situation b" \
    "--tag t1 --scope-json {\"tags\":[\"t2\"]}" \
    "--title one --title two" \
    "--context-json {\"situation\":\"a\"} --context-json {\"situation\":\"b\"}"; do
    read -r -a a <<<"$args"
    rc=0
    mn save "${a[@]}" --title conflict body >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "given twice with different values" "$tmp/err" ||
        fail "a conflict ($args) is not one clear usage error (exit $rc): $(cat "$tmp/err")"
done
[ "$(count)" = "$before" ] || fail "a refused save stored something"

# ==== NUL bytes ==================================================================
before=$(count)
rc=0
printf 'abc\0def' | mn save - 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "NUL byte" "$tmp/err" || fail "save - with a NUL byte: exit $rc: $(cat "$tmp/err")"
rc=0
printf '{"body":"ab\0c"}' | mn call save - 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "NUL byte" "$tmp/err" || fail "call save - with a NUL byte: exit $rc: $(cat "$tmp/err")"
printf '{"kind":"fact","title":"x","body":"y"}\n\0\n' >"$tmp/nul.jsonl"
rc=0
mn import "$tmp/nul.jsonl" 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "NUL byte" "$tmp/err" || fail "import of a file with a NUL byte: exit $rc: $(cat "$tmp/err")"
[ "$(count)" = "$before" ] || fail "NUL input stored something"

# ==== non-finite numbers =========================================================
for v in nan NaN inf -inf infinity 1e999; do
    rc=0
    mn save --confidence "$v" --title "conf $v" body 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] && grep -q "finite number" "$tmp/err" || fail "--confidence $v: exit $rc: $(cat "$tmp/err")"
    rc=0
    mn config set memory.review_threshold "$v" 2>"$tmp/err" || rc=$?
    [ "$rc" = 2 ] || fail "config set memory.review_threshold $v: exit $rc"
done
[ "$(count)" = "$before" ] || fail "a non-finite confidence stored something"

# ==== what a terminal would act on is escaped ====================================
E=$'\e'
nasty_title="red ${E}[31mRED${E}[0m osc ${E}]0;pwned"$'\a'" csi "$'\xc2\x9b'"2J cr"$'\r'"over"
nasty_body="body ${E}[2J clear"$'\n'"second line"$'\b'" with a bell"$'\a'
nasty_tag="tag${E}[5m"
printf 'def handler():\n    return 1\n' >"app.py"
printf 'from app import handler\n' >"${E}[31mevil.py"
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
mn index >/dev/null 2>&1
printf 'x = 1\n' >"new${E}[2Jfile.py"
mn config set user.name "dev${E}[41m" >/dev/null
mn save --title "$nasty_title" --tag "$nasty_tag" --keyword handler,red "$nasty_body" >"$tmp/save.out" 2>&1
id=$(mn --json list --limit 1 | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).memories[0].id)')
run() { # run NAME ARGS...: stdout and stderr of mnemo, into $tmp/NAME.out
    local name=$1
    shift
    mn "$@" >"$tmp/$name.out" 2>&1 || true
}
run list list
run show show "$id"
run search search "red handler"
run context context "red handler" --max-tokens 800
run recall recall "red handler"
run files files
run symbols symbols handler
run graph graph "${E}[31mevil.py"
run status status --files
run config-get config get user.name
run config-list config list
run error show "nope${E}[31m"
run edit edit "$id" --solution "sol${E}[7m"
run forget forget "$id"
# a checker: no C0 control but newline and tab, no DEL, no C1 (U+0080-U+009F), valid UTF-8
cat >"$tmp/clean.js" <<'JS'
const fs = require("fs");
let bad = 0;
for (const f of process.argv.slice(2)) {
  const b = fs.readFileSync(f);
  const why = [];
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if ((c < 0x20 && c !== 0x0a && c !== 0x09) || c === 0x7f) why.push(`byte 0x${c.toString(16)} at ${i}`);
    if (c === 0xc2 && b[i + 1] >= 0x80 && b[i + 1] <= 0x9f) why.push(`C1 U+00${b[i + 1].toString(16)} at ${i}`);
  }
  try { new TextDecoder("utf-8", { fatal: true }).decode(b); } catch { why.push("invalid UTF-8"); }
  if (why.length) { bad++; console.error(`FAIL: ${f.replace(/.*\//, "")}: ${why.slice(0, 5).join(", ")}`); }
}
process.exit(bad ? 1 : 0);
JS
node "$tmp/clean.js" "$tmp"/*.out || fail "raw control characters reached the terminal (above)"
grep -qF '\x1b[31mRED\x1b[0m' "$tmp/list.out" || fail "list does not show the escape visibly: $(cat "$tmp/list.out")"
grep -qF '\u009b2J' "$tmp/list.out" || fail "list does not show the C1 CSI visibly"
# the save pipeline makes white space regular (a CR in a title becomes a space); else it shows escaped
grep -qE 'cr(\\r| )over' "$tmp/save.out" || fail "save does not show the CR visibly: $(cat "$tmp/save.out")"
[ "$(grep -c . "$tmp/list.out")" = "$(mn --json list --deleted include | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).memories.length)')" ] ||
    fail "a list row is not one line: $(cat "$tmp/list.out")"
grep -qF '\x1b[31mevil.py' "$tmp/files.out" || fail "files does not show the path visibly: $(cat "$tmp/files.out")"
grep -qF 'new\x1b[2Jfile.py' "$tmp/status.out" || fail "status --files does not name the new file visibly: $(cat "$tmp/status.out")"
grep -qF 'dev\x1b[41m' "$tmp/config-get.out" || fail "config get does not show the value visibly: $(cat "$tmp/config-get.out")"
grep -qF 'nope\x1b[31m' "$tmp/error.out" || fail "an error does not show its input visibly: $(cat "$tmp/error.out")"
grep -qF 'second line' "$tmp/show.out" || fail "show lost the body: $(cat "$tmp/show.out")"

[ "$fails" = 0 ] || exit 1
echo "cli_safety: merges kept, conflicts, NUL and non-finite numbers refused, every output escaped"
