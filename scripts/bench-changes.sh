#!/usr/bin/env bash
# Loopback load benchmark of change control through the full MCP path, each case
# against the bare axum reference answering the same bytes in the same run.
#
# Usage:
#   scripts/bench-changes.sh
#
# What it does, all on 127.0.0.1:
#   1. `cargo build --profile bench -p marquee -p bench` (honours CARGO_TARGET_DIR); wrk must be
#      installed (scripts/bench.sh installs it);
#   2. starts one `fake-qbittorrent` (BENCH_TORRENTS synthetic torrents; it accepts pause) and
#      `marquee serve` on port 0 with a fresh data folder, that instance and
#      `[mcp] allow_destructive = true`; reads the owner key it prints once; adds a person `ops`
#      with a key on the `operator` preset through the CLI (`marquee people add`, `keys create`);
#   3. waits until find_torrents sees every torrent, takes the first one's info hash and saves
#      two real answers: `pause_torrents` on the owner's grant (an audited direct write: policy,
#      fresh authority, an audit entry written and closed, the client's pause call) and
#      `delete_torrents` under `operator` (a plan: the torrent re-read from the instance, a
#      change stored with its dependency hashes, no write to the client);
#   4. starts `bench-bare` answering those two saved bodies, and measures bare/marquee x both;
#   prints a markdown table (req/s, p50, p99, ratio vs bare) and how many audit entries and
#   changes the runs wrote (when sqlite3 is installed).
# Processes it started are killed by pid on exit; the temporary folder is removed.
#
# Knobs (environment):
#   BENCH_CONNECTIONS=32  BENCH_THREADS=2  BENCH_WARMUP=2s  BENCH_DURATION=8s
#   BENCH_TORRENTS=1000   synthetic torrents in the fake qBittorrent
#   BENCH_KEEP=1          keeps the temporary folder (logs, saved answers, wrk output)
#   MARQUEE_LOG           marquee's log filter (default: its own default, "info")
# wrk and the servers share the machine's cores: compare the ratio, not the absolute rates.

set -euo pipefail

CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
WARMUP=${BENCH_WARMUP:-2s}
DURATION=${BENCH_DURATION:-8s}
TORRENTS=${BENCH_TORRENTS:-1000}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
bench_setup bench-changes

command -v wrk >/dev/null || die "wrk is missing (scripts/bench.sh installs it, or apt-get install wrk)"
command -v curl >/dev/null || die "curl is required"

# --- 1. build ----------------------------------------------------------------------------
log "building (cargo build --profile bench -p marquee -p bench)"
(cd "$ROOT" && cargo build --profile bench -p marquee -p bench \
    --message-format=json-render-diagnostics) >"$WORK/build.json"
executable() {
    grep -o "\"executable\":\"[^\"]*/$1\"" "$WORK/build.json" | tail -n1 | cut -d'"' -f4
}
MARQUEE=$(executable marquee)
BARE=$(executable bench-bare)
FAKE=$(executable fake-qbittorrent)
[[ -x $MARQUEE && -x $BARE && -x $FAKE ]] || die "the build did not produce marquee, bench-bare and fake-qbittorrent"

# --- helpers -----------------------------------------------------------------------------

# call KEY TOOL ARGS OUT: one tools/call; fails unless 200 with a result that is not an error.
call() {
    local body status
    body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$2'","arguments":'$3'}}'
    status=$(curl -sS -o "$4" -w '%{http_code}' --max-time 15 -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' --data-binary "$body" "$MQ_URL") ||
        die "POST $MQ_URL ($2) failed: curl could not connect"
    [[ $status == 200 ]] || die "$2 answered $status: $(head -c 400 "$4")"
    grep -q '"result":' "$4" || die "$2 has no result: $(head -c 400 "$4")"
    if grep -q '"isError":true' "$4"; then die "$2 answered a tool error: $(head -c 600 "$4")"; fi
}

lua() {
    {
        printf 'wrk.method = "POST"\n'
        printf 'wrk.body = [[%s]]\n' "$3"
        printf 'wrk.headers["Content-Type"] = "application/json"\n'
        printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2"
    } >"$1"
}

to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.3f", n
    }'
}

