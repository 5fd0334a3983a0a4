#!/usr/bin/env bash
# Times one module's tests at two commits, old and new alternating, on this machine:
#   scripts/suitetime-compare.sh OLD NEW MODULE [ROUNDS] [TESTS]
# e.g. scripts/suitetime-compare.sh caabde0 suitetime memory-postgres 2 PostgresBackendConformanceTest
# Each commit is checked out in a temporary worktree (the shared data linked beside it, as in CI) and built once
# before timing; then `./mvnw -o -pl MODULE -am verify` runs ROUNDS times per commit, alternating, and the
# module's line of the reactor summary is printed for each run. Run it on a quiet machine: on a loaded one only
# runs next to each other compare.
set -euo pipefail
old=$1 new=$2 module=$3 rounds=${4:-2} tests=${5:-}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
ln -s "$(cd "$root/.." && pwd)/shared" "$tmp/shared"
git -C "$root" worktree add -q --detach "$tmp/old" "$old"
git -C "$root" worktree add -q --detach "$tmp/new" "$new"
trap 'git -C "$root" worktree remove --force "$tmp/old"; git -C "$root" worktree remove --force "$tmp/new"; rm -rf "$tmp"' EXIT
args=(-o -pl "$module" -am verify)
if [ -n "$tests" ]; then
    args+=(-Dtest="$tests" -Dsurefire.failIfNoSpecifiedTests=false)
fi
for side in old new; do
    (cd "$tmp/$side" && ./mvnw -o -q -pl "$module" -am test-compile)
done
name=$(sed -n 's:.*<name>\(.*\)</name>.*:\1:p' "$root/$module/pom.xml" | head -1)
for round in $(seq "$rounds"); do
    for side in old new; do
        line=$(cd "$tmp/$side" && ./mvnw "${args[@]}" | grep -F "$name " | tail -1 || true)
        echo "round $round $side ($(git -C "$tmp/$side" rev-parse --short HEAD)): ${line:-build failed}"
    done
done
