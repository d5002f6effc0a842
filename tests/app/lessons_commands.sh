#!/usr/bin/env bash
# Every command docs/lessons.md gives a learner runs and exits 0 (the
# catalogue's stories pass; the reports are written into OUT_DIR).
#   lessons_commands.sh FAULTLINE LESSONS_MD OUT_DIR
set -euo pipefail
faultline=$(realpath "$1")
lessons=$(realpath "$2")
out=$3
rm -rf "$out" && mkdir -p "$out" && cd "$out"
count=0
# The commands: lines of ```sh blocks that start with "faultline ", less a
# trailing "# comment". (Lesson 14's live session, in ```bash blocks, needs a
# client and a prompt: tests/live/lesson_test.sh plays it.)
while IFS= read -r line; do
  command=${line%%   #*}
  command=${command#faultline }
  count=$((count + 1))
  if ! eval "\"$faultline\" $command" >"command-$count.txt" 2>&1; then
    echo "docs/lessons.md: 'faultline $command' failed:" >&2
    tail -5 "command-$count.txt" >&2
    exit 1
  fi
done < <(awk '/^```sh/{on=1; next} /^```/{on=0} on && /^faultline /' "$lessons")
[ "$count" -ge 20 ] || { echo "only $count commands found in $lessons" >&2; exit 1; }
echo "lessons_commands: $count commands ran"
