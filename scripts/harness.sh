#!/usr/bin/env bash
# The reliability harness in one command (crates/harness; figures in RELIABILITY.md):
#   - fuzz targets: the HTTP edge (in process and on a socket), JSON-RPC, every tool's input,
#     bencode, magnet and tracker URLs, the torrent clients', *arr and TMDB answers;
#   - faults between Marquee and its backends (test-support's FaultProxy), canary secrets;
#   - the real binary (tests/served): SIGKILL crash loops of request_media, apply_change, grab_release
#     and organise runs (HARNESS_CRASH_ROUNDS rounds each: 5 in the short run, 50 with --long), and
#     the data folder on a full file system (a small tmpfs; needs root to mount).
#
#   scripts/harness.sh          short run, as CI runs it: a few thousand inputs per fuzz target
#                               (debug build), then the fault and canary tests
#   scripts/harness.sh --long   HARNESS_CASES inputs per fuzz target (default 1,000,000) in a
#                               release build, then the fault and canary tests
#
# HARNESS_SEED / HARNESS_FROM replay a failure a target reported. Prints one line per fuzz
# target ("harness: TARGET N inputs, N panics, ...") and ends with "harness: N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  if [ -d "$ROOT/../shared-cache/target" ]; then CARGO_TARGET_DIR=$(cd "$ROOT/../shared-cache/target" && pwd)
  else CARGO_TARGET_DIR=$ROOT/target; fi
fi
export CARGO_TARGET_DIR CARGO_TERM_COLOR=never

PROFILE=()
if [ "${1:-}" = "--long" ]; then
  export HARNESS_CASES=${HARNESS_CASES:-1000000}
  PROFILE=(--release)
  export HARNESS_CRASH_ROUNDS=${HARNESS_CRASH_ROUNDS:-50}
  echo "harness: long run, $HARNESS_CASES inputs per fuzz target, release build"
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/harness.sh [--long]" >&2; exit 2
fi

# The same selection and features as scripts/test.sh's build, so the harness reuses its
# artifacts: --workspace with --test picks the harness's two test targets only.
CARGO_ARGS=(--workspace --features marquee/conformance-fixtures)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed_steps=0
# step NAME CARGO-TEST-ARGS...: runs one test target, keeps its output, shows what failed.
step() {
  local name=$1; shift
  if ! cargo test "${PROFILE[@]}" "${CARGO_ARGS[@]}" "$@" >"$dir/$name" 2>&1; then
    if ! grep -q '^test result:' "$dir/$name"; then
      failed_steps=$((failed_steps + 1))
      echo "harness: $name did not run:"; tail -n 30 "$dir/$name"
    fi
  fi
  grep -E '^test .*FAILED|^failures:|panicked at' "$dir/$name" | head -20
}
# Fuzz targets print their line with --nocapture and run one at a time: the panic hook counts
# panics process-wide, so a target's count is its own only while it runs alone. The fault tests
# wait on timeouts, so they run side by side (the default thread count).
step fuzz --test fuzz -- --nocapture --test-threads=1
grep -oE 'harness: [a-z-]+ [0-9]+ inputs.*' "$dir/fuzz"
step faults --test faults
# The served tests start this build's `marquee` binary (target/<profile>/marquee): build it
# first, with the same selection and features, so it is the code under test.
if ! cargo build "${PROFILE[@]}" "${CARGO_ARGS[@]}" --bin marquee >"$dir/build-marquee" 2>&1; then
  failed_steps=$((failed_steps + 1))
  echo "harness: the marquee binary did not build:"; tail -n 30 "$dir/build-marquee"
fi
step served --test served -- --nocapture
grep -oE 'harness: (crash-[a-z-]+ [0-9]+ rounds,|crash-[a-z-]+ failed in round|full-disk).*' "$dir/served"

passed=$(cat "$dir"/* | awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="passed;") s+=$(i-1)} END {print s+0}')
failed=$(cat "$dir"/* | awk '/^test result:/ {for (i=1;i<=NF;i++) if ($(i)=="failed;") s+=$(i-1)} END {print s+0}')
failed=$((failed + failed_steps))
echo "harness: $passed passed, $failed failed"
[ "$failed" = 0 ]
