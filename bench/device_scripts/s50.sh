#!/bin/bash
# Why a GPU holding half the grid runs below the one-GPU 1x1 rate (s49, two H200s: the 240-row
# block's tasks 14-16% slower a cell than the 1x1 step task). One GPU: 1x1 (step task) and 1x1
# with ONDES_STEP_TASK=off, 1x2, 1x2 with the edges saved apart (ONDES_EDGES=apart: non-saving
# marches), 1x2+16; two GPUs: 1x2 and 1x2+16 default / apart (two rounds, alternated, 300 steps);
# then Nsight Compute's per-kernel times of a 1x1 and a 1x2 step (one GPU, ncu_step).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0
one="1x1 1x1:ONDES_STEP_TASK=off 1x2 1x2:ONDES_EDGES=apart 1x2+16 1x2+16:ONDES_EDGES=apart"
two="1x2 1x2:ONDES_EDGES=apart 1x2+16 1x2+16:ONDES_EDGES=apart"
for c in $one; do calibrate bin/ondes3d ${c%%:*} STARPU_NCUDA=1 $([[ $c == *:* ]] && echo ${c#*:}); done
for c in $two; do calibrate bin/ondes3d ${c%%:*} STARPU_NCUDA=2 $([[ $c == *:* ]] && echo ${c#*:}); done
for rep in 1 2; do
  for c in $one; do echo "1 GPU $c #$rep: $(rate bin/ondes3d ${c%%:*} STARPU_NCUDA=1 $([[ $c == *:* ]] && echo ${c#*:}))"; done
  for c in $two; do echo "2 GPUs $c #$rep: $(rate bin/ondes3d ${c%%:*} STARPU_NCUDA=2 $([[ $c == *:* ]] && echo ${c#*:}))"; done
done
export STARPU_NCUDA=1
ncu_step 1x1 default
ncu_step 1x2 default
ncu_step 1x2 apart ONDES_EDGES=apart
