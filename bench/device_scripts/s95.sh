#!/bin/bash
# views_probe with its raw-streams mode (the views' marches without StarPU), and granularity_probe
# (gp_33: the same marches over per-block arrays of 132 x 132 x 260). One GPU.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=4 STARPU_SCHED=lws
timeout 200 bin/views_probe 512 512 256 300 2x2 4x4 2>&1 | grep -v "^\[starpu"
echo "== gp_33"; bin/gp_33 512 512 256 300 4 4 2>&1 | tail -9
