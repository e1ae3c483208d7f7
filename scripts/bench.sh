#!/usr/bin/env bash
# Loopback load benchmark of Marquee's `POST /mcp` against a bare axum reference.
#
# Usage:
#   scripts/bench.sh
#
# What it does, in one run, all on 127.0.0.1:
#   1. installs `wrk` with apt-get when it is missing (apt-get update only if the install fails);
#   2. `cargo build --profile bench -p marquee -p bench` (honours CARGO_TARGET_DIR);
#   3. starts `marquee serve` with MARQUEE_LISTEN=127.0.0.1:0 (the kernel picks a free port; the
#      address is read from the connect hint it prints) and a fresh temporary --data-dir, waits
#      for /readyz, reads the owner key it prints once, and saves its real answers to
#      `tools/list` and `tools/call whoami` (each checked: 200 with a "result");
#   4. starts `bench-bare` (crates/bench) answering those saved bodies after parsing each request;
#   5. for bare/marquee x tools/list/whoami: wrk warm-up, then a measured run with --latency;
#      each bare/marquee pair is measured again while the host steals CPU (bench-lib.sh);
#   6. sends 10,000 more requests to marquee and notes its VmRSS and VmHWM;
#   7. torrents: starts two `fake-qbittorrent` (crates/bench; 50,000 synthetic torrents
#      each, seeds 1 and 2) and a second marquee with `--config` naming them as two qbittorrent
#      `[[instances]]`; polls `find_torrents` until its total is 100,000, notes that marquee's
#      VmRSS and VmHWM, saves one real `find_torrents` page (BENCH_FIND_ARGS: a filter, 200 rows);
#      saves one real `search_titles` answer (builtin catalogue) from the first marquee;
#      starts a second `bench-bare` answering both, and measures bare/marquee x both tools;
#   8. runs the in-process builtin-catalogue benchmark (adapters-catalogue example bench_builtin)
#      for "search under 1 ms p50 inside the server";
#   9. runs the release-name parser alone (recognize example speed, one thread) for
#      "recognize_media parsing >= 50,000 names per second on one core", counted per CPU-second;
#  10. runs the indexer examples: a 1,000-item Torznab answer parsed for 2 s (>= 20 MB/s), and
#      search_indexers through the core over five Torznab fakes answering 100 rows after 50 ms
#      (p50 within 1.2x the delay, the time after the slowest indexer answered < 2 ms);
#   prints a markdown table (req/s, p50, p99, ratio vs bare), the memory lines and the targets.
# Processes it started are killed by pid on exit; the temporary folder is removed. About two and
# a half minutes after the build (three with BENCH_DIAG=1).
#
# Knobs (environment):
#   BENCH_CONNECTIONS=32  BENCH_THREADS=2  BENCH_WARMUP=2s  BENCH_DURATION=8s
#   BENCH_MEM_REQUESTS=10000
#   BENCH_TORRENTS=50000   synthetic torrents per fake qBittorrent (two fakes)
#   BENCH_FIND_ARGS='{"category":"movies","limit":200,"sort":"size"}'   find_torrents arguments
#   BENCH_SEARCH_ARGS='{"query":"star wars"}'                           search_titles arguments
#   BENCH_LOAD_TIMEOUT=180 seconds to wait for the torrent catalogues to load
#   BENCH_INPROC=1 builds and runs the bench_builtin example (0: skip it; the command is printed)
#   BENCH_RECOGNIZE=1 builds and runs the recognize speed example (0: skip it; the command is printed)
#   BENCH_INDEXERS=1 builds and runs the indexer examples: the parse of a 1,000-item Torznab answer
#                  and search_indexers over five fake feeds (0: skip them; the commands are printed)
#   BENCH_DIAG=1   adds two diagnostic rows: tools/list with a well-formed unknown key (401 after
#                  the key lookup) and with a malformed key (401 before any database work).
#   BENCH_KEEP=1   keeps the temporary folder (logs, saved answers, wrk output).
#   BENCH_MAX_STEAL=5 BENCH_ATTEMPTS=3   the host steal gate of each pair (see bench-lib.sh)
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
TORRENTS=${BENCH_TORRENTS:-50000}
FIND_ARGS=${BENCH_FIND_ARGS:-'{"category":"movies","limit":200,"sort":"size"}'}
SEARCH_ARGS=${BENCH_SEARCH_ARGS:-'{"query":"star wars"}'}
LOAD_TIMEOUT=${BENCH_LOAD_TIMEOUT:-180}
INPROC=${BENCH_INPROC:-1}
INPROC_CMD="cargo run --profile bench -p adapters-catalogue --example bench_builtin"
RECOGNIZE=${BENCH_RECOGNIZE:-1}
RECOGNIZE_CMD="cargo run --profile bench -p recognize --example speed"
INDEXERS=${BENCH_INDEXERS:-1}
PARSE_CMD="cargo run --profile bench -p adapters-indexers --example parse_speed"
SEARCH_CMD="cargo run --profile bench -p tools --example indexer_search_bench"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
bench_setup bench

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
if [[ $INPROC == 1 ]]; then
    # Its own build: the example's dev-dependencies must not change marquee's features.
    log "building (cargo build --profile bench -p adapters-catalogue --example bench_builtin)"
    (cd "$ROOT" && cargo build --profile bench -p adapters-catalogue --example bench_builtin \
        --message-format=json-render-diagnostics) >>"$WORK/build.json"
