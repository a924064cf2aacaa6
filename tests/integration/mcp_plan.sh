#!/usr/bin/env bash
# mcp_plan.sh - the file plan as an agent's tool (plan_files), through the
# official MCP SDK client on `mnemo mcp`: tests/mcp/plan.mjs on the fixture
# of tests/mcp/fixture.sh, with mcp.tools offering plan_files.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
(cd "$tmp/repo" && "$MNEMO" config set mcp.tools "context,search,plan_files" >/dev/null)
node "$tmp/run/plan.mjs"
