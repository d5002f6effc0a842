#!/bin/sh
# explore stopped (issue #29): Ctrl-C or SIGTERM to the command alone stops
# its workers, and what was found is written whole and marked interrupted;
# a second Ctrl-C ends it at once, without summary.json (incomplete). No
# worker outlives it either way. Usage: faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_interrupt: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
# Its processes: those whose command line names its --out.
left() { pgrep -f -- "--out $1" | wc -l; }
start() {
  "$faultline" explore "$story" --runs 100000 --jobs 2 --out "$1" >"$1.out" 2>"$1.err" &
  pid=$!
  # Until its workers run (the first progress line), at most 60 s.
  tries=0
  while ! grep -q "runs/s" "$1.err" 2>/dev/null && [ $tries -lt 600 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
}
for signal in INT TERM; do
  out="$dir/stopped-$signal"
  start "$out"
  kill -s "$signal" "$pid"
  wait "$pid"
  status=$?
  [ $status -eq 1 ] || [ $status -gt 128 ] || fail "SIGTERM/SIGINT: exit status $status"
  [ -s "$out/summary.json" ] || fail "$signal: no summary.json: $(cat "$out.err")"
  grep -q '"interrupted":true' "$out/summary.json" || fail "$signal: not marked interrupted"
  grep -q '^interrupted: ' "$out.out" || [ $status -gt 128 ] || fail "$signal: the report does not say so"
  [ "$(left "$out")" -eq 0 ] || fail "$signal: a worker outlived the command"
done
out="$dir/twice"
start "$out"
kill -s INT "$pid"
sleep 0.1  # Two signals sent at once may arrive as one; the writing takes longer.
kill -s INT "$pid"
wait "$pid"
status=$?
[ $status -gt 128 ] || fail "a second Ctrl-C: exit status $status"
[ ! -e "$out/summary.json" ] || fail "a second Ctrl-C left summary.json (complete)"
sleep 1
[ "$(left "$out")" -eq 0 ] || fail "a worker outlived a second Ctrl-C"
exit 0
