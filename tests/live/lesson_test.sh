#!/usr/bin/env bash
# live.lesson_14_plays_as_written: docs/lessons.md's lesson 14, a missed
# reboot by hand: `faultline live proxy-misses-restart --record ...`, four
# photos stored with the real aws CLI, `stop kuri-1`, `wait 3s`, `restart
# kuri-1` at the prompt, and the photos on kuri-1 answer 503 while those on
# kuri-2 read; the recording replays and draws.
#   lesson_test.sh FAULTLINE WORK_DIR
set -euo pipefail
faultline=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fifo=$work/prompt
mkfifo "$fifo"
# The prompt is the lesson's: stdin, fed through a fifo held open here.
"$faultline" live proxy-misses-restart --s3-port 0 --cql-port 0 --record missed-reboot.toml \
  <"$fifo" >prompt.out 2>live.log &
live=$!
exec 3>"$fifo"
trap 'kill "$live" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q '^live: serving' live.log && break; sleep 0.1; done
port=$(sed -nE 's|^live: serving.*S3 on http://127.0.0.1:([0-9]+).*|\1|p' live.log)
[ -n "$port" ] || { cat live.log; echo "FAIL: live never served"; exit 1; }
export AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
endpoint=http://127.0.0.1:$port
for i in 1 2 3 4; do
  echo "photo $i" | aws --endpoint-url "$endpoint" s3 cp - "s3://photos/p$i.jpg"
done
for line in "stop kuri-1" "wait 3s" "restart kuri-1" "status"; do
  echo "$line" >&3
  sleep 1
done
grep -q '^  kuri-1 *running *serving' prompt.out && echo "ok: kuri-1 serves again" \
  || { cat prompt.out; echo "FAIL: kuri-1 does not serve"; exit 1; }
read_back=""
for i in 1 2 3 4; do
  if aws --endpoint-url "$endpoint" s3 cp "s3://photos/p$i.jpg" - >/dev/null 2>"err$i.txt"; then
    read_back="$read_back ok"
  else
    grep -q '(503)' "err$i.txt" || { cat "err$i.txt"; echo "FAIL: not a 503"; exit 1; }
    read_back="$read_back 503"
  fi
done
echo "reads:$read_back"
[ "$(echo "$read_back" | grep -o 503 | wc -l)" = 2 ] \
  && echo "ok: the two photos on kuri-1 answer 503, the proxy never asks again" \
  || { echo "FAIL: expected two 503s"; exit 1; }
echo exit >&3
exec 3>&-
wait "$live"
"$faultline" run missed-reboot.toml >replay.txt || { tail -20 replay.txt; echo "FAIL: replay"; exit 1; }
"$faultline" report missed-reboot.toml -o missed-reboot.html >/dev/null
echo "ok: the recording replays and draws"
