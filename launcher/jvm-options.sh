# The JVM flags of a Shale command: sourced by the checkout's launcher (./shale) and by a
# release's bin/shale (as lib/jvm-options.sh), so that both run the same JVM the same way.
# Plain bash, no other program: a release's host may have little more than bash.
#
#   shale_jvm_options ARGS...   sets the array SHALE_JVM_OPTIONS to the flags for `shale ARGS...`
#
# Environment: SHALE_JAVA_OPTS (extra JVM flags, last, so they win; e.g. -Xmx256m).

# The heap for `shale server --memory <size>`: a quarter of the node's memory (docs/operations.md,
# "Memory"), unless SHALE_JAVA_OPTS gives one; the node checks the heap against the budget.
# Prints -Xmx<n>m, or nothing.
shale_heap_option() {
  [[ "${1:-}" == "server" && "${SHALE_JAVA_OPTS:-}" != *-Xmx* ]] || return 0
  local memory="" prev="" arg n
  for arg in "$@"; do
    [[ $prev == --memory ]] && memory=$arg
    [[ $arg == --memory=* ]] && memory=${arg#--memory=}
    prev=$arg
  done
  [[ $memory =~ ^([0-9]+)([kKmMgG]?)$ ]] || return 0
  n=${BASH_REMATCH[1]}
  case ${BASH_REMATCH[2]} in
    k | K) n=$((n << 10)) ;;
    m | M) n=$((n << 20)) ;;
    g | G) n=$((n << 30)) ;;
  esac
  echo "-Xmx$((n / 4 >> 20))m"
}

# This machine's memory in KiB (MemTotal of /proc/meminfo), or 0 when it cannot be read.
shale_memory_kib() {
  local key value rest
  if [[ -r /proc/meminfo ]]; then
    while read -r key value rest; do
      [[ $key == MemTotal: ]] && { echo "$value"; return 0; }
    done < /proc/meminfo
  fi
  echo 0
}

shale_jvm_options() {
  local heap_opt gc_opts
  heap_opt=$(shale_heap_option "$@")
  # Generational ZGC unless the user chose a collector: pauses stay under a millisecond while the
  # heap holds memtables of many small objects (SerialGC, which the JVM picks on one CPU, and G1
  # paused 30-90 ms there; docs/perf/single-node.md).
  gc_opts="-XX:+UseZGC"
  [[ "${SHALE_JAVA_OPTS:-}" == *-XX:+Use*GC* ]] && gc_opts=""
  # ZGC lets the heap grow toward -Xmx (a quarter of the RAM by default: 6 GiB on 24) before it
  # collects, and the kernel zeroes each page the heap touches for the first time: a node's
  # first minutes of PUTs spent ~10% of their CPU in those page faults and its RSS passed 5 GiB.
  # Its garbage is short-lived and its memtables live outside the heap, so a soft bound of 1 GiB
  # (which the heap may still pass under pressure, up to -Xmx) keeps reusing pages already touched:
  # 95k -> 102k PUTs/s, RSS 1.2 GiB (docs/perf/single-node.md). Only when no heap size is given.
  if [[ -n $gc_opts && -z $heap_opt && "${SHALE_JAVA_OPTS:-}" != *-Xmx* && "${SHALE_JAVA_OPTS:-}" != *HeapSize* ]]; then
    (($(shale_memory_kib) / 4 > 1048576)) && gc_opts+=" -XX:SoftMaxHeapSize=1g"
  fi
  # FFM and JNI are used on purpose (native epoll, the block codecs), and Netty's own use of
  # sun.misc.Unsafe is allowed without a warning: the root pom's shale.jvm.flags, for the tests.
  # $gc_opts, $heap_opt and SHALE_JAVA_OPTS are split into words on purpose.
  # shellcheck disable=SC2206
  SHALE_JVM_OPTIONS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
    $gc_opts $heap_opt ${SHALE_JAVA_OPTS:-})
}
