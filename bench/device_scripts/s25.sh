#!/bin/bash
# Final build (FastDiv in core/): test_gpu with the default and bands of 7 rows, plain loop default.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
for m in default 8x0x4x7; do test_gpu_run $m; done
for rep in 1 2; do echo "plain default #$rep: $(bin/plain_loop inputs/benchmark.toml 300 2>&1 | grep -o 'in .*per step')"; done
