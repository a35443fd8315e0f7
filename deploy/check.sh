#!/usr/bin/env bash
# Checks the deploy files as far as this machine can without a service manager, a container
# engine or a Kubernetes cluster (docs/deploy.md, "Checking the deploy files"):
#
#   deploy/check.sh [--release TREE]
#
# - systemd-analyze verify on deploy/systemd/shale.service, with /opt/shale in it read as TREE
#   (an unpacked release: the unit names its launcher, which must exist and be executable);
#   skipped without systemd-analyze or without --release;
# - kubeconform -strict on deploy/kubernetes/*.yaml, skipped without kubeconform. Its schemas
#   come from KUBERNETES_SCHEMAS when set, a directory of kubernetes-json-schema's layout
#   (v<version>-standalone-strict/<kind>-<group>-<version>.json), or of the "local" one that the
#   PyPI package kubernetes-validate ships (kubernetes_validate/kubernetes-json-schema/, whose
#   v<version>-local-strict/ files refer to /api/_definitions.json under their $id's host,
#   rewritten here to the file beside them); else kubeconform downloads them.
#   KUBERNETES_VERSION: 1.33.0.
#
# Prints one line per check (ok, skipped and why, or what failed); exits 1 if a check failed.
set -euo pipefail

deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
release=""
while (($#)); do
  case $1 in
    --release) release=${2:-}; shift 2 || { echo "check: --release needs a directory" >&2; exit 2; } ;;
    *) echo "check: unknown argument '$1' (usage: deploy/check.sh [--release TREE])" >&2; exit 2 ;;
  esac
done

failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v systemd-analyze > /dev/null; then
  echo "systemd-analyze verify: skipped (no systemd-analyze)"
elif [[ -z $release ]]; then
  echo "systemd-analyze verify: skipped (give --release TREE, an unpacked release, for the unit's /opt/shale)"
elif [[ ! -x $release/bin/shale ]]; then
  echo "systemd-analyze verify: failed: $release/bin/shale is not an executable launcher"
  failed=1
else
  release=$(cd "$release" && pwd)
  sed "s#/opt/shale/#$release/#g" "$deploy/systemd/shale.service" > "$work/shale.service"
  if output=$(systemd-analyze verify "$work/shale.service" 2>&1) && [[ -z $output ]]; then
    echo "systemd-analyze verify: ok"
  else
    echo "systemd-analyze verify: failed: $output"
    failed=1
  fi
fi

if ! command -v kubeconform > /dev/null; then
  echo "kubeconform: skipped (not installed: go install github.com/yannh/kubeconform/cmd/kubeconform@v0.7.0)"
else
  version=${KUBERNETES_VERSION:-1.33.0}
  locations=()
  if [[ -n ${KUBERNETES_SCHEMAS:-} ]]; then
    schemas=$KUBERNETES_SCHEMAS
    if [[ ! -d $schemas/v$version-standalone-strict && -d $schemas/v$version-local-strict ]]; then
      # The "local" flavour: its references to /api/_definitions.json resolve against the files'
      # $id (https://kubernetes.io/...), which kubeconform would download; point them, and that
      # file's own $id, at the copy beside them.
      copy="$work/schemas/v$version-standalone-strict"
      mkdir -p "$copy"
      for file in "$schemas/v$version-local-strict"/*.json; do
        sed -e "s#\"/api/_definitions.json#\"file://$copy/_definitions.json#g" \
          -e "s#\"https://kubernetes.io/api/_definitions.json\"#\"file://$copy/_definitions.json\"#" \
          "$file" > "$copy/${file##*/}"
      done
      schemas=$work/schemas
    fi
    locations=(-schema-location "$schemas/{{.NormalizedKubernetesVersion}}-standalone{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json")
  fi
  if output=$(kubeconform -strict -summary -kubernetes-version "$version" "${locations[@]}" "$deploy"/kubernetes/*.yaml 2>&1); then
    echo "kubeconform: ok: $output"
  elif [[ $output == *"failed downloading schema"* && $output != *" is invalid"* ]]; then
    # Nothing was found wrong: the schemas could not be had. Not a failure of the files.
    echo "kubeconform: skipped (its schemas cannot be downloaded from here: set KUBERNETES_SCHEMAS to a local copy)"
  else
    echo "kubeconform: failed: $output"
    failed=1
  fi
fi

exit $failed
