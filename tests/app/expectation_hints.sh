#!/bin/sh
# A failed expectation says why when the reason is known (issue #30): a log
# line asked for while the node still retries its start-up in silence (it
# logs only once it gives up: the hint counts its attempts and their waits
# from its image's policy and its RETRY_ATTEMPTS: 30 over at least 6m44s
# for the seed's image, 5 over 29s (2+4+8+15) with RETRY_ATTEMPTS=5).
# Asked after it gave up, the line is there and nothing is hinted.
# Usage: expectation_hints.sh faultline dir
set -u
faultline=$1
dir=$2
fail() { echo "expectation_hints: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
story() {  # story WAIT [ATTEMPTS [DELAY_MS]]: kuri-1 crashes mid-migration; its log is asked for after WAIT.
  service=""
  if [ $# -gt 2 ]; then
    service="[[service]]
name = \"kuri-1\"
env = { RETRY_ATTEMPTS = \"$2\", RETRY_DELAY_MS = \"$3\" }"
  elif [ $# -gt 1 ]; then
    service="[[service]]
name = \"kuri-1\"
env = { RETRY_ATTEMPTS = \"$2\" }"
  fi
  printf '%s\n' 'name = "early"' 'title = "t"' "$service" '[crash]' \
    'site = "migrate.filecoingw_kuri1.statement.after"' 'hit = 1' '[[step]]' 'do = "up"' \
    '[[step]]' 'do = "wait"' "for = \"$1\"" \
    'expect = [ { log = "kuri-1", contains = "Dirty database version" } ]' >"$dir/wait-$1${2:-}.toml"
  "$faultline" run "$dir/wait-$1${2:-}.toml" >"$dir/wait-$1${2:-}.out" 2>&1
}
story 2m
grep -q '^    FAIL kuri-1.s log contains "Dirty database version" (got: .*kuri-1 has logged nothing since it started: its start-up retries the store silently and logs why only once it gives up, after 30 attempts over at least 6m44s' "$dir/wait-2m.out" ||
  fail "no hint for a log asked for during the silent retry: $(grep FAIL "$dir/wait-2m.out")"
story 10s 5
grep -q 'after 5 attempts over at least 29s; wait longer' "$dir/wait-10s5.out" ||
  fail "the hint does not follow RETRY_ATTEMPTS: $(grep FAIL "$dir/wait-10s5.out")"
story 200ms 4 100
grep -q 'after 4 attempts over at least 700ms; wait longer' "$dir/wait-200ms4.out" ||
  fail "the hint does not follow RETRY_DELAY_MS: $(grep FAIL "$dir/wait-200ms4.out")"
story 8m
grep -q '^    ok   kuri-1.s log contains "Dirty database version"' "$dir/wait-8m.out" ||
  fail "the line is not there after the retry gave up: $(grep -E 'ok|FAIL' "$dir/wait-8m.out" | head -3)"
grep -q "logged nothing since it started" "$dir/wait-8m.out" && fail "a hint where nothing failed"
exit 0
