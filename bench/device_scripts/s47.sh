#!/bin/bash
# Two GPUs in one process, benchmark.toml (strong scaling), 150 steps: the edges saved by the
# marches (default) against a copy after the update (ONDES_EDGES=apart; s46: +1-2% at 1x2 on one
# GPU), at 1x2 and 1x2 with 16-cell strips, against one GPU at 1x1; alternated, two rounds.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STEPS=150
calibrate bin/ondes3d 1x1 STARPU_NCUDA=1
for l in 1x2 1x2+16; do for e in "" ONDES_EDGES=apart; do calibrate bin/ondes3d $l STARPU_NCUDA=2 $e; done; done
for rep in 1 2; do
  echo "1 GPU 1x1 #$rep: $(rate bin/ondes3d 1x1 STARPU_NCUDA=1)"
  for l in 1x2 1x2+16; do
    echo "2 GPUs $l default #$rep: $(rate bin/ondes3d $l STARPU_NCUDA=2)"
    echo "2 GPUs $l apart #$rep: $(rate bin/ondes3d $l STARPU_NCUDA=2 ONDES_EDGES=apart)"
  done
done
