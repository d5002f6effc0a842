#!/bin/sh
# explore --shard auto/N on a real Slurm (issue #29): a one-machine cluster
# of Debian's slurm-wlm and munge (munged, slurmctld and slurmd, each with
# its files in DIR, its own munge key and socket, and ports of its own), a
# job array of three tasks that each explore one shard, and the shards
# merged are the exploration unsharded. The daemons end with the test.
# Skipped (77) without the packages or without root (slurmd runs jobs as
# their user). Usage: explore_on_slurm.sh faultline story.toml dir
set -u
faultline=$1
story=$2
dir=$3
fail() {
  echo "explore_on_slurm: $*"
  for log in munged slurmctld slurmd; do [ -f "$dir/$log.log" ] && tail -5 "$dir/$log.log"; done
  exit 1
}
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null 2>&1 || { echo "no $tool (slurm-wlm, munge): skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir/state" "$dir/spool" || exit 1
chmod 755 "$dir"
# Each daemon in the foreground, as this shell's child, so that its pid is
# known from the start and it is ended and waited for however the test ends.
# The jobs first (their slurmstepd and explore are not this shell's
# children), then the daemons, killed outright if they linger.
daemons=""
sock_dir=$(mktemp -d /tmp/fl-munge.XXXXXX) || exit 1  # A socket path fits 108 bytes.
stop_daemons() {
  if [ -n "$daemons" ]; then
    scancel --full --quiet --user=root 2>/dev/null
    tries=0
    while [ -n "$(squeue -h 2>/dev/null)" ] && [ $tries -lt 100 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    kill $daemons 2>/dev/null
    tries=0
    while kill -0 $daemons 2>/dev/null && [ $tries -lt 50 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    kill -9 $daemons 2>/dev/null
    wait $daemons 2>/dev/null
    daemons=""
  fi
  rm -rf "$sock_dir"
}
trap stop_daemons EXIT
trap 'exit 1' INT TERM
# Ports of this test's own (a machine may run a Slurm of its own), and
# loopback addresses (its host name may not resolve).
port=$((10000 + $$ % 10000 * 2))  # Below Linux's ephemeral ports (32768 on).
host=$(hostname -s)
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$dir/munge.key"
munged --foreground --force --key-file="$dir/munge.key" --socket="$sock_dir/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
  2>/dev/null &
daemons="$daemons $!"
tries=0
until [ -S "$sock_dir/munge.socket" ]; do
  tries=$((tries + 1))
  [ $tries -le 100 ] || fail "munged did not start"
  sleep 0.1
done
cat >"$dir/slurm.conf" <<EOF
ClusterName=faultline
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock_dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=faultline Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -D -c >/dev/null 2>&1 &
daemons="$daemons $!"
slurmd -D >/dev/null 2>&1 &
daemons="$daemons $!"
tries=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
  tries=$((tries + 1))
  [ $tries -le 300 ] || fail "the node never came up: $(sinfo 2>&1)"
  sleep 0.1
done

# (Exit 1: the story's failures were found.)
"$faultline" explore "$story" --runs 36 --batch 4 --out "$dir/whole" >/dev/null 2>&1
[ -s "$dir/whole/groups.tsv" ] || fail "the exploration unsharded wrote nothing"
# `sbatch --array=1-3`, as docs/explore.md's recipe: task ids 1 to 3 are
# shards 0 to 2 (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN).
# (sbatch --wait exits 1 when a task did: a shard that found a failure.)
timeout 150 sbatch --wait --array=1-3 --output="$dir/task-%a.out" --wrap \
  "'$faultline' explore '$story' --runs 36 --batch 4 --shard auto/3 --out '$dir/slurm-'\$SLURM_ARRAY_TASK_ID" \
  >"$dir/sbatch.out" 2>&1
[ $? -ne 124 ] || fail "the job array did not end in 150 s: $(cat "$dir/sbatch.out")"
for task in 1 2 3; do
  grep -q "^shard	$((task - 1))/3$" "$dir/slurm-$task/groups.tsv" 2>/dev/null ||
    fail "Slurm's task $task is not shard $((task - 1))/3: $(cat "$dir/task-$task.out")"
done
"$faultline" merge "$dir/slurm-1" "$dir/slurm-2" "$dir/slurm-3" --out "$dir/merged" >/dev/null 2>&1
[ -s "$dir/merged/groups.tsv" ] || fail "the merge wrote nothing"
diff -r -x summary.json "$dir/whole" "$dir/merged" >/dev/null || fail "the shards merged are not the whole"
exit 0
