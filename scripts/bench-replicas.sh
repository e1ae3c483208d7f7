#!/usr/bin/env bash
# Loopback load benchmark of replicas: one `marquee serve` behind nginx, then two replicas on
# the same store behind the same nginx (deploy/replicas/nginx.conf, its ports replaced), both
# measured in the same run with the same calls, so the second is read against the first.
#
# Usage:
#   scripts/bench-replicas.sh
#
# What it does, all on 127.0.0.1:
#   1. `cargo build --release -p marquee` (honours CARGO_TARGET_DIR); wrk and nginx must be
#      installed (scripts/test.sh installs both);
#   2. starts replica 1 on a fresh data folder (reads the owner key it prints once) and
#      replica 2 on the same folder, and nginx in front of replica 1 only;
#   3. for each case (1 replica, 2 replicas: nginx reloaded with both), for whoami (a read
#      answered from kept state) and search_titles on the builtin catalogue: wrk warm-up, then
#      a measured run; the replicas' CPU time (utime+stime from /proc) per request;
#   4. repeats the whole pair BENCH_ROUNDS times and reports, per row, the worst round (lowest
#      rate, highest p99, most CPU per request).
# Processes it started are stopped by pid on exit; the temporary folder is removed.
#
# Knobs: BENCH_CONNECTIONS=32 BENCH_THREADS=2 BENCH_WARMUP=2s BENCH_DURATION=8s BENCH_ROUNDS=3
#        BENCH_KEEP=1 keeps the temporary folder.
# wrk, nginx and the replicas share the machine's cores: on 2 cores a second replica cannot
# add cores, so compare CPU per request and the rates side by side, not against a bigger host.

set -euo pipefail

CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
WARMUP=${BENCH_WARMUP:-2s}
DURATION=${BENCH_DURATION:-8s}
ROUNDS=${BENCH_ROUNDS:-3}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
bench_setup bench-replicas

