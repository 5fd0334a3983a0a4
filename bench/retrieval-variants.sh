#!/usr/bin/env bash
# Usage: bench/retrieval-variants.sh WORK: the retrieval variants of issue 35 (session 13) against the defaults, one
# after another (never two at once), with the vectors cached in WORK/vectors (the first run embeds; later runs only
# index and search). Each run writes WORK/NAME.log (RetrievalQuality's tables) and WORK/NAME.tsv (each question's
# figure); then bench/retrieval-folds.py chooses among them on folds. Run from the repository root after
# `./mvnw -o -q -pl bench -am package -DskipTests`. JAVA defaults to JDK 25 at the path these machines use.
set -eu
WORK=$1
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
DATA=${DATA:-../shared/data}
mkdir -p "$WORK"
run() {
  local name=$1 set=$2; shift 2
  $JAVA --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true -Xmx4g \
    -cp bench/target/benchmarks.jar dev.engram.bench.RetrievalQuality "$set" --data "$DATA" --models bge-small \
    --embedding-cache "$WORK/vectors" --dump "$WORK/$name.tsv" "$@" > "$WORK/$name.log" 2>&1
}
run sbase scifact
run scs scifact --complete-scores
run sfb scifact --feedback 5,0.5
run sfbcs scifact --feedback 5,0.5 --complete-scores
run sb37 scifact --fusion 'weighted:0.3,0.7;conversations:0.6,0.4'
run scs37 scifact --complete-scores --fusion 'weighted:0.3,0.7;conversations:0.6,0.4'
run scs2575 scifact --complete-scores --fusion 'weighted:0.25,0.75;conversations:0.6,0.4'
run scs28 scifact --complete-scores --fusion 'weighted:0.2,0.8;conversations:0.6,0.4'
run lbase locomo
run lcs locomo --complete-scores
run lfb locomo --feedback 5,0.5
run lcs55 locomo --complete-scores --fusion 'weighted:0.4,0.6;conversations:0.5,0.5'
python3 bench/retrieval-folds.py scifact "$WORK" sbase scs sfb sfbcs sb37 scs37 scs2575 scs28
python3 bench/retrieval-folds.py locomo "$WORK" lbase lcs lfb lcs55
