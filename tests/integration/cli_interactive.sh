#!/usr/bin/env bash
# cli_interactive.sh - the paths of mnemo that talk to a person: `mnemo save`
# asking for each field on a terminal, `mnemo edit ID` opening the memory
# in $EDITOR, and `mnemo save -` reading the body from stdin.
#
# The terminal is a pseudo-terminal run by tests/integration/pty_driver.c
# ($MNEMO_PTY_DRIVER), which answers the prompts. The editors are small
# shell scripts that change the YAML file they are given as a person would.
# Every change is checked through `mnemo show --json`; every refused or
# cancelled edit must leave `mnemo export` byte-identical. The file edited,
# and kept after a refusal, is 0600 (it holds the memory's text).
# shellcheck disable=SC2016 # the editor scripts expand $f when they run
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
PTY=${MNEMO_PTY_DRIVER:?MNEMO_PTY_DRIVER must name the pty_driver helper}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-interactive.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp/tmp
mkdir -p "$HOME" "$TMPDIR"
unset MNEMO_DB VISUAL EDITOR MNEMO_PROJECT
db=$tmp/store.db
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# mn ARGS...: mnemo on the test store; stdout to $tmp/out, stderr to $tmp/err, code to $rc.
mn() {
    set +e
    "$MNEMO" --db "$db" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    if grep -Eq "Sanitizer|runtime error:" "$tmp/err"; then
        fail "mnemo $*: a sanitizer report"
        cat "$tmp/err" >&2
    fi
}

show_output() {
    echo "--- stdout:" >&2
    head -c 2000 "$tmp/out" >&2 || true
    echo "--- stderr:" >&2
    head -c 2000 "$tmp/err" >&2 || true
}

expect_rc() {
    if [ "$rc" -ne "$1" ]; then
        fail "$2: exit code $rc, expected $1"
        show_output
    fi
}

# json_check WHAT FILE EXPR: the JavaScript EXPR is true of d, the JSON in FILE.
json_check() {
    if ! node -e '
        const fs = require("fs");
        const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        const ok = (0, eval)("(d) => (" + process.argv[2] + ")")(d);
        if (!ok) { console.error("not true: " + process.argv[2] + "\nof: " + JSON.stringify(d)); process.exit(1); }
    ' "$2" "$3"; then
        fail "$1"
    fi
}

# memory ID: `show --json` of ID into $tmp/mem.json
memory() {
    mn --json show "$1"
    expect_rc 0 "show $1"
    cp "$tmp/out" "$tmp/mem.json"
}

snapshot() {
    "$MNEMO" --db "$db" export >"$tmp/$1"
}

# ---- save, asked field by field on a terminal ------------------------------
set +e
"$PTY" "expect:Kind [fact]" "send:gotcha" \
    "expect:Title: " "send:Sessions expire when the delay is nil" \
    "expect:Body (end with a line holding only '.', or Ctrl-D):" \
    "send:The cart session used delay=None" "send:  and expired at once." "send:." \
    "expect:Situation: " "send:checkout after idle" "expect:Solution: " "send:default the delay" \
    "expect:What failed: " "send:" \
    "expect:Tags (comma-separated, optional): " "send:a,b" \
    "expect:Trigger keywords (comma-separated, optional): " "send:k1, k2" \
    -- "$MNEMO" --db "$db" save >"$tmp/pty.out" 2>"$tmp/pty.err"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    fail "interactive save: exit code $rc"
    cat "$tmp/pty.out" "$tmp/pty.err" >&2
fi
id=$(sed -n 's/.*created \([0-9A-Z]\{26\}\) (gotcha, L1, active): Sessions expire when the delay is nil.*/\1/p' "$tmp/pty.out" | tr -d '\r')
if [ -z "$id" ]; then
    fail "interactive save did not print 'created ID (gotcha, L1, active): TITLE'"
    cat "$tmp/pty.out" >&2
    exit 1
fi
memory "$id"
json_check "interactive save stored the answers" "$tmp/mem.json" '
    d.memory.kind === "gotcha" && d.memory.title === "Sessions expire when the delay is nil" &&
    d.memory.body === "The cart session used delay=None\n  and expired at once." &&
    JSON.stringify(d.memory.scope.tags) === "[\"a\",\"b\"]" &&
    JSON.stringify(d.memory.context.trigger_keywords) === "[\"k1\",\"k2\"]" &&
    d.memory.context.situation === "checkout after idle" &&
    d.memory.context.solution === "default the delay" && !("what_failed" in d.memory.context) &&
    d.memory.provenance.source === "manual" && d.memory.status === "active"'

