#!/usr/bin/env bash
# End-to-end suite: the real binary on loopback, driven by curl, the official Python SDK
# (HTTP legacy and 2026-07-28, stdio, bridge), the Inspector CLI and the official
# conformance suite. Starts its own servers and stops them by pid. Ends with
# "e2e: N passed, N failed".   Usage: scripts/e2e.sh PATH/TO/marquee
set -uo pipefail
BIN=$(realpath "${1:?usage: e2e.sh PATH/TO/marquee}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
KIT=$SHARED/mcp-clients
W=$(mktemp -d -t marquee-e2e.XXXXXX)
PIDS=()
pass=0; fail=0

cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
# check NAME ACTUAL EXPECTED
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got [$2] want [$3]"; fi; }
# contains NAME HAYSTACK NEEDLE
contains() { case "$2" in *"$3"*) ok "$1" ;; *) bad "$1" "[$3] not in [${2:0:300}]" ;; esac; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME DATA_DIR PORT [ENV...]: runs `marquee serve` in the background, waits until ready.
start() {
  local name=$1 dir=$2 port=$3; shift 3
  env MARQUEE_LISTEN="127.0.0.1:$port" "$@" "$BIN" serve --data-dir "$dir" >"$W/$name.out" 2>"$W/$name.err" &
  PIDS+=($!); eval "${name}_PID=$!"
  for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && return 0
    sleep 0.1
  done
  echo "server $name did not become ready:"; cat "$W/$name.err"; return 1
}
stop() { local pid=$1; kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }

PA=$(free_port); A="http://127.0.0.1:$PA"; DA=$W/a
start a "$DA" "$PA" || { echo "e2e: $pass passed, 1 failed"; exit 1; }
KEY=$(grep -m1 -o 'mq_[A-Za-z0-9_]*' "$W/a.out")
contains "first start prints the owner key once" "$KEY" "mq_"
contains "first start prints the claude mcp add line" "$(cat "$W/a.out")" "claude mcp add --transport http marquee $A/mcp"

