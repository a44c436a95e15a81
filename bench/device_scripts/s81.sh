#!/bin/bash
# The PML probe (bench/pml_probe.cu): compute.hpp's PML kernels by region of the PML, and a thread
# walking KZ planes of its PML column (z neighbours in register windows), checked bit for bit and
# timed; then one step of each form under Nsight Compute (DRAM bytes, L2 read sectors).
cd "$(dirname "$0")"
. ./common.sh "$@"
chmod +x bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
bin/pml_probe 512 512 256 100 2>&1 | tee $o/probe.txt
timeout 200 ncu --csv --cache-control none --clock-control none --print-units base \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
  --launch-count 14 bin/pml_probe 512 512 256 1 > $o/ncu.csv 2>&1
python3 ncu_kernels.py $o/ncu.csv
