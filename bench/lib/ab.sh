# Shared by the side-by-side scripts (engine-ab.sh, replication-ab.sh), whose command line is
# OUT_DIR LABEL=CHECKOUT [LABEL=CHECKOUT ...].

# Checks the command line of script $1 (the rest: its arguments): exits 2 with the usage unless
# there is an OUT_DIR and at least one LABEL=CHECKOUT naming a directory. Sets `out` to OUT_DIR,
# made if missing, as an absolute path.
ab_args() {
  local script=$1 pair
  shift
  (($# >= 2)) || { echo "usage: $script OUT_DIR LABEL=CHECKOUT [LABEL=CHECKOUT ...]" >&2; exit 2; }
  for pair in "${@:2}"; do
    [[ $pair == ?*=* && -d ${pair#*=} ]] \
      || { echo "$script: '$pair' is not LABEL=CHECKOUT with CHECKOUT a directory" >&2; exit 2; }
  done
  mkdir -p "$1" || exit 2
  out=$(cd "$1" && pwd)
}
