#!/usr/bin/env bash
# The OpenAPI fuzz test with a longer budget: bench/fuzz/run.sh [cases per operation] [seed]
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME="$(./arbor java-home)"
cases="${1:-1000}"
seed=()
if [ -n "${2:-}" ]; then seed=("-Darbor.fuzz.seed=$2"); fi
./mvnw -o -q test -Dtest=OpenApiFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
    "-Darbor.fuzz.cases=$cases" ${seed[@]+"${seed[@]}"} || status=$?
grep '^OpenApiFuzzTest' target/surefire-reports/dev.arbor.OpenApiFuzzTest-output.txt
exit "${status:-0}"
