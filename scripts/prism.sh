#!/usr/bin/env bash
# The library and media-server adapters against Prism mocks of the vendors' own OpenAPI documents
# (Jellyfin's; Plex's community-written one):
# installs @stoplight/prism-cli with npm into a local prefix (idempotently), starts one static
# mock per document on a free 127.0.0.1 port (CommandResource's additionalProperties removed, the
# gap ../shared/specs/README.md describes), runs `cargo test -p adapters-library --test prism`
# and `cargo test -p adapters-media --test prism` with their URLs, stops each mock by its pid, and ends with "prism: N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-${MARQUEE_SHARED:-$ROOT/../shared}}
PRISM_VERSION=5.16.0
PRISM_HOME=${PRISM_HOME:-${CARGO_TARGET_DIR:-$ROOT/target}/prism}
PRISM=$PRISM_HOME/node_modules/.bin/prism
W=$(mktemp -d -t marquee-prism.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$W"; }
trap cleanup EXIT

if [ "$("$PRISM" --version 2>/dev/null)" != "$PRISM_VERSION" ]; then
  mkdir -p "$PRISM_HOME"
  npm install --no-audit --no-fund --loglevel=error --prefix "$PRISM_HOME" \
    "@stoplight/prism-cli@$PRISM_VERSION" >/dev/null || { echo "prism: 0 passed, 1 failed (npm install)"; exit 1; }
fi

[ -f "$SHARED/specs/radarr-v3.openapi.json" ] || { echo "no vendor documents in $SHARED/specs (set SHARED)"; echo "prism: 0 passed, 1 failed"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# mock VAR DOCUMENT: starts a static mock of DOCUMENT and exports its URL as VAR.
mock() {
  local var=$1 doc=$2 port
  port=$(free_port)
  jq 'del(.components.schemas.CommandResource.additionalProperties)' "$SHARED/specs/$doc" > "$W/$doc"
  "$PRISM" mock --host 127.0.0.1 --port "$port" "$W/$doc" >"$W/$doc.log" 2>&1 &
  PIDS+=($!)
  export "$var=http://127.0.0.1:$port/"
}
mock MARQUEE_PRISM_RADARR radarr-v3.openapi.json
mock MARQUEE_PRISM_SONARR sonarr-v3.openapi.json
mock MARQUEE_PRISM_SONARR_V5 sonarr-v5-prerelease.openapi.json
mock MARQUEE_PRISM_LIDARR lidarr-v1.openapi.json
mock MARQUEE_PRISM_READARR readarr-v1.openapi.json
# mock_as_is VAR DOCUMENT: a static mock of DOCUMENT unchanged (JSON or YAML).
mock_as_is() {
  local var=$1 doc=$2 port
  port=$(free_port)
  "$PRISM" mock --host 127.0.0.1 --port "$port" "$SHARED/specs/$doc" >"$W/$doc.log" 2>&1 &
  PIDS+=($!)
  export "$var=http://127.0.0.1:$port/"
}
mock_as_is MARQUEE_PRISM_JELLYFIN jellyfin-v12.openapi.json
mock_as_is MARQUEE_PRISM_PLEX plex-pms.openapi.yaml
for var in MARQUEE_PRISM_RADARR MARQUEE_PRISM_SONARR MARQUEE_PRISM_SONARR_V5 MARQUEE_PRISM_LIDARR MARQUEE_PRISM_READARR MARQUEE_PRISM_JELLYFIN MARQUEE_PRISM_PLEX; do
  url=${!var}
  for _ in $(seq 900); do
    curl -s -o /dev/null "${url}api" && break
    sleep 0.2
  done
done

log=$W/cargo.log
cargo test -p adapters-library --test prism 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
# The media adapter against Jellyfin's document and the community Plex document.
cargo test -p adapters-media --test prism 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
passed=$(awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="passed;") s+=$(i-1)} END {print s+0}' "$log")
failed=$(awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="failed;") s+=$(i-1)} END {print s+0}' "$log")
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
if [ "$failed" != 0 ]; then for f in "$W"/*.log; do echo "--- $f"; tail -n 20 "$f"; done; fi
echo "prism: $passed passed, $failed failed"
[ "$failed" = 0 ]
