#!/usr/bin/env bash
# S3 clients (Debian's awscli, python3-boto3, s3cmd) against `faultline
# live`'s S3 front: mb, cp both ways, ls, rm, a 20 MB multipart upload and
# ranged download, boto3 and s3cmd; then, with kuri-1 stopped at the
# control socket, a GET of an object on kuri-1 answers as the seed
# gateway's status mapping says and a PUT goes to kuri-2.
#   s3_clients.sh S3_PORT CONTROL_SOCKET WORK_DIR
set -euo pipefail
port=$1 control=$2 work=$3
endpoint=http://127.0.0.1:$port
export AWS_ACCESS_KEY_ID=faultline AWS_SECRET_ACCESS_KEY=faultline AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
aws() { command aws --endpoint-url "$endpoint" "$@"; }
say() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; exit 1; }
prompt() { /usr/bin/python3 - "$control" "$1" <<'PY'
import socket, sys
with socket.socket(socket.AF_UNIX) as s:
    s.connect(sys.argv[1]); s.sendall((sys.argv[2] + "\n").encode()); s.settimeout(60)
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    print(data.decode(), end="")
PY
}

cd "$work"
aws s3 mb s3://photos >/dev/null && say "aws s3 mb"
printf 'meow\n' > cat.txt
aws s3 cp --no-progress cat.txt s3://photos/cat.txt >/dev/null && say "aws s3 cp up"
aws s3 ls s3://photos | grep -q ' cat.txt$' && say "aws s3 ls lists it"
aws s3 cp --no-progress s3://photos/cat.txt back.txt >/dev/null
cmp -s cat.txt back.txt && say "aws s3 cp down: the same bytes" || fail "cp down differs"
# 20 MB of text: aws uploads it in 8 MB parts (initiate, 3 parts, complete)
# and reads it back in ranges.
/usr/bin/python3 -c "
import random; random.seed(7)
open('big.txt', 'w').write(''.join(random.choice('abcdefghij\n') for _ in range(20 << 20)))"
aws s3 cp --no-progress big.txt s3://photos/big.txt >/dev/null && say "aws s3 cp of 20 MB (multipart)"
aws s3 cp --no-progress s3://photos/big.txt big.back >/dev/null
cmp -s big.txt big.back && say "the 20 MB object reads back whole" || fail "big object differs"
aws s3 rm s3://photos/cat.txt >/dev/null && say "aws s3 rm"
if aws s3 cp --no-progress s3://photos/cat.txt gone.txt >/dev/null 2>&1; then fail "a removed object read"; fi
say "a removed object is gone (404)"

/usr/bin/python3 - "$endpoint" <<'PY'
import sys, boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id="x",
                  aws_secret_access_key="y", region_name="us-east-1")
s3.put_object(Bucket="photos", Key="boto.txt", Body=b"from boto3")
assert s3.get_object(Bucket="photos", Key="boto.txt")["Body"].read() == b"from boto3"
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="photos")["Contents"]]
assert "boto.txt" in keys, keys
print("ok: boto3 put, get and list")
PY

cat > s3cfg <<CFG
[default]
access_key = x
secret_key = y
host_base = 127.0.0.1:$port
host_bucket = 127.0.0.1:$port
use_https = False
CFG
s3cmd -c s3cfg get --force s3://photos/boto.txt s3cmd.txt >/dev/null 2>&1
[ "$(cat s3cmd.txt)" = "from boto3" ] && say "s3cmd get" || fail "s3cmd get"
# s3cmd checks a PUT's ETag against its own MD5 of the file, and uploads
# again when they differ.
printf 'from s3cmd\n' > mine.txt
s3cmd -c s3cfg put mine.txt s3://photos/mine.txt 2>&1 | grep -q WARNING && fail "s3cmd put warned"
aws s3 cp --no-progress s3://photos/mine.txt mine.back >/dev/null
cmp -s mine.txt mine.back && say "s3cmd put, its MD5 checked" || fail "s3cmd put"

# Which node holds which object: the proxy round-robins PUTs, so of a few
# fresh objects some are on kuri-1.
for i in 1 2 3 4; do printf 'object %s\n' "$i" | aws s3 cp --no-progress - "s3://photos/o$i.txt" >/dev/null; done
prompt "stop kuri-1"
statuses() {
  local all=""
  for i in 1 2 3 4; do
    all="$all $(curl -s -o /dev/null -w '%{http_code}' "$endpoint/photos/o$i.txt")"
  done
  echo "$all"
}
# The seed gateway's mapping (../shared/reference/seed-cluster.md): the
# object's node is down but still healthy to the proxy -> the forward fails,
# 502; once its probe fails (a probe a second) -> unhealthy, 503.
now=$(statuses)
echo "GETs just after the stop:$now"
echo "$now" | grep -q ' 502' && say "an object on kuri-1 answers 502 (the forward fails)" \
  || fail "no 502 with kuri-1 just stopped"
echo "$now" | grep -q ' 200' && say "an object on kuri-2 still reads" || fail "nothing read"
prompt "wait 3s" >/dev/null
later=$(statuses)
echo "GETs once the proxy has probed:$later"
[ "$(echo "$later" | tr ' ' '\n' | grep -c 503)" = "$(echo "$now" | tr ' ' '\n' | grep -c 502)" ] \
  && say "those objects now answer 503 (kuri-1 unhealthy)" || fail "expected 503 where 502 was"
status=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary 'new' "$endpoint/photos/new.txt")
[ "$status" = 200 ] && say "a PUT goes to kuri-2 (200)" || fail "PUT answered $status"
prompt "restart kuri-1" >/dev/null
echo "s3 clients: all checks passed"
