#!/usr/bin/env bash
# The federated read benchmark (BENCHMARKS.md): the official everything server's `echo` over
# stdio, called directly through Marquee's MCP client and as a federated tool through the
# governance core, in the same run (crates/tools/examples/federated_bench.rs). Needs node and
# the everything server scripts/test.sh installs. Prints one JSON line.
#
#   scripts/bench-federated.sh [CALLS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SHARED=${MARQUEE_SHARED:-$ROOT/../shared}
MCP_CLIENTS_HOME=${MCP_CLIENTS_HOME:-$(bash -c '. "$1/mcp-clients/env.sh" >/dev/null 2>&1; echo "$MCP_CLIENTS_HOME"' _ "$SHARED")}
entry="$MCP_CLIENTS_HOME/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$entry" ] || { echo "the everything server is not installed ($entry); run scripts/test.sh's setup" >&2; exit 2; }
cargo run --quiet --profile bench -p tools --example federated_bench -- "$(command -v node)" "$entry" "${1:-2000}"
