#!/bin/bash
# The PML kernels without divisions (PmlDivisors) on an H100, old/ = HEAD before it: test_gpu, then
# old/new alternated (plain loop x3, StarPU 1x1 x2).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 1x1
