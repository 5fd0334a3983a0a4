#!/usr/bin/env bash
# Usage: bench/startup-compare.sh OLD_JAR OLD_LAUNCHER NEW_JAR NEW_LAUNCHER [ROUNDS]: bench/startup.sh for the old and
# the new build alternately, ROUNDS times each (default 3), in one session, so that both meet the same machine load.
# OLD_LAUNCHER is the old build's ./engram (e.g. `git show BASE:engram > /tmp/old-engram`); run it with a JDK 25 as
# JAVA_HOME, on a quiet machine for figures to quote. Prints one block per run; `grep ready` lines compare the starts,
# `grep 'first archival'` the first searches.
set -u
OLD_JAR=$1; OLD_L=$2; NEW_JAR=$3; NEW_L=$4; ROUNDS=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
echo "load at start: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || uptime)"
for i in $(seq 1 "$ROUNDS"); do
  bash "$here/startup.sh" "$OLD_JAR" "old#$i" "$OLD_L"
  bash "$here/startup.sh" "$NEW_JAR" "new#$i" "$NEW_L"
done
echo "load at end: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || uptime)"
