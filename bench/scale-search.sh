#!/usr/bin/env bash
# Usage: bench/scale-search.sh JAR WORK [FLOOR_GB] [ScaleSearch arguments...]: starts ScaleSearch (issue 34 item 5, ten
# million passages over 10,000 scopes by default) detached under `nice -n $NICE` (default 10; a negative NICE, as root,
# keeps the run ahead of other work on the machine; with the kernel's autogroup scheduling, where a nice value counts
# only against processes of the same session, the value is also written to the run's /proc/PID/autogroup), its output in WORK/run.log, and a watchdog
# that checks the free disk under WORK every 10 s and stops the run (SIGTERM, then SIGKILL) if it falls under FLOOR_GB
# (default 8). ScaleSearch itself stops adding passages earlier (--min-free-gb, default 14) and reports where it stopped;
# the watchdog is for what it cannot foresee (a merge's temporary files, other users of the disk). Prints the run's pid.
# Delete WORK afterwards (it holds the store and the index: about 2.5 GB per million passages).
set -eu
JAR=$1; WORK=$2; FLOOR_GB=${3:-8}
shift $(( $# >= 3 ? 3 : $# ))
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
HEAP=${HEAP:-8g}
NICE=${NICE:-10}
mkdir -p "$WORK"
nohup nice -n "$NICE" "$JAVA" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector "-Xmx$HEAP" \
  -Dai.djl.offline=true -cp "$JAR" dev.engram.bench.ScaleSearch --work "$WORK" "$@" > "$WORK/run.log" 2>&1 &
PID=$!
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
  echo "$NICE" > "/proc/$PID/autogroup" 2>/dev/null || echo "could not set the autogroup's nice value to $NICE" >&2
fi
nohup bash -c '
  while kill -0 '"$PID"' 2>/dev/null; do
    FREE_KB=$(df -Pk "'"$WORK"'" | awk "NR==2 {print \$4}")
    if [ "$FREE_KB" -lt $(( '"$FLOOR_GB"' * 1000000 )) ]; then
      echo "watchdog: free disk $((FREE_KB / 1000)) MB under '"$FLOOR_GB"' GB at $(date -u +%H:%M:%S): stopping the run" >> "'"$WORK"'/run.log"
      kill '"$PID"'; sleep 30; kill -9 '"$PID"' 2>/dev/null
      exit 0
    fi
    sleep 10
  done' > /dev/null 2>&1 &
echo "$PID"
