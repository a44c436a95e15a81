#!/bin/bash
# Issue 16's scaling table on two GPUs with the planes' factors (gpu_check.sh scaling, best of 2
# runs a row), the extra layout 1x2+32 (the best with ranks last time).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
SCALING_GPUS=2 SCALING_LAYOUTS="1xG+32" timeout 570 bash gpu_check.sh $o/check 300 scaling > /dev/null 2>&1
echo "rc=$?"
cat $o/check/scaling_table.txt
grep -E "^  (strong|weak)" $o/check/gpu_check.log | head -40
