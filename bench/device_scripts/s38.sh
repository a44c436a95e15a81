#!/bin/bash
# Chained launches (programmatic dependent launch: kernel_support.hpp launch_chained, chain_begin):
# test_gpu, the plain loop and StarPU 1x1 / 2x2 / 4x4 with ONDES_CUDA_PDL on and off alternated,
# then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
for rep in 1 2; do for x in on off; do
  echo "plain ONDES_CUDA_PDL=$x #$rep: $(ONDES_CUDA_PDL=$x bin/plain_loop $big 300 2>&1 | grep -oE '[0-9.e+]+ cell-updates/s')"
done; done
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_PDL "on off" 4x4 2x2
for rep in 1 2; do for x in on off; do
  echo "starpu 1x1 ONDES_CUDA_PDL=$x #$rep: $(ONDES_CUDA_PDL=$x bin/ondes3d run $big --steps 300 --blocks 1x1 --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
done; done
unset STARPU_NCPU STARPU_NCUDA
check_table
