#!/bin/bash
# Where StarPU's 0.28 ms a 4x4 step goes in views_probe (s93: 1x1 3.01 ms, 4x4 views 3.29 ms; without
# a runtime the same marches 2.93 / 2.97 ms): the neighbours' dependencies left out (VIEWS_DEPS=off,
# timing only), StarPU's driver knobs, streams, policies. One GPU.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=4 STARPU_SCHED=lws
vp() { echo "== $*"; env "$@" timeout 120 bin/views_probe 512 512 256 300 4x4 2>&1 | grep -E "views|one block|FAILED|equal"; }
vp X=reference
vp VIEWS_DEPS=off
vp STARPU_CUDA_PIPELINE=4
vp STARPU_CUDA_PIPELINE=16
vp STARPU_CUDA_PIPELINE=0
vp STARPU_NWORKER_PER_CUDA=1
vp STARPU_NWORKER_PER_CUDA=2
vp STARPU_SCHED=prio
vp STARPU_CUDA_THREAD_PER_WORKER=1
vp STARPU_NWORKER_PER_CUDA=8 STARPU_CUDA_PIPELINE=4
