#!/bin/sh
# docs/tutorial.md's "Write your own scenario", followed as a reader would
# (issue #30): `explain --toml` writes a copy named as the reader's own
# (my-dirty-migration, so later output never names the catalogue story),
# which runs as the original does; the tutorial's [crash] and step, put in
# it, run and hold.
# Usage: tutorial_own_story.sh faultline source_dir dir
set -u
faultline=$1
source=$2
dir=$3
fail() { echo "tutorial_own_story: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
tutorial="$source/docs/tutorial.md"
grep -q "explain dirty-migration --toml > my-story.toml" "$tutorial" ||
  fail "the tutorial no longer starts from explain dirty-migration --toml"
"$faultline" explain dirty-migration --toml >"$dir/my-story.toml" || fail "explain --toml failed"
"$faultline" run "$dir/my-story.toml" >"$dir/run.txt" 2>&1
[ $? -eq 0 ] || fail "the copy does not run as the story does: $(tail -3 "$dir/run.txt")"
head -1 "$dir/run.txt" | grep -q "^my-dirty-migration (seed 1): " ||
  fail "the copy's run names another story: $(head -1 "$dir/run.txt")"
# The tutorial's two TOML blocks of that section, in order: the [crash]
# replaces the copy's, the step is added.
blocks=$(awk '/^## 3\./{on=1} /^## 4\./{on=0} on' "$tutorial" |
  awk '/^```toml/{inside=1; n++; next} /^```/{inside=0} inside {print n "\t" $0}')
crash=$(echo "$blocks" | sed -n 's/^1\t//p')
step=$(echo "$blocks" | sed -n 's/^2\t//p')
echo "$crash" | grep -q '^\[crash\]' || fail "the tutorial's first block is not a [crash]"
echo "$step" | grep -q '^\[\[step\]\]' || fail "the tutorial's second block is not a [[step]]"
awk -v crash="$crash" '
  /^\[crash\]/ { print crash; skip = 1; next }
  skip && /^(\[|$)/ { skip = 0 }
  !skip { print }' "$dir/my-story.toml" >"$dir/changed.toml"
printf '\n%s\n' "$step" >>"$dir/changed.toml"
"$faultline" run "$dir/changed.toml" >"$dir/changed.txt" 2>&1
[ $? -eq 0 ] || fail "the tutorial's story does not run as it says: $(tail -12 "$dir/changed.txt")"
grep -q 'ok   output contains "Object Not Found"' "$dir/changed.txt" ||
  fail "the tutorial's expectation does not hold: $(tail -12 "$dir/changed.txt")"
exit 0
