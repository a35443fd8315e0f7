#!/usr/bin/env bash
# The cost of forwarding: the same wrk2 load (PUT then GET, one rate, one connection count)
# against a single node, then against node 0 of a local 3-node cluster (2/3 of its requests are
# forwarded). Prints wrk2's latency percentiles and the CPU time all node processes used per
# request (utime + stime from /proc, summed over the nodes).
#
#   bench/cluster-vs-single.sh [RATE] [CONNECTIONS] [DURATION_S] [WARMUP_S]
#
# Needs a built app (./shale --version builds it) and wrk2 (WRK2, default /opt/wrk2/wrk).
set -euo pipefail
rate=${1:-2000} connections=${2:-4} duration=${3:-20} warmup=${4:-5}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wrk2=${WRK2:-/opt/wrk2/wrk}
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
cp="$root/app/target/shale-app.jar:$root/app/target/lib/*"
work=$(mktemp -d)
base=${BASE_PORT:-18080}
pids=()

cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

start_node() { # port data cluster-args...
  local port=$1 data=$2; shift 2
  "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m -cp "$cp" \
    dev.shale.app.Main server --port "$port" --data "$data" "$@" > "$data.log" 2>&1 &
  pids+=($!)
}

await_ready() { # port
  for _ in $(seq 600); do curl -sf "http://127.0.0.1:$1/v0/status" >/dev/null && return 0; sleep 0.1; done
  echo "node on $1 did not start" >&2; exit 1
}

cpu_ticks() { # sum of utime+stime of the node processes
  local sum=0 p
  for p in "${pids[@]}"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$sum"
}

run() { # label script args...
  local label=$1 script=$2; shift 2
  "$wrk2" -t1 -c"$connections" -d"${warmup}s" -R"$rate" -s "$script" "http://127.0.0.1:$base" -- "$@" > /dev/null 2>&1
  local before; before=$(cpu_ticks)
  "$wrk2" -t1 -c"$connections" -d"${duration}s" -R"$rate" -L -s "$script" "http://127.0.0.1:$base" -- "$@" > "$work/$label.txt" 2>&1
  local after; after=$(cpu_ticks)
  local requests; requests=$(awk '/requests in/ {print $1}' "$work/$label.txt")
  local hz; hz=$(getconf CLK_TCK)
  printf '%-16s achieved %6s/s  p50 %8s  p90 %8s  p99 %8s  p99.9 %8s  max %8s  cpu/request %6.1f us  %s\n' "$label" \
    "$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$work/$label.txt")" \
    "$(awk '$1 == "50.000%" {print $2}' "$work/$label.txt")" "$(awk '$1 == "90.000%" {print $2}' "$work/$label.txt")" \
    "$(awk '$1 == "99.000%" {print $2}' "$work/$label.txt")" "$(awk '$1 == "99.900%" {print $2}' "$work/$label.txt")" \
    "$(awk '$1 == "100.000%" {print $2}' "$work/$label.txt")" \
    "$(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" 'BEGIN {print t / hz * 1e6 / n}')" \
    "$(grep -E 'Non-2xx|Socket errors' "$work/$label.txt" | tr -s ' ' | tr '\n' ';' || true)"
}

echo "rate $rate/s, $connections connections, ${duration}s measured after ${warmup}s warm-up; $(nproc) cores"
start_node "$base" "$work/single"
await_ready "$base"
run single-put "$root/bench/lua/put.lua" 100
run single-get "$root/bench/lua/get.lua" 100 $((rate * duration))
kill "${pids[@]}"; wait 2>/dev/null || true; pids=()

urls="http://127.0.0.1:$base,http://127.0.0.1:$((base + 1)),http://127.0.0.1:$((base + 2))"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/secret"; chmod 600 "$work/secret"
for i in 0 1 2; do start_node $((base + i)) "$work/node-$i" --cluster "$urls" --cluster-secret-file "$work/secret"; done
for i in 0 1 2; do await_ready $((base + i)); done
run cluster3-put "$root/bench/lua/put.lua" 100
run cluster3-get "$root/bench/lua/get.lua" 100 $((rate * duration))
