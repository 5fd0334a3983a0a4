#!/usr/bin/env bash
# Usage: bench/step-records.sh OLD_JAR NEW_JAR WORK [ROUNDS]: what recording each step (AgentEvent.StepTaken: the
# compact JSON of what the model was asked and answered, built in the loop) costs the agent runtime per message, as
# AgentStepBenchmark's `step` (JMH, sample time) for two builds (bench/target/benchmarks.jar of the commit before the
# step records, and of this one) alternating OLD, NEW, OLD, NEW… ROUNDS times (default 2). Output: WORK/old-N.txt and
# WORK/new-N.txt (JMH's table: p50, p90, p99 in µs/op). The server's write of the step rows rides in the run's end
# (one statement in a transaction that is already there) and is not in this benchmark.
set -eu
OLD=$1; NEW=$2; WORK=$3; ROUNDS=${4:-2}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
mkdir -p "$WORK"
for r in $(seq 1 "$ROUNDS"); do
  $JAVA -jar "$OLD" 'AgentStepBenchmark.step$' -wi 2 -w 2 -i 4 -r 3 > "$WORK/old-$r.txt" 2>&1
  $JAVA -jar "$NEW" 'AgentStepBenchmark.step$' -wi 2 -w 2 -i 4 -r 3 > "$WORK/new-$r.txt" 2>&1
done
grep -h "step:p0.50\|step  \|step:p0.90\|step:p0.99" "$WORK"/old-*.txt "$WORK"/new-*.txt || true
