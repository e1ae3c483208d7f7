#!/usr/bin/env bash
# What the builtin catalogue costs `marquee serve` in resident memory at start (the targets:
# under +15 MiB; idle RSS under 40 MiB).
#
# Usage:
#   scripts/bench-catalogue-rss.sh [RUNS]     RUNS pairs (default 5)
#
# Each pair starts `marquee serve` twice on fresh data folders, one after the other: once as
# shipped (builtin catalogue on) and once with MARQUEE_BUILTIN_CATALOGUE=false. Each waits for
# /readyz (and, catalogue on, for its "builtin catalogue loaded" log line), then BENCH_SETTLE
# seconds (default 4, counted from the start), reads VmRSS and RssAnon from /proc, and stops.
# Prints one line per pair and the worst pair's difference against the target; also the
# most pessimistic pairing (the largest "on" against the smallest "off").
#
# Knobs (environment):
#   BENCH_SETTLE=4           seconds after the start at which memory is read
#   BENCH_PROFILE=bench      the cargo profile to build and run (bench: release with symbols)
#   BENCH_BIN_DIR=DIR        use DIR/marquee instead of building
#   BENCH_KEEP=1             keep the temporary folder (logs)

set -euo pipefail

RUNS=${1:-5}
SETTLE=${BENCH_SETTLE:-4}
PROFILE=${BENCH_PROFILE:-bench}
TARGET_KIB=$((15 * 1024))
IDLE_TARGET_KIB=$((40 * 1024))

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
bench_setup catalogue-rss
command -v curl >/dev/null || die "curl is required"

if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    MARQUEE=$BENCH_BIN_DIR/marquee
else
    # The same packages as bench.sh and the matrix build, so each reuses the others' product
    # (building marquee alone unifies features differently and rebuilds it).
    log "building (cargo build --profile $PROFILE -p marquee -p bench)"
    (cd "$ROOT" && cargo build --profile "$PROFILE" -p marquee -p bench \
        --message-format=json-render-diagnostics) >"$WORK/build.json"
    MARQUEE=$(grep -o '"executable":"[^"]*/marquee"' "$WORK/build.json" | tail -n1 | cut -d'"' -f4)
fi
[[ -x $MARQUEE ]] || die "no marquee binary at \"$MARQUEE\""

# status_kb PID FIELD: a /proc/PID/status field in KiB.
status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
signed_mib() { awk -v k="$1" 'BEGIN { printf "%+.1f", k / 1024 }'; }

# measure TAG CATALOGUE(true|false): starts marquee, waits until it is ready (and loaded), reads
# memory at SETTLE seconds after the start, stops it; sets RSS_KB, ANON_KB and LOAD_TIME (the
# load time marquee logged, catalogue on).
measure() {
    local tag=$1 catalogue=$2 out="$WORK/marquee-$1.out" err="$WORK/marquee-$1.err"
    local started=$SECONDS base pid
    mkdir -p "$WORK/data-$tag"
    (
        while read -r var; do unset "$var"; done < <(compgen -e | grep '^MARQUEE_' || true)
        cd "$WORK"
        export MARQUEE_LISTEN=127.0.0.1:0 MARQUEE_BUILTIN_CATALOGUE=$catalogue
        exec "$MARQUEE" serve --data-dir "$WORK/data-$tag"
    ) >"$out" 2>"$err" &
    pid=$!
    PIDS+=("$pid")
    base=$(wait_for_line "$out" 'http://127\.0\.0\.1:[0-9]+/mcp' "$pid" 30 |
        grep -oE 'http://127\.0\.0\.1:[0-9]+' | head -n1) ||
        die "marquee ($tag) did not come up: $(tail -n 20 "$err")"
    wait_ready "$base" 10 || die "marquee ($tag) was not ready at $base/readyz within 10 s"
    LOAD_TIME=""
    if [[ $catalogue == true ]]; then
        local line
        line=$(wait_for_line "$err" 'builtin catalogue loaded' "$pid" 30) ||
            die "marquee ($tag) logged no \"builtin catalogue loaded\" within 30 s: $(tail -n 20 "$err")"
        # The log may be coloured: escape sequences out, then the field.
        LOAD_TIME=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$line" | grep -oE 'load_time=[^ ]+' | cut -d= -f2 || true)
    elif grep -q 'builtin catalogue loaded' "$err"; then
        die "marquee ($tag) loaded the builtin catalogue although it was switched off"
    fi
    while ((SECONDS - started < SETTLE)); do sleep 0.2; done
    RSS_KB=$(status_kb "$pid" VmRSS)
    ANON_KB=$(status_kb "$pid" RssAnon)
    stop "$pid"
}

log "$RUNS pairs, memory read ${SETTLE}s after each start ($MARQUEE)"
WORST=-999999
WORST_ANON=0
MAX_ON=0
MIN_OFF=999999999
MAX_IDLE=0
for run in $(seq "$RUNS"); do
    measure "on-$run" true
    on=$RSS_KB on_anon=$ANON_KB loaded_in=$LOAD_TIME
    measure "off-$run" false
    off=$RSS_KB off_anon=$ANON_KB
    diff=$((on - off))
    printf 'pair %d: on %s MiB, off %s MiB: %s MiB (RssAnon %s); loaded in %s\n' "$run" \
        "$(mib "$on")" "$(mib "$off")" "$(signed_mib "$diff")" \
        "$(signed_mib $((on_anon - off_anon)))" "${loaded_in:-?}"
    if ((diff > WORST)); then
        WORST=$diff
        WORST_ANON=$((on_anon - off_anon))
    fi
    ((on > MAX_ON)) && MAX_ON=$on
    ((off < MIN_OFF)) && MIN_OFF=$off
    ((on > MAX_IDLE)) && MAX_IDLE=$on
done

verdict() { if (($1 < $2)); then echo "met"; else echo "NOT met"; fi; }
echo "worst pair: $(signed_mib "$WORST") MiB (RssAnon $(signed_mib "$WORST_ANON")); target under +15 MiB: $(verdict "$WORST" "$TARGET_KIB")"
echo "largest on - smallest off: $(signed_mib $((MAX_ON - MIN_OFF))) MiB"
echo "largest VmRSS with the catalogue: $(mib "$MAX_IDLE") MiB; idle target under 40 MiB: $(verdict "$MAX_IDLE" "$IDLE_TARGET_KIB")"
