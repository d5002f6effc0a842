#!/bin/sh
# merge refuses what is not one exploration's shards, each once, with exit
# status 2 and a message: a shard given twice, shards of other explorations,
# a malformed groups.tsv. And the bounds and --expectations travel with the
# shards. Usage: faultline dir
set -u
faultline=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
run() { "$faultline" "$@" >/dev/null 2>&1; echo $?; }
[ "$(run explore dirty-migration-fixed --runs 6 --batch 2 --shard 0/2 --max-events 2 --out "$dir/a")" = 0 ] || exit 1
[ "$(run explore dirty-migration-fixed --runs 6 --batch 2 --shard 1/2 --max-events 2 --out "$dir/b")" = 0 ] || exit 1
[ "$(run explore dirty-migration-fixed --runs 6 --batch 2 --shard 1/2 --out "$dir/c")" = 0 ] || exit 1
grep -q "^max_events	2$" "$dir/a/groups.tsv" || { echo "the bound is not in groups.tsv"; exit 1; }
grep -q "^shard	1/2$" "$dir/b/groups.tsv" || { echo "the shard is not in groups.tsv"; exit 1; }
[ "$(run merge "$dir/a" "$dir/a" --out "$dir/m1")" = 2 ] || { echo "a shard twice"; exit 1; }
# The kinds of fault event drawn (--faults) travel too: a shard that drew
# other kinds is of another exploration, and the merge says which.
[ "$(run explore dirty-migration-fixed --runs 6 --batch 2 --shard 1/2 --max-events 2 --faults latency,loss --out "$dir/k")" = 0 ] || exit 1
grep -q "^faults	latency,loss$" "$dir/k/groups.tsv" || { echo "the kinds are not in groups.tsv"; exit 1; }
"$faultline" merge "$dir/a" "$dir/k" --out "$dir/mk" 2>"$dir/mk.err" >/dev/null
[ $? -eq 2 ] || { echo "shards of other kinds were merged"; exit 1; }
grep -q "faults latency,loss" "$dir/mk.err" || { echo "the refusal did not name the kinds"; exit 1; }
[ "$(run merge "$dir/a" "$dir/c" --out "$dir/m2")" = 2 ] || { echo "other bounds"; exit 1; }
mkdir -p "$dir/bad" && printf 'scenario\tdirty-migration-fixed\ngroup\tx\n' > "$dir/bad/groups.tsv"
[ "$(run merge "$dir/a" "$dir/bad" --out "$dir/m3")" = 2 ] || { echo "a malformed file"; exit 1; }
# Shards of another build of faultline, or of another version of the
# story, are refused, and the message says which (the build is the
# executable's GNU build id; a second build is stood in for by its line).
cp -r "$dir/b" "$dir/other-build"
sed -i 's/^build\t.*/build\t0123abcd/' "$dir/other-build/groups.tsv"
"$faultline" merge "$dir/a" "$dir/other-build" --out "$dir/mb" 2>"$dir/mb.err" >/dev/null
[ $? -eq 2 ] && grep -q "another build of faultline (build 0123abcd)" "$dir/mb.err" ||
  { echo "shards of two builds were merged: $(cat "$dir/mb.err")"; exit 1; }
"$faultline" merge "$dir/other-build" --allow-missing --out "$dir/mb2" 2>"$dir/mb2.err" >/dev/null
[ $? -eq 2 ] && grep -q "another build" "$dir/mb2.err" ||
  { echo "another build's shard was shrunk by this one"; exit 1; }
cp -r "$dir/b" "$dir/other-story"
sed -i 's/^scenario_digest\t.*/scenario_digest\t00000000/' "$dir/other-story/groups.tsv"
"$faultline" merge "$dir/a" "$dir/other-story" --out "$dir/ms" 2>"$dir/ms.err" >/dev/null
[ $? -eq 2 ] && grep -q "another version of dirty-migration-fixed" "$dir/ms.err" ||
  { echo "shards of two versions of the story were merged: $(cat "$dir/ms.err")"; exit 1; }
[ ! -e "$dir/mb" ] && [ ! -e "$dir/ms" ] || { echo "a refused merge left its --out"; exit 1; }
# A shard stopped before its last run (Ctrl-C) is merged, saying what the
# merge lacks and how to finish it; a --time exploration without --runs
# plays what fits, and nothing is said.
cp -r "$dir/b" "$dir/stopped"
sed -i 's/^runs_done\t.*/runs_done\t0/' "$dir/stopped/groups.tsv"
"$faultline" merge "$dir/a" "$dir/stopped" --out "$dir/mt" 2>"$dir/mt.err" >/dev/null
[ $? -eq 0 ] && grep -q "shard 1/2 stopped after 0 of its 2 runs (.faultline explore --resume .*): the merge holds only the runs it played" "$dir/mt.err" ||
  { echo "a stopped shard was merged as whole: $(cat "$dir/mt.err")"; exit 1; }
for shard in 0 1; do
  [ "$(run explore dirty-migration-fixed --time 1s --shard $shard/2 --out "$dir/t$shard")" = 0 ] || exit 1
done
# The report says that --time ended it, and after how many of the runs asked.
"$faultline" explore dirty-migration-fixed --runs 100000 --time 1s --out "$dir/tr" >"$dir/tr.out" 2>/dev/null
grep -q "^the --time limit ended it after [0-9]* of the 100000 runs asked$" "$dir/tr.out" ||
  { echo "a --time stop was not said: $(cat "$dir/tr.out")"; exit 1; }
"$faultline" merge "$dir/t0" "$dir/t1" --out "$dir/tm" 2>"$dir/tm.err" >/dev/null
[ $? -eq 0 ] && ! grep -q "stopped after" "$dir/tm.err" ||
  { echo "a --time exploration's shards were taken for stopped ones: $(cat "$dir/tm.err")"; exit 1; }
[ "$(run merge "$dir/a" "$dir/b" --out "$dir/m4")" = 0 ] || { echo "the good merge failed"; exit 1; }
grep -q "^max_events	2$" "$dir/m4/groups.tsv" || { echo "the merge lost the bound"; exit 1; }
# Some shards alone: refused (and no --out left behind), unless
# --allow-missing, which says which are missing.
[ "$(run merge "$dir/a" --out "$dir/m5")" = 2 ] || { echo "a missing shard was not refused"; exit 1; }
[ ! -e "$dir/m5" ] || { echo "a refused merge left its --out behind"; exit 1; }
"$faultline" merge "$dir/a" --allow-missing --out "$dir/m6" 2>"$dir/m6.err" >/dev/null
[ $? -eq 0 ] || { echo "--allow-missing failed"; exit 1; }
grep -q "1/2 missing" "$dir/m6.err" || { echo "--allow-missing did not say which shard is missing"; exit 1; }
