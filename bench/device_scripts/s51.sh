#!/bin/bash
# The build with the edges saved apart by default for CUDA blocks with no x neighbour and the
# frontier tasks on a high-priority stream: test_gpu (two GPUs; 1x3 added), then the scaling table
# (gpu_check.sh scaling on two GPUs, 300 steps, strips of 32 rows as an extra layout).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
grep -E "samples differ" $o/test_gpu.log | head -12
SCALING_GPUS=2 SCALING_LAYOUTS="1x2+32" timeout 520 bash gpu_check.sh $o/check 300 scaling > /dev/null 2>&1
grep -E "^  (strong|weak)" $o/check/gpu_check.log
cat $o/check/scaling_table.txt
