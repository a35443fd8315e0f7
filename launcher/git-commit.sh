# What commit a source checkout is at: sourced by ./shale (whose JVM gets it as -Dshale.commit, so
# `shale --version` names it) and by launcher/make-release.sh (which names the release after it).
#
#   shale_git_commit ROOT   prints the commit ROOT's work tree is at, as 40 hex digits, with
#                           "-dirty" after them when the tree differs from it (a tracked file
#                           changed, or a file git does not ignore added); prints nothing, and
#                           fails, when ROOT is no git work tree or git is missing.
shale_git_commit() {
  local root=$1 hash changes
  command -v git > /dev/null || return 1
  hash=$(git -C "$root" rev-parse --verify --quiet HEAD 2> /dev/null) || return 1
  # --no-optional-locks: a status only reads; it must not take the index lock that a `git commit`
  # running at the same moment needs.
  changes=$(git --no-optional-locks -C "$root" status --porcelain 2> /dev/null) || return 1
  [[ -n $changes ]] && hash+="-dirty"
  echo "$hash"
}
