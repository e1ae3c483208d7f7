#!/usr/bin/env bash
# Soak: Marquee under a steady mix of reads and writes for a long while, at a fixed share of the
# peak it reached on this machine a moment before; errors, memory and the audit trail checked.
#
# Usage:
#   scripts/soak.sh                    10 minutes at 80% of the measured peak
#   SOAK_SECONDS=60 scripts/soak.sh    a shorter run
#
# What it does, all on 127.0.0.1 (not part of scripts/test.sh):
#   1. `cargo build --release -p marquee -p bench` (honours CARGO_TARGET_DIR); wrk and curl must
#      be installed (scripts/bench.sh installs wrk);
#   2. starts `fake-qbittorrent` (SOAK_TORRENTS synthetic torrents) and `marquee serve` on port 0
#      with a fresh data folder, naming it as a qbittorrent instance (no per-person call rate);
#   3. the mix, one wrk Lua script: of every SOAK_WRITE_EVERY calls one is a write, the owner's
#      `pause_torrents` of one of 50 torrents (an audited write: one audit entry each), and the
#      others are reads in turn (`whoami`, `tools/list`, `find_torrents` 20 rows, `search_titles`);
#      every answer is checked (HTTP 200, no `"isError":true`) and the writes answered counted;
#   4. the peak: the mix as fast as SOAK_CONNECTIONS connections go, for SOAK_PEAK_SECONDS;
#   5. the pace: each connection waits between calls; two short runs set the wait so the mix
#      runs at SOAK_LOAD percent of the peak;
#   6. the soak: SOAK_SECONDS at that pace, VmRSS sampled every SOAK_SAMPLE seconds; writes stop
#      five seconds before the end so every write sent is answered;
#   7. the report: calls and their rate, errors (non-2xx, socket errors, tool errors: all must be
#      0), latency, RSS start/end/max (flat: end and max within 10% of the start), the audit
#      entries the soak added against the writes it sent and got answered (equal, one for one),
#      the machine (cores, CPU, memory, load average before and after) and the date.
# Exits non-zero when a check fails. Processes it started are killed by pid on exit; the
# temporary folder is removed (SOAK_KEEP=1 keeps it).
#
# Knobs (environment):
#   SOAK_SECONDS=600  SOAK_LOAD=80  SOAK_PEAK_SECONDS=10  SOAK_CONNECTIONS=32  SOAK_THREADS=2
#   SOAK_WRITE_EVERY=5  SOAK_SAMPLE=5  SOAK_TORRENTS=1000  SOAK_RSS_TOLERANCE=10 (percent)
#   SOAK_BUILD=0      no build: the release binaries already in the target folder
# wrk, the fake and the server share the machine's cores; other work on it shows in the load
# average the report prints.

set -euo pipefail

