#!/usr/bin/env bash
# mcp_load.sh - 1,000 sequential tool calls on one `mnemo mcp` session and 8
# concurrent streamable HTTP clients x 200 calls on `mnemo serve`, through
# the official SDK client (tests/mcp/load.mjs): no error of any kind, the
# servers exit cleanly (LeakSanitizer under the sanitizer build). The p50/p95
# it prints are information, not assertions (timing belongs in bench/:
# bench/bench_mcp.sh).
#
# MNEMO_MCP_LOAD_CALLS (1000), MNEMO_MCP_LOAD_CLIENTS (8) and
# MNEMO_MCP_LOAD_PER_CLIENT (200) change the counts.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
node "$tmp/run/load.mjs" stdio "${MNEMO_MCP_LOAD_CALLS:-1000}"
mcp_serve_start
node "$tmp/run/load.mjs" http "${MNEMO_MCP_LOAD_CLIENTS:-8}" "${MNEMO_MCP_LOAD_PER_CLIENT:-200}"
mcp_serve_stop
