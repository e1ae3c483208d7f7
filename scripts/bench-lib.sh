#!/usr/bin/env bash
# Shared by scripts/bench.sh, bench-matrix.sh and bench-changes.sh; sourced, never run.
# `bench_setup NAME` makes the temporary folder $WORK and the list PIDS of processes the script
# starts, defines log/die/stop/wait_for_line, and on exit stops every process in PIDS by its pid (TERM, up to
# 5 s, then KILL) and removes $WORK (kept with BENCH_KEEP=1).

bench_setup() {
    BENCH_NAME=$1
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/marquee-$BENCH_NAME.XXXXXX")
    PIDS=()
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

log() { printf '%s\n' "$BENCH_NAME: $*" >&2; }
die() {
    printf '%s\n' "$BENCH_NAME: error: $*" >&2
    exit 1
}

# stop PID: TERM, wait up to 5 s, then KILL (only processes this script started).
stop() {
    kill -TERM "$1" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

bench_cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do stop "$pid"; done
    if [[ ${BENCH_KEEP:-0} == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}

# wait_for_line FILE REGEX PID SECONDS: the first line of FILE matching REGEX, while PID lives.
wait_for_line() {
    local file=$1 regex=$2 pid=$3 deadline=$((SECONDS + $4)) line
    while ((SECONDS < deadline)); do
        line=$(grep -m1 -E "$regex" "$file" 2>/dev/null || true)
        if [[ -n $line ]]; then
            printf '%s\n' "$line"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# wait_ready BASE SECONDS: whether BASE/readyz answers 200 within SECONDS.
wait_ready() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        curl -sf --max-time 2 "$1/readyz" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# --- host steal ------------------------------------------------------------------------------
# On a shared virtual machine the host can take CPU time away from this one; /proc/stat counts
# it as "steal". A run during which the host took much measures the neighbours, not the server:
# the bare server's own p99 goes from about 3 ms to 25 ms at a third stolen. So every pair of
# measurements (bare, then Marquee) is timed against the steal, and retried while it is high.
#   BENCH_MAX_STEAL=5     percent of CPU time the host may take during a pair
#   BENCH_ATTEMPTS=3      pairs to try before keeping the quietest one (flagged in the report)
MAX_STEAL=${BENCH_MAX_STEAL:-5}
ATTEMPTS=${BENCH_ATTEMPTS:-3}

# cpu_ticks: "STEAL TOTAL", the clock ticks of all CPUs so far (steal, and every state).
cpu_ticks() {
    awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit }' /proc/stat
}

# steal_since "STEAL TOTAL": the percent of CPU time since that cpu_ticks that the host took.
steal_since() {
    awk -v a="$1" -v b="$(cpu_ticks)" 'BEGIN {
        split(a, x, " "); split(b, y, " "); d = y[2] - x[2]
        printf "%.1f", (d > 0 ? 100 * (y[1] - x[1]) / d : 0)
    }'
}

# quieter A B: whether steal A is below B (B empty: yes).
quieter() { [[ -z $2 ]] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# quiet S: whether steal S is within BENCH_MAX_STEAL.
quiet() { awk -v s="$1" -v m="$MAX_STEAL" 'BEGIN { exit !(s <= m) }'; }
