#!/usr/bin/env bash
# Usage: bench/startup.sh JAR LABEL [LAUNCHER]: the start-up of `engram serve` and the first searches of a fresh
# process, for the jar JAR run by LAUNCHER (default: this clone's ./engram; run it with a JDK 25 as JAVA_HOME).
# A fresh home per run: a user 'ana' with agent 'helper' and 3 archival entries; a first `engram serve` (a user's
# first run: it writes the caches; once ready, one search, then stopped), then (1) `engram serve` again: ready time
# (wall clock from the launcher until /v1/health/ first answers, with the JVM's CPU time then; until /readyz says 200;
# until the warm-up is done, which /readyz says with "warm": true where it says "warm" at all, else it is done once
# ready; and its own "started in" line), then the first, second and third archival search over HTTP once warm;
# (2) the wall time of two fresh `engram search` processes. Compare two builds with bench/startup-compare.sh, which runs
# this script for old and new alternately in one session (README: start-up).
set -u
JAR=$1; LABEL=$2; L=${3:-$(cd "$(dirname "$0")/.." && pwd)/engram}
H=$(mktemp -d "${TMPDIR:-/tmp}/engram-startup.XXXX")
run() { ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" "$@"; }
run agent create helper --user ana --model openai:gpt-4o-mini --id helper-1 >/dev/null
for t in "Maya studies octopus migration off Cascais" "The field report is due March 3" "Maya is allergic to peanuts"; do
  run archival insert "$t" --agent helper --user ana >/dev/null
done
KEY=$(run keys create --user ana 2>/dev/null | tail -1)
PORT=$((20000 + RANDOM % 20000))
# the first run of serve (a user's first start: it may write the caches), stopped once it answers
ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" serve --port $PORT > $H/serve0.log 2>&1 &
SPID=$!
until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do sleep 0.05; done
curl -s -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/agents/helper-1/archival-memory/search?query=octopus"
kill $SPID; while kill -0 $SPID 2>/dev/null; do sleep 0.1; done; sleep 0.5
t0=$(date +%s%N)
ENGRAM_JAR=$JAR ENGRAM_HOME=$H "$L" --home "$H" serve --port $PORT > $H/serve.log 2>&1 &
SPID=$!
until curl -s -o /dev/null "http://127.0.0.1:$PORT/v1/health/"; do sleep 0.01; done
t1=$(date +%s%N)
cpu=$(awk '{print ($14+$15)*10}' /proc/$SPID/stat)
until [ "$(curl -s -o $H/ready.json -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")" = 200 ]; do sleep 0.01; done
t2=$(date +%s%N)
# warm: a build whose /readyz says "warm" is warm once it says true; an older one was warm once ready
while grep -q '"warm":false' $H/ready.json; do sleep 0.01; curl -s -o $H/ready.json "http://127.0.0.1:$PORT/readyz"; done
t3=$(date +%s%N)
until grep -q 'started in' $H/serve.log; do sleep 0.05; done
echo "$LABEL serve: ready (wall, launcher to first /v1/health/ answer) $(( (t1-t0)/1000000 )) ms (cpu $cpu ms); /readyz 200 at $(( (t2-t0)/1000000 )) ms; warm-up done at $(( (t3-t0)/1000000 )) ms; log: $(grep -o 'started in [0-9]* ms' $H/serve.log) $(grep -o 'Warm-up done in [0-9]* ms' $H/serve.log)"
for i in first second third; do
  s=$(date +%s%N)
  code=$(curl -s -o $H/out.json -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/agents/helper-1/archival-memory/search?query=octopus%20deadline")
  e=$(date +%s%N)
  echo "$LABEL serve: $i archival search once warm $(( (e-s)/1000000 )) ms (HTTP $code)"
done
kill $SPID; while kill -0 $SPID 2>/dev/null; do sleep 0.1; done; sleep 0.5
grep -i warn $H/serve.log $H/serve0.log | head -5
# Helidon reads its metadata from the files its merged manifests list; with one jar's manifest alone it scans the jar
echo "$LABEL jar: $(unzip -p "$JAR" META-INF/helidon/manifest 2>/dev/null | grep -c '^#HELIDON MANIFEST#') Helidon manifest(s) merged"
for i in 1 2; do
  s=$(date +%s%N); run search "octopus deadline" --agent helper --user ana >/dev/null; e=$(date +%s%N)
  echo "$LABEL engram search process (wall): $(( (e-s)/1000000 )) ms"
done
rm -rf "$H"
