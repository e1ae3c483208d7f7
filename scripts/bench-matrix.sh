#!/usr/bin/env bash
# The benchmark matrix: every read tool, at its broadest realistic arguments and at a
# narrow one, for the owner and for a kid with content limits, on the embedded default, on the
# TMDB and MusicBrainz fakes and on fake qBittorrents, each against `bench-bare` answering the very
# bytes Marquee answered for the same request, in the same run. Growth rows show a page's cost at
# two table sizes: list_requests (requests rows), get_activity (audit entries), and the download
# tools at each torrent tier (10k, 100k, 1M torrents). Rows marked "(varied)" send a thousand
# different arguments in turn instead of one question again and again: more than Marquee keeps
# answers for, so they show what computing an answer costs (search, browse, details,
# recommendations, and a page of each list at each size).
#
# Usage:
#   scripts/bench-matrix.sh            the full matrix (bench profile build; about 15 minutes)
#   scripts/bench-matrix.sh --smoke    1-second runs, small tables, debug build: checks that every
#                                      case still answers (scripts/test.sh runs this); verdicts are
#                                      printed but do not fail the run
#
# Target per row: marquee >= 0.5 of bare and p99 < 10 ms at 32 connections. Growth: the larger
# table's ratio vs bare is at least 0.8 of the smaller table's ("flat").
# On a shared machine compare ratios (both servers measured back to back in the same run), run it
# several times and keep the worst run. "CPU µs/req" is the CPU time (user + system, all threads)
# each server used per answered request during its measured run, bare's in parentheses: the cost
# of an answer itself, which the ratio mixes with wrk's share of the same two cores.
#
# Knobs (environment):
#   BENCH_PROFILE=bench|dev     which build to run (smoke: dev, the debug build)
#   BENCH_CONNECTIONS=32 BENCH_THREADS=2 BENCH_WARMUP=1s BENCH_DURATION=5s (smoke: 0 and 1s)
#   BENCH_REQUEST_ROWS="1000 100000"     list_requests tiers (smoke: "100 1000")
#   BENCH_AUDIT_ROWS="10000 1000000"     get_activity tiers (smoke: "1000 10000")
#   BENCH_TORRENT_TIERS="10000 100000 1000000"   torrents per tier, in two fake qBittorrents
#                                        (smoke: "2000"); the 1M tier needs about 6 GB of memory
#                                        (an empty list, e.g. BENCH_TORRENT_TIERS="", skips that part)
#   BENCH_LOCAL_FILMS=5000 BENCH_LOCAL_SHOWS=100   films and ten-episode shows in the embedded
#                               library folder for find_local_media (smoke: 300 and 5)
#   BENCH_ONLY=REGEX            only cases whose label matches (setup still runs)
#   BENCH_VARIED=1000           distinct arguments of the "(varied)" rows, sent in turn
#   BENCH_LOAD_TIMEOUT=600      seconds to wait for a torrent tier to load
#   BENCH_KEEP=1                keep the temporary folder (saved answers, wrk output, logs)
#   BENCH_BIN_DIR=DIR           use the binaries in DIR (marquee, bench-bare, fake-qbittorrent,
#                               fake-catalogues) instead of building
#   BENCH_LIBRARY_INSTANCES=FILE, BENCH_LIBRARY_CASES=FILE   the library-service hook (section 6)
#   BENCH_MAX_STEAL=5 BENCH_ATTEMPTS=3 (smoke: 1 attempt)   host steal gate, see bench-lib.sh
# Needs wrk, curl and sqlite3 (the growth rows are seeded with plain SQL into the live database).

set -euo pipefail

SMOKE=0
if [[ ${1:-} == --smoke ]]; then SMOKE=1; fi
if ((SMOKE)); then
    PROFILE=${BENCH_PROFILE:-dev}
    WARMUP=${BENCH_WARMUP:-0}
    DURATION=${BENCH_DURATION:-1s}
    REQUEST_ROWS=${BENCH_REQUEST_ROWS-"100 1000"}
    AUDIT_ROWS=${BENCH_AUDIT_ROWS-"1000 10000"}
    TORRENT_TIERS=${BENCH_TORRENT_TIERS-"2000"}
    LOCAL_FILMS=${BENCH_LOCAL_FILMS:-300} LOCAL_SHOWS=${BENCH_LOCAL_SHOWS:-5}
    BENCH_ATTEMPTS=${BENCH_ATTEMPTS:-1}
else
    PROFILE=${BENCH_PROFILE:-bench}
    WARMUP=${BENCH_WARMUP:-1s}
    DURATION=${BENCH_DURATION:-5s}
    REQUEST_ROWS=${BENCH_REQUEST_ROWS-"1000 100000"}
    AUDIT_ROWS=${BENCH_AUDIT_ROWS-"10000 1000000"}
    TORRENT_TIERS=${BENCH_TORRENT_TIERS-"10000 100000 1000000"}
    LOCAL_FILMS=${BENCH_LOCAL_FILMS:-5000} LOCAL_SHOWS=${BENCH_LOCAL_SHOWS:-100}
fi
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
ONLY=${BENCH_ONLY:-}
VARIED=${BENCH_VARIED:-1000}
LOAD_TIMEOUT=${BENCH_LOAD_TIMEOUT:-600}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
bench_setup matrix

for tool in wrk curl sqlite3; do
    command -v "$tool" >/dev/null || die "$tool is required (apt-get install $tool)"
done

