#!/usr/bin/env bash
# Issue 30 asks whether io_uring would read a store larger than memory faster than the node's
# pool of threads doing pread. This measures the question below the engine, on the disk itself,
# side by side in one run: 4 KiB random reads of FILE (made if missing, 4 GiB), O_DIRECT (no page
# cache, so every read reaches the device), for each way of keeping N reads in flight:
#   psync    N threads, each one pread at a time    (what the node's N storage workers do)
#   io_uring one thread, N reads in flight in a ring
#   libaio   one thread, N reads in flight (Linux AIO)
# and prints reads/s, mean and p99 latency and the CPU time spent per read (user + system, over
# the whole fio process), ROUNDS rounds interleaved. Run it on a quiet machine, as root or as an
# owner of FILE's disk:
#   bench/read-engines.sh FILE [N] [ROUNDS] > results.txt
set -euo pipefail
file=$1 depth=${2:-16} rounds=${3:-3} seconds=${SECONDS_PER_RUN:-15}
command -v fio > /dev/null || { echo "$0: fio is missing (apt-get install fio)" >&2; exit 2; }
[[ -f $file ]] || fio --name=make --filename="$file" --size=4g --rw=write --bs=1m --direct=1 > /dev/null

run() { # run ENGINE: one fio run; prints one line
  local args
  case $1 in
    psync) args=(--ioengine=psync --numjobs="$depth" --iodepth=1 --group_reporting) ;;
    *) args=(--ioengine="$1" --numjobs=1 --iodepth="$depth") ;;
  esac
  fio --name=read --filename="$file" --rw=randread --bs=4k --direct=1 --time_based --runtime="$seconds" \
    --ramp_time=3 --norandommap --output-format=json "${args[@]}" | python3 -c '
import json, sys
job = json.load(sys.stdin)["jobs"][0]
r = job["read"]
ios = r["total_ios"] or 1
cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000  # summed over the jobs
lat = r["clat_ns"]
line = "%-9s %9.0f reads/s  mean %6.0f us  p99 %6.0f us  cpu %5.1f us/read"
print(line % (sys.argv[1], r["iops"], lat["mean"] / 1000, lat["percentile"]["99.000000"] / 1000, cpu_s / ios * 1e6))
' "$1"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(fio --version); kernel $(uname -r)"
echo "# $file, 4 KiB random reads, O_DIRECT, $depth in flight, ${seconds}s per run after 3s"
for r in $(seq "$rounds"); do
  for engine in psync io_uring libaio; do echo "round $r $(run $engine)"; done
done
