#!/usr/bin/env bash
# mcp_review.sh - the review queue as an agent's tool, through the official
# MCP SDK client on `mnemo mcp`: tests/mcp/review.mjs on the fixture of
# tests/mcp/fixture.sh, with mcp.tools offering review.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
(cd "$tmp/repo" && "$MNEMO" config set mcp.tools "context,save,search,review" >/dev/null)
node "$tmp/run/review.mjs"