# --- 1. build ----------------------------------------------------------------------------
if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    executable() { printf '%s/%s\n' "$BENCH_BIN_DIR" "$1"; }
    PROFILE="binaries in $BENCH_BIN_DIR"
else
    log "building (cargo build --profile $PROFILE -p marquee -p bench)"
    (cd "$ROOT" && cargo build --profile "$PROFILE" -p marquee -p bench \
        --message-format=json-render-diagnostics) >"$WORK/build.json"
    executable() {
        grep -o "\"executable\":\"[^\"]*/$1\"" "$WORK/build.json" | tail -n1 | cut -d'"' -f4
    }
fi
MARQUEE=$(executable marquee)
BARE=$(executable bench-bare)
FAKE_QB=$(executable fake-qbittorrent)
FAKE_CAT=$(executable fake-catalogues)
for b in "$MARQUEE" "$BARE" "$FAKE_QB" "$FAKE_CAT"; do
    [[ -x $b ]] || die "a binary is missing from the build output ($b)"
done

# --- helpers -----------------------------------------------------------------------------

# post URL KEY BODY OUT: POSTs one JSON-RPC message; prints the HTTP status.
post() {
    curl -sS -o "$4" -w '%{http_code}' --max-time 30 -H "Authorization: Bearer $2" \
        -H 'Content-Type: application/json' --data-binary "$3" "$1" || echo 000
}

# rpc URL KEY BODY OUT: fails unless 200 with a "result" that is not a tool error.
rpc() {
    local status
    status=$(post "$@")
    [[ $status == 200 ]] || die "POST $1 $3 answered $status: $(head -c 400 "$4")"
    grep -q '"result":' "$4" || die "POST $1 $3 has no result: $(head -c 400 "$4")"
    if grep -q '"isError":true' "$4"; then
        die "POST $1 $3 answered a tool error: $(head -c 600 "$4")"
    fi
}

# lua FILE KEY BODY: a wrk script posting BODY with KEY.
lua() {
    {
        printf 'wrk.method = "POST"\n'
        printf 'wrk.body = [[%s]]\n' "$3"
        printf 'wrk.headers["Content-Type"] = "application/json"\n'
        printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2"
    } >"$1"
}

# lua_varied FILE KEY TOOL ARGS_FILE: a wrk script calling TOOL with each line of ARGS_FILE in
# turn (each thread from its own place in the list).
lua_varied() {
    {
        printf 'wrk.method = "POST"\n'
        printf 'wrk.headers["Content-Type"] = "application/json"\n'
        printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$2"
        printf 'local bodies = {\n'
        while IFS= read -r args; do
            printf '  [[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}]],\n' \
                "$3" "$args"
        done <"$4"
        printf '}\n'
        # Threads start apart, so no two ask the same at once (which one computation would serve).
        printf 'local threads, n = 0, 0\n'
        printf 'function setup(thread)\n  thread:set("first", threads * 499)\n  threads = threads + 1\nend\n'
        printf 'function init(args)\n  n = first or 0\nend\n'
        printf 'request = function()\n  n = n %% #bodies + 1\n'
        printf '  return wrk.format(nil, nil, nil, bodies[n])\nend\n'
    } >"$1"
}

# to_ms "123.45us" -> 0.123
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.2f", n
    }'
}

