#!/usr/bin/env bash
# Issue 36, item 9: N slow-header connections spread over 80 loopback addresses while /health is probed 64 times.
#   bench/slow-headers/run.sh [connections] [probes] [probe every ms] [reopen after ms] [flood processes]
# Starts `./arbor serve` on its defaults (ARBOR_MAX_CONNECTIONS and the rest unset unless the caller's environment
# sets them), then flood processes (each under the descriptor limit) and the prober; writes bench/results/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
CONNECTIONS="${1:-20000}"
PROBES="${2:-64}"
EVERY_MS="${3:-500}"
REOPEN_MS="${4:-1000}" # how soon a flood connection the server closed is opened again
ADDRESSES=80 # 127.0.0.2 ... 127.0.0.81: 250 each at 20,000, under the default 256 per address
PORT=18436

# each process gets the hard limit of descriptors; one flood process holds at most that less some for the JVM
ulimit -n "$(ulimit -Hn)"
LIMIT="$(ulimit -n)"
PER_PROCESS=$(( LIMIT - 1024 ))
FLOODS=$(( (CONNECTIONS + PER_PROCESS - 1) / PER_PROCESS ))
FLOODS=$(( ${5:-0} > FLOODS ? ${5:-0} : FLOODS )) # more processes open (and reopen) faster
PER_FLOOD=$(( (CONNECTIONS + FLOODS - 1) / FLOODS ))
# the floods outlast the probes; they are stopped once the probes are done
SECONDS_OF_FLOOD=3600

[ -f target/arbor.jar ] || ./arbor build
JAVA="$(./arbor java-home)/bin/java"
DATA="$(mktemp -d)"
PIDS=()
cleanup() { kill "${PIDS[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT

ARBOR_DATA="$DATA/data" "$JAVA" --enable-native-access=ALL-UNNAMED -jar target/arbor.jar serve --port "$PORT" \
  > "$DATA/arbor.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { cat "$DATA/arbor.log" >&2; exit 1; }
SERVER_LIMIT="$(awk '/Max open files/ {print $4}' "/proc/$SERVER/limits")"

mkdir -p bench/results
RESULT="bench/results/slow-headers-$(date -u +%Y%m%dT%H%M%SZ).md"
{
  echo "connections $CONNECTIONS over $ADDRESSES addresses in $FLOODS flood processes, reopened ${REOPEN_MS} ms after" \
    "the server closes them;" \
    "descriptor limit $LIMIT (the server's $SERVER_LIMIT); ARBOR_MAX_CONNECTIONS ${ARBOR_MAX_CONNECTIONS:-default}"
  echo "server descriptors before the flood: $(ls "/proc/$SERVER/fd" | wc -l)"
} | tee "$RESULT"

# the prober starts first, so that its own start-up is behind it when the flood begins
"$JAVA" bench/slow-headers/SlowHeaderFlood.java probe "$PORT" "$SERVER" "$PROBES" "$EVERY_MS" "$DATA/go" \
  > "$DATA/probe.log" 2>&1 &
PROBER=$!
PIDS+=("$PROBER")
until grep -q '^warm-up probe' "$DATA/probe.log" 2>/dev/null; do sleep 0.2; done
cat "$DATA/probe.log" | tee -a "$RESULT"

left=$CONNECTIONS
first=2
per_address=$(( (CONNECTIONS + ADDRESSES - 1) / ADDRESSES ))
for i in $(seq 1 "$FLOODS"); do
  count=$(( left < PER_FLOOD ? left : PER_FLOOD ))
  # each flood process takes whole addresses of its own
  addresses=$(( (count + per_address - 1) / per_address ))
  "$JAVA" bench/slow-headers/SlowHeaderFlood.java flood "$PORT" "$count" "$first" "$addresses" "$SECONDS_OF_FLOOD" "$REOPEN_MS" \
    > "$DATA/flood-$i.log" 2>&1 &
  PIDS+=($!)
  left=$(( left - count ))
  first=$(( first + addresses ))
done

# the probes begin once every flood connection was opened at least once (at most 3 minutes), and 5 s more
opened() { # the connections the flood processes have opened so far, by their last reports
  for log in "$DATA"/flood-*.log; do
    grep '^flood [0-9]* s:' "$log" | tail -n 1 | sed 's/.*opened \([0-9]*\).*/\1/' || true
  done | awk '{sum += $1} END {print sum + 0}'
}
for _ in $(seq 1 180); do [ "$(opened)" -ge "$CONNECTIONS" ] && break; sleep 1; done
sleep 5
echo "flood up: $(opened) connections opened so far" | tee -a "$RESULT"
touch "$DATA/go"
tail -n +2 -f "$DATA/probe.log" --pid "$PROBER" | tee -a "$RESULT"
wait "$PROBER"
for i in $(seq 1 "$FLOODS"); do
  echo "flood process $i, its last report: $(grep '^flood' "$DATA/flood-$i.log" | tail -n 1)" | tee -a "$RESULT"
done
echo "server log lines saying \"Too many open files\": $(grep -c 'Too many open files' "$DATA/arbor.log" || true)" \
  | tee -a "$RESULT"
echo "written to $RESULT" >&2
