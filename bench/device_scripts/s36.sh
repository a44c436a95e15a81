#!/bin/bash
# Streams a GPU (StarPU workers per CUDA device) on the kept build of s35: 4 (the default) / 6 /
# 8 / 12 at 1x1, 2x2, 4x4, then the CPU + GPU rows (s29).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
STARPU_NCPU=0 STARPU_NCUDA=1 starpu_ab STARPU_NWORKER_PER_CUDA "4 6 8 12" 2x2 4x4
for w in 4 8; do echo "starpu 1x1 workers $w: $(STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=$w bin/ondes3d run $big --steps 300 --blocks 1x1 --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"; done
STEPS=300 bash s29.sh "$o" | grep -v "^NVIDIA"