# proc_ticks PID: the CPU time (user + system, every thread) the process has used, in clock
# ticks; the fields after the command name, which is in parentheses and may hold spaces.
proc_ticks() {
    sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
TICK_HZ=$(getconf CLK_TCK)

# wrk_run URL LUA OUT PID: warm-up (unless 0), then a measured run; prints "rate p99_ms cpu_us",
# cpu_us being the CPU time the server PID used per answered request during the measured run
# (its own work, without wrk's: what the ratio hides when both share the cores).
wrk_run() {
    if [[ $WARMUP != 0 ]]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$2" "$1" >/dev/null
    fi
    local t0 t1
    t0=$(proc_ticks "$4")
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$2" "$1" >"$3"
    t1=$(proc_ticks "$4")
    if grep -q 'Non-2xx or 3xx responses' "$3"; then
        cat "$3" >&2
        die "wrk against $1 had answers other than 200"
    fi
    local rate p99 requests
    rate=$(awk '/^Requests\/sec:/ { print $2 }' "$3")
    p99=$(awk '$1 == "99%" { print $2 }' "$3")
    requests=$(awk '/ requests in / { print $1 }' "$3")
    [[ -n $rate && -n $p99 && -n $requests ]] || die "cannot read wrk's output: $(cat "$3")"
    printf '%s %s %s\n' "$rate" "$(to_ms "$p99")" "$(awk -v t=$((t1 - t0)) -v n="$requests" -v hz="$TICK_HZ" \
        'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }')"
}

# The pid of the Marquee serving each URL, for its CPU time.
declare -A URL_PID

# start_marquee TAG [CONFIG]: `marquee serve` on 127.0.0.1:0 with a fresh data folder
# $WORK/data-TAG; sets STARTED_PID, STARTED_URL, STARTED_KEY (the owner key it prints once).
start_marquee() {
    local tag=$1 config=${2:-} out="$WORK/marquee-$1.out" err="$WORK/marquee-$1.err"
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
    STARTED_URL=$(wait_for_line "$out" 'http://127\.0\.0\.1:[0-9]+/mcp' "$STARTED_PID" 60 |
        grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' | head -n1) ||
        die "marquee ($tag) did not come up: $(tail -n 20 "$err")"
    STARTED_KEY=$(awk '/shown once/ { seen = 1 } seen && $1 ~ /^mq_/ { print $1; exit }' "$out")
    [[ -n $STARTED_KEY ]] || die "marquee ($tag) printed no owner key"
    wait_ready "${STARTED_URL%/mcp}" 20 || die "marquee ($tag) did not become ready: $(tail -n 20 "$err")"
    URL_PID[$STARTED_URL]=$STARTED_PID
}

# cli TAG ARGS...: the marquee CLI on TAG's data folder (a clean MARQUEE_ environment).
cli() {
    local tag=$1
    shift
    (
        while read -r var; do unset "$var"; done < <(compgen -e | grep '^MARQUEE_' || true)
        cd "$WORK"
        exec "$MARQUEE" "$@" --data-dir "$WORK/data-$tag"
    )
}

# The table, one entry per measured case.
LABELS=()
declare -A M_RATE M_P99 M_CPU B_RATE B_P99 B_CPU BYTES VERDICT RATIO STEAL TRIES
N_CASE=0

# case_row LABEL URL KEY TOOL ARGS [VARIED]: saves Marquee's real answer, starts bench-bare
# answering those bytes, measures both back to back, records the row. TOOL "tools/list" is the
# method. VARIED, a file of arguments one a line: wrk sends them in turn (ARGS is its first line),
# so most requests ask what no kept answer holds and the row measures the computation itself;
# bench-bare answers the first line's answer to all of them.
case_row() {
    local label=$1 url=$2 key=$3 tool=$4 args=$5 varied=${6:-} body spec n=$N_CASE
    if [[ -n $ONLY ]] && ! [[ $label =~ $ONLY ]]; then return 0; fi
    N_CASE=$((N_CASE + 1))
    if [[ $tool == tools/list ]]; then
        body='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
        spec="tools/list=$WORK/answer-$n.json"
    else
        body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$tool"'","arguments":'"$args"'}}'
        spec="tools/call:$tool=$WORK/answer-$n.json"
    fi
    rpc "$url" "$key" "$body" "$WORK/answer-$n.json"
    "$BARE" --listen 127.0.0.1:0 --answer "$spec" >"$WORK/bare-$n.out" 2>"$WORK/bare-$n.err" &
    local bare_pid=$!
    PIDS+=("$bare_pid")
    local bare_url
    bare_url=$(wait_for_line "$WORK/bare-$n.out" '^listening on ' "$bare_pid" 10 |
        awk '{ print $3 }') || die "bench-bare did not come up: $(cat "$WORK/bare-$n.err")"
    rpc "$bare_url" "$key" "$body" "$WORK/bare-answer-$n.json"
    # bench-bare re-serializes the saved answer (object keys in another order): same length.
    [[ $(wc -c <"$WORK/answer-$n.json") == $(wc -c <"$WORK/bare-answer-$n.json") ]] ||
        die "$label: bench-bare does not answer as many bytes as marquee answered"
    if [[ -n $varied ]]; then
        lua_varied "$WORK/case-$n.lua" "$key" "$tool" "$varied"
    else
        lua "$WORK/case-$n.lua" "$key" "$body"
    fi
    log "$label"
    # The pair (bare, then Marquee) again while the host took more than BENCH_MAX_STEAL of
    # the CPU; the quietest attempt is kept.
    local b m s t0 a best_b best_m best_s=""
    for ((a = 1; a <= ATTEMPTS; a++)); do
        t0=$(cpu_ticks)
        b=$(wrk_run "$bare_url" "$WORK/case-$n.lua" "$WORK/wrk-bare-$n-$a.txt" "$bare_pid")
        m=$(wrk_run "$url" "$WORK/case-$n.lua" "$WORK/wrk-marquee-$n-$a.txt" "${URL_PID[$url]}")
        s=$(steal_since "$t0")
        if quieter "$s" "$best_s"; then
            best_b=$b best_m=$m best_s=$s
            TRIES[$label]=$a
        fi
        quiet "$s" && break
        log "  host steal $s% (over $MAX_STEAL%): measuring the pair again"
    done
    b=$best_b m=$best_m
    stop "$bare_pid"
    LABELS+=("$label")
    STEAL[$label]=$best_s
    local rate p99 cpu
    read -r rate p99 cpu <<<"$b"
    B_RATE[$label]=$rate B_P99[$label]=$p99 B_CPU[$label]=$cpu
    read -r rate p99 cpu <<<"$m"
    M_RATE[$label]=$rate M_P99[$label]=$p99 M_CPU[$label]=$cpu
    BYTES[$label]=$(wc -c <"$WORK/answer-$n.json")
    RATIO[$label]=$(awk -v a="${M_RATE[$label]}" -v b="${B_RATE[$label]}" \
        'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    VERDICT[$label]=$(awk -v r="${RATIO[$label]}" -v p="${M_P99[$label]}" \
        'BEGIN { print (r >= 0.5 && p < 10) ? "met" : "MISSED" }')
}

# first_field FILE NAME: the first string value of "NAME" in the structured content.
first_field() {
    grep -oE "\"$2\":\"[^\"]+\"" "$1" | head -n1 | cut -d'"' -f4
}

# --- 2. the embedded default: owner and a kid with limits -------------------------------
start_marquee main
MAIN_URL=$STARTED_URL
OWNER=$STARTED_KEY
log "marquee (embedded default) at $MAIN_URL"
cli main people add kid --role kid >/dev/null
cli main people set-limits kid --max-movie PG-13 --region US --block-genre Horror >/dev/null
KID=$(cli main keys create --person kid --label bench 2>/dev/null | grep -oE 'mq_[A-Za-z0-9_]+' | head -n1)
[[ -n $KID ]] || die "no key for the kid"
DB="$WORK/data-main/marquee.db"
[[ -f $DB ]] || die "no database at $DB"
OWNER_ID=$(sqlite3 "$DB" "SELECT id FROM people WHERE role = 'owner' LIMIT 1")
KID_ID=$(sqlite3 "$DB" "SELECT id FROM people WHERE name = 'kid'")

# seed_requests TOTAL: adds rows until the requests table holds TOTAL (every tenth the kid's).
seed_requests() {
    sqlite3 "$DB" "PRAGMA busy_timeout = 10000;
        WITH RECURSIVE n(i) AS (SELECT (SELECT COUNT(*) FROM requests) + 1
                                UNION ALL SELECT i + 1 FROM n WHERE i < $1)
        INSERT INTO requests (person_id, media_source, media_id, media_type, title, year, seasons,
                              status, instance_id, units, created_at, updated_at)
        SELECT CASE WHEN i % 10 = 0 THEN $KID_ID ELSE $OWNER_ID END, 'builtin',
               printf('tt%07d', i), 'movie', 'Seeded title ' || i, 1950 + i % 60, '[]',
               CASE i % 3 WHEN 0 THEN 'pending' WHEN 1 THEN 'approved' ELSE 'available' END,
               'builtin', 1, 1700000000000 + i * 1000, 1700000000000 + i * 1000 FROM n;" >/dev/null
}
# seed_audit TOTAL: adds entries until the audit table holds TOTAL (every tenth the kid's).
seed_audit() {
    sqlite3 "$DB" "PRAGMA busy_timeout = 10000;
        WITH RECURSIVE n(i) AS (SELECT (SELECT COUNT(*) FROM audit) + 1
                                UNION ALL SELECT i + 1 FROM n WHERE i < $1)
        INSERT INTO audit (at, person_id, tool, instance_id, args_digest, status, message, finished_at)
        SELECT 1700000000000 + i * 100, CASE WHEN i % 10 = 0 THEN $KID_ID ELSE $OWNER_ID END,
               CASE i % 3 WHEN 0 THEN 'pause_torrents' WHEN 1 THEN 'request_media' ELSE 'set_category' END,
               'qb-1', printf('%064x', i), CASE i % 7 WHEN 0 THEN 'failed' ELSE 'applied' END,
               NULL, 1700000000000 + i * 100 + 40 FROM n;" >/dev/null
}

HEAT='{"media_source":"builtin","media_id":"tt0113277","media_type":"movie"}'
# Heat is rated R: the kid asks about Jurassic Park (PG-13) instead.
JURASSIC='{"media_source":"builtin","media_id":"tt0107290","media_type":"movie"}'
O="owner"
K="kid (PG-13, no Horror)"
case_row "tools/list | $O | embedded" "$MAIN_URL" "$OWNER" tools/list ''
case_row "whoami | $O | embedded" "$MAIN_URL" "$OWNER" whoami '{}'
case_row "whoami | $K | embedded" "$MAIN_URL" "$KID" whoami '{}'
case_row "list_instances | $O | embedded" "$MAIN_URL" "$OWNER" list_instances '{}'
case_row "get_guide {topic: setup} | $O | embedded" "$MAIN_URL" "$OWNER" get_guide \
    '{"topic":"setup"}'
case_row "diagnose | $O | embedded" "$MAIN_URL" "$OWNER" diagnose '{}'
for who in owner kid; do
    if [[ $who == owner ]]; then
        key=$OWNER P=$O film=$HEAT name=Heat
    else
        key=$KID P=$K film=$JURASSIC name="Jurassic Park"
    fi
    case_row "search_titles \"the\" (broad) | $P | builtin" "$MAIN_URL" "$key" search_titles '{"query":"the"}'
    case_row "search_titles \"love\" (broad) | $P | builtin" "$MAIN_URL" "$key" search_titles '{"query":"love"}'
    case_row "search_titles \"star wars\" (narrow) | $P | builtin" "$MAIN_URL" "$key" search_titles \
        '{"query":"star wars"}'
    case_row "browse_titles movies, all (broad) | $P | builtin" "$MAIN_URL" "$key" browse_titles \
        '{"media_type":"movie"}'
    case_row "browse_titles Comedy (broad) | $P | builtin" "$MAIN_URL" "$key" browse_titles \
        '{"media_type":"movie","genres":["Comedy"]}'
    case_row "browse_titles 1990-1999 | $P | builtin" "$MAIN_URL" "$key" browse_titles \
        '{"media_type":"movie","year_from":1990,"year_to":1999}'
    case_row "browse_titles Drama, page 40 | $P | builtin" "$MAIN_URL" "$key" browse_titles \
        '{"media_type":"movie","genres":["Drama"],"page":40}'
    case_row "browse_titles Western 1960s Italian (narrow) | $P | builtin" "$MAIN_URL" "$key" \
        browse_titles '{"media_type":"movie","genres":["Western"],"year_from":1960,"year_to":1969,"language":"it"}'
    case_row "get_title_details $name | $P | builtin" "$MAIN_URL" "$key" get_title_details "$film"
    case_row "get_recommendations $name | $P | builtin" "$MAIN_URL" "$key" get_recommendations "$film"
    case_row "get_request_options $name | $P | builtin" "$MAIN_URL" "$key" get_request_options "$film"
done

# Varied questions: many different arguments in turn, more than answers are kept, so these rows
# measure computing an answer, not handing a kept one out again.
gzip -dc "$ROOT/crates/adapters/catalogue/data/movies.csv.gz" | tail -n +2 >"$WORK/films.csv"
# The commonest words of four letters or more in the titles.
sed -E 's/^tt[0-9]+,("([^"]|"")*"|[^,]*),.*/\1/' "$WORK/films.csv" | tr 'A-Z' 'a-z' | tr -cs 'a-z' '\n' |
    awk 'length >= 4' | sort | uniq -c | sort -rn | awk -v n="$VARIED" 'NR <= n' |
    awk '{ printf "{\"query\":\"%s\"}\n", $2 }' >"$WORK/vary-search.txt"
awk -F, -v n="$VARIED" 'NR % 17 == 1 && k < n { k++
    printf "{\"media_source\":\"builtin\",\"media_id\":\"%s\",\"media_type\":\"movie\"}\n", $1 }' \
    "$WORK/films.csv" >"$WORK/vary-films.txt"
