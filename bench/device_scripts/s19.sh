#!/bin/bash
# Tiles staged only where a cell reads them (march.hpp Reach) + the per-GPU band default:
# test_gpu, plain loop A/B alternated (default / 3D grid / bands of 32), ncu of the march kernels
# (time, L2 read sectors, LTC fabric), then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
for rep in 1 2; do for m in default 8x0x4x0 8x0x4x32; do
  mm=$m; [ $m = default ] && mm=""
  echo "plain $m #$rep: $(ONDES_CUDA_MARCH=$mm bin/plain_loop $big 300 2>&1 | grep -o 'in .*per step')"
done; done
for rep in 1 2; do for c in 1x1x1 1x1x2 1x1x3 1x1x4 2x1x1 1x2x1 2x2x1 2x1x2 4x1x1; do
  echo "plain cluster $c #$rep: $(ONDES_CUDA_CLUSTER=$c bin/plain_loop $big 300 2>&1 | grep -o 'in .*per step')"
done; done
met=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
timeout 120 ncu --cache-control none --clock-control none --print-units base --kernel-name regex:"_march" --launch-skip 20 --launch-count 2 \
  --metrics $met bin/plain_loop $big 12 > $o/ncu.txt 2>&1
grep -E "  void|__" $o/ncu.txt | sed -E 's/\(StepParams.*//; s/^ +/  /'
timeout 330 bash gpu_check.sh $o/check 300 "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
