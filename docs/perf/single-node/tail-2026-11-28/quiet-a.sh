#!/usr/bin/env bash
# In-memory node on core 0, generator on core 1: thread CPU split, allocation per request, log switches,
# GC cycles, at half the stable rates of issue 34 (GET 22,500/s on 200k keys, PUT 27,500/s random keys).
set -uo pipefail
out=${1:-/work/scratch/quiet-a}; mkdir -p $out
port=18095; url=http://127.0.0.1:$port; data=$out/data; rm -rf $data
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
taskset -c 0 /work/main/shale server --port $port --data $data > $out/node.log 2>&1 &
n=$!
for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
pid=$(curl -fs $url/v0/status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
taskset -c 1 /work/main/shale load --url $url --fill 200000 --keys 200000 -c 16 > $out/fill.txt
gcs() { curl -s $url/metrics | awk '/^jvm_gc_collection_seconds_count/ {s+=$NF} END {print s}'; }
alloc() { jcmd $pid GC.run > /dev/null; curl -s $url/metrics | awk '/^jvm_memory_pool_allocated_bytes_total.pool="ZGC Young/ {a+=$NF} /^shale_http_request_duration_seconds_count.method="(GET|PUT)",route="entity"/ {r+=$NF} END {printf "%.0f %.0f\n", a, r}'; }
for spec in "get 22500" "put 27500"; do
  set -- $spec; wl=$1; rate=$2
  # warm-up run (JIT), then the measured run under threadcpu
  taskset -c 1 /work/main/shale load --url $url --workload $wl --key-order random -R $rate -d 15s --warmup 5s -c 64 --keys 200000 > $out/$wl-warm.txt
  read a0 r0 < <(alloc); g0=$(gcs); s0=$(grep -c "switching log segments" $out/node.log)
  python3 /work/scratch/threadcpu.py $pid -- taskset -c 1 /work/main/shale load --url $url --workload $wl --key-order random -R $rate -d 30s --warmup 5s -c 64 --keys 200000 --json $out/$wl.json > $out/$wl-threads.txt
  read a1 r1 < <(alloc); g1=$(gcs); s1=$(grep -c "switching log segments" $out/node.log)
  echo "$wl $rate: alloc/request $(( (a1-a0)/(r1-r0) )) B over $((r1-r0)) requests; GC cycles+pauses $((g1-g0)); slow log switches $((s1-s0))" | tee $out/$wl-summary.txt
  python3 -c "import json; d=json.load(open('$out/$wl.json')); print({k: d[k] for k in d if any(s in k for s in ('p50','p99','max','rate','requests'))})" 2>/dev/null | tee -a $out/$wl-summary.txt
  cat $out/$wl-threads.txt
done
kill $n; wait $n
