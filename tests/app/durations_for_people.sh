#!/bin/sh
# Durations in text output are as people write them (issue #30): no
# command's text, for any catalogue story, holds a duration or a time with
# more than 3 decimals ("480.000000000s" was). run (with its timeline),
# explain, demo, the explore report and its timeline.txt, check-migrations.
# Usage: durations_for_people.sh faultline source_dir dir
set -u
faultline=$1
source=$2
dir=$3
fail() { echo "durations_for_people: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
out="$dir/all.txt"
: >"$out"
stories=$("$faultline" list | sed -n 's/^  \([a-z0-9-]*\) .*/\1/p')
[ -n "$stories" ] || fail "faultline list named no story"
for story in $stories; do
  "$faultline" run "$story" --timeline >>"$out" 2>&1
  "$faultline" explain "$story" >>"$out" 2>&1
done
"$faultline" demo >>"$out" 2>&1
"$faultline" explore "$source/tests/scenarios/files/slow-migration.toml" --runs 40 \
  --out "$dir/explore" >>"$out" 2>&1
cat "$dir"/explore/group-*/timeline.txt "$dir"/explore/group-*/repro.toml >>"$out"
"$faultline" check-migrations "$source/tests/check-migrations/corpus/destructive" >>"$out" 2>&1
lines=$(wc -l <"$out")
[ "$lines" -gt 1000 ] || fail "too little output to judge ($lines lines)"
if grep -nE '[0-9]\.[0-9]{4,}(s|ms|us|m|h)\b' "$out" | head -5 | grep .; then
  fail "a duration with more than 3 decimals (above)"
fi
exit 0
