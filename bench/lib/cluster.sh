# Shared by the bench scripts that start a local cluster (or one node) from a checkout: source it
# after bench/lib/nodes.sh and after setting `pids=()`, `nodes` (how many), `data` (a scratch
# directory), `out` (where node logs go), `heap` (-Xmx) and `node_args` (extra server flags;
# NODE_ARGS_<label> overrides them per label). start_cluster sets `ports` and `node_pids` (the
# nodes' JVM pids), node 0 first. Nodes of a cluster get the machine's cores shared out as event loops
# (--io-threads max(1, cores / nodes)), as `shale cluster` gives them, unless their args set --io-threads.

# The JVM's pid, from the node itself (the launcher may have forked it).
node_pid() { curl -sf "http://127.0.0.1:$1/v0/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["pid"])'; }

cpu_ticks() { # pids...: utime + stime of each, summed
  local total=0 p f
  for p in "$@"; do
    f=($(sed 's/.*) //' "/proc/$p/stat"))
    total=$((total + f[11] + f[12]))
  done
  echo "$total"
}

start_cluster() { # checkout label
  local checkout=$1 label=$2 i args_var="NODE_ARGS_$2" urls="" cluster_args=()
  local args=${!args_var-$node_args}
  ports=() node_pids=()
  for i in $(seq 0 $((nodes - 1))); do ports+=($(free_port)); urls+="${urls:+,}http://127.0.0.1:${ports[$i]}"; done
  rm -rf "$data/cluster"; mkdir -p "$data/cluster"
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$data/cluster/secret"
  chmod 600 "$data/cluster/secret"
  ((nodes > 1)) && cluster_args=(--cluster "$urls" --cluster-secret-file "$data/cluster/secret")
  ((nodes > 1)) && [[ $args != *--io-threads* ]] && cluster_args+=(--io-threads $(( $(nproc) / nodes > 1 ? $(nproc) / nodes : 1 )))
  for i in $(seq 0 $((nodes - 1))); do
    # shellcheck disable=SC2086 # the node's args are a list of flags
    SHALE_JAVA_OPTS="-Xmx$heap ${SHALE_JAVA_OPTS:-}" "$checkout/shale" server --port "${ports[$i]}" \
      --data "$data/cluster/n$i" "${cluster_args[@]}" $args \
      > "$out/$label-node$i.log" 2>&1 &
    pids+=($!)
  done
  for i in $(seq 0 $((nodes - 1))); do await_ready "${ports[$i]}" "${pids[$i]}" "$out/$label-node$i.log"; done
  for i in $(seq 0 $((nodes - 1))); do node_pids+=($(node_pid "${ports[$i]}")); done
}

# Waits (up to 3 minutes) until the nodes hold no undelivered hints and use less than a tenth of a
# core together, so that what a fill or a warm-up left behind (hint delivery, flushes, compactions,
# the JIT) does not land in the next measurement.
quiesce() {
  local i pending busy before after
  for i in $(seq 1 180); do
    pending=0
    for port in "${ports[@]}"; do
      pending=$((pending + $(curl -sf "http://127.0.0.1:$port/v0/status" \
        | python3 -c 'import json, sys; s = json.load(sys.stdin); print(s["hintsStored"] - s["hintsDelivered"])')))
    done
    before=$(cpu_ticks "${node_pids[@]}")
    sleep 1
    after=$(cpu_ticks "${node_pids[@]}")
    busy=$((after - before))
    ((pending <= 0 && busy * 10 < $(getconf CLK_TCK))) && return 0
  done
  echo "nodes still busy after 3 minutes ($pending hints pending, $busy ticks/s); measuring anyway" >&2
}
