#!/usr/bin/env bash
# check-migrations as a user meets it: every output format is a valid file
# for the tools that read it (SARIF against the 2.1.0 schema with Debian's
# validator, JUnit and JSON parsed), every repro replays, and bad folders and
# flags are exit 2 with the place.  usage: cli_test.sh FAULTLINE
set -uo pipefail
faultline=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- Formats and repros --------------------------------------------------
out="$work/out"
"$faultline" check-migrations "$here/corpus/seed-s3" --keyspace app --runner all \
  --from "$here/corpus/seed-s3-old" --out "$out" >"$work/text" 2>"$work/err"
[ $? -eq 1 ] || fail "seed-s3: expected exit 1"
for f in report.txt report.json report.sarif report.junit.xml; do
  [ -s "$out/$f" ] || fail "--out lacks $f"
done
cmp -s "$work/text" "$out/report.txt" || fail "stdout differs from report.txt"
/usr/bin/jsonschema -i "$out/report.sarif" "$here/sarif/sarif-2.1.0-rtm.5.json" ||
  fail "report.sarif is not valid SARIF 2.1.0"
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$out/report.json" || fail "report.json"
python3 -c "import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])" "$out/report.junit.xml" ||
  fail "report.junit.xml is not XML"
grep -q 'failures="[1-9]' "$out/report.junit.xml" || fail "JUnit shows no failure"
grep -q "silent-drift" "$out/report.txt" || fail "the stale-schema upgrade is not silent-drift"
repros=0
for repro in "$out"/repro/*.toml; do
  repros=$((repros + 1))
  "$faultline" run "$repro" >"$work/replay" 2>&1
  status=$?
  # A repro fails as a run (a whole-run checker), except a lost version
  # the files' IF NOT EXISTS happened to survive: its story is the empty
  # version table its expectation shows.
  case "$repro" in
    *lost-version*) [ $status -le 1 ] || fail "$repro replays with exit $status" ;;
    *) [ $status -eq 1 ] || fail "$repro replays with exit $status, not 1" ;;
  esac
  # What the repro says a user sees holds; only whole-run checkers fail.
  if grep -E '^ +FAIL' "$work/replay" | grep -vq "checker"; then
    fail "$repro: an expectation does not hold: $(grep -E '^ +FAIL' "$work/replay" | head -2)"
  fi
done
[ $repros -ge 3 ] || fail "only $repros repro files"
# Same seed, same report.
"$faultline" check-migrations "$here/corpus/seed-s3" --keyspace app --runner all \
  --from "$here/corpus/seed-s3-old" --format json >"$work/again.json" 2>/dev/null
cmp -s "$work/again.json" "$out/report.json" || fail "a second run's report differs"
# Worker processes change nothing in the report.
"$faultline" check-migrations "$here/corpus/seed-s3" --keyspace app --runner all \
  --from "$here/corpus/seed-s3-old" --format json --jobs 2 >"$work/jobs.json" 2>/dev/null
cmp -s "$work/jobs.json" "$out/report.json" || fail "--jobs 2 gives another report"

# Bytes that are not UTF-8 never reach the outputs unescaped.
mkdir -p "$work/latin1"
printf "CREATE TABLE IF NOT EXISTS t (id text PRIMARY KEY);\nINSERT INTO t (id) VALUES ('caf\xe9');\n" \
  >"$work/latin1/1_t.up.cql"
"$faultline" check-migrations "$work/latin1" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "1_t.up.cql:2:32: not UTF-8 text (byte 0xe9)" "$work/err" ||
  fail "a Latin-1 byte: $(cat "$work/err")"

# --- Bad input: exit 2, with the place -----------------------------------
expect_bad() {  # expect_bad WHAT TEXT ARGS...
  local what=$1 text=$2
  shift 2
  "$faultline" check-migrations "$@" >"$work/out2" 2>"$work/err"
  local status=$?
  [ $status -eq 2 ] || fail "$what: exit $status, not 2"
  grep -qF -- "$text" "$work/err" || fail "$what: stderr lacks '$text': $(cat "$work/err")"
}
bad="$work/bad"
mkdir -p "$bad/empty" "$bad/names" "$bad/dup" "$bad/binary" "$bad/huge" "$bad/dir" "$bad/loop"
printf 'x' >"$bad/names/init.up.cql"
printf 'CREATE TABLE a (id int PRIMARY KEY);' >"$bad/dup/1_a.up.cql"
printf 'CREATE TABLE b (id int PRIMARY KEY);' >"$bad/dup/1_b.up.cql"
printf 'CREATE TABLE a\0 (id int PRIMARY KEY);' >"$bad/binary/1_a.up.cql"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$bad/huge/1_a.up.cql"
mkdir -p "$bad/dir/1_a.up.cql"
ln -s 1_a.up.cql "$bad/loop/1_a.up.cql"
expect_bad "no folder" "$bad/nowhere: not a folder" "$bad/nowhere"
expect_bad "empty folder" "no migration files" "$bad/empty"
expect_bad "bad name" "init.up.cql: not a migration file name" "$bad/names"
expect_bad "duplicate version" "duplicate migration file" "$bad/dup"
expect_bad "binary" "1_a.up.cql:1:15: not UTF-8 text (byte 0x00)" "$bad/binary"
expect_bad "huge" "1_a.up.cql: over the limit of 1048576 bytes of a migration file (raise it with --limit migration-file-bytes=2097152)" "$bad/huge"
# ... and a raised limit reads it (spaces alone: no statement, nothing unsafe).
"$faultline" check-migrations "$bad/huge" --static --limit migration-file-bytes=2097152 >/dev/null 2>"$work/err"
[ $? -ne 2 ] || fail "a raised --limit still refuses the file: $(cat "$work/err")"
expect_bad "a limit given twice" "--limit migration-files is given twice" "$bad/huge" \
  --limit migration-files=5 --limit migration-files=6
expect_bad "an unknown limit" "--limit: no limit 'bytes'" "$bad/huge" --limit bytes=5
printf 'faultline-sum 1\n' >"$work/small.sum"
expect_bad "a sum file over its limit" "over the limit of 8 bytes of a sum file (raise it with --limit sum-file-bytes=16)" \
  "$here/corpus/seed-kuri" --sum "$work/small.sum" --limit sum-file-bytes=8
expect_bad "a folder named as a file" "1_a.up.cql: not a regular file" "$bad/dir"
expect_bad "symlink loop" "1_a.up.cql: cannot read" "$bad/loop"
expect_bad "unknown flag" "unknown option --frmo" "$here/corpus/seed-kuri" --frmo x
expect_bad "repeated flag" "--runner is given twice" "$here/corpus/seed-kuri" --runner safe --runner safe
expect_bad "bad runner" "--runner is golang-migrate, safe, db-init or all" "$here/corpus/seed-kuri" --runner flyway
expect_bad "bad format" "--format is text, json, sarif, junit or github" "$here/corpus/seed-kuri" --format yaml
expect_bad "bad jobs" "--jobs is from 1 to 64" "$here/corpus/seed-kuri" --jobs 0
expect_bad "bad replicas" "--replicas is from 1 to 16" "$here/corpus/seed-kuri" --replicas 17
expect_bad "proxy keyspace" "filecoingw_s3 is the simulated proxy's own keyspace" \
  "$here/corpus/seed-kuri" --keyspace filecoingw_s3
expect_bad "unknown --from version" "--from: the folder has no version 7" "$here/corpus/seed-kuri" --from 7
printf 'faultline-sum 1\n1_a.up.cql md5:00\n' >"$work/bad.sum"
expect_bad "bad sum file" "bad.sum:2:12: expected 'fnv1a64:'" "$here/corpus/seed-kuri" --sum "$work/bad.sum"
printf 'not a sum\n' >"$work/bad2.sum"
expect_bad "not a sum file" "bad2.sum:1:1: expected 'faultline-sum 1'" "$here/corpus/seed-kuri" --sum "$work/bad2.sum"
expect_bad "used --out" "exists and is not empty" "$here/corpus/seed-kuri" --out "$out"

# --- --since: the gate judges what a change adds -------------------------
# A shipped file that cannot run twice (two ALTERs), then a new idempotent
# one: the whole folder fails the gate, the change passes it, by version
# and by git revision; a new file numbered below the shipped ones is named.
repo="$work/repo"
mkdir -p "$repo/db/migrations"
printf 'CREATE TABLE IF NOT EXISTS users (id text PRIMARY KEY);\n' >"$repo/db/migrations/1_users.up.cql"
printf 'ALTER TABLE users ADD email text;\nALTER TABLE users ADD age int;\n' \
  >"$repo/db/migrations/2_details.up.cql"
git -C "$repo" init -q && git -C "$repo" add . &&
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm shipped || fail "git commit"
printf 'CREATE TABLE IF NOT EXISTS buckets (name text PRIMARY KEY);\n' \
  >"$repo/db/migrations/3_buckets.up.cql"
"$faultline" check-migrations "$repo/db/migrations" --keyspace app >/dev/null 2>&1
[ $? -eq 1 ] || fail "--since: the whole folder should fail the gate"
for since in 2 HEAD; do
  "$faultline" check-migrations "$repo/db/migrations" --keyspace app --since $since --format json \
    >"$work/since.json" 2>"$work/err"
  [ $? -eq 0 ] || fail "--since $since: exit not 0: $(tail -2 "$work/err")"
  python3 -c "
import json, sys
report = json.load(open(sys.argv[1]))
judged = [f['file'] for f in report['dynamic'] + report['static']]
sys.exit('2_details.up.cql' in judged)" "$work/since.json" || fail "--since $since judges a shipped file"
done
"$faultline" check-migrations "$repo/db/migrations" --keyspace app --since 3 >"$work/out2" 2>&1
grep -q "nothing new to judge" "$work/out2" || fail "--since 3: $(cat "$work/out2")"
printf 'CREATE TABLE IF NOT EXISTS early (id text PRIMARY KEY);\n' \
  >"$repo/db/migrations/0_early.up.cql"
expect_bad "a new file below the shipped ones" "0_early.up.cql is new but its version 0 is below" \
  "$repo/db/migrations" --keyspace app --since HEAD
rm "$repo/db/migrations/0_early.up.cql"
expect_bad "an unknown revision" "git cannot list" "$repo/db/migrations" --since no-such-ref
expect_bad "an option for a revision" "'-x' is no git revision" "$repo/db/migrations" --since=-x

# The config file above the folder gives defaults; flags win; a mistake
# in it is exit 2 at its place.
printf '[check-migrations]\nkeyspace = "app"\nsince = "HEAD"\n' >"$repo/.faultline.toml"
"$faultline" check-migrations "$repo/db/migrations" >/dev/null 2>"$work/err"
[ $? -eq 0 ] && grep -q "settings from $repo/.faultline.toml" "$work/err" ||
  fail "config: since = HEAD should pass: $(tail -2 "$work/err")"
"$faultline" check-migrations "$repo/db/migrations" --since 1 >/dev/null 2>&1
[ $? -eq 1 ] || fail "config: --since 1 should win over the file's since"
printf '[check-migrations]\nkeyspace = "app"\nrunnr = "safe"\n' >"$repo/.faultline.toml"
expect_bad "a config key" ".faultline.toml:3:1: [check-migrations] takes runner" "$repo/db/migrations"
rm "$repo/.faultline.toml"

# --format github: an annotation per finding the gate fails on, at its file.
"$faultline" check-migrations "$repo/db/migrations" --keyspace app --format github \
  >"$work/github" 2>/dev/null
grep -q "^::error file=$repo/db/migrations/2_details.up.cql,line=1,col=1,title=needs-repair" \
  "$work/github" || fail "github: no needs-repair annotation: $(head -3 "$work/github")"
grep -q "^::warning file=.*title=golang-migrate/dirty-until-forced::" "$work/github" ||
  fail "github: the runner's risk is no warning"
grep -q "^UNSAFE: " "$work/github" || fail "github: no text report after the annotations"
for f in report.txt report.json report.sarif report.junit.xml report.github.txt; do
  [ -s "$out/$f" ] || fail "--out lacks $f"
done

# --write-sum, then --sum of it: nothing edited, removed or out of order.
"$faultline" check-migrations "$here/corpus/seed-kuri" --static --write-sum "$work/kuri.sum" >/dev/null
"$faultline" check-migrations "$here/corpus/seed-kuri" --static --sum "$work/kuri.sum" --format json \
  >"$work/sum.json"
grep -q "applied-file" "$work/sum.json" && fail "a sum file of the folder itself finds edits"
# (Read whole first: grep -q ending the pipe early would fail it under pipefail.)
"$faultline" check-migrations --help >"$work/help"
grep -q -- "--write-sum FILE" "$work/help" || fail "--help"

# Ctrl-C says that nothing was written, once (not by its workers), exits
# 130 and leaves no --out folder and no process behind.
bash "$here/../../bench/make-folder.sh" d 100 "$work/d100" >/dev/null
env --default-signal=INT "$faultline" check-migrations "$work/d100" --jobs 2 --out "$work/stopped" \
  >/dev/null 2>"$work/stopped.err" &
pid=$!
# Once it runs (its first progress line), at most 60 s.
tries=0
while ! grep -q "runs so far" "$work/stopped.err" 2>/dev/null && [ $tries -lt 600 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
kill -INT "$pid"
wait "$pid"
status=$?
[ $status -eq 130 ] || fail "Ctrl-C: exit status $status"
[ "$(grep -c "check-migrations interrupted: no report or --out folder was written" "$work/stopped.err")" -eq 1 ] ||
  fail "Ctrl-C: not said once: $(cat "$work/stopped.err")"
[ ! -e "$work/stopped" ] || fail "Ctrl-C left an --out folder"
sleep 0.5
! pgrep -f -- "--out $work/stopped" >/dev/null || fail "Ctrl-C left a process behind"

[ $failures -eq 0 ] && echo "check-migrations CLI: all passed" || echo "$failures failed"
exit $((failures > 0))