# Random genre, decade or both, and a page of the first five (seeded: the same every run).
awk -v n="$VARIED" 'BEGIN { srand(14)
    ng = split("Drama Comedy Romance Action Crime Thriller Horror Documentary Sci-Fi Fantasy Adventure Musical Biography Mystery War Family Animation Western Sport History", g, " ")
    for (i = 0; i < n; i++) {
        k = int(rand() * 3); y = 1940 + int(rand() * 70); a = "{\"media_type\":\"movie\""
        if (k != 1) a = a ",\"genres\":[\"" g[1 + int(rand() * ng)] "\"]"
        if (k != 0) a = a ",\"year_from\":" y ",\"year_to\":" (y + 9)
        print a ",\"page\":" (1 + int(rand() * 5)) "}"
    } }' >"$WORK/vary-browse.txt"
# vary_before FILE ROWS: list arguments continuing before random ids of a table of ROWS rows.
vary_before() {
    awk -v n="$VARIED" -v rows="$2" 'BEGIN { srand(9)
        for (i = 0; i < n; i++) printf "{\"limit\":50,\"before_id\":%d}\n", 2 + int(rand() * (rows - 1)) }' >"$1"
}
for who in owner kid; do
    if [[ $who == owner ]]; then key=$OWNER P=$O; else key=$KID P=$K; fi
    case_row "search_titles, $VARIED words in turn (varied) | $P | builtin" "$MAIN_URL" "$key" \
        search_titles "$(head -n1 "$WORK/vary-search.txt")" "$WORK/vary-search.txt"
    case_row "browse_titles, $VARIED filters in turn (varied) | $P | builtin" "$MAIN_URL" "$key" \
        browse_titles "$(head -n1 "$WORK/vary-browse.txt")" "$WORK/vary-browse.txt"
