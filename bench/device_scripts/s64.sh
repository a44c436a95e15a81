#!/bin/bash
# A plane's material values once a plane (march.hpp PlaneValues) against every thread computing
# them: old/ holds the binaries built without it. march.hpp's kernels alone on the interior box
# (fused_step_probe, ONDES_PROBE=march), the plain loop and StarPU 1x1 / 2x2 / 4x4 on the
# benchmark, old and new alternated; test_gpu (CUDA = CPU bitwise) on the new build.
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do gunzip -f "$f"; done  # the probe, before old_new_ab
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
for rep in 1 2 3; do for b in old bin; do
  echo "$b march box #$rep: $(ONDES_PROBE=march $b/fused_step_probe 512 512 256 200 | grep -o '[0-9.]* ms a step.*')"
done; done
old_new_ab 1x1 2x2 4x4
