#!/usr/bin/env bash
# Usage: scripts/search-refusal-time.sh OLD.jar NEW.jar [ROUNDS] (with a JDK 25 as JAVA_HOME): the wall and CPU time of
# fresh `engram search` processes through this clone's launcher, old and new jar alternately in one session, ROUNDS
# rounds (default 5): one that is refused from the store alone (an agent that does not exist, exit 1) and one that runs
# (a search of an agent with three archival entries, which loads the embedding model). Each jar gets its own home, made
# and used once by that jar before the rounds (its caches written). Prints one line per process:
# "LABEL refused|runs wall MS cpu MS exit N".
set -u
OLD=$1; NEW=$2; ROUNDS=${3:-5}
L=$(cd "$(dirname "$0")/.." && pwd)/engram
W=$(mktemp -d "${TMPDIR:-/tmp}/engram-refusal.XXXX")
run() { local jar=$1 home=$2; shift 2; ENGRAM_JAR=$jar ENGRAM_HOME=$home "$L" --home "$home" "$@"; }
timed() { # LABEL KIND JAR HOME ARGS...: one process, its wall time and its children's CPU time
  local label=$1 kind=$2 jar=$3 home=$4; shift 4
  local s e code
  s=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$W/cpu" bash -c 'ENGRAM_JAR=$0 ENGRAM_HOME=$1 "$2" --home "$1" "${@:3}" >/dev/null 2>&1' \
      "$jar" "$home" "$L" "$@"
  code=$?
  e=$(date +%s%N)
  echo "$label $kind wall $(( (e-s)/1000000 )) ms cpu $(awk '{printf "%d", ($1+$2)*1000}' "$W/cpu") ms exit $code"
}
for v in old new; do
  jar=$OLD; [ $v = new ] && jar=$NEW
  mkdir -p "$W/$v"
  run "$jar" "$W/$v" agent create helper --user ana --model openai:gpt-4o-mini >/dev/null
  for t in "Maya studies octopus migration off Cascais" "The field report is due March 3" "Maya is allergic to peanuts"; do
    run "$jar" "$W/$v" archival insert "$t" --agent helper --user ana >/dev/null
  done
  run "$jar" "$W/$v" search "octopus" --agent helper --user ana >/dev/null # the index caught up, the caches written
done
for r in $(seq 1 "$ROUNDS"); do
  for v in old new; do
    jar=$OLD; [ $v = new ] && jar=$NEW
    timed "$v#$r" refused "$jar" "$W/$v" search "octopus deadline" --agent nobody --user ana
    timed "$v#$r" runs "$jar" "$W/$v" search "octopus deadline" --agent helper --user ana
  done
done
rm -rf "$W"
