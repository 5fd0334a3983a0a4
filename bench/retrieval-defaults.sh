#!/usr/bin/env bash
# Usage: bench/retrieval-defaults.sh WORK [ROUNDS]: the search defaults of before (weights 0.4 / 0.6, conversations
# 0.6 / 0.4, scores not completed) and of now (0.3 / 0.7, 0.5 / 0.5, completed scores), alternating, ROUNDS times
# (default 2), on SciFact train and LoCoMo dev (SET=scifact or SET=locomo for one) with bge-small. The vectors are cached in WORK/vectors (the first run
# embeds; later runs only index and search, so the query embedding is a map lookup and not in the search time). Each
# run writes WORK/NAME-ROUND.log, whose last lines give the hybrid figure and its cost (context tokens of 10 hits,
# search p50/p95); the script ends by printing those lines side by side. Run from the repository root after
# `./mvnw -o -q -pl bench -am package -DskipTests`, on a quiet machine for the latency (never two runs at once).
set -eu
WORK=$1
ROUNDS=${2:-2}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
DATA=${DATA:-../shared/data}
mkdir -p "$WORK"
run() {
  local name=$1; shift
  $JAVA --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true -Xmx4g \
    -cp bench/target/benchmarks.jar dev.engram.bench.RetrievalQuality "${SET:-all}" --data "$DATA" --models bge-small \
    --embedding-cache "$WORK/vectors" "$@" > "$WORK/$name.log" 2>&1
}
for i in $(seq 1 "$ROUNDS"); do
  run "old-$i" --no-complete-scores --fusion 'weighted:0.4,0.6;conversations:0.6,0.4'
  run "new-$i"
done
grep -H "hybrid.*search p50" "$WORK"/old-*.log "$WORK"/new-*.log
