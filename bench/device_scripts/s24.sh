#!/bin/bash
# The band order's divisions by multiply and shift (march.hpp FastDiv): test_gpu with bands of 32 and
# with the default, plain loop 3D grid / bands of 32 / one band / bands of 16 alternated, StarPU 1x1.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
for m in 8x0x4x32 8x0x4x7 default; do test_gpu_run $m; done
for rep in 1 2; do for m in 8x0x4x0 8x0x4x32 8x0x4x999 8x0x4x16 8x0x4x-1; do
  echo "plain $m #$rep: $(ONDES_CUDA_MARCH=$m bin/plain_loop $big 300 2>&1 | grep -o 'in .*per step')"
done; done
export STARPU_NCPU=0 STARPU_NCUDA=1
STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks 1x1 --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
for rep in 1 2; do for m in 8x0x4x0 8x0x4x32; do
  echo "starpu 1x1 $m #$rep: $(ONDES_CUDA_MARCH=$m bin/ondes3d run $big --steps 300 --blocks 1x1 --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
done; done
for l in 2x2 4x4; do for m in 8x0x4x0 8x0x4x32; do
  STARPU_CALIBRATE=1 ONDES_CUDA_MARCH=$m bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  echo "starpu $l $m: $(ONDES_CUDA_MARCH=$m bin/ondes3d run $big --steps 300 --blocks $l --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
done; done