# Enter keeps the default kind (fact); Ctrl-D also ends the body.
set +e
"$PTY" "expect:Kind [fact]" "send:" "expect:Title: " "send:" \
    "expect:Body" "send:First line becomes the title" "send:second line" "eof" \
    -- "$MNEMO" --db "$db" save >"$tmp/pty.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 0 ] || { fail "interactive save ended by Ctrl-D: exit code $rc"; cat "$tmp/pty.out" >&2; }
id2=$(sed -n 's/.*created \([0-9A-Z]\{26\}\) (fact, .*/\1/p' "$tmp/pty.out" | tr -d '\r')
if [ -n "$id2" ]; then
    memory "$id2"
    json_check "default kind and a title derived from the body" "$tmp/mem.json" '
        d.memory.kind === "fact" && d.memory.title === "First line becomes the title" &&
        d.memory.body === "First line becomes the title\nsecond line" && !d.memory.scope'
else
    fail "interactive save ended by Ctrl-D printed no 'created' line"
    cat "$tmp/pty.out" >&2
fi

# Input ending before the title: nothing saved, exit 1.
snapshot before.jsonl
set +e
"$PTY" "expect:Kind [fact]" "eof" -- "$MNEMO" --db "$db" save >"$tmp/pty.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "interactive save cut short: exit code $rc, expected 1"
grep -q "nothing saved" "$tmp/pty.out" || fail "interactive save cut short did not say 'nothing saved'"
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "interactive save cut short changed the store"

# A kind the schema refuses: exit 2, one error line, nothing saved.
set +e
"$PTY" "expect:Kind [fact]" "send:wisdom" "expect:Title: " "send:t" "expect:Body" "send:." \
    "expect:Situation" "send:" "expect:Solution" "send:" "expect:What failed" "send:" \
    "expect:Tags" "send:" "expect:keywords" "send:" \
    -- "$MNEMO" --db "$db" save >"$tmp/pty.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "interactive save of kind 'wisdom': exit code $rc, expected 2"
grep -q "mnemo: error: save: field 'kind': must be one of" "$tmp/pty.out" ||
    fail "interactive save of kind 'wisdom' did not name the field"
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "a refused interactive save changed the store"

# ---- save - : the body from stdin ------------------------------------------
set +e
printf 'body from stdin\nsecond line\n\n' | "$MNEMO" --db "$db" --json save --title T --tag stdin - \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect_rc 0 "save - from stdin"
sid=$(node -pe 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).id' "$tmp/out")
memory "$sid"
json_check "save - keeps the stdin text as the body (trailing newlines dropped)" "$tmp/mem.json" '
    d.memory.title === "T" && d.memory.body === "body from stdin\nsecond line" &&
    d.memory.scope.tags[0] === "stdin"'
# `echo body | mnemo save --title T -`, the form of the README
set +e
echo body | "$MNEMO" --db "$db" save --title T2 - >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
expect_rc 0 "echo body | mnemo save --title T2 -"
grep -q "^created [0-9A-Z]\{26\} (fact, L1, active): T2$" "$tmp/out" || fail "save - printed: $(cat "$tmp/out")"

# ---- edit ID in $EDITOR ----------------------------------------------------
mn --json save --kind gotcha --title "Edit me" --situation "the situation" --solution "the fix" \
    --tag a --keyword k1,k2 --confidence 0.8 $'body line 1\nbody line 2'
expect_rc 0 "save the memory to edit"
eid=$(node -pe 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).id' "$tmp/out")

editor() { # editor NAME BODY: an editor script $tmp/NAME.sh running BODY with the file in $f
    printf '#!/bin/sh\nf="$1"\n%s\n' "$2" >"$tmp/$1.sh"
    chmod +x "$tmp/$1.sh"
}

# What the editor is given: a comment naming the memory, then the editable fields,
# in a file only its owner can read (0600 under umask 022: it holds the memory's text).
editor look 'cp "$f" "'"$tmp"'/seen.yaml"; stat -c %a "$f" >"'"$tmp"'/seen.mode"'
saved_umask=$(umask)
umask 022
EDITOR=$tmp/look.sh mn edit "$eid"
umask "$saved_umask"
[ "$(cat "$tmp/seen.mode")" = 600 ] || fail "the edit file is mode $(cat "$tmp/seen.mode"), expected 600"
expect_rc 0 "edit with an editor that changes nothing"
grep -q "^unchanged $eid " "$tmp/out" || fail "an edit that changes nothing should print 'unchanged': $(cat "$tmp/out")"
grep -q "^# mnemo: editing memory $eid\." "$tmp/seen.yaml" || fail "the edit file does not name the memory"
for key in '^title: Edit me$' '^  situation: the situation$' '^  tags:$' '^body: |' '^confidence: 0.8$'; do
    grep -q "$key" "$tmp/seen.yaml" || fail "the edit file lacks /$key/"
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "edit left files in \$TMPDIR: $(ls "$TMPDIR")"

