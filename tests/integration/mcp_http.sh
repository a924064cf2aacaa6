#!/usr/bin/env bash
# mcp_http.sh - the checks of mcp_stdio.sh over streamable HTTP: `mnemo serve
# --port 0` on the fixture repository, the SDK's StreamableHTTPClientTransport
# on the /mcp URL it prints, plus raw HTTP checks (sessions, DELETE, 404, 405,
# Origin, MCP-Protocol-Version, SSE replies). The server must exit 0 on
# SIGTERM with no sanitizer report.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
mcp_serve_start
node "$tmp/run/client.mjs" http
mcp_serve_stop
