#!/usr/bin/env bash
# make_run.sh - `make run` shows mnemo's output, not the build's: the build
# (scripts/run.sh runs `$MAKE build`) writes to BUILD/make-run.log and one
# line says it is built; a failed build prints its whole log and run.sh
# exits with the build's status. A stand-in for make (400 lines of output)
# and for the mnemo it builds keep this test fast; `make -n run` shows that
# the Makefile leaves the build to run.sh.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
src=${MNEMO_SOURCE_DIR:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-make-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*" >&2
    fails=$((fails + 1))
}

# a copy of the repository's scripts/ (run.sh works from the directory above its own)
mkdir -p "$tmp/repo/scripts"
cp "$src/scripts/run.sh" "$tmp/repo/scripts/"
cat >"$tmp/fake-make" <<'SH'
#!/usr/bin/env bash
# stands for `make build BUILD=dir`: a lot of output, then a mnemo, or a failure
for a; do case $a in BUILD=*) build=${a#BUILD=} ;; esac; done
for i in $(seq 1 400); do echo "[ $i%] Building C object CMakeFiles/x.dir/file$i.c.o"; done
if [ -n "${FAKE_FAIL:-}" ]; then
    echo "src/x.c:1:1: error: boom" >&2
    exit 2
fi
mkdir -p "$build"
printf '#!/bin/sh\necho "mnemo-ran: $*"\n' >"$build/mnemo"
chmod +x "$build/mnemo"
SH
chmod +x "$tmp/fake-make"

# ---- a build that works: one line about it, then mnemo's output ----
rc=0
(cd "$tmp" && MAKE=$tmp/fake-make repo/scripts/run.sh build >"$tmp/out" 2>"$tmp/err") || rc=$?
[ "$rc" = 0 ] || fail "run.sh exited $rc: $(cat "$tmp/err")"
grep -q "Building C object" "$tmp/out" "$tmp/err" && fail "the build's output was shown"
grep -q "^built build/mnemo in [0-9]* s (the build's output: build/make-run.log)$" "$tmp/out" ||
    fail "no line saying the build is done: $(head -3 "$tmp/out")"
grep -q "^mnemo-ran: context how does" "$tmp/out" || fail "mnemo's context was not run: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/out")" -lt 30 ] || fail "run.sh printed $(wc -l <"$tmp/out") lines"
[ "$(grep -c 'Building C object' "$tmp/repo/build/make-run.log")" = 400 ] ||
    fail "the log does not hold the build's output"

# ---- a build that fails: its whole log, and its status ----
rc=0
(cd "$tmp" && FAKE_FAIL=1 MAKE=$tmp/fake-make repo/scripts/run.sh build2 >"$tmp/out" 2>"$tmp/err") || rc=$?
[ "$rc" = 2 ] || fail "a failed build: run.sh exited $rc, not the build's 2"
[ "$(grep -c 'Building C object' "$tmp/err")" = 400 ] && grep -q "error: boom" "$tmp/err" ||
    fail "a failed build does not print its whole log"
grep -q "the build failed (exit 2)" "$tmp/err" || fail "a failed build is not named: $(tail -2 "$tmp/err")"
grep -q "mnemo-ran" "$tmp/out" && fail "mnemo ran after a failed build"

# ---- the Makefile leaves the build to run.sh (it would print before it) ----
make -s -n -C "$src" run BUILD="$tmp/b" >"$tmp/dry" 2>&1 || fail "make -n run failed: $(cat "$tmp/dry")"
grep -q "scripts/run.sh $tmp/b" "$tmp/dry" || fail "make run does not call scripts/run.sh: $(cat "$tmp/dry")"
grep -Eq "cmake|deps.sh" "$tmp/dry" && fail "make run builds before run.sh: $(cat "$tmp/dry")"

[ "$fails" = 0 ] || exit 1
echo "make_run: the build's output in its log, one line shown; a failed build's log printed whole"
