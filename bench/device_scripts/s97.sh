#!/bin/bash
# Issue 16's scaling table on this session's last build (gpu_check.sh scaling, best of 2 runs a row), two GPUs.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
SCALING_GPUS=2 SCALING_LAYOUTS="1xG+32" timeout 540 bash gpu_check.sh $o/check 300 scaling > /dev/null 2>&1
echo "rc=$?"
cat $o/check/scaling_table.txt
