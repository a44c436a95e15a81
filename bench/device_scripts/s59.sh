#!/bin/bash
# (1) Parked CPU workers with the tasks in a context of the GPU workers (the default) against
# polling ones (ONDES_PARK_CPUS=off) and the GPU alone: 1 GPU + nproc-1 CPU workers at 2x2, 4x4,
# 1x1, 300 steps, alternated twice. (2) Two GPUs in one process (1x2+16) against two ranks of one
# GPU (1x2+16, dmdas), alternated three times, and a task trace of the one process (trace_overlap.py).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c; nproc
n=$(( $(nproc) - 1 ))
env STARPU_NCPU=$n STARPU_NCUDA=1 bin/ondes3d run $big --steps 20 --blocks 2x2 --sched dmda --output /tmp/r.h5 2>&1 |
  grep -E "parked|profile:|done in" | sed 's/^.*\] //'
hybrid_ab 2x2 4x4 1x1
calibrate bin/ondes3d 1x2+16 STARPU_NCPU=0 STARPU_NCUDA=2
SCHED=dmdas mpi_calibrate 2 1x2+16
for rep in 1 2 3; do
  echo "1 process 1x2+16 #$rep: $(rate bin/ondes3d 1x2+16 STARPU_NCPU=0 STARPU_NCUDA=2)"
  echo "2 ranks 1x2+16 dmdas #$rep: $(SCHED=dmdas mpi_rate 2 1x2+16)"
done
STARPU_NCPU=0 STARPU_NCUDA=2 bin/ondes3d run $big --steps 200 --blocks 1x2 --edge-strip 16 --sched dmda \
  --trace $o/trace_process.csv --output /tmp/r.h5 2>&1 | grep -o "done in.*cell-updates/s"
echo "== one process"; python3 trace_overlap.py --by-device $o/trace_process.csv | tail -25
