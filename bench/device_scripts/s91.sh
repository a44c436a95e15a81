#!/bin/bash
# One edge save for every kernel (edges.hpp save_edges_of: the marches from registers, the per-cell
# and PML kernels from the cell's components loaded first), old/ = the build before (the PML kernels
# on save_cell_edges' own box walk): test_gpu, then old/new alternated (plain loop x3, StarPU 2x2 and
# 4x4 x2; the PML kernels that save run in the blocks with neighbours).
cd "$(dirname "$0")"
. ./common.sh "$@"
for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
chmod +x bin/* old/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 2x2 4x4
