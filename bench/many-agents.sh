#!/usr/bin/env bash
# Usage: bench/many-agents.sh WORK_DIR [AGENTS] [USERS] [SECONDS] [XMX] [MAX_LOADED]
# A server of many agents (issue 34 item 6; README: "A server of many agents"). Builds, once, two SQLite stores in
# WORK_DIR through the library: AGENTS agents of USERS users (default 10,000 of 1,000) and the baseline of 10 agents of
# 1 user, each agent with its two blocks and 3 messages (kept for later runs: delete WORK_DIR to build again). Then starts
# a server over each as a child JVM with -XmxXMX (default 1g) and sends messages from 100 concurrent clients, in a closed
# loop for SECONDS (default 30), each to an agent drawn at random: the time to /readyz, heap after GC, live threads,
# messages/s and p50/p99, beside the baseline's; the large store once per MAX_LOADED value (the runtime's bound on loaded
# agents; default "1000,20000": the default bound, and every agent kept loaded as before the bound). Build the jar
# first: ./mvnw -pl bench -am package -DskipTests. Run with a JDK 25 as JAVA (default: java on the PATH).
set -eu
WORK=$1; AGENTS=${2:-10000}; USERS=${3:-1000}; SECONDS_=${4:-30}; XMX=${5:-1g}; MAX_LOADED=${6:-1000,20000}
JAVA=${JAVA:-java}
JAR=$(cd "$(dirname "$0")" && pwd)/target/benchmarks.jar
mkdir -p "$WORK"
"$JAVA" -Xmx4g -cp "$JAR" dev.engram.bench.ManyAgents --build --work "$WORK" --agents "$AGENTS" --users "$USERS" --messages 3
"$JAVA" -Xmx1g -cp "$JAR" dev.engram.bench.ManyAgents --run --work "$WORK" --clients 100 --seconds "$SECONDS_" --xmx "$XMX" \
  --max-loaded "$MAX_LOADED" --java "$JAVA"
