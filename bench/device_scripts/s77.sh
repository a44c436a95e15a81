#!/bin/bash
# Where a 4x4 step goes now on one H200 (HEAD's build): every kernel of a StarPU 1x1 and 4x4 run
# under Nsight Compute (ncu_step: one worker, kernels one at a time), and 4x4 with the march's
# planes a thread block for the edge-saving kernels (ONDES_CUDA_MARCH=8xKZx4: KZ 2, 4, 8), alternated.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0
calibrate bin/ondes3d 1x1; calibrate bin/ondes3d 4x4
for rep in 1 2; do
  echo "1x1 #$rep: $(rate bin/ondes3d 1x1)"
  for m in default 8x2x4x0 8x4x4x0 8x8x4x0; do
    mm=""; [ $m != default ] && mm="ONDES_CUDA_MARCH=$m"
    echo "4x4 $m #$rep: $(rate bin/ondes3d 4x4 $mm)"
  done
done
ncu_step 1x1 head
ncu_step 4x4 head
