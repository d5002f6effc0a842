#!/usr/bin/env bash
# Bytes that are not UTF-8 (Latin-1 text and control bytes) through every
# output faultline writes: run --json, --trace (JSON Lines), --perfetto and
# the report's data, for a story whose migration file is Latin-1; and
# check-migrations' JSON and SARIF, for a folder with a Latin-1 file name
# (check-migrations refuses a file body that is not UTF-8, with its place).
# Each output must be valid UTF-8 and valid JSON, and still say which byte
# was there (0xE9 as the character U+00E9). The fixtures are made here, so
# no file in the tree has a name or body that is not UTF-8.
#   latin1_outputs.sh FAULTLINE OUT_DIR
set -euo pipefail
faultline=$1
out=$2
rm -rf "$out" && mkdir -p "$out/story/migrations" "$out/folder"
python3 - "$out" <<'PY'
import pathlib, sys
out = pathlib.Path(sys.argv[1])
(out / "story/migrations/1754293669_init_s3_object_index.up.cql").write_bytes(
    b"-- Caf\xe9 menu: a Latin-1 byte, and a control byte \x01 in a comment.\n"
    b"CREATE TABLE menu (dish text PRIMARY KEY, note text);\n"
    b"INSERT INTO menu (dish, note) VALUES ('caf\xe9', 'cr\xe8me \x02 br\xfbl\xe9e');\n")
(out / "story/story.toml").write_text('''name = "latin1-migration"
title = "A migration file written in Latin-1"
[topology]
node = "latin1"
nodes = 1
[[image]]
service = "node"
version = "latin1"
migrations = "migrations"
[[step]]
do = "up"
say = "kuri-1 migrates its keyspace with a file whose bytes are Latin-1."
[[step]]
do = "cql"
statement = "SELECT * FROM filecoingw_kuri1.menu"
expect = [ { rows = 1 } ]
''')
PY
python3 -c "
import os, sys
folder = os.fsencode(sys.argv[1])
open(os.path.join(folder, b'1_caf\xe9.up.cql'), 'wb').write(b'CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY);\n')
open(os.path.join(folder, b'2_drop.up.cql'), 'wb').write(b'DROP TABLE t;\n')
" "$out/folder"
story="$out/story/story.toml"
"$faultline" run "$story" --json --trace "$out/trace.jsonl" --perfetto "$out/perfetto.json" >"$out/run.json"
"$faultline" report "$story" -o "$out/report.html" 2>/dev/null
"$faultline" check-migrations "$out/folder" --static --format sarif >"$out/report.sarif"
"$faultline" check-migrations "$out/folder" --static --format json >"$out/report.json"
python3 - "$out" <<'PY'
import json, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
def text(path):
    return path.read_bytes().decode("utf-8")  # Strict: any byte that is not UTF-8 fails here.
checked = {
    "run --json": json.loads(text(out / "run.json")),
    "--trace": [json.loads(line) for line in text(out / "trace.jsonl").splitlines()],
    "--perfetto": json.loads(text(out / "perfetto.json")),
    "report": json.loads(re.search(r'id="run-data">(.*?)</script>', text(out / "report.html"), re.S).group(1)),
    "check-migrations --format json": json.loads(text(out / "report.json")),
    "SARIF": json.loads(text(out / "report.sarif")),
}
def has(name, needle):
    return needle in json.dumps(checked[name], ensure_ascii=False)
assert has("--trace", "caf\u00e9") and has("--trace", "\\u0002"), "the trace lost the bytes"
assert has("--perfetto", "caf\u00e9"), "perfetto lost the byte"
assert has("report", "caf"), "the report has no trace of the file"
assert has("SARIF", "caf%E9") or has("SARIF", "caf\u00e9"), "SARIF lost the file name"
assert has("check-migrations --format json", "caf"), "the JSON report lost the file name"
print("latin1_outputs: " + ", ".join(checked) + ": valid UTF-8 and JSON")
PY
