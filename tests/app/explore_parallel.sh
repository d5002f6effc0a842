#!/bin/sh
# explore's shards run by GNU parallel, then merged, equal the run unsharded
# (the summary differs only in its times). Usage: faultline scenario.toml dir
set -u
faultline=$1
scenario=$2
dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$faultline" explore "$scenario" --runs 30 --batch 4 --out "$dir/one" >/dev/null 2>&1
[ $? -eq 1 ] || { echo "the unsharded run found nothing"; exit 1; }
parallel --will-cite -j2 "$faultline" explore "$scenario" --runs 30 --batch 4 --shard {}/3 \
  --out "$dir/shard-{}" '>/dev/null 2>&1' ::: 0 1 2
"$faultline" merge "$dir/shard-0" "$dir/shard-1" "$dir/shard-2" --out "$dir/merged" >/dev/null 2>&1
diff -r -x summary.json "$dir/one" "$dir/merged"
