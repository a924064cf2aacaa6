#!/usr/bin/env bash
# mcp_lifecycle.sh - the life cycle of a memory (citations and stale
# memories, supersession, expiry and gc) through the official MCP SDK
# client on `mnemo mcp`: tests/mcp/lifecycle.mjs on the fixture of
# tests/mcp/fixture.sh, with mcp.tools offering the life cycle's tools.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
(cd "$tmp/repo" && "$MNEMO" config set mcp.tools \
    "context,recall,save,search,feedback,forget,link,index,stale,revalidate,gc" >/dev/null)
node "$tmp/run/lifecycle.mjs"
