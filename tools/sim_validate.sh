#!/usr/bin/env bash
# Simulated against measured (issue 46): calibrates this machine's performance models with real
# runs, then runs every layout x policy for real and in simulation (the SimGrid build of
# tools/build_starpu_simgrid.sh, the same STARPU_HOME), twice simulated, and prints them side by side.
#   tools/sim_validate.sh CASE STEPS "LAYOUTS" "POLICIES"
#   tools/sim_validate.sh inputs/sweep.toml 100 "1x1 2x2 4x4" "dmda dmdas eager lws"
# Environment: REAL (default build/ondes3d), SIM (default build-sim/project/ondes3d), GAP (the
# simulated runs' --sim-task-gap, microseconds; default 0), CALIBRATE (a case and layouts
# "CASE:L1 L2 ..." calibrated instead of CASE's: the simulation then extrapolates block shapes it
# never saw from the largest calibrated block, perfmodels/models.cpp), STARPU_HOME
# (default a fresh temporary one), and StarPU's worker variables (STARPU_NCPU, STARPU_NCUDA), which
# apply to both.
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
printf '%-8s %-7s %14s %14s %8s %s\n' layout policy measured simulated sim/meas "second simulation"
# Every simulation before any measured run: a measured run adds its block shapes to the history
# (the program calibrates as it runs), which with CALIBRATE would leave nothing to extrapolate.
# The simulated runs' figures from their summaries: wall time to the microsecond, rate to 7 digits.
declare -A sim1 sim2
for b in $layouts; do
  for p in $policies; do
    for k in 1 2; do
      STARPU_CALIBRATE=0 "$sim" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 \
        --sim-task-gap "${GAP:-0}" --summary /tmp/simv_$k.csv > /tmp/simv_$k.log 2>&1 || rm -f /tmp/simv_$k.csv
    done
    sim1[$b$p]=$(tail -1 /tmp/simv_1.csv 2>/dev/null | cut -d, -f14,16)
    sim2[$b$p]=$(tail -1 /tmp/simv_2.csv 2>/dev/null | cut -d, -f14,16)
    rm -f /tmp/simv_1.csv /tmp/simv_2.csv
  done
done
for b in $layouts; do
  for p in $policies; do
    m=$("$real" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 2>&1 | rate)
    s1=${sim1[$b$p]} s2=${sim2[$b$p]}
    r1=${s1#*,}
    printf '%-8s %-7s %14s %14s %8s %s\n' "$b" "$p" "${m:-failed}" "${r1:-failed}" \
      "$(awk -v a="${r1:-0}" -v b="${m:-0}" 'BEGIN{ if (b > 0) printf "%.3f", a / b; else print "-" }')" \
      "$([ -n "$s1" ] && [ "$s1" = "$s2" ] && echo "identical (wall_s,rate $s1)" || echo "differs: ${s2:-failed}")"
  done
done