ROWS=()
declare -A RATE P50 P99
measure() {
    local name=$1 url=$2 script=$3 out="$WORK/wrk-${#ROWS[@]}.txt"
    log "wrk: $name"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$script" "$url" >/dev/null
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$script" "$url" >"$out"
    if grep -q 'Non-2xx or 3xx responses' "$out"; then
        cat "$out" >&2
        die "$name: some responses were not 2xx"
    fi
    RATE[$name]=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    P50[$name]=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
    P99[$name]=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    [[ -n ${RATE[$name]} ]] || die "$name: cannot read wrk's output: $(cat "$out")"
    ROWS+=("$name")
}

# --- 2. fake qBittorrent and marquee ----------------------------------------------------
FAKE_PASSWORD="bench-$RANDOM$RANDOM"
"$FAKE" --listen 127.0.0.1:0 --torrents "$TORRENTS" --seed 3 --username admin \
    --password "$FAKE_PASSWORD" --exit-after 3600 >"$WORK/fake.out" 2>"$WORK/fake.err" &
FAKE_PID=$!
PIDS+=("$FAKE_PID")
FAKE_URL=$(wait_for_line "$WORK/fake.out" '^listening on ' "$FAKE_PID" 60 | awk '{ print $3 }') ||
    die "fake-qbittorrent did not come up: $(cat "$WORK/fake.err")"
printf '[mcp]\nallow_destructive = true\n\n[[instances]]\nid = "qb"\nkind = "qbittorrent"\nurl = "%s"\nusername = "admin"\npassword = "%s"\n' \
    "$FAKE_URL" "$FAKE_PASSWORD" >"$WORK/marquee.toml"

