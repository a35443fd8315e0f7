#!/usr/bin/env bash
# Where the CPU goes, thread by thread, while a local cluster built from CHECKOUT takes a
# fixed-rate load through node 0: every 0.25 s it samples the CPU time of every thread of the
# nodes and of the load generator (/proc/<pid>/task/<tid>/stat), and prints each thread group's
# share of a core over the measured interval, then a timeline (flushes, compactions and the JIT
# show as bursts beside the event loops). The nodes' logs beside it say which flush or compaction
# each burst was. Run it on a quiet machine.
#
#   bench/cluster-threads.sh OUT_DIR CHECKOUT
#
# Environment: WORKLOAD (put), RATE (20000), CONNECTIONS (64), DURATION (30s, measured), WARMUP
# (10s), KEYS (100000), NODES (3), NODE_HEAP (1g), NODE_ARGS (extra server flags; the nodes get the
# cores shared out as event loops unless these set --io-threads).
set -uo pipefail
(($# == 2)) && [[ -d $2 ]] || { echo "usage: cluster-threads.sh OUT_DIR CHECKOUT" >&2; exit 2; }
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd) checkout=$(cd "$2" && pwd)
workload=${WORKLOAD:-put} rate=${RATE:-20000} connections=${CONNECTIONS:-64} duration=${DURATION:-30s}
warmup=${WARMUP:-10s} keys=${KEYS:-100000} nodes=${NODES:-3} heap=${NODE_HEAP:-1g} node_args=${NODE_ARGS:-}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d)
pids=() sampler=""

# shellcheck source=lib/nodes.sh
source "$here/bench/lib/nodes.sh"
cleanup() { [[ -n $sampler ]] && kill "$sampler" 2> /dev/null; stop_nodes; rm -rf "$data"; }
trap cleanup EXIT
# shellcheck source=lib/cluster.sh
source "$here/bench/lib/cluster.sh"

(cd "$checkout" && ./shale --version > /dev/null) || { echo "cannot build $checkout" >&2; exit 1; }
echo "=== $(date -u +%FT%TZ) $(nproc) CPUs, $(uname -r); $checkout at $(git -C "$checkout" rev-parse --short HEAD);" \
  "$workload at $rate/s, $connections connections, $nodes node(s), -Xmx$heap, node flags '$node_args'" | tee "$out/summary.txt"
start_cluster "$checkout" run
url="http://127.0.0.1:${ports[0]}"
"$checkout/shale" load --url "$url" --workload put --rate "$rate" --connections "$connections" --keys "$keys" \
  --duration 10s --warmup 10s > /dev/null 2>&1 # the JIT of the nodes
if [[ $workload == get ]]; then
  "$checkout/shale" load --url "$url" --fill "$keys" --connections "$connections" > /dev/null 2>&1 \
    || { echo "fill failed" >&2; exit 1; }
fi
quiesce
"$checkout/shale" load --url "$url" --workload "$workload" --rate "$rate" --connections "$connections" --keys "$keys" \
  --duration "$duration" --warmup "$warmup" --json "$out/load.json" > "$out/load.txt" 2>&1 &
load=$!
sleep 1 # the generator's JVM starts; a benchmark's schedule, not a wait for a condition
generator=$(pgrep -f "dev.shale.app.Main load --url $url" | head -1)
( while kill -0 "$load" 2> /dev/null; do
    now=$(date +%s.%N)
    for p in "${node_pids[@]}" $generator; do
      for t in /proc/"$p"/task/*; do read -r line < "$t/stat" 2> /dev/null && echo "$now $p $line"; done
    done
    sleep 0.25
  done ) > "$out/threads.txt" &
sampler=$!
wait "$load" || { echo "load failed; see $out/load.txt" >&2; exit 1; }
wait "$sampler"; sampler=""
names=()
for i in "${!node_pids[@]}"; do names+=("${node_pids[$i]}=node$i"); done
[[ -n $generator ]] && names+=("$generator=load")
grep -E "^ +(50\.000|99\.000|99\.900)%|Requests/sec" "$out/load.txt" | tee -a "$out/summary.txt"
echo "--- share of a core per thread group over the measured interval" | tee -a "$out/summary.txt"
python3 "$here/bench/lib/thread_cpu.py" "$out/threads.txt" summary "${warmup%s}" "${names[@]}" | tee -a "$out/summary.txt"
echo "--- timeline (1 s steps)" | tee -a "$out/summary.txt"
python3 "$here/bench/lib/thread_cpu.py" "$out/threads.txt" timeline 4 8 "${names[@]}" | tee -a "$out/summary.txt"
