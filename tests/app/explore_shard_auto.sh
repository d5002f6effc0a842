#!/bin/sh
# explore --shard auto/N (issue #29): the shard's index from the job
# engine, JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, from 0) or
# SLURM_ARRAY_TASK_ID (a Slurm job array, from SLURM_ARRAY_TASK_MIN); the
# shards merged are the exploration unsharded. The variables are set as
# each engine sets them for its tasks (explore_on_slurm.sh runs a real
# Slurm job array; no Kubernetes runs here). What cannot name one
# shard of N is refused with exit 2 before anything runs.
# Usage: explore_shard_auto.sh faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() { echo "explore_shard_auto: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
explore() { "$faultline" explore "$story" --runs 36 --batch 4 "$@" >/dev/null 2>"$dir/err"; }
explore --out "$dir/whole"
for i in 0 1 2; do
  env JOB_COMPLETION_INDEX=$i "$faultline" explore "$story" --runs 36 --batch 4 --shard auto/3 \
    --out "$dir/k8s-$i" >/dev/null 2>&1
  grep -q "^shard	$i/3$" "$dir/k8s-$i/groups.tsv" || fail "JOB_COMPLETION_INDEX=$i is not shard $i/3"
  # `sbatch --array=1-3`: task ids 1 to 3 are shards 0 to 2.
  env SLURM_ARRAY_TASK_ID=$((i + 1)) SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=3 \
    SLURM_ARRAY_TASK_COUNT=3 "$faultline" explore "$story" --runs 36 --batch 4 --shard auto/3 \
    --out "$dir/slurm-$i" >/dev/null 2>&1
  diff -r -x summary.json "$dir/k8s-$i" "$dir/slurm-$i" >/dev/null || fail "Slurm's task $((i + 1)) is not shard $i/3"
done
"$faultline" merge "$dir/k8s-0" "$dir/k8s-1" "$dir/k8s-2" --out "$dir/merged" >/dev/null 2>&1
diff -r -x summary.json "$dir/whole" "$dir/merged" >/dev/null || fail "the shards merged are not the whole"

refused() {
  env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID "$@" "$faultline" explore "$story" \
    --runs 36 --batch 4 --shard auto/3 --out "$dir/refused" >/dev/null 2>"$dir/err"
  [ $? -eq 2 ] || fail "not refused: $*"
  [ ! -e "$dir/refused" ] && [ ! -e "$dir/refused.partial" ] || fail "a refused shard made its --out"
}
refused                                  # No engine's index.
grep -q "neither JOB_COMPLETION_INDEX" "$dir/err" || fail "no index: $(cat "$dir/err")"
refused JOB_COMPLETION_INDEX=3           # Shards are 0 to 2.
grep -q "shards are 0 to 2" "$dir/err" || fail "out of range: $(cat "$dir/err")"
refused JOB_COMPLETION_INDEX=x
refused JOB_COMPLETION_INDEX=0 SLURM_ARRAY_TASK_ID=0
refused SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=4
grep -q "has 4 task(s)" "$dir/err" || fail "another count: $(cat "$dir/err")"
# `--array=0-4:2`: ids 0, 2, 4 have gaps.
refused SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=3
grep -q "have gaps" "$dir/err" || fail "gaps: $(cat "$dir/err")"
exit 0