done
case_row "get_title_details, $VARIED films in turn (varied) | $O | builtin" "$MAIN_URL" "$OWNER" \
    get_title_details "$(head -n1 "$WORK/vary-films.txt")" "$WORK/vary-films.txt"
case_row "get_recommendations, $VARIED films in turn (varied) | $O | builtin" "$MAIN_URL" "$OWNER" \
    get_recommendations "$(head -n1 "$WORK/vary-films.txt")" "$WORK/vary-films.txt"

# Files on disk: find_local_media over the embedded `library` folder holding LOCAL_FILMS films
# (real titles and years of the builtin catalogue, so a kid's limits are checked against it)
# and LOCAL_SHOWS shows of ten episodes, sparse files of 1 GiB, indexed by one scan_library.
mkdir -p "$WORK/data-main/library"
awk -F, -v n="$LOCAL_FILMS" 'k < n && NR % 3 == 1 {
        t = $2; y = $3
        if (t ~ /^"/) next
        gsub(/[^A-Za-z0-9 ]/, "", t); if (t == "" || y !~ /^[0-9]+$/) next
        d = t " (" y ")"; f = t; gsub(/ /, ".", f)
        printf "%s/%s.%s.1080p.BluRay.x264-GRP.mkv\n", d, f, y; k++ }' "$WORK/films.csv" \
    >"$WORK/local-files.txt"
awk -v n="$LOCAL_SHOWS" 'BEGIN { for (s = 1; s <= n; s++) for (e = 1; e <= 10; e++)
        printf "Show %03d/Season 01/Show.%03d.S01E%02d.720p.HDTV.x264-GRP.mkv\n", s, s, e }' \
    >>"$WORK/local-files.txt"
(cd "$WORK/data-main/library" && while IFS= read -r f; do
    mkdir -p "${f%/*}" && truncate -s 1G "$f"
done <"$WORK/local-files.txt")
rpc "$MAIN_URL" "$OWNER" \
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"scan_library","arguments":{"instance_id":"library"}}}' \
    "$WORK/scan.json"
L=$(printf "%'d files" "$(wc -l <"$WORK/local-files.txt")")
for who in owner kid; do
    if [[ $who == owner ]]; then key=$OWNER P=$O; else key=$KID P=$K; fi
    case_row "find_local_media, 20 titles (broad) | $P | $L" "$MAIN_URL" "$key" find_local_media '{}'
    case_row "find_local_media \"love\" (narrow) | $P | $L" "$MAIN_URL" "$key" find_local_media \
        '{"query":"love"}'
