#!/usr/bin/env bash
# Usage: bench/serve-jit-flags.sh JAR LAUNCHER ROUNDS VARIANT... (a JDK 25 as JAVA_HOME; each VARIANT is JDK_JAVA_OPTIONS,
# "-" for none), e.g. bench/serve-jit-flags.sh cli/target/engram.jar ./engram 3 - -XX:CompileThresholdScaling=10
# Whether a JIT flag for `engram serve` is worth it: the start against the steady state. A home with one agent and 30
# archival entries; a first serve writes the AOT cache (not reported); then for each variant, alternately, ROUNDS times:
# at ready (/readyz 200): wall from the launcher, the JVM's CPU and its C1 and C2 compiler threads' CPU; once warm
# (/readyz "warm": true): the first three archival searches over HTTP (ms); then 200 archival searches and 200 more:
# wall per search (curl included) and the server's CPU per search (the JIT's included). Run on a quiet machine.
set -u
JAR=$1; L=$2; R=$3; shift 3
H=$(mktemp -d "${TMPDIR:-/tmp}/engram-jit.XXXX")
run() { ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" "$@"; }
run agent create helper --user ana --model openai:gpt-4o-mini --id helper-1 >/dev/null
for i in $(seq 1 30); do run archival insert "Maya studies octopus migration off Cascais, note $i about deadlines and travel" --agent helper --user ana >/dev/null; done
KEY=$(run keys create --user ana 2>/dev/null | tail -1)
cpu() { awk '{print ($14+$15)*10}' /proc/$1/stat; }
tcpu() { for t in /proc/$1/task/*; do [ "$(cat $t/comm)" = "$2" ] && { s=($(sed 's/.*) //' $t/stat)); echo $(( (${s[11]}+${s[12]})*10 )); return; }; done; echo 0; }
q() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/agents/helper-1/archival-memory/search?query=$1"; }
first=1
for r in $(seq 1 $R); do
 for v in "$@"; do
  opts=""; [ "$v" != "-" ] && opts="$v"
  PORT=$((20000 + RANDOM % 20000))
  t0=$(date +%s%N)
  JDK_JAVA_OPTIONS="$opts" ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" serve --port $PORT > $H/serve.log 2>&1 &
  SPID=$!
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do sleep 0.01; done
  t1=$(date +%s%N)
  line="[$v] ready $(( (t1-t0)/1000000 )) ms, cpu $(cpu $SPID) (C1 $(tcpu $SPID 'C1 CompilerThre'), C2 $(tcpu $SPID 'C2 CompilerThre'))"
  if [ $first = 1 ]; then first=0; kill $SPID; wait $SPID 2>/dev/null; sleep 0.3; continue; fi # the first writes the AOT cache
  until curl -s "http://127.0.0.1:$PORT/readyz" | grep -q '"warm":true'; do sleep 0.05; done
  f=""
  for w in octopus%20deadline travel%20notes Cascais; do s=$(date +%s%N); q $w >/dev/null; e=$(date +%s%N); f="$f $(( (e-s)/1000000 ))"; done
  line="$line; first searches once warm:$f ms"
  for block in 1 2; do
    c0=$(cpu $SPID); s=$(date +%s%N)
    for k in $(seq 1 200); do q "octopus%20note%20$RANDOM%20$k" >/dev/null; done # new words: no cached query
    e=$(date +%s%N); c1=$(cpu $SPID)
    line="$line; 200 searches #$block: $(( (e-s)/200000 )) us wall/search, cpu $(( (c1-c0)*1000/200 )) us/search"
  done
  echo "$line (load $(cut -d' ' -f1 /proc/loadavg))"
  kill $SPID; wait $SPID 2>/dev/null; sleep 0.3
 done
done
rm -rf "$H"
