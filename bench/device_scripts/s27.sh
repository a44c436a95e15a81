#!/bin/bash
# x faces read from the neighbours' buffers (codelets/edges.hpp XHalo): test_gpu (its 4x3 and 5x2
# layouts), StarPU 2x2 / 4x4 with XHalo on and off alternated (same build), then gpu_check
# correctness + benchmark (1x1, 2x2, 4x4, CPU+GPU rows).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
for l in 2x2 4x4; do
  STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  for rep in 1 2; do for x in on off; do
    echo "starpu $l xhalo $x #$rep: $(ONDES_CUDA_XHALO=$x bin/ondes3d run $big --steps 300 --blocks $l --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
  done; done
done
unset STARPU_NCPU STARPU_NCUDA
timeout ${CHECK_LIMIT:-420} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
