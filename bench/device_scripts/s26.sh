#!/bin/bash
# The trace's block column on CUDA workers: a 2x2 StarPU run with --trace; test_gpu.
cd "$(dirname "$0")"
. ./common.sh "$@"
test_gpu_run
STARPU_NCPU=0 STARPU_NCUDA=1 bin/ondes3d run inputs/benchmark.toml --steps 20 --blocks 2x2 --sched dmda --output /tmp/r.h5 --trace $o/trace_2x2.csv 2>&1 | grep -o "done in.*"
head -4 $o/trace_2x2.csv; cut -d, -f3,6 $o/trace_2x2.csv | sort | uniq -c