fi
if [[ $RECOGNIZE == 1 ]]; then
    log "building (cargo build --profile bench -p recognize --example speed)"
    (cd "$ROOT" && cargo build --profile bench -p recognize --example speed \
        --message-format=json-render-diagnostics) >>"$WORK/build.json"
fi
if [[ $INDEXERS == 1 ]]; then
    log "building (cargo build --profile bench -p adapters-indexers --example parse_speed -p tools --example indexer_search_bench)"
    (cd "$ROOT" && cargo build --profile bench -p adapters-indexers --example parse_speed \
        -p tools --example indexer_search_bench \
        --message-format=json-render-diagnostics) >>"$WORK/build.json"
fi
executable() {
    grep -o "\"executable\":\"[^\"]*/$1\"" "$WORK/build.json" | tail -n1 | cut -d'"' -f4
}
MARQUEE=$(executable marquee)
BARE=$(executable bench-bare)
FAKE=$(executable fake-qbittorrent)
[[ -x $MARQUEE ]] || die "no marquee binary in the build output"
[[ -x $BARE ]] || die "no bench-bare binary in the build output"
[[ -x $FAKE ]] || die "no fake-qbittorrent binary in the build output"
INPROC_BIN=""
if [[ $INPROC == 1 ]]; then
    INPROC_BIN=$(executable bench_builtin)
    [[ -x $INPROC_BIN ]] || die "no bench_builtin example in the build output"
fi
RECOGNIZE_BIN=""
if [[ $RECOGNIZE == 1 ]]; then
    RECOGNIZE_BIN=$(executable speed)
    [[ -x $RECOGNIZE_BIN ]] || die "no recognize speed example in the build output"
fi
PARSE_BIN="" SEARCH_BIN=""
if [[ $INDEXERS == 1 ]]; then
    PARSE_BIN=$(executable parse_speed)
    SEARCH_BIN=$(executable indexer_search_bench)
    [[ -x $PARSE_BIN && -x $SEARCH_BIN ]] || die "no indexer examples in the build output"
fi

# --- helpers -----------------------------------------------------------------------------

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

# dur_ms "27.381µs" -> 0.027 (Rust's Debug of a Duration: ns, µs, ms or s)
dur_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "ns") n /= 1000000; else if (u == "ms") n *= 1; else if (u == "s") n *= 1000
        else n /= 1000
        printf "%.3f", n
    }'
}

