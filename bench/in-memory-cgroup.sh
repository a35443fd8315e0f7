#!/usr/bin/env bash
# Runs a command in a memory cgroup of its own, limited to LIMIT bytes (k, m or g suffixes), made
# under this shell's cgroup: the command's memory and the page cache of the files it reads and
# writes count against the limit, as on a host with that much memory. For measuring a node on a
# store larger than memory (docs/perf/larger-than-memory.md); `./shale bench engine` has
# --memory-limit for the same. Needs root (or a delegated cgroup). cgroup v1 and v2.
#
#   bench/in-memory-cgroup.sh 2g ./shale server --memory 2g --data /srv/big
#
# The cgroup (shale-<pid>) is left behind when the command ends: rmdir it, or reuse the name.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 LIMIT COMMAND [ARGS...]" >&2; exit 2; }
limit=$1
shift
[[ $limit =~ ^([0-9]+)([kKmMgG]?)$ ]] || { echo "$0: LIMIT must be a number of bytes with k, m or g: $limit" >&2; exit 2; }
bytes=${BASH_REMATCH[1]}
case ${BASH_REMATCH[2]} in
  k | K) bytes=$((bytes << 10)) ;;
  m | M) bytes=$((bytes << 20)) ;;
  g | G) bytes=$((bytes << 30)) ;;
esac
v1=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
if [[ -n $v1 ]]; then
  dir=/sys/fs/cgroup/memory${v1%/}/shale-$$
  mkdir -p "$dir"
  echo "$bytes" > "$dir/memory.limit_in_bytes"
else
  v2=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
  root=/sys/fs/cgroup
  [[ -f $root/cgroup.controllers ]] || root=/sys/fs/cgroup/unified
  dir=$root${v2%/}/shale-$$
  mkdir -p "$dir"
  echo "$bytes" > "$dir/memory.max"
fi
echo $$ > "$dir/cgroup.procs"
echo "in-memory-cgroup: $dir, limit $bytes bytes" >&2
exec "$@"
