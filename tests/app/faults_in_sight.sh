#!/bin/sh
# run shows every fault that fired (issue #30): for each catalogue story,
# one "! fault fired" line per fault.fire event of its trace, and a story
# with faults shows some.
# Usage: faults_in_sight.sh faultline dir
set -u
faultline=$1
dir=$2
fail() { echo "faults_in_sight: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
stories=$("$faultline" list | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
[ -n "$stories" ] || fail "faultline list named no story"
total=0
for story in $stories; do
  "$faultline" run "$story" --trace "$dir/trace.jsonl" >"$dir/out.txt" 2>&1
  fired=$(grep -c '"event":"fault.fire"' "$dir/trace.jsonl")
  shown=$(grep -c '^    ! fault fired: ' "$dir/out.txt")
  [ "$fired" -eq "$shown" ] || fail "$story: $fired fault(s) fired, $shown shown"
  total=$((total + fired))
done
[ "$total" -gt 0 ] || fail "no catalogue story fired a fault: nothing was checked"
exit 0
