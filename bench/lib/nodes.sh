# Shared by the bench scripts that start Shale nodes: source it after setting `pids=()` (the PIDs
# of the nodes the script started, appended as it starts them).

# A port that is free on loopback now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Stops the nodes this script started, by PID: SIGTERM, then SIGKILL if one hangs.
stop_nodes() {
  local p
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2> /dev/null || true
  done
  pids=()
}

# Waits up to 60 s for the node on `port` (process `pid`, writing to `log`) to answer
# GET /v0/status; exits the script if it dies or does not.
await_ready() { # port pid log
  for _ in $(seq 1 600); do
    kill -0 "$2" 2> /dev/null || { echo "a node exited; see $3" >&2; exit 1; }
    curl -sf -o /dev/null "http://127.0.0.1:$1/v0/status" && return 0
    sleep 0.1
  done
  echo "a node did not start within 60 s; see $3" >&2; exit 1
}
