#!/usr/bin/env bash
# Runs one wrk2 workload at each of several constant rates and prints, per rate, the achieved
# rate and latency percentiles, marking the rates that are stable in the sense of
# ../shared/guide/PERFORMANCE.md (achieved >= 99% of the target and p99 <= 10 ms over the run).
#
#   bench/wrk2-sweep.sh URL SCRIPT CONNECTIONS "RATE RATE ..." [DURATION_S] [WARMUP_S] [-- SCRIPT_ARGS]
#   e.g. WRK2=/opt/wrk2/wrk taskset -c 1 bench/wrk2-sweep.sh http://127.0.0.1:8080 bench/lua/put.lua 1 "5000 10000" 30 15 -- 100
#
# Each rate first runs WARMUP_S seconds unrecorded, then DURATION_S seconds measured. Raw wrk2
# outputs go to $OUT (default ./wrk2-sweep-out). wrk2 itself is not packaged: build it from
# giltene/wrk2 outside this repository and point WRK2 at the binary.
set -euo pipefail
url=$1 script=$2 connections=$3 rates=$4
duration=${5:-30} warmup=${6:-15}
shift $(( $# < 6 ? $# : 6 ))
[[ "${1:-}" == "--" ]] && shift
wrk2=${WRK2:-wrk2}
command -v "$wrk2" > /dev/null || { echo "wrk2-sweep: no wrk2 at '$wrk2': build giltene/wrk2 and set WRK2" >&2; exit 1; }
out=${OUT:-./wrk2-sweep-out}
mkdir -p "$out"
threads=1

# Latency in microseconds from a wrk2 value like 741.00us, 1.96ms, 2.50s, 1.02m.
to_us() {
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") f = 1; else if (u == "ms") f = 1000; else if (u == "s") f = 1000000; else if (u == "m") f = 60000000; else f = 1
    printf "%.0f", n * f }'
}

printf '%-10s %-10s %-10s %-10s %-10s %-10s %s\n' target achieved p50_us p99_us p999_us max_us stable
for rate in $rates; do
  name=$(basename "$script" .lua)-c$connections-r$rate
  "$wrk2" -t$threads -c"$connections" -d"${warmup}s" -R"$rate" -s "$script" "$url" -- "$@" > "$out/$name.warmup.txt" 2>&1
  "$wrk2" -t$threads -c"$connections" -d"${duration}s" -R"$rate" -L -s "$script" "$url" -- "$@" > "$out/$name.txt" 2>&1
  f="$out/$name.txt"
  achieved=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$f")
  p50=$(to_us "$(awk '$1 == "50.000%" {print $2}' "$f")")
  p99=$(to_us "$(awk '$1 == "99.000%" {print $2}' "$f")")
  p999=$(to_us "$(awk '$1 == "99.900%" {print $2}' "$f")")
  max=$(to_us "$(awk '$1 == "100.000%" {print $2}' "$f")")
  errors=$(grep -E "Non-2xx|Socket errors" "$f" | tr -s ' ' | tr '\n' ';' || true)
  stable=no
  if awk -v a="$achieved" -v r="$rate" -v p="$p99" 'BEGIN { exit !(a >= 0.99 * r && p <= 10000) }'; then stable=yes; fi
  printf '%-10s %-10s %-10s %-10s %-10s %-10s %s %s\n' "$rate" "$achieved" "$p50" "$p99" "$p999" "$max" "$stable" "$errors"
done