SECONDS_TOTAL=${SOAK_SECONDS:-600}
LOAD=${SOAK_LOAD:-80}
PEAK_SECONDS=${SOAK_PEAK_SECONDS:-10}
CONNECTIONS=${SOAK_CONNECTIONS:-32}
THREADS=${SOAK_THREADS:-2}
WRITE_EVERY=${SOAK_WRITE_EVERY:-5}
SAMPLE=${SOAK_SAMPLE:-5}
TORRENTS=${SOAK_TORRENTS:-1000}
RSS_TOLERANCE=${SOAK_RSS_TOLERANCE:-10}
((SECONDS_TOTAL >= 20)) || { echo "soak: SOAK_SECONDS must be at least 20" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
BENCH_KEEP=${SOAK_KEEP:-0}
bench_setup soak

command -v wrk >/dev/null || die "wrk is missing (scripts/bench.sh installs it, or apt-get install wrk)"
command -v curl >/dev/null || die "curl is required"
command -v sqlite3 >/dev/null || die "sqlite3 is required (it counts the audit entries)"

# --- 1. build ----------------------------------------------------------------------------
if [[ ${SOAK_BUILD:-1} == 0 ]]; then
    RELEASE=${CARGO_TARGET_DIR:-$ROOT/target}/release
    log "no build (SOAK_BUILD=0): the release binaries in $RELEASE"
    MARQUEE=$RELEASE/marquee
    FAKE=$RELEASE/fake-qbittorrent
else
    log "building (cargo build --release -p marquee -p bench)"
    (cd "$ROOT" && cargo build --release -p marquee -p bench \
        --message-format=json-render-diagnostics) >"$WORK/build.json"
    executable() {
        grep -o "\"executable\":\"[^\"]*/$1\"" "$WORK/build.json" | tail -n1 | cut -d'"' -f4
    }
    MARQUEE=$(executable marquee)
    FAKE=$(executable fake-qbittorrent)
fi
[[ -x $MARQUEE && -x $FAKE ]] || die "the build did not produce marquee and fake-qbittorrent"

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

# --- 2. fake qBittorrent and marquee ----------------------------------------------------
FAKE_PASSWORD="soak-$RANDOM$RANDOM"
"$FAKE" --listen 127.0.0.1:0 --torrents "$TORRENTS" --seed 5 --username admin \
    --password "$FAKE_PASSWORD" --exit-after $((SECONDS_TOTAL + 900)) \
    >"$WORK/fake.out" 2>"$WORK/fake.err" &
FAKE_PID=$!
PIDS+=("$FAKE_PID")
FAKE_URL=$(wait_for_line "$WORK/fake.out" '^listening on ' "$FAKE_PID" 60 | awk '{ print $3 }') ||
    die "fake-qbittorrent did not come up: $(cat "$WORK/fake.err")"
printf '[[instances]]\nid = "qb"\nkind = "qbittorrent"\nurl = "%s"\nusername = "admin"\npassword = "%s"\n' \
    "$FAKE_URL" "$FAKE_PASSWORD" >"$WORK/marquee.toml"
mkdir -p "$WORK/data"
(
    while read -r var; do
        [[ $var == MARQUEE_LOG ]] || unset "$var"
    done < <(compgen -e | grep '^MARQUEE_' || true)
    cd "$WORK"
    # A soak is not a household: no per-person call rate (the product default is 600 a minute).
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
wait_ready "${MQ_URL%/mcp}" 10 || die "marquee did not become ready"
log "marquee at $MQ_URL (pid $MQ_PID), fake-qbittorrent at $FAKE_URL (pid $FAKE_PID)"

total=0
for _ in $(seq 600); do
    call "$OWNER" find_torrents '{"limit":50,"sort":"name"}' "$WORK/find.json"
    total=$(grep -oE '"total":[0-9]+' "$WORK/find.json" | head -n1 | cut -d: -f2 || true)
    [[ ${total:-0} -ge $TORRENTS ]] && break
    sleep 0.2
done
[[ ${total:-0} -ge $TORRENTS ]] || die "find_torrents total is ${total:-none}, not $TORRENTS"
mapfile -t HASHES < <(grep -oE '"info_hash":"[0-9a-f]{40}"' "$WORK/find.json" | cut -d'"' -f4 | sort -u)
((${#HASHES[@]} >= 10)) || die "too few info hashes in $(head -c 300 "$WORK/find.json")"
call "$OWNER" pause_torrents '{"info_hashes":["'"${HASHES[0]}"'"]}' "$WORK/pause.json"
grep -q '"ok":1' "$WORK/pause.json" || die "pause_torrents did not pause: $(head -c 400 "$WORK/pause.json")"
call "$OWNER" whoami '{}' "$WORK/read.json"
call "$OWNER" search_titles '{"query":"star"}' "$WORK/read.json"

# sql QUERY: one value from marquee's database, read-only, while it runs.
sql() { sqlite3 -cmd '.timeout 20000' "file:$WORK/data/marquee.db?mode=ro" "$1"; }

# --- 3. the mix --------------------------------------------------------------------------
# mix_lua FILE DELAY_MS STOP_WRITES_AT (unix seconds; 0: never): the wrk script.
mix_lua() {
    local hashes
    hashes=$(printf '"%s",' "${HASHES[@]}")
    cat >"$1" <<LUA
local key = "$OWNER"
local every = $WRITE_EVERY
local delay_ms = $2
local stop_writes_at = $3
local hashes = { ${hashes%,} }
local reads = {
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_torrents","arguments":{"limit":20,"sort":"name"}}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_titles","arguments":{"query":"star"}}}',
}
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  n, sent_writes, answered_writes, tool_errors, bad_status = 0, 0, 0, 0, 0
  first_error = ""
  headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
  math.randomseed(os.time())
end
function delay()
  if delay_ms <= 0 then return 0 end
  local whole = math.floor(delay_ms)
  if math.random() < delay_ms - whole then whole = whole + 1 end
  return whole
end
function request()
  n = n + 1
  local body
  if n % every == 0 and (stop_writes_at == 0 or os.time() < stop_writes_at) then
    sent_writes = sent_writes + 1
    local h = hashes[(sent_writes % #hashes) + 1]
    body = '{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"pause_torrents","arguments":{"info_hashes":["' .. h .. '"]}}}'
  else
    body = reads[(n % #reads) + 1]
  end
  return wrk.format("POST", nil, headers, body)
end
function response(status, headers, body)
  if status ~= 200 then
    bad_status = bad_status + 1
    if first_error == "" then first_error = status .. " " .. body:sub(1, 300) end
    return
  end
  if body:find('"isError":true', 1, true) then
    tool_errors = tool_errors + 1
    if first_error == "" then first_error = body:sub(1, 300) end
  elseif body:find('"id":"w"', 1, true) then
    answered_writes = answered_writes + 1
  end
end
function done(summary, latency, requests)
  local t = { sent_writes = 0, answered_writes = 0, tool_errors = 0, bad_status = 0 }
  local first = ""
  for _, thread in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + thread:get(k) end
    if first == "" then first = thread:get("first_error") end
  end
  local e = summary.errors
  io.write(string.format("mix: requests %d seconds %.1f rate %.1f sent_writes %d answered_writes %d tool_errors %d bad_status %d socket_errors %d p50_ms %.2f p99_ms %.2f max_ms %.2f\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    t.sent_writes, t.answered_writes, t.tool_errors, t.bad_status,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
  if first ~= "" then io.write("mix: first error: " .. first .. "\n") end
end
LUA
}

# mix_run NAME SECONDS DELAY_MS STOP_WRITES_AT: runs the mix; its "mix:" line in $WORK/NAME.txt.
mix_run() {
    mix_lua "$WORK/$1.lua" "$3" "$4"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${2}s" --timeout 10s -s "$WORK/$1.lua" "$MQ_URL" >"$WORK/$1.txt" 2>&1 ||
        die "wrk ($1) failed: $(cat "$WORK/$1.txt")"
    grep -q '^mix: requests' "$WORK/$1.txt" || die "wrk ($1) printed no summary: $(cat "$WORK/$1.txt")"
}
field() { grep '^mix: requests' "$WORK/$1.txt" | awk -v k="$2" '{ for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# --- 4. peak -----------------------------------------------------------------------------
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "peak: the mix as fast as $CONNECTIONS connections go, ${PEAK_SECONDS}s (load average $LOAD_BEFORE)"
mix_run peak "$PEAK_SECONDS" 0 0
PEAK=$(field peak rate)
log "peak: $PEAK calls/s ($(grep '^mix:' "$WORK/peak.txt" | head -n1))"
TARGET=$(awk -v p="$PEAK" -v l="$LOAD" 'BEGIN { printf "%.1f", p * l / 100 }')

# --- 5. pace -----------------------------------------------------------------------------
# Each connection waits DELAY ms between calls: rate = C / (delay + call time). The first
# guess assumes no call time; the second corrects by the call time the first run showed.
DELAY=$(awk -v c="$CONNECTIONS" -v t="$TARGET" 'BEGIN { printf "%.2f", c * 1000 / t }')
for attempt in 1 2; do
    mix_run "pace$attempt" 8 "$DELAY" 0
    GOT=$(field "pace$attempt" rate)
    log "pace: a wait of $DELAY ms gives $GOT calls/s (target $TARGET)"
    DELAY=$(awk -v c="$CONNECTIONS" -v t="$TARGET" -v d="$DELAY" -v g="$GOT" 'BEGIN {
        call = c * 1000 / g - d; if (call < 0) call = 0
        n = c * 1000 / t - call; if (n < 0) n = 0
        printf "%.2f", n }')
done

# --- 6. soak -----------------------------------------------------------------------------
AUDIT_BEFORE=$(sql "SELECT coalesce(max(id), 0) FROM audit")
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$MQ_PID/status"; }
: >"$WORK/rss.txt"
(
    while kill -0 "$MQ_PID" 2>/dev/null; do
        printf '%s %s\n' "$(date +%s)" "$(rss_kb)" >>"$WORK/rss.txt"
        sleep "$SAMPLE"
    done
) &
PIDS+=("$!")
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
log "soak: ${SECONDS_TOTAL}s at $LOAD% of the peak ($TARGET calls/s; a wait of $DELAY ms per call on each of $CONNECTIONS connections), from $STARTED"
mix_run soak "$SECONDS_TOTAL" "$DELAY" $(($(date +%s) + SECONDS_TOTAL - 5))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
sleep 1
ADDED=$(sql "SELECT count(*) FROM audit WHERE id > $AUDIT_BEFORE")
ADDED_PAUSES=$(sql "SELECT count(*) FROM audit WHERE id > $AUDIT_BEFORE AND tool = 'pause_torrents'")
AUDIT_APPLIED=$(sql "SELECT count(*) FROM audit WHERE id > $AUDIT_BEFORE AND tool = 'pause_torrents' AND status = 'applied'")
printf '%s %s\n' "$(date +%s)" "$(rss_kb)" >>"$WORK/rss.txt"

# --- 7. report ---------------------------------------------------------------------------
REQUESTS=$(field soak requests)
RATE=$(field soak rate)
SENT=$(field soak sent_writes)
ANSWERED=$(field soak answered_writes)
TOOL_ERRORS=$(field soak tool_errors)
BAD_STATUS=$(field soak bad_status)
SOCKET_ERRORS=$(field soak socket_errors)
ERRORS=$((TOOL_ERRORS + BAD_STATUS + SOCKET_ERRORS))
read -r RSS_START RSS_END RSS_MAX SAMPLES < <(awk 'NR == 1 { s = $2 } { e = $2; if ($2 > m) m = $2; n++ } END { print s, e, m, n }' "$WORK/rss.txt")
RSS_OK=$(awk -v s="$RSS_START" -v e="$RSS_END" -v m="$RSS_MAX" -v t="$RSS_TOLERANCE" \
    'BEGIN { print (e <= s * (1 + t / 100) && e >= s * (1 - t / 100) && m <= s * (1 + t / 100)) ? "yes" : "no" }')
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
CPU=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MEM=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)

cat <<REPORT

## Soak ($STARTED, ${SECONDS_TOTAL} s)

machine: $(nproc) cores ($CPU), $MEM, Linux $(uname -r); load average $LOAD_BEFORE before, $LOAD_AFTER after
build: release (cargo build --release -p marquee -p bench); $CONNECTIONS connections, $THREADS wrk threads

| figure | value |
| --- | --- |
| peak of the mix (${PEAK_SECONDS} s, no wait) | $PEAK calls/s |
| soak rate (target $LOAD% = $TARGET) | $RATE calls/s |
| calls | $REQUESTS (1 in $WRITE_EVERY a write, writes stopped 5 s before the end) |
| latency p50 / p99 / max | $(field soak p50_ms) / $(field soak p99_ms) / $(field soak max_ms) ms |
| errors (non-2xx / socket / tool errors) | $ERRORS ($BAD_STATUS / $SOCKET_ERRORS / $TOOL_ERRORS) |
| writes sent / answered | $SENT / $ANSWERED |
| audit entries added (all / pause_torrents / applied) | $ADDED / $ADDED_PAUSES / $AUDIT_APPLIED |
| RSS start / end / max ($SAMPLES samples, every $SAMPLE s) | $(mib "$RSS_START") / $(mib "$RSS_END") / $(mib "$RSS_MAX") |
| RSS flat within ±$RSS_TOLERANCE% | $RSS_OK |
REPORT
grep -h '^mix: first error' "$WORK/soak.txt" || true

status=0
((ERRORS == 0)) || { log "FAIL: $ERRORS errors"; status=1; }
[[ $SENT == "$ANSWERED" ]] || { log "FAIL: $SENT writes sent, $ANSWERED answered"; status=1; }
[[ $ADDED == "$ANSWERED" && $AUDIT_APPLIED == "$ANSWERED" ]] ||
    { log "FAIL: $ANSWERED writes answered, $ADDED audit entries added ($AUDIT_APPLIED pauses applied)"; status=1; }
[[ $RSS_OK == yes ]] || { log "FAIL: RSS not flat within ±$RSS_TOLERANCE%"; status=1; }
((status == 0)) && log "soak passed" || log "soak failed"
exit "$status"
