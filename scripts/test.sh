#!/usr/bin/env bash
# The one test command (README): installs what the tests need (idempotently), builds,
# checks formatting, lints and unused dependencies (installing cargo-machete when missing),
# runs the Rust suites, starts Marquee servers and drives them with real MCP clients
# (official conformance suite, Python SDK, Inspector) and curl, stops every process it
# started by pid, and ends with one line "N passed, N failed".
#
#   scripts/test.sh            everything
#   SKIP_SETUP=1 scripts/test.sh   skip apt/npm/pip installs (they are idempotent anyway)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export SHARED=${MARQUEE_SHARED:-$ROOT/../shared}
# Where the client kit installs (its env.sh decides): the federated tests find the Python SDK's
# venv and the everything server there.
MCP_CLIENTS_HOME=$(bash -c '. "$1/mcp-clients/env.sh" >/dev/null 2>&1; echo "$MCP_CLIENTS_HOME"' _ "$SHARED")
export MCP_CLIENTS_HOME
# The build folder: CARGO_TARGET_DIR when set; else a shared build beside the clone
# (../shared-cache/target) when that folder exists; else the clone's own target/ (CI runs in a
# fresh clone).
if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  if [ -d "$ROOT/../shared-cache/target" ]; then CARGO_TARGET_DIR=$(cd "$ROOT/../shared-cache/target" && pwd)
  else CARGO_TARGET_DIR=$ROOT/target; fi
fi
export CARGO_TARGET_DIR
export CARGO_TERM_COLOR=never

log() { printf '\n== %s\n' "$*"; }

if [ -z "${SKIP_SETUP:-}" ]; then
  log "setup: system packages"
  need=()
  for p in curl jq python3-venv transmission-daemon transmission-cli qbittorrent-nox wrk sqlite3 chromium chromium-driver ffmpeg buildah podman nginx-light; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  log "setup: MCP client kit (conformance suite, Python SDK, Inspector)"
  "$SHARED/mcp-clients/install.sh"
  # The official everything server, which the federated tests attach over stdio and Streamable
  # HTTP: pinned, in the client kit's cache folder, installed once (idempotent).
  log "setup: @modelcontextprotocol/server-everything"
  EVERYTHING_VERSION=2026.8.31
  everything_dir="$MCP_CLIENTS_HOME/everything"
  if [ "$(cat "$everything_dir/.stamp" 2>/dev/null)" != "$EVERYTHING_VERSION" ]; then
    mkdir -p "$everything_dir"
    printf '{ "name": "mcp-everything-cache", "private": true, "dependencies": { "@modelcontextprotocol/server-everything": "%s" } }\n' \
      "$EVERYTHING_VERSION" > "$everything_dir/package.json"
    (cd "$everything_dir" && npm install --no-audit --no-fund --loglevel=error)
    echo "$EVERYTHING_VERSION" > "$everything_dir/.stamp"
  fi
fi

log "build"
# Free space before the build, for a failed run's log (a cold build of every target is ~3.5 GB).
df -h "$CARGO_TARGET_DIR" 2>/dev/null | tail -n 1 || df -h "$ROOT" | tail -n 1
# The end-to-end suites run the full conformance suite against a server with [mcp]
# conformance_fixtures on: the debug binary is built with the fixtures (a product build has none).
FEATURES=(--features marquee/conformance-fixtures)
cargo build --workspace --all-targets "${FEATURES[@]}" --quiet

# --- house checks: formatting, lints, unused dependencies; each counts as one test ---
log "house checks: cargo fmt, cargo clippy, cargo machete"
house_passed=0; house_failed=0
house() { # house NAME COMMAND...
  if "${@:2}"; then house_passed=$((house_passed + 1)); echo "ok $1"
  else house_failed=$((house_failed + 1)); echo "FAIL $1"; fi
}
if ! command -v cargo-machete >/dev/null 2>&1; then
  cargo install --locked cargo-machete --quiet || echo "cargo-machete could not be installed"
fi
house "cargo fmt --all --check" cargo fmt --all --check
house "cargo clippy --workspace --all-targets -- -D warnings" \
  cargo clippy --workspace --all-targets --quiet -- -D warnings
house "cargo machete (no unused dependencies)" cargo machete "$ROOT"
# --- end of house checks ---

log "rust suites"
rust_log=$(mktemp)
set +e
# The harness crate runs below, through scripts/harness.sh.
cargo test --workspace --exclude harness "${FEATURES[@]}" --no-fail-fast 2>&1 | tee "$rust_log"
rust_rc=${PIPESTATUS[0]}
set -e
rust_passed=$(awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="passed;") s+=$(i-1)} END {print s+0}' "$rust_log")
rust_failed=$(awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="failed;") s+=$(i-1)} END {print s+0}' "$rust_log")
if [ "$rust_rc" != 0 ] && [ "$rust_failed" = 0 ]; then rust_failed=1; fi

