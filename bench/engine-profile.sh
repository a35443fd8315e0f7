#!/usr/bin/env bash
# Profiles Shale's engine on one workload of the engine benchmark with async-profiler: CPU and
# allocation (and, with EVENTS=wall, wall clock), as HTML flame graphs and collapsed stacks of
# that workload's time window only (the fill before it is left out by time, not by thread, so the
# flush and compaction threads of the workload are in).
#
#   [WORKLOAD=overwrite] [KEYS=1000000] [VALUE_SIZE=100] [HEAP=96m] [EVENTS=cpu] \
#       bench/engine-profile.sh OUT_DIR
#
#   WORKLOAD    the workload to profile (default overwrite); the workloads before it in the
#               benchmark's default order run first (recorded, but left out of the graphs), e.g.
#               fillrandom,overwrite,readrandom before readmissing
#   PRE         override those preceding workloads (comma separated)
#   KEYS        keys (default 1000000); VALUE_SIZE bytes per value (default 100)
#   HEAP        -Xmx of the benchmark JVM (default 96m)
#   EVENTS      cpu (default: CPU + allocation in one recording) or wall (wall clock, every thread)
#
# Writes OUT_DIR/<workload>-{cpu,alloc}.html (or -wall.html), the same as .collapsed, the
# benchmark's output with a millisecond timestamp per line (bench.log) and the recording
# (<workload>.jfr). Needs a built app (./shale --version builds it) and async-profiler 4.2 in
# ~/.m2 (mvn dependency:get -Dartifact=tools.profiler:async-profiler:4.2 and jfr-converter:4.2);
# the native library is extracted under /tmp, never into the repository. Shale only: RocksDB's
# native frames are not what this is for. A tiny check: KEYS=20000 bench/engine-profile.sh /tmp/p
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: [WORKLOAD=..] [KEYS=..] [VALUE_SIZE=..] [HEAP=..] [EVENTS=cpu|wall] $0 OUT_DIR" >&2; exit 2; }
out=$1
workload=${WORKLOAD:-overwrite} keys=${KEYS:-1000000} value_size=${VALUE_SIZE:-100}
heap=${HEAP:-96m} events=${EVENTS:-cpu}
# The workloads that run before it in the benchmark's default order (the table in
# docs/perf/engine.md), so that it meets the store it meets there; fillseq, which fillrandom's
# fresh store discards, is left out.
case "$workload" in
  fillseq|fillrandom) pre="" ;;
  overwrite) pre="fillrandom" ;;
  readrandom) pre="fillrandom,overwrite" ;;
  readmissing) pre="fillrandom,overwrite,readrandom" ;;
  readcompacted) pre="fillrandom,overwrite" ;;
  seekrandom|deleterandom) pre="fillrandom,overwrite,readcompacted" ;;
  scanall) pre="fillrandom,overwrite,readcompacted,deleterandom" ;;
  *) echo "unknown workload $workload" >&2; exit 2 ;;
esac
pre=${PRE-$pre}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
m2="$HOME/.m2/repository/tools/profiler"
profiler_jar="$m2/async-profiler/4.2/async-profiler-4.2.jar"
converter="$m2/jfr-converter/4.2/jfr-converter-4.2.jar"
[ -f "$root/app/target/shale-app.jar" ] || { echo "build first: ./shale --version" >&2; exit 1; }
[ -f "$profiler_jar" ] && [ -f "$converter" ] || { echo "async-profiler 4.2 and jfr-converter 4.2 must be in $m2" >&2; exit 1; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
lib_dir="$(mktemp -d /tmp/engine-profile-lib.XXXXXX)"
data_dir="$(mktemp -d /tmp/engine-profile-data.XXXXXX)"
trap 'rm -rf "$lib_dir" "$data_dir"' EXIT
unzip -q -o "$profiler_jar" 'linux-x64/libasyncProfiler.so' -d "$lib_dir"
agent="$lib_dir/linux-x64/libasyncProfiler.so"

jfr="$out/$workload.jfr"
case "$events" in
  cpu) agent_opts="start,event=cpu,interval=1ms,alloc=512k,file=$jfr,jfr" ;;
  wall) agent_opts="start,wall=2ms,file=$jfr,jfr" ;;
  *) echo "EVENTS must be cpu or wall: $events" >&2; exit 2 ;;
esac
workloads="${pre:+$pre,}$workload"

# Each output line gets the epoch millisecond at which it appeared: the workload's window runs
# from the line that ended the workload before it (or the "opened" line) to its own result line.
SHALE_JAVA_OPTS="-Xmx$heap -agentpath:$agent=$agent_opts" "$root/shale" bench engine --engine shale \
    --keys "$keys" --value-size "$value_size" --workloads "$workloads" --dir "$data_dir" 2>&1 \
  | while IFS= read -r line; do printf '%s %s\n' "$(date +%s%3N)" "$line"; done > "$out/bench.log"

previous="shale: opened"
[ -n "$pre" ] && previous="shale ${pre##*,}:"
from=$(grep -F "  $previous" "$out/bench.log" | tail -1 | cut -d' ' -f1)
to=$(grep -F "  shale $workload:" "$out/bench.log" | tail -1 | cut -d' ' -f1)
[ -n "$from" ] && [ -n "$to" ] || { echo "workload $workload did not finish; see $out/bench.log" >&2; exit 1; }
echo "$workload ran from $from to $to ms (epoch): $(( (to - from) / 1000 )) s" | tee "$out/window.txt"
grep -F "  shale $workload:" "$out/bench.log" | cut -d' ' -f2- | tee -a "$out/window.txt"

convert() { # kind format suffix (allocation graphs weigh bytes, not samples: --total)
  "$java" -cp "$converter" Main "--$1" $([ "$1" = alloc ] && echo --total) --from "$from" --to "$to" -o "$2" \
      --title "Shale $workload, $1 ($keys keys, $value_size B values, -Xmx$heap)" \
      "$jfr" "$out/$workload-$1.$3" >/dev/null
}
for kind in $([ "$events" = wall ] && echo wall || echo cpu alloc); do
  convert "$kind" html html
  convert "$kind" collapsed collapsed
done
ls -l "$out"
