#!/usr/bin/env bash
# Issue 16's closed-loop comparison, side by side in one run: Debian `wrk -t2 -c64` against
#   nginx   answering every request with a fixed reply (bench/nginx/fixed-reply.conf, one worker),
#   shale   a fresh node with the launcher's defaults (of CHECKOUT; or of each LABEL=DIR in
#           $SHALE_BUILDS, e.g. SHALE_BUILDS="before=/tmp/old after=$PWD", for builds side by side),
#   ref     optionally, another HTTP key-value server started by $REFERENCE_START PORT DIR (the
#           course's reference server, built outside this repository; see docs/perf/single-node.md).
# Per round and server: PUT 100 B, 10 s measured after a warm-up of PUTs (30 s; nginx 5 s), then
# GET of k0..k99999 (all written by then, in memory), 10 s after 5 s. Servers interleaved, ROUNDS
# rounds. Then the large store: each key-value server is filled with k0..k999999 x 1 KB
# (`shale load --fill`) and GET of uniform keys is measured 10 s after 5 s, ROUNDS rounds
# interleaved with nginx's GET.
#   bench/http-ceiling.sh CHECKOUT ROUNDS > results.txt
set -u
checkout=$(realpath "$1") rounds=${2:-3}
cd "$checkout" || exit 2
ref=${REFERENCE_START:-}
rate() { wrk -t2 -c64 -d"$1" -s "bench/lua/$2.lua" "$3" -- "$4" "$5" | awk '/Requests\/sec/ { print $2 }'; }
wait_up() { for _ in $(seq 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "not up: $1" >&2; exit 1; }

nginx_prefix=
nginx_start() {
  nginx_prefix=$(mktemp -d)
  nginx -p "$nginx_prefix" -c "$checkout/bench/nginx/fixed-reply.conf" || exit 1
  wait_up http://127.0.0.1:8090/
}
nginx_stop() {
  nginx -p "$nginx_prefix" -c "$checkout/bench/nginx/fixed-reply.conf" -s stop
  while [ -e "$nginx_prefix/nginx.pid" ]; do sleep 0.1; done
  rm -rf "$nginx_prefix"
}

declare -A builds
for pair in ${SHALE_BUILDS:-shale=$checkout}; do builds[${pair%%=*}]=$(realpath "${pair#*=}"); done

# kv_start NAME DIR: starts the Shale build NAME (port 18094) or ref (port 18095) over DIR; sets
# kv_pid, kv_url.
kv_pid= kv_url=
kv_start() {
  if [ "$1" = ref ]; then
    kv_url=http://127.0.0.1:18095
    $ref 18095 "$2" > "$2.log" 2>&1 &
  else
    kv_url=http://127.0.0.1:18094
    (cd "${builds[$1]}" && exec ./shale server --port 18094 --data "$2") > "$2.log" 2>&1 &
  fi
  kv_pid=$!
  wait_up "$kv_url/v0/entity?id=probe"
}
kv_stop() { kill "$kv_pid"; wait "$kv_pid" 2> /dev/null; }

servers=()
for pair in ${SHALE_BUILDS:-shale=$checkout}; do servers+=("${pair%%=*}"); done
[ -n "$ref" ] && servers+=(ref)
# Built first: the launcher rebuilds a changed checkout when it starts, which must not eat into a run.
for b in "${!builds[@]}"; do (cd "${builds[$b]}" && ./shale --version > /dev/null) || exit 1; done

echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(nginx -v 2>&1); ${ref:+ref: $ref}"
for b in "${!builds[@]}"; do
  echo "# $b: ${builds[$b]} at $(git -C "${builds[$b]}" rev-parse --short HEAD)$(git -C "${builds[$b]}" diff --quiet HEAD || echo ' (with uncommitted changes)')"
done
echo "## PUT 100 B, GET 100 B in memory"
for r in $(seq "$rounds"); do
  nginx_start
  rate 5s put http://127.0.0.1:8090 100 100000 > /dev/null
  echo "round $r nginx PUT/s=$(rate 10s put http://127.0.0.1:8090 100 100000) GET/s=$(rate 10s get http://127.0.0.1:8090 100 100000)"
  nginx_stop
  for s in "${servers[@]}"; do
    d=$(mktemp -d)
    kv_start "$s" "$d"
    rate 30s put "$kv_url" 100 100000 > /dev/null
    put=$(rate 10s put "$kv_url" 100 100000)
    rate 5s get "$kv_url" 100 100000 > /dev/null
    echo "round $r $s PUT/s=$put GET/s=$(rate 10s get "$kv_url" 100 100000)"
    kv_stop
    rm -rf "$d" "$d.log"
  done
done

echo "## GET 1 KB from 1M keys"
declare -A dirs
for s in "${servers[@]}"; do
  dirs[$s]=$(mktemp -d)
  kv_start "$s" "${dirs[$s]}"
  start=$(date +%s)
  ./shale load --url "$kv_url" --fill 1000000 --value-size 1024 --connections 64 > /dev/null || exit 1
  echo "$s filled 1M x 1 KB in $(( $(date +%s) - start )) s; store $(du -sh "${dirs[$s]}" | cut -f1)"
  kv_stop
done
for r in $(seq "$rounds"); do
  nginx_start
  rate 5s get http://127.0.0.1:8090 1024 1000000 > /dev/null
  echo "round $r nginx GET/s=$(rate 10s get http://127.0.0.1:8090 1024 1000000)"
  nginx_stop
  for s in "${servers[@]}"; do
    kv_start "$s" "${dirs[$s]}"
    rate 5s get "$kv_url" 1024 1000000 > /dev/null
    echo "round $r $s GET/s=$(rate 10s get "$kv_url" 1024 1000000)"
    kv_stop
  done
done
for s in "${servers[@]}"; do rm -rf "${dirs[$s]}" "${dirs[$s]}.log"; done
