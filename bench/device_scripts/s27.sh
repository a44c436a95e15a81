#!/bin/bash
# x faces read from the neighbours' buffers (codelets/edges.hpp XHalo): test_gpu (its 4x3 and 5x2
# layouts), StarPU 2x2 / 4x4 with XHalo on and off alternated (same build), then gpu_check
# correctness + benchmark (1x1, 2x2, 4x4, CPU+GPU rows).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_XHALO "on off" 2x2 4x4
unset STARPU_NCPU STARPU_NCUDA
timeout ${CHECK_LIMIT:-420} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
