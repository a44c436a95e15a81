#!/bin/bash
# The per-GPU band default (march.hpp device_rows) on one GPU: test_gpu, plain loop default / 3D
# grid / bands of 32 alternated, StarPU 1x1 default vs 3D grid, gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
for rep in 1 2; do for m in default 8x0x4x0 8x0x4x32; do
  mm=$m; [ $m = default ] && mm=""
  echo "plain $m #$rep: $(ONDES_CUDA_MARCH=$mm bin/plain_loop $big 300 2>&1 | grep -o 'in .*per step')"
done; done
if [ -z "${SKIP_STARPU_AB:-}" ]; then
  export STARPU_NCPU=0 STARPU_NCUDA=1
  STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks 1x1 --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  for rep in 1 2; do for m in default 8x0x4x0; do
    mm=$m; [ $m = default ] && mm=""
    echo "starpu 1x1 $m #$rep: $(ONDES_CUDA_MARCH=$mm bin/ondes3d run $big --steps 300 --blocks 1x1 --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
  done; done
  unset STARPU_NCPU STARPU_NCUDA
fi
timeout ${CHECK_LIMIT:-300} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED|mpi status" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
cat $o/check/scaling_table.txt 2>/dev/null
