#!/usr/bin/env bash
# Writes the generated migration folders docs/BENCHMARKS.md measures
# check-migrations on, so its figures can be measured again anywhere:
#   bench/make-folder.sh d 100 /tmp/d100   # 100 files of three CREATE TABLE IF NOT EXISTS
#   bench/make-folder.sh f 100 /tmp/f100   # 100 files of CREATE, ALTER ADD, INSERT
# `d` folders pass the default gate (every statement can run twice); `f`
# folders are bench/three_statement_folder.h's, every file unsafe (an ALTER
# ADD cannot run twice).
set -euo pipefail
usage() { echo "usage: $0 d|f FILES DIR" >&2; exit 2; }
[[ $# -eq 3 ]] || usage
shape=$1 files=$2 dir=$3
[[ $shape == d || $shape == f ]] || usage
[[ $files =~ ^[1-9][0-9]{0,4}$ ]] || { echo "$0: FILES must be 1 to 99999, got '$files'" >&2; exit 2; }
if [[ -e $dir ]] && [[ -n $(ls -A "$dir") ]]; then
  echo "$0: $dir exists and is not empty; remove it first" >&2
  exit 2
fi
mkdir -p "$dir"
for ((i = 1; i <= files; i++)); do
  file=$(printf '%s/%05d_t%d.up.cql' "$dir" "$i" "$i")
  if [[ $shape == d ]]; then
    printf 'CREATE TABLE IF NOT EXISTS t%d_%s (id text PRIMARY KEY, v int);\n' \
      "$i" a "$i" b "$i" c >"$file"
  else
    printf 'CREATE TABLE IF NOT EXISTS t%d (id text PRIMARY KEY, v int);\nALTER TABLE t%d ADD extra text;\nINSERT INTO t%d (id, v) VALUES ('"'"'a'"'"', %d);\n' \
      "$i" "$i" "$i" "$i" >"$file"
  fi
done
echo "$files files in $dir"