ROWS=()
declare -A RATE P50 P99 STEAL
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
    [[ -n ${STEAL[$name]:-} ]] || ROWS+=("$name")
    STEAL[$name]=-
}

# measure_pair BARE_NAME BARE_URL NAME URL LUA: the bare server, then Marquee, as one pair;
# again (up to BENCH_ATTEMPTS pairs) while the host took more than BENCH_MAX_STEAL percent of
# the CPU over the pair (see bench-lib.sh). The quietest pair's figures are kept.
measure_pair() {
    local a s t0 best_s="" kept=()
    for ((a = 1; a <= ATTEMPTS; a++)); do
        t0=$(cpu_ticks)
        measure "$1" "$2" "$5"
        measure "$3" "$4" "$5"
        s=$(steal_since "$t0")
        if quieter "$s" "$best_s"; then
            best_s=$s
            kept=("${RATE[$1]}" "${P50[$1]}" "${P99[$1]}" "${RATE[$3]}" "${P50[$3]}" "${P99[$3]}" "$a")
        fi
        quiet "$s" && break
        log "host steal $s% (over $MAX_STEAL%): measuring the pair again"
    done
    RATE[$1]=${kept[0]} P50[$1]=${kept[1]} P99[$1]=${kept[2]}
    RATE[$3]=${kept[3]} P50[$3]=${kept[4]} P99[$3]=${kept[5]}
    STEAL[$1]="$best_s (${kept[6]})" STEAL[$3]="$best_s (${kept[6]})"
}

# noise NAME: a remark when NAME's pair was measured under high steal in every try.
noise() {
    local s=${STEAL[$1]%% *}
    [[ $s == - ]] || quiet "$s" ||
        echo " (host steal $s% in the quietest of $ATTEMPTS tries: says more of the host than of Marquee)"
}

# start_marquee TAG [CONFIG]: starts `marquee serve` on 127.0.0.1:0 with a fresh data folder
# $WORK/data-TAG, logs in $WORK/marquee-TAG.{out,err}; sets STARTED_PID, STARTED_URL, STARTED_KEY.
# A clean environment: no MARQUEE_* from the caller but the log filter, and a working folder
# without a marquee.toml (CONFIG, when given, is passed as --config). Port 0: the kernel picks.
start_marquee() {
    local tag=$1 config=${2:-} out="$WORK/marquee-$1.out" err="$WORK/marquee-$1.err" base ready
    mkdir -p "$WORK/data-$tag"
    local args=()
    if [[ -n $config ]]; then args=(--config "$config"); fi
    (
        while read -r var; do
            [[ $var == MARQUEE_LOG ]] || unset "$var"
        done < <(compgen -e | grep '^MARQUEE_' || true)
        cd "$WORK"
        # Measured at full speed: no per-person call rate (the product default is 600 a minute).
        export MARQUEE_LISTEN=127.0.0.1:0 MARQUEE_LIMITS__CALLS_PER_MINUTE=0
        exec "$MARQUEE" "${args[@]}" serve --data-dir "$WORK/data-$tag"
    ) >"$out" 2>"$err" &
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    STARTED_URL=$(wait_for_line "$out" 'http://127\.0\.0\.1:[0-9]+/mcp' "$STARTED_PID" 30 |
        grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' | head -n1) ||
        fail_marquee "$tag" "marquee did not come up (no owner key and address on its stdout within 30 s)"
    base=${STARTED_URL%/mcp}
    STARTED_KEY=$(awk '/shown once/ { seen = 1 } seen && $1 ~ /^mq_/ { print $1; exit }' "$out")
    [[ -n $STARTED_KEY ]] ||
        fail_marquee "$tag" "no owner key (mq_…) after \"shown once\" on marquee's stdout"
    ready=0
    for _ in $(seq 100); do
        kill -0 "$STARTED_PID" 2>/dev/null || fail_marquee "$tag" "marquee exited during start"
        if curl -sf --max-time 2 "$base/readyz" >/dev/null; then
            ready=1
            break
        fi
        sleep 0.1
    done
    ((ready)) || fail_marquee "$tag" "marquee did not become ready at $base/readyz within 10 s"
}

fail_marquee() {
    log "marquee ($1) stdout:"
    sed 's/mq_[A-Za-z0-9_]*/mq_…/g' "$WORK/marquee-$1.out" >&2 || true
    log "marquee ($1) stderr:"
    cat "$WORK/marquee-$1.err" >&2 || true
    die "$2"
}

# start_bare TAG ANSWER...: starts bench-bare with these --answer specs; sets STARTED_PID/URL.
start_bare() {
    local tag=$1 spec args=()
    shift
    for spec in "$@"; do args+=(--answer "$spec"); done
    "$BARE" --listen 127.0.0.1:0 "${args[@]}" >"$WORK/bare-$tag.out" 2>"$WORK/bare-$tag.err" &
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    STARTED_URL=$(wait_for_line "$WORK/bare-$tag.out" '^listening on ' "$STARTED_PID" 10 |
        awk '{ print $3 }') || die "bench-bare did not come up: $(cat "$WORK/bare-$tag.err")"
}

# --- 3. marquee --------------------------------------------------------------------------
start_marquee main
MQ_PID=$STARTED_PID
MQ_URL=$STARTED_URL
KEY=$STARTED_KEY
log "marquee ready at $MQ_URL (pid $MQ_PID)"

LIST_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
WHOAMI_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}'
rpc "$MQ_URL" "$KEY" "$LIST_BODY" "$WORK/tools-list.json"
rpc "$MQ_URL" "$KEY" "$WHOAMI_BODY" "$WORK/whoami.json"
grep -q '"name":"whoami"' "$WORK/tools-list.json" || die "marquee's tools/list has no whoami"
RSS_IDLE=$(rss "$MQ_PID" VmRSS)

