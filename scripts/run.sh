#!/usr/bin/env bash
# run.sh - `make run`: mnemo's main job on this repository, as far as it
# exists: create the store, index the code (only what changed since the last
# run), and show the index's state, the most central files and the memories.
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
"$bin" list