done
case_row "find_local_media movies, 200 from 1,000 | $O | $L" "$MAIN_URL" "$OWNER" find_local_media \
    '{"media_type":"movie","limit":200,"offset":1000}'
case_row "find_local_media tv, 20 | $O | $L" "$MAIN_URL" "$OWNER" find_local_media '{"media_type":"tv"}'
case_row "find_local_media, $VARIED words in turn (varied) | $O | $L" "$MAIN_URL" "$OWNER" \
    find_local_media "$(head -n1 "$WORK/vary-search.txt")" "$WORK/vary-search.txt"

# Growth: a page of the store's lists at two table sizes.
set -- $REQUEST_ROWS
for rows in "$@"; do
    seed_requests "$rows"
    R=$(printf "%'d" "$rows")
    case_row "list_requests, 200 (broad) | $O | $R requests" "$MAIN_URL" "$OWNER" list_requests '{"limit":200}'
    case_row "list_requests pending, 20 (narrow) | $O | $R requests" "$MAIN_URL" "$OWNER" list_requests \
        '{"status":"pending","limit":20}'
    case_row "list_requests own, 50 | $K | $R requests" "$MAIN_URL" "$KID" list_requests '{"limit":50}'
    mid=$(sqlite3 "$DB" "SELECT id FROM requests ORDER BY id LIMIT 1 OFFSET $((rows / 2))")
    case_row "list_requests, 200 from the middle | $O | $R requests" "$MAIN_URL" "$OWNER" list_requests \
        "{\"limit\":200,\"before_id\":$mid}"
    case_row "check_request_status by id | $O | $R requests" "$MAIN_URL" "$OWNER" check_request_status \
        "{\"request_id\":$mid}"
    vary_before "$WORK/vary-requests.txt" "$rows"
    case_row "list_requests, 50 before $VARIED ids in turn (varied) | $O | $R requests" "$MAIN_URL" \
        "$OWNER" list_requests "$(head -n1 "$WORK/vary-requests.txt")" "$WORK/vary-requests.txt"
done
set -- $AUDIT_ROWS
for rows in "$@"; do
    seed_audit "$rows"
    R=$(printf "%'d" "$rows")
    case_row "get_activity, 200 (broad) | $O | $R audit" "$MAIN_URL" "$OWNER" get_activity '{"limit":200}'
    case_row "get_activity kid, 20 (narrow) | $O | $R audit" "$MAIN_URL" "$OWNER" get_activity \
        '{"person":"kid","limit":20}'
    mid=$(sqlite3 "$DB" "SELECT id FROM audit ORDER BY id LIMIT 1 OFFSET $((rows / 2))")
    case_row "get_activity, 200 from the middle | $O | $R audit" "$MAIN_URL" "$OWNER" get_activity \
        "{\"limit\":200,\"before_id\":$mid}"
    vary_before "$WORK/vary-audit.txt" "$rows"
    case_row "get_activity, 50 before $VARIED ids in turn (varied) | $O | $R audit" "$MAIN_URL" \
        "$OWNER" get_activity "$(head -n1 "$WORK/vary-audit.txt")" "$WORK/vary-audit.txt"
done

# --- 3. the catalogue fakes: TMDB and MusicBrainz ---------------------------------------
"$FAKE_CAT" --exit-after 7200 >"$WORK/fake-catalogues.out" 2>"$WORK/fake-catalogues.err" &
CAT_PID=$!
PIDS+=("$CAT_PID")
wait_for_line "$WORK/fake-catalogues.out" '^musicbrainz ' "$CAT_PID" 30 >/dev/null ||
    die "fake-catalogues did not come up: $(cat "$WORK/fake-catalogues.err")"
read -r _ TMDB_URL TMDB_KEY < <(grep '^tmdb ' "$WORK/fake-catalogues.out")
read -r _ MB_URL < <(grep '^musicbrainz ' "$WORK/fake-catalogues.out")
{
    printf '[[instances]]\nid = "tmdb"\nkind = "tmdb"\nurl = "%s"\napi_key = "%s"\ndefault = true\n\n' \
        "$TMDB_URL" "$TMDB_KEY"
    printf '[[instances]]\nid = "musicbrainz"\nkind = "musicbrainz"\nurl = "%s"\n' "$MB_URL"
    printf 'username = "bench@example.invalid"\n\n'
    # --- 6. library services (hook) ---------------------------------------------------------
    # The library-service fakes (Radarr, Sonarr, Lidarr, Readarr) come from the `fakes` branch.
    # Until this script starts them itself, a caller that runs them passes their [[instances]]
    # in BENCH_LIBRARY_INSTANCES and the cases in BENCH_LIBRARY_CASES (one a line:
    # LABEL<TAB>TOOL<TAB>ARGUMENTS-JSON), measured below against this Marquee.
    if [[ -n ${BENCH_LIBRARY_INSTANCES:-} ]]; then cat "$BENCH_LIBRARY_INSTANCES"; fi
} >"$WORK/marquee-fakes.toml"
start_marquee fakes "$WORK/marquee-fakes.toml"
FAKES_URL=$STARTED_URL
FAKES_OWNER=$STARTED_KEY
cli fakes people add kid --role kid >/dev/null
cli fakes people set-limits kid --max-movie PG-13 --max-tv TV-PG --region US >/dev/null
FAKES_KID=$(cli fakes keys create --person kid --label bench 2>/dev/null | grep -oE 'mq_[A-Za-z0-9_]+' | head -n1)
log "marquee (TMDB and MusicBrainz fakes) at $FAKES_URL"
MATRIX='{"media_source":"tmdb","media_id":"603","media_type":"movie"}'
TOY_STORY='{"media_source":"tmdb","media_id":"862","media_type":"movie"}'
for who in owner kid; do
    if [[ $who == owner ]]; then
        key=$FAKES_OWNER P=$O film=$MATRIX name="The Matrix"
    else
        # The Matrix is rated R: the kid asks about Toy Story (G).
        key=$FAKES_KID P=$K film=$TOY_STORY name="Toy Story"
    fi
    case_row "search_titles \"the\" (broad) | $P | tmdb" "$FAKES_URL" "$key" search_titles '{"query":"the"}'
    case_row "search_titles \"heat\" movie (narrow) | $P | tmdb" "$FAKES_URL" "$key" search_titles \
        '{"query":"heat","media_type":"movie"}'
    case_row "browse_titles movies (broad) | $P | tmdb" "$FAKES_URL" "$key" browse_titles '{"media_type":"movie"}'
    case_row "browse_titles tv Animation (narrow) | $P | tmdb" "$FAKES_URL" "$key" browse_titles \
        '{"media_type":"tv","genres":["Animation"]}'
    case_row "get_trending (broad) | $P | tmdb" "$FAKES_URL" "$key" get_trending '{}'
    case_row "get_title_details $name | $P | tmdb" "$FAKES_URL" "$key" get_title_details "$film"
    case_row "get_recommendations $name | $P | tmdb" "$FAKES_URL" "$key" get_recommendations "$film"
