#!/bin/bash
# Ghost buffers fetched to the consumer's GPU as soon as they are written (tasks/prefetch.hpp; the
# default) against fetched when the consumer is ready (ONDES_GHOST_PREFETCH=off): two GPUs in one
# process at 1x2+16, 1x2, 4x4, 300 steps, alternated three times; the CPU-only run against two
# GPUs (2x2 and 1x2+4 blocks, small case) bitwise; a task trace with prefetching.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
small=inputs/small_homogeneous.toml
STARPU_NCUDA=0 bin/ondes3d run $small --blocks 2x2 --output /tmp/cpu.h5 > /dev/null 2>&1
for l in 2x2 1x2+4; do
  STARPU_NCPU=0 STARPU_NCUDA=2 bin/ondes3d run $small --blocks ${l%%+*} --edge-strip $([[ $l == *+* ]] && echo ${l#*+} || echo 0) \
    --output /tmp/g.h5 2>&1 | grep -E "tiled|error" | sed 's/^.*\] //'
  echo "CPU vs 2 GPUs $l: $(bin/ondes3d compare /tmp/cpu.h5 /tmp/g.h5 --tolerance 0 2>&1 | tail -1)"
done
export STARPU_NCPU=0 STARPU_NCUDA=2
for l in 1x2+16 1x2 4x4; do
  calibrate bin/ondes3d $l
  for rep in 1 2 3; do for m in on off; do
    echo "2 GPUs $l prefetch $m #$rep: $(rate bin/ondes3d $l ONDES_GHOST_PREFETCH=$m)"
  done; done
done
bin/ondes3d run $big --steps 200 --blocks 1x2 --edge-strip 16 --sched dmda --trace $o/trace_prefetch.csv \
  --output /tmp/r.h5 2>&1 | grep -o "done in.*cell-updates/s"
python3 trace_overlap.py --by-device $o/trace_prefetch.csv | tail -12
