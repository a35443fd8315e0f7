#!/usr/bin/env bash
# PUT at 27,500/s (half the stable rate) on an in-memory node, memtable size as given: the per-second tail.
set -u
mt=$1; out=/work/scratch/put-mt-$mt-nice${NICE_FLUSH:-0}; mkdir -p $out; rm -rf $out/data
port=18096; url=http://127.0.0.1:$port
taskset -c 0 /work/main/shale server --port $port --data $out/data --memtable-size $mt > $out/node.log 2>&1 &
n=$!
for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
pid=$(curl -fs $url/v0/status | python3 -c "import json,sys; print(json.load(sys.stdin)[\"pid\"])"); if [ -n "${NICE_FLUSH:-}" ]; then for t in /proc/$pid/task/*; do grep -q "^shale-flush" $t/comm && renice -n ${NICE_FLUSH} -p $(basename $t) > /dev/null && echo "flush thread $(basename $t) at nice ${NICE_FLUSH}"; done; fi
taskset -c 1 /work/main/shale load --url $url --fill 200000 --keys 200000 -c 16 > /dev/null
taskset -c 1 /work/main/shale load --url $url --workload put --key-order random -R 27500 -d 15s --warmup 5s -c 64 --keys 200000 > /dev/null
taskset -c 1 /work/main/shale load --url $url --workload put --key-order random -R 27500 -d 40s --warmup 5s -c 64 --keys 200000 --json $out/put.json > $out/put.txt
curl -s $url/metrics | grep -E "^shale_engine_flushes_total|^shale_engine_log_fsync_duration_seconds_(count|sum)" > $out/metrics.txt
kill $n; wait $n
python3 -c "
import json; d=json.load(open('$out/put.json'))
print('$mt', 'p50', d['p50_us'], 'p99', d['p99_us'], 'p99.9', d['p99_9_us'], 'max', d['p100_us'])
print(' seconds with max >= 8 ms:', [s['second'] for s in d['latency_by_second'] if s['max_us'] >= 8000])
print(' per-second max ms:', [round(s['max_us']/1000) for s in d['latency_by_second']])"
cat $out/metrics.txt
