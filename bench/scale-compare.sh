#!/usr/bin/env bash
# Usage: bench/scale-compare.sh OLD.jar NEW.jar WORK ROUNDS [ScaleSearch arguments...]: measures the finished
# ScaleSearch run in WORK (its store and index, nothing added) with each jar in turn, ROUNDS times, alternating
# (old, new, old, new, ...), each a fresh JVM running `ScaleSearch --measure-only 1`; prints each run's query lines
# (p50 / p99 ms), labelled, and keeps the whole output in WORK/compare-N-LABEL.log. Give the --passages and --scopes the
# run was built with (and --data). NICE (default 0; negative as root) and the autogroup's nice value as in
# scale-search.sh. Both jars must read the same index format (ScaleSearch refuses a run it cannot measure).
set -eu
OLD=$1; NEW=$2; WORK=$3; ROUNDS=$4
shift 4
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
NICE=${NICE:-0}
for r in $(seq 1 "$ROUNDS"); do
  for pair in "old:$OLD" "new:$NEW"; do
    label=${pair%%:*}; jar=${pair#*:}
    log="$WORK/compare-$r-$label.log"
    nice -n "$NICE" "$JAVA" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx8g \
      -Dai.djl.offline=true ${JFR:+-XX:StartFlightRecording=filename=$WORK/compare-$r-$label.jfr,settings=profile} \
      -cp "$jar" dev.engram.bench.ScaleSearch --work "$WORK" "$@" --measure-only 1 > "$log" 2>&1 &
    pid=$!
    if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
      echo "$NICE" > "/proc/$pid/autogroup" 2>/dev/null || true
    fi
    wait "$pid" || { echo "round $r $label failed: see $log" >&2; exit 1; }
    echo "== round $r, $label ($jar), load $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -E '^(engram|lucene|disk|open)' "$log"
  done
done