# ---- HTTP edge rules (curl)
AUTH=(-H "Authorization: Bearer $KEY" -H 'Content-Type: application/json')
code() { curl -s -o "$W/body" -D "$W/headers" -w '%{http_code}' "$@"; }
check "GET /mcp is 405" "$(code "$A/mcp")" 405
contains "405 says Allow: POST" "$(tr -d '\r' < "$W/headers")" "allow: POST"
check "DELETE /mcp is 405" "$(code -X DELETE "$A/mcp")" 405
check "batch is 400" "$(code "${AUTH[@]}" -d '[{"jsonrpc":"2.0","id":1,"method":"ping"}]' "$A/mcp")" 400
check "batch is -32600" "$(jq -r .error.code "$W/body")" -32600
check "invalid JSON is 400" "$(code "${AUTH[@]}" -d '{"jsonrpc":' "$A/mcp")" 400
check "invalid JSON is -32700" "$(jq -r .error.code "$W/body")" -32700
check "notification is 202" "$(code "${AUTH[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$A/mcp")" 202
check "notification body is empty" "$(wc -c < "$W/body" | tr -d ' ')" 0
head -c 1100000 /dev/zero | tr '\0' 'a' > "$W/big"
check "body over 1 MiB is 413" "$(code "${AUTH[@]}" --data-binary @"$W/big" "$A/mcp")" 413
check "foreign Origin is 403" "$(code "${AUTH[@]}" -H 'Origin: http://evil.example.com' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 403
check "foreign Host is 403" "$(code "${AUTH[@]}" -H 'Host: evil.example.com' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 403
check "no credential is 401" "$(code -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 401
contains "401 carries WWW-Authenticate resource_metadata" "$(tr -d '\r' < "$W/headers")" "www-authenticate: Bearer resource_metadata=\"http://127.0.0.1:$PA/.well-known/oauth-protected-resource/mcp\""
check "401 body is JSON" "$(jq -r .error "$W/body")" invalid_token
check "wrong key is 401" "$(code -H "Authorization: Bearer ${KEY}x" -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 401
check "X-Api-Key works" "$(code -H "X-Api-Key: $KEY" -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 200
check "?apikey= works and ping is {}" "$(curl -s -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp?apikey=$KEY" | jq -c .result)" "{}"
TOOLS=$(curl -s "${AUTH[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$A/mcp" | jq -r '[.result.tools[].name]|join(",")')
NTOOLS=$(awk -F, '{print NF}' <<<"$TOOLS")
contains "tools/list without initialize" "$TOOLS" "diagnose,"
contains "the embedded default lists discovery (builtin catalogue)" "$TOOLS" "search_titles"
check "no torrent client configured: no torrent tools" "$(grep -c find_torrents <<<"$TOOLS")" 0
check "/healthz" "$(code "$A/healthz")" 200
check "/readyz" "$(code "$A/readyz")" 200
check "/metrics without a key is 401" "$(code "$A/metrics")" 401
check "/metrics with the owner's key" "$(code -H "Authorization: Bearer $KEY" "$A/metrics")" 200
contains "/metrics counts requests" "$(cat "$W/body")" 'marquee_mcp_requests_total{method="tools/list",status="200"}'
check "protected-resource metadata" "$(curl -s "$A/.well-known/oauth-protected-resource" | jq -r .resource)" "$A/mcp"
check "REST mirror lists the same tools" "$(curl -s "${AUTH[@]}" "$A/api/v1/tools" | jq -r '.success, (.data.tools|length)' | paste -sd,)" "true,$NTOOLS"
check "REST mirror calls a tool" "$(curl -s "${AUTH[@]}" -d '{"tool_name":"whoami","arguments":{}}' "$A/api/v1/tools/call" | jq -r .data.data.person.role)" owner
check "REST mirror OpenAPI" "$(curl -s "$A/api/v1/openapi.json" | jq -r .openapi)" 3.1.0
check "REST mirror without key is 401" "$(code "$A/api/v1/tools")" 401

# ---- CLI: people, keys, grants, tools; grants filter tools/list; revocation is immediate
"$BIN" people add alice --role kid --data-dir "$DA" >/dev/null 2>&1
check "people list shows alice" "$("$BIN" people list --data-dir "$DA" 2>/dev/null | awk '$2=="alice"{print $3}')" kid
ALICE=$("$BIN" keys create --person alice --label phone --data-dir "$DA" 2>/dev/null)
contains "keys create prints the key" "$ALICE" "mq_"
KTOOLS=$(curl -s -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "$A/mcp" | jq -r '[.result.tools[].name]|join(",")')
check "a kid's requester key does not see diagnose" "$(tr , '\n' <<<"$KTOOLS" | grep -cx diagnose)" 0
contains "a kid's requester key sees search and requests" "$KTOOLS" "request_media"
"$BIN" people set-limits alice --max-movie PG --region US --data-dir "$DA" >/dev/null 2>&1
KID=$(curl -s -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_titles","arguments":{"query":"heat"}}}' "$A/mcp")
check "a kid with a PG cap sees no PG-13, R or NC-17 title" "$(jq -r '[.result.structuredContent.data.results[].rating | select(. == "PG-13" or . == "R" or . == "NC-17")] | length' <<<"$KID")" 0
check "a kid with a PG cap is told titles were hidden" "$(jq -r '.result.structuredContent.data.hidden_by_limits > 0' <<<"$KID")" true
check "grants list has the presets" "$("$BIN" grants list --data-dir "$DA" 2>/dev/null | awk '{print $1}' | sort | paste -sd,)" "admin,operator,owner,reader,requester"
contains "tools list --person" "$("$BIN" tools list --person alice --data-dir "$DA" 2>/dev/null)" "grant requester"
check "people add with a bad role fails" "$("$BIN" people add bob --role king --data-dir "$DA" >/dev/null 2>&1; echo $?)" 1
AID=$("$BIN" keys list --data-dir "$DA" 2>/dev/null | awk '$3=="alice"{print $1}')
"$BIN" keys revoke "$AID" --data-dir "$DA" >/dev/null 2>&1
check "a revoked key is refused at once" "$(code -H "Authorization: Bearer $ALICE" -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 401
check "config check on the embedded default" "$("$BIN" config check --data-dir "$DA" >/dev/null 2>&1; echo $?)" 0
check "doctor" "$("$BIN" doctor --data-dir "$DA" >/dev/null 2>&1; echo $?)" 0
printf 'listen = "127.0.0.1:1"\nbogus_key = 1\n[mcp]\nallow_destructive = false\n' > "$W/marquee.toml"
echo "127.0.0.1:2" > "$W/listen.txt"
OUT=$(MARQUEE_LISTEN_FILE="$W/listen.txt" MARQUEE_MCP__ALLOW_DESTRUCTIVE=true "$BIN" config check --config "$W/marquee.toml" --data-dir "$DA" 2>/dev/null)
contains "config: unknown keys are warned about" "$OUT" 'warning: unknown config key "bogus_key"'
contains "config: MARQUEE_*_FILE and __ nesting override the file" "$OUT" "listen 127.0.0.1:2; allowed hosts localhost, 127.0.0.1, [::1]; allow_destructive true"
check "config: a missing --config file is an error" "$("$BIN" config check --config "$W/nope.toml" >/dev/null 2>&1; echo $?)" 1

# ---- Official Python SDK over HTTP (legacy and 2026-07-28), stdio and the bridge
py() { "$KIT/py_client.py" "$@" 2>"$W/py.err"; }
OUT=$(py --url "$A/mcp" --header "Authorization: Bearer $KEY" --mode legacy --call whoami '{}')
check "python SDK legacy: protocol" "$(jq -r .protocolVersion <<<"$OUT")" 2025-11-25
check "python SDK legacy: whoami" "$(jq -r .call.structuredContent.data.person.name <<<"$OUT")" owner
OUT=$(py --url "$A/mcp" --header "Authorization: Bearer $KEY" --mode 2026-07-28 --call whoami '{}')
check "python SDK 2026-07-28: protocol" "$(jq -r .protocolVersion <<<"$OUT")" 2026-07-28
check "python SDK 2026-07-28: tools" "$(jq -r '.tools|length' <<<"$OUT")" "$NTOOLS"
check "python SDK 2026-07-28: whoami" "$(jq -r .call.structuredContent.data.grant.name <<<"$OUT")" owner
OUT=$(py --stdio "env MARQUEE_KEY=$KEY $BIN stdio --data-dir $DA" --call whoami '{}')
check "python SDK stdio: whoami" "$(jq -r .call.structuredContent.data.person.name <<<"$OUT")" owner
check "stdio without MARQUEE_KEY refuses to start" "$(env -u MARQUEE_KEY "$BIN" stdio --data-dir "$DA" </dev/null >/dev/null 2>"$W/nokey"; echo $?)" 1
contains "stdio without a key says why" "$(cat "$W/nokey")" "MARQUEE_KEY is not set"
OUT=$(py --stdio "env MARQUEE_KEY=$KEY $BIN bridge --url $A/mcp" --call whoami '{}') || cat "$W/py.err"
check "python SDK through the bridge: whoami" "$(jq -r .call.structuredContent.data.person.name <<<"$OUT")" owner

# ---- Inspector CLI
OUT=$("$KIT/inspector.sh" "$A/mcp" --header "Authorization: Bearer $KEY" --method tools/list --format json 2>"$W/insp.err")
contains "inspector lists whoami" "$OUT" '"whoami"'

# ---- No secret in any log
if grep -q "$KEY" "$W/a.err"; then bad "the owner key never appears in the log"; else ok "the owner key never appears in the log"; fi

# ---- Audit recovery: an entry left executing becomes outcome_unknown at the next start
stop "$a_PID"
python3 - "$DA/marquee.db" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
pid = c.execute("select id from people where role='owner'").fetchone()[0]
c.execute("insert into audit (at, person_id, tool, args_digest, status) values (?, ?, 'pause_torrents', 'sha256:0', 'executing')", (int(time.time()*1000), pid))
c.commit()
PY
# Readiness: hold the database locked while the server starts; it must answer 503 meanwhile.
python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("begin exclusive")
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
c.execute("rollback")' "$DA/marquee.db" 3 "$W/locked" & LOCKER=$!
PIDS+=($LOCKER)
for _ in $(seq 100); do [ -e "$W/locked" ] && break; sleep 0.05; done
env MARQUEE_LISTEN="127.0.0.1:$PA" "$BIN" serve --data-dir "$DA" >"$W/a2.out" 2>"$W/a2.err" &
A2=$!; PIDS+=($A2)
for _ in $(seq 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$A/healthz")" = 200 ] && break; sleep 0.05; done
# (GET /mcp is 405 whether or not the store is ready: the edge itself answers a POST 503.)
check "503 while the store is not ready" "$(code "${AUTH[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$A/mcp")" 503
contains "503 says Retry-After: 5" "$(tr -d '\r' < "$W/headers")" "retry-after: 5"
wait "$LOCKER" 2>/dev/null
for _ in $(seq 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$A/readyz")" = 200 ] && break; sleep 0.1; done
check "ready after the lock is gone" "$(code "$A/readyz")" 200
check "executing became outcome_unknown" "$(curl -s "${AUTH[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_activity","arguments":{}}}' "$A/mcp" | jq -r '.result.structuredContent.data.entries[0].status')" outcome_unknown
stop "$A2"

# ---- Official conformance suite (both eras). A second server lets key-less loopback
# requests in as a reader ([auth] local_person), because some suite requests drop the
# URL's query string and cannot carry a header.
PC=$(free_port); C="http://127.0.0.1:$PC"; DC=$W/c
start c "$DC" "$PC" MARQUEE_AUTH__LOCAL_PERSON=conformance MARQUEE_AUTH__LOCAL_GRANT=reader || bad "conformance server starts"
CKEY=$(grep -m1 -o 'mq_[A-Za-z0-9_]*' "$W/c.out")
"$BIN" people add conformance --role user --data-dir "$DC" >/dev/null 2>&1
for spec in 2025-11-25 2026-07-28; do
  OUT=$("$KIT/conformance.sh" "$C/mcp?apikey=$CKEY" --core --spec "$spec" --baseline "$ROOT/.ci/conformance-baseline.yml" 2>&1)
  echo "$OUT" | grep -E '^(PASS|FAIL|SKIP) ' | sed "s/^/   [$spec] /"
  check "conformance --core --spec $spec" "$(echo "$OUT" | grep -c '^FAIL ')" 0
done
stop "$c_PID"

# ---- [mcp section] Full conformance suites (both eras), every scenario, no expected
# failures: a test server with [mcp] conformance_fixtures on serves the suite's fixtures.
PF=$(free_port); F="http://127.0.0.1:$PF"; DF=$W/f
start f "$DF" "$PF" MARQUEE_MCP__CONFORMANCE_FIXTURES=true MARQUEE_AUTH__LOCAL_PERSON=conformance MARQUEE_AUTH__LOCAL_GRANT=reader || bad "fixture server starts"
FKEY=$(grep -m1 -o 'mq_[A-Za-z0-9_]*' "$W/f.out")
"$BIN" people add conformance --role user --data-dir "$DF" >/dev/null 2>&1
for spec in 2025-11-25 2026-07-28; do
  OUT=$("$KIT/conformance.sh" "$F/mcp?apikey=$FKEY" --spec "$spec" 2>&1)
  echo "$OUT" | grep -E '^(FAIL|SKIP) ' | sed "s/^/   [full $spec] /"
  check "conformance full --spec $spec: no failure" "$(echo "$OUT" | grep -c '^FAIL ')" 0
  contains "conformance full --spec $spec: summary" "$(echo "$OUT" | tail -1)" ", 0 failed"
done
# The tasks extension's scenarios (extension scenarios, run with --force): long calls as tasks.
TASKS=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal
  tasks-request-headers tasks-dispatch-and-envelope tasks-required-task-error tasks-status-notifications)
OUT=$("$KIT/conformance.sh" "$F/mcp?apikey=$FKEY" $(printf -- '--scenario %s ' "${TASKS[@]}") \
  --baseline "$ROOT/.ci/conformance-tasks-baseline.yml" -- --force 2>&1)
echo "$OUT" | grep -E '^(PASS|FAIL|SKIP) ' | sed "s/^/   [tasks] /"
check "conformance tasks scenarios: no failure" "$(echo "$OUT" | grep -c '^FAIL ')" 0
contains "conformance tasks scenarios: all ran" "$(echo "$OUT" | tail -1)" "conformance: 7 passed, 0 failed, 1 skipped"
# Prompts, completions, progress, logging and elicitation through the official Python SDK
# (scripts/mcp_features.py), over HTTP and stdio; the Inspector lists prompts.
feat() {
  local name=$1 out=$2
  check "$name: prompts listed" "$(jq -r '.prompts|index("request-media") != null' <<<"$out")" true
  contains "$name: a prompt names its tools" "$(jq -r .prompt_text <<<"$out")" "Tools to use: search_titles"
  check "$name: a prompt argument completes" "$(jq -c .media_type_completion <<<"$out")" '["tv"]'
  check "$name: a guide topic completes" "$(jq -c .topic_completion <<<"$out")" '["setup"]'
  check "$name: progress notifications during a long call" "$(jq -c .progress <<<"$out")" '[0,50,100]'
  check "$name: log notifications at the level asked" "$(jq -r '.logs|length' <<<"$out")" 3
  contains "$name: an elicitation is answered" "$(jq -r .elicitation_result <<<"$out")" "action=accept"
}
feat "python SDK features over HTTP" "$("$ROOT/scripts/mcp_features.py" --url "$F/mcp" --header "Authorization: Bearer $FKEY" --fixtures 2>"$W/feat.err")"
feat "python SDK features over stdio" "$("$ROOT/scripts/mcp_features.py" --stdio "env MARQUEE_KEY=$FKEY MARQUEE_MCP__CONFORMANCE_FIXTURES=true $BIN stdio --data-dir $DF" --fixtures 2>"$W/feat.err")"
OUT=$("$KIT/inspector.sh" "$F/mcp" --header "Authorization: Bearer $FKEY" --method prompts/list --format json 2>"$W/insp.err")
contains "inspector lists prompts" "$OUT" '"library-health"'
stop "$f_PID"
# ---- [end mcp section]

# ---- [oauth section] OAuth 2.1 for remote connectors (scripts/oauth_flow.py): the official
# Python SDK's OAuthClientProvider (discovery, registration, S256 PKCE, consent on the owner
# pages) then MCP calls with its token; a scripted code exchange checks audience, revocation,
# expiry (this server's access tokens live 2 seconds), plain PKCE and refresh rotation.
PO=$(free_port); O="http://127.0.0.1:$PO"; DO=$W/o
if start o "$DO" "$PO" MARQUEE_OAUTH__ACCESS_TOKEN_SECONDS=2; then
  "$BIN" people add kim --role kid --data-dir "$DO" >/dev/null 2>&1
  echo "correct horse battery staple" | "$BIN" people set-password owner --data-dir "$DO" >/dev/null 2>&1
  check "oauth: authorization server metadata offers S256 only" "$(curl -s "$O/.well-known/oauth-authorization-server" | jq -c .code_challenge_methods_supported)" '["S256"]'
  check "oauth: protected-resource metadata names the issuer" "$(curl -s "$O/.well-known/oauth-protected-resource/mcp" | jq -r '.authorization_servers[0]')" "$O"
  OA=$("$ROOT/scripts/oauth_flow.py" --base "$O" --password "correct horse battery staple" --person kim --grant requester 2>"$W/oauth.err")
  check "oauth: the python SDK's OAuth client acts as the consented person" "$(jq -r .sdk_person <<<"$OA")" kim
  check "oauth: ... with the consented grant" "$(jq -r .sdk_grant <<<"$OA")" requester
  check "oauth: ... and got a rotating refresh token" "$(jq -r .sdk_has_refresh <<<"$OA")" true
  check "oauth: a token for the REST mirror is 401 at /mcp" "$(jq -r .wrong_audience <<<"$OA")" 401
  check "oauth: ... and 200 at the REST mirror" "$(jq -r .rest_audience_at_rest <<<"$OA")" 200
  check "oauth: plain PKCE is refused" "$(jq -r .plain_pkce <<<"$OA")" invalid_request
  check "oauth: a refresh rotates the refresh token" "$(jq -r '.refresh_rotates' <<<"$OA")" true
  check "oauth: a reused refresh token is refused" "$(jq -r .refresh_reuse <<<"$OA")" invalid_grant
  check "oauth: ... and revokes the connection" "$(jq -r .after_reuse <<<"$OA")" 401
  check "oauth: a revoked token is 401" "$(jq -r .revoked <<<"$OA")" 401
  check "oauth: an expired token is 401" "$(jq -r .expired <<<"$OA")" 401
  check "oauth: no token or code in the server log" "$(grep -c 'mqa_\|mqr_\|mqc_' "$W/o.err" "$W/o.out" | awk -F: '{s+=$2} END {print s}')" 0
  stop "$o_PID"
else
  bad "oauth: server o started"
fi
# ---- [end oauth section]

echo "e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
