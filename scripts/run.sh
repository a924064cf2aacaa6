#!/usr/bin/env bash
# run.sh - `make run`: show that the freshly built mnemo works on this
# repository: its version, then `init` and `list` in the repository root.
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
"$bin" --version && "$bin" init && "$bin" list
