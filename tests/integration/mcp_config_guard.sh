#!/usr/bin/env bash
# mcp_config_guard.sh - through MCP (stdio and streamable HTTP, the official
# SDK client) the config tool cannot change where the project's text is sent
# (embed.url, embed.provider http), the key, serve.* or mcp.tools: each is an
# isError result, and a listener the agent tried to point embed.url at gets
# nothing from the saves and searches that follow. The command line still
# can (tests/mcp/config_guard.mjs).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
(cd "$tmp/repo" && "$MNEMO" config set mcp.tools all >/dev/null)
node "$tmp/run/config_guard.mjs" stdio
mcp_serve_start
node "$tmp/run/config_guard.mjs" http
mcp_serve_stop
