#!/usr/bin/env bash
# exp.sh NAME RATE [server args...]: node (2g cgroup, core 0) on s2/base/data; GET uniform at RATE,
# 64 connections, 30 s after 20 s warmup; vmstat deltas; wall profile of the measured interval if PROFILE=1
set -u
name=$1 rate=$2; shift 2
here=$(pwd); cd /work/main
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
out=/work/scratch/s2/$name; mkdir -p $out
taskset -c ${NODE_CPUS:-0} bench/in-memory-cgroup.sh 2g ./shale server "$@" --port 18092 --data /work/scratch/s2/base/data > $out/node.log 2>&1 &
node=$!
trap 'kill $node 2>/dev/null; wait $node 2>/dev/null' EXIT
for _ in $(seq 1 120); do curl -fs http://127.0.0.1:18092/v0/status > /dev/null && break; sleep 1; done
pid=$(pgrep -f "dev.shale.app.Main server.*18092" | head -1)
cg() { local c=$(awk -F: '$2=="memory"{print $3}' /proc/$pid/cgroup); cat /sys/fs/cgroup/memory$c/memory.stat; }
vm() { grep -E "^(allocstall|pgscan_direct|pgsteal_direct|pgmajfault|pgpgin|pgscan_kswapd|pgsteal_kswapd|workingset_refault_file) " /proc/vmstat; }
( sleep ${WARMUP:-20}; vm > $out/vm0; cg > $out/cg0; curl -s http://127.0.0.1:18092/metrics | grep "^shale_http_request_duration_seconds_bucket{method=\"GET\",status=\"200\"" > $out/m0; grep ctxt $out/../dummy 2>/dev/null; grep -E "ctxt_switches" /proc/$pid/status > $out/ctx0;
  [[ ${PROFILE:-0} == 1 ]] && taskset -c 1 $JAVA_HOME/bin/java $here/tools/Attach.java $pid /work/scratch/ap/linux-x64/libasyncProfiler.so "start,event=${EVENT:-wall},interval=${INTERVAL:-1ms}" > /dev/null
  if [[ ${SCHED:-0} == 1 ]]; then sleep 5; taskset -c 1 curl -s http://127.0.0.1:18092/metrics | grep "^shale_http_request_duration_seconds_bucket{method=\"GET\",status=\"200\"" > $out/ms0; taskset -c 1 perf ${PERFCMD:-sched record} -C 0 -o $out/sched.data -- sleep 10 > /dev/null 2>&1; taskset -c 1 curl -s http://127.0.0.1:18092/metrics | grep "^shale_http_request_duration_seconds_bucket{method=\"GET\",status=\"200\"" > $out/ms1; sleep 15; else sleep 30; fi; vm > $out/vm1; cg > $out/cg1; curl -s http://127.0.0.1:18092/metrics | grep "^shale_http_request_duration_seconds_bucket{method=\"GET\",status=\"200\"" > $out/m1; grep -E "ctxt_switches" /proc/$pid/status > $out/ctx1
  [[ ${PROFILE:-0} == 1 ]] && taskset -c 1 $JAVA_HOME/bin/java $here/tools/Attach.java $pid /work/scratch/ap/linux-x64/libasyncProfiler.so "stop,file=$out/wall.collapsed,collapsed,threads" > /dev/null ) &
taskset -c 1 ./shale load --url http://127.0.0.1:18092 --keys 4500000 -c 64 -R $rate -d 30s --warmup ${WARMUP:-20}s --workload get --hgrm $out/hgrm.txt 2>&1 | grep -v SLF4J > $out/load.txt
wait %2 2>/dev/null; sleep 1
join $out/vm0 $out/vm1 | awk '{printf "%s %d\n", $1, $3-$2}' > $out/vmdelta
join $out/cg0 $out/cg1 | awk '{printf "%s %d\n", $1, $3-$2}' | grep -E "^(pgpgin|pgpgout|pgfault|pgmajfault|total_pgmajfault) " ; join $out/cg0 $out/cg1 | grep -E "^(cache|rss|mapped_file|inactive_file|active_file) "; paste $out/m0 $out/m1 | awk '{split($1,a,"le=\""); printf "%s %d\n", substr(a[2],1,index(a[2],"\"")-1), $4-$2}'; cat $out/vmdelta; cat $out/ctx0 $out/ctx1
grep -E "Requests/sec|50.000%|99.000%|99.900%|Latency Distribution" -A0 $out/load.txt | head
