#!/usr/bin/env bash
# Side by side: the same fixed-rate loads against a local 3-node cluster (or NODES=1: one node) built from two (or more)
# checkouts of Shale, interleaved (A, B, A, B, ...), each repetition on a fresh cluster. Per run it
# records the load generator's latencies and the CPU time the three node processes used per
# request (utime + stime from /proc, summed over the nodes), then prints the median of each
# figure per checkout, workload and rate. CPU per request is the steadier figure on a shared
# machine; latency tails need the medians.
#
#   bench/replication-ab.sh OUT_DIR LABEL=CHECKOUT [LABEL=CHECKOUT ...]
#
# Each CHECKOUT is a Shale working tree; it is built first (./shale --version) if it is not.
# Environment: PUT_RATES ("1500 3000"), GET_RATES ("3000 6000"; empty: no GETs), QUERY ("": the defaults, 2/3;
# e.g. "?ack=1&from=3"), NODES (3; 1: a single node, no cluster), REPEATS (3), DURATION (30s), WARMUP (10s), CONNECTIONS (64), KEYS
# (100000: GETs read k0..KEYS-1, filled first), NODE_HEAP (1g), NODE_ARGS (extra server flags),
# NODE_ARGS_<label> (a label's own flags instead, e.g. NODE_ARGS_inline="--workers 0", so one
# checkout can run under two labels), CLOSED_LOOP ("": none; "put get": also Debian's closed-loop `wrk -t2
# -c$CONNECTIONS -d$DURATION --latency` with bench/lua/put.lua or get.lua after the fixed rates of that workload, for
# the saturation throughput (get needs GET_RATES: it reads the keys they fill); QUERY does not reach wrk's requests, so use it with the default 2/3 only).
# Every run's load output goes to OUT_DIR/<label>-<n>-<workload>-<rate>.json; the table to
# OUT_DIR/summary.txt. Run it on a quiet machine.
set -uo pipefail
# shellcheck source=lib/ab.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/ab.sh"
ab_args replication-ab.sh "$@"
shift
put_rates=${PUT_RATES-1500 3000} get_rates=${GET_RATES-3000 6000} query=${QUERY:-} closed_loop=${CLOSED_LOOP:-}
repeats=${REPEATS:-3} duration=${DURATION:-30s} warmup=${WARMUP:-10s} connections=${CONNECTIONS:-64}
keys=${KEYS:-100000} heap=${NODE_HEAP:-1g} node_args=${NODE_ARGS:-} nodes=${NODES:-3}
# shellcheck source=lib/scratch-cluster.sh
source "$(cd "$(dirname "$0")" && pwd)/lib/scratch-cluster.sh"

run_load() { # checkout label repeat workload rate
  local checkout=$1 label=$2 n=$3 workload=$4 rate=$5 before after requests json
  json="$out/$label-$n-$workload-$rate.json"
  before=$(cpu_ticks "${node_pids[@]}")
  "$checkout/shale" load --url "http://127.0.0.1:${ports[0]}/$query" --workload "$workload" --rate "$rate" \
    --connections "$connections" --keys "$keys" --duration "$duration" --warmup "$warmup" --json "$json" \
    > "$out/$label-$n-$workload-$rate.txt" 2>&1 || { echo "load failed; see $out/$label-$n-$workload-$rate.txt" >&2; exit 1; }
  after=$(cpu_ticks "${node_pids[@]}")
  # The ticks cover the warmup too: per request of warmup + measured interval, at the same rate.
  python3 - "$json" "$((after - before))" "$(getconf CLK_TCK)" << 'EOF'
import json, sys
path, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
run = json.load(open(path))
requests = run["rate"] * (run["duration_seconds"] + run["warmup_seconds"])
run["nodes_cpu_us_per_request"] = round(ticks / hz * 1e6 / requests, 1)
json.dump(run, open(path, "w"), indent=2)
EOF
}

