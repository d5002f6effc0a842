#!/bin/sh
# Outputs named - go to standard output, which then holds that output alone
# (valid JSON Lines, JSON, a sum file, a page); the report a command would
# have printed goes to standard error.  usage: standard_output.sh FAULTLINE KURI_FOLDER
set -u
faultline=$1
folder=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
json_lines() { python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]' "$1"; }
json_file() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"; }

"$faultline" run stale-schema --trace - >"$work/trace" 2>"$work/report"
[ $? -eq 0 ] || fail "run --trace -: exit status"
json_lines "$work/trace" || fail "run --trace -: standard output is not JSON Lines"
grep -q '^pass: ' "$work/report" || fail "run --trace -: the report is not on standard error"

"$faultline" run stale-schema --perfetto - >"$work/perfetto" 2>/dev/null
json_file "$work/perfetto" || fail "run --perfetto -: standard output is not one JSON document"

"$faultline" run stale-schema --trace - --timeline >"$work/trace2" 2>"$work/timeline"
json_lines "$work/trace2" || fail "run --trace - --timeline: standard output is not JSON Lines"
grep -q 'step 1' "$work/timeline" || fail "run --trace - --timeline: no timeline on standard error"

"$faultline" demo --trace - >"$work/demo" 2>"$work/table"
json_lines "$work/demo" || fail "demo --trace -: standard output is not JSON Lines"
grep -q '^ok: ' "$work/table" || fail "demo --trace -: the table is not on standard error"

"$faultline" check-migrations "$folder" --static --write-sum - --format json >"$work/sum" 2>"$work/cm"
head -n 1 "$work/sum" | grep -qx 'faultline-sum 1' || fail "--write-sum -: standard output is not a sum file"
json_file "$work/cm" || fail "--write-sum -: the JSON report is not on standard error"
"$faultline" check-migrations "$folder" --static --sum "$work/sum" >/dev/null 2>&1 ||
  fail "--write-sum -: the sum file written to standard output does not read back"

"$faultline" report stale-schema -o - >"$work/page" 2>/dev/null
grep -q '</html>' "$work/page" || fail "report -o -: no page on standard output"

[ $failures -eq 0 ] && echo "standard output: all passed" || echo "$failures failed"
exit $((failures > 0))
