#!/bin/bash
# The big block of each GPU on the GPU's first worker (the default) against on any of its workers
# (ONDES_BIG_BLOCK_FIRST=off): two GPUs in one process, 1x2+16 and 1x2+32, 300 steps, alternated
# twice; the CPU-only run against two GPUs at 1x2+4 (small case) bitwise.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
small=inputs/small_homogeneous.toml
STARPU_NCUDA=0 bin/ondes3d run $small --blocks 2x2 --output /tmp/cpu.h5 > /dev/null 2>&1
STARPU_NCPU=0 STARPU_NCUDA=2 bin/ondes3d run $small --blocks 1x2 --edge-strip 4 --output /tmp/g.h5 > /dev/null 2>&1
echo "CPU vs 2 GPUs 1x2+4: $(bin/ondes3d compare /tmp/cpu.h5 /tmp/g.h5 --tolerance 0 2>&1 | tail -1)"
export STARPU_NCPU=0 STARPU_NCUDA=2
for l in 1x2+16 1x2+32; do
  calibrate bin/ondes3d $l
  for rep in 1 2; do for m in on off; do
    echo "2 GPUs $l big first $m #$rep: $(rate bin/ondes3d $l ONDES_BIG_BLOCK_FIRST=$m)"
  done; done
done
