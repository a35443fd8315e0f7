#!/usr/bin/env bash
# A replica stopped under load: a local 3-node cluster built from CHECKOUT takes a fixed-rate load
# through node 0 at the default 2/3; STOP_AT into the measured interval node 2 is SIGSTOPped, and
# STOP_FOR later SIGCONTed. The load generator's latencies (from the intended send times, so a
# stall shows in full) say whether the coordinator ever waited for the stopped replica: issue 14's
# target is p99 <= 10 ms at half the stable rate. Then the same load without the stop, as the
# baseline. Run it on a quiet machine.
#
#   bench/stopped-replica.sh OUT_DIR CHECKOUT
#
# Environment: WORKLOAD (put), RATE (10000), CONNECTIONS (64), DURATION (30s, measured), WARMUP
# (10s), STOP_AT (10: seconds into the measured interval), STOP_FOR (5), KEYS (100000: a get
# reads k0..KEYS-1, filled first), NODE_HEAP (1g), NODE_ARGS (extra server flags).
set -uo pipefail
(($# == 2)) && [[ -d $2 ]] || { echo "usage: stopped-replica.sh OUT_DIR CHECKOUT" >&2; exit 2; }
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd) checkout=$(cd "$2" && pwd)
workload=${WORKLOAD:-put} rate=${RATE:-10000} connections=${CONNECTIONS:-64} duration=${DURATION:-30s}
warmup=${WARMUP:-10s} stop_at=${STOP_AT:-10} stop_for=${STOP_FOR:-5} keys=${KEYS:-100000}
heap=${NODE_HEAP:-1g} node_args=${NODE_ARGS:-} nodes=3
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d)
pids=()

# shellcheck source=lib/nodes.sh
source "$here/bench/lib/nodes.sh"
cleanup() { [[ -n ${node_pids[2]:-} ]] && kill -CONT "${node_pids[2]}" 2> /dev/null; stop_nodes; rm -rf "$data"; }
trap cleanup EXIT
# shellcheck source=lib/cluster.sh
source "$here/bench/lib/cluster.sh"

(cd "$checkout" && ./shale --version > /dev/null) || { echo "cannot build $checkout" >&2; exit 1; }
echo "=== $(date -u +%FT%TZ) $(nproc) CPUs, $(uname -r); $checkout at $(git -C "$checkout" rev-parse --short HEAD);" \
  "$workload at $rate/s, $connections connections, -Xmx$heap" | tee "$out/summary.txt"
for run in stopped baseline; do
  start_cluster "$checkout" "$run"
  url="http://127.0.0.1:${ports[0]}"
  "$checkout/shale" load --url "$url" --workload put --rate "$rate" --connections "$connections" --keys "$keys" \
    --duration 10s --warmup 10s > /dev/null 2>&1 # the JIT of all three nodes
  if [[ $workload == get ]]; then
    "$checkout/shale" load --url "$url" --fill "$keys" --connections "$connections" > "$out/$run-fill.txt" 2>&1 \
      || { echo "fill failed" >&2; exit 1; }
  fi
  quiesce
  "$checkout/shale" load --url "$url" --workload "$workload" --rate "$rate" --connections "$connections" \
    --keys "$keys" --duration "$duration" --warmup "$warmup" --json "$out/$run.json" > "$out/$run.txt" 2>&1 &
  load=$!
  if [[ $run == stopped ]]; then
    sleep "$(( ${warmup%s} + stop_at ))" # a benchmark's schedule, not a wait for a condition
    kill -STOP "${node_pids[2]}" && echo "node 2 stopped at $(date -u +%T)" | tee -a "$out/summary.txt"
    sleep "$stop_for"
    kill -CONT "${node_pids[2]}" && echo "node 2 continued at $(date -u +%T)" | tee -a "$out/summary.txt"
  fi
  wait "$load" || { echo "load failed; see $out/$run.txt" >&2; exit 1; }
  stop_nodes
done
python3 - "$out" << 'PY' | tee -a "$out/summary.txt"
import json, os, sys
print(f"{'run':9} {'achieved':>9} {'p50 ms':>7} {'p99 ms':>7} {'p99.9 ms':>8} {'max ms':>8} {'errors':>6}")
for run in ("stopped", "baseline"):
    r = json.load(open(os.path.join(sys.argv[1], run + ".json")))
    errors = r["non_2xx_3xx"] + sum(r["socket_errors"].values())
    print(f"{run:9} {r['achieved']:9.1f} {r['p50_us']/1e3:7.2f} {r['p99_us']/1e3:7.2f} {r['p99_9_us']/1e3:8.2f} "
          f"{r['p100_us']/1e3:8.2f} {errors:6}")
PY
