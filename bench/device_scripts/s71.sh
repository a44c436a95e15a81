#!/bin/bash
# The stress march back to per-cell moduli (the velocity march and PML kernels keep the planes'
# factors), old/ = the build before the factors: test_gpu, plain loop x3 and StarPU 1x1 / 2x2 /
# 4x4 x2, alternated.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do gunzip -f "$f"; done
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
for rep in 1 2 3; do for b in old bin; do
  echo "$b plain #$rep: $($b/plain_loop $big 300 2>&1 | grep -o '[0-9.e+]* cell-updates/s, .*')"
done; done
export STARPU_NCPU=0 STARPU_NCUDA=1
for l in 1x1 2x2 4x4; do
  calibrate bin/ondes3d $l
  for rep in 1 2; do for b in old bin; do
    echo "$b starpu $l #$rep: $(rate $b/ondes3d $l)"
  done; done
done
