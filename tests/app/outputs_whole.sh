#!/bin/bash
# Outputs are whole or absent (issue #25). A write that fails by design (a
# file size limit, as a full disk would) makes explore, merge,
# check-migrations, report and run --trace exit 2 with a message and leave
# no file behind; two explorations given one --out at once: one runs, the
# other is refused.
# usage: outputs_whole.sh FAULTLINE SOURCE_DIR WORKDIR
set -u
faultline=$(realpath "$1")
source=$(realpath "$2")
work=$(realpath -m "$3")
rm -rf "$work" && mkdir -p "$work/full" || exit 1
story=$source/tests/scenarios/files/slow-migration.toml
fail() { echo "outputs_whole: $*"; exit 1; }

for i in 0 1; do
  "$faultline" explore "$story" --runs 20 --shard $i/2 --out "$work/shard-$i" >/dev/null 2>&1
  [ $? -le 1 ] || fail "the shard $i/2 to merge could not be made"
done

# full NAME COMMAND...: run it where no file may grow past 4 KiB (SIGXFSZ
# ignored, so a write fails with EFBIG as on a full disk).
full() {
  local name=$1
  shift
  (trap '' XFSZ; ulimit -f 4; "$@") >/dev/null 2>"$work/$name.err"
  local status=$?
  [ $status -eq 2 ] || fail "$name: exit $status on a full disk, expected 2"
  grep -q "cannot write" "$work/$name.err" || fail "$name: no message saying what could not be written"
}
full explore "$faultline" explore "$story" --runs 20 --out "$work/full/explore"
full merge "$faultline" merge "$work/shard-0" "$work/shard-1" --out "$work/full/merged"
full check-migrations "$faultline" check-migrations "$source/tests/check-migrations/corpus/destructive" \
  --out "$work/full/check"
full report "$faultline" report stale-schema -o "$work/full/report.html"
full run-trace "$faultline" run stale-schema --trace "$work/full/trace.jsonl"
# Without --out: not even the faultline-results/ folder it made is left.
(cd "$work/full" && full explore-default "$faultline" explore "$story" --runs 20) || exit 1
left=$(find "$work/full" -mindepth 1)
[ -z "$left" ] || fail "pieces left behind on a full disk: $left"

# Two explorations on one --out at once (the first runs for seconds, longer
# than the second waits for a lock a killed command's workers may still
# hold: 2 s).
# (--time: about 6 s of runs whatever the build's speed, ASan's included.)
"$faultline" explore dirty-migration-fixed --runs 100000 --time 6s --out "$work/shared" >/dev/null 2>&1 &
first=$!
for _ in $(seq 1 100); do [ -d "$work/shared.partial" ] && break; sleep 0.05; done
sleep 0.3  # The folder is made, then locked: let the lock follow.
"$faultline" explore dirty-migration-fixed --runs 2 --out "$work/shared" >/dev/null 2>"$work/second.err"
second=$?
wait $first
first_status=$?
[ $second -eq 2 ] || fail "the second exploration on one --out: exit $second, expected 2"
grep -q "in use by another faultline" "$work/second.err" || fail "the refusal does not say why: $(cat "$work/second.err")"
[ $first_status -le 1 ] || fail "the first exploration failed: exit $first_status"
[ -s "$work/shared/summary.json" ] || fail "the first exploration's results are not whole"
grep -q '"scenario":"dirty-migration-fixed"' "$work/shared/summary.json" ||
  fail "summary.json is not the first exploration's"
# check-migrations --out with a trailing slash (as a shell completes it).
"$faultline" check-migrations "$source/tests/check-migrations/corpus/destructive" \
  --out "$work/check/" >/dev/null 2>&1
[ $? -le 1 ] && [ -s "$work/check/report.json" ] || fail "check-migrations --out DIR/ failed"
# A trace to /dev/stdout, when standard output is a file, stays in that file
# with the report after it.
"$faultline" run stale-schema --trace /dev/stdout >"$work/stdout.txt" 2>/dev/null
grep -q '"event":"process.start"' "$work/stdout.txt" && grep -q "trace hash" "$work/stdout.txt" ||
  fail "a trace to /dev/stdout lost what followed it"

# A folder an earlier, killed exploration left groups in is refused, and
# nothing in it is touched.
mkdir -p "$work/killed/group-1" && echo mine > "$work/killed/group-1/notes.txt"
"$faultline" explore dirty-migration-fixed --runs 2 --out "$work/killed" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a folder holding an earlier run's groups was not refused"
[ -f "$work/killed/group-1/notes.txt" ] || fail "explore removed a folder it did not make"
# FOLDER.partial that is not faultline's is never emptied: refused, kept.
mkdir -p "$work/theirs.partial" && echo mine > "$work/theirs.partial/notes.txt"
"$faultline" explore dirty-migration-fixed --runs 2 --out "$work/theirs" >/dev/null 2>"$work/theirs.err"
[ $? -eq 2 ] && grep -q "not faultline's" "$work/theirs.err" || fail "someone's FOLDER.partial was not refused"
[ -f "$work/theirs.partial/notes.txt" ] || fail "explore emptied a FOLDER.partial that was not its own"
# The current folder cannot be the results folder (they are moved into it).
mkdir -p "$work/here" && (cd "$work/here" && "$faultline" explore dirty-migration-fixed --runs 2 --out . >/dev/null 2>"$work/here.err")
[ $? -eq 2 ] && grep -q "current folder" "$work/here.err" || fail "--out . was not refused: $(cat "$work/here.err")"
[ -d "$work/here" ] && [ -z "$(ls -A "$work/here")" ] || fail "--out . changed the current folder"
echo "outputs are whole or absent"