# --- 4. bench-bare -----------------------------------------------------------------------
start_bare main "tools/list=$WORK/tools-list.json" "tools/call=$WORK/whoami.json"
BARE_PID=$STARTED_PID
BARE_URL=$STARTED_URL
rpc "$BARE_URL" "$KEY" "$LIST_BODY" "$WORK/bare-list.json"
rpc "$BARE_URL" "$KEY" "$WHOAMI_BODY" "$WORK/bare-whoami.json"
log "bench-bare at $BARE_URL (pid $BARE_PID); answer sizes: tools/list" \
    "$(wc -c <"$WORK/bare-list.json")/$(wc -c <"$WORK/tools-list.json") B," \
    "whoami $(wc -c <"$WORK/bare-whoami.json")/$(wc -c <"$WORK/whoami.json") B (bare/marquee)"

# --- 5. load -----------------------------------------------------------------------------
lua "$WORK/list.lua" "$KEY" "$LIST_BODY"
lua "$WORK/whoami.lua" "$KEY" "$WHOAMI_BODY"
measure_pair "bare tools/list" "$BARE_URL" "marquee tools/list" "$MQ_URL" "$WORK/list.lua"
measure_pair "bare whoami" "$BARE_URL" "marquee whoami" "$MQ_URL" "$WORK/whoami.lua"
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
# Each wrk thread stops after its share, but wrk itself always runs for -d: size -d from the
# rate just measured (1.5x the expected time, 3 to 60 s).
mem_secs=$(awk -v n="$MEM_REQUESTS" -v r="${RATE[marquee tools/list]}" \
    'BEGIN { s = int(2 + 1.5 * n / (r > 0 ? r : 1)); print (s < 3 ? 3 : (s > 60 ? 60 : s)) }')
