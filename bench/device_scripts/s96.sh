#!/bin/bash
# After the tidy-ups (compute.hpp pml_cell: the PML sizes once a cell; march.hpp read_march's condition):
# test_gpu, this build against HEAD's (old/: plain loop x3, StarPU 1x1 / 4x4 x2, alternated), the
# views probe as CMake builds it, and ONDES_CUDA_MARCH without and with its 4th field (accepted both).
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 1x1 4x4
for m in 8x0x4 8x0x4x32 8x0x4x-3; do
  echo "ONDES_CUDA_MARCH=$m: $(STARPU_NCPU=0 STARPU_NCUDA=1 rate bin/ondes3d 1x1 ONDES_CUDA_MARCH=$m) $(STARPU_NCPU=0 STARPU_NCUDA=1 ONDES_CUDA_MARCH=$m bin/ondes3d run $big --steps 5 --output /tmp/r.h5 2>&1 | grep -o 'ONDES_CUDA_MARCH=[^ ]* ignored')"
done
STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_SCHED=lws timeout 150 bin/views_probe 512 512 256 300 4x4 2>&1 | grep -v "^\[starpu"
