#!/usr/bin/env bash
# bench_mcp.sh - latency of mnemo's MCP tools through the official SDK
# client: p50/p95 per tool call on one stdio session (`mnemo mcp`) and with
# concurrent streamable HTTP sessions (`mnemo serve`), next to the ping round
# trip of the same sessions (the transport's floor), on the small fixture
# project of tests/mcp/fixture.sh. Same program as the test
# tests/integration/mcp_load.sh (tests/mcp/load.mjs), which asserts no errors;
# here the numbers are the point. HTTP is measured twice: with the SDK's
# StreamableHTTPClientTransport (what an agent sees, client cost included)
# and with a bare keep-alive node:http client (closer to the server's own
# latency).
#
#   bench/bench_mcp.sh [--mnemo BIN] [--calls N] [--clients C] [--per-client N]
#
# Defaults: BIN = build-bench/mnemo, else build/mnemo; 1000 stdio calls;
# 8 HTTP clients x 200 calls. Needs the MCP test tools (scripts/deps.sh).
set -euo pipefail
MNEMO_SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
calls=1000 clients=8 per=200 bin=
while [ $# -gt 0 ]; do
    case $1 in
    --mnemo) bin=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --per-client) per=$2; shift 2 ;;
    *) echo "usage: bench/bench_mcp.sh [--mnemo BIN] [--calls N] [--clients C] [--per-client N]" >&2; exit 2 ;;
    esac
done
if [ -z "$bin" ]; then
    for b in "$MNEMO_SOURCE_DIR/build-bench/mnemo" "$MNEMO_SOURCE_DIR/build/mnemo"; do
        [ -x "$b" ] && { bin=$b; break; }
    done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "bench_mcp: no mnemo binary (make bench, or --mnemo BIN)" >&2
    exit 2
fi
MNEMO=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
export MNEMO MNEMO_SOURCE_DIR
# shellcheck source-path=SCRIPTDIR source=../tests/mcp/fixture.sh
. "$MNEMO_SOURCE_DIR/tests/mcp/fixture.sh"
mcp_setup
mcp_fixture
echo "bench_mcp: $MNEMO, $(nproc) cores"
node "$tmp/run/load.mjs" stdio "$calls"
mcp_serve_start
node "$tmp/run/load.mjs" http "$clients" "$per"
node "$tmp/run/load.mjs" http-raw "$clients" "$per"
mcp_serve_stop