done
case_row "search_collections \"matrix\" | $O | tmdb" "$FAKES_URL" "$FAKES_OWNER" search_collections '{"query":"matrix"}'
# MusicBrainz allows one request a second (the fake enforces it, Marquee paces itself): this
# row measures that pacing. diagnose comes after it: its checks under load use up the window.
sleep 1.5
case_row "search_music \"abba\" | $O | musicbrainz" "$FAKES_URL" "$FAKES_OWNER" search_music \
    '{"query":"abba","instance_id":"musicbrainz"}'
case_row "diagnose | $O | tmdb + musicbrainz" "$FAKES_URL" "$FAKES_OWNER" diagnose '{}'
if [[ -n ${BENCH_LIBRARY_CASES:-} ]]; then
    while IFS=$'\t' read -r label tool args; do
        [[ -n $label ]] || continue
        case_row "$label | $O | library" "$FAKES_URL" "$FAKES_OWNER" "$tool" "$args"
    done <"$BENCH_LIBRARY_CASES"
fi

# --- 4. download clients: the torrent tiers ---------------------------------------------
for tier in $TORRENT_TIERS; do
    half=$((tier / 2))
    password="bench-$RANDOM$RANDOM"
    QB_PIDS=()
    urls=()
    for seed in 1 2; do
        "$FAKE_QB" --listen 127.0.0.1:0 --torrents "$half" --seed "$seed" --username admin \
            --password "$password" --exit-after 7200 >"$WORK/qb-$tier-$seed.out" 2>"$WORK/qb-$tier-$seed.err" &
        QB_PIDS+=($!)
        PIDS+=($!)
    done
    for i in 0 1; do
        u=$(wait_for_line "$WORK/qb-$tier-$((i + 1)).out" '^listening on ' "${QB_PIDS[$i]}" 600 |
            awk '{ print $3 }') || die "fake-qbittorrent did not come up: $(cat "$WORK/qb-$tier-$((i + 1)).err")"
        urls+=("$u")
    done
    {
        for i in 0 1; do
            printf '[[instances]]\nid = "qb-%d"\nkind = "qbittorrent"\nurl = "%s"\n' $((i + 1)) "${urls[$i]}"
            printf 'username = "admin"\npassword = "%s"\n\n' "$password"
        done
    } >"$WORK/marquee-qb-$tier.toml"
    start_marquee "qb-$tier" "$WORK/marquee-qb-$tier.toml"
    QB_URL=$STARTED_URL
    QB_OWNER=$STARTED_KEY
    QB_MARQUEE=$STARTED_PID
    poll='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_torrents","arguments":{"limit":1}}}'
    total=0
    deadline=$((SECONDS + LOAD_TIMEOUT))
    while ((SECONDS < deadline)); do
        kill -0 "$QB_MARQUEE" 2>/dev/null || die "marquee exited while loading $tier torrents"
        post "$QB_URL" "$QB_OWNER" "$poll" "$WORK/poll.json" >/dev/null
        total=$(grep -oE '"total":[0-9]+' "$WORK/poll.json" | head -n1 | cut -d: -f2 || true)
        [[ ${total:-0} -ge $((2 * half)) ]] && break
        sleep 0.5
    done
    [[ ${total:-0} -ge $((2 * half)) ]] || die "find_torrents total is ${total:-none}, not $((2 * half))"
    T=$(printf "%'d" $((2 * half)))
    log "$T torrents loaded (marquee VmRSS $(awk '$1 == "VmRSS:" { printf "%.0f MiB", $2 / 1024 }' /proc/"$QB_MARQUEE"/status))"
    rpc "$QB_URL" "$QB_OWNER" "${poll/\"limit\":1/\"limit\":1,\"sort\":\"name\"}" "$WORK/first.json"
    hash=$(first_field "$WORK/first.json" info_hash)
    [[ -n $hash ]] || die "no info_hash in find_torrents' answer"
    case_row "find_torrents, 200 (broad) | $O | $T torrents" "$QB_URL" "$QB_OWNER" find_torrents '{"limit":200}'
    case_row "find_torrents movies by size, 200 | $O | $T torrents" "$QB_URL" "$QB_OWNER" find_torrents \
        '{"category":"movies","limit":200,"sort":"size"}'
    case_row "find_torrents name, 20 (narrow) | $O | $T torrents" "$QB_URL" "$QB_OWNER" find_torrents \
        '{"name_contains":"2160p","states":["downloading"],"limit":20}'
    case_row "find_torrents page 50 | $O | $T torrents" "$QB_URL" "$QB_OWNER" find_torrents \
        '{"limit":200,"offset":10000,"sort":"added_at"}'
    case_row "downloads_overview | $O | $T torrents" "$QB_URL" "$QB_OWNER" downloads_overview '{}'
    case_row "list_categories | $O | $T torrents" "$QB_URL" "$QB_OWNER" list_categories '{}'
    case_row "tracker_errors | $O | $T torrents" "$QB_URL" "$QB_OWNER" tracker_errors '{}'
    case_row "torrent_detail | $O | $T torrents" "$QB_URL" "$QB_OWNER" torrent_detail "{\"info_hash\":\"$hash\"}"
    case_row "torrent_files | $O | $T torrents" "$QB_URL" "$QB_OWNER" torrent_files "{\"info_hash\":\"$hash\"}"
    awk -v n="$VARIED" -v rows="$((2 * half))" 'BEGIN { srand(5)
        for (i = 0; i < n; i++) printf "{\"limit\":50,\"offset\":%d,\"sort\":\"added_at\"}\n", int(rand() * (rows - 50)) }' \
        >"$WORK/vary-torrents.txt"
    case_row "find_torrents, 50 at $VARIED offsets in turn (varied) | $O | $T torrents" "$QB_URL" "$QB_OWNER" \
        find_torrents "$(head -n1 "$WORK/vary-torrents.txt")" "$WORK/vary-torrents.txt"
    stop "$QB_MARQUEE"
    for p in "${QB_PIDS[@]}"; do stop "$p"; done
