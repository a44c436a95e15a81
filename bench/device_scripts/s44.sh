#!/bin/bash
# HEAD's GPU code (with the small CUDA tidy-ups): test_gpu (layouts 2x4 and 2x5 added), then task
# traces (--trace) of 300 steps on one GPU, 4 CUDA workers (streams), at 1x1, 2x2 and 4x4, and 4x4
# with 8 workers: where 4x4 loses when its kernels take less time than the step (s42).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
for l in 1x1 2x2 4x4 4x4w8; do
  b=${l%w8} w=4; [[ $l == *w8 ]] && w=8
  STARPU_NWORKER_PER_CUDA=$w STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $b --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  echo "$l: $(STARPU_NWORKER_PER_CUDA=$w bin/ondes3d run $big --steps 300 --blocks $b --sched dmda --output /tmp/r.h5 \
    --trace $o/trace_$l.csv 2>&1 | grep -o 'done in.*cell-updates/s')"
done
