#!/bin/bash
# Saving marches (3 thread blocks an SM, s45: 37.5% occupancy, 2.22-2.31 TB/s at 4x4) against the
# marches of a 1x1 block (4 an SM, 50%, 2.51-2.53 TB/s) with the edges saved by a copy after the
# update (ONDES_EDGES=apart) and the x faces' ghosts copied in (ONDES_CUDA_XHALO=off): test_gpu
# both ways, StarPU A/B alternated at 1x2, 1x2+16, 2x2, 4x4: default / apart / apart + xhalo off;
# per-kernel ncu of a 4x4 step, apart + xhalo off.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
ONDES_EDGES=apart ONDES_CUDA_XHALO=off timeout 200 bin/test_gpu > $o/test_gpu_apart.log 2>&1
echo "test_gpu apart+xoff rc=$? $(grep -cE '^\[       OK' $o/test_gpu_apart.log) ok"
export STARPU_NCPU=0 STARPU_NCUDA=1
for l in 4x4 2x2 1x2 1x2+16; do
  calibrate bin/ondes3d $l
  calibrate bin/ondes3d $l ONDES_EDGES=apart ONDES_CUDA_XHALO=off
  for rep in 1 2; do
    echo "$l default #$rep: $(rate bin/ondes3d $l)"
    echo "$l apart #$rep: $(rate bin/ondes3d $l ONDES_EDGES=apart)"
    echo "$l apart+xoff #$rep: $(rate bin/ondes3d $l ONDES_EDGES=apart ONDES_CUDA_XHALO=off)"
  done
done
ncu_step 4x4 apart_xoff ONDES_EDGES=apart ONDES_CUDA_XHALO=off
