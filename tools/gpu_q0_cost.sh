#!/usr/bin/env bash
# The cost of Ondes3D's q0 damping on one GPU (issue 17): benchmark.toml elastic and with q0 = 20 at
# 2 Hz, 1x1 blocks, dmda (a calibration run first). Run from the bundle: bash tools/gpu_q0_cost.sh
# [STEPS]. Prints one line per case with the rate in cell-updates/s.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$here/bin
steps=${1:-100}
case_file=$here/inputs/benchmark.toml
damped=/tmp/q0_benchmark.toml
sed "s/^rho = 2600.0$/rho = 2600.0\nq0 = 20.0\nq0_frequency = 2.0/" "$case_file" > "$damped"
for c in "$case_file" "$damped"; do
  STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_CALIBRATE=1 "$bin/ondes3d" run "$c" --steps 40 --blocks 1x1 --sched dmda \
    --output /tmp/cal.h5 > /dev/null 2>&1
  r=$(STARPU_NCPU=0 STARPU_NCUDA=1 "$bin/ondes3d" run "$c" --steps "$steps" --blocks 1x1 --sched dmda \
    --output /tmp/run.h5 2>&1 | sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' | head -1)
  printf '%-40s %s\n' "$(basename "$c")" "${r:-failed}"
done
