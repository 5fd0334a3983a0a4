#!/usr/bin/env bash
# Times the whole suite with the modules built one after another and two at a time, alternating, on this machine:
#   scripts/suitetime-parallel.sh [ROUNDS] [THREADS]
# e.g. scripts/suitetime-parallel.sh 2 2
# Each round runs `./mvnw -o verify` and `./mvnw -o -T THREADS verify` (Maven builds a module once every module it
# depends on is built, so framework beside memory, memory-postgres and mcp beside builtin-tools and agents, samples
# beside bench and cli), and prints the total and the reactor summary of each run. Whether two at a time is faster on 2
# cores depends on how much of a module's run waits (timeouts, child processes, PostgreSQL) rather than computes: run
# it on a quiet machine, where the brief's 15-minute budget is measured. Logs go to ${TMPDIR:-/tmp}/suitetime-parallel.
set -euo pipefail
rounds=${1:-1} threads=${2:-2}
root=$(git rev-parse --show-toplevel)
logs=${TMPDIR:-/tmp}/suitetime-parallel
mkdir -p "$logs"
cd "$root"
for round in $(seq "$rounds"); do
    for t in 1 "$threads"; do
        log="$logs/round$round-T$t.log"
        start=$(date +%s)
        if ./mvnw -o -T "$t" verify >"$log" 2>&1; then result=ok; else result=FAILED; fi
        echo "round $round -T $t: $(( $(date +%s) - start )) s, $result (load $(cut -d' ' -f1-3 /proc/loadavg)), log $log"
        sed -n '/Reactor Summary/,/BUILD/p' "$log" | grep -E 'SUCCESS|FAILURE|SKIPPED' | sed 's/^\[INFO\] /    /'
    done
done