log "wrk: $MEM_REQUESTS more tools/list requests to marquee (at most ${mem_secs}s)"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${mem_secs}s" -s "$WORK/mem.lua" "$MQ_URL" >"$WORK/wrk-mem.txt"
MEM_SENT=$(awk '/requests in/ { print $1 }' "$WORK/wrk-mem.txt")
if ((MEM_SENT < MEM_REQUESTS)); then
    log "only $MEM_SENT of $MEM_REQUESTS requests completed within ${mem_secs}s"
fi
# Noted now: the later cases send the first marquee search_titles requests.
RSS_MEM=$(rss "$MQ_PID" VmRSS)
ANON_MEM=$(rss "$MQ_PID" RssAnon)
HWM_MEM=$(rss "$MQ_PID" VmHWM)
KB_MEM=$(rss_kb "$MQ_PID" VmRSS)
BARE_MEM="$(rss "$BARE_PID" VmRSS), VmHWM: $(rss "$BARE_PID" VmHWM)"

# --- 7. torrents and search_titles -------------------------------------------------------
# Two fake qBittorrents; each builds its full maindata answer before it prints its address.
FAKE_PASSWORD="bench-$RANDOM$RANDOM"
FAKE_PIDS=()
FAKE_URLS=()
for seed in 1 2; do
    "$FAKE" --listen 127.0.0.1:0 --torrents "$TORRENTS" --seed "$seed" --username admin \
        --password "$FAKE_PASSWORD" --exit-after 3600 \
        >"$WORK/fake-$seed.out" 2>"$WORK/fake-$seed.err" &
    FAKE_PIDS+=($!)
    PIDS+=($!)
done
for i in 0 1; do
    url=$(wait_for_line "$WORK/fake-$((i + 1)).out" '^listening on ' "${FAKE_PIDS[$i]}" 120 |
        awk '{ print $3 }') ||
        die "fake-qbittorrent $((i + 1)) did not come up: $(cat "$WORK/fake-$((i + 1)).err")"
    FAKE_URLS+=("$url")
    log "fake-qbittorrent $((i + 1)) at $url (pid ${FAKE_PIDS[$i]}): $(tail -n1 "$WORK/fake-$((i + 1)).err" |
        sed 's/^fake-qbittorrent: //')"
done
{
    for i in 0 1; do
        printf '[[instances]]\nid = "qb-%d"\nkind = "qbittorrent"\nurl = "%s"\n' $((i + 1)) "${FAKE_URLS[$i]}"
        printf 'username = "admin"\npassword = "%s"\n\n' "$FAKE_PASSWORD"
    done
} >"$WORK/marquee-torrents.toml"
load_started=$(date +%s.%N)
start_marquee torrents "$WORK/marquee-torrents.toml"
MQ2_PID=$STARTED_PID
MQ2_URL=$STARTED_URL
KEY2=$STARTED_KEY
log "marquee with two qbittorrent instances ready at $MQ2_URL (pid $MQ2_PID)"

# Poll an unfiltered one-row page until both catalogues are in: total = 2 x TORRENTS.
TOTAL_WANTED=$((2 * TORRENTS))
POLL_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_torrents","arguments":{"limit":1}}}'
total=0
deadline=$((SECONDS + LOAD_TIMEOUT))
while ((SECONDS < deadline)); do
    kill -0 "$MQ2_PID" 2>/dev/null || fail_marquee torrents "marquee exited while loading the torrents"
    # Only the structured content matches "total":N (the text copy escapes its quotes).
    total=$(curl -sS --max-time 15 -H "Authorization: Bearer $KEY2" \
        -H 'Content-Type: application/json' --data-binary "$POLL_BODY" "$MQ2_URL" 2>/dev/null |
        grep -oE '"total":[0-9]+' | head -n1 | cut -d: -f2 || true)
    [[ ${total:-0} -ge $TOTAL_WANTED ]] && break
    sleep 0.5
