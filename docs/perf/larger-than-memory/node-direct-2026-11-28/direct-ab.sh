#!/usr/bin/env bash
# A/B of buffered vs direct point reads on the 4.5M x 1 KiB store (4.7 GB) in a 2 GiB cgroup.
set -uo pipefail
here=/work/main; out=$1; mkdir -p $out
port=18090; url=http://127.0.0.1:$port
data=/work/scratch/ltm-data
keys=4500000
variants=${VARIANTS:-"buffered direct direct-same-cache"}
rates=${RATES:-"4000 8000 12000"}
run_variant() {
  local v=$1 r=$2
  case $v in
    buffered) args="--memory 2g" ;;
    direct) args="--memory 2g --direct-reads" ;;
    direct-same-cache) args="--block-cache-size 756m --direct-reads"; export SHALE_JAVA_OPTS=-Xmx512m ;;
  esac
  sync; echo 1 > /proc/sys/vm/drop_caches
  taskset -c 0 $here/bench/in-memory-cgroup.sh 2g $here/shale server $args --port $port --data $data > $out/node-$v-$r.log 2>&1 &
  local n=$!
  unset SHALE_JAVA_OPTS
  for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
  local jpid=$(curl -fs $url/v0/status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
  local cg=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /memory/ {print $3}' /proc/$jpid/cgroup)
  taskset -c 1 $here/shale load --url $url --keys $keys --workload get -c 64 -R 4000 -d 60s --warmup 10s > $out/warm-$v-$r.txt
  for rate in $rates; do
    local f=$out/$v-$r-$rate
    cat /proc/$jpid/io > $f.io-before
    taskset -c 1 $here/shale load --url $url --keys $keys --workload get -c 64 -R $rate -d 30s --warmup 10s --json $f.json > $f.txt
    cat /proc/$jpid/io > $f.io-after
    echo "$(date -u +%T) $v round $r rate $rate: $(grep -E '^ +(50.000|99.000|99.900)%' $f.txt | tr -s ' ' | tr '\n' ' ') $(grep -E 'Requests/sec' $f.txt | tr -s ' ') usage $(( $(cat $cg/memory.usage_in_bytes) >> 20 ))M max $(( $(cat $cg/memory.max_usage_in_bytes) >> 20 ))M"
  done
  curl -fs $url/v0/status > $out/status-$v-$r.json
  grep -E "^(cache|rss|mapped_file|total_cache|total_rss) " $cg/memory.stat | tr '\n' ' ' > $out/memstat-$v-$r.txt
  kill $n; wait $n
  rmdir $cg 2>/dev/null || true
}
for r in 1 2; do
  for v in $variants; do run_variant $v $r; done
done
