#!/usr/bin/env bash
# Simulated against measured (issue 46): calibrates this machine's performance models with real
# runs, then runs every layout x policy for real and in simulation (the SimGrid build of
# tools/build_starpu_simgrid.sh, the same STARPU_HOME), twice simulated, and prints them side by side.
#   tools/sim_validate.sh CASE STEPS "LAYOUTS" "POLICIES"
#   tools/sim_validate.sh inputs/sweep.toml 100 "1x1 2x2 4x4" "dmda dmdas eager lws"
# Environment: REAL (default build/ondes3d), SIM (default build-sim/project/ondes3d), GAP (the
# simulated runs' --sim-task-gap, microseconds; default 0), STARPU_HOME
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
for b in $layouts; do
  for _ in 1 2; do STARPU_CALIBRATE=1 "$real" run "$case_file" --blocks "$b" --sched dmda --steps 40 --output /tmp/simv.h5 > /dev/null 2>&1; done
done
printf '# %s, %s steps, %s; STARPU_HOME=%s\n' "$(basename "$case_file")" "$steps" "$(uname -n)" "$STARPU_HOME"
printf '%-8s %-7s %14s %14s %8s %s\n' layout policy measured simulated sim/meas "second simulation"
for b in $layouts; do
  for p in $policies; do
    m=$("$real" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 2>&1 | rate)
    # The simulated runs' figures from their summaries: wall time to the microsecond, rate to 7 digits.
    for k in 1 2; do
      STARPU_CALIBRATE=0 "$sim" run "$case_file" --blocks "$b" --sched "$p" --steps "$steps" --output /tmp/simv.h5 \
        --sim-task-gap "${GAP:-0}" --summary /tmp/simv_$k.csv > /dev/null 2>&1 || rm -f /tmp/simv_$k.csv
    done
    s1=$(tail -1 /tmp/simv_1.csv 2>/dev/null | cut -d, -f14,16)
    s2=$(tail -1 /tmp/simv_2.csv 2>/dev/null | cut -d, -f14,16)
    r1=${s1#*,}
    printf '%-8s %-7s %14s %14s %8s %s\n' "$b" "$p" "${m:-failed}" "${r1:-failed}" \
      "$(awk -v a="${r1:-0}" -v b="${m:-0}" 'BEGIN{ if (b > 0) printf "%.3f", a / b; else print "-" }')" \
      "$([ -n "$s1" ] && [ "$s1" = "$s2" ] && echo "identical (wall_s,rate $s1)" || echo "differs: ${s2:-failed}")"
  done
done
