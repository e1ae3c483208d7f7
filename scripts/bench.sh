#!/usr/bin/env bash
# Loopback load benchmark of Marquee's `POST /mcp` against a bare axum reference.
#
# Usage:
#   scripts/bench.sh
#
# What it does, in one run, all on 127.0.0.1:
#   1. installs `wrk` with apt-get when it is missing (apt-get update only if the install fails);
#   2. `cargo build --profile bench -p marquee -p bench` (honours CARGO_TARGET_DIR);
#   3. starts `marquee serve` on a free port with a fresh temporary --data-dir, waits for
#      /readyz, reads the owner key it prints once, and saves its real answers to
#      `tools/list` and `tools/call whoami`;
#   4. starts `bench-bare` (crates/bench) answering those saved bodies after parsing each request;
#   5. for bare/marquee x tools/list/whoami: wrk warm-up, then a measured run with --latency;
#      prints a markdown table (req/s, p50, p99, ratio vs bare) and the issue's targets;
#   6. sends 10,000 more requests to marquee and prints its VmRSS and VmHWM.
# Processes it started are killed by pid on exit; the temporary folder is removed.
#
# Knobs (environment):
#   BENCH_CONNECTIONS=32  BENCH_THREADS=2  BENCH_WARMUP=2s  BENCH_DURATION=8s
#   BENCH_MEM_REQUESTS=10000
#   BENCH_DIAG=1   adds two diagnostic rows: tools/list with a well-formed unknown key (401 after
#                  the key lookup) and with a malformed key (401 before any database work).
#   BENCH_KEEP=1   keeps the temporary folder (logs, saved answers, wrk output).
#   MARQUEE_LOG    marquee's log filter (default: its own default, "info").
# wrk and the servers share the machine's cores: on a small machine compare the ratio, not the
# absolute rates, and expect run-to-run noise of several percent.

set -euo pipefail

CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
WARMUP=${BENCH_WARMUP:-2s}
DURATION=${BENCH_DURATION:-8s}
MEM_REQUESTS=${BENCH_MEM_REQUESTS:-10000}
DIAG=${BENCH_DIAG:-0}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/marquee-bench.XXXXXX")
PIDS=()

log() { printf '%s\n' "bench: $*" >&2; }
die() {
    printf '%s\n' "bench: error: $*" >&2
    exit 1
}

cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ ${BENCH_KEEP:-0} == 1 ]]; then
        log "kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. wrk ------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "wrk is missing and there is no sudo to install it"
        SUDO=(sudo)
    fi
    log "installing wrk"
    if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; then
        "${SUDO[@]}" apt-get update -qq
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
    fi
    command -v wrk >/dev/null || die "wrk did not install"
fi
command -v curl >/dev/null || die "curl is required"

# --- 2. build ----------------------------------------------------------------------------
log "building (cargo build --profile bench -p marquee -p bench)"
(cd "$ROOT" && cargo build --profile bench -p marquee -p bench \
    --message-format=json-render-diagnostics) >"$WORK/build.json"
executable() {
    grep -o "\"executable\":\"[^\"]*/$1\"" "$WORK/build.json" | tail -n1 | cut -d'"' -f4
}
MARQUEE=$(executable marquee)
BARE=$(executable bench-bare)
[[ -x $MARQUEE ]] || die "no marquee binary in the build output"
[[ -x $BARE ]] || die "no bench-bare binary in the build output"

# --- helpers -----------------------------------------------------------------------------
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

# rpc URL KEY BODY OUT: POSTs one JSON-RPC message; fails unless 200 with a "result".
rpc() {
    local url=$1 key=$2 body=$3 out=$4 status
    status=$(curl -sS -o "$out" -w '%{http_code}' --max-time 10 \
        -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary "$body" "$url") || die "POST $url failed: curl could not connect"
    [[ $status == 200 ]] || die "POST $url $body answered $status: $(head -c 400 "$out")"
    grep -q '"result":' "$out" || die "POST $url $body has no result: $(head -c 400 "$out")"
    if grep -q '"isError":true' "$out"; then
        die "POST $url $body answered a tool error: $(head -c 400 "$out")"
    fi
}

# rss PID FIELD: e.g. "VmRSS: 12345 kB" -> "12.1 MiB (12345 kB)"
rss() {
    awk -v f="$2:" '$1 == f { printf "%.1f MiB (%d kB)", $2 / 1024, $2 }' "/proc/$1/status"
}
rss_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

