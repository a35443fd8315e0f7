#!/usr/bin/env bash
# Toggle scheduling of the JVM's GC/JIT threads on a live node; A/B under constant GET load.
set -uo pipefail
here=/work/main; out=$1; mkdir -p $out
port=18090; url=http://127.0.0.1:$port
data=/work/scratch/ltm-data
keys=4500000; rate=${RATE:-4000}
if [[ ! -d $data ]]; then
  taskset -c 0 $here/bench/in-memory-cgroup.sh 2g $here/shale server --memory 2g --port $port --data $data > $out/node-fill.log 2>&1 &
  n=$!
  for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
  echo "== $(date -u +%T) fill"; taskset -c 1 $here/shale load --url $url --fill $keys --value-size 1024 --connections 16 | tail -3
  echo "== $(date -u +%T) compact"; curl -fs -X POST $url/v0/admin/compact; echo
  kill $n; wait $n
fi
taskset -c 0 $here/bench/in-memory-cgroup.sh 2g $here/shale server --memory 2g --port $port --data $data > $out/node.log 2>&1 &
n=$!
trap 'kill $n 2>/dev/null; wait $n' EXIT
for _ in $(seq 1 120); do curl -fs $url/v0/status > /dev/null && break; sleep 1; done
jpid=$(curl -fs $url/v0/status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
echo "java pid $jpid"
setmode() {
  for t in /proc/$jpid/task/*; do
    c=$(cat $t/comm 2>/dev/null) || continue; tid=${t##*/}
    case $c in
      ZWorker*|ZDirector*|ZDriver*|"C2 Compiler"*|"C1 Compiler"*|"G1 Conc"*|"GC Thread"*|ZUncommit*|"VM Thread"*) ;;
      *) continue ;;
    esac
    case $1 in
      base) chrt -o -p 0 $tid >/dev/null; renice -n 0 -p $tid >/dev/null ;;
      nice) chrt -o -p 0 $tid >/dev/null; renice -n 19 -p $tid >/dev/null ;;
      idle) chrt -i -p 0 $tid >/dev/null ;;
    esac
  done
}
taskset -c 1 $here/shale load --url $url --keys $keys --workload get -c 64 -R $rate -d 60s --warmup 5s > $out/warm.txt
for round in 1 2 3 4; do
  for mode in base nice idle; do
    setmode $mode
    taskset -c 1 $here/shale load --url $url --keys $keys --workload get -c 64 -R $rate -d 30s --warmup 3s --json $out/$mode-$round.json > $out/$mode-$round.txt
    echo "$(date -u +%T) round $round $mode: $(grep -E '^ +(50.000|99.000|99.900)%' $out/$mode-$round.txt | tr -s ' ' | tr '\n' ' ') $(grep -E 'Requests/sec' $out/$mode-$round.txt)"
  done
done
