#!/bin/bash
# The kept build: ghost copies of 8 planes a thread (edges.hpp halo_kernel), the march as in
# ff27c1b. test_gpu, StarPU A/B of ONDES_CUDA_HALO_PLANES 8 / 1 / 16 (1x1: 8 only), per-kernel ncu
# of a 4x4 step with 8 and 1, then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_HALO_PLANES "8 1 16" 1x1 2x2 4x4
l=4x4; n=16
for p in 8 1; do
  ONDES_CUDA_HALO_PLANES=$p STARPU_NWORKER_PER_CUDA=1 timeout 240 ncu --csv --cache-control none --clock-control none \
    --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --launch-skip $((100 * n)) --launch-count $((60 * n)) \
    bin/ondes3d run $big --steps 30 --blocks $l --sched dmda --output /tmp/r.h5 > $o/ncu_${l}_$p.csv 2>&1
  echo "== $l halo planes $p"; python3 ncu_sum.py $o/ncu_${l}_$p.csv $n
done
unset STARPU_NCPU STARPU_NCUDA
timeout ${CHECK_LIMIT:-300} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
