#!/usr/bin/env bash
# Node GET on the 4.5M x 1 KiB store (4.7 GB) in a 2 GiB cgroup: builds side by side.
set -uo pipefail
out=$1; mkdir -p $out
port=18090; url=http://127.0.0.1:$port
data=/work/scratch/ltm-data
keys=4500000
declare -A dirs=([before]=/work/scratch/before [after]=/work/main)
rates=${RATES:-"4000 8000 12000 16000"}
run_variant() {
  local v=$1 r=$2 here=${dirs[$1]}
  sync; echo 1 > /proc/sys/vm/drop_caches
  taskset -c 0 $here/bench/in-memory-cgroup.sh 2g $here/shale server --memory 2g --port $port --data $data > $out/node-$v-$r.log 2>&1 &
  local n=$!
  for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
  local jpid=$(curl -fs $url/v0/status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
  local cg=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /memory/ {print $3}' /proc/$jpid/cgroup)
  taskset -c 1 /work/main/shale load --url $url --keys $keys --workload get -c 64 -R 4000 -d 50s --warmup 10s > $out/warm-$v-$r.txt
  for rate in $rates; do
    local f=$out/$v-$r-$rate
    cat /proc/$jpid/io > $f.io-before
    taskset -c 1 /work/main/shale load --url $url --keys $keys --workload get -c 64 -R $rate -d 30s --warmup 10s --json $f.json > $f.txt
    cat /proc/$jpid/io > $f.io-after
    echo "$(date -u +%T) $v round $r rate $rate: $(grep -E '^ +(50.000|99.000|99.900)%' $f.txt | tr -s ' ' | tr '\n' ' ') $(grep -E 'Requests/sec' $f.txt | tr -s ' ') max $(( $(cat $cg/memory.max_usage_in_bytes) >> 20 ))M"
  done
  curl -fs $url/v0/status > $out/status-$v-$r.json
  kill $n; wait $n
  rmdir $cg 2>/dev/null || true
}
for r in ${ROUNDS:-1}; do
  for v in ${VARIANTS:-before after}; do run_variant $v $r; done
done
