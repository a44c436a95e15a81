#!/bin/bash
# This session's figures of the build with the edges saved from registers on two GPUs: test_gpu (CUDA = CPU bitwise, GPU 0), the
# plain loop twice, then issue 16's scaling table (gpu_check.sh scaling, best of 2 runs a row).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
for rep in 1 2; do echo "plain loop #$rep: $(bin/plain_loop $big 300 2>&1 | grep -o 'in .*step')"; done
SCALING_GPUS=2 SCALING_LAYOUTS="1xG+32" timeout 480 bash gpu_check.sh $o/check 300 scaling > /dev/null 2>&1
echo "rc=$?"
cat $o/check/scaling_table.txt
grep -E "^  (strong|weak)" $o/check/gpu_check.log | head -40
