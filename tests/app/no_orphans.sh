#!/bin/bash
# Workers die with the command that forked them: SIGKILL to the parent of
# `explore --jobs 2` and of `check-migrations --jobs 2` (its pid alone)
# leaves no worker alive a second later (issue #25).
# usage: no_orphans.sh FAULTLINE WORKDIR
set -u
faultline=$1
work=$2
rm -rf "$work" && mkdir -p "$work/migrations" || exit 1
# A folder long enough that check-migrations runs for seconds.
for i in $(seq 1 12); do
  printf 'CREATE TABLE IF NOT EXISTS t%d (id int PRIMARY KEY, v text);\nALTER TABLE t%d ADD w%d text;\n' \
    "$i" "$i" "$i" > "$work/migrations/$((1000 + i))_t$i.up.cql"
done

check() {  # check NAME COMMAND...: start it, kill -9 it once it forked, find no child left
  local name=$1
  shift
  "$@" > "$work/$name.out" 2>&1 &
  local parent=$!
  local workers=""
  for _ in $(seq 1 100); do  # Up to 10 s for both workers to be forked.
    workers=$(pgrep -P "$parent" | tr '\n' ' ')
    [ "$(echo "$workers" | wc -w)" -ge 2 ] && break
    sleep 0.1
  done
  [ -n "$workers" ] || { echo "$name: no worker was forked"; kill -9 "$parent"; return 1; }
  kill -9 "$parent"
  wait "$parent" 2>/dev/null
  sleep 1
  for pid in $workers; do
    # A zombie is dead (whoever adopted it may not have reaped it yet).
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    if [ -n "$state" ] && [ "$state" != Z ]; then
      echo "$name: worker $pid outlived its parent"
      kill -9 $workers 2>/dev/null
      return 1
    fi
  done
  echo "$name: no orphans ($workers)"
}

check explore "$faultline" explore dirty-migration-fixed --runs 100000 --jobs 2 --out "$work/explore" &&
  check check-migrations "$faultline" check-migrations "$work/migrations" --jobs 2
