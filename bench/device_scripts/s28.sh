#!/bin/bash
# Every kernel of a StarPU 4x4 (and 2x2) step on one GPU under Nsight Compute, XHalo on and off
# (one CUDA worker, kernels one at a time; as bench/results/gpu_h200_kernels_by_layout.txt).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=1
for l in 4x4 2x2; do
  STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  for x in on off; do ncu_step $l xhalo_$x ONDES_CUDA_XHALO=$x; done
done