# lua FILE KEY BODY [LIMIT]: a wrk script posting BODY; with LIMIT each thread stops after it.
lua() {
    {
        printf 'wrk.method = "POST"\n'
        printf 'wrk.body = [[%s]]\n' "$3"
        printf 'wrk.headers["Content-Type"] = "application/json"\n'
        printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2"
        if [[ -n ${4:-} ]]; then
            printf 'local n = 0\n'
            printf 'function response()\n  n = n + 1\n'
            printf '  if n >= %d then wrk.thread:stop() end\nend\n' "$4"
        fi
    } >"$1"
}

# to_ms "123.45us" -> 0.123
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.3f", n
    }'
}

ROWS=()
declare -A RATE P50 P99
# measure NAME URL LUA [EXPECT_STATUS]: warm-up, measured run, parsed into RATE/P50/P99.
measure() {
    local name=$1 url=$2 script=$3 expect=${4:-200} out="$WORK/wrk-${#ROWS[@]}.txt"
    log "wrk: $name"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$script" "$url" >/dev/null
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$script" "$url" >"$out"
    if [[ $expect == 200 ]] && grep -q 'Non-2xx or 3xx responses' "$out"; then
        cat "$out" >&2
        die "$name: some responses were not 2xx"
    fi
    if grep -q 'Socket errors' "$out"; then
        log "$name: $(grep 'Socket errors' "$out" | sed 's/^ *//')"
    fi
    RATE[$name]=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    P50[$name]=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
    P99[$name]=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    [[ -n ${RATE[$name]} ]] || die "$name: cannot read wrk's output: $(cat "$out")"
    ROWS+=("$name")
}

# --- 3. marquee --------------------------------------------------------------------------
mkdir -p "$WORK/data"
# A clean environment for marquee: no MARQUEE_* from the caller but the log filter, and a
# working folder without a marquee.toml. Port 0: the kernel picks a free port.
(
    while read -r var; do
        [[ $var == MARQUEE_LOG ]] || unset "$var"
    done < <(compgen -e | grep '^MARQUEE_' || true)
    cd "$WORK"
    export MARQUEE_LISTEN=127.0.0.1:0
    exec "$MARQUEE" serve --data-dir "$WORK/data"
) >"$WORK/marquee.out" 2>"$WORK/marquee.err" &
MQ_PID=$!
PIDS+=("$MQ_PID")

fail_marquee() {
    log "marquee stdout:"
    sed 's/mq_[A-Za-z0-9_]*/mq_…/g' "$WORK/marquee.out" >&2 || true
    log "marquee stderr:"
    cat "$WORK/marquee.err" >&2 || true
    die "$1"
}
MQ_URL=$(wait_for_line "$WORK/marquee.out" 'http://127\.0\.0\.1:[0-9]+/mcp' "$MQ_PID" 30 |
    grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' | head -n1) ||
    fail_marquee "marquee did not come up (no owner key and address on its stdout within 30 s)"
MQ_BASE=${MQ_URL%/mcp}
KEY=$(awk '/shown once/ { seen = 1 } seen && $1 ~ /^mq_/ { print $1; exit }' "$WORK/marquee.out")
[[ -n $KEY ]] || fail_marquee "no owner key (mq_…) after \"shown once\" on marquee's stdout"
ready=0
for _ in $(seq 100); do
    kill -0 "$MQ_PID" 2>/dev/null || fail_marquee "marquee exited during start"
    if curl -sf --max-time 2 "$MQ_BASE/readyz" >/dev/null; then
        ready=1
        break
    fi
    sleep 0.1
done
((ready)) || fail_marquee "marquee did not become ready at $MQ_BASE/readyz within 10 s"
log "marquee ready at $MQ_URL (pid $MQ_PID)"

LIST_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
WHOAMI_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}'
rpc "$MQ_URL" "$KEY" "$LIST_BODY" "$WORK/tools-list.json"
rpc "$MQ_URL" "$KEY" "$WHOAMI_BODY" "$WORK/whoami.json"
grep -q '"name":"whoami"' "$WORK/tools-list.json" || die "marquee's tools/list has no whoami"
RSS_IDLE=$(rss "$MQ_PID" VmRSS)

# --- 4. bench-bare -----------------------------------------------------------------------
"$BARE" --listen 127.0.0.1:0 \
    --answer "tools/list=$WORK/tools-list.json" \
    --answer "tools/call=$WORK/whoami.json" >"$WORK/bare.out" 2>"$WORK/bare.err" &
