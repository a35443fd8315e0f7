#!/usr/bin/env bash
# The launcher's ZGC soft heap bound, on and off, side by side: a fresh node per run; wrk -t2 -c64
# PUT 100 B for 10 s after 30 s of PUTs, then GET (keys k0..k99999, all written) for 10 s after 5 s.
# "off": SHALE_JAVA_OPTS=-XX:+UseZGC, which makes the launcher add no GC flag of its own.
#   ab.sh CHECKOUT ROUNDS > results.txt
set -u
checkout=$1 rounds=${2:-3}
cd "$checkout" || exit 2
run() { # label java-opts
  local d pid put get rss
  d=$(mktemp -d)
  SHALE_JAVA_OPTS="$2" ./shale server --port 18093 --data "$d" > "$d.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do curl -s -o /dev/null localhost:18093/v0/status && break; sleep 0.1; done
  wrk -t2 -c64 -d30s -s bench/lua/put.lua http://127.0.0.1:18093 -- 100 > /dev/null
  put=$(wrk -t2 -c64 -d10s -s bench/lua/put.lua http://127.0.0.1:18093 -- 100 | awk '/Requests\/sec/ { print $2 }')
  wrk -t2 -c64 -d5s -s bench/lua/get.lua http://127.0.0.1:18093 -- 100 100000 > /dev/null
  get=$(wrk -t2 -c64 -d10s -s bench/lua/get.lua http://127.0.0.1:18093 -- 100 100000 | awk '/Requests\/sec/ { print $2 }')
  rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2> /dev/null; rm -rf "$d" "$d.log"
  echo "$1 PUT/s=$put GET/s=$get rss_kib=$rss"
}
echo "# $(date -u +%FT%TZ) $(nproc) CPUs; $checkout at $(git rev-parse --short HEAD)"
for round in $(seq "$rounds"); do
  run off "-XX:+UseZGC"
  run on ""
done
