#!/bin/bash
# Four GPUs (the first session where the device tool lends a 4-GPU kind): test_gpu over all of
# them, then the scaling table for 4 GPUs (gpu_check.sh scaling, 300 steps; strips of 32 and 8
# rows as extra layouts) with the one-GPU rows, the s51 build.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
nvidia-smi topo -m 2>/dev/null | head -8
test_gpu_run
SCALING_GPUS=4 SCALING_LAYOUTS="1xG+32 1xG+8" timeout 480 bash gpu_check.sh $o/check 300 scaling > /dev/null 2>&1
grep -E "^  (strong|weak)" $o/check/gpu_check.log
cat $o/check/scaling_table.txt
