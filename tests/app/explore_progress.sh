#!/bin/sh
# explore's progress (issue #29) comes from every worker, and its counts
# end where the report begins: the runs played and the runs that failed,
# then the drawn groups shrunk into the report's groups.
# Usage: explore_progress.sh faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_progress: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
# Long enough for lines every two seconds on any build.
"$faultline" explore "$story" --runs 1200 --jobs 2 --out "$dir/out" >"$dir/report" 2>"$dir/progress"
[ $? -eq 1 ] || fail "nothing found"
grep -q " runs/s, [0-9]* failed, about " "$dir/progress" || fail "no progress line: $(cat "$dir/progress")"
last=$(grep " runs/s, " "$dir/progress" | tail -1)
played=$(echo "$last" | sed -E 's/^([0-9]+) of ([0-9]+) runs.*/\1 \2/')
[ "$played" = "1200 1200" ] || fail "the last progress line is not every run of both workers: $last"
failed=$(echo "$last" | sed -E 's/.* runs\/s, ([0-9]+) failed.*/\1/')
head -1 "$dir/report" | grep -q "^slow-migration: 1200 runs, $failed failed: " ||
  fail "progress said $failed failed, the report: $(head -1 "$dir/report")"
# Shrinking, when it took long enough to be shown, ends in the report's groups.
if grep -q "^shrinking " "$dir/progress"; then
  groups=$(head -1 "$dir/report" | sed -E 's/.* in ([0-9]+) group\(s\).*/\1/')
  grep -q "^shrunk [0-9]* drawn group(s) into $groups$" "$dir/progress" ||
    fail "the shrinking's last line does not end in the report's $groups groups: $(tail -2 "$dir/progress")"
fi
exit 0
