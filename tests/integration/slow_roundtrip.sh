#!/usr/bin/env bash
# slow_roundtrip.sh - the round trip of cli_roundtrip.sh at the size the issue
# asks for: 10,000 memories with every field set, export -> import -> export
# byte-identical through JSON Lines, YAML, both crossed, and JSON. Labelled
# slow (its name starts with slow_), so only the plain build runs it; the
# sanitizer run has cli_roundtrip.sh with 300 memories.
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"
export ROUNDTRIP_N=${ROUNDTRIP_N:-10000}
exec bash "$(dirname "${BASH_SOURCE[0]}")/cli_roundtrip.sh"
