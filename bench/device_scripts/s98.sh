#!/bin/bash
# The probes after their shared set-up moved to probe_state.hpp (step_params, Streams), and views_probe's
# VIEWS_DEPS=off fixed (it left out only the -x neighbour's handle before, not all four): views_probe with
# and without the neighbours' handles, then granularity_probe, pml_probe and fused_step_probe as a check
# that they still run and agree bit for bit. One GPU.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
export STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_NWORKER_PER_CUDA=4 STARPU_SCHED=lws
for x in on off on off; do
  echo "== views_probe VIEWS_DEPS=$x"; VIEWS_DEPS=$x timeout 150 bin/views_probe 512 512 256 300 4x4 2>&1 | grep -E "views|one block|raw|FAILED|equal"
done
echo "== granularity_probe"; timeout 120 bin/granularity_probe 512 512 256 100 4 4 2>&1 | tail -9
echo "== pml_probe"; timeout 120 bin/pml_probe 2>&1 | tail -12
echo "== fused_step_probe"; timeout 120 bin/fused_step_probe 2>&1 | tail -12
