#!/usr/bin/env bash
# Side by side: the engine benchmark of two (or more) checkouts of Shale, interleaved (A, B, A,
# B, ...), with RocksDB run by the last checkout in each repetition, so every engine meets the
# same machine state in turn. Then the medians per checkout (docs/perf/engine/median.py).
#
#   bench/engine-ab.sh OUT_DIR LABEL=CHECKOUT [LABEL=CHECKOUT ...]
#
# Each CHECKOUT is a Shale working tree; ./shale builds it on first use. Environment: REPEATS (3),
# KEYS (1000000), VALUE_SIZE (100), HEAP (96m; "default": no -Xmx, the launcher's heap, as
# `./shale bench engine` runs alone), WORKLOADS (empty: the benchmark's default list),
# BENCH_ARGS (more `bench engine` flags for every run). Each run writes
# OUT_DIR/<label>-<n>.{txt,json}; the medians go to OUT_DIR/<label>-medians.md. Run it on a quiet
# machine: nothing else may take CPU while it runs.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/ab.sh
source "$here/bench/lib/ab.sh"
ab_args engine-ab.sh "$@"
shift
repeats=${REPEATS:-3} keys=${KEYS:-1000000} value_size=${VALUE_SIZE:-100} heap=${HEAP:-96m}
workloads=${WORKLOADS:-} extra=${BENCH_ARGS:-}
labels=() checkouts=()
for pair in "$@"; do
  labels+=("${pair%%=*}")
  checkouts+=("$(cd "${pair#*=}" && pwd)")
done
last=$((${#labels[@]} - 1))

for ((r = 1; r <= repeats; r++)); do
  for i in "${!labels[@]}"; do
    label=${labels[$i]} engine=shale
    ((i == last)) && engine=both
    args=(bench engine --engine "$engine" --keys "$keys" --value-size "$value_size"
      --json "$out/$label-$r.json")
    [[ -n $workloads ]] && args+=(--workloads "$workloads")
    echo "== $(date -u +%H:%M:%S) run $r: $label ($engine) at $(git -C "${checkouts[$i]}" rev-parse --short HEAD)"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
    # A heap size given turns off the launcher's -XX:SoftMaxHeapSize=1g: ZGC then grows the heap
    # toward -Xmx, and a workload that meets the heap's first touch of its pages pays the kernel's
    # zeroing in page faults (with 6g: readcompacted 250-340k or 600k ops/s by that alone).
    heap_opt=""
    [[ $heap != default ]] && heap_opt="-Xmx$heap"
    SHALE_JAVA_OPTS="$heap_opt ${SHALE_JAVA_OPTS:-}" "${checkouts[$i]}/shale" "${args[@]}" $extra \
      > "$out/$label-$r.txt" 2>&1 || { echo "run failed: $out/$label-$r.txt" >&2; exit 1; }
  done
done

for label in "${labels[@]}"; do
  runs=()
  for ((r = 1; r <= repeats; r++)); do runs+=("$out/$label-$r.json"); done
  python3 "$here/docs/perf/engine/median.py" "${runs[@]}" > "$out/$label-medians.md"
  echo "== $label"; cat "$out/$label-medians.md"
done