done
[[ ${total:-0} -ge $TOTAL_WANTED ]] ||
    fail_marquee torrents "find_torrents total is ${total:-none}, not $TOTAL_WANTED, after ${LOAD_TIMEOUT}s"
LOAD_SECS=$(awk -v a="$load_started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
RSS2_LOADED=$(rss "$MQ2_PID" VmRSS)
HWM2_LOADED=$(rss "$MQ2_PID" VmHWM)
log "find_torrents total $total after ${LOAD_SECS}s; marquee VmRSS $RSS2_LOADED"

FIND_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_torrents","arguments":'"$FIND_ARGS"'}}'
SEARCH_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_titles","arguments":'"$SEARCH_ARGS"'}}'
rpc "$MQ2_URL" "$KEY2" "$FIND_BODY" "$WORK/find.json"
rpc "$MQ_URL" "$KEY" "$SEARCH_BODY" "$WORK/search.json"
FIND_ROWS=$(grep -o '"info_hash":"' "$WORK/find.json" | wc -l)
FIND_TOTAL=$(grep -oE '"total":[0-9]+' "$WORK/find.json" | head -n1 | cut -d: -f2)
SEARCH_ROWS=$(grep -o '"media_id":"' "$WORK/search.json" | wc -l)
((FIND_ROWS > 0)) || die "find_torrents $FIND_ARGS found no torrent: $(head -c 400 "$WORK/find.json")"
((SEARCH_ROWS > 0)) || die "search_titles $SEARCH_ARGS found no title: $(head -c 400 "$WORK/search.json")"

start_bare tools "tools/call:find_torrents=$WORK/find.json" \
    "tools/call:search_titles=$WORK/search.json"
BARE2_PID=$STARTED_PID
BARE2_URL=$STARTED_URL
rpc "$BARE2_URL" "$KEY2" "$FIND_BODY" "$WORK/bare-find.json"
rpc "$BARE2_URL" "$KEY" "$SEARCH_BODY" "$WORK/bare-search.json"
log "bench-bare at $BARE2_URL (pid $BARE2_PID); answer sizes: find_torrents" \
    "$(wc -c <"$WORK/bare-find.json")/$(wc -c <"$WORK/find.json") B ($FIND_ROWS rows of $FIND_TOTAL)," \
    "search_titles $(wc -c <"$WORK/bare-search.json")/$(wc -c <"$WORK/search.json") B ($SEARCH_ROWS titles)"

lua "$WORK/find.lua" "$KEY2" "$FIND_BODY"
lua "$WORK/search.lua" "$KEY" "$SEARCH_BODY"
measure_pair "bare find_torrents" "$BARE2_URL" "marquee find_torrents (100k torrents)" "$MQ2_URL" \
    "$WORK/find.lua"
measure_pair "bare search_titles" "$BARE2_URL" "marquee search_titles (builtin)" "$MQ_URL" \
    "$WORK/search.lua"
RSS2_AFTER=$(rss "$MQ2_PID" VmRSS)

# --- 8. in-process catalogue search ------------------------------------------------------
INPROC_LINE=""
if [[ -n $INPROC_BIN ]]; then
    log "in-process: $INPROC_CMD"
    timeout 600 "$INPROC_BIN" >"$WORK/inproc.txt" 2>&1 || die "bench_builtin failed: $(tail "$WORK/inproc.txt")"
    INPROC_LINE=$(grep -m1 '^search (index' "$WORK/inproc.txt" || true)
fi

# --- 9. release-name parsing alone -------------------------------------------------------
RECOGNIZE_LINE=""
if [[ -n $RECOGNIZE_BIN ]]; then
    log "recognize: $RECOGNIZE_CMD"
    timeout 120 "$RECOGNIZE_BIN" >"$WORK/recognize.txt" 2>&1 ||
        die "the recognize speed example failed: $(tail "$WORK/recognize.txt")"
    RECOGNIZE_LINE=$(grep -m1 '^recognize: ' "$WORK/recognize.txt" || true)
fi

# --- 10. indexers: the Torznab parse alone, and search_indexers over five slow feeds -------
PARSE_LINE="" SEARCH_LINE=""
if [[ -n $PARSE_BIN ]]; then
    log "indexers: $PARSE_CMD; $SEARCH_CMD"
    timeout 120 "$PARSE_BIN" >"$WORK/parse.txt" 2>&1 ||
        die "the parse_speed example failed: $(tail "$WORK/parse.txt")"
    PARSE_LINE=$(grep -m1 'MB/s' "$WORK/parse.txt" || true)
    timeout 300 "$SEARCH_BIN" >"$WORK/search.txt" 2>&1 ||
        die "the indexer_search_bench example failed: $(tail "$WORK/search.txt")"
    SEARCH_LINE=$(grep -m1 '^{' "$WORK/search.txt" || true)
fi

# --- report ------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after a $WARMUP warm-up), 127.0.0.1," \
    "$(nproc) cores shared by wrk and the server"
echo
echo "| case | req/s | p50 (ms) | p99 (ms) | ratio vs bare | host steal % (try kept) |"
echo "|---|---:|---:|---:|---:|---:|"
for name in "${ROWS[@]}"; do
    case $name in
        *whoami*) base="bare whoami" ;;
        *find_torrents*) base="bare find_torrents" ;;
        *search_titles*) base="bare search_titles" ;;
        *) base="bare tools/list" ;;
    esac
    printf '| %s | %.0f | %s | %s | %s | %s |\n' "$name" "${RATE[$name]}" "${P50[$name]}" \
        "${P99[$name]}" "$(ratio "${RATE[$name]}" "${RATE[$base]}")" "${STEAL[$name]}"