log "end-to-end suites"
set +e
"$ROOT/scripts/e2e.sh" "$CARGO_TARGET_DIR/debug/marquee" | tee "$rust_log.e2e"
e2e_rc=${PIPESTATUS[0]}
set -e
e2e_passed=$(awk '/^e2e: [0-9]+ passed/ {print $2}' "$rust_log.e2e" | tail -1)
e2e_failed=$(awk '/^e2e: [0-9]+ passed/ {print $4}' "$rust_log.e2e" | tail -1)
e2e_passed=${e2e_passed:-0}; e2e_failed=${e2e_failed:-1}
if [ "$e2e_rc" != 0 ] && [ "$e2e_failed" = 0 ]; then e2e_failed=1; fi

# ---- bench matrix smoke -----------------------------------------------------------------
# Every case of scripts/bench-matrix.sh answered once more, in 1-second runs on the debug
# build, so the matrix cannot rot; its verdicts are not judged here (benchmarks are not tests).
log "bench matrix smoke"
set +e
"$ROOT/scripts/bench-matrix.sh" --smoke >"$rust_log.matrix" 2>&1
matrix_rc=$?
set -e
if [ "$matrix_rc" = 0 ]; then
  matrix_passed=1; matrix_failed=0
  tail -n 3 "$rust_log.matrix"
else
  matrix_passed=0; matrix_failed=1
  tail -n 30 "$rust_log.matrix"
fi
# ---- end of bench matrix smoke ----------------------------------------------------------

# ---- library adapters against Prism mocks of the vendor documents -----------------------
# scripts/prism.sh installs @stoplight/prism-cli (npm, local prefix), starts one mock per
# OpenAPI document on 127.0.0.1, runs `cargo test -p adapters-library --test prism`, stops each
# mock by its pid, and ends with "prism: N passed, N failed".
log "library adapters against Prism mocks"
set +e
SHARED="$SHARED" "$ROOT/scripts/prism.sh" >"$rust_log.prism" 2>&1
prism_rc=$?
set -e
prism_passed=$(awk '/^prism: [0-9]+ passed/ {print $2}' "$rust_log.prism" | tail -1)
prism_failed=$(awk '/^prism: [0-9]+ passed/ {print $4}' "$rust_log.prism" | tail -1)
prism_passed=${prism_passed:-0}; prism_failed=${prism_failed:-1}
if [ "$prism_rc" != 0 ] && [ "$prism_failed" = 0 ]; then prism_failed=1; fi
grep -v '^\[' "$rust_log.prism" | tail -n 5
# ---- end of library adapters against Prism mocks -----------------------------------------

# ---- reliability harness, short run -----------------------------------------------------
# scripts/harness.sh: every fuzz target a few thousand inputs, then the fault and canary tests
# (crates/harness); ends with "harness: N passed, N failed". `--long` is not run here.
log "reliability harness (short run)"
set +e
"$ROOT/scripts/harness.sh" >"$rust_log.harness" 2>&1
harness_rc=$?
set -e
harness_passed=$(awk '/^harness: [0-9]+ passed/ {print $2}' "$rust_log.harness" | tail -1)
harness_failed=$(awk '/^harness: [0-9]+ passed/ {print $4}' "$rust_log.harness" | tail -1)
harness_passed=${harness_passed:-0}; harness_failed=${harness_failed:-1}
if [ "$harness_rc" != 0 ] && [ "$harness_failed" = 0 ]; then harness_failed=1; fi
if [ "$harness_failed" = 0 ]; then tail -n 1 "$rust_log.harness"; else tail -n 40 "$rust_log.harness"; fi
# ---- end of reliability harness ---------------------------------------------------------

# ---- container image smoke --------------------------------------------------------------
# scripts/image.sh packs the debug binary the suites already built into the image's root file
# system (cached between runs), commits it with buildah and starts it (podman, or chroot where
# this machine refuses containers): the health check passes and tools/list answers. A few
# seconds, offline; the release image has its own run of the script.
log "container image smoke"
set +e
"$ROOT/scripts/image.sh" --binary "$CARGO_TARGET_DIR/debug/marquee" --tag localhost/marquee-test --run \
  >"$rust_log.image" 2>&1
image_rc=$?
set -e
if [ "$image_rc" = 0 ]; then image_passed=1; image_failed=0; tail -n 3 "$rust_log.image"
else image_passed=0; image_failed=1; tail -n 30 "$rust_log.image"; fi
# ---- end of container image smoke --------------------------------------------------------

log "summary"
echo "rust: $rust_passed passed, $rust_failed failed"
echo "e2e: $e2e_passed passed, $e2e_failed failed"
echo "house: $house_passed passed, $house_failed failed"
echo "bench matrix smoke: $matrix_passed passed, $matrix_failed failed"
echo "prism: $prism_passed passed, $prism_failed failed"
echo "harness: $harness_passed passed, $harness_failed failed"
echo "image: $image_passed passed, $image_failed failed"
echo "$((rust_passed + e2e_passed + house_passed + matrix_passed + prism_passed + harness_passed + image_passed)) passed, $((rust_failed + e2e_failed + house_failed + matrix_failed + prism_failed + harness_failed + image_failed)) failed"
[ "$rust_failed" = 0 ] && [ "$e2e_failed" = 0 ] && [ "$house_failed" = 0 ] && [ "$matrix_failed" = 0 ] && [ "$prism_failed" = 0 ] && [ "$harness_failed" = 0 ] && [ "$image_failed" = 0 ]
