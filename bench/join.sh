#!/usr/bin/env bash
# A node joining a live cluster (issue 15's measurement): a local 3-node cluster built from
# CHECKOUT is filled with KEYS keys of VALUE_SIZE bytes; an open-loop PUT load at RATE runs once
# with the three alone (the baseline) and once while a fourth node joins (shale server --join),
# streaming the quarter of the data it takes over at --stream-rate. It reports the join's time,
# the bytes the new node pulled and its streaming rate (MB/s), and the live load's latency in
# both runs. RATE defaults to half the three nodes' stable PUT rate on this machine (20,000/s,
# docs/perf/cluster.md). Run it on a quiet machine; KEYS=20000 is a smoke run.
#
#   bench/join.sh OUT_DIR CHECKOUT
#
# Environment: KEYS (1000000), VALUE_SIZE (1000), RATE (10000), DURATION (60s), WARMUP (5s),
# CONNECTIONS (64), STREAM_RATE (8m: the joining node's --stream-rate), NODE_HEAP (1g),
# NODE_ARGS (extra server flags, every node), JOINER_CPU (a cap on the joining node's CPU, in
# percent of one core, through a cgroup; needs root: so that its start does not take the CPU of
# the others, as on a machine of its own). Each process's CPU during the join is in cpu.txt.
set -uo pipefail
# shellcheck source=lib/scratch-cluster.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/scratch-cluster.sh"
out_and_checkout join.sh "$@"
keys=${KEYS:-1000000} value_size=${VALUE_SIZE:-1000} rate=${RATE:-10000} duration=${DURATION:-60s}
warmup=${WARMUP:-5s} connections=${CONNECTIONS:-64} stream_rate=${STREAM_RATE:-8m}
heap=${NODE_HEAP:-1g} node_args="--repair-interval 0 ${NODE_ARGS:-}" nodes=3

load() { # label: the PUT load at the rate, through node 0
  "$checkout/shale" load --url "http://127.0.0.1:${ports[0]}" --workload put --key-order random --keys "$keys" \
    --value-size "$value_size" --rate "$rate" --connections "$connections" --duration "$duration" --warmup "$warmup" \
    --json "$out/$1.json" > "$out/$1.txt" 2>&1
}

# An HTTP port whose Raft port (the HTTP port + 10000, or - 10000 past 65535) is free too.
joining_port() {
  local p raft
  while true; do
    p=$(free_port)
    raft=$((p + 10000 > 65535 ? p - 10000 : p + 10000))
    python3 -c "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', $raft))" 2> /dev/null && { echo "$p"; return; }
  done
}

# A duration as the load tool takes it (30s, 2m) in whole seconds.
seconds() {
  case $1 in *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac
}

# Caps process PID's CPU at PERCENT of one core: a cgroup (v1 cpu controller) of its own.
cap_cpu() { # pid percent
  local group=/sys/fs/cgroup/cpu/shale-join-$$
  mkdir -p "$group" && echo 100000 > "$group/cpu.cfs_period_us" && echo $(($2 * 1000)) > "$group/cpu.cfs_quota_us" \
    && echo "$1" > "$group/cgroup.procs" || { echo "cannot cap the joining node's CPU (root and cgroup v1 cpu needed)" >&2; exit 1; }
  trap 'cleanup; rmdir "'"$group"'" 2> /dev/null' EXIT # once the nodes are stopped, the group is empty
}

(cd "$checkout" && ./shale --version > /dev/null) || { echo "cannot build $checkout" >&2; exit 1; }
echo "=== $(date -u +%FT%TZ) $(nproc) CPUs, $(uname -r); $checkout at $(git -C "$checkout" rev-parse --short HEAD);" \
  "$keys keys of $value_size bytes; PUT $rate/s for $duration (+$warmup warm-up); --stream-rate $stream_rate; -Xmx$heap" \
  "${JOINER_CPU:+; the joining node capped at $JOINER_CPU% of a core}" \
  | tee "$out/summary.txt"
start_cluster "$checkout" join
"$checkout/shale" load --url "http://127.0.0.1:${ports[0]}" --fill "$keys" --value-size "$value_size" --connections "$connections" \
  > "$out/fill.txt" 2>&1 || { echo "fill failed; see $out/fill.txt" >&2; exit 1; }
quiesce
load baseline || { echo "the baseline load failed; see $out/baseline.txt" >&2; exit 1; }
quiesce

port=$(joining_port)
url="http://127.0.0.1:$port"
started=$(date +%s.%N)
# shellcheck disable=SC2086 # the node's args are a list of flags
SHALE_JAVA_OPTS="-Xmx$heap ${SHALE_JAVA_OPTS:-}" "$checkout/shale" server --port "$port" --data "$data/cluster/n3" \
  --join "http://127.0.0.1:${ports[0]}" --cluster-secret-file "$data/cluster/secret" --stream-rate "$stream_rate" \
  --io-threads 1 $node_args > "$out/join-node3.log" 2>&1 &
pids+=($!)
[[ -n ${JOINER_CPU:-} ]] && cap_cpu "$!" "$JOINER_CPU"
python3 "$here/bench/lib/cpu-per-process.py" "$(($(seconds "$duration") + $(seconds "$warmup") + 2))" > "$out/cpu.txt" &
load during-join &
load_pid=$!
# The joining node's own view: its state in the map and the bytes its pulls wrote so far.
python3 - "$url" "$started" << 'PY' | tee -a "$out/summary.txt"
import json, sys, time, urllib.request
url, started = sys.argv[1], float(sys.argv[2])
pulled, first_byte = 0, None
while True:
    try:
        status = json.load(urllib.request.urlopen(url + "/v0/status", timeout=5))
    except OSError:
        status = None
    now = time.time()
    if status:
        bytes_now = status["handoff"]["bytes"]
        if bytes_now > 0 and first_byte is None:
            first_byte = now
        pulled = max(pulled, bytes_now)
        states = [m["state"] for m in status.get("topology", {}).get("members", []) if m["url"] == url]
        if states == ["normal"]:
            break
    if now - started > 3600:
        sys.exit("the join did not end within an hour")
    time.sleep(0.5)
streaming = now - (first_byte or started)
print(f"join: {now - started:.1f} s from the start of the node to normal; pulled {pulled} bytes of keys and values"
      f" in {streaming:.1f} s: {pulled / streaming / 1e6:.2f} MB/s")
PY
wait "$load_pid" || { echo "the load during the join failed; see $out/during-join.txt" >&2; exit 1; }
python3 - "$out/baseline.json" "$out/during-join.json" << 'PY' | tee -a "$out/summary.txt"
import json, sys
for label, path in zip(("baseline", "during the join"), sys.argv[1:]):
    r = json.load(open(path))
    print(f"{label}: PUT {r['achieved']:.0f}/s, p50 {r['p50_us'] / 1e3:.2f} ms, p99 {r['p99_us'] / 1e3:.2f} ms,"
          f" p99.9 {r['p99_9_us'] / 1e3:.2f} ms, max {r['p100_us'] / 1e3:.1f} ms, non-2xx {r['non_2xx_3xx']}")
PY
