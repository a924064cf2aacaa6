#!/usr/bin/env bash
# run.sh - `make run`: mnemo's main job on this repository: create the
# store, index the code (only what changed since the last run), show the
# index's state and the most central files, then answer a question about
# this repository the way an agent asks it: the one-call context, in a
# budget of 1,200 tokens.
#   scripts/run.sh BUILD/mnemo
set -euo pipefail

[ $# -ge 1 ] || {
    echo "usage: scripts/run.sh PATH/TO/mnemo" >&2
    exit 2
}
# Resolve the binary before leaving the caller's directory.
bin=$1
case $bin in
/*) ;;
*) bin=$PWD/$bin ;;
esac
[ -x "$bin" ] || {
    echo "run: '$1' is not an executable: build it first (make build)" >&2
    exit 1
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
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
