#!/usr/bin/env bash
# Usage: bench/pg-compare.sh OLD_JAR NEW_JAR JDBC_URL WORK [ROUNDS] [SECONDS] [RATE]: ServerLoad on PostgreSQL for two
# builds (bench/target/benchmarks.jar of the commit before a change, and of this one), one server and then two servers on
# one database, old and new alternating (one 1, new 1, old 2, new 2, ROUNDS times; default 1), each run SECONDS long
# (default 20) closed loop and paced at RATE messages/s (default 120), on a fresh schema of the database JDBC_URL
# (e.g. jdbc:postgresql://127.0.0.1:55432/postgres?user=postgres: default settings, synchronous_commit on, fsync on).
# Both builds run the same harness: NEW_JAR's dev.engram.bench classes go before each jar on the class path, so the
# load, the options (--instances, --solo) and the database's limits printed beside the figures (a bare INSERT and
# commit, one client and all at once; commits and WAL flushes per message) are the same; only the library differs.
# With MID_JAR (an eighth argument, e.g. main's jar when OLD_JAR is an older baseline) a third build runs between them:
# old, mid, new alternating. INSTANCES (environment, default "1 2") chooses the server counts (INSTANCES=2: two only).
# Output: WORK/{old,mid,new}-{1,2}-ROUND.txt, and the summary lines of all of them at the end.
set -eu
OLD=$1; NEW=$2; PG=$3; WORK=$4; ROUNDS=${5:-1}; LENGTH=${6:-20}; RATE=${7:-120}; MID=${8:-}
BUILDS="old new"; [ -n "$MID" ] && BUILDS="old mid new"
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
mkdir -p "$WORK/harness"
(cd "$WORK/harness" && unzip -qo "$(realpath "$NEW")" 'dev/engram/bench/*')
for r in $(seq 1 "$ROUNDS"); do
  for n in ${INSTANCES:-1 2}; do
    for build in $BUILDS; do
      jar=$OLD; [ "$build" = new ] && jar=$NEW; [ "$build" = mid ] && jar=$MID
      $JAVA -Xmx6g -cp "$WORK/harness:$jar" dev.engram.bench.ServerLoad --postgres "$PG" --instances "$n" \
        --seconds "$LENGTH" --rate "$RATE" --solo 200 > "$WORK/$build-$n-$r.txt" 2>&1 || echo "$build-$n-$r failed, see $WORK/$build-$n-$r.txt"
    done
  done
done
for f in "$WORK"/old-*.txt "$WORK"/mid-*.txt "$WORK"/new-*.txt; do
  [ -e "$f" ] || continue
  echo "== $(basename "$f")"
  grep -E "^(in-process|same, minimal|  with the minimal|bare INSERT|closed loop|paced|checks|search freshness)" "$f" || true
done
