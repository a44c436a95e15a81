#!/bin/bash
# XHalo with the face columns in their own instantiation (march.hpp velocity_column / stress_column):
# test_gpu, StarPU 1x1 and 2x2 / 4x4 with XHalo on and off alternated, then s28's per-kernel ncu.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
for l in 1x1 2x2 4x4; do
  STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  for rep in 1 2; do for x in on off; do
    [ $l = 1x1 ] && [ $x = off ] && continue
    echo "starpu $l xhalo $x #$rep: $(ONDES_CUDA_XHALO=$x bin/ondes3d run $big --steps 300 --blocks $l --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
  done; done
done
bash s28.sh "$o" | grep -v "^NVIDIA"
