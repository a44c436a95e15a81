#!/bin/bash
# Granularity probe (bench/granularity_probe.cu): march.hpp's two kernels over one 512x512x256 block
# against the same cells as 4x4 and 2x2 blocks, launched on 1-16 streams, no runtime; the PML probe
# again on this GPU; whether nsys is here.
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
bin/granularity_probe 512 512 256 100 4 4 2>&1 | tee $o/gran44.txt
bin/granularity_probe 512 512 256 100 2 2 2>&1 | tee $o/gran22.txt
bin/pml_probe 512 512 256 100 2>&1 | grep -E "device|cells: (velocity|stress|both) " | head -4
which nsys; ls /usr/local/cuda/bin /opt/nvidia 2>/dev/null | grep -i nsys
