#!/usr/bin/env bash
# `cargo xtask slurm` on a real Slurm: a single-node cluster on this machine (Debian's
# slurm-wlm and munge, daemons started directly, no systemd), the truths job, a
# 4-task job array and the merge job of a small experiment at ci scale, then a check
# that the merged summary.csv and tidy.csv equal an unsharded run's byte for byte.
#
# Needs root (to install the packages and start munged, slurmctld and slurmd); where
# it cannot start the cluster it says why and exits 0, so CI can always call it.
# Usage: scripts/slurm-test.sh [experiment id or yaml] (default: the test fixture
# with Monte-Carlo truths, xtask/tests/fixtures/resumable.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
experiment=${1:-$root/xtask/tests/fixtures/resumable.yaml}
skip() { echo "slurm test not run: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root (munged, slurmctld and slurmd are started directly)"
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || skip "slurm-wlm is not installed and there is no apt-get"
  echo "installing slurm-wlm and munge with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge) \
    >/dev/null 2>&1 || skip "apt-get could not install slurm-wlm and munge"
fi

cargo build --release -p xtask
xtask=$root/target/release/xtask

work=$(mktemp -d /tmp/xai-slurm.XXXXXX)
chmod 755 "$work"
conf=$work/slurm.conf
export SLURM_CONF=$conf
cleanup() {
  scontrol shutdown >/dev/null 2>&1 || true
  sleep 1
  [ -f "$work/munged.pid" ] && kill "$(cat "$work/munged.pid")" 2>/dev/null || true
}
trap cleanup EXIT

# munge: a fresh key, the daemon as the munge user.
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
runuser -u munge -- munged --pid-file="$work/munged.pid" --force \
  || skip "munged did not start"
munge -n | unmunge >/dev/null || skip "munge cannot encode and decode a credential"

# One host: the controller and the only compute node, with its real CPUs and memory.
host=$(hostname -s)
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
mkdir -p "$work/state" "$work/spool"
cat >"$conf" <<EOF
ClusterName=xai
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=3600
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$conf" || skip "slurmctld did not start (log: $work/slurmctld.log)"
slurmd -f "$conf" || skip "slurmd did not start (log: $work/slurmd.log)"
for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || skip "the node did not come up (state '$state'; logs in $work)"
echo "single-node Slurm up: $(sinfo -h -o '%P %D %t %c CPUs')"

# The run as Slurm jobs: 4 shards, one CPU each.
"$xtask" slurm "$experiment" --shards 4 --scale ci --cpus 1 --time 00:20:00 --out "$work/run"
bash "$work/run/slurm/submit.sh"
for _ in $(seq 900); do
  [ -z "$(squeue -h -o %i)" ] && break
  sleep 1
done
[ -z "$(squeue -h -o %i)" ] && echo "all jobs left the queue" || { squeue; echo "jobs still queued after 15 minutes"; exit 1; }
scontrol -o show job | awk '{ line = ""; for (i = 1; i <= NF; i++)
  if ($i ~ /^(JobId|ArrayTaskId|JobName|JobState|ExitCode)=/) line = line " " $i; print line }'
failed=$(scontrol show job | grep -c "JobState=" || true)
completed=$(scontrol show job | grep -c "JobState=COMPLETED" || true)
if [ "$failed" != "$completed" ]; then
  echo "not every job completed; logs:"; tail -n 20 "$work"/run/slurm/logs/*; exit 1
fi
echo "jobs: $completed completed (truths, 4 array tasks, merge)"
if grep -l "Monte-Carlo truth" "$work"/run/slurm/logs/cells-*.out; then
  echo "array tasks above computed a truth the truths job had written"; exit 1
fi
echo "the array tasks read the truths job's truths (none computed again)"

# The same run unsharded, on this machine directly.
"$xtask" run "$experiment" --scale ci --out "$work/whole" --threads 2 >/dev/null
for f in summary.csv tidy.csv; do
  cmp "$work/run/$f" "$work/whole/$f"
  echo "$f: merged Slurm run = unsharded run, byte for byte ($(wc -l <"$work/whole/$f") lines)"
done
rm -rf "$work/run" "$work/whole"
echo "slurm test passed"
