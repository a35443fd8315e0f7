#!/usr/bin/env bash
# Builds a release of Shale from jars already built: OUT/shale-<version>.tar.gz, which unpacks to
# shale-<version>/ holding bin/shale, the jars, a Java runtime linked from the JDK with only the
# modules they need, and the docs and deploy files. Prints the tarball's path as its last line.
# `./shale dist --out DIR` builds the jars and runs this; the release tests run it on the jars
# of their own build. The layout and how to install it: docs/deploy.md.
#
#   launcher/make-release.sh --out DIR [--jdk DIR] [--app-jar FILE] [--lib DIR]
#
#   --out      where the tarball goes (created if missing; a tarball of the same name is replaced)
#   --jdk      the JDK 25 whose jdeps and jlink make the runtime (default: JAVA_HOME)
#   --app-jar  the app's jar (default: app/target/shale-app.jar)
#   --lib      the app's runtime dependencies, jars (default: app/target/lib)
#
# The version names the commit (0.1.0-<short hash>, "-dirty" when the tree has changes): the
# rule is the app's own (`shale --version`, VersionProvider), asked of the release's launcher.
#
# The runtime keeps the JDK's debug attributes (line numbers in stack traces of JDK frames).
#
# Reproducible: the same jars, JDK and commit give the same bytes. Entries are sorted by name,
# owned by 0:0, with the commit's time as every mtime (SOURCE_DATE_EPOCH when set), and gzip
# records no name or time. The jars are Maven's, reproducible by the root pom's
# project.build.outputTimestamp.
set -euo pipefail

source_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=launcher/git-commit.sh
source "$source_root/launcher/git-commit.sh"

die() { echo "shale dist: $*" >&2; exit 1; }
say() { echo "shale dist: $*" >&2; }

# Modules the code needs at run time whether or not a class names them (jdeps sees only the
# classes a class names): jdk.management, for com.sun.management's OperatingSystemMXBean, which
# the Prometheus JVM metrics ask for by reflection (process_cpu_seconds_total, process_open_fds,
# process_max_fds). jdeps finds it today through another of their classes; this keeps it if that
# class goes.
extra_modules=jdk.management

out="" jdk="${JAVA_HOME:-}" app_jar="$source_root/app/target/shale-app.jar" lib="$source_root/app/target/lib"
while (($#)); do
  case $1 in
    --out) out=${2:-}; shift 2 || die "--out needs a directory" ;;
    --jdk) jdk=${2:-}; shift 2 || die "--jdk needs a directory" ;;
    --app-jar) app_jar=${2:-}; shift 2 || die "--app-jar needs a file" ;;
    --lib) lib=${2:-}; shift 2 || die "--lib needs a directory" ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (usage: shale dist --out DIR)" ;;
  esac
done
[[ -n $out ]] || die "missing --out DIR: where to write the tarball"
[[ -n $jdk && -x $jdk/bin/jlink && -x $jdk/bin/jdeps ]] || die "no JDK with jlink and jdeps at '$jdk' (give --jdk or JAVA_HOME)"
[[ -f $app_jar ]] || die "no app jar at $app_jar (build it first: ./shale dist does)"
[[ -d $lib ]] || die "no dependency directory at $lib (build it first: ./shale dist does)"
command -v tar > /dev/null && command -v gzip > /dev/null || die "tar and gzip are needed"

commit=$(shale_git_commit "$source_root") \
  || die "cannot name the commit: $source_root is not a git work tree (or git is missing); a release names its commit"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$source_root" log -1 --format=%ct HEAD)}
[[ $epoch =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH must be seconds since 1970: '$epoch'"

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "$out/.shale-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
tree="$stage/shale"
mkdir -p "$tree/bin" "$tree/lib"

# The jars: the app's and its runtime dependencies, one directory, as the checkout runs them.
cp "$app_jar" "$tree/lib/shale-app.jar"
cp "$lib"/*.jar "$tree/lib/"

# The runtime: the modules the jars name (jdeps), and those they need unnamed (above).
say "finding the Java modules the jars need (jdeps)..."
modules=$("$jdk/bin/jdeps" --multi-release 25 --ignore-missing-deps --print-module-deps "$tree"/lib/*.jar) \
  || die "jdeps failed"
[[ ,$modules, == *,$extra_modules,* ]] || modules+=",$extra_modules"
say "linking a Java runtime of $modules (jlink)..."
"$jdk/bin/jlink" --add-modules "$modules" --output "$tree/runtime" --no-header-files --no-man-pages --compress=zip-6 \
  || die "jlink failed (a JDK 25 without its jmods links from its own run-time image: use the JDK itself, unmodified)"

# The launcher, the JVM flags it shares with the checkout's, and the commit it names.
cp "$source_root/launcher/release-shale" "$tree/bin/shale"
cp "$source_root/launcher/jvm-options.sh" "$tree/lib/jvm-options.sh"
echo "$commit" > "$tree/lib/commit"
chmod 755 "$tree/bin/shale"

# What an operator reads and installs from: the docs and the deploy recipes.
mkdir -p "$tree/docs"
cp "$source_root/README.md" "$tree/"
cp "$source_root"/docs/*.md "$tree/docs/"
cp -R "$source_root/deploy" "$tree/deploy"
find "$tree/deploy" -name 'shale-*.tar.gz' -delete # a release put beside the Containerfile is not part of the next

# The version, by the app's own rule, from the release itself: this also checks that it runs.
version_output=$(env -i PATH=/usr/bin:/bin "$tree/bin/shale" --version) || die "the release does not run: $tree/bin/shale --version failed"
version_line=${version_output%%$'\n'*}
version=${version_line#shale }
[[ $version =~ ^[0-9A-Za-z.+-]+$ ]] || die "unexpected version line from the release: '$version_line'"
name="shale-$version"
mv "$tree" "$stage/$name"

tarball="$out/$name.tar.gz"
say "writing $tarball..."
(cd "$stage" && tar --create --format=gnu --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  --mode='u+rw,go-w,go+rX' "$name") | gzip --no-name > "$stage/$name.tar.gz"
mv -f "$stage/$name.tar.gz" "$tarball"
echo "$tarball"
