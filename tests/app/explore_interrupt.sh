#!/bin/sh
# explore stopped (issue #29): Ctrl-C or SIGTERM to the command alone stops
# its workers, and what was found is written whole and marked interrupted;
# a second Ctrl-C ends it at once, without summary.json (incomplete), but not
# one that comes with the first (sent to the command and its group). No
# worker outlives it either way. Usage: faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_interrupt: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
# A signal ignored at the start stays ignored (nohup): explore runs on.
"$faultline" explore "$story" --runs 40 --out "$dir/ignored" >/dev/null 2>&1 &
ignored=$!
sleep 0.5
kill -s INT "$ignored" 2>/dev/null
wait "$ignored"
[ $? -eq 1 ] || fail "an ignored SIGINT stopped it"
grep -q '"interrupted":false' "$dir/ignored/summary.json" || fail "an ignored SIGINT marked it interrupted"
# Its processes: those whose command line names its --out.
left() { pgrep -f -- "--out $1" | wc -l; }
start() {
  # (A script's background job starts with SIGINT ignored, and explore
  # keeps a signal ignored at its start: as a terminal's job, it is not.)
  env --default-signal=INT "$faultline" explore "$story" --runs 100000 --jobs 2 --out "$1" \
    >"$1.out" 2>"$1.err" &
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
  grep -q '^interrupted: ' "$out.out" || fail "$signal: the report does not say so"
  runs=$(grep -o '"runs":[0-9]*' "$out/summary.json" | head -1 | cut -d: -f2)
  [ "$runs" -lt 100000 ] || fail "$signal: it played every run ($runs)"
  [ "$(left "$out")" -eq 0 ] || fail "$signal: a worker outlived the command"
done
# One Ctrl-C sent to the command and then to its group, as `timeout -s INT`
# sends it, arrives twice at once: one stop, its results written whole.
out="$dir/sent-twice-at-once"
start "$out"
kill -s INT "$pid" "$pid"
wait "$pid"
status=$?
[ $status -eq 1 ] || [ $status -gt 128 ] || fail "a signal sent twice at once: exit status $status"
[ -s "$out/summary.json" ] || fail "a signal sent twice at once stopped it at once: $(cat "$out.err")"
grep -q '"interrupted":true' "$out/summary.json" || fail "sent twice at once: not marked interrupted"
[ "$(left "$out")" -eq 0 ] || fail "sent twice at once: a worker outlived the command"
out="$dir/twice"
start "$out"
kill -s INT "$pid"
sleep 0.1  # After the 50 ms in which a second signal is the same stop; the writing takes longer.
kill -s INT "$pid"
wait "$pid"
status=$?
[ $status -gt 128 ] || fail "a second Ctrl-C: exit status $status"
[ ! -e "$out/summary.json" ] || fail "a second Ctrl-C left summary.json (complete)"
sleep 1
[ "$(left "$out")" -eq 0 ] || fail "a worker outlived a second Ctrl-C"
exit 0
