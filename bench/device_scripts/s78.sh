#!/bin/bash
# HEAD's build on an H100: test_gpu (CUDA = CPU bitwise), the plain loop twice, StarPU 1 GPU 1x1
# twice (GPU only, after a calibration run): issue 15's H100 figures this session.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
for rep in 1 2; do echo "plain loop #$rep: $(bin/plain_loop $big 300 2>&1 | grep -o 'in .*step')"; done
export STARPU_NCPU=0
calibrate bin/ondes3d 1x1
for rep in 1 2; do echo "starpu 1x1 #$rep: $(rate bin/ondes3d 1x1)"; done
