#!/usr/bin/env bash
# Runs each named workload's peer and then `cargo xtask bench` on the peer's fresh dump,
# back to back on this machine, and prints both JSON lines (ours with `peer`: the
# speed-up per phase and the answer checks). BENCH.md's goals are same-run ratios.
#
# Usage: scripts/peers/same_run.sh SEED OUT_DIR WORKLOAD...
#   PEERS   the peer scripts' directory (default ../shared/peers)
#   PYTHON  the Python with the peers' requirements (default $PEERS/.venv/bin/python)
#   THREADS (default 1), REPEATS (default 3)
# W9 (w9_molnar_r) runs with Rscript (r-base-core, r-cran-randomforest, r-cran-rpart).
set -euo pipefail
seed=$1
out=$2
shift 2
peers=${PEERS:-../shared/peers}
python=${PYTHON:-$peers/.venv/bin/python}
threads=${THREADS:-1}
repeats=${REPEATS:-3}
mkdir -p "$out"
for w in "$@"; do
  if [ "$w" = w9_molnar_r ]; then
    Rscript "$peers/$w.R" --seed "$seed" --dump "$out" --repeats "$repeats" > "$out/$w.peer.json"
  else
    "$python" "$peers/$w.py" --seed "$seed" --dump "$out" --threads "$threads" \
      --repeats "$repeats" > "$out/$w.peer.json"
  fi
  tail -n 1 "$out/$w.peer.json"
  # A workload whose answers are out of tolerance is reported and the others still run.
  cargo xtask bench "$w" --data "$out" --threads "$threads" --repeats "$repeats" \
    --peer "$out/$w.peer.json" > "$out/$w.ours.json" 2>&1 || status=1
  tail -n 1 "$out/$w.ours.json"
done
exit "${status:-0}"
