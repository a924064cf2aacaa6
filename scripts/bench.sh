#!/usr/bin/env bash
# bench.sh - `make bench`: run every bench_* program of a build in turn.
#   scripts/bench.sh BUILD_DIR [ARGS...]   ARGS are passed to each program.
# Each program reports its own ratios against an in-process baseline
# (CONVENTIONS.md); this script only sequences them and fails if one fails.
set -euo pipefail

[ $# -ge 1 ] || {
    echo "usage: scripts/bench.sh BUILD_DIR [ARGS...]" >&2
    exit 2
}
build=$1
shift

shopt -s nullglob
benches=()
for b in "$build"/bench/bench_*; do
    [ -f "$b" ] && [ -x "$b" ] && benches+=("$b")
done
if [ ${#benches[@]} -eq 0 ]; then
    echo "bench: no bench_* programs in '$build/bench'"
    exit 0
fi

failed=0
for b in "${benches[@]}"; do
    echo "== $(basename "$b")"
    rc=0
    "$b" "$@" || rc=$?
    if [ $rc -ne 0 ]; then
        echo "bench: $(basename "$b") failed (exit $rc)" >&2
        failed=1
    fi
done
exit $failed
