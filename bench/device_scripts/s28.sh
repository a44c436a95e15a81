#!/bin/bash
# Every kernel of a StarPU 4x4 (and 2x2) step on one GPU under Nsight Compute, XHalo on and off
# (one CUDA worker, kernels one at a time; as bench/results/gpu_h200_kernels_by_layout.txt).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=1
for l in 4x4 2x2; do
  n=$(( ${l%x*} * ${l#*x} ))
  STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
  for x in on off; do
    ONDES_CUDA_XHALO=$x timeout 240 ncu --csv --cache-control none --clock-control none --print-units base \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      --launch-skip $((100 * n)) --launch-count $((60 * n)) \
      bin/ondes3d run $big --steps 30 --blocks $l --sched dmda --output /tmp/r.h5 > $o/ncu_${l}_$x.csv 2>&1
    echo "== $l xhalo $x"; python3 ncu_sum.py $o/ncu_${l}_$x.csv $n
  done
done