done
echo
echo "marquee memory (pid $MQ_PID):"
echo "- VmRSS after start and setup: $RSS_IDLE"
echo "- VmRSS after the load runs:   $RSS_LOADED"
echo "- VmRSS after $MEM_SENT more requests: $RSS_MEM, of which RssAnon $ANON_MEM"
echo "- VmHWM (peak resident):       $HWM_MEM"
echo "- (then served the search_titles runs: VmRSS $(rss "$MQ_PID" VmRSS), VmHWM $(rss "$MQ_PID" VmHWM))"
echo "bench-bare VmRSS: $BARE_MEM"
echo
echo "marquee with $total torrents (pid $MQ2_PID; two qbittorrent instances of $TORRENTS, loaded in ${LOAD_SECS}s):"
echo "- VmRSS after loading $total torrents: $RSS2_LOADED"
echo "- VmHWM after loading (peak, parsing both full maindata answers): $HWM2_LOADED"
echo "- VmRSS after the find_torrents runs: $RSS2_AFTER"
for i in 0 1; do
    echo "fake-qbittorrent $((i + 1)) VmRSS: $(rss "${FAKE_PIDS[$i]}" VmRSS)"
done
echo "find_torrents arguments: $FIND_ARGS ($FIND_ROWS rows of $FIND_TOTAL matching, $(wc -c <"$WORK/find.json") B)"
echo "search_titles arguments: $SEARCH_ARGS ($SEARCH_ROWS titles, $(wc -c <"$WORK/search.json") B)"
if [[ -n $INPROC_LINE ]]; then
    echo "in-process builtin catalogue ($INPROC_CMD):"
    echo "- $INPROC_LINE"
else
    echo "in-process builtin catalogue: not run (BENCH_INPROC=0); run: $INPROC_CMD"
fi
if [[ -n $RECOGNIZE_LINE ]]; then
    echo "recognize_media parsing alone ($RECOGNIZE_CMD):"
    echo "- ${RECOGNIZE_LINE#recognize: }"
else
    echo "recognize_media parsing alone: not run (BENCH_RECOGNIZE=0); run: $RECOGNIZE_CMD"
