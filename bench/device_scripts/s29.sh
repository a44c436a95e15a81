#!/bin/bash
# CPU + GPU against GPU only on one GPU at 1x1, 2x2 and 4x4 (issue 16: hybrid never loses), then
# the one-GPU rows of the scaling table (1x1 / 2x2 / 4x4), with XHalo on (the default).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
HYBRID_BLOCKS="1x1 2x2 4x4" timeout 500 bash gpu_check.sh $o/hybrid ${STEPS:-200} hybrid > /dev/null 2>&1
grep -E "#[12]:" $o/hybrid/gpu_check.log | sed 's/profile.*//'
