#!/usr/bin/env bash
# Everything measured in the quiet window, in order. Nothing else may run.
set -u
out=/work/scratch/quiet-$(date -u +%H%M); mkdir -p $out
echo "commit $(git -C /work/main rev-parse --short HEAD) start $(date -u +%T)" | tee $out/info.txt
sync; echo 3 > /proc/sys/vm/drop_caches
cd /work/main
echo "== bench io, unpinned"; ./shale bench io --file /work/scratch/io-4g --size 4g --json $out/io-16.json > $out/io-16.txt 2>&1; tail -4 $out/io-16.txt
echo "== bench io, on core 0 as the node runs"; taskset -c 0 ./shale bench io --file /work/scratch/io-4g --size 4g --json $out/io-16-core0.json > $out/io-16-core0.txt 2>&1; tail -4 $out/io-16-core0.txt
echo "== fio qd16 / qd1 on the same file's disk"
taskset -c 1 fio --readonly --name=qd16 --filename=/work/scratch/io-4g --size=4G --rw=randread --bs=4k --direct=1 --iodepth=16 --ioengine=libaio --runtime=20 --time_based --group_reporting > $out/fio-qd16.txt 2>&1; grep -h IOPS $out/fio-qd16.txt
echo "== in-memory node: thread CPU, allocation $(date -u +%T)"; /work/scratch/quiet-a.sh $out/quiet-a > $out/quiet-a.txt 2>&1; cat $out/quiet-a.txt
echo "== http ceiling $(date -u +%T)"; bench/http-ceiling.sh /work/main 3 > $out/ceiling.txt 2>&1; tail -30 $out/ceiling.txt
echo "end $(date -u +%T)" | tee -a $out/info.txt