fi
echo
verdict() { if [[ $1 == 1 ]]; then echo "met"; else echo "MISSED"; fi; }
for m in tools/list whoami; do
    r=$(ratio "${RATE[marquee $m]}" "${RATE[bare $m]}")
    ok=$(awk -v r="$r" -v p="${P99[marquee $m]}" 'BEGIN { print (r >= 0.5 && p < 5) ? 1 : 0 }')
    echo "target $m (>= 50% of bare, p99 < 5 ms at $CONNECTIONS connections): $(verdict "$ok")$(noise "marquee $m")"
done
echo "target memory (VmRSS < 40 MB after the extra requests): $(verdict $((KB_MEM * 1024 < 40000000)))"
r=$(ratio "${RATE[marquee find_torrents (100k torrents)]}" "${RATE[bare find_torrents]}")
ok=$(awk -v r="$r" 'BEGIN { print (r >= 0.4) ? 1 : 0 }')
echo "target find_torrents, 100,000 torrents (>= 40% of bare; ratio $r," \
    "p99 ${P99[marquee find_torrents (100k torrents)]} ms): $(verdict "$ok")$(noise "marquee find_torrents (100k torrents)")"
r=$(ratio "${RATE[marquee search_titles (builtin)]}" "${RATE[bare search_titles]}")
ok=$(awk -v r="$r" 'BEGIN { print (r >= 0.4) ? 1 : 0 }')
echo "target search_titles end to end (>= 40% of bare; ratio $r," \
    "p99 ${P99[marquee search_titles (builtin)]} ms): $(verdict "$ok")$(noise "marquee search_titles (builtin)")"
if [[ -n $INPROC_LINE ]]; then
    p50=$(dur_ms "$(sed -E 's/.*p50 ([^,]+),.*/\1/' <<<"$INPROC_LINE")")
    ok=$(awk -v p="$p50" 'BEGIN { print (p < 1) ? 1 : 0 }')
    echo "target search_titles inside the server (catalogue search p50 < 1 ms; p50 $p50 ms): $(verdict "$ok")"
fi
if [[ -n $PARSE_LINE ]]; then
    rate=$(grep -oE '[0-9.]+ MB/s' <<<"$PARSE_LINE" | cut -d' ' -f1)
    ok=$(awk -v r="${rate:-0}" 'BEGIN { print (r >= 20) ? 1 : 0 }')
    echo "target Torznab parse of 1,000 items (>= 20 MB/s; $PARSE_LINE): $(verdict "$ok")"
fi
if [[ -n $SEARCH_LINE ]]; then
    field() { grep -oE "\"$1\":[0-9.]+" <<<"$SEARCH_LINE" | cut -d: -f2; }
    over=$(field p50_over_delay) merge=$(field after_slowest_p50_ms)
    ok=$(awk -v o="${over:-9}" -v m="${merge:-9}" 'BEGIN { print (o <= 1.2 && m < 2) ? 1 : 0 }')
    echo "target search_indexers over 5 feeds at 50 ms (p50 <= 1.2x the delay, merge < 2 ms;" \
        "p50 $(field p50_ms) ms = ${over}x, after the slowest ${merge} ms): $(verdict "$ok")"
elif [[ $INDEXERS != 1 ]]; then
    echo "indexers: not run (BENCH_INDEXERS=0); run: $PARSE_CMD; $SEARCH_CMD"
fi
if [[ -n $RECOGNIZE_LINE ]]; then
    # Names per CPU-second where the example can tell, else per second of wall time.
    rate=$(grep -oE '[0-9]+ names (per CPU-second|/s)' <<<"$RECOGNIZE_LINE" | head -n1 | cut -d' ' -f1)
    ok=$(awk -v r="${rate:-0}" 'BEGIN { print (r >= 50000) ? 1 : 0 }')
    echo "target recognize_media parsing (>= 50,000 names per second on one core; ${rate:-?}): $(verdict "$ok")"
fi
