#!/bin/bash
# Parked CPU workers (tasks/park.hpp): one GPU beside nproc-1 CPU workers, parked (the default) and
# polling (ONDES_PARK_CPUS=off), against the GPU alone, at 1x1, 2x2 and 4x4 (300 steps, dmda,
# alternated twice); the Park unit test; whether nsys is here.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1; nproc
n=$(( $(nproc) - 1 ))
timeout 60 bin/test_lab --gtest_filter='Park.*' 2>&1 | tail -2
bin/ondes3d run $big --steps 20 --blocks 2x2 --sched dmda --output /tmp/r.h5 2>&1 | grep -E "parked|profile:" | sed 's/^.*\] //'
env STARPU_NCPU=$n STARPU_NCUDA=1 bin/ondes3d run $big --steps 20 --blocks 2x2 --sched dmda --output /tmp/r.h5 2>&1 |
  grep -E "parked|profile:|CUDA workers" | sed 's/^.*\] //'
hybrid_ab 2x2 4x4 1x1
which nsys ncu 2>&1; ls /usr/local/cuda/bin 2>/dev/null | grep -i nsys
