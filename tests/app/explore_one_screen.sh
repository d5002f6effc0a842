#!/bin/sh
# explore on a story with a team's own image and a set-image step (issue
# #29's must-show): 2,000 runs read as one screen; at most one group per
# failure (checker and violation) and kinds of fault; the workload's own
# steps (its set-image and its two ups) are never a group's faults: a group
# that names set-image or up drew one of its own, beyond the workload's.
# Usage: explore_one_screen.sh faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_one_screen: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$faultline" explore "$story" --runs 2000 --jobs 2 --out "$dir/out" >"$dir/report" 2>/dev/null
[ $? -eq 1 ] || fail "nothing found in 2000 runs"
lines=$(wc -l <"$dir/report")
[ "$lines" -le 40 ] || fail "the report takes $lines lines: $(cat "$dir/report")"
python3 - "$dir/out" <<'PY' || exit 1
import json, os, re, sys
out = sys.argv[1]
summary = json.load(open(os.path.join(out, "summary.json")))
seen = set()
for number, group in enumerate(summary["groups"], 1):
    key = (group["checker"], group["violation"], tuple(group["kinds"]))
    if key in seen:
        sys.exit(f"explore_one_screen: two groups of {key}")
    seen.add(key)
    repro = open(os.path.join(out, group["repro"])).read()
    steps = re.findall(r'^do = "([a-z -]+)"', repro, re.M)
    # The workload has one set-image and two ups of its own.
    for step, own in (("set-image", 1), ("up", 2)):
        if step in group["kinds"] and steps.count(step) <= own:
            sys.exit(f"explore_one_screen: group {number} names the workload's own {step}")
PY
exit 0