done

# --- 5. report -------------------------------------------------------------------------
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency$([[ $WARMUP != 0 ]] && echo " (after a $WARMUP warm-up)")," \
    "127.0.0.1, $(nproc) cores shared by wrk and both servers; $PROFILE build; $(date -u '+%F %H:%M') UTC"
echo
echo "| case | caller | backend | answer | marquee req/s | bare req/s | ratio | p99 ms | bare p99 ms | CPU µs/req (bare) | host steal % (try kept) | verdict |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
missed=0
noisy=0
for l in "${LABELS[@]}"; do
    IFS='|' read -r what who backend <<<"$l"
    printf '| %s | %s | %s | %s | %.0f | %.0f | %s | %s | %s | %s (%s) | %s (%s) | %s |\n' "${what% }" "$(xargs <<<"$who")" \
        "${backend# }" "$(awk -v b="${BYTES[$l]}" 'BEGIN { printf (b >= 1024 ? "%.1f KB" : "%d B"), (b >= 1024 ? b / 1024 : b) }')" \
        "${M_RATE[$l]}" "${B_RATE[$l]}" "${RATIO[$l]}" "${M_P99[$l]}" "${B_P99[$l]}" "${M_CPU[$l]}" "${B_CPU[$l]}" "${STEAL[$l]}" \
        "${TRIES[$l]}" "${VERDICT[$l]}"
    [[ ${VERDICT[$l]} == met ]] || missed=$((missed + 1))
    quiet "${STEAL[$l]}" || noisy=$((noisy + 1))
done
echo
# Growth: the same question at the smallest and the largest table; "flat" when the larger
# table's ratio vs bare is at least 0.8 of the smaller one's (as measured, before rounding).
echo "growth (same question, smallest vs largest table):"
declare -A FIRST
for l in "${LABELS[@]}"; do
    IFS='|' read -r what who backend <<<"$l"
    [[ $backend =~ (requests|audit|torrents)$ ]] || continue
    k="$what|$who|${BASH_REMATCH[1]}"
    if [[ -z ${FIRST[$k]:-} ]]; then
        FIRST[$k]=$l
    elif [[ ${FIRST[$k]} != "$l" ]]; then
        f=${FIRST[$k]}
        # From the measured rates, not the ratios rounded for the table (0.16 against 0.20 is
        # on the line when rounded, either side of it when measured).
        verdict=$(awk -v ma="${M_RATE[$f]}" -v ba="${B_RATE[$f]}" -v mb="${M_RATE[$l]}" -v bb="${B_RATE[$l]}" \
            'BEGIN { print (mb * ba >= 0.8 * ma * bb) ? "flat" : "GROWS" }')
        printf -- '- %s: %s at%s, %s at%s: %s\n' "${what% }" "${RATIO[$f]}" "${f##*|}" "${RATIO[$l]}" \
            "${l##*|}" "$verdict"
    fi
done
echo
echo "$((${#LABELS[@]} - missed)) of ${#LABELS[@]} rows met the target (>= 0.5 of bare, p99 < 10 ms)"
if ((noisy)); then
    echo "$noisy rows were measured while the host took more than $MAX_STEAL% of the CPU in each of" \
        "$ATTEMPTS tries (the quietest is shown): their verdicts say more of the host than of Marquee"
fi
if ((SMOKE)); then
    echo "smoke run: every case answered; verdicts of 1-second runs on a debug build are not judged"
fi
