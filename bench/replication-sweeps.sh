#!/usr/bin/env bash
# The measurements behind issue 6's performance tables: stable rates (./shale knee) of PUT and
# GET against one node, then against node 0 of a local 3-node cluster with the default 2/3 and
# with 1/3 (the load generator adds the --url's query, ?ack=1&from=3, to every request).
# Every knee's table goes to OUT_DIR/<label>.txt and its plot to OUT_DIR/<label>.png; the nodes'
# logs to OUT_DIR/node-*.log. Run it on a quiet machine, from anywhere:
#
#   bench/replication-sweeps.sh OUT_DIR
#
# Environment: CONNECTIONS (64), VALUE_SIZE (100), KEYS (GETs read k0..KEYS-1, filled first;
# 1000000), DURATION (30s) and WARMUP (15s) per rate tried, START (1000) and MAX (200000) rates,
# MAX_STEPS (6) bisection steps, NODE_HEAP (1g). QUICK=1 is a smoke run of a few seconds per
# scenario (tiny rates and durations), to check the script, not to measure.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: replication-sweeps.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
connections=${CONNECTIONS:-64} value_size=${VALUE_SIZE:-100} keys=${KEYS:-1000000}
duration=${DURATION:-30s} warmup=${WARMUP:-15s} start=${START:-1000} max=${MAX:-200000} steps=${MAX_STEPS:-6}
heap=${NODE_HEAP:-1g}
if [[ "${QUICK:-}" == 1 ]]; then
  connections=2 keys=200 duration=1s warmup=0s start=50 max=100 steps=1
fi
data=$(mktemp -d)
pids=()

# shellcheck source=lib/nodes.sh
source bench/lib/nodes.sh # the working directory is the repository's root
cleanup() { stop_nodes; rm -rf "$data"; }
trap cleanup EXIT

start_node() { # label port args...
  local label=$1 port=$2; shift 2
  SHALE_JAVA_OPTS="-Xmx$heap ${SHALE_JAVA_OPTS:-}" ./shale server --port "$port" --data "$data/$label" "$@" \
    > "$out/node-$label.log" 2>&1 &
  pids+=($!)
}

knee() { # label url workload
  local label=$1 url=$2 workload=$3
  echo "=== $label: $workload at $url $(date -u +%H:%M:%S)"
  ./shale knee --url "$url" --workload "$workload" --connections "$connections" --value-size "$value_size" \
    --keys "$keys" --duration "$duration" --warmup "$warmup" --start "$start" --max "$max" --max-steps "$steps" \
    --plot "$out/$label.png" > "$out/$label.txt" 2>&1 || { echo "knee $label failed; see $out/$label.txt" >&2; exit 1; }
  grep -E '^(stable rate|no rate)' "$out/$label.txt" || true
}

fill() { # url
  ./shale load --url "$1" --fill "$keys" --connections "$connections" --value-size "$value_size" \
    > "$out/fill-$(date +%s%N).txt" 2>&1 || { echo "fill of $1 failed" >&2; exit 1; }
}

./shale --version > /dev/null || exit 1 # builds once, before any timing

# 1. One node: the baseline.
port=$(free_port)
start_node single "$port"
await_ready "$port" "${pids[-1]}" "$out/node-single.log"
knee single-put "http://127.0.0.1:$port" put
fill "http://127.0.0.1:$port"
knee single-get "http://127.0.0.1:$port" get
stop_nodes

# 2. Three nodes on this machine, the load on node 0.
ports=($(free_port) $(free_port) $(free_port))
urls="http://127.0.0.1:${ports[0]},http://127.0.0.1:${ports[1]},http://127.0.0.1:${ports[2]}"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$data/secret"
chmod 600 "$data/secret"
for i in 0 1 2; do start_node "cluster-$i" "${ports[$i]}" --cluster "$urls" --cluster-secret-file "$data/secret"; done
for i in 0 1 2; do await_ready "${ports[$i]}" "${pids[$i]}" "$out/node-cluster-$i.log"; done
node0="http://127.0.0.1:${ports[0]}"
knee cluster-2of3-put "$node0" put
fill "$node0"
knee cluster-2of3-get "$node0" get
knee cluster-1of3-put "$node0/?ack=1&from=3" put
knee cluster-1of3-get "$node0/?ack=1&from=3" get
stop_nodes
echo "=== done $(date -u +%H:%M:%S); results in $out"
