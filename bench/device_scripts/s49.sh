#!/bin/bash
# Frontier tasks on a CUDA stream of the GPU's highest priority (tasks/priority_stream.cpp,
# ONDES_CUDA_PRIORITY_STREAMS on (default) / off), two GPUs: test_gpu (both GPUs, frontier blocks
# at priority 1), the rate at 1x2 and 1x2+16 in one process (two rounds, alternated, 150 steps)
# against one GPU at 1x1, the same with 2 ranks of one GPU each, and the strip tasks' durations
# per GPU from task traces (trace_overlap.py --by-device --by-block).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STEPS=150
mpirun="mpirun --oversubscribe --bind-to none --allow-run-as-root -x LD_LIBRARY_PATH -x STARPU_SILENT -x STARPU_HOME"
cat > /tmp/rank_gpu.sh <<'SH'
#!/bin/sh
export STARPU_WORKERS_CUDAID=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
exec "$@"
SH
chmod +x /tmp/rank_gpu.sh
# mrate LAYOUT[+STRIP] MODE: the 2-rank run's rate (calibrated first when CAL=1).
mrate() {
  local l=${1%%+*} strip=0; [[ $1 == *+* ]] && strip=${1#*+}
  $mpirun -np 2 -x STARPU_NCPU=0 -x STARPU_NCUDA=1 -x ONDES_CUDA_PRIORITY_STREAMS=$2 ${CAL:+-x STARPU_CALIBRATE=1} \
    /tmp/rank_gpu.sh bin/ondes3d run $big --steps ${STEPS} --blocks $l --edge-strip $strip --sched dmda \
    --output /tmp/m.h5 2>&1 | grep -o 'done in.*cell-updates/s' | head -1
}
calibrate bin/ondes3d 1x1 STARPU_NCUDA=1
for l in 1x2 1x2+16; do for x in on off; do
  calibrate bin/ondes3d $l STARPU_NCUDA=2 ONDES_CUDA_PRIORITY_STREAMS=$x
  CAL=1 STEPS=40 mrate $l $x > /dev/null
done; done
for rep in 1 2; do
  echo "1 GPU 1x1 #$rep: $(rate bin/ondes3d 1x1 STARPU_NCUDA=1)"
  for l in 1x2 1x2+16; do for x in on off; do
    echo "2 GPUs $l priority streams $x #$rep: $(rate bin/ondes3d $l STARPU_NCUDA=2 ONDES_CUDA_PRIORITY_STREAMS=$x)"
    echo "2 ranks $l priority streams $x #$rep: $(mrate $l $x)"
  done; done
done
for x in on off; do
  echo "== trace 1x2+16 priority streams $x"
  STARPU_NCUDA=2 ONDES_CUDA_PRIORITY_STREAMS=$x bin/ondes3d run $big --steps 150 --blocks 1x2 --edge-strip 16 \
    --sched dmda --output /tmp/r.h5 --trace $o/trace_$x.csv 2>&1 | grep -o 'done in.*cell-updates/s'
  python3 trace_overlap.py --by-device --by-block $o/trace_$x.csv | grep -E "GPU|busy|gap|compute_|y1|y2" | head -30
done
for x in on off; do
  echo "== trace 2 ranks 1x2+16 priority streams $x (rank 0)"
  $mpirun -np 2 -x STARPU_NCPU=0 -x STARPU_NCUDA=1 -x ONDES_CUDA_PRIORITY_STREAMS=$x /tmp/rank_gpu.sh bin/ondes3d run \
    $big --steps 150 --blocks 1x2 --edge-strip 16 --sched dmda --output /tmp/m.h5 --trace $o/mtrace_$x.csv 2>&1 |
    grep -o 'done in.*cell-updates/s' | head -1
  python3 trace_overlap.py --by-device --by-block $o/mtrace_$x.csv | head -30
done
