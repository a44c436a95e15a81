#!/bin/bash
# H200: what bounds the march kernels? ncu SOL / memory / warp-state sections of one step's four
# main kernels, 3D grid with KZ 2 (default) and KZ 4; plus the L2 sector counts.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for m in 8x2x4x0 8x4x4x0 8x2x4x32; do
  echo "plain $m: $(ONDES_CUDA_MARCH=$m bin/plain_loop $big 200 2>&1 | grep -o 'in .*per step')"
done
met=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum
for m in 8x2x4x0 8x4x4x0 8x2x4x32; do
  ONDES_CUDA_MARCH=$m timeout 280 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march|_pml_cells" --launch-skip 40 --launch-count 4 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --metrics $met bin/plain_loop $big 12 > $o/ncu_$m.txt 2>&1
  echo "== ncu $m"; grep -E "^  [a-z].*\(|duration|dram__|lts__|l1tex__|sm__|smsp__inst|Registers Per|Achieved Occ|Stall|Warp Cycles Per Issued|Issue Slot" $o/ncu_$m.txt | sed -E 's/\(StepParams.*\)x/ x/; s/^ +/  /' | head -80
done
