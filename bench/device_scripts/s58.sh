#!/bin/bash
# Stations sampled by the blocks' compute_stress (default) against sample_stations / record tasks
# of their own (ONDES_SAMPLES=apart): two GPUs in one process (1x2+16), two ranks (1x2+32), one
# GPU 4x4 and 2x2, 300 steps, alternated twice; test_gpu (CUDA = CPU bitwise) first.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c; nproc
test_gpu_run
for l in 1x2+16 4x4 2x2; do
  g=1; [ $l = 1x2+16 ] && g=2
  calibrate bin/ondes3d $l STARPU_NCPU=0 STARPU_NCUDA=$g
  for rep in 1 2; do for m in apart stress; do
    echo "$g GPU(s) $l samples $m #$rep: $(rate bin/ondes3d $l STARPU_NCPU=0 STARPU_NCUDA=$g ONDES_SAMPLES=$m)"
  done; done
done
mpi_calibrate 2 1x2+32
for rep in 1 2; do for m in apart stress; do
  echo "2 ranks 1x2+32 samples $m #$rep: $(mpi_rate 2 1x2+32 ONDES_SAMPLES=$m)"
done; done
