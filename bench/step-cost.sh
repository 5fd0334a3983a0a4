#!/usr/bin/env bash
# Usage: bench/step-cost.sh OLD_JAR NEW_JAR WORK [ROUNDS]: the agent runtime's cost per step (issue 34, item 1) for two
# builds in one session, alternating OLD, NEW, OLD, NEW... ROUNDS times (default 3): AgentStepBenchmark's `step` (JMH,
# sample time, µs/op) of each, and in each NEW run the limits beside it (`modelCall`: the instant model's own call on
# the step's prompt; `stepWrites`: the store's three writes of a step, each its own transaction). An old jar without
# the limit benchmarks runs `step` only. Output: WORK/old-N.txt and WORK/new-N.txt (JMH's tables), then the p50 lines.
set -eu
OLD=$1; NEW=$2; WORK=$3; ROUNDS=${4:-3}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
mkdir -p "$WORK"
for r in $(seq 1 "$ROUNDS"); do
  $JAVA -jar "$OLD" 'AgentStepBenchmark.(step|modelCall|stepWrites)$' -wi 2 -w 2 -i 4 -r 3 > "$WORK/old-$r.txt" 2>&1
  $JAVA -jar "$NEW" 'AgentStepBenchmark.(step|modelCall|stepWrites)$' -wi 2 -w 2 -i 4 -r 3 > "$WORK/new-$r.txt" 2>&1
done
for f in "$WORK"/old-*.txt "$WORK"/new-*.txt; do
  echo "== $f"; grep -h ":p0.50\|:p0.99" "$f" || true
done
