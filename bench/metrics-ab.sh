#!/usr/bin/env bash
# PUT saturation with metrics recording on and off, side by side (issue 17: recording may cost at
# most 3% of it). One checkout, one node per run, the runs interleaved (on, off, on, off, ...) so
# that the machine's drift falls on both alike: a fresh node on an empty store, Debian's wrk -t2
# -c64 PUT 100 B (bench/lua/put.lua) for WARMUP, then for DURATION, whose Requests/sec is the
# figure; then a scrape of /metrics (on) to show the recording ran. "off" is the node's own
# switch, --metrics=false. Prints one line per run and the median of each side, and the change.
#
#   bench/metrics-ab.sh CHECKOUT [ROUNDS] > docs/perf/metrics/results.txt
#
# Environment: DURATION (30s), WARMUP (30s), PORT (18094), VALUE_BYTES (100), SHALE_JAVA_OPTS (the
# node's JVM flags, as the launcher takes them). Run it on a quiet machine: it saturates the node.
set -uo pipefail
checkout=${1:?usage: metrics-ab.sh CHECKOUT [ROUNDS]} rounds=${2:-5}
duration=${DURATION:-30s} warmup=${WARMUP:-30s} port=${PORT:-18094} value_bytes=${VALUE_BYTES:-100}
cd "$checkout" || exit 2
command -v wrk > /dev/null || { echo "metrics-ab.sh: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
./shale --version > /dev/null || exit 2 # builds first if needed

run() { # label metrics(true|false)
  local d pid put scraped=""
  d=$(mktemp -d)
  ./shale server --port "$port" --data "$d" --metrics="$2" > "$d.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do curl -s -o /dev/null "localhost:$port/v0/status" && break; sleep 0.1; done
  wrk -t2 -c64 -d"$warmup" -s bench/lua/put.lua "http://127.0.0.1:$port" -- "$value_bytes" > /dev/null
  put=$(wrk -t2 -c64 -d"$duration" -s bench/lua/put.lua "http://127.0.0.1:$port" -- "$value_bytes" \
    | awk '/Requests\/sec/ { print $2 }')
  if [[ $2 == true ]]; then
    scraped=$(curl -s "localhost:$port/metrics" \
      | awk '/^shale_http_request_duration_seconds_count\{method="PUT",route="entity",status="201"\}/ { printf " recorded_puts=%d", $2 }')
  fi
  kill "$pid"; wait "$pid" 2> /dev/null; rm -rf "$d" "$d.log"
  echo "$1 PUT/s=$put$scraped"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# $(date -u +%FT%TZ) $(nproc) CPUs; $checkout at $(git rev-parse --short HEAD); wrk -t2 -c64 PUT ${value_bytes} B, ${warmup} warm-up, ${duration} measured"
lines=()
for round in $(seq "$rounds"); do
  for side in on off; do
    [[ $side == on ]] && flag=true || flag=false
    line=$(run "$side" "$flag")
    echo "$line"
    lines+=("$line")
  done
done
on=$(printf '%s\n' "${lines[@]}" | awk '$1 == "on" { sub("PUT/s=", "", $2); print $2 }' | median)
off=$(printf '%s\n' "${lines[@]}" | awk '$1 == "off" { sub("PUT/s=", "", $2); print $2 }' | median)
echo "median PUT/s: on=$on off=$off change=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%+.1f%%", (a - b) / b * 100 }')"
