#!/bin/bash
# One GPU (an H200 asked for): test_gpu, the plain loop twice, StarPU 1x1 and 4x4 twice (GPU only,
# dmda, 300 steps after a calibration run) of the build with the edges saved from registers.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
for rep in 1 2; do echo "plain loop #$rep: $(bin/plain_loop $big 300 2>&1 | grep -o '[0-9.e+]* cell-updates/s, .*')"; done
for l in 1x1 4x4; do
  STARPU_NCPU=0 STARPU_NCUDA=1 calibrate bin/ondes3d $l
  for rep in 1 2; do echo "starpu $l #$rep: $(STARPU_NCPU=0 STARPU_NCUDA=1 rate bin/ondes3d $l)"; done
done
