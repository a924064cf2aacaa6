#!/usr/bin/env bash
# mcp_valgrind.sh - the MCP server under valgrind's memcheck: `mnemo mcp`
# for a scripted session (tests/mcp/session.mjs: every default tool with
# valid and invalid arguments, resources, prompts, logging, ping,
# cancellation, malformed messages), then `mnemo serve` for the SDK client's
# HTTP checks (client.mjs http) and 4 concurrent clients x 25 calls: every
# request answered as expected, no leak, no invalid access, in any thread.
# Against the sanitizer build it skips: LeakSanitizer checks the same paths
# in mcp_stdio.sh and mcp_load.sh there.
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/deps.sh installs it)"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
if mcp_is_asan; then
    echo "skipping: $MNEMO is built with ASan, which covers leaks there"
    exit 0
fi
mcp_setup
mcp_fixture
node "$tmp/run/session.mjs" write >"$tmp/session.jsonl"
rc=0
(cd "$tmp/repo" && valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    "$MNEMO" mcp <"$tmp/session.jsonl" >"$tmp/out.jsonl" 2>"$tmp/err.txt") || rc=$?
if [ "$rc" != 0 ]; then
    echo "valgrind mnemo mcp exited $rc:"
    cat "$tmp/err.txt"
    exit 1
fi
node "$tmp/run/session.mjs" check <"$tmp/out.jsonl"
echo "valgrind: mnemo mcp clean"

# shellcheck disable=SC2054 # the commas belong to the options
vg=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99)
mcp_serve_start "${vg[@]}"
node "$tmp/run/client.mjs" http
node "$tmp/run/load.mjs" http 4 25
mcp_serve_stop
echo "valgrind: mnemo serve clean"