mkdir -p "$WORK/data"
(
    while read -r var; do
        [[ $var == MARQUEE_LOG ]] || unset "$var"
    done < <(compgen -e | grep '^MARQUEE_' || true)
    cd "$WORK"
    # Measured at full speed: no per-person call rate (the product default is 600 a minute).
    export MARQUEE_LISTEN=127.0.0.1:0 MARQUEE_LIMITS__CALLS_PER_MINUTE=0
    exec "$MARQUEE" --config "$WORK/marquee.toml" serve --data-dir "$WORK/data"
) >"$WORK/marquee.out" 2>"$WORK/marquee.err" &
MQ_PID=$!
PIDS+=("$MQ_PID")
MQ_URL=$(wait_for_line "$WORK/marquee.out" 'http://127\.0\.0\.1:[0-9]+/mcp' "$MQ_PID" 30 |
    grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' | head -n1) ||
    die "marquee did not come up: $(cat "$WORK/marquee.err")"
OWNER=$(awk '/shown once/ { seen = 1 } seen && $1 ~ /^mq_/ { print $1; exit }' "$WORK/marquee.out")
[[ -n $OWNER ]] || die "no owner key (mq_…) on marquee's stdout"
for _ in $(seq 100); do
    curl -sf --max-time 2 "${MQ_URL%/mcp}/readyz" >/dev/null && break
    sleep 0.1
done
cli() { (cd "$WORK" && env -u MARQUEE_CONFIG "$MARQUEE" --config "$WORK/marquee.toml" "$@" --data-dir "$WORK/data"); }
cli people add ops --role admin >/dev/null 2>"$WORK/cli.err" || die "people add: $(cat "$WORK/cli.err")"
OPS=$(cli keys create --person ops --grant operator 2>"$WORK/cli.err" | grep -m1 '^mq_') ||
    die "keys create: $(cat "$WORK/cli.err")"
log "marquee at $MQ_URL (pid $MQ_PID), fake-qbittorrent at $FAKE_URL (pid $FAKE_PID)"

# --- 3. real answers ---------------------------------------------------------------------
total=0
for _ in $(seq 600); do
    call "$OWNER" find_torrents '{"limit":1,"sort":"name"}' "$WORK/find.json"
    total=$(grep -oE '"total":[0-9]+' "$WORK/find.json" | head -n1 | cut -d: -f2 || true)
    [[ ${total:-0} -ge $TORRENTS ]] && break
    sleep 0.2
done
[[ ${total:-0} -ge $TORRENTS ]] || die "find_torrents total is ${total:-none}, not $TORRENTS"
HASH=$(grep -oE '"info_hash":"[0-9a-f]{40}"' "$WORK/find.json" | head -n1 | cut -d'"' -f4)
[[ -n $HASH ]] || die "no info_hash in $(head -c 300 "$WORK/find.json")"
PAUSE_ARGS='{"info_hashes":["'$HASH'"]}'
DELETE_ARGS='{"info_hashes":["'$HASH'"],"delete_data":false}'
call "$OWNER" pause_torrents "$PAUSE_ARGS" "$WORK/pause.json"
grep -q '"ok":1' "$WORK/pause.json" || die "pause_torrents did not pause: $(head -c 400 "$WORK/pause.json")"
call "$OPS" delete_torrents "$DELETE_ARGS" "$WORK/delete.json"
grep -q '"change_id":"chg_' "$WORK/delete.json" || die "delete_torrents under operator is not a plan: $(head -c 400 "$WORK/delete.json")"

"$BARE" --listen 127.0.0.1:0 --answer "tools/call:pause_torrents=$WORK/pause.json" \
    --answer "tools/call:delete_torrents=$WORK/delete.json" >"$WORK/bare.out" 2>"$WORK/bare.err" &
BARE_PID=$!
PIDS+=("$BARE_PID")
BARE_URL=$(wait_for_line "$WORK/bare.out" '^listening on ' "$BARE_PID" 10 | awk '{ print $3 }') ||
    die "bench-bare did not come up: $(cat "$WORK/bare.err")"

# --- 4. load -----------------------------------------------------------------------------
PAUSE_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pause_torrents","arguments":'$PAUSE_ARGS'}}'
DELETE_BODY='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_torrents","arguments":'$DELETE_ARGS'}}'
lua "$WORK/pause.lua" "$OWNER" "$PAUSE_BODY"
lua "$WORK/delete.lua" "$OPS" "$DELETE_BODY"
measure "bare pause_torrents" "$BARE_URL" "$WORK/pause.lua"
measure "marquee pause_torrents (owner, audited write)" "$MQ_URL" "$WORK/pause.lua"
measure "bare delete_torrents" "$BARE_URL" "$WORK/delete.lua"
measure "marquee delete_torrents (operator, plan)" "$MQ_URL" "$WORK/delete.lua"
# A tool error answers 200 too: check the last answers are still a pause and a plan.
call "$OWNER" pause_torrents "$PAUSE_ARGS" "$WORK/pause-after.json"
call "$OPS" delete_torrents "$DELETE_ARGS" "$WORK/delete-after.json"

# --- report ------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after a $WARMUP warm-up), 127.0.0.1," \
    "$(nproc) cores shared by wrk and the servers; one fake qBittorrent with $TORRENTS torrents"
echo
echo "| case | req/s | p50 (ms) | p99 (ms) | ratio vs bare |"
echo "|---|---:|---:|---:|---:|"
for name in "${ROWS[@]}"; do
    case $name in
        *pause_torrents*) base="bare pause_torrents" ;;
        *) base="bare delete_torrents" ;;
    esac
    printf '| %s | %.0f | %s | %s | %s |\n' "$name" "${RATE[$name]}" "${P50[$name]}" \
        "${P99[$name]}" "$(ratio "${RATE[$name]}" "${RATE[$base]}")"
done
if command -v sqlite3 >/dev/null; then
    echo
    echo "written by the runs: $(sqlite3 "$WORK/data/marquee.db" "SELECT count(*) FROM audit WHERE tool = 'pause_torrents'") audit entries of pause_torrents," \
        "$(sqlite3 "$WORK/data/marquee.db" "SELECT count(*) FROM changes WHERE tool = 'delete_torrents'") pending delete_torrents changes"
fi
