#!/bin/bash
# The scaling table of issue 16 on a 2-GPU machine (gpu_check.sh OUT 150 scaling, SCALING_GPUS=2),
# with ONDES_CUDA_PDL=off: the committed code path (plain launches) on s38's build.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export ONDES_CUDA_PDL=off
SCALING_GPUS=2 timeout 400 bash gpu_check.sh $o/check 150 scaling > /dev/null 2>&1
cat $o/check/scaling_table.txt 2>/dev/null
grep -E "^  (strong|weak)" $o/check/gpu_check.log 2>/dev/null
