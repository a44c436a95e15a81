#!/bin/bash
# One H200, 4x4 blocks of benchmark.toml: the march geometry (ONDES_CUDA_MARCH), workers per GPU
# and policies around the defaults, each twice, alternated; 1x1 once for reference.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0 STARPU_NCUDA=1
calibrate bin/ondes3d 1x1
calibrate bin/ondes3d 4x4
echo "1x1 default: $(rate bin/ondes3d 1x1)"
for rep in 1 2; do
  echo "4x4 default #$rep: $(rate bin/ondes3d 4x4)"
  for m in 8x2x4 8x8x4 8x4x3 16x4x2 8x4x4x32; do
    echo "4x4 ONDES_CUDA_MARCH=$m #$rep: $(rate bin/ondes3d 4x4 ONDES_CUDA_MARCH=$m)"
  done
  for w in 2 8; do
    echo "4x4 STARPU_NWORKER_PER_CUDA=$w #$rep: $(rate bin/ondes3d 4x4 STARPU_NWORKER_PER_CUDA=$w)"
  done
  for s in dmdas lws; do
    echo "4x4 sched $s #$rep: $(SCHED=$s rate bin/ondes3d 4x4)"
  done
  echo "4x4 ONDES_GHOST_PREFETCH=off #$rep: $(rate bin/ondes3d 4x4 ONDES_GHOST_PREFETCH=off)"
done