BARE_PID=$!
PIDS+=("$BARE_PID")
BARE_URL=$(wait_for_line "$WORK/bare.out" '^listening on ' "$BARE_PID" 10 | awk '{ print $3 }') ||
    die "bench-bare did not come up: $(cat "$WORK/bare.err")"
rpc "$BARE_URL" "$KEY" "$LIST_BODY" "$WORK/bare-list.json"
rpc "$BARE_URL" "$KEY" "$WHOAMI_BODY" "$WORK/bare-whoami.json"
log "bench-bare at $BARE_URL (pid $BARE_PID); answer sizes: tools/list" \
    "$(wc -c <"$WORK/bare-list.json")/$(wc -c <"$WORK/tools-list.json") B," \
    "whoami $(wc -c <"$WORK/bare-whoami.json")/$(wc -c <"$WORK/whoami.json") B (bare/marquee)"

# --- 5. load -----------------------------------------------------------------------------
lua "$WORK/list.lua" "$KEY" "$LIST_BODY"
lua "$WORK/whoami.lua" "$KEY" "$WHOAMI_BODY"
measure "bare tools/list" "$BARE_URL" "$WORK/list.lua"
measure "marquee tools/list" "$MQ_URL" "$WORK/list.lua"
measure "bare whoami" "$BARE_URL" "$WORK/whoami.lua"
measure "marquee whoami" "$MQ_URL" "$WORK/whoami.lua"
if [[ $DIAG == 1 ]]; then
    lua "$WORK/unknown.lua" "mq_0000000000_$(printf 'A%.0s' $(seq 40))" "$LIST_BODY"
    lua "$WORK/malformed.lua" "not-a-key" "$LIST_BODY"
    measure "marquee tools/list, unknown key (401)" "$MQ_URL" "$WORK/unknown.lua" 401
    measure "marquee tools/list, malformed key (401)" "$MQ_URL" "$WORK/malformed.lua" 401
fi
RSS_LOADED=$(rss "$MQ_PID" VmRSS)

# --- 6. memory after 10,000 more requests ------------------------------------------------
per_thread=$(((MEM_REQUESTS + THREADS - 1) / THREADS))
lua "$WORK/mem.lua" "$KEY" "$LIST_BODY" "$per_thread"
log "wrk: $MEM_REQUESTS more tools/list requests to marquee"
wrk -t"$THREADS" -c"$CONNECTIONS" -d30s -s "$WORK/mem.lua" "$MQ_URL" >"$WORK/wrk-mem.txt"
MEM_SENT=$(awk '/requests in/ { print $1 }' "$WORK/wrk-mem.txt")

# --- report ------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after a $WARMUP warm-up), 127.0.0.1," \
    "$(nproc) cores shared by wrk and the server"
echo
echo "| case | req/s | p50 (ms) | p99 (ms) | ratio vs bare |"
echo "|---|---:|---:|---:|---:|"
for name in "${ROWS[@]}"; do
    case $name in
        *whoami*) base="bare whoami" ;;
        *) base="bare tools/list" ;;
    esac
    printf '| %s | %.0f | %s | %s | %s |\n' "$name" "${RATE[$name]}" "${P50[$name]}" \
        "${P99[$name]}" "$(ratio "${RATE[$name]}" "${RATE[$base]}")"
done
echo
echo "marquee memory (pid $MQ_PID):"
echo "- VmRSS after start and setup: $RSS_IDLE"
echo "- VmRSS after the load runs:   $RSS_LOADED"
echo "- VmRSS after $MEM_SENT more requests: $(rss "$MQ_PID" VmRSS)"
echo "- VmHWM (peak resident):       $(rss "$MQ_PID" VmHWM)"
echo "bench-bare VmRSS: $(rss "$BARE_PID" VmRSS), VmHWM: $(rss "$BARE_PID" VmHWM)"
echo
verdict() { if [[ $1 == 1 ]]; then echo "met"; else echo "MISSED"; fi; }
for m in tools/list whoami; do
    r=$(ratio "${RATE[marquee $m]}" "${RATE[bare $m]}")
    ok=$(awk -v r="$r" -v p="${P99[marquee $m]}" 'BEGIN { print (r >= 0.5 && p < 5) ? 1 : 0 }')
    echo "target $m (>= 50% of bare, p99 < 5 ms at $CONNECTIONS connections): $(verdict "$ok")"
done
kb=$(rss_kb "$MQ_PID" VmRSS)
echo "target memory (VmRSS < 40 MB after the extra requests): $(verdict $((kb * 1024 < 40000000)))"
