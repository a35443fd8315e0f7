#!/usr/bin/env bash
# Closed-loop PUT saturation of a node on core 0 (wrk on core 1), flush thread at nice $NICE_FLUSH (or as is).
set -u
label=$1; out=/work/scratch/put-sat; mkdir -p $out; rm -rf $out/data-$label
port=18097; url=http://127.0.0.1:$port
taskset -c 0 /work/main/shale server --port $port --data $out/data-$label > $out/node-$label.log 2>&1 &
n=$!
for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
pid=$(curl -fs $url/v0/status | python3 -c "import json,sys; print(json.load(sys.stdin)['pid'])")
if [ -n "${NICE_FLUSH:-}" ]; then for t in /proc/$pid/task/*; do grep -q "^shale-flush" $t/comm && renice -n $NICE_FLUSH -p $(basename $t) > /dev/null; done; fi
taskset -c 1 wrk -t1 -c64 -d10s -s /work/main/bench/lua/put.lua $url -- 100 > /dev/null
r=$(taskset -c 1 wrk -t1 -c64 -d30s -s /work/main/bench/lua/put.lua $url -- 100 | awk '/Requests\/sec/ {print $2}')
st=$(curl -fs $url/v0/status | python3 -c "import json,sys; d=json.load(sys.stdin); print('writeStalls', d['writeStalls'])")
echo "$label PUT/s $r $st"
kill $n; wait $n
