#!/usr/bin/env bash
# Live mode's throughput against real clients, beside the same clients on
# in-process fakes (bench/live_peers.py) in the same run:
#   - S3: curl PUTs then GETs of N objects, one keep-alive connection;
#   - CQL: the Python driver's prepared INSERTs then point SELECTs.
# At two sizes, so the curve shows whether a request costs more as the
# cluster holds more.
#   bench/live_throughput.sh [FAULTLINE]   (default build/default/app/faultline)
set -euo pipefail
faultline=${1:-build/default/app/faultline}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_live() {  # $1: extra flags; sets s3 and cql
  "$faultline" live --s3-port 0 --cql-port 0 --no-prompt $1 2>"$work/live.log" &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q '^live: serving' "$work/live.log" && break; sleep 0.1; done
  local line; line=$(grep '^live: serving' "$work/live.log")
  s3=$(echo "$line" | sed -E 's|.*S3 on http://127.0.0.1:([0-9]+).*|\1|')
  cql=$(echo "$line" | sed -E 's|.*CQL on 127.0.0.1:([0-9]+).*|\1|')
}

# Requests per second of curl's N requests of `method` on one connection.
curl_rate() {  # port method n prefix
  local config="$work/curl.cfg" start end
  : > "$config"
  for i in $(seq 1 "$3"); do
    echo "url = \"http://127.0.0.1:$1/bench/$4-$i\"" >> "$config"
    echo "output = /dev/null" >> "$config"
  done
  start=$(date +%s.%N)
  if [ "$2" = PUT ]; then
    curl -s -X PUT --data-binary "an object of some bytes" -K "$config"
  else
    curl -s -K "$config"
  fi
  end=$(date +%s.%N)
  echo "$3 / ($end - $start)" | bc -l | xargs printf '%.0f'
}

s3_peer=$(free_port); cql_peer=$(free_port)
/usr/bin/python3 "$here/live_peers.py" s3 "$s3_peer" & pids+=($!)
/usr/bin/python3 "$here/live_peers.py" cql "$cql_peer" & pids+=($!)
start_live ""
sleep 1

printf '%-28s %8s %10s %10s %12s %12s\n' target objects "PUT/s" "GET/s" "CQL ins/s" "CQL sel/s"
for n in 250 1000; do
  for target in live fake; do
    if [ "$target" = live ]; then sp=$s3; cp=$cql; else sp=$s3_peer; cp=$cql_peer; fi
    put=$(curl_rate "$sp" PUT "$n" "n$n")
    get=$(curl_rate "$sp" GET "$n" "n$n")
    read -r ins sel < <(/usr/bin/python3 "$here/live_cql_client.py" "$cp" "$n" "$((n * 2))")
    name=$([ "$target" = live ] && echo "faultline live" || echo "in-process fake")
    printf '%-28s %8s %10s %10s %12s %12s\n' "$name" "$n" "$put" "$get" "$ins" "$sel"
  done
done
