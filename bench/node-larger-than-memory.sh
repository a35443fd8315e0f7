#!/usr/bin/env bash
# A node on a store larger than its memory, over HTTP, beside the disk's own random-read rate in
# the same run (docs/perf/larger-than-memory.md). Starts a node with --memory MEMORY in a memory
# cgroup of that size (bench/in-memory-cgroup.sh: root), fills KEYS keys of 1 KiB (every value
# different, so the store is that large on disk), compacts, then finds the stable rate (p99 <=
# 10 ms) of uniform GET, Zipfian GET and PUT with ./shale knee, and measures the disk with fio
# (4 KiB random reads, O_DIRECT, queue depth 16 and 1). The node runs on core 0, the generator
# and fio on core 1. Run it on a quiet machine from the repository's root.
#
#   [MEMORY=2g] [KEYS=4500000] [DURATION=30s] [WARMUP=15s] [START=2000] [PORT=18090]
#   [KNEES="get-uniform get-zipf put"] bench/node-larger-than-memory.sh OUT_DIR
#
# KNEES chooses which stable rates to find (a 1 GiB run may need only get-uniform).
# Writes OUT_DIR/{fill,compact,knee-get-uniform,knee-get-zipf,knee-put,fio-qd16,fio-qd1,status-*}.txt,
# the knee plots, and node.log. The store goes to OUT_DIR/data (deleted at the end unless KEEP=1).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: [MEMORY=2g] [KEYS=..] $0 OUT_DIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
memory=${MEMORY:-2g} keys=${KEYS:-4500000} duration=${DURATION:-30s} warmup=${WARMUP:-15s}
start=${START:-2000} knees=${KNEES:-get-uniform get-zipf put}
port=${PORT:-18090} url=http://127.0.0.1:${PORT:-18090}
command -v fio > /dev/null || { echo "$0: fio is missing (apt-get install fio)" >&2; exit 2; }
"$here/shale" --version > /dev/null # build first, outside the measurement

taskset -c 0 "$here/bench/in-memory-cgroup.sh" "$memory" "$here/shale" server --memory "$memory" --port "$port" \
  --data "$out/data" > "$out/node.log" 2>&1 &
node=$!
stop() {
  kill "$node" 2> /dev/null && wait "$node" 2> /dev/null || true
  [[ ${KEEP:-0} == 1 ]] || rm -rf "$out/data" "$out/fio.dat"
}
trap stop EXIT
for _ in $(seq 1 120); do curl -fs "$url/v0/status" > /dev/null && break; sleep 1; done
curl -fs "$url/v0/status" > "$out/status-start.txt"

gen() { taskset -c 1 "$here/shale" "$@"; }
echo "== $(date -u +%T) fill $keys x 1 KiB"
gen load --url "$url" --fill "$keys" --value-size 1024 --connections 16 | tee "$out/fill.txt"
echo "== $(date -u +%T) compact"
curl -fs -X POST "$url/v0/admin/compact" | tee "$out/compact.txt"
curl -fs "$url/v0/status" > "$out/status-filled.txt"

echo "== $(date -u +%T) fio"
taskset -c 1 fio --name=qd16 --filename="$out/fio.dat" --size=4G --rw=randread --bs=4k --direct=1 --iodepth=16 \
  --ioengine=libaio --runtime=30 --time_based --group_reporting > "$out/fio-qd16.txt"
taskset -c 1 fio --name=qd1 --filename="$out/fio.dat" --size=4G --rw=randread --bs=4k --direct=1 --iodepth=1 \
  --ioengine=psync --runtime=30 --time_based > "$out/fio-qd1.txt"
grep -h "IOPS" "$out"/fio-qd*.txt

knee() {
  local name=$1
  shift
  echo "== $(date -u +%T) knee $name"
  gen knee --url "$url" --keys "$keys" --connections 64 --threads 1 --duration "$duration" --warmup "$warmup" \
    --start "$start" --plot "$out/knee-$name.png" "$@" | tee "$out/knee-$name.txt"
}
for name in $knees; do
  case $name in
    get-uniform) knee get-uniform --workload get ;;
    get-zipf) knee get-zipf --workload get --distribution zipf ;;
    put) knee put --workload put --value-size 1024 --key-order random ;;
    *) echo "$0: unknown knee '$name' (get-uniform, get-zipf, put)" >&2; exit 2 ;;
  esac
done
curl -fs "$url/v0/status" > "$out/status-end.txt"
