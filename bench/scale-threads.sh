#!/usr/bin/env bash
# Usage: bench/scale-threads.sh JAR WORK [PASSAGES] [ROUNDS]: index build time with one writing thread (before
# indexingThreads) and with the default (the processors, up to 4), in turn ROUNDS times (default 2), each a fresh
# ScaleSearch build of PASSAGES (default 200,000) over 10,000 scopes in WORK/t1-N and WORK/tdefault-N (deleted after
# each run; WORK/vectors.bin, the kept real vectors, is reused). Prints each run's build line; output in WORK/*.txt.
set -eu
JAR=$1; WORK=$2; PASSAGES=${3:-200000}; ROUNDS=${4:-2}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
FLAGS="--enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx4g -Dai.djl.offline=true"
mkdir -p "$WORK"
for r in $(seq 1 "$ROUNDS"); do
  for t in 1 0; do
    name=$([ "$t" = 0 ] && echo default || echo 1)
    dir="$WORK/t$name-$r"
    mkdir -p "$dir"
    [ -f "$WORK/vectors.bin" ] && cp "$WORK/vectors.bin" "$dir/"
    nice -n 10 $JAVA $FLAGS -cp "$JAR" dev.engram.bench.ScaleSearch --work "$dir" --passages "$PASSAGES" --queries 50 \
      --indexing-threads "$t" --min-free-gb 10 "${@:5}" > "$WORK/t$name-$r.txt" 2>&1
    [ -f "$WORK/vectors.bin" ] || cp "$dir/vectors.bin" "$WORK/"
    echo "threads $name, round $r: $(grep '^build:' "$WORK/t$name-$r.txt" | tail -1)"
    rm -rf "$dir"
  done
done
