#!/bin/bash
# Saving / x-face marches at 4 thread blocks an SM (march.hpp EdgeCell, use_full_blocks) and ghost
# copies of 8 planes a thread (edges.hpp halo_kernel): test_gpu, StarPU A/B of
# ONDES_CUDA_SAVE_BLOCKS auto / 3 / 4 (2x2, 4x4) and ONDES_CUDA_HALO_PLANES 8 / 1 (4x4), per-kernel
# ncu of a 4x4 step (new defaults, and the old design: SAVE_BLOCKS=3 HALO_PLANES=1), then
# gpu_check correctness + benchmark (s29 for the CPU + GPU rows).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_SAVE_BLOCKS "auto 3 4" 1x1 2x2 4x4
starpu_ab ONDES_CUDA_HALO_PLANES "8 1" 4x4
l=4x4; n=16
for mode in new old; do
  [ $mode = old ] && e="ONDES_CUDA_SAVE_BLOCKS=3 ONDES_CUDA_HALO_PLANES=1" || e=""
  env $e STARPU_NWORKER_PER_CUDA=1 timeout 240 ncu --csv --cache-control none --clock-control none --print-units base \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --launch-skip $((100 * n)) --launch-count $((60 * n)) \
    bin/ondes3d run $big --steps 30 --blocks $l --sched dmda --output /tmp/r.h5 > $o/ncu_${l}_$mode.csv 2>&1
  echo "== $l $mode"; python3 ncu_sum.py $o/ncu_${l}_$mode.csv $n
done
unset STARPU_NCPU STARPU_NCUDA
timeout ${CHECK_LIMIT:-300} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
