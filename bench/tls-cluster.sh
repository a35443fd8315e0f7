#!/usr/bin/env bash
# Issue 35's internode TLS cost, side by side in one run: Debian `wrk -t2 -c64` (long-lived
# connections) against node 0 of a local 3-node cluster of CHECKOUT (default consistency: ack=2
# from=3), in clear and with TLS everywhere (the port, between the nodes and on the Raft port:
# --tls-cert/--tls-key/--tls-cluster-ca from `./shale certs`), interleaved, ROUNDS rounds, each
# on a fresh cluster: PUT 100 B for 10 s after 10 s of warm-up, then GET of the keys written,
# 10 s after 5 s.
#   bench/tls-cluster.sh CHECKOUT [ROUNDS] > results.txt
set -u
checkout=$(realpath "$1") rounds=${2:-2}
cd "$checkout" || exit 2
ports=(18190 18191 18192)
certs=$(mktemp -d)
./shale certs ca --dir "$certs" > /dev/null || exit 1
for i in 0 1 2; do ./shale certs node --dir "$certs" --name "n$i" --host 127.0.0.1 > /dev/null || exit 1; done
secret="$certs/cluster.secret"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$secret")

rate() { wrk -t2 -c64 -d"$1" -s "bench/lua/$2.lua" "$3" -- "$4" "$5" | awk '/Requests\/sec/ { print $2 }'; }
wait_up() { for _ in $(seq 600); do curl -sk "$1/v0/status" 2> /dev/null | grep -q '"status": "serving"' && return 0; sleep 0.1; done; echo "not up: $1" >&2; exit 1; }
pids=()
cluster_start() { # cluster_start DIR SCHEME: three fresh nodes
  local dir=$1 scheme=$2 urls=""
  for p in "${ports[@]}"; do urls+="${urls:+,}$scheme://127.0.0.1:$p"; done
  pids=()
  for i in 0 1 2; do
    local tls=()
    [[ $scheme == https ]] && tls=(--tls-cert "$certs/node.n$i.crt" --tls-key "$certs/node.n$i.key" --tls-cluster-ca "$certs/ca.crt")
    ./shale server --port "${ports[$i]}" --data "$dir/n$i" --cluster "$urls" --cluster-secret-file "$secret" "${tls[@]}" \
      > "$dir/n$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${ports[@]}"; do wait_up "$scheme://127.0.0.1:$p"; done
}
cluster_stop() { kill "${pids[@]}"; wait "${pids[@]}" 2> /dev/null; }

./shale --version > /dev/null || exit 1 # built before the first measurement
echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg); $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)'); $(wrk -v 2>&1 | head -1)"
for r in $(seq "$rounds"); do
  for scheme in http https; do
    d=$(mktemp -d)
    cluster_start "$d" "$scheme"
    url=$scheme://127.0.0.1:${ports[0]}
    rate 10s put "$url" 100 100000 > /dev/null
    put=$(rate 10s put "$url" 100 100000)
    rate 5s get "$url" 100 100000 > /dev/null
    echo "round $r $scheme PUT/s=$put GET/s=$(rate 10s get "$url" 100 100000)"
    cluster_stop
    rm -rf "$d"
  done
done
rm -rf "$certs"
