#!/usr/bin/env bash
# Usage: bench/startup-profile.sh JAR LABEL [LAUNCHER] [RUNS]: where the start of `engram serve` goes, for the jar JAR
# run by LAUNCHER (default: this clone's ./engram; a JDK 25 as JAVA_HOME). A fresh home as bench/startup.sh makes it, a
# first serve (which writes the serve AOT cache), then RUNS (default 3) starts, each logged by the JVM
# (-Xlog:startuptime and -Xlog:class+load with uptimes, through JDK_JAVA_OPTIONS) and timed from outside:
#   launcher   the launcher alone (a copy that exits where it would start the JVM): wall and CPU, once
#   create-vm  the JVM's "Create VM" (its Genesis, which maps and relocates the AOT cache, included)
#   main       JVM uptime when the CLI's main class loads
#   listening  JVM uptime when the first request's HTTP/1 connection class loads (the script asks /v1/health/ at once)
#   ready      wall time from the launcher until /readyz says 200, and the JVM's CPU (user+sys) then
#   classes    classes loaded until ready: from the AOT cache / the jar / the JDK's modules / generated (lambdas, proxies)
#   threads    CPU (ms) of each live thread with 50 ms or more at ready ("java": the main thread; "C1/C2 CompilerThre": the
#              JIT); threads that ended before ready (the store's open, the preparation, the routes' second half) are in
#              the process's CPU only
# Compare two builds by running it for each, alternately. Run on a quiet machine for figures to quote.
set -u
JAR=$1; LABEL=$2; L=${3:-$(cd "$(dirname "$0")/.." && pwd)/engram}; RUNS=${4:-3}
H=$(mktemp -d "${TMPDIR:-/tmp}/engram-profile.XXXX")
run() { ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" "$@"; }
run agent create helper --user ana --model openai:gpt-4o-mini --id helper-1 >/dev/null
run archival insert "Maya studies octopus migration off Cascais" --agent helper --user ana >/dev/null
PORT=$((20000 + RANDOM % 20000))
serve() { # starts serve in the background (its pid in SPID) and waits until /readyz says 200; $1: log file suffix
  ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" serve --port $PORT > "$H/serve$1.log" 2>&1 &
  SPID=$!
}
stop() { kill $SPID; while kill -0 $SPID 2>/dev/null; do sleep 0.05; done; sleep 0.3; }
serve 0
until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do sleep 0.05; done
stop
# the launcher alone: a copy that exits where it would exec the JVM
sed 's/^exec "\$java_bin"/exit 0; exec "$java_bin"/' "$L" > "$H/launcher-only"
chmod +x "$H/launcher-only"
s=$(date +%s%N)
lt=$( { /usr/bin/time -f '%U %S' env ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$H/launcher-only" --home "$H" serve --port $PORT; } 2>&1 | tail -1)
e=$(date +%s%N)
echo "$LABEL launcher: wall $(( (e-s)/1000000 )) ms, cpu $(echo "$lt" | awk '{printf "%d", ($1+$2)*1000}') ms"
for i in $(seq 1 "$RUNS"); do
  t0=$(date +%s%N)
  JDK_JAVA_OPTIONS="-Xlog:startuptime:file=$H/st$i.log:uptime -Xlog:class+load:file=$H/cl$i.log:uptime" serve "$i"
  until curl -s -o /dev/null "http://127.0.0.1:$PORT/v1/health/"; do sleep 0.01; done
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do sleep 0.01; done
  t2=$(date +%s%N)
  cpu=$(awk '{print ($14+$15)*10}' /proc/$SPID/stat)
  threads=$(for t in /proc/$SPID/task/*; do n=$(cat $t/comm); s=($(sed 's/.*) //' $t/stat)); echo "$(( (${s[11]}+${s[12]})*10 )) $n"; done \
    | sort -rn | awk '$1 >= 50 {printf "%s%s %s", sep, $2 " " $3, $1; sep=", "}')
  cp "$H/cl$i.log" "$H/cl$i.ready"
  stop
  vm=$(grep -o 'Create VM, [0-9.]*' "$H/st$i.log" | awk '{printf "%d", $3*1000}')
  genesis=$(grep -o 'Genesis, [0-9.]*' "$H/st$i.log" | awk '{printf "%d", $2*1000}')
  up() { grep -m1 " $1 source" "$H/cl$i.ready" | sed -E 's/^\[([0-9.]+)s\].*/\1/' | awk '{printf "%d", $1*1000}'; }
  main=$(up dev.engram.cli.EngramCli)
  listening=$(up io.helidon.webserver.http1.Http1Connection)
  total=$(grep -c ' source: ' "$H/cl$i.ready")
  cached=$(grep -c 'source: shared objects file' "$H/cl$i.ready")
  jar=$(grep -c 'source: jar:\|source: file:' "$H/cl$i.ready")
  jdk=$(grep -c 'source: jrt:' "$H/cl$i.ready")
  echo "$LABEL run $i: create-vm $vm ms (genesis $genesis); main at $main ms; listening at $listening ms (JVM uptime);" \
    "ready $(( (t2-t0)/1000000 )) ms wall, cpu $cpu ms; classes $total: $cached cached, $jar from the jar," \
    "$jdk from the JDK's modules, $(( total - cached - jar - jdk )) generated; $(grep -o 'started in [0-9]* ms' "$H/serve$i.log")"
  echo "$LABEL run $i threads at ready (CPU ms): $threads"
done
rm -rf "$H"
