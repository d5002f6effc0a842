#!/bin/sh
# explore's report reads top-down (issue #29): each failure (what failed
# first, in its own words: no '*'), then at most --top of its groups, the
# most runs first, each with the command that replays its repro; the same
# in summary.json's "failures". Usage: faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_report: $*"; exit 1; }
rm -rf "$dir"
report=$("$faultline" explore "$story" --runs 40 --top 1 --out "$dir" 2>/dev/null)
[ $? -eq 1 ] || fail "no failure found in 40 runs"
echo "$report" | grep -q '^[a-z][a-z-]* failed: ' || fail "no failure heading: $report"
headings=$(echo "$report" | grep -c '^[a-z][a-z-]* failed: ')
replays=$(echo "$report" | grep -c 'faultline run ')
[ "$replays" -eq "$headings" ] || fail "--top 1 showed $replays groups under $headings failures"
echo "$report" | grep '^[a-z][a-z-]* failed: ' | grep -q '\*' && fail "a heading keeps a '*': $report"
# Slow-migration's first 40 runs fail one way from several fault sets
# (how many depends on the store's I/O, which the draws land on).
echo "$report" | grep -q '^  and [1-9][0-9]* more group(s)' || fail "the groups --top leaves out are not said: $report"
grep -q '"failures":\[{"checker":' "$dir/summary.json" || fail "summary.json has no failures"
# A repro records its failure, and run says that it reproduced it.
grep -q '^recorded = { checker = ' "$dir/group-1/repro.toml" || fail "the repro records no failure"
"$faultline" run "$dir/group-1/repro.toml" 2>&1 | grep -q '^reproduced: ' ||
  fail "run does not say the repro reproduced its failure"
"$faultline" run "$dir/group-1/repro.toml" --json 2>/dev/null | grep -q '"recorded":{"checker":"[a-z-]*","violation":"[^"]*","build":"[0-9a-f]*","reproduced":true,"this_run":{' ||
  fail "run --json does not say the repro reproduced its failure"
grep -q "^recorded = { checker = .*, build = \"$("$faultline" version | sed -E 's/.*build ([0-9a-f]+|unknown).*/\1/')\" }" "$dir/group-1/repro.toml" ||
  fail "the repro does not say which build recorded it"
# Recorded by another build and not reproduced: run says the build may be why.
sed -E 's/^recorded = .*/recorded = { checker = "acknowledged-writes", violation = "lost", build = "0123abcd" }/' \
  "$dir/group-1/repro.toml" >"$dir/other-build.toml"
"$faultline" run "$dir/other-build.toml" 2>&1 | grep -q "recorded by build 0123abcd, and this is build " ||
  fail "run does not say a repro of another build was recorded by it"
# Another failure recorded: run says it was not reproduced, and what this run did.
sed 's/^recorded = .*/recorded = { checker = "acknowledged-writes", violation = "lost" }/' \
  "$dir/group-1/repro.toml" >"$dir/other.toml"
"$faultline" run "$dir/other.toml" --json 2>/dev/null | grep -q '"reproduced":false,"this_run":{"checker":' ||
  fail "run --json calls another failure reproduced"
"$faultline" run "$dir/other.toml" 2>&1 | grep -q '^NOT reproduced: recorded acknowledged-writes failing (lost); this run: ' ||
  fail "run does not say another failure was not reproduced"
grep -q '^== step 1: ' "$dir/group-1/timeline.txt" ||
  fail "the group's timeline.txt is not the readable one (run --timeline's)"
grep -q '"example":"' "$dir/summary.json" || fail "summary.json has no example"
# Every group is in summary.json whatever --top shows.
groups=$(grep -o '"repro":"group-[0-9]*/repro.toml"' "$dir/summary.json" | wc -l)
[ "$groups" -eq "$(ls -d "$dir"/group-* | wc -l)" ] || fail "summary.json lacks groups"
"$faultline" explore "$story" --runs 4 --top 0 --out "$dir-0" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--top 0 was not refused"
exit 0
