#!/usr/bin/env bash
# Usage: bench/scope-speed.sh OLD_JAR NEW_JAR WORK [ROUNDS]: scoped search latency by scope size (ScopeSpeed) for two
# builds side by side. Builds the stores and indexes once into WORK with NEW_JAR (`ScopeSpeed --build`; skipped when
# WORK already holds them), then measures OLD and NEW in turn ROUNDS times (default 2) over the same indexes. The
# benchmark's own classes always come from NEW_JAR (OLD_JAR may predate ScopeSpeed); the search is OLD_JAR's or
# NEW_JAR's. Output: WORK/old-N.txt and WORK/new-N.txt. JAVA defaults to JDK 25 at the path these machines use.
set -eu
OLD=$1; NEW=$2; WORK=$3; ROUNDS=${4:-2}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
FLAGS="--enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx6g -Dai.djl.offline=true"
mkdir -p "$WORK"
BENCH=$(mktemp -d "${TMPDIR:-/tmp}/scope-speed-classes.XXXX")
(cd "$BENCH" && unzip -q "$NEW" 'dev/engram/bench/*')
if [ ! -f "$WORK/vectors.bin" ]; then
  $JAVA $FLAGS -cp "$NEW" dev.engram.bench.ScopeSpeed --work "$WORK" --build > "$WORK/build.txt" 2>&1
fi
for r in $(seq 1 "$ROUNDS"); do
  $JAVA $FLAGS -cp "$BENCH:$OLD" dev.engram.bench.ScopeSpeed --work "$WORK" > "$WORK/old-$r.txt" 2>&1
  $JAVA $FLAGS -cp "$NEW" dev.engram.bench.ScopeSpeed --work "$WORK" > "$WORK/new-$r.txt" 2>&1
done
rm -rf "$BENCH"
