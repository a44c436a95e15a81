#!/usr/bin/env bash
# Simulated against measured (issue 46): calibrates this machine's performance models with real
# runs, then runs every layout x policy for real and in simulation (the SimGrid build of
# tools/build_starpu_simgrid.sh, the same STARPU_HOME), twice simulated, and prints them side by side.
#   tools/sim_validate.sh CASE STEPS "LAYOUTS" "POLICIES"
#   tools/sim_validate.sh inputs/sweep.toml 100 "1x1 2x2 4x4" "dmda dmdas eager lws"
# Environment: REAL (default build/ondes3d), SIM (default build-sim/project/ondes3d), REPEAT
# (measured runs a point, default 3), GAP (the simulated runs' --sim-task-gap, microseconds;
# default 0), CALIBRATE (a case and layouts "CASE:L1 L2 ..." calibrated instead of CASE's: the
# simulation then extrapolates block shapes it never saw from the largest calibrated block,
# perfmodels/models.cpp), STARPU_HOME (default a fresh temporary one), and StarPU's worker variables
# (STARPU_NCPU, STARPU_NCUDA), which apply to both.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
case_file=${1:?usage: sim_validate.sh CASE STEPS LAYOUTS POLICIES}
steps=${2:-100}
layouts=${3:-1x1 2x2 4x4}
policies=${4:-dmda dmdas eager lws}
real=${REAL:-$here/build/ondes3d}
sim=${SIM:-$here/build-sim/project/ondes3d}
export STARPU_SILENT=1 STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
rate() { sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' | head -1; }
# Every block shape of every layout measured (each layout twice, 40 steps, under dmda): a simulated
# task takes its footprint's mean.
cal_case=$case_file cal_layouts=$layouts
if [ -n "${CALIBRATE:-}" ]; then cal_case=${CALIBRATE%%:*} cal_layouts=${CALIBRATE#*:}; fi
for b in $cal_layouts; do
  for _ in 1 2; do STARPU_CALIBRATE=1 "$real" run "$cal_case" --blocks "$b" --sched dmda --steps 40 --output /tmp/simv.h5 > /dev/null 2>&1; done
done
printf '# %s, %s steps, %s; calibrated on %s (%s); STARPU_HOME=%s\n' "$(basename "$case_file")" "$steps" "$(uname -n)" \
  "$(basename "$cal_case")" "$cal_layouts" "$STARPU_HOME"
# Every simulation before any measured run: a measured run adds its block shapes to the history
# (the program calibrates as it runs), which with CALIBRATE would leave nothing to extrapolate.
# The simulated runs' rates from their summaries (7 digits); REPEAT measured runs a point (default
# 3), taken in turns over the points so that a slow spell of the machine does not fall on one
# point's runs; tools/sim_compare.py prints the table and the policies' ranking.
rates=$(mktemp)
for b in $layouts; do
  for p in $policies; do
    line="$b $p simulated"
    for k in 1 2; do
      STARPU_CALIBRATE=0 "$sim" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 \
        --sim-task-gap "${GAP:-0}" --summary /tmp/simv.csv > /tmp/simv.log 2>&1 || rm -f /tmp/simv.csv
      line+=" $(tail -1 /tmp/simv.csv 2>/dev/null | cut -d, -f16)"
      rm -f /tmp/simv.csv
    done
    echo "$line" >> "$rates"
  done
done
declare -A measured
for _ in $(seq "${REPEAT:-3}"); do
  for b in $layouts; do
    for p in $policies; do
      m=$("$real" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 2>&1 | rate)
      measured[$b$p]+=" ${m:-failed}"
    done
  done
done
for b in $layouts; do
  for p in $policies; do echo "$b $p measured${measured[$b$p]}" >> "$rates"; done
done
python3 "$here/tools/sim_compare.py" "$rates"
rm -f "$rates"
