#!/bin/bash
# CPU + GPU against GPU only at 1x1, 2x2 and 4x4 (gpu_check.sh hybrid, 300 steps, dmda and dmdas),
# the same build as s51.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
HYBRID_BLOCKS="1x1 2x2 4x4" timeout 560 bash gpu_check.sh $o/check 300 hybrid > /dev/null 2>&1
grep -E "done in" $o/check/gpu_check.log | sed 's/, [0-9]* tasks per iteration.*//'
