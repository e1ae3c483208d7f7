#!/usr/bin/env bash
# scan_library over a generated tree of sparse media files against `find` over the same tree
# (the targets: cold scan <= 3x find plus recognition, warm rescan <= 1.5x find, peak RSS
# under 150 MiB).
#
# Usage:
#   scripts/bench-scan.sh [FILES]      FILES sparse files (default 50000)
#
# Builds the tools example scan_bench, generates the tree in a temporary folder (films with a
# subtitle, a sample and an NFO each; shows by season), then BENCH_RUNS times: times
# `find DIR -type f -printf '%s %T@ %p\n'` (best of three), then scans the tree through the
# core twice with an empty store (the builtin catalogue loaded first, as a server loads it at
# start): cold (everything recognised, matched and recorded) and warm (nothing changed).
# Prints each run's figures and ratios, then the worst run's. The page cache is warm for all.
# Recognition is the time recognising the tree's media paths alone, on one thread, after the
# scans; the cold target is 3x find plus that. Peak RSS is the process's VmHWM; the figure before the scans (the builtin catalogue loaded)
# is printed beside it.
#
# Knobs (environment):
#   BENCH_PROFILE=bench      the cargo profile to build and run
#   BENCH_RUNS=3             how many find/scan pairs
#   BENCH_KEEP=1             keep the temporary folder

set -euo pipefail

FILES=${1:-50000}
PROFILE=${BENCH_PROFILE:-bench}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

WORK=$(mktemp -d /tmp/bench-scan.XXXXXX)
if [[ -z ${BENCH_KEEP:-} ]]; then
    trap 'rm -rf "$WORK"' EXIT
fi

echo "building (cargo build --profile $PROFILE -p tools --example scan_bench)" >&2
(cd "$ROOT" && cargo build --quiet --profile "$PROFILE" -p tools --example scan_bench)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET_DIR/$(case $PROFILE in dev | test) echo debug ;; bench) echo release ;; *) echo "$PROFILE" ;; esac)/examples/scan_bench

echo "generating $FILES sparse files in $WORK/tree" >&2
"$BIN" generate "$WORK/tree" "$FILES"
COUNT=$(find "$WORK/tree" -type f | wc -l)

RUNS=${BENCH_RUNS:-3}
echo "files on disk: $COUNT"
worst_cold=0
worst_cold_budget=0
worst_warm=0
worst_rss=0
for run in $(seq 1 "$RUNS"); do
    best=""
    for _ in 1 2 3; do
        start=$(date +%s.%N)
        find "$WORK/tree" -type f -printf '%s %T@ %p\n' >/dev/null
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        if [[ -z $best ]] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
    done
    rm -rf "$WORK/data"
    mkdir -p "$WORK/data"
    RESULT=$("$BIN" scan "$WORK/tree" "$WORK/data")
    COLD=$(echo "$RESULT" | sed -E 's/.*"pass":"cold","seconds":([0-9.e-]+).*/\1/')
    WARM=$(echo "$RESULT" | sed -E 's/.*"pass":"warm","seconds":([0-9.e-]+).*/\1/')
    RSS=$(echo "$RESULT" | sed -E 's/.*"peak_rss_kib":([0-9]+).*/\1/')
    BEFORE=$(echo "$RESULT" | sed -E 's/.*"peak_rss_before_scan_kib":([0-9]+).*/\1/')
    RECOG=$(echo "$RESULT" | sed -E 's/.*"recognise_seconds":([0-9.e-]+).*/\1/')
    cold_x=$(echo "$COLD / $best" | bc -l)
    cold_budget=$(echo "$COLD / (3 * $best + $RECOG)" | bc -l)
    warm_x=$(echo "$WARM / $best" | bc -l)
    echo "run $run: $RESULT"
    printf 'run %d: recognising the media paths alone %.3f s; cold scan %.2f of (3x find + recognition)\n' "$run" "$RECOG" "$cold_budget"
    printf 'run %d: find -printf (best of 3) %.3f s; cold scan %.3f s (%.2fx find); warm rescan %.3f s (%.2fx find); peak RSS %.1f MiB (%.1f MiB before the scans)\n' \
        "$run" "$best" "$COLD" "$cold_x" "$WARM" "$warm_x" "$(echo "$RSS / 1024" | bc -l)" "$(echo "$BEFORE / 1024" | bc -l)"
    if (($(echo "$cold_x > $worst_cold" | bc -l))); then worst_cold=$cold_x; fi
    if (($(echo "$cold_budget > $worst_cold_budget" | bc -l))); then worst_cold_budget=$cold_budget; fi
    if (($(echo "$warm_x > $worst_warm" | bc -l))); then worst_warm=$warm_x; fi
    if ((RSS > worst_rss)); then worst_rss=$RSS; fi
done
printf 'worst of %d runs: cold %.2f of (3x find + recognition) (target <= 1)\n' "$RUNS" "$worst_cold_budget"
printf 'worst of %d runs: cold %.2fx find, warm %.2fx find (target <= 1.5), peak RSS %.1f MiB (target < 150)\n' \
    "$RUNS" "$worst_cold" "$worst_warm" "$(echo "$worst_rss / 1024" | bc -l)"
