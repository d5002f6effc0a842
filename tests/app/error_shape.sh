#!/bin/sh
# Every command refuses bad input in one shape: exit 2 and a first line
#   faultline: COMMAND: what; see `faultline help COMMAND`
# (or "see `faultline list` ..." for a scenario name nobody has, or, before
# a command is known, "faultline: what; see `faultline help`"). A scenario
# file's error keeps the compilers' FILE:LINE:COL: shape, for editors.
#   error_shape.sh FAULTLINE WORK_DIR
set -u
faultline=$1
work=$2
rm -rf "$work" && mkdir -p "$work"
printf 'name = "x"\ntitle = "t"\n[[step]]\ndo = "upp"\n' >"$work/bad.toml"
failed=0
expect() {  # expect PATTERN ARGS...: exit 2, first line of stderr matches PATTERN (grep -E)
  pattern=$1
  shift
  "$faultline" "$@" >/dev/null 2>"$work/err"
  status=$?
  first=$(head -1 "$work/err")
  if [ "$status" -ne 2 ] || ! printf '%s\n' "$first" | grep -Eq "$pattern"; then
    echo "faultline $*: exit $status, said: $first" >&2
    echo "  expected exit 2 and: $pattern" >&2
    failed=1
  fi
}
shape() {  # shape COMMAND ARGS...: the command's own shape
  command=$1
  expect "^faultline: $command: .+; see \`faultline help $command\`\$" "$@"
}
shape demo --bogus
shape cql -e 'SELECT 1' -f x.cql
shape cql -f /nonexistent-error-shape/m.cql
shape list extra
shape explain stale-schema --bogus
shape run stale-schema --seed x
shape run
shape explore slow-migration --runs 0
shape explore dirty-migration --faults upgrade --runs 2
shape merge /nonexistent-error-shape
shape report stale-schema
shape report stale-schema -o /nonexistent-error-shape/x.html
shape shell stale-schema --at 99 -e 'DESCRIBE KEYSPACES'
shape check-migrations /nonexistent-error-shape
shape version --bogus
shape completion zsh
unknown_story="no scenario named 'stale-schem' \(did you mean 'stale-schema'\?\); see \`faultline list\`"
for command in run explain explore; do
  expect "^faultline: $command: $unknown_story" $command stale-schem
done
expect "^faultline: report: $unknown_story" report stale-schem -o "$work/x.html"
expect "^faultline: shell: $unknown_story" shell stale-schem --at 1 -e 'DESCRIBE KEYSPACES'
expect "^faultline: unknown command 'rnu' \(did you mean 'run'\?\); see \`faultline help\`\$" rnu
expect "^faultline: help: no command 'nosuch'; see \`faultline help\`\$" help nosuch
expect "^faultline: help: it takes one command, got 'b' too; see \`faultline help\`\$" help run b
expect "^faultline: run: $work/none.toml: no such file; see \`faultline help run\`\$" run "$work/none.toml"
expect "^faultline: report: $work: .+; see \`faultline help report\`\$" report "$work" -o "$work/x.html"
expect "^$work/bad.toml:4:6: step 1: unknown action 'upp' \(did you mean 'up'\?\)" run "$work/bad.toml"
exit $failed
