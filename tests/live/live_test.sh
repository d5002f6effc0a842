#!/usr/bin/env bash
# live.real_clients: `faultline live` served to real clients on loopback
# (the Python driver, a gocql program, aws, boto3, s3cmd), faults typed at
# its control socket while they talk, and the session it records replayed
# by `faultline run` without any client, twice to the same trace hash.
#   live_test.sh FAULTLINE SOURCE_DIR WORK_DIR
set -euo pipefail
faultline=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work"

"$faultline" live --s3-port 0 --cql-port 0 --control "$work/control.sock" --no-prompt \
  --record "$work/session.toml" 2>"$work/live.log" &
live=$!
# The server never outlives the test.
trap 'kill "$live" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q '^live: serving' live.log && break
  kill -0 "$live" 2>/dev/null || { cat live.log; echo "FAIL: live exited"; exit 1; }
  sleep 0.1
done
line=$(grep '^live: serving' live.log) || { cat live.log; echo "FAIL: live never served"; exit 1; }
s3_port=$(echo "$line" | sed -E 's|.*S3 on http://127.0.0.1:([0-9]+).*|\1|')
cql_port=$(echo "$line" | sed -E 's|.*CQL on 127.0.0.1:([0-9]+).*|\1|')
echo "$line"

/usr/bin/python3 "$source/tests/live/python_driver.py" "$cql_port" "$work/control.sock"

mkdir -p gocql && cp "$source/tests/live/gocql_client.go" gocql/
(cd gocql && GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$work/gocache" \
  go build -o gocql_client gocql_client.go)
./gocql/gocql_client "$cql_port" "$work/control.sock" | tee gocql.out
grep -q '^rows: 5$' gocql.out && grep -q '^rows after restart: 6$' gocql.out \
  && echo "ok: gocql paged, and reconnected after the store restarted" || { echo "FAIL: gocql"; exit 1; }

mkdir -p s3 && "$source/tests/live/s3_clients.sh" "$s3_port" "$work/control.sock" "$work/s3"

/usr/bin/python3 - "$work/control.sock" <<'PY'
import socket, sys
with socket.socket(socket.AF_UNIX) as s:
    s.connect(sys.argv[1]); s.sendall(b"exit\n"); s.recv(100)
PY
for _ in $(seq 1 300); do kill -0 "$live" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$live" 2>/dev/null; then echo "FAIL: live did not stop on exit"; exit 1; fi
wait "$live" || { tail -5 live.log; echo "FAIL: live exited non-zero"; exit 1; }
grep -q '^live: wrote the session' live.log && echo "ok: the session was recorded" \
  || { tail -5 live.log; echo "FAIL: no recording"; exit 1; }

# The recording holds the 20 MB upload's parts: over a story's usual size.
limit=--limit=scenario-file-bytes=67108864
"$faultline" run session.toml "$limit" > replay1.txt || { tail -30 replay1.txt; echo "FAIL: replay"; exit 1; }
"$faultline" run session.toml "$limit" > replay2.txt
first=$(grep -o 'trace hash [0-9a-f]*' replay1.txt)
second=$(grep -o 'trace hash [0-9a-f]*' replay2.txt)
[ -n "$first" ] && [ "$first" = "$second" ] \
  && echo "ok: the recording replays to the same outcomes, twice to the same $first" \
  || { echo "FAIL: replays differ: $first / $second"; exit 1; }
echo "live real clients: all checks passed"