# Saturation: wrk keeps every connection busy (a new request as soon as the last is answered) for
# the whole duration; its Requests/sec is the throughput the nodes reach, its latencies those of a
# saturated node (queueing included), recorded as workload wrk_<workload> at rate 0.
run_wrk() { # label repeat workload
  local label=$1 n=$2 workload=$3 before after txt
  txt="$out/$label-$n-wrk_$workload-0.txt"
  before=$(cpu_ticks "${node_pids[@]}")
  wrk -t2 -c"$connections" -d"$duration" --latency -s "$here/bench/lua/$workload.lua" "http://127.0.0.1:${ports[0]}" \
    -- 100 "$keys" > "$txt" 2>&1 || { echo "wrk failed; see $txt" >&2; exit 1; }
  after=$(cpu_ticks "${node_pids[@]}")
  python3 - "$txt" "$((after - before))" "$(getconf CLK_TCK)" > "${txt%.txt}.json" << 'EOF'
import json, re, sys
text, ticks, hz = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
def us(v, unit): return float(v) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]
pct = {p: us(v, u) for p, v, u in re.findall(r"^\s+(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)}
achieved = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
seconds = float(re.search(r"requests in ([\d.]+)s", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(json.dumps({"achieved": achieved, "p50_us": pct.get("50", 0), "p99_us": pct.get("99", 0), "p99_9_us": 0,
                  "p100_us": 0, "non_2xx": int(errors.group(1)) if errors else 0,
                  "nodes_cpu_us_per_request": round(ticks / hz * 1e6 / (achieved * seconds), 1)}))
EOF
}

for label_checkout in "$@"; do
  checkout=${label_checkout#*=}
  (cd "$checkout" && ./shale --version > /dev/null) || { echo "cannot build $checkout" >&2; exit 1; }
done
echo "=== $(date -u +%FT%TZ) machine: $(nproc) CPUs, $(uname -r); $nodes node(s), -Xmx$heap; query '${query}'" | tee "$out/summary.txt"
for label_checkout in "$@"; do
  args_var="NODE_ARGS_${label_checkout%%=*}"
  echo "$label_checkout at $(git -C "${label_checkout#*=}" rev-parse --short HEAD), node flags '${!args_var-$node_args}'" \
    | tee -a "$out/summary.txt"
done
for n in $(seq 1 "$repeats"); do
  for label_checkout in "$@"; do
    label=${label_checkout%%=*} checkout=${label_checkout#*=}
    echo "--- repeat $n, $label $(date -u +%T)"
    start_cluster "$checkout" "$label"
    # An unrecorded first load, for the JIT of all three nodes; what it wrote is overwritten.
    "$checkout/shale" load --url "http://127.0.0.1:${ports[0]}/$query" --workload put --rate "${put_rates%% *}" \
      --connections "$connections" --keys "$keys" --duration 10s --warmup 10s > /dev/null 2>&1
    quiesce
    for rate in $put_rates; do run_load "$checkout" "$label" "$n" put "$rate"; quiesce; done
    if [[ " $closed_loop " == *" put "* ]]; then run_wrk "$label" "$n" put; quiesce; fi
    if [[ -n "$get_rates" ]]; then
      "$checkout/shale" load --url "http://127.0.0.1:${ports[0]}/$query" --fill "$keys" --connections "$connections" \
        > "$out/$label-$n-fill.txt" 2>&1 || { echo "fill failed" >&2; exit 1; }
      quiesce
      for rate in $get_rates; do run_load "$checkout" "$label" "$n" get "$rate"; quiesce; done
      if [[ " $closed_loop " == *" get "* ]]; then run_wrk "$label" "$n" get; quiesce; fi
    fi
    stop_nodes
  done
done

python3 - "$out" << 'EOF' | tee -a "$out/summary.txt"
import glob, json, os, statistics, sys
runs = {}
for path in glob.glob(os.path.join(sys.argv[1], "*-*-*-*.json")):
    label, n, workload, rate = os.path.basename(path)[:-5].rsplit("-", 3)
    runs.setdefault((workload, int(rate), label), []).append(json.load(open(path)))
print("medians over the repeats (each repeat a fresh cluster); latencies in ms")
print(f"{'workload':8} {'rate':>6} {'checkout':12} {'runs':>4} {'achieved':>9} {'p50':>7} {'p99':>8} {'p99.9':>8} {'max':>8} {'cpu us/req':>10}")
for (workload, rate, label), rs in sorted(runs.items()):
    med = lambda k: statistics.median(r[k] for r in rs)
    print(f"{workload:8} {rate:6d} {label:12} {len(rs):4d} {med('achieved'):9.1f} {med('p50_us')/1e3:7.2f} "
          f"{med('p99_us')/1e3:8.2f} {med('p99_9_us')/1e3:8.2f} {med('p100_us')/1e3:8.2f} {med('nodes_cpu_us_per_request'):10.1f}")
EOF
echo "=== done $(date -u +%T); results in $out"
