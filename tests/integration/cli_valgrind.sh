#!/usr/bin/env bash
# cli_valgrind.sh - the main CLI paths under valgrind's memcheck: no leak, no
# invalid access. valgrind and ASan do not mix, so against the sanitizer
# build this script skips: LeakSanitizer checks the same paths there.
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/deps.sh installs it)"; exit 1; }
if nm "$MNEMO" 2>/dev/null | grep -c __asan_init >/dev/null; then  # -c reads all: no SIGPIPE under pipefail
    echo "skipping: $MNEMO is built with ASan, which covers leaks there"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB
db=$tmp/m.db
vg() {
    valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
        "$MNEMO" --db "$db" "$@"
}
a=$(vg --json save "first memory" --tag a,b --keyword k --situation s --error "E: x" \
    --citations '{"path":"a.c","start_line":1,"end_line":2}' | sed -E 's/.*"id":"([^"]+)".*/\1/')
b=$(vg --json save --kind decision --title "second" --body "why" | sed -E 's/.*"id":"([^"]+)".*/\1/')
vg save "first memory" --tag c >/dev/null                      # merge path
vg link "$a" caused_by "$b" >/dev/null
vg link "$a" about file:a.c >/dev/null
vg show "$a" >/dev/null
vg list --tag a >/dev/null
vg edit "$a" --no-situation --add-tags d >/dev/null
vg export -o "$tmp/e.jsonl" 2>/dev/null
vg export --format yaml -o "$tmp/e.yaml" 2>/dev/null
vg --db "$tmp/n.db" import "$tmp/e.yaml" >/dev/null 2>&1 || { echo "import under valgrind failed"; exit 1; }
vg config set memory.excerpt_cap 100 >/dev/null
vg config list >/dev/null
vg forget "$b" >/dev/null
vg forget --purge "$b" >/dev/null
rc=0; vg call save '{"colour":1}' >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "expected exit 2 for bad input, got $rc"; exit 1; }
rc=0; vg show ZZZZZZ >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || { echo "expected exit 1 for an unknown id, got $rc"; exit 1; }
echo "valgrind: 17 commands clean"
