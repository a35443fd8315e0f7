#!/usr/bin/env bash
# Range-scan throughput: fills a node (./shale load --fill), times a full local scan of it, then
# does the same on a local 3-node cluster with a cluster-wide scan (scope=cluster, default 2/3).
# Prints entries/s and MB/s (body bytes, key + newline + value per entry) of each scan, and
# checks that every entry came (the body's size must be exactly the filled entries').
#
#   bench/scan-throughput.sh [--entries N] [--value-size BYTES] [--nodes N] [--heap SIZE]
#                            [--warmup-scans N] [--profile cpu|alloc|lock] [--profile-seconds S] [--out DIR]
#
#   --entries N         keys k0..k(N-1) to fill (default 1000000)
#   --value-size BYTES  bytes per value (default 100)
#   --nodes N           nodes of the cluster run (default 3; 0 skips it)
#   --heap SIZE         -Xmx of each node (default 1g)
#   --warmup-scans N    unmeasured scans before the measured one, to warm the JIT (default 1)
#   --profile EVENT     also profile the node serving the scans with async-profiler (through
#                       ./shale load --profile, attached by pid) while scans repeat for
#                       --profile-seconds (default 20); flame graphs go to --out
#   --out DIR           where logs and flame graphs go (default: a temporary directory, kept
#                       only when profiling)
#
# Needs a built app (./shale --version builds it) and curl. Picks free ports, stops what it
# starts by pid. A tiny check: bench/scan-throughput.sh --entries 2000 --nodes 3
set -euo pipefail
entries=1000000 value_size=100 nodes=3 heap=1g warmup_scans=1 profile="" profile_seconds=20 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --entries) entries=$2; shift 2 ;;
    --value-size) value_size=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --heap) heap=$2; shift 2 ;;
    --warmup-scans) warmup_scans=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --profile-seconds) profile_seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
[ -f "$root/app/target/shale-app.jar" ] || { echo "build first: ./shale --version" >&2; exit 1; }
cp="$root/app/target/shale-app.jar:$root/app/target/lib/*"
keep=false
if [ -n "$out" ]; then mkdir -p "$out"; keep=true; else out=$(mktemp -d); fi
[ -n "$profile" ] && keep=true
pids=()

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if $keep; then echo "logs and flame graphs in $out"; else rm -rf "$out"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

start_node() { # port data extra-args...
  local port=$1 data=$2; shift 2
  "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx"$heap" -cp "$cp" \
    dev.shale.app.Main server --port "$port" --data "$data" "$@" > "$data.log" 2>&1 &
  pids+=($!)
}

await_ready() { # port
  for _ in $(seq 600); do curl -sf "http://127.0.0.1:$1/v0/status" >/dev/null && return 0; sleep 0.1; done
  echo "node on $1 did not start; see $out" >&2; exit 1
}

node_pid() { curl -sf "http://127.0.0.1:$1/v0/status" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'; }

shale() { "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.shale.app.Main "$@"; }

# Body bytes of a full scan of k0..k(N-1): per entry the key, a newline and the value.
expected_bytes() { awk -v n="$entries" -v v="$value_size" 'BEGIN { t = 0; for (i = 0; i < n; i++) t += length("k" i) + 1 + v; printf "%.0f", t }'; }

scan() { # label url
  local label=$1 url=$2 result code bytes seconds
  for _ in $(seq "$warmup_scans"); do curl -s -o /dev/null "$url" || true; done
  result=$(curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total}' "$url") || true
  read -r code bytes seconds <<< "$result"
  local want; want=$(expected_bytes)
  local check="complete"
  [ "$code" = 200 ] && [ "$bytes" = "$want" ] || check="INCOMPLETE: status $code, $bytes of $want bytes"
  awk -v l="$label" -v n="$entries" -v b="$bytes" -v s="$seconds" -v c="$check" \
    'BEGIN { printf "%-14s %10d entries %10.1f MB in %7.2f s: %10.0f entries/s %8.1f MB/s (%s)\n", l, n, b / 1e6, s, n / s, b / 1e6 / s, c }'
}

profiled() { # label url port
  [ -n "$profile" ] || return 0
  local label=$1 url=$2 port=$3
  # ./shale load attaches async-profiler to the node for its measured interval; its own load is
  # one short range request a second, noise next to the scans repeated meanwhile.
  shale load --url "http://127.0.0.1:$port" --workload range --keys "$entries" --rate 1 --connections 1 \
    --warmup 0s --duration "${profile_seconds}s" --profile "$profile" --profile-dir "$out/$label" \
    --pid "$(node_pid "$port")" > "$out/$label-profile.log" 2>&1 &
  local profiler=$!
  pids+=($profiler)
  while kill -0 "$profiler" 2>/dev/null; do curl -s -o /dev/null "$url" || true; done
  wait "$profiler" 2>/dev/null || true
  grep -E "flame graph|profiling" "$out/$label-profile.log" || cat "$out/$label-profile.log"
}

echo "scan throughput: $entries entries of $value_size bytes, -Xmx$heap, $(nproc) cores"
port=$(free_port)
start_node "$port" "$out/single"
await_ready "$port"
shale load --url "http://127.0.0.1:$port" --fill "$entries" --value-size "$value_size" --connections 16 | tail -1
scan local "http://127.0.0.1:$port/v0/entities?start=k"
profiled local "http://127.0.0.1:$port/v0/entities?start=k" "$port"
kill "${pids[@]}" 2>/dev/null || true; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; pids=()

[ "$nodes" -gt 1 ] || exit 0
ports=(); for i in $(seq "$nodes"); do ports+=("$(free_port)"); done
urls=$(printf 'http://127.0.0.1:%s,' "${ports[@]}"); urls=${urls%,}
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$out/secret"; chmod 600 "$out/secret"
for i in "${!ports[@]}"; do start_node "${ports[$i]}" "$out/node-$i" --cluster "$urls" --cluster-secret-file "$out/secret"; done
for p in "${ports[@]}"; do await_ready "$p"; done
shale load --url "http://127.0.0.1:${ports[0]}" --fill "$entries" --value-size "$value_size" --connections 16 | tail -1
scan "cluster($nodes)" "http://127.0.0.1:${ports[0]}/v0/entities?start=k&scope=cluster"
profiled cluster "http://127.0.0.1:${ports[0]}/v0/entities?start=k&scope=cluster" "${ports[0]}"
