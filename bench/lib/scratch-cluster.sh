# Sourced by the bench scripts that start local nodes: sets `here` (the repository), `data` (a
# scratch directory, removed at exit) and `pids=()`, stops the nodes the script started at exit,
# and loads lib/nodes.sh and lib/cluster.sh (whose functions read the script's `nodes`, `heap`,
# `node_args` and `out` when they are called).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
data=$(mktemp -d)
pids=()

# shellcheck source=nodes.sh
source "$here/bench/lib/nodes.sh"
cleanup() { stop_nodes; rm -rf "$data"; }
trap cleanup EXIT
# shellcheck source=cluster.sh
source "$here/bench/lib/cluster.sh"

# The arguments of a script run as `NAME OUT_DIR CHECKOUT`: sets `out` and `checkout` (absolute),
# making OUT_DIR; a usage line and exit status 2 otherwise.
out_and_checkout() { # name args...
  local name=$1
  shift
  (($# == 2)) && [[ -d $2 ]] || { echo "usage: $name OUT_DIR CHECKOUT" >&2; exit 2; }
  mkdir -p "$1" || exit 2
  out=$(cd "$1" && pwd) checkout=$(cd "$2" && pwd)
}
