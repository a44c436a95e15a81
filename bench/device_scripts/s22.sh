#!/bin/bash
# Issue 16: task traces of 2 GPUs in one process (weak: 512 x 1024 on 2 GPUs, 1x2+16 dmdas and
# dmda, 1x2 dmda; strong: benchmark.toml 1x2+16 dmda) and of 1 GPU 1x1 (the same per-GPU block).
cd "$(dirname "$0")"
. ./common.sh "$@"
weak=/tmp/weak_2.toml
sed "s/^ny = .*/ny = 1024/" $big > $weak
run() {  # NAME CASE NCUDA BLOCKS STRIP SCHED
  STARPU_NCPU=0 STARPU_NCUDA=$3 STARPU_CALIBRATE=1 bin/ondes3d run $2 --steps 40 --blocks $4 --edge-strip $5 --sched $6 --output /tmp/c.h5 > /dev/null 2>&1
  echo "$1: $(STARPU_NCPU=0 STARPU_NCUDA=$3 bin/ondes3d run $2 --steps 100 --blocks $4 --edge-strip $5 --sched $6 --output /tmp/r.h5 --trace $o/trace_$1.csv 2>&1 | grep -oE 'done in.*cell-updates/s|profile.*')"
}
run one_1x1 $big 1 1x1 0 dmda
run weak_1x2s16_dmdas $weak 2 1x2 16 dmdas
run weak_1x2s16_dmda $weak 2 1x2 16 dmda
run weak_1x2_dmda $weak 2 1x2 0 dmda
run strong_1x2s16_dmda $big 2 1x2 16 dmda
STARPU_WORKERS_NOBIND=0 true
for n in 1 2; do echo "weak 1x2+16 dmda, STARPU_NWORKER_PER_CUDA=$n: $(STARPU_NWORKER_PER_CUDA=$n STARPU_NCPU=0 STARPU_NCUDA=2 bin/ondes3d run $weak --steps 100 --blocks 1x2 --edge-strip 16 --sched dmda --output /tmp/r.h5 2>&1 | grep -oE 'done in.*cell-updates/s')"; done
ls -la $o
