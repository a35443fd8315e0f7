#!/usr/bin/env bash
# The measurements behind docs/perf/single-node.md: stable rates of PUT and GET at 1 and 64
# connections, the storage-pool threading model against running storage calls on the event loop
# (--workers 0), G1 against ZGC, and nginx answering a fixed reply as the plain-HTTP ceiling.
# The node runs on core 0 and wrk2 on core 1 (taskset), so the generator never takes the node's CPU.
#
#   WRK2=/path/to/wrk2 bench/single-node-sweeps.sh OUT_DIR
#
# wrk2 is not packaged: build giltene/wrk2 outside this repository. Needs nginx for the ceiling.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: single-node-sweeps.sh OUT_DIR}
mkdir -p "$out"
export WRK2=${WRK2:-wrk2}
command -v "$WRK2" > /dev/null || { echo "single-node-sweeps: no wrk2 at '$WRK2': build giltene/wrk2 and set WRK2" >&2; exit 1; }
# A port nobody listens on now: a node that cannot bind must not leave the sweep measuring
# whatever else answers on a fixed port.
port=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
data=$(mktemp -d)
node_pid=""

start_node() { # label, server args...
  local label=$1; shift
  rm -rf "$data/node"
  taskset -c 0 ./shale server --port $port --data "$data/node" "$@" > "$out/node-$label.log" 2>&1 &
  node_pid=$!
  for _ in $(seq 1 150); do
    kill -0 $node_pid 2> /dev/null || { echo "node $label exited; see $out/node-$label.log" >&2; exit 1; }
    curl -sf -o /dev/null http://127.0.0.1:$port/v0/status && return 0
    sleep 0.2
  done
  echo "node $label did not start; see $out/node-$label.log" >&2; exit 1
}
stop_node() {
  kill -TERM $node_pid 2> /dev/null || true
  for _ in $(seq 1 100); do kill -0 $node_pid 2> /dev/null || return 0; sleep 0.1; done
}
sweep() { # label url script connections "rates" script-args...
  local label=$1 url=$2 script=$3 c=$4 rates=$5; shift 5
  echo "=== $label (connections $c) $(date -u +%H:%M:%S)"
  OUT="$out/raw-$label" taskset -c 1 bench/wrk2-sweep.sh "$url" "$script" "$c" "$rates" 30 15 -- "$@" || exit 1
}
shale=http://127.0.0.1:$port

# 1. The default configuration: find the stable rates.
start_node default
sweep put-c1 $shale bench/lua/put.lua 1 "2000 4000 6000" 100
sweep get-c1 $shale bench/lua/get.lua 1 "2000 4000 6000" 100 100000
sweep put-c64 $shale bench/lua/put.lua 64 "8000 16000 24000" 100
sweep get-c64 $shale bench/lua/get.lua 64 "8000 16000 24000" 100 100000
stop_node

# 2. Storage calls on the event loop instead of the pool, at the same rates.
start_node inline --workers 0
sweep inline-put-c1 $shale bench/lua/put.lua 1 "4000 6000" 100
sweep inline-put-c64 $shale bench/lua/put.lua 64 "16000 24000" 100
sweep inline-get-c64 $shale bench/lua/get.lua 64 "16000 24000" 100 100000
stop_node

# 3. G1 instead of ZGC, default threading.
SHALE_JAVA_OPTS="-XX:+UseG1GC ${SHALE_JAVA_OPTS:-}" start_node g1
sweep g1-put-c1 $shale bench/lua/put.lua 1 "4000" 100
stop_node

# 4. The plain-HTTP ceiling: nginx answering "ok", one worker on core 0.
if command -v nginx > /dev/null; then
  mkdir -p "$data/nginx/logs"
  taskset -c 0 nginx -p "$data/nginx" -c "$PWD/bench/nginx/fixed-reply.conf"
  sweep nginx-c1 http://127.0.0.1:8090 bench/lua/get.lua 1 "6000 12000" 100 100000
  sweep nginx-c64 http://127.0.0.1:8090 bench/lua/get.lua 64 "24000 48000" 100 100000
  nginx -p "$data/nginx" -c "$PWD/bench/nginx/fixed-reply.conf" -s stop
fi
rm -rf "$data"
echo "=== done $(date -u +%H:%M:%S)"
