#!/usr/bin/env bash
# Anti-entropy repair of a diverged replica (issue 15's measurement): a local 3-node cluster built
# from CHECKOUT is filled with KEYS keys of VALUE_SIZE bytes, and repaired once so that its
# replicas start identical (hints are refused, --hint-max-size 1, so a replica write the fill
# lost to a timeout on a busy machine would otherwise add to the divergence; that repair is
# reported as "settle"); node 2 is stopped while DIVERGENCE percent of the keys are written again
# (nothing but repair heals node 2), then started again; then one operator's repair of the whole
# cluster (shale nodes repair), each pair's part of it listed from node 0's log, and a second one,
# which must find nothing. It reports the repair's time, its records and bytes exchanged, and
# those bytes against the data's size (its keys and values) (issue 15's goal: under 5% of the
# data crosses the network). Run it on a quiet machine; KEYS=10000 is a smoke run.
#
#   bench/repair.sh OUT_DIR CHECKOUT
#
# Environment: KEYS (1000000), VALUE_SIZE (100), DIVERGENCE (1: percent of the keys), NODE_HEAP (1g),
# NODE_ARGS (extra server flags).
set -uo pipefail
# shellcheck source=lib/scratch-cluster.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/scratch-cluster.sh"
out_and_checkout repair.sh "$@"
keys=${KEYS:-1000000} value_size=${VALUE_SIZE:-100} divergence=${DIVERGENCE:-1}
heap=${NODE_HEAP:-1g} node_args="--repair-interval 0 --hint-max-size 1 ${NODE_ARGS:-}" nodes=3

status_number() { # port name
  curl -sf "http://127.0.0.1:$1/v0/status" | python3 -c "import json, sys; print(json.load(sys.stdin)['$2'])"
}

# Node 2 again, over its data, with the arguments start_cluster gave it.
restart_node2() {
  local urls
  urls=$(printf 'http://127.0.0.1:%s,' "${ports[@]}")
  # shellcheck disable=SC2086 # the node's args are a list of flags
  SHALE_JAVA_OPTS="-Xmx$heap ${SHALE_JAVA_OPTS:-}" "$checkout/shale" server --port "${ports[2]}" \
    --data "$data/cluster/n2" --cluster "${urls%,}" --cluster-secret-file "$data/cluster/secret" $node_args \
    > "$out/node2-again.log" 2>&1 &
  pids[2]=$!
  await_ready "${ports[2]}" "${pids[2]}" "$out/node2-again.log"
  node_pids[2]=$(node_pid "${ports[2]}")
}

(cd "$checkout" && ./shale --version > /dev/null) || { echo "cannot build $checkout" >&2; exit 1; }
echo "=== $(date -u +%FT%TZ) $(nproc) CPUs, $(uname -r); $checkout at $(git -C "$checkout" rev-parse --short HEAD);" \
  "$keys keys of $value_size bytes, $divergence% diverged on node 2, -Xmx$heap" | tee "$out/summary.txt"
start_cluster "$checkout" repair
url="http://127.0.0.1:${ports[0]}"
"$checkout/shale" load --url "$url" --fill "$keys" --value-size "$value_size" > "$out/fill.txt" 2>&1 \
  || { echo "fill failed; see $out/fill.txt" >&2; exit 1; }
quiesce
"$checkout/shale" nodes repair --via "$url" --cluster-secret-file "$data/cluster/secret" > "$out/settle.txt" \
  || { echo "the settling repair failed; see $out/settle.txt" >&2; exit 1; }
echo "settle: $(cat "$out/settle.txt")" | tee -a "$out/summary.txt"

kill -TERM "${pids[2]}"
wait "${pids[2]}"
"$checkout/shale" load --url "$url" --fill $((keys * divergence / 100)) --value-size "$value_size" > "$out/diverge.txt" 2>&1 \
  || { echo "the divergent writes failed; see $out/diverge.txt" >&2; exit 1; }
restart_node2
quiesce

pair_lines=$(grep -c "ClusterRepair: repair of .* and " "$out/repair-node0.log")
"$checkout/shale" nodes repair --via "$url" --cluster-secret-file "$data/cluster/secret" --json > "$out/repair.json" \
  || { echo "the repair failed; see $out/repair.json" >&2; exit 1; }
# The pairs of this repair, as node 0 logged them (a build that logs no pairs lists none).
grep "ClusterRepair: repair of .* and " "$out/repair-node0.log" | tail -n +$((pair_lines + 1)) | sed 's/.*ClusterRepair: /  pair: /' \
  | tee -a "$out/summary.txt"
table_bytes=$(status_number "${ports[0]}" tableBytes)
python3 - "$out/repair.json" "$table_bytes" "$keys" "$value_size" << 'PY' | tee -a "$out/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
tables, keys, value_size = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = sum(len(f"k{i}") for i in range(keys)) + keys * value_size  # the keys and values written, once
print(f"repair: {r['durationMillis'] / 1e3:.1f} s, {r['rangesCompared']} ranges, {r['leavesDiffering']} of "
      f"{r['leavesCompared']} leaves differed, {r['recordsExchanged']} records and {r['bytesExchanged']} bytes exchanged")
print(f"bytes exchanged / the data's keys and values ({data} bytes): {100 * r['bytesExchanged'] / data:.2f}%"
      f" (node 0's tables: {tables} bytes)")
PY
# Once more: a repair that found and copied everything leaves nothing to find (a record copied
# with a different version or hash on the two sides would show here).
"$checkout/shale" nodes repair --via "$url" --cluster-secret-file "$data/cluster/secret" > "$out/again.txt" \
  || { echo "the second repair failed; see $out/again.txt" >&2; exit 1; }
echo "again: $(cat "$out/again.txt")" | tee -a "$out/summary.txt"
