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
