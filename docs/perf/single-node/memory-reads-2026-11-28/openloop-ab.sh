#!/usr/bin/env bash
# Issue 34's open-loop GET in memory: node on core 0, generator on core 1, 200,000 keys x 100 B.
set -uo pipefail
out=$1; mkdir -p $out
port=18091; url=http://127.0.0.1:$port
declare -A dirs=([before]=/work/scratch/before [after]=/work/main)
rates=${RATES:-"22500 36000"}
run() {
  local v=$1 r=$2 here=${dirs[$1]} d
  d=$(mktemp -d /tmp/ol.XXXX)
  taskset -c 0 $here/shale server --port $port --data $d > $out/node-$v-$r.log 2>&1 &
  local n=$!
  for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
  taskset -c 1 /work/main/shale load --url $url --fill 200000 --value-size 100 -c 64 > $out/fill-$v-$r.txt
  # The node's own JIT: 40 s of GETs at the lower rate before anything is measured.
  taskset -c 1 /work/main/shale load --url $url --keys 200000 --workload get -c 64 -R 22500 -d 30s --warmup 10s > $out/warm-$v-$r.txt
  for rate in $rates; do
    local f=$out/$v-$r-$rate
    taskset -c 1 /work/main/shale load --url $url --keys 200000 --workload get -c 64 -R $rate -d 20s --warmup 10s --json $f.json > $f.txt
    echo "$(date -u +%T) $v round $r GET $rate: $(grep -E '^ +(50.000|99.000|99.900|100.000)%' $f.txt | tr -s ' ' | tr '\n' ' ') $(grep -E 'Requests/sec' $f.txt | tr -s ' ')"
  done
  kill $n; wait $n; rm -rf $d
}
for r in ${ROUNDS:-1 2}; do
  for v in ${VARIANTS:-before after}; do run $v $r; done
done
