#!/usr/bin/env bash
# Arbor's per-request overhead on a trivial JSON route (GET /health), measured in the same run with wrk at 64
# connections against two baselines answering the same JSON: a bare Jetty handler (the server underneath) and a bare
# Javalin route (the framework floor). Rounds are interleaved so that noise on a shared machine hits all three alike.
#   bench/http-overhead/run.sh [rounds] [seconds]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROUNDS="${1:-3}"
DURATION="${2:-10}"
declare -A PORTS=([arbor]=18420 [javalin]=18421 [jetty]=18422)

command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
./arbor build
JAVA="$(./arbor java-home)/bin/java"
DATA="$(mktemp -d)"
PIDS=()
cleanup() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT

ARBOR_DATA="$DATA" "$JAVA" --enable-native-access=ALL-UNNAMED -jar target/arbor.jar serve \
  --port "${PORTS[arbor]}" > "$DATA/arbor.log" 2>&1 &
PIDS+=($!)
"$JAVA" -cp target/arbor.jar bench/http-overhead/BareJavalin.java "${PORTS[javalin]}" > "$DATA/javalin.log" 2>&1 &
PIDS+=($!)
"$JAVA" -cp target/arbor.jar bench/http-overhead/BareJetty.java "${PORTS[jetty]}" > "$DATA/jetty.log" 2>&1 &
PIDS+=($!)
for name in arbor javalin jetty; do
  for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:${PORTS[$name]}/health" >/dev/null && break; sleep 0.2; done
done

measure() { # port seconds -> "requests_per_second p99_ms"
  local out rps p99
  out="$(wrk -t2 -c64 -d"$2"s --latency "http://127.0.0.1:$1/health")"
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  case "$p99" in
    *us) p99="$(awk -v v="${p99%us}" 'BEGIN {printf "%.2f", v / 1000}')" ;;
    *ms) p99="${p99%ms}" ;;
    *s)  p99="$(awk -v v="${p99%s}" 'BEGIN {printf "%.2f", v * 1000}')" ;;
  esac
  echo "$rps $p99"
}

echo "warming up (15 s each) ..." >&2
for name in arbor javalin jetty; do measure "${PORTS[$name]}" 15 >/dev/null; done

mkdir -p bench/results
RESULT="bench/results/http-overhead-$(date -u +%Y%m%dT%H%M%SZ).md"
{
  echo "| round | arbor req/s | javalin req/s | jetty req/s | arbor/jetty | arbor/javalin | arbor p99 ms | javalin p99 ms | jetty p99 ms |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for round in $(seq 1 "$ROUNDS"); do
    read -r a_rps a_p99 < <(measure "${PORTS[arbor]}" "$DURATION")
    read -r v_rps v_p99 < <(measure "${PORTS[javalin]}" "$DURATION")
    read -r j_rps j_p99 < <(measure "${PORTS[jetty]}" "$DURATION")
    echo "| $round | $a_rps | $v_rps | $j_rps | $(awk -v a="$a_rps" -v b="$j_rps" 'BEGIN {printf "%.2f", a / b}') |" \
      "$(awk -v a="$a_rps" -v b="$v_rps" 'BEGIN {printf "%.2f", a / b}') | $a_p99 | $v_p99 | $j_p99 |"
  done
} | tee "$RESULT"
echo "written to $RESULT" >&2
