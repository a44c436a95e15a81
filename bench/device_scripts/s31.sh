#!/bin/bash
# XHalo with the x ghosts patched into the tiles (march.hpp XPatch): test_gpu, StarPU 1x1 and
# 2x2 / 4x4 with XHalo on and off alternated, s28's per-kernel ncu, then gpu_check correctness +
# benchmark (the table of issues 15 and 16).
cd "$(dirname "$0")"
. ./common.sh "$@"
bash s30.sh "$o" | grep -v "^NVIDIA"
check_table
