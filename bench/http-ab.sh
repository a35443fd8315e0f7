#!/usr/bin/env bash
# Builds side by side over HTTP: for each round, for each LABEL=CHECKOUT in turn, a fresh node of
# that checkout (the launcher's defaults, plus $SERVER_ARGS) measured with Debian's wrk -t2 -c64:
# PUT 100 B for 10 s after 30 s of PUTs, then GET of k0..k99999 (all written by then) for 10 s
# after 5 s. One line per run; the node's log kept in OUT_DIR.
#   bench/http-ab.sh OUT_DIR ROUNDS LABEL=CHECKOUT [LABEL=CHECKOUT ...] > results.txt
set -u
source "$(dirname "$0")/lib/ab.sh"
rounds=${2:-}
[[ $rounds =~ ^[0-9]+$ ]] || { echo "usage: $0 OUT_DIR ROUNDS LABEL=CHECKOUT [LABEL=CHECKOUT ...]" >&2; exit 2; }
ab_args "$0" "$1" "${@:3}"
port=18093
rate() { wrk -t2 -c64 -d"$1" -s "$checkout/bench/lua/$2.lua" "http://127.0.0.1:$port" -- 100 100000 | awk '/Requests\/sec/ { print $2 }'; }
echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for pair in "${@:3}"; do echo "# ${pair%%=*}: ${pair#*=} at $(git -C "${pair#*=}" rev-parse --short HEAD)$(git -C "${pair#*=}" diff --quiet HEAD || echo ' (with uncommitted changes)')"; done
# Built first: the launcher rebuilds a changed checkout when it starts, which must not eat into a run.
for pair in "${@:3}"; do (cd "${pair#*=}" && ./shale --version > /dev/null) || exit 1; done
for round in $(seq "$rounds"); do
  for pair in "${@:3}"; do
    label=${pair%%=*} checkout=${pair#*=}
    d=$(mktemp -d)
    # shellcheck disable=SC2086
    (cd "$checkout" && exec ./shale server --port $port --data "$d" ${SERVER_ARGS:-}) > "$out/$label-$round.log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do curl -s -o /dev/null "localhost:$port/v0/status" && break; sleep 0.1; done
    rate 30s put > /dev/null
    put=$(rate 10s put)
    rate 5s get > /dev/null
    get=$(rate 10s get)
    kill "$pid"; wait "$pid" 2> /dev/null; rm -rf "$d"
    echo "round $round $label PUT/s=$put GET/s=$get"
  done
done
