#!/usr/bin/env bash
# Issue 35's TLS cost, side by side in one run: Debian `wrk -t2 -c64` (long-lived connections)
# against one node of CHECKOUT in clear and the same build serving TLS on its port
# (`--tls-cert`/`--tls-key` from `./shale certs`), interleaved, ROUNDS rounds, each on a fresh
# node: PUT 100 B for 10 s after 20 s of warm-up, then GET of the keys written, 10 s after 5 s.
# Then new TLS connections a second on the TLS node (`openssl s_time`, 10 s each): full
# handshakes (-new) and resumed sessions (-reuse).
#   bench/tls-ceiling.sh CHECKOUT [ROUNDS] > results.txt
set -u
checkout=$(realpath "$1") rounds=${2:-3}
cd "$checkout" || exit 2
port=18096
certs=$(mktemp -d)
./shale certs ca --dir "$certs" > /dev/null && ./shale certs node --dir "$certs" --name bench --host 127.0.0.1 > /dev/null || exit 1

rate() { wrk -t2 -c64 -d"$1" -s "bench/lua/$2.lua" "$3" -- "$4" "$5" | awk '/Requests\/sec/ { print $2 }'; }
wait_up() { for _ in $(seq 300); do curl -sk -o /dev/null "$1/v0/status" && return 0; sleep 0.1; done; echo "not up: $1" >&2; exit 1; }
node_pid=
node_start() { # node_start DIR [TLS OPTIONS...]: a fresh node on $port
  local dir=$1; shift
  ./shale server --port "$port" --data "$dir" "$@" > "$dir.log" 2>&1 &
  node_pid=$!
}
node_stop() { kill "$node_pid"; wait "$node_pid" 2> /dev/null; }
tls=(--tls-cert "$certs/node.bench.crt" --tls-key "$certs/node.bench.key")

./shale --version > /dev/null || exit 1 # built before the first measurement
echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)'); $(wrk -v 2>&1 | head -1); $(openssl version)"
for r in $(seq "$rounds"); do
  for mode in plain tls; do
    d=$(mktemp -d)
    if [[ $mode == tls ]]; then node_start "$d" "${tls[@]}"; url=https://127.0.0.1:$port; else node_start "$d"; url=http://127.0.0.1:$port; fi
    wait_up "$url"
    rate 20s put "$url" 100 100000 > /dev/null
    put=$(rate 10s put "$url" 100 100000)
    rate 5s get "$url" 100 100000 > /dev/null
    echo "round $r $mode PUT/s=$put GET/s=$(rate 10s get "$url" 100 100000)"
    node_stop
    rm -rf "$d" "$d.log"
  done
done
d=$(mktemp -d)
node_start "$d" "${tls[@]}"
wait_up "https://127.0.0.1:$port"
for kind in new reuse; do
  echo "handshakes -$kind: $(openssl s_time -connect 127.0.0.1:$port -$kind -time 10 2>&1 | grep -E 'connections/user sec|connections in' | tr '\n' ' ')"
done
node_stop
rm -rf "$d" "$d.log" "$certs"