command -v wrk >/dev/null || die "wrk is missing (apt-get install wrk)"
NGINX=$(command -v nginx || true)
[[ -z $NGINX && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
[[ -n $NGINX ]] || die "nginx is missing (apt-get install nginx-light)"

log "building (cargo build --release -p marquee)"
(cd "$ROOT" && cargo build --release -p marquee --message-format=json-render-diagnostics) >"$WORK/build.json"
MARQUEE=$(grep -o '"executable":"[^"]*/marquee"' "$WORK/build.json" | tail -n1 | cut -d'"' -f4)
[[ -x $MARQUEE ]] || die "the build did not produce marquee"

# replica N: starts `marquee serve` N on the shared data folder; sets PORT_N and PID_N.
declare -A PORT PID
replica() {
    local n=$1 port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    printf 'listen = "127.0.0.1:%s"\ntrusted_proxies = ["127.0.0.1"]\n' "$port" >"$WORK/r$n.toml"
    (
        while read -r var; do unset "$var"; done < <(compgen -e | grep '^MARQUEE_' || true)
        export MARQUEE_LIMITS__CALLS_PER_MINUTE=0
        exec "$MARQUEE" serve --config "$WORK/r$n.toml" --data-dir "$WORK/data"
    ) >"$WORK/r$n.out" 2>"$WORK/r$n.err" &
    PID[$n]=$!
    PIDS+=("${PID[$n]}")
    PORT[$n]=$port
    wait_ready "http://127.0.0.1:$port" 60 || die "replica $n did not come up: $(tail -5 "$WORK/r$n.err")"
}

mkdir -p "$WORK/data" "$WORK/nginx"
replica 1
OWNER=$(awk '/shown once/ { seen = 1 } seen && $1 ~ /^mq_/ { print $1; exit }' "$WORK/r1.out")
[[ -n $OWNER ]] || die "no owner key (mq_…) on replica 1's stdout"
replica 2
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# nginx_conf COUNT: deploy/replicas/nginx.conf with the first COUNT replicas' ports.
nginx_conf() {
    local conf
    conf=$(sed -e "s/listen 127.0.0.1:8080;/listen 127.0.0.1:$NGINX_PORT;/" \
        -e "s/127.0.0.1:8765 /127.0.0.1:${PORT[1]} /" \
        -e "s/127.0.0.1:8766 /127.0.0.1:${PORT[2]} /" \
        -e "/127.0.0.1:8767 /d" "$ROOT/deploy/replicas/nginx.conf")
    if [[ $1 == 1 ]]; then conf=$(printf '%s\n' "$conf" | sed "/127.0.0.1:${PORT[2]} /d"); fi
    printf '%s\n' "$conf" >"$WORK/nginx/nginx.conf"
}
nginx_conf 1
"$NGINX" -p "$WORK/nginx" -c nginx.conf -g 'daemon off; master_process off;' 2>"$WORK/nginx.err" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
URL="http://127.0.0.1:$NGINX_PORT/mcp"
wait_ready "http://127.0.0.1:$NGINX_PORT" 20 || die "nginx did not come up: $(cat "$WORK/nginx.err")"

# use COUNT: nginx in front of the first COUNT replicas (restarted on the new file).
use() {
    stop "$NGINX_PID"
    nginx_conf "$1"
    "$NGINX" -p "$WORK/nginx" -c nginx.conf -g 'daemon off; master_process off;' 2>>"$WORK/nginx.err" &
    NGINX_PID=$!
    PIDS+=("$NGINX_PID")
    wait_ready "http://127.0.0.1:$NGINX_PORT" 20 || die "nginx did not come back"
}

lua() {
    {
        printf 'wrk.method = "POST"\n'
        printf 'wrk.body = [[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}]]\n' "$2" "$3"
        printf 'wrk.headers["Content-Type"] = "application/json"\n'
        printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$OWNER"
    } >"$1"
}
lua "$WORK/whoami.lua" whoami '{}'
lua "$WORK/search.lua" search_titles '{"query":"alien"}'

# ticks: the replicas' utime+stime so far, in clock ticks.
ticks() {
    local n t=0
    for n in 1 2; do
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/${PID[$n]}/stat")))
    done
    echo "$t"
}
HZ=$(getconf CLK_TCK)

to_ms() {
    awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; printf "%.2f", n }'
}

declare -A RATE P99 CPU
ROWS=()
# measure NAME SCRIPT: one warm-up and one measured run; keeps the worst of the rounds.
measure() {
    local name=$1 out="$WORK/wrk.txt" before after rate p99 cpu
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$2" "$URL" >/dev/null
    before=$(ticks)
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$2" "$URL" >"$out"
    after=$(ticks)
    grep -q 'Non-2xx or 3xx responses' "$out" && die "$name: some answers were not 2xx: $(cat "$out")"
    rate=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    local requests
    requests=$(awk '/requests in/ { print $1 }' "$out")
    cpu=$(awk -v d="$((after - before))" -v hz="$HZ" -v n="$requests" 'BEGIN { printf "%.1f", (n > 0 ? 1e6 * d / hz / n : 0) }')
    if [[ -z ${RATE[$name]:-} ]]; then
        ROWS+=("$name")
        RATE[$name]=$rate P99[$name]=$p99 CPU[$name]=$cpu
    else
        awk -v a="$rate" -v b="${RATE[$name]}" 'BEGIN { exit !(a < b) }' && RATE[$name]=$rate
        awk -v a="$p99" -v b="${P99[$name]}" 'BEGIN { exit !(a > b) }' && P99[$name]=$p99
        awk -v a="$cpu" -v b="${CPU[$name]}" 'BEGIN { exit !(a > b) }' && CPU[$name]=$cpu
    fi
    log "$name: $rate req/s, p99 $p99 ms, $cpu µs CPU per request"
}

for round in $(seq "$ROUNDS"); do
    log "round $round of $ROUNDS"
    use 1
    measure "whoami, 1 replica" "$WORK/whoami.lua"
    measure "search_titles, 1 replica" "$WORK/search.lua"
    use 2
    measure "whoami, 2 replicas" "$WORK/whoami.lua"
    measure "search_titles, 2 replicas" "$WORK/search.lua"
done

echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency through nginx (after a $WARMUP warm-up)," \
    "127.0.0.1, $(nproc) cores shared by wrk, nginx and the replicas; worst of $ROUNDS rounds"
echo
echo "| case | req/s | p99 (ms) | replicas' CPU per request (µs) |"
echo "|---|---:|---:|---:|"
for name in "${ROWS[@]}"; do
    printf '| %s | %.0f | %s | %s |\n' "$name" "${RATE[$name]}" "${P99[$name]}" "${CPU[$name]}"
done
