#!/usr/bin/env bash
# `faultline completion bash`: the script is valid bash, and completes
# commands, flags, flag values and scenario names as a user would meet them
# at a prompt.  usage: completion_test.sh FAULTLINE
set -u
faultline=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

script=$("$faultline" completion bash) || { echo "FAIL: completion bash exited $?"; exit 1; }
bash -n <(printf '%s\n' "$script") || fail "the script is not valid bash"
eval "$script"
complete -p faultline >/dev/null 2>&1 || fail "no completion registered for faultline"

# complete WORDS...: COMPREPLY for the line "faultline WORDS", the last word
# being completed.
complete_line() {
  COMP_WORDS=(faultline "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _faultline
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # expect WHAT WANTED -- WORDS...
  local what=$1 wanted=$2
  shift 3
  local got
  got=$(complete_line "$@")
  printf '%s\n' "$got" | grep -qx -- "$wanted" || fail "$what: '$wanted' not among: $(echo $got)"
}
expect "a command" run -- ru
expect "a command with a dash" check-migrations -- check-m
expect "a flag" --check-determinism -- run stale-schema --check-d
expect "a scenario name" stale-schema-fixed -- run stale-sch
expect "a format" sarif -- check-migrations x --format s
expect "a runner" db-init -- check-migrations x --runner d
expect "help's command" explore -- help exp
expect "the shell" bash -- completion b
expect "report's short flag" -o -- report stale-schema -
expect "a limit's name" steps= -- run stale-schema --limit st
expect "check-migrations --from's folder" "$(dirname "$0")" -- check-migrations x --from "$(dirname "$0")"
# --flag=value: bash cuts it at '=' (COMP_WORDBREAKS).
expect "a value after an equals sign" json -- check-migrations x --format = j
expect "a value after an equals sign, from nothing" sarif -- check-migrations x --format =
got=$(complete_line run stale-schema --seed "")
[ -z "$got" ] || fail "--seed offers words: $got"
[ -n "$(complete_line run --trace "")" ] || fail "--trace offers no files"

[ $failures -eq 0 ] && echo "completion: all passed" || echo "$failures failed"
exit $((failures > 0))
