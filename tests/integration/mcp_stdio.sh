#!/usr/bin/env bash
# mcp_stdio.sh - `mnemo mcp` driven by the official MCP TypeScript SDK client
# (StdioClientTransport, pinned in tests/mcp/package-lock.json) on a small
# indexed repository with saved memories: tests/mcp/client.mjs checks
# initialize, tools (schemas compiled by ajv, every tool with valid and
# invalid arguments), resources, prompts, errors and the older protocol
# versions; the server must exit 0 at end of input (LeakSanitizer reports
# there under the sanitizer build).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
node "$tmp/run/client.mjs" stdio