# A person changes the title, deletes the situation line and adds a tag.
editor change 'sed -i -e "s/^title: Edit me$/title: Edited title/" -e "/^  situation:/d" -e "/^  - a$/a\\  - added" "$f"'
EDITOR=$tmp/change.sh mn edit "$eid"
expect_rc 0 "edit in \$EDITOR"
grep -q "^updated $eid (gotcha, L1, active): Edited title; changed title, context.situation, scope.tags$" "$tmp/out" ||
    fail "edit printed: $(cat "$tmp/out")"
memory "$eid"
json_check "the edit was applied, and only it" "$tmp/mem.json" '
    d.memory.title === "Edited title" && !("situation" in d.memory.context) &&
    d.memory.context.solution === "the fix" &&
    JSON.stringify(d.memory.context.trigger_keywords) === "[\"k1\",\"k2\"]" &&
    JSON.stringify(d.memory.scope.tags) === "[\"a\",\"added\"]" &&
    d.memory.body === "body line 1\nbody line 2" && d.memory.confidence === 0.8 &&
    d.memory.kind === "gotcha"'
# $VISUAL wins over $EDITOR, as in git.
editor visual 'sed -i "s/^title: .*/title: From VISUAL/" "$f"'
VISUAL=$tmp/visual.sh EDITOR=$tmp/look.sh mn edit "${eid:0:12}"
expect_rc 0 "edit with \$VISUAL and an id prefix"
memory "$eid"
json_check "\$VISUAL was used" "$tmp/mem.json" 'd.memory.title === "From VISUAL"'

# Invalid YAML: refused, the store unchanged, the edit kept in a file that is named.
snapshot before.jsonl
editor broken 'printf "title: [unclosed\n" >>"$f"'
umask 022
EDITOR=$tmp/broken.sh mn edit "$eid"
umask "$saved_umask"
if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then fail "edit to invalid YAML: exit code $rc, expected 1 or 2"; fi
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "edit to invalid YAML: stderr is not one line"
[ -s "$tmp/out" ] && fail "edit to invalid YAML printed on stdout"
kept=$(sed -n 's/^mnemo: error: your edit is kept in \([^:]*\.yaml\): yaml: line [0-9]*.*/\1/p' "$tmp/err")
if [ -z "$kept" ]; then
    fail "edit to invalid YAML: the message does not say where the edit is kept: $(cat "$tmp/err")"
elif [ ! -f "$kept" ] || ! grep -q '^title: \[unclosed$' "$kept"; then
    fail "edit to invalid YAML: '$kept' does not hold the edit"
else
    [ "$(stat -c %a "$kept")" = 600 ] || fail "edit to invalid YAML: '$kept' is mode $(stat -c %a "$kept"), expected 600"
    rm -f "$kept"
fi
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "edit to invalid YAML changed the store"

# Valid YAML the update refuses (an unknown kind): also kept, also unchanged.
editor badkind 'sed -i "s/^kind: gotcha$/kind: wisdom/" "$f"'
EDITOR=$tmp/badkind.sh mn edit "$eid"
expect_rc 2 "edit to kind 'wisdom'"
grep -q "^mnemo: error: your edit is kept in .*\.yaml: update: field 'kind': must be one of" "$tmp/err" ||
    fail "edit to kind 'wisdom': $(cat "$tmp/err")"
rm -f "$TMPDIR"/mnemo-edit-*.yaml
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "a refused edit changed the store"

# Emptying the file cancels.
editor empty ': >"$f"'
EDITOR=$tmp/empty.sh mn edit "$eid"
expect_rc 0 "edit cancelled by emptying the file"
grep -q "cancelled" "$tmp/err" || fail "emptying the file did not say 'cancelled': $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "a cancelled edit printed on stdout: $(cat "$tmp/out")"
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "a cancelled edit changed the store"

# An editor that fails: nothing changed, exit 1, nothing left behind.
editor quit 'exit 3'
EDITOR=$tmp/quit.sh mn edit "$eid"
expect_rc 1 "edit with a failing editor"
grep -q "^mnemo: error: .*the editor '$tmp/quit.sh' failed; nothing changed$" "$tmp/err" ||
    fail "failing editor: $(cat "$tmp/err")"
snapshot after.jsonl
cmp -s "$tmp/before.jsonl" "$tmp/after.jsonl" || fail "a failed editor changed the store"
[ -z "$(ls -A "$TMPDIR")" ] || fail "edit left files in \$TMPDIR: $(ls "$TMPDIR")"

# edit of an unknown id never starts the editor.
editor boom 'touch "'"$tmp"'/editor-ran"'
EDITOR=$tmp/boom.sh mn edit 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
expect_rc 1 "edit of an unknown id"
[ -e "$tmp/editor-ran" ] && fail "the editor ran for an unknown id"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "ok: interactive save, save -, edit in \$EDITOR"
