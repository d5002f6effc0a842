#!/usr/bin/env bash
# Installs the Debian 12 packages faultline needs to build and test, skipping
# those already installed. Run as root (or through sudo).
#   tools/install-deps.sh          build and test dependencies
#   tools/install-deps.sh --bench  also SimGrid, the kernel benchmark's peer
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libboost-dev      # Boost.Asio (header-only), Debian's default Boost 1.74
  libfmt-dev
  libsqlite3-dev    # the metadata store's engine (fakes/, models/)
  libgtest-dev libgmock-dev  # Debian's GTest CMake package names gmock's files too
  librapidcheck-dev
  libtomlplusplus-dev       # scenario files (TOML, with line and column for errors)
  nlohmann-json3-dev        # check-migrations' JSON and SARIF reports
  libcli11-dev              # the command line's one argument parser (header-only)
  python3-jsonschema        # the test that validates SARIF output against its schema
  clang libclang-rt-14-dev  # the parser's libFuzzer run (the suite itself builds with g++)
  parallel                  # GNU parallel: the test that spreads explore's shards with it
  slurm-wlm                 # a one-machine Slurm (and munge): explore's shards as a job array
  git                       # check-migrations --since REF reads the folder at a revision
  chromium                  # the browser test of `faultline report`'s page (headless)
  # live mode's tests: real clients against `faultline live` on loopback
  python3-cassandra         # the DataStax Python driver (CQL native protocol)
  python3-boto3 awscli s3cmd  # S3 clients
  golang-go golang-github-gocql-gocql-dev  # a gocql program, built in GOPATH mode
)
case "${1:-}" in
  --bench) packages+=(libsimgrid-dev) ;;
  "") ;;
  *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
