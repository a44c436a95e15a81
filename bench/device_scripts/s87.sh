#!/bin/bash
# The saving marches' edges from registers (march.hpp save_edges_of; the velocity damped in
# registers), old/ = HEAD before it: test_gpu, then old/new alternated (plain loop x3, StarPU 4x4,
# 2x2 and 1x1 x2 each, GPU only, dmda, 300 steps after a calibration run).
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 4x4 2x2 1x1
# The granularity probe of this build at the default geometry and with every march at 3 thread
# blocks an SM and 4 planes (ONDES_CUDA_MARCH=8x4x3, the saving and x-face kernels' geometry).
for g in default 8x4x3; do
  echo "== probe, march $g"
  env $([ $g != default ] && echo ONDES_CUDA_MARCH=$g) bin/granularity_probe 512 512 256 100 4 4 2>&1 | grep -vE "^device"
done
