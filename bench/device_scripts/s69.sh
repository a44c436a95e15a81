#!/bin/bash
# The planes' factors loaded before the next plane's loads (march.hpp), old/ = the build before the
# factors: plain loop x3, StarPU 1x1 / 2x2 / 4x4 x2, alternated; test_gpu on the new build.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 1x1 2x2 4x4
