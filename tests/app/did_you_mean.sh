#!/bin/sh
# "Did you mean" (issue #30) for a story name, a command, a flag, a fault
# site, a service and a key, each with exit 2; a long list of fault sites
# grouped, one group a line.
# Usage: did_you_mean.sh faultline dir
set -u
faultline=$1
dir=$2
fail() { echo "did_you_mean: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
expect() {  # expect "WORDS" COMMAND...: exit 2 and WORDS on standard error.
  words=$1
  shift
  "$@" >/dev/null 2>"$dir/err"
  status=$?
  [ $status -eq 2 ] || fail "$*: exit $status, expected 2"
  grep -qF "$words" "$dir/err" || fail "$*: no \"$words\" in: $(cat "$dir/err")"
}
expect "(did you mean 'stale-schema'?)" "$faultline" run stale-schem
expect "(did you mean 'run'?)" "$faultline" runn
expect "(did you mean '--timeline'?)" "$faultline" run stale-schema --timline
printf 'name = "x"\ntitle = "t"\n[[fault]]\nsite = "migrate.filecoingw_kuri1.statement.aftr"\naction = "crash"\n[[step]]\ndo = "up"\n' >"$dir/site.toml"
expect "(did you mean 'migrate.filecoingw_kuri1.statement.after'?)" "$faultline" run "$dir/site.toml"
grep -qx "  migrate.filecoingw_kuri1.statement.{after, before}" "$dir/err" ||
  fail "the sites are not grouped: $(cat "$dir/err")"
printf 'name = "x"\ntitle = "t"\n[[step]]\ndo = "kill"\nservice = "kuri1"\n' >"$dir/service.toml"
expect "(did you mean 'kuri-1'?)" "$faultline" run "$dir/service.toml"
printf 'name = "x"\ntitle = "t"\n[[step]]\ndo = "up"\nexpct = []\n' >"$dir/key.toml"
expect "(did you mean 'expect'?)" "$faultline" run "$dir/key.toml"
# Nothing near: no guess.
expect "unknown command 'zzzzzzzz'" "$faultline" zzzzzzzz
grep -q "did you mean" "$dir/err" && fail "a guess for a word near nothing: $(cat "$dir/err")"
exit 0
