#!/bin/sh
# explore --resume (issue #29): an exploration SIGKILLed mid-run leaves no
# worker behind and no half folder at its --out (only OUT.partial, with the
# journal of the batches played); --resume continues it to the result of an
# exploration that never stopped, byte for byte but for the wall time. So
# does one interrupted (Ctrl-C, completed and marked), and one whose journal
# ends in a torn record. The same command run again without --resume starts
# over, and says so (a retried pod). What --resume cannot continue is
# refused with exit 2, the folder untouched.
# Usage: explore_resume.sh faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_resume: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cp "$story" "$dir/story.toml" || exit 1
story="$dir/story.toml"
runs=320
"$faultline" explore "$story" --runs $runs --out "$dir/whole" >/dev/null 2>&1
[ $? -eq 1 ] || fail "the uninterrupted exploration found nothing"
# The results but for the wall time and the rate.
same() {
  diff -r -x summary.json "$dir/whole" "$1" >/dev/null || fail "$2: not the uninterrupted result"
  for f in "$dir/whole" "$1"; do
    sed -E 's/"wall_time_ms":[0-9.]+,"runs_time_ms":[0-9.]+,"runs_per_second":[0-9.]+//' "$f/summary.json" >"$f.summary"
  done
  cmp -s "$dir/whole.summary" "$1.summary" || fail "$2: another summary.json"
  [ ! -e "$1/journal" ] || fail "$2: the journal outlived a finished exploration"
}
left() { pgrep -f -- "--out $1" | wc -l; }
# Waits (30 s at most) until the exploration into $1 has a batch in its journal.
a_batch_played() {
  tries=0
  while ! cat "$1.partial"/journal/runs-* 2>/dev/null | grep -q '^played' && [ $tries -lt 600 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
}
# Starts an exploration of `runs` and kills it (SIGKILL, the parent alone)
# once a batch is in its journal, before it ends.
killed() {
  "$faultline" explore "$story" --runs $runs --jobs 2 --out "$1" >/dev/null 2>&1 &
  pid=$!
  a_batch_played "$1"
  kill -s KILL "$pid"
  wait "$pid" 2>/dev/null
  sleep 0.5
  [ "$(left "$1")" -eq 0 ] || fail "a worker outlived its killed parent"
  [ ! -e "$1" ] || fail "a killed exploration left a folder at its --out"
  [ -d "$1.partial/journal" ] || fail "a killed exploration left no journal"
}

killed "$dir/killed"
# (As a shell completes it: a trailing '/'.)
"$faultline" explore --resume "$dir/killed/" >/dev/null 2>"$dir/killed.err"
[ $? -eq 1 ] || fail "resumed: exit status $?: $(cat "$dir/killed.err")"
grep -q "^resuming .*run(s) played before" "$dir/killed.err" || fail "resumed: it does not say what it continues"
same "$dir/killed" "resumed after SIGKILL"
[ ! -e "$dir/killed.partial" ] || fail "resumed: the staging folder is left"

# A torn last record (a write cut by the kill) is dropped, that batch played again.
killed "$dir/torn"
file=$(ls "$dir/torn.partial"/journal/runs-* | head -1)
printf 'group\t7\t1\tconver' >>"$file"
"$faultline" explore --resume "$dir/torn.partial" --jobs 2 >/dev/null 2>&1
same "$dir/torn" "resumed after a torn record"

# Killed while it wrote its groups: what it wrote is made again.
killed "$dir/writing"
mkdir -p "$dir/writing.partial/group-1" && echo half >"$dir/writing.partial/group-1/repro.toml"
"$faultline" explore --resume "$dir/writing.partial/" >/dev/null 2>"$dir/writing.err" ||
  [ $? -eq 1 ] || fail "killed while writing: $(cat "$dir/writing.err")"
same "$dir/writing" "resumed after a kill while writing its groups"

# Explored for a time: continued only for a time.
"$faultline" explore "$story" --time 60s --jobs 2 --out "$dir/timed" >/dev/null 2>&1 &
pid=$!
a_batch_played "$dir/timed"
kill -s KILL "$pid"
wait "$pid" 2>/dev/null
"$faultline" explore --resume "$dir/timed" >/dev/null 2>"$dir/timed.err"
[ $? -eq 2 ] && grep -q "give --time again" "$dir/timed.err" ||
  fail "a timed exploration resumed without a time: $(cat "$dir/timed.err")"
"$faultline" explore --resume "$dir/timed" --time 1s >/dev/null 2>&1
[ $? -le 1 ] && [ -s "$dir/timed/summary.json" ] || fail "a timed exploration did not resume with --time"

# Interrupted: complete, marked, and continued.
env --default-signal=INT "$faultline" explore "$story" --runs $runs --out "$dir/stopped" \
  >/dev/null 2>&1 &
pid=$!
a_batch_played "$dir/stopped"
kill -s INT "$pid"
wait "$pid"
grep -q '"interrupted":true' "$dir/stopped/summary.json" || fail "Ctrl-C: not marked interrupted"
"$faultline" explore --resume "$dir/stopped" >/dev/null 2>&1
same "$dir/stopped" "resumed after Ctrl-C"
"$faultline" explore --resume "$dir/stopped" >/dev/null 2>"$dir/done.err"
[ $? -eq 2 ] && grep -q "nothing to resume" "$dir/done.err" || fail "a finished exploration resumed"

# The same command again, without --resume: it starts over, and says so.
killed "$dir/retried"
"$faultline" explore "$story" --runs $runs --out "$dir/retried" >/dev/null 2>"$dir/retried.err"
grep -q "starting over" "$dir/retried.err" || fail "a retry did not say it started over"
same "$dir/retried" "retried"

# Refused, exit 2, the folder left as it was.
refused() {
  "$@" >/dev/null 2>"$dir/refused.err"
  [ $? -eq 2 ] || fail "not refused: $*"
}
refused "$faultline" explore --resume "$dir/nothing-here"
killed "$dir/changed"
refused "$faultline" explore --resume "$dir/changed" --runs 5
grep -q "\-\-runs" "$dir/refused.err" || fail "the refusal of --runs does not name it"
refused "$faultline" explore "$story" --resume "$dir/changed"
sed -i 's/^title = .*/title = "changed since"/' "$story"
refused "$faultline" explore --resume "$dir/changed"
grep -q "has changed since it was explored" "$dir/refused.err" || fail "a changed story: $(cat "$dir/refused.err")"
[ -d "$dir/changed.partial/journal" ] || fail "a refused resume touched the folder"
exit 0
