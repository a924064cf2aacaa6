#!/usr/bin/env bash
# run.sh - `make run`: build quietly, then mnemo's main job on this
# repository: create the store, index the code (only what changed since the
# last run), show the index's state and the most central files, then answer
# a question about this repository the way an agent asks it: the one-call
# context, in a budget of 1,200 tokens.
#   scripts/run.sh [BUILD_DIR]     (default: build)
# The build (`make build`: dependencies, CMake) writes hundreds of lines;
# they go to BUILD_DIR/make-run.log and one line says how it went. When the
# build fails, the whole log is printed and run.sh exits with its status.
# $MAKE (set by make) runs the build; `make` when called by hand.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build}
case $build in
-*)
    echo "usage: scripts/run.sh [BUILD_DIR]" >&2
    exit 2
    ;;
esac
mkdir -p "$build"
log=$build/make-run.log
start=$SECONDS
rc=0
"${MAKE:-make}" --no-print-directory build BUILD="$build" >"$log" 2>&1 </dev/null || rc=$?
if [ "$rc" != 0 ]; then
    cat "$log" >&2
    echo "run: the build failed (exit $rc); the log above is also in $log" >&2
    exit "$rc"
fi
case $build in
/*) bin=$build/mnemo ;;
*) bin=$PWD/$build/mnemo ;;
esac
[ -x "$bin" ] || {
    echo "run: the build made no $build/mnemo (log: $log)" >&2
    exit 1
}
echo "built $build/mnemo in $((SECONDS - start)) s (the build's output: $log)"

"$bin" --version
"$bin" init
"$bin" index
"$bin" status
echo "the most central source files:"
"$bin" files --role source --sort rank --limit 8
question="how does an incremental index decide which edges to resolve again?"
echo
echo "mnemo context \"$question\" --max-tokens 1200"
echo
"$bin" context "$question" --max-tokens 1200
